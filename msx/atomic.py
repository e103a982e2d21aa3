"""Atomic file writes: readers see the old file or the new one, never a half-written one.

The bytes go to a temporary file in the target's directory, are flushed to
disk, and only then renamed over the target (`os.replace` is atomic on POSIX
and Windows). If anything fails or the process is interrupted before the
rename (KeyboardInterrupt included), the previous file is untouched and the
temporary file is removed.

A save killed outright (SIGKILL, power loss) cannot clean up, so temporary
names say who made them: `.<target>.msx-<host>-<pid>-<random>.tmp`. Each
save sweeps the directory it writes to for such files left by a process of
this host that no longer runs, or older than `STALE_AFTER_S` (a pid reused by
another process, or another host's crash). Only names matching that exact
pattern are touched, so a user's own files are never deleted.
"""
from __future__ import annotations

import hashlib
import os
import re
import socket
import tempfile
import time
from typing import Iterable

STALE_AFTER_S = 24 * 3600
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
_TEMP = re.compile(r"\..+\.msx-(?P<host>[0-9a-f]{8})-(?P<pid>[0-9]+)-[a-z0-9_]{8}\.tmp\Z", re.DOTALL)


def write_atomic(path: str | os.PathLike, chunks: Iterable[bytes]) -> None:
    """Write the concatenation of `chunks` to `path` atomically."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    sweep(folder)
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path), suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            os.chmod(tmp, _mode_for(path))
            for chunk in chunks:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def temp_prefix(path: str) -> str:
    """The start of this process's temporary names for `path` (mkstemp adds 8 random characters)."""
    return f".{os.path.basename(path)}.msx-{_HOST}-{os.getpid()}-"


def sweep(folder: str) -> list[str]:
    """Remove msx's temporary files in `folder` left by dead processes (or stale); returns the names removed."""
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    now = time.time()
    for name in names:
        m = _TEMP.match(name)
        if m is None:
            continue
        full = os.path.join(folder, name)
        try:
            age = now - os.lstat(full).st_mtime
            mine = m["host"] == _HOST
            if (mine and not _alive(int(m["pid"]))) or age > STALE_AFTER_S:
                os.remove(full)
                removed.append(name)
        except OSError:  # gone already, or not ours to remove: leave it
            continue
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid() or os.name == "nt":  # (os.kill(pid, 0) would terminate the process on Windows)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # exists (another user's), or cannot tell: keep the file
    return True


def _mode_for(path: str) -> int:
    """The permission bits `open()` would give a new file (or the existing file's), not mkstemp's 0600."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask
