"""The persistent compilation cache: MindSpore's `enable_compile_cache` / `compile_cache_path` on jax's own.

`set_context(enable_compile_cache=True, compile_cache_path=p)` (or MindSpore's environment variables
`MS_COMPILER_CACHE_ENABLE=1` / `MS_COMPILER_CACHE_PATH=p`, read when msx is imported) stores every XLA
executable msx compiles — jitted graphs and eager ops alike — in `p/rank_<rank>/` (MindSpore's layout), so a
second process running the same script compiles nothing. Eager ops' executables go to jax's persistent cache:
an entry's key covers the HLO, the compile options, the jax/jaxlib versions and the device, so a different
program, jax or backend never loads a wrong executable; an entry that fails to read or deserialize is
recompiled; concurrent processes share the folder under a file lock; least-recently-used entries are evicted
past `MSX_COMPILE_CACHE_MAX_BYTES` (default 2 GiB). Jitted graphs' executables go to msx's own cache in the same
folder (`backends/executable_cache.py`), keyed on the graph, so a second process does not lower them either.
"""
from __future__ import annotations

import os

import jax
from jax.experimental.compilation_cache import compilation_cache

DEFAULT_MAX_BYTES = 2 * 1024 ** 3
_FOLDER: list[str | None] = [None]  # the rank folder in use; None: the cache is off


def cache_folder(path: str) -> str:
    """MindSpore's layout: one folder per rank under the configured path."""
    return os.path.join(os.path.abspath(path or "."), f"rank_{os.environ.get('RANK_ID', '0')}")


def configure(enabled: bool, path: str) -> str | None:
    """Switch jax's persistent cache to `path`'s rank folder (or off); returns the folder in use."""
    compilation_cache.reset_cache()   # jax opens its cache once: a new folder (or off) needs a fresh start
    if not enabled:
        jax.config.update("jax_enable_compilation_cache", False)
        _FOLDER[0] = None
        return None
    where = cache_folder(path)
    jax.config.update("jax_enable_compilation_cache", True)
    jax.config.update("jax_compilation_cache_dir", where)
    jax.config.update("jax_compilation_cache_max_size", max_bytes())
    # msx's eager ops are many small executables: each is worth keeping, however quick it was to compile
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    _FOLDER[0] = where
    return where


def folder() -> str | None:
    """The rank folder the cache uses now (None: off); msx's own executable cache lives inside it."""
    return _FOLDER[0]


def max_bytes() -> int:
    """The size bound of each cache in the folder (`MSX_COMPILE_CACHE_MAX_BYTES`, default 2 GiB)."""
    return int(os.environ.get("MSX_COMPILE_CACHE_MAX_BYTES", DEFAULT_MAX_BYTES))


def from_environment() -> tuple[bool, str] | None:
    """MindSpore's `MS_COMPILER_CACHE_ENABLE` / `MS_COMPILER_CACHE_PATH`, when the first is set."""
    flag = os.environ.get("MS_COMPILER_CACHE_ENABLE")
    if flag is None:
        return None
    return flag.strip() not in ("", "0", "false", "False"), os.environ.get("MS_COMPILER_CACHE_PATH", ".")
