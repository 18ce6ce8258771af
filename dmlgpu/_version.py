"""The version, defined once: pyproject.toml reads it (setuptools' dynamic version) and
dmlgpu.__version__ is it."""

__version__ = "0.2.0"
