"""A tiny msrun worker for the fault tests (`tests/test_msrun.py`): the standard library only, no msx, no jax.

`python faults.py MODE OUT_DIR`, under msrun (RANK_ID set). Every rank first starts a child process (a sleeper)
and writes `OUT_DIR/pids_<rank>` = "<its pid> <child's pid>", then by MODE:
- `die`: rank 1 waits until rank 0 has written its pids, then dies without a Python exception (os._exit(3));
  rank 0 sleeps.
- `leftover`: every rank exits 0 at once, leaving its child running.
- `wait`: every rank sleeps (msrun is SIGKILLed from outside).
- `raise`: rank 1 writes OUT_DIR/raised_at (time.time()) and raises ValueError two calls deep; rank 0 sleeps.
- `linger`: rank 0's script ends at once but an atexit handler (a Python function) keeps it 3 s (as jax's shutdown barrier keeps a
  rank that waits for the others); rank 1 computes in Python for 3 s; both exit 0.
- `tidy`: every rank leaves work for Python's exit and returns: a module-level file written but never closed
  (`unclosed_<rank>`), an atexit handler (`atexit_<rank>`) and a non-daemon thread still running
  (`thread_<rank>`); all three must be on disk after the job, though msrun's worker skips the finalization.
- `hang`: rank 1 writes OUT_DIR/ready and sleeps in `wait_forever` (hung); rank 0 computes in Python until 1 s
  after that, then sleeps too (as a peer waiting for it in a collective would).
"""
import os
import subprocess
import sys
import time

mode, out = sys.argv[1], sys.argv[2]
rank = int(os.environ["RANK_ID"])
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open(os.path.join(out, f"pids_{rank}.tmp"), "w") as f:
    f.write(f"{os.getpid()} {child.pid}")
os.replace(os.path.join(out, f"pids_{rank}.tmp"), os.path.join(out, f"pids_{rank}"))


def wait_for(name: str) -> None:
    deadline = time.monotonic() + 60
    while not os.path.exists(os.path.join(out, name)) and time.monotonic() < deadline:
        time.sleep(0.02)


def wait_forever() -> None:
    time.sleep(600)


def check(value: int) -> None:
    if value != 0:
        raise ValueError(f"rank {value} got a bad value")


def step(n: int) -> int:
    return sum(i * i for i in range(n))


if mode == "leftover":
    sys.exit(0)
if mode == "tidy":
    import atexit
    import threading

    def late_write(name: str, delay: float = 0.0) -> None:
        time.sleep(delay)
        with open(os.path.join(out, f"{name}_{rank}"), "w") as f:
            f.write("done")

    unclosed = open(os.path.join(out, f"unclosed_{rank}"), "w")
    unclosed.write("buffered, flushed only when the file object is released")
    atexit.register(late_write, "atexit")
    threading.Thread(target=late_write, args=("thread", 0.5)).start()
    sys.exit(0)
if mode == "linger":
    if rank == 0:
        import atexit

        def shutdown_barrier():  # a Python frame, as jax's is: the heartbeat asks where it stands
            time.sleep(3)

        atexit.register(shutdown_barrier)
    else:
        end = time.monotonic() + 3
        while time.monotonic() < end:
            step(200)
if mode != "linger":  # a linger script returns as most do (CPython then deletes the wrapper's `__file__`)
    if rank == 1 and mode == "die":
        wait_for("pids_0")
        os._exit(3)
    if rank == 1 and mode == "raise":
        with open(os.path.join(out, "raised_at"), "w") as f:
            f.write(repr(time.time()))
        check(rank)
    if rank == 1 and mode == "hang":
        open(os.path.join(out, "ready"), "w").close()
        wait_forever()
    if rank == 0 and mode == "hang":
        wait_for("ready")
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            step(200)
    time.sleep(600)
