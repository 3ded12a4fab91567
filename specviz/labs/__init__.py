"""What specviz measures and explains over runs: the bench, the exactness experiments, the roofline, timelines and the
recorded example traces."""
