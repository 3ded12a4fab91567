"""Loading pairs of models: the offline default, the toy pair, catalog pairs, hub ids and local folders, the shipped
drafts and what this machine can hold."""
