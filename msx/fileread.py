"""Bounded reads of untrusted files: the size is known before the first byte is read.

Every msx loader reads through `open_regular`, which refuses what is not a
regular file (a directory, `/dev/zero`, a pipe: their size is unknown, and a
loader reading one "to the end" would read until `MemoryError`) and returns
the real size, so a loader compares the sizes its header declares with the
file before it reads the rest. `read_exact` then reads exactly what was
declared.
"""
from __future__ import annotations

import os
import stat
from typing import BinaryIO

from .errors import LoadError, TruncatedFileError


def open_regular(path: str, what: str = "file") -> tuple[BinaryIO, int]:
    """(the open binary file, its size in bytes); a `LoadError` for anything but a regular file."""
    # O_NONBLOCK: opening a pipe nobody writes to would otherwise wait forever (harmless for regular files)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise LoadError(f"{path} is not a regular file (it is a {_kind(info.st_mode)}); msx reads a {what} only "
                            f"from a regular file, whose size it can check before reading")
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb"), info.st_size


def read_exact(f: BinaryIO, n: int, path: str, what: str) -> bytes:
    """`n` bytes from `f`, or `TruncatedFileError` if the file ends first."""
    data = f.read(n)
    if len(data) != n:
        raise TruncatedFileError(f"{path} is truncated: {what} needs {n} bytes, only {len(data)} are left")
    return data


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "directory"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISFIFO, "pipe"), (stat.S_ISSOCK, "socket")):
        if test(mode):
            return name
    return "special file"
