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

With `--join=True` msrun supervises the job (`msx.run.job`): every worker runs
in its own process group inside a small wrapper (`msx/run/worker.py`) that
makes it die with msrun and reports its uncaught exception at once; the first
rank that fails makes msrun report it first and stop the rest; a rank that
makes no progress for `--timeout` seconds fails the job as hung; and whatever
way msrun ends, SIGKILL included, no worker nor anything a worker started is
left running.
"""
from __future__ import annotations

import argparse
import os
from typing import Sequence

from .job import join, start

PYTHONS = ("python", "python3")  # MindSpore's `msrun ... python train.py` / `pytest ...` forms
DEFAULT_TIMEOUT = 1836  # s: MindSpore's default HCCL_EXEC_TIMEOUT, after which a collective that waits fails


def _bool(text: str) -> bool:
    """MindSpore's `--join=True`/`--join=False`."""
    if text not in ("True", "False"):
        raise argparse.ArgumentTypeError(f"expected True or False, got {text!r}")
    return text == "True"


def _default_timeout() -> float:
    """`HCCL_EXEC_TIMEOUT` when it is set (MindSpore's time-out for a collective), else its default."""
    text = os.environ.get("HCCL_EXEC_TIMEOUT", "")
    try:
        return float(text) if text else DEFAULT_TIMEOUT
    except ValueError:
        raise SystemExit(f"msrun: HCCL_EXEC_TIMEOUT must be a number of seconds, got {text!r}") from None


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
    p.add_argument("--timeout", type=float, default=None,
                   help="with --join=True: seconds a rank may make no progress (its main thread in the same call) "
                        "before the job fails as hung, naming it; 0 or negative: never (default: "
                        f"$HCCL_EXEC_TIMEOUT, else {DEFAULT_TIMEOUT})")
    p.add_argument("--worker_log_name", default="worker", help="log file stem: <stem>_<rank>.log")
    p.add_argument("--tail_worker_log", default="-1",
                   help="(accepted for MindSpore compatibility; worker logs are files, the failed rank's is shown)")
    p.add_argument("task_script", help="the training script (or `python SCRIPT`, `python -m MODULE`, `pytest`), "
                                       "then its own arguments")
    p.add_argument("task_script_args", nargs=argparse.REMAINDER)
    return p


def check(args: argparse.Namespace) -> None:
    """Refuse a layout that cannot form a cluster, or a script that is not there, before anything starts."""
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
    command(args)


def command(args: argparse.Namespace) -> list[str]:
    """The worker's Python arguments after the interpreter: `SCRIPT ARGS` or `-m MODULE ARGS`.

    A script that is not a file is refused here, before any worker starts (a worker would fail at once, and
    its peers wait for it until --cluster_time_out)."""
    script, rest = args.task_script, list(args.task_script_args)
    if script == "pytest":
        return ["-m", "pytest", *rest]
    if script in PYTHONS:
        if rest[:1] == ["-m"] and len(rest) > 1:
            return rest
        if not rest or rest[0].startswith("-"):
            raise SystemExit(f"msrun: `{script}` must be followed by the training script or `-m MODULE` "
                             f"(interpreter options are not supported), got {' '.join(rest) or 'nothing'}")
        script, rest = rest[0], rest[1:]
    if not os.path.isfile(script):
        where = "" if os.path.isabs(script) else f" (relative to {os.getcwd()})"
        raise SystemExit(f"msrun: the training script {script!r} is not a file{where}; no worker was started")
    return [os.path.abspath(script), *rest]


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


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    check(args)
    timeout = args.timeout if args.timeout is not None else _default_timeout()
    workers, guard = start(args, command(args), worker_env, timeout if args.join else 0.0, supervised=args.join)
    if not args.join:  # MindSpore's --join=False: start the workers and return; they run on their own
        return 0
    return join(workers, guard, timeout, args.cluster_time_out)
