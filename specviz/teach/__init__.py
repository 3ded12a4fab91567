"""What specviz teaches with: the guided path's lessons, the quiz bank, and the classroom stores."""
