"""The one way every caller runs a generation: a RunSpec (plain, checked data) in, a Trace out."""
