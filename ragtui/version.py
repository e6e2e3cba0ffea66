"""ragtui's version, in a module of its own: the package's `__init__` loads the Python API
on first use, so a module the API imports must not import the package back for it."""

__version__ = "0.1.0"
