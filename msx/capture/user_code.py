"""Which code is the user's: source and bytecode capture interpret it; msx and installed libraries run as is."""
from __future__ import annotations

import os
import sys
import sysconfig


def _library_dirs() -> tuple[str, ...]:
    msx_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs = {msx_dir}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(path)
    for mod in ("jax", "numpy", "optax", "flax"):
        module = sys.modules.get(mod)
        if module is not None and getattr(module, "__file__", None):
            dirs.add(os.path.dirname(os.path.dirname(os.path.abspath(module.__file__))))
    return tuple(os.path.join(os.path.realpath(d), "") for d in dirs) + tuple(os.path.join(d, "") for d in dirs)


_LIBRARY_DIRS = _library_dirs()
_USER_FILE: dict[str, bool] = {}


def is_user_file(filename: str) -> bool:
    """True for code the user wrote (a script, a test, a notebook cell); False for msx and installed libraries."""
    known = _USER_FILE.get(filename)
    if known is None:
        known = not (filename.startswith("<frozen") or filename.startswith(_LIBRARY_DIRS)
                     or os.path.realpath(filename).startswith(_LIBRARY_DIRS))
        _USER_FILE[filename] = known
    return known
