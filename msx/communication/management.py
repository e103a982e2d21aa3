"""MindSpore's `communication` management API on jax's multi-process runtime (`jax.distributed`).

A rank is one process. `msrun` gives every worker MindSpore's environment
(`RANK_ID`, `RANK_SIZE`, `MS_SCHED_HOST`, `MS_SCHED_PORT`, `MS_TOPO_TIMEOUT`);
from it the worker joins jax's cluster with `jax.distributed.initialize`
(rank 0 hosts jax's coordinator). jax requires that before its first
computation, and `import msx` already computes, so a launched worker joins
when msx is imported (`join_if_launched`, called first thing by `msx/__init__`)
and `init()` confirms it. Collectives on CPU use gloo, on GPU NCCL: jax's
choice, not ours. Without a launcher `init()` makes a one-process group
(rank 0, size 1), so the same script runs on a laptop.
"""
from __future__ import annotations

import os
import sys
import warnings

from ..errors import CommunicationError

BACKENDS = ("hccl", "nccl", "mccl", "gloo")
JOINED_MARK = "msx: joined the cluster:"  # a worker's log line once it is part of the cluster
_JOINED_ENV = "MSX_CLUSTER_PID"  # set by the worker that joined; a child it spawns inherits it and does not join


class GlobalComm:
    """World communication information (MindSpore's `GlobalComm`): `BACKEND`, `WORLD_COMM_GROUP`, `INITED`."""

    BACKEND = "hccl"
    WORLD_COMM_GROUP = "hccl_world_group"
    INITED = False
    CHECK_ENVS = True


HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"
_WORLD_NAMES = (HCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP)

_joined = False  # this process is part of a jax.distributed cluster


def launched() -> bool:
    """True in a worker started by `msrun` (or any launcher that sets MindSpore's variables) for a job of > 1."""
    return int(os.environ.get("RANK_SIZE", "1")) > 1 and "MS_SCHED_HOST" in os.environ


def join_if_launched() -> None:
    """Join jax's cluster now if this is a launched worker (before jax's first computation, as jax requires)."""
    global _joined
    if _joined or not launched() or os.environ.get(_JOINED_ENV, str(os.getpid())) != str(os.getpid()):
        return
    import jax

    host, port = os.environ["MS_SCHED_HOST"], os.environ.get("MS_SCHED_PORT", "8118")
    rank, size = int(os.environ.get("RANK_ID", "0")), int(os.environ["RANK_SIZE"])
    timeout = int(os.environ.get("MS_TOPO_TIMEOUT", "600"))
    try:
        jax.distributed.initialize(coordinator_address=f"{host}:{port}", num_processes=size, process_id=rank,
                                   initialization_timeout=timeout if timeout > 0 else 10 ** 7)
    except Exception as exc:
        raise CommunicationError(f"rank {rank} of {size} could not join the cluster at {host}:{port} within "
                                 f"{timeout} s (MS_TOPO_TIMEOUT, msrun's --cluster_time_out): {exc}") from exc
    os.environ[_JOINED_ENV] = str(os.getpid())
    _joined = True
    print(f"{JOINED_MARK} rank {rank} of {size} at {host}:{port}", file=sys.stderr, flush=True)  # msrun reads it


def init(backend_name: str | None = None) -> None:
    """Start (or confirm) the distributed group; a one-process group when no launcher started this process."""
    if backend_name is not None and backend_name not in BACKENDS:
        raise CommunicationError(f"init: backend_name must be one of {BACKENDS} or None, got {backend_name!r}")
    if launched():
        join_if_launched()
        if not _joined:
            raise CommunicationError("init: this process was started by msrun but is a child of a worker; only the "
                                     "worker itself joins the cluster")
    elif not GlobalComm.INITED:
        warnings.warn("msx.communication.init: no launcher (msrun) started this process; running as a one-process "
                      "group (rank 0, size 1)", stacklevel=2)
    import jax
    from ..parallel.context import check_device_num

    check_device_num()
    GlobalComm.BACKEND = backend_name or ("nccl" if jax.default_backend() == "gpu" else "hccl")
    GlobalComm.INITED = True


def release() -> None:
    """Leave the cluster (jax.distributed.shutdown); collectives are unavailable afterwards."""
    global _joined
    if _joined:
        import jax

        jax.distributed.shutdown()
        _joined = False
    GlobalComm.INITED = False


def _check_group(group: str, what: str) -> None:
    if not GlobalComm.INITED:
        raise CommunicationError(f"{what}: call msx.communication.init() first")
    if group not in _WORLD_NAMES:
        raise CommunicationError(f"{what}: group {group!r} is unknown; msx has only the world group "
                                 f"({GlobalComm.WORLD_COMM_GROUP!r}) — create_group is not supported")


def get_rank(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """This process's rank in the group (jax's process index)."""
    _check_group(group, "get_rank")
    import jax

    return jax.process_index()


def get_group_size(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """The number of ranks (processes) in the group."""
    _check_group(group, "get_group_size")
    import jax

    return jax.process_count()


def get_local_rank(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """This process's rank among the workers of its node."""
    _check_group(group, "get_local_rank")
    return int(os.environ.get("LOCAL_RANK", "0")) if launched() else 0


def get_local_rank_size(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """The number of workers on this node."""
    _check_group(group, "get_local_rank_size")
    return int(os.environ.get("MS_LOCAL_WORKER", "1")) if launched() else 1


def get_world_rank_from_group_rank(group: str, group_rank_id: int) -> int:
    _check_group(group, "get_world_rank_from_group_rank")
    return group_rank_id


def get_group_rank_from_world_rank(world_rank_id: int, group: str) -> int:
    _check_group(group, "get_group_rank_from_world_rank")
    return world_rank_id


def create_group(group: str, rank_ids: list, options=None) -> None:
    """Refused: jax's collectives run over the whole mesh; sub-groups are not something msx can honour yet."""
    raise CommunicationError(f"create_group({group!r}, {rank_ids}): sub-groups are not supported; msx's collectives "
                             f"run over the world group (jax's global mesh)")
