"""msrun's supervision of its workers: process groups, the guard, the workers' messages, failures and hangs.

Every worker is the leader of its own process group (a new session), so one signal reaches it and everything
it started. `reap` signals every group, the groups of workers that died too (their children outlive them),
and runs on every way out of `join`; the guard (`guard.py`) does it when msrun itself is killed. Each worker
writes JSON lines to a pipe (`worker.py`): its uncaught exception, at once, and with a time-out a heartbeat
saying since when its main thread has stood still.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..communication.management import JOINED_MARK

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER_SCRIPT = os.path.join(HERE, "worker.py")
GUARD_SCRIPT = os.path.join(HERE, "guard.py")
TAIL_LINES = 40
POLL_S = 0.1
STOP_GRACE_S = 3.0  # SIGTERM, then SIGKILL: a worker gets this long to stop on its own
MAX_BEAT_S = 1.0
HANG_EXIT = 124  # msrun's code for a job failed as hung (timeout(1)'s)
_FD_ENV, _PID_ENV, _BEAT_ENV = "MSX_MSRUN_FD", "MSX_MSRUN_PID", "MSX_MSRUN_BEAT"  # read by worker.py


@dataclass
class Worker:
    rank: int
    local_rank: int
    log_path: str
    process: subprocess.Popen
    pipe: int | None = None  # the read end of the worker's messages
    started: float = field(default_factory=time.monotonic)
    buffer: bytes = b""
    report: dict | None = None  # its first `error` or `exit` message
    stalled_since: float | None = None
    last_beat: float | None = None
    joining: bool = False
    where: str = ""
    failed: bool = False
    finished: bool = False  # its script is done; it may wait at jax's shutdown barrier for the others


@dataclass
class Failure:
    worker: Worker
    t: float  # when it failed (the worker's clock for a report; msrun's when it found the exit)
    code: int


def start(args, script: list[str], env_of: Callable, timeout: float,
          supervised: bool) -> tuple[list[Worker], subprocess.Popen | None]:
    """Start every local worker of `python SCRIPT...`; supervised (--join=True): inside worker.py, after the guard.

    `timeout` > 0 turns the workers' heartbeats on (one every tenth of it, at most every second)."""
    log_dir = os.path.abspath(args.log_dir or ".")
    os.makedirs(log_dir, exist_ok=True)
    cmd = [sys.executable, WORKER_SCRIPT, *script] if supervised else [sys.executable, *script]
    guard = None
    if supervised:
        guard = subprocess.Popen([sys.executable, "-I", "-S", GUARD_SCRIPT], stdin=subprocess.PIPE,
                                 stdout=subprocess.DEVNULL, start_new_session=True)
    beat = min(timeout / 10, MAX_BEAT_S) if timeout > 0 else 0.0
    node = max(args.node_rank, 0)
    workers = []
    for local_rank in range(args.local_worker_num):
        rank = node * args.local_worker_num + local_rank
        path = os.path.join(log_dir, f"{args.worker_log_name}_{rank}.log")
        env, pass_fds, read = env_of(args, rank, local_rank), (), None
        if supervised:
            read, write = os.pipe()
            env.update({_FD_ENV: str(write), _PID_ENV: str(os.getpid()), _BEAT_ENV: str(beat)})
            pass_fds = (write,)
        with open(path, "w") as log:
            proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True, pass_fds=pass_fds)
        if supervised:
            os.close(write)
            os.set_blocking(read, False)
            guard.stdin.write(f"add {proc.pid}\n".encode())
            guard.stdin.flush()
        print(f"msrun: started worker {rank} (pid {proc.pid}), log file: {path}", flush=True)
        workers.append(Worker(rank, local_rank, path, proc, read))
    return workers, guard


def join(workers: list[Worker], guard: subprocess.Popen | None, timeout: float, cluster_time_out: int) -> int:
    """Supervise the job to its end; the job's code: 0, the first failed rank's, 130 interrupted, 124 hung."""
    previous = signal.signal(signal.SIGTERM, _interrupt)  # msrun stopped from outside stops its workers too
    try:
        while True:
            _read(workers, POLL_S)
            failures = _failures(workers)
            if failures:
                return _fail(workers, failures, cluster_time_out)
            if all(w.process.poll() == 0 for w in workers):
                print(f"msrun: all {len(workers)} workers exited successfully", flush=True)
                return 0
            if timeout > 0:
                hung = _hung(workers, timeout)
                if hung:
                    return _report_hang(workers, hung, timeout)
    except KeyboardInterrupt:
        print("msrun: interrupted; stopping the workers", file=sys.stderr, flush=True)
        return 130
    finally:
        reap(workers, guard)
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


# ----------------------------------------------------------------------------------------------- messages
def _read(workers: Sequence[Worker], wait: float) -> None:
    """Take in the messages the workers have written, waiting up to `wait` s for the first."""
    pipes = {w.pipe: w for w in workers if w.pipe is not None}
    if not pipes:
        time.sleep(wait)
        return
    ready, _, _ = select.select(list(pipes), [], [], wait)
    for fd in ready:
        w = pipes[fd]
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            continue
        if not data:  # the worker (and every process holding its pipe) is gone
            os.close(fd)
            w.pipe = None
            continue
        *lines, w.buffer = (w.buffer + data).split(b"\n")
        for line in lines:
            _take(w, line)


def _take(w: Worker, line: bytes) -> None:
    try:
        message = json.loads(line)
        kind = message["kind"]
    except (ValueError, TypeError, KeyError):
        return  # not one of worker.py's lines
    if kind == "beat":
        w.stalled_since, w.last_beat = float(message["stalled_since"]), time.monotonic()
        w.joining = bool(message.get("joining"))
        w.where = message.get("where", w.where)
    elif kind == "finished":
        w.finished = True
    elif kind in ("error", "exit") and w.report is None:
        w.report = message


# ----------------------------------------------------------------------------------------------- failures
def _failures(workers: Sequence[Worker]) -> list[Failure]:
    """The ranks that failed since the last look, earliest first."""
    found, now = [], time.monotonic()
    for w in workers:
        if w.failed:
            continue
        code = w.process.poll()
        if w.report is not None:
            found.append(Failure(w, float(w.report.get("t", now)), int(w.report.get("code", 1))))
        elif code not in (None, 0):
            found.append(Failure(w, now - POLL_S, code if code > 0 else 128 - code))
        else:
            continue
        w.failed = True
    return sorted(found, key=lambda f: f.t)


def _fail(workers: list[Worker], failures: list[Failure], cluster_time_out: int) -> int:
    """Report the first failure in full (its exception, or its exit and log tail), the others in a line each."""
    first = failures[0]
    print(_describe(first, cluster_time_out), file=sys.stderr, flush=True)
    for other in failures[1:]:
        print(f"msrun: worker {other.worker.rank} failed too, {other.t - first.t:.1f} s later: "
              f"{_summary(other)} (log: {other.worker.log_path})", file=sys.stderr, flush=True)
    others = [w for w in workers if not w.failed and w.process.poll() is None]
    if others:
        print(f"msrun: stopping the other workers ({', '.join(str(w.rank) for w in others)}); the job failed",
              file=sys.stderr, flush=True)
    return first.code


def _describe(f: Failure, cluster_time_out: int) -> str:
    w, report = f.worker, f.worker.report
    head = f"msrun: worker {w.rank} (pid {w.process.pid})"
    if report is not None and report["kind"] == "error":
        text = (f"{head} failed: {report.get('type')}: {report.get('message')}\n{report.get('traceback', '')}"
                f"msrun: worker {w.rank}'s log: {w.log_path}")
    else:
        how = f"sys.exit({report.get('message')!s})" if report is not None else _exit_text(w.process.returncode)
        when = ", after its script had finished (while exiting)" if w.finished else ""
        text = f"{head} exited with code {f.code} ({how}){when}. Last lines of {w.log_path}:\n{tail(w.log_path)}"
    if _join_failed(w):
        text += (f"\nmsrun: worker {w.rank} had not joined the cluster: it did not form within "
                 f"--cluster_time_out={cluster_time_out} s")
    return text


def _summary(f: Failure) -> str:
    report = f.worker.report
    if report is not None and report["kind"] == "error":
        return f"{report.get('type')}: {str(report.get('message')).splitlines()[0] if report.get('message') else ''}"
    return f"exit code {f.code}"


def _exit_text(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return "no Python exception"


def _join_failed(w: Worker) -> bool:
    """The worker failed while it was joining jax's cluster (msx's join error, or jax's abort in it)."""
    text = _read_log(w.log_path)
    return JOINED_MARK not in text and (w.joining or "could not join the cluster" in text
                                        or "CoordinationService/RegisterTask" in text)


def tail(path: str, lines: int = TAIL_LINES) -> str:
    return "".join(_read_log(path).splitlines(keepends=True)[-lines:])


def _read_log(path: str) -> str:
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


# ----------------------------------------------------------------------------------------------- hangs
def _hung(workers: Sequence[Worker], timeout: float) -> list[tuple[Worker, float]]:
    """If a running rank stood still past `timeout`: every rank that stood still for a quarter of it, with since
    when, the earliest first (the hung one; the later ones are likely waiting for it). Else []."""
    now, still = time.monotonic(), []
    for w in workers:
        if w.process.poll() is not None or w.joining or w.finished:
            continue  # the cluster forming is --cluster_time_out's; a finished rank waits for the others
        heard = w.last_beat if w.last_beat is not None else w.started
        since = heard if now - heard > timeout else (w.stalled_since if w.stalled_since is not None else now)
        still.append((w, since))
    if not any(now - since > timeout for _, since in still):
        return []
    return sorted(((w, s) for w, s in still if now - s > timeout / 4), key=lambda ws: ws[1])


def _report_hang(workers: list[Worker], hung: list[tuple[Worker, float]], timeout: float) -> int:
    now = time.monotonic()
    w, since = hung[0]
    silent = w.last_beat is None or now - w.last_beat > timeout
    what = ("sent no heartbeat (the process is stopped, or its main thread holds the interpreter)" if silent
            else "made no progress (its main thread stayed in one call)")
    text = f"msrun: worker {w.rank} (pid {w.process.pid}) is hung: it {what} for {now - since:.1f} s (--timeout={timeout:g})"
    if w.where and not silent:
        text += f"; its main thread is at:\n{w.where.rstrip()}"
    print(text + f"\nmsrun: worker {w.rank}'s log: {w.log_path}", file=sys.stderr, flush=True)
    for other, s in hung[1:]:
        print(f"msrun: worker {other.rank} stood still too, since {s - since:.1f} s after it (waiting for it?)",
              file=sys.stderr, flush=True)
    print("msrun: stopping all workers; the job failed", file=sys.stderr, flush=True)
    return HANG_EXIT


# ----------------------------------------------------------------------------------------------- reaping
def reap(workers: Sequence[Worker], guard: subprocess.Popen | None) -> None:
    """Stop every worker's process group, living worker or not: SIGTERM, up to STOP_GRACE_S, then SIGKILL."""
    for w in workers:
        _signal(w, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_S
    while time.monotonic() < deadline and any(w.process.poll() is None for w in workers):
        time.sleep(0.05)
    for w in workers:
        _signal(w, signal.SIGKILL)  # what ignored SIGTERM, and what a worker left behind
    for w in workers:
        w.process.wait()
        if w.pipe is not None:
            os.close(w.pipe)
            w.pipe = None
    if guard is not None:
        try:
            guard.stdin.write(b"done\n")
            guard.stdin.close()
        except OSError:
            pass
        guard.wait()


def _signal(w: Worker, sig: int) -> None:
    try:
        os.killpg(w.process.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
