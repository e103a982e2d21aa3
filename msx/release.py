"""msx's version string, in a leaf module: the files msx writes (checkpoints, exports, custom-op caches) record
it, and they sit below the top-level package that re-exports it as `msx.__version__`."""
__version__ = "0.1.0"
