"""The package's version, in a module of its own: the lowest layer may read it (GPU-file and
result caches are keyed on it) without importing the package's public facade."""

__version__ = "0.1.0"
