"""The wrapper msrun runs each worker in: `python .../msx/run/worker.py SCRIPT ARGS...` (or `-m MODULE ARGS...`).

It is run by its path, never imported as part of msx: a worker pays for `import msx` (and jax) only when its
script imports it, and joins jax's cluster only then. Before the script runs it
- makes the worker die with msrun: `PR_SET_PDEATHSIG` (Linux), then a check that msrun did not die already;
  where there is no prctl the heartbeat thread watches msrun's pid instead;
- with `MSX_MSRUN_BEAT` > 0, starts a heartbeat thread that tells msrun, every that many seconds, since when
  the rank has made no progress (its main thread in the same call at the same instruction, and the process
  not computing), where its main thread stands then, and whether it is inside `jax.distributed.initialize` (the cluster forming, which
  msrun's `--cluster_time_out` governs, not `--timeout`);
- reports an uncaught exception (or a non-zero `sys.exit`) to msrun at once, with its type, message and the
  traceback's last lines. The rank then exits as Python does, running its atexit handlers; msrun does not wait
  for that (jax's shutdown barrier would keep the rank alive for minutes while its peers wait for it in a
  collective) and stops the job.
Messages are lines of JSON written to the pipe `MSX_MSRUN_FD` that msrun reads. Then the script runs as
`python SCRIPT ARGS` runs it: a fresh `__main__` module, `sys.argv`, `sys.path[0]` the script's directory.
"""
import sys

if __name__ == "__main__":  # first, before any import can look there: this file's directory must not shadow modules
    del sys.path[0]

import atexit  # noqa: E402
import ctypes  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import runpy  # noqa: E402
import signal  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import types  # noqa: E402

FD_ENV, PID_ENV, BEAT_ENV = "MSX_MSRUN_FD", "MSX_MSRUN_PID", "MSX_MSRUN_BEAT"
TRACEBACK_CHARS = 3000  # the report's traceback: its last lines, kept under a pipe's atomic write
STACK_FRAMES = 8
BUSY = 0.1  # of one core: less is a process that waits (measured: 0.4% in a gloo collective, 0.3% asleep)
PR_SET_PDEATHSIG = 1

_lock = threading.Lock()
# read once at import: CPython deletes `__file__` from a script's globals when the script returns, and the
# heartbeat thread still asks where the main thread stands while the interpreter shuts down (jax's barrier)
_OWN_FILES = frozenset({os.path.abspath(__file__), os.path.abspath(runpy.__file__)})


class Channel:
    """The pipe to msrun: whole JSON lines, one writer at a time; a vanished msrun is not an error here."""

    def __init__(self, fd: int | None):
        self.fd = fd

    def send(self, **message) -> None:
        if self.fd is None:
            return
        data = (json.dumps(message) + "\n").encode()
        with _lock:
            try:
                while data:
                    data = data[os.write(self.fd, data):]
            except OSError:
                self.fd = None


def die_with_parent(parent: int) -> bool:
    """Ask the kernel to SIGKILL this process when msrun dies; False where that is unavailable (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if os.getppid() != parent:  # msrun died between our fork and the prctl: the kernel will not tell us
        os._exit(1)
    return True


def _joining(frame) -> bool:
    while frame is not None:
        code = frame.f_code
        if code.co_name == "initialize" and code.co_filename.replace("\\", "/").endswith("jax/_src/distributed.py"):
            return True
        frame = frame.f_back
    return False


def heartbeat(channel: Channel, every: float, parent: int | None) -> None:
    """Report, every `every` s, since when the rank has stood still: its main thread in the same call at the
    same instruction, and the process (all its threads, XLA's included) computing less than `BUSY` of a core.

    A compile or a long XLA step computes, so it is progress; a rank waiting in a collective, a sleep, a lock
    or a read does not. The frame object seen last is held until the next look, so that a new call cannot be
    given its address and pass for it (frames have no weak references); that keeps one frame's locals alive
    for `every` s.
    """
    main = threading.main_thread().ident
    held, lasti, told = None, -1, False
    since = last = time.monotonic()
    cpu = time.process_time()
    while True:
        time.sleep(every)
        if parent is not None and os.getppid() != parent:  # msrun is gone and no kernel signal killed us
            os.killpg(os.getpgid(0), signal.SIGKILL)
        frame = sys._current_frames().get(main)
        if frame is None:
            return
        now, used = time.monotonic(), time.process_time()
        if frame is not held or frame.f_lasti != lasti or used - cpu > BUSY * (now - last):
            held, lasti, since, told = frame, frame.f_lasti, now, False
        cpu, last = used, now
        message = {"kind": "beat", "stalled_since": since, "joining": _joining(frame)}
        if not told and now - since >= every:  # where it stands, once per stall
            message["where"] = _where(frame)
            told = True
        del frame
        channel.send(**message)


def _where(frame) -> str:
    """The main thread's last frames, without this wrapper's and runpy's."""
    stack = [s for s in traceback.extract_stack(frame) if os.path.abspath(s.filename) not in _OWN_FILES]
    return "".join(traceback.format_list(stack[-STACK_FRAMES:]))


def _user_traceback(tb):
    """The traceback without this wrapper's and runpy's frames, as `python SCRIPT` would print it."""
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) in _OWN_FILES:
        tb = tb.tb_next
    return tb


def run_script(path: str, argv: list[str]) -> None:
    """Run `path` as `python path argv...` does."""
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__builtins__ = __builtins__
    main.__spec__ = None
    main.__loader__ = None
    sys.modules["__main__"] = main
    sys.argv = [path, *argv]
    sys.path.insert(0, os.path.dirname(os.path.realpath(path)))
    with open(path, "rb") as f:
        source = f.read()
    exec(compile(source, path, "exec"), main.__dict__)


def main(argv: list[str]) -> int:
    fd = os.environ.pop(FD_ENV, None)
    parent = int(os.environ.pop(PID_ENV, "0")) or None
    every = float(os.environ.pop(BEAT_ENV, "0"))
    channel = Channel(int(fd) if fd is not None else None)
    if channel.fd is not None:
        os.set_inheritable(channel.fd, False)  # the script's own child processes do not get the pipe
    watch = parent if parent is not None and not die_with_parent(parent) else None
    if every > 0 or watch is not None:
        threading.Thread(target=heartbeat, args=(channel, every if every > 0 else 1.0, watch),
                         name="msrun-heartbeat", daemon=True).start()
    sys.modules["_msx_run_worker"] = sys.modules[__name__]  # this module lives on after __main__ is the script's
    try:
        if argv[0] == "-m":
            sys.argv = argv[1:]
            sys.path.insert(0, os.getcwd())
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            run_script(argv[0], argv[1:])
    except SystemExit as exc:
        if exc.code not in (None, 0):
            channel.send(kind="exit", t=time.monotonic(), code=exc.code if isinstance(exc.code, int) else 1,
                         message=str(exc.code))
        else:
            channel.send(kind="finished")
        return _exit_code(exc.code)
    except BaseException as exc:  # KeyboardInterrupt too: the rank stops with an error either way
        tb = _user_traceback(exc.__traceback__)
        text = "".join(traceback.format_exception(type(exc), exc, tb))
        channel.send(kind="error", t=time.monotonic(), type=_type_name(type(exc)), message=str(exc),
                     traceback=text[-TRACEBACK_CHARS:])
        sys.excepthook(type(exc), exc, tb)
        return 1
    channel.send(kind="finished")  # what follows (atexit: jax's shutdown barrier) may wait for the other ranks
    return 0


def _exit_code(code) -> int:
    """The status `raise SystemExit(code)` ends Python with (a non-int code is printed, and the status is 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def leave(code: int) -> None:
    """End the rank as Python's own exit does, but without the interpreter's finalization.

    Python waits for the non-daemon threads, runs the atexit handlers (jax's shutdown barrier among them) and
    then finalizes: from then on any thread that wants the GIL is ended with `pthread_exit`, and a thread
    doing so inside a C++ frame (jax's runtime releasing a buffer, a callback) aborts the whole process:
    "terminate called after throwing an instance of ...; FATAL: exception not rethrown" (code 134, seen in
    CI after a rank's script had finished). So the steps that matter to the user run here, while every
    thread is still healthy: the threads are joined, the atexit handlers run, the script's globals are
    released (their `__del__`: files flushed and closed), the standard streams flushed; then `os._exit`, as
    a `multiprocessing` child ends. What is skipped is what Python does not promise to do anyway (`__del__`
    of objects alive at exit)."""
    try:
        shutdown = getattr(threading, "_shutdown", None)  # what Python's exit calls first (joins the threads)
        if shutdown is not None:
            shutdown()
        atexit._run_exitfuncs()
        script = sys.modules.get("__main__")
        if script is not None and script is not sys.modules.get("_msx_run_worker"):
            script.__dict__.clear()
        gc.collect()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        os._exit(code)


def _type_name(cls: type) -> str:
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


if __name__ == "__main__":
    leave(main(sys.argv[1:]))
