"""Which code is the user's: source and bytecode capture interpret it; msx and installed libraries run as is."""
from __future__ import annotations

import os
import sys
import sysconfig
import traceback
from types import TracebackType

from ..errors import SourceLoc


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


def raising_user_loc(tb: TracebackType | None) -> SourceLoc | None:
    """The innermost frame of the user's code in a traceback (the user's line an msx-internal error came from)."""
    found = None
    for frame, line in traceback.walk_tb(tb):
        if is_user_file(frame.f_code.co_filename):
            found = frame, line
    if found is None:
        return None
    frame, line = found
    code = frame.f_code
    for tb_ in _tbs(tb):
        if tb_.tb_frame is frame:
            start, end, col, end_col = next(iter(list(code.co_positions())[tb_.tb_lasti // 2:]), (None,) * 4)
            if start is not None:
                return SourceLoc(code.co_filename, start, col or 0, end_col if end == start else None, code.co_name)
    return SourceLoc(code.co_filename, line, 0, None, code.co_name)


def _tbs(tb: TracebackType | None):
    while tb is not None:
        yield tb
        tb = tb.tb_next
