"""`msrun` (and `python -m msx.run`): MindSpore's launcher for a multi-process job on jax's distributed runtime.

Each node runs one `msrun`; it starts `--local_worker_num` workers of the user's
script, gives each the environment `msx.communication.init` reads (MindSpore's
own variable names: `MS_WORKER_NUM`, `MS_SCHED_HOST`, `MS_SCHED_PORT`,
`MS_NODE_ID`, `RANK_ID`, `RANK_SIZE`, `MS_TOPO_TIMEOUT`, plus `LOCAL_RANK`),
and writes one log per worker under `--log_dir`. The workers form the cluster
themselves through `jax.distributed.initialize` (rank 0 hosts jax's
coordinator at `--master_addr:--master_port`), so there is no scheduler
process and nothing single-host: a second node runs the same line with its
`--node_rank`.

With `--join=True` msrun waits for its workers, and the first one that fails
stops the others and makes msrun exit with its code, after printing the tail
of that worker's log. A cluster that does not form within `--cluster_time_out`
seconds fails the same way (jax's initialisation time-out, set from it).
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import IO, Sequence

from .communication.management import JOINED_MARK

TAIL_LINES = 40
POLL_S = 0.2
GRACE_S = 2.0


@dataclass
class Worker:
    rank: int
    local_rank: int
    log_path: str
    process: subprocess.Popen
    log: IO


def _bool(text: str) -> bool:
    """MindSpore's `--join=True`/`--join=False`."""
    if text not in ("True", "False"):
        raise argparse.ArgumentTypeError(f"expected True or False, got {text!r}")
    return text == "True"


def parser() -> argparse.ArgumentParser:
    # allow_abbrev=False: an option of the training script (`--worker=...`) is never taken for a prefix of msrun's
    p = argparse.ArgumentParser(prog="msrun", description="Start a distributed msx job (MindSpore's msrun flags).",
                                allow_abbrev=False)
    p.add_argument("--worker_num", type=int, default=8, help="workers in the whole job (all nodes)")
    p.add_argument("--local_worker_num", type=int, default=8, help="workers started on this node")
    p.add_argument("--master_addr", default="127.0.0.1", help="host of rank 0 (jax's coordinator)")
    p.add_argument("--master_port", type=int, default=8118, help="port of jax's coordinator on the master")
    p.add_argument("--node_rank", type=int, default=-1,
                   help="this node's index; its workers get ranks node_rank*local_worker_num + i")
    p.add_argument("--log_dir", default="", help="directory for worker_<rank>.log (default: the current one)")
    p.add_argument("--join", type=_bool, default=False, help="wait for the workers and return their result")
    p.add_argument("--cluster_time_out", type=int, default=600,
                   help="seconds for the cluster to form before the workers give up (negative: wait forever)")
    p.add_argument("--worker_log_name", default="worker", help="log file stem: <stem>_<rank>.log")
    p.add_argument("--tail_worker_log", default="-1",
                   help="(accepted for MindSpore compatibility; worker logs are files, the dead rank's is shown)")
    p.add_argument("task_script", help="the training script, then its own arguments")
    p.add_argument("task_script_args", nargs=argparse.REMAINDER)
    return p


def check(args: argparse.Namespace) -> None:
    """Refuse a layout that cannot form a cluster, before anything starts."""
    if args.worker_num < 1 or args.local_worker_num < 1:
        raise SystemExit(f"msrun: --worker_num and --local_worker_num must be >= 1, got "
                         f"{args.worker_num} and {args.local_worker_num}")
    if args.local_worker_num > args.worker_num:
        raise SystemExit(f"msrun: --local_worker_num={args.local_worker_num} exceeds --worker_num={args.worker_num}")
    if args.worker_num != args.local_worker_num and args.node_rank < 0:
        raise SystemExit("msrun: a job over several nodes needs --node_rank on each node (jax gives every process "
                         "a fixed rank; ranks are node_rank*local_worker_num + i)")
    node = max(args.node_rank, 0)
    if (node + 1) * args.local_worker_num > args.worker_num:
        raise SystemExit(f"msrun: --node_rank={node} with --local_worker_num={args.local_worker_num} gives ranks "
                         f"past --worker_num={args.worker_num}")
    if not 0 < args.master_port < 65536:
        raise SystemExit(f"msrun: --master_port must be a port number, got {args.master_port}")


def worker_env(args: argparse.Namespace, rank: int, local_rank: int) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "MS_WORKER_NUM": str(args.worker_num), "MS_LOCAL_WORKER": str(args.local_worker_num),
        "MS_SCHED_HOST": args.master_addr, "MS_SCHED_PORT": str(args.master_port), "MS_ROLE": "MS_WORKER",
        "MS_NODE_ID": str(rank), "RANK_ID": str(rank), "RANK_SIZE": str(args.worker_num),
        "LOCAL_RANK": str(local_rank), "MS_TOPO_TIMEOUT": str(args.cluster_time_out),
        "PYTHONUNBUFFERED": "1",
    })
    return env


def start(args: argparse.Namespace) -> list[Worker]:
    log_dir = os.path.abspath(args.log_dir or ".")
    os.makedirs(log_dir, exist_ok=True)
    node = max(args.node_rank, 0)
    workers = []
    for local_rank in range(args.local_worker_num):
        rank = node * args.local_worker_num + local_rank
        path = os.path.join(log_dir, f"{args.worker_log_name}_{rank}.log")
        log = open(path, "w")
        cmd = [sys.executable, args.task_script, *args.task_script_args]
        proc = subprocess.Popen(cmd, env=worker_env(args, rank, local_rank), stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        print(f"msrun: started worker {rank} (pid {proc.pid}), log file: {path}", flush=True)
        workers.append(Worker(rank, local_rank, path, proc, log))
    return workers


def tail(path: str, lines: int = TAIL_LINES) -> str:
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-lines:])


def stop(workers: Sequence[Worker]) -> None:
    """Terminate every worker still running (its whole process group), then kill what ignores that."""
    alive = [w for w in workers if w.process.poll() is None]
    for w in alive:
        _signal(w, signal.SIGTERM)
    deadline = time.monotonic() + 5
    for w in alive:
        try:
            w.process.wait(max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            _signal(w, signal.SIGKILL)
            w.process.wait()


def _signal(w: Worker, sig: int) -> None:
    try:
        os.killpg(w.process.pid, sig)
    except ProcessLookupError:
        pass


def join(workers: list[Worker], timeout: int) -> int:
    """Wait for all workers; the first failure stops the rest and its code is returned.

    A rank's death usually makes its peers' collectives fail too, within moments: every worker that failed
    on its own within `GRACE_S` of the first is reported with its log tail, so the dead rank is among them.
    """
    pending = list(workers)
    signal.signal(signal.SIGTERM, _interrupt)  # msrun stopped from outside stops its workers too
    try:
        while pending:
            for w in list(pending):
                code = w.process.poll()
                if code is None:
                    continue
                pending.remove(w)
                if code != 0:
                    failed = [w] + _also_failed(pending)
                    stop(pending)
                    for f in failed:
                        print(f"msrun: worker {f.rank} (pid {f.process.pid}) exited with code {f.process.returncode}."
                              f" Last lines of {f.log_path}:\n{tail(f.log_path)}", file=sys.stderr, flush=True)
                        if not _joined(f):
                            print(f"msrun: worker {f.rank} had not joined the cluster: it did not form within "
                                  f"--cluster_time_out={timeout} s, or the worker failed before joining",
                                  file=sys.stderr, flush=True)
                    print("msrun: stopped the other workers; the job failed", file=sys.stderr, flush=True)
                    return code if code > 0 else 128 - code
            time.sleep(POLL_S)
    except KeyboardInterrupt:
        stop(pending)
        return 130
    finally:
        for w in workers:
            w.log.close()
    print(f"msrun: all {len(workers)} workers exited successfully", flush=True)
    return 0


def _joined(w: Worker) -> bool:
    with open(w.log_path, errors="replace") as f:
        return JOINED_MARK in f.read()


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _also_failed(pending: list[Worker]) -> list[Worker]:
    """The workers that fail on their own within GRACE_S (removed from `pending`)."""
    deadline, failed = time.monotonic() + GRACE_S, []
    while pending and time.monotonic() < deadline:
        for w in list(pending):
            if w.process.poll() is not None:
                pending.remove(w)
                if w.process.returncode != 0:
                    failed.append(w)
        time.sleep(POLL_S)
    return failed


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    check(args)
    workers = start(args)
    if not args.join:
        for w in workers:
            w.log.close()
        return 0
    return join(workers, args.cluster_time_out)


if __name__ == "__main__":
    sys.exit(main())
