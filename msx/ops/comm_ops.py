"""Collective primitives (MindSpore's `AllReduce`, `AllGather`) over the ranks of the job.

Their meaning is `msx.parallel.spmd`: eagerly a tiny jitted reduction
over jax's process mesh, inside a compiled graph of a multi-process job a
`lax.psum`/`lax.all_gather` over the mesh axis (the xla backend runs such a
graph as one `shard_map` program), and in a one-process job the identity.
"""
from __future__ import annotations

from ..parallel import spmd
from .primitive import primitive

REDUCE_OPS = ("sum", "max", "min", "prod", "mean")


def _check_reduce(x, *, op: str, group: str) -> str | None:
    if op not in REDUCE_OPS:
        return f"op must be one of {REDUCE_OPS}, got {op!r}"
    return None


@primitive("AllReduce", attrs=("op", "group"), category="comm", differentiable=False, check=_check_reduce)
def all_reduce(x, *, op: str = "sum", group: str = "hccl_world_group"):
    """Reduce `x` elementwise over every rank; each rank gets the result."""
    if op not in REDUCE_OPS:
        raise ValueError(f"op must be one of {REDUCE_OPS}, got {op!r}")
    return spmd.all_reduce(x, op)


@primitive("AllGather", attrs=("group",), category="comm", differentiable=False)
def all_gather(x, *, group: str = "hccl_world_group"):
    """Concatenate every rank's `x` along axis 0, in rank order."""
    return spmd.all_gather(x)


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
