"""Atomic file writes: readers see the old file or the new one, never a half-written one.

The bytes go to a temporary file in the target's directory, are flushed to
disk, and only then renamed over the target (`os.replace` is atomic on POSIX
and Windows). If anything fails or the process is interrupted before the
rename, the previous file is untouched and the temporary file is removed.
"""
from __future__ import annotations

import os
import tempfile
from typing import Iterable


def write_atomic(path: str | os.PathLike, chunks: Iterable[bytes]) -> None:
    """Write the concatenation of `chunks` to `path` atomically."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    try:
        os.chmod(tmp, _mode_for(path))
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _mode_for(path: str) -> int:
    """The permission bits `open()` would give a new file (or the existing file's), not mkstemp's 0600."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask
