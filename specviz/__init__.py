"""specviz: run speculative decoding on real models and see every step of it."""

__version__ = "0.1.0"
