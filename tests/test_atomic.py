"""Atomic saves: unique temporary names in the target's folder, removed on failure (KeyboardInterrupt included),
and the orphans of a save killed with SIGKILL swept by the next save into that folder — never a user's file."""
import os
import signal
import subprocess
import sys
import time

import pytest

from msx import atomic

ATOMIC = os.path.abspath(atomic.__file__)
# the child loads atomic.py alone (no msx, no jax), starts a save and hangs in the middle of it
CHILD = f"""
import importlib.util, sys, time
spec = importlib.util.spec_from_file_location("atomic", {ATOMIC!r})
atomic = importlib.util.module_from_spec(spec)
spec.loader.exec_module(atomic)

def chunks():
    yield b"x" * 100000
    print("writing", flush=True)
    time.sleep(120)
    yield b"never"

atomic.write_atomic(sys.argv[1], chunks())
"""


def _temps(folder) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.endswith(".tmp"))


def _killed_save(target) -> str:
    """Start a save of `target` in a child, SIGKILL it mid-write; returns the orphaned temporary file's name."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(target)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "writing\n"
        orphans = _temps(target.parent)
        assert len(orphans) == 1 and orphans[0].startswith(f".{target.name}.msx-") and f"-{proc.pid}-" in orphans[0]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    return orphans[0]


def test_a_save_killed_mid_write_is_swept_by_the_next_save(tmp_path):
    target = tmp_path / "model.ckpt"
    target.write_bytes(b"previous")
    orphan = _killed_save(target)
    assert target.read_bytes() == b"previous" and (tmp_path / orphan).stat().st_size == 100000
    keep = [".model.ckpt.tmp", ".model.ckpt.abc123.tmp", "notes.msx-00000000-1-abcdefgh.tmp",  # not msx's pattern
            f".other.msx-{atomic._HOST}-{os.getpid()}-abcdefgh.tmp"]  # a live process's save in progress
    for name in keep:
        (tmp_path / name).write_bytes(b"user data")
    old = tmp_path / ".x.msx-0123abcd-1-abcdefgh.tmp"  # another host's orphan, two days old
    old.write_bytes(b"")
    os.utime(old, (time.time() - 2 * 86400,) * 2)
    young = tmp_path / ".y.msx-0123abcd-1-abcdefgh.tmp"  # another host's, recent: maybe still being written
    young.write_bytes(b"")
    atomic.write_atomic(tmp_path / "other.bin", [b"new"])
    assert set(_temps(tmp_path)) == set(keep) | {young.name}
    assert target.read_bytes() == b"previous" and (tmp_path / "other.bin").read_bytes() == b"new"


def test_killed_saves_do_not_accumulate(tmp_path):
    """The issue's measurement: repeated kills used to leave one orphan each."""
    target = tmp_path / "m.msxir"
    for _ in range(3):
        _killed_save(target)
        atomic.write_atomic(target, [b"ok"])
        assert _temps(tmp_path) == []


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, OSError])
def test_an_interrupted_write_removes_its_temporary_file(tmp_path, interrupt):
    target = tmp_path / "t.bin"
    target.write_bytes(b"old")

    def chunks():
        yield b"partial"
        raise interrupt()

    with pytest.raises(interrupt):
        atomic.write_atomic(target, chunks())
    assert os.listdir(tmp_path) == ["t.bin"] and target.read_bytes() == b"old"


def test_temporary_names_are_unique_per_process_and_call(tmp_path):
    prefix = atomic.temp_prefix(str(tmp_path / "a.ckpt"))
    assert prefix == f".a.ckpt.msx-{atomic._HOST}-{os.getpid()}-"
    assert atomic._TEMP.match(prefix + "abcdefgh.tmp") and not atomic._TEMP.match(prefix + "abc.tmp")
