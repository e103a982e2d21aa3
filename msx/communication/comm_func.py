"""MindSpore's functional collectives (`comm_func.all_reduce`, `all_gather_into_tensor`) over the registry ops."""
from __future__ import annotations

from ..ops.comm_ops import AllGather, AllReduce, Broadcast, ReduceOp, ReduceScatter
from .management import GlobalComm


def all_reduce(tensor, op: str = ReduceOp.SUM, group: str = GlobalComm.WORLD_COMM_GROUP, async_op: bool = False):
    """Reduce `tensor` over the ranks. With `async_op=True` returns `(result, None)`: jax runs it asynchronously."""
    out = AllReduce(op, group)(tensor)
    return (out, None) if async_op else out


def all_gather_into_tensor(tensor, group: str = GlobalComm.WORLD_COMM_GROUP, async_op: bool = False):
    """Every rank's `tensor` concatenated along axis 0."""
    out = AllGather(group)(tensor)
    return (out, None) if async_op else out


def reduce_scatter_tensor(tensor, op: str = ReduceOp.SUM, group: str = GlobalComm.WORLD_COMM_GROUP,
                          async_op: bool = False):
    """Reduce over the ranks; this rank keeps its slice of axis 0."""
    out = ReduceScatter(op, group)(tensor)
    return (out, None) if async_op else out


def broadcast(tensor, src: int = 0, group: str = GlobalComm.WORLD_COMM_GROUP):
    """Rank `src`'s `tensor` on every rank."""
    return Broadcast(src, group)((tensor,))[0]
