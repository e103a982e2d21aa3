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
from typing import Callable

import jax

from ..errors import CommunicationError
from ..ignored_args import not_honoured

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
_INIT_CHECKS: list[Callable[[], None]] = []   # what `init()` checks once the group is known


def on_init(check: Callable[[], None]) -> None:
    """Have `init()` call `check()` once the group is known: a higher layer's rule (the parallel context's
    `device_num` check) registered here, so that this layer imports nothing above it."""
    _INIT_CHECKS.append(check)


def launched() -> bool:
    """True in a worker started by `msrun` (or any launcher that sets MindSpore's variables) for a job of > 1."""
    return int(os.environ.get("RANK_SIZE", "1")) > 1 and "MS_SCHED_HOST" in os.environ


def join_if_launched() -> None:
    """Join jax's cluster now if this is a launched worker (before jax's first computation, as jax requires)."""
    global _joined
    if _joined or not launched() or os.environ.get(_JOINED_ENV, str(os.getpid())) != str(os.getpid()):
        return
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
    for check in _INIT_CHECKS:
        check()
    GlobalComm.BACKEND = backend_name or ("nccl" if jax.default_backend() == "gpu" else "hccl")
    GlobalComm.INITED = True


def release() -> None:
    """Leave the cluster (jax.distributed.shutdown); collectives are unavailable afterwards."""
    global _joined
    if _joined:
        jax.distributed.shutdown()
        _joined = False
    _GROUPS.clear()
    GlobalComm.INITED = False


# name -> the world ranks of a group made by create_group, in group-rank order (sorted, as MindSpore sorts them)
_GROUPS: dict[str, tuple[int, ...]] = {}


def _world_size() -> int:
    return jax.process_count()


def _check_group(group: str, what: str) -> None:
    if not GlobalComm.INITED:
        raise CommunicationError(f"{what}: call msx.communication.init() first")
    if not isinstance(group, str):
        raise TypeError(f"{what}: group must be a str, got {type(group).__name__}")
    if group not in _WORLD_NAMES and group not in _GROUPS:
        raise CommunicationError(f"{what}: group {group!r} is unknown; make it with create_group (or "
                                 f"mint.distributed.new_group) first, or use the world group "
                                 f"({GlobalComm.WORLD_COMM_GROUP!r})")


def group_ranks(group: str, what: str = "group") -> tuple[int, ...]:
    """The world ranks of `group`, in group-rank order: every rank for a world group's name."""
    _check_group(group, what)
    return _GROUPS.get(group) or tuple(range(_world_size()))


def is_world(group: str) -> bool:
    """True when `group` spans every rank of the job (a world group's name, or a group of every rank)."""
    return group_ranks(group) == tuple(range(_world_size()))


def get_rank(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """This process's rank in the group (jax's process index in the world group); an error if not a member."""
    ranks = group_ranks(group, "get_rank")
    if jax.process_index() not in ranks:
        raise CommunicationError(f"get_rank: rank {jax.process_index()} is not a member of group {group!r} "
                                 f"(ranks {list(ranks)})")
    return ranks.index(jax.process_index())


def get_group_size(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """The number of ranks (processes) in the group."""
    return len(group_ranks(group, "get_group_size"))


def get_local_rank(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """This process's rank among the workers of its node."""
    _check_group(group, "get_local_rank")
    return int(os.environ.get("LOCAL_RANK", "0")) if launched() else 0


def get_local_rank_size(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """The number of workers on this node."""
    _check_group(group, "get_local_rank_size")
    return int(os.environ.get("MS_LOCAL_WORKER", "1")) if launched() else 1


def get_world_rank_from_group_rank(group: str, group_rank_id: int) -> int:
    """The world rank of the group's rank `group_rank_id`."""
    ranks = group_ranks(group, "get_world_rank_from_group_rank")
    if not isinstance(group_rank_id, int) or not 0 <= group_rank_id < len(ranks):
        raise CommunicationError(f"get_world_rank_from_group_rank: group rank {group_rank_id!r} is not a rank of "
                                 f"group {group!r} of size {len(ranks)}")
    return ranks[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id: int, group: str) -> int:
    """The rank within `group` of the world rank `world_rank_id`."""
    ranks = group_ranks(group, "get_group_rank_from_world_rank")
    if world_rank_id not in ranks:
        raise CommunicationError(f"get_group_rank_from_world_rank: world rank {world_rank_id!r} is not a member "
                                 f"of group {group!r} (ranks {list(ranks)})")
    return ranks.index(world_rank_id)


def get_process_group_ranks(group: str = GlobalComm.WORLD_COMM_GROUP) -> list[int]:
    """The world ranks of the group, in group-rank order."""
    return list(group_ranks(group, "get_process_group_ranks"))


def create_group(group: str, rank_ids: list, options=None) -> None:
    """Name a group of world ranks. Eagerly its collectives run over the sub-mesh of its ranks' devices (only
    its members take part); inside a compiled graph of a multi-process job only world-spanning groups work
    (jax's `shard_map` collectives run over the whole mesh axis), which the collectives say when refused."""
    if not GlobalComm.INITED:
        raise CommunicationError("create_group: call msx.communication.init() first")
    if not isinstance(group, str) or not group:
        raise TypeError(f"create_group: group must be a non-empty str, got {group!r}")
    if group in _WORLD_NAMES or group in _GROUPS:
        raise CommunicationError(f"create_group: group {group!r} already exists")
    if not isinstance(rank_ids, (list, tuple)) or not rank_ids or \
            not all(isinstance(r, int) and not isinstance(r, bool) for r in rank_ids):
        raise TypeError(f"create_group({group!r}): rank_ids must be a non-empty list of ints, got {rank_ids!r}")
    size = _world_size()
    if len(set(rank_ids)) != len(rank_ids) or not all(0 <= r < size for r in rank_ids):
        raise CommunicationError(f"create_group({group!r}): rank_ids {list(rank_ids)} must be distinct ranks of "
                                 f"the world group of {size}")
    not_honoured("create_group", "options", options, None, "msx's groups are sub-meshes of jax's devices; "
                 "HCCL's options do not apply")
    _GROUPS[group] = tuple(sorted(rank_ids))


def destroy_group(group: str) -> None:
    """Forget a group made by create_group (the world group cannot be destroyed: use release)."""
    _check_group(group, "destroy_group")
    if group in _WORLD_NAMES:
        raise CommunicationError(f"destroy_group: the world group {group!r} cannot be destroyed (use release)")
    del _GROUPS[group]


def get_comm_name(group: str = GlobalComm.WORLD_COMM_GROUP) -> str:
    """The communicator's name of the group (HCCL's; in msx the group's own name)."""
    _check_group(group, "get_comm_name")
    return group
