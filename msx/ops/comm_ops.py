"""Collective primitives (MindSpore's `AllReduce`, `AllGather`) over the ranks of the job.

Their meaning is `msx.parallel.spmd`: eagerly a tiny jitted reduction
over jax's process mesh, inside a compiled graph of a multi-process job a
`lax.psum`/`lax.all_gather` over the mesh axis (the xla backend runs such a
graph as one `shard_map` program), and in a one-process job the identity.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax._src import core as jax_core  # trace_state_clean: is a jax trace active (no public name)

from ..communication import management
from ..errors import CommunicationError
from ..parallel import p2p, spmd
from .primitive import primitive, recording

REDUCE_OPS = ("sum", "max", "min", "prod", "mean")


def _check_reduce(x, *, op: str, group: str) -> str | None:
    if op not in REDUCE_OPS:
        return f"op must be one of {REDUCE_OPS}, got {op!r}"
    return None


def _shape_pass(x) -> bool:
    """Capture's shape pass (msx.jit building the graph, outside the SPMD program): the graph's node runs the
    collective later, so now only its shape counts. A graph input is a tracer here; a constant (a Tensor made
    inside the function, e.g. `Barrier`'s or `Receive`'s) is concrete, and must not run a collective now."""
    return isinstance(x, jax.core.Tracer) or _capturing(x)


def _capturing(x) -> bool:
    """A constant `x` while a capture traces the function under jax (ast capture: an outer jax trace is active,
    and an eager collective cannot run inside it). A trace-mode capture runs the function on real values (no jax
    trace): there the collective runs, as eagerly."""
    return recording.recorder is not None and not spmd.inside() and not isinstance(x, jax.core.Tracer) \
        and not jax_core.trace_state_clean()


def _traced(fn, x, *args):
    """`fn(x, *args)`, or during capture's run on a concrete `x` the zeros of its one-rank result's shape."""
    if _capturing(x):
        out = jax.eval_shape(lambda v: fn(v, *args), x)
        return jnp.zeros(out.shape, out.dtype)
    return fn(x, *args)


_COLLECTIVE = "a collective: users call ops.AllReduce / ops.all_reduce & co., which resolve groups and ranks"


def _ranks(group: str) -> tuple[int, ...] | None:
    """The world ranks of `group` (None: the world group, which needs no init, as before groups existed)."""
    return None if group in management._WORLD_NAMES else management.group_ranks(group)


def _root(root: int, group: str) -> int:
    """A world rank's rank within `group` (for the world group the same number, checked by spmd)."""
    ranks = _ranks(group)
    if ranks is None:
        return root
    if root not in ranks:
        raise ValueError(f"root rank {root} is not a member of group {group!r} (ranks {list(ranks)})")
    return ranks.index(root)


@primitive("AllReduce", internal=_COLLECTIVE, attrs=("op", "group"), category="comm", differentiable=False, check=_check_reduce)
def all_reduce(x, *, op: str = "sum", group: str = "hccl_world_group"):
    """Reduce `x` elementwise over every rank; each rank gets the result."""
    if op not in REDUCE_OPS:
        raise ValueError(f"op must be one of {REDUCE_OPS}, got {op!r}")
    return _traced(spmd.all_reduce, x, op, _ranks(group))


@primitive("AllGather", internal=_COLLECTIVE, attrs=("group",), category="comm", differentiable=False)
def all_gather(x, *, group: str = "hccl_world_group"):
    """Concatenate every rank's `x` along axis 0, in rank order."""
    return _traced(spmd.all_gather, x, _ranks(group))


@primitive("ReduceScatter", internal=_COLLECTIVE, attrs=("op", "group"), category="comm", differentiable=False, check=_check_reduce)
def reduce_scatter(x, *, op: str = "sum", group: str = "hccl_world_group"):
    """Reduce `x` over the ranks; rank r keeps the r-th slice of axis 0 (axis 0 must divide by the group size)."""
    if op not in REDUCE_OPS:
        raise ValueError(f"op must be one of {REDUCE_OPS}, got {op!r}")
    return _traced(spmd.reduce_scatter, x, op, _ranks(group))


@primitive("Broadcast", internal=_COLLECTIVE, attrs=("root_rank", "group"), category="comm", differentiable=False)
def broadcast(x, *, root_rank: int = 0, group: str = "hccl_world_group"):
    """World rank `root_rank`'s `x` on every rank of the group."""
    return _traced(spmd.broadcast, x, _root(root_rank, group), _ranks(group))


@primitive("AllToAll", internal=_COLLECTIVE, attrs=("group",), category="comm", differentiable=False)
def all_to_all(x, *, group: str = "hccl_world_group"):
    """Block j of `group size` equal blocks of axis 0 goes to group rank j; the result is the blocks received,
    in group-rank order."""
    return _traced(spmd.all_to_all, x, _ranks(group))


_P2P = "point-to-point: users call ops.send / ops.recv / isend / irecv / batch_isend_irecv, which check the peers"


def _p2p_world(group: str, what: str) -> None:
    ranks = _ranks(group)
    if ranks is not None and ranks != spmd.world():
        if spmd.inside():
            raise CommunicationError(f"{what} in group {group!r} inside a compiled graph: the graph's transfers "
                                     f"are permutes over every rank of the job's mesh; use the world group there")


@primitive("Send", internal=_P2P, attrs=("dst", "tag", "group"), category="comm", multiple_results=True,
           differentiable=False)
def send(x, *, dst: int, tag: int = 0, group: str = "hccl_world_group"):
    """Hand `x` to world rank `dst`, whose matching `Receive` (same tag, same order) gets it. Inside the job's
    SPMD program a `lax.ppermute` (this rank -> dst), eagerly jax's transfer server (`msx.parallel.p2p`)."""
    _p2p_world(group, "send")
    if spmd.inside():
        spmd.permute(x, jax.process_index(), dst, keep=True)
    elif not _shape_pass(x):
        p2p.send(x, dst, tag)
    return ()


@primitive("Receive", internal=_P2P, attrs=("src", "tag", "group"), category="comm", differentiable=False)
def receive(like, *, src: int, tag: int = 0, group: str = "hccl_world_group"):
    """The tensor world rank `src` sent here with `tag`; `like` gives its shape and dtype (MindSpore's receiving
    tensor). Inside the job's SPMD program a `lax.ppermute` (src -> this rank)."""
    _p2p_world(group, "recv")
    if spmd.inside():
        return spmd.permute(like, src, jax.process_index(), keep=False)
    if _shape_pass(like):
        return like
    return p2p.recv(like.shape, like.dtype, src, tag)


@primitive("Exchange", internal=_P2P, attrs=("peer", "group"), category="comm", differentiable=False)
def exchange(x, *, peer: int, group: str = "hccl_world_group"):
    """`x` goes to world rank `peer` and `peer`'s tensor of the same shape and dtype comes back: a compiled
    `batch_isend_irecv` holding an isend to and an irecv from one peer (one `lax.ppermute` over both pairs)."""
    _p2p_world(group, "batch_isend_irecv")
    if spmd.inside():
        return spmd.exchange(x, peer)
    if _shape_pass(x):   # the capture's shape pass: the peer's tensor is like this one
        return x
    raise CommunicationError("Exchange runs only inside a compiled graph; eagerly batch_isend_irecv sends, "
                             "then receives")


class ReduceOp:
    """MindSpore's reduction kinds for `AllReduce`."""

    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


class AllReduce:
    """`ops.AllReduce(op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP)`: class view of the primitive."""

    name = "AllReduce"

    def __init__(self, op: str = ReduceOp.SUM, group: str = "hccl_world_group") -> None:
        if op not in REDUCE_OPS:
            raise ValueError(f"AllReduce: op must be one of {REDUCE_OPS}, got {op!r}")
        self.op, self.group = op, group

    def __call__(self, x):
        return all_reduce(x, op=self.op, group=self.group)


class AllGather:
    """`ops.AllGather(group=GlobalComm.WORLD_COMM_GROUP)`: every rank's input concatenated along axis 0."""

    name = "AllGather"

    def __init__(self, group: str = "hccl_world_group") -> None:
        self.group = group

    def __call__(self, x):
        return all_gather(x, group=self.group)


class ReduceScatter:
    """`ops.ReduceScatter(op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP)`: reduce, then keep this rank's slice."""

    name = "ReduceScatter"

    def __init__(self, op: str = ReduceOp.SUM, group: str = "hccl_world_group") -> None:
        if op not in REDUCE_OPS:
            raise ValueError(f"ReduceScatter: op must be one of {REDUCE_OPS}, got {op!r}")
        self.op, self.group = op, group

    def __call__(self, x):
        return reduce_scatter(x, op=self.op, group=self.group)


class Broadcast:
    """`ops.Broadcast(root_rank, group=GlobalComm.WORLD_COMM_GROUP)`: MindSpore's form takes and returns a tuple."""

    name = "Broadcast"

    def __init__(self, root_rank: int, group: str = "hccl_world_group") -> None:
        self.root_rank, self.group = root_rank, group

    def __call__(self, x):
        return tuple(broadcast(t, root_rank=self.root_rank, group=self.group) for t in x)


@primitive("RankSlice", internal=_COLLECTIVE, attrs=("parts",), category="comm", differentiable=False)
def rank_slice(x, *, parts: int):
    """This rank's rows of `x`: the (rank % parts)-th of `parts` equal slices of axis 0 (the optimizer parallel's
    shard of a tensor every rank holds whole). Inside the SPMD program the rank is the mesh index; eagerly it is the
    process index; a one-rank job keeps slice 0."""
    if x.shape[0] % parts:
        raise ValueError(f"axis 0 of shape {tuple(x.shape)} must divide by parts={parts}")
    rows = x.shape[0] // parts
    rank = jax.lax.axis_index(spmd.AXIS) if spmd.inside() else jax.process_index()
    return jax.lax.dynamic_slice_in_dim(x, (rank % parts) * rows, rows, axis=0)
