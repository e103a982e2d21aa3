"""MindSpore's functional collectives (`comm_func.all_reduce`, `all_gather_into_tensor`, `barrier`, `reduce`, ...) over
the registry ops."""
from __future__ import annotations

from ..errors import CommunicationError
from ..ops.comm_func import barrier as ops_barrier
from ..ops.comm_ops import AllGather, AllReduce, Broadcast, ReduceOp, ReduceScatter
from ..tensor import Tensor
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


def _eager_only(tensor, what: str) -> None:
    """MindSpore runs these in PyNative only: their result's shape or value depends on the rank."""
    import jax

    if isinstance(getattr(tensor, "_data", None), jax.core.Tracer):
        raise CommunicationError(f"comm_func.{what} runs in PyNative mode only (as in MindSpore): its result differs "
                                 f"by rank, which one SPMD program cannot express")


def barrier(group: str = GlobalComm.WORLD_COMM_GROUP) -> None:
    """Block until every rank reaches the barrier."""
    ops_barrier(group)


def gather_into_tensor(tensor, dst: int = 0, group: str = GlobalComm.WORLD_COMM_GROUP):
    """Every rank's `tensor` concatenated along axis 0 on rank `dst`; the others get a placeholder of shape [1]."""
    import jax
    import numpy as np

    _eager_only(tensor, "gather_into_tensor")
    gathered = AllGather(group)(tensor)
    return gathered if jax.process_index() == dst else Tensor(np.zeros(1, np.dtype(tensor._data.dtype)))


def reduce(tensor, dst: int, op: str = ReduceOp.SUM, group: str = GlobalComm.WORLD_COMM_GROUP):
    """`tensor` reduced over the ranks on rank `dst`; the others keep their own `tensor`."""
    import jax

    _eager_only(tensor, "reduce")
    reduced = AllReduce(op, group)(tensor)
    return reduced if jax.process_index() == dst else tensor


def scatter_tensor(tensor, src: int = 0, group: str = GlobalComm.WORLD_COMM_GROUP):
    """Rank r gets the r-th of `group size` equal slices (axis 0) of rank `src`'s `tensor`."""
    import jax

    _eager_only(tensor, "scatter_tensor")
    size, rank = jax.process_count(), jax.process_index()
    if tensor.shape[0] % size:
        raise ValueError(f"comm_func.scatter_tensor: axis 0 of shape {tuple(tensor.shape)} must divide by the group "
                         f"size {size}")
    whole = broadcast(tensor, src, group)
    rows = tensor.shape[0] // size
    return whole[rank * rows:(rank + 1) * rows]
