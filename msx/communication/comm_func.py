"""MindSpore's functional collectives (`comm_func.all_reduce`, `all_gather_into_tensor`, `send`, `irecv`,
`batch_isend_irecv`, `all_to_all_single_with_output_shape`, ...): they return their results (where the torch-style
`msx.ops` / `mint.distributed` forms write into a tensor given), over the same registry primitives."""
from __future__ import annotations

import jax
import numpy as np

from ..dtype import to_np
from ..ops import comm_func as _torch
from ..ops.comm_func import CommHandle, _exchange, _group, _me, _members, _peer, _rank_arg, _recv, _send, _single
from ..ops.comm_collective_ops import v_c_rows
from ..ops.comm_ops import AllGather, AllReduce, Broadcast, ReduceOp, ReduceScatter
from ..tensor import Tensor
from .management import GlobalComm, get_group_rank_from_world_rank, get_group_size  # noqa: F401


def _op(op: str, what: str) -> str:
    return _torch._op(op, what)


def all_reduce(tensor, op: str = ReduceOp.SUM, group: str = GlobalComm.WORLD_COMM_GROUP, async_op: bool = False):
    """Reduce `tensor` over the ranks. With `async_op=True` returns `(result, handle)`."""
    out = AllReduce(_op(op, "comm_func.all_reduce"), _group(group, "comm_func.all_reduce"))(tensor)
    return (out, CommHandle(out)) if async_op else out


def all_gather_into_tensor(tensor, group: str = GlobalComm.WORLD_COMM_GROUP, async_op: bool = False):
    """Every rank's `tensor` concatenated along axis 0."""
    out = AllGather(_group(group, "comm_func.all_gather_into_tensor"))(tensor)
    return (out, CommHandle(out)) if async_op else out


def reduce_scatter_tensor(tensor, op: str = ReduceOp.SUM, group: str = GlobalComm.WORLD_COMM_GROUP,
                          async_op: bool = False):
    """Reduce over the ranks; this rank keeps its slice of axis 0."""
    what = "comm_func.reduce_scatter_tensor"
    out = ReduceScatter(_op(op, what), _group(group, what))(tensor)
    return (out, CommHandle(out)) if async_op else out


def broadcast(tensor, src: int = 0, group: str = GlobalComm.WORLD_COMM_GROUP):
    """World rank `src`'s `tensor` on every rank of the group."""
    return Broadcast(src, _group(group, "comm_func.broadcast"))((tensor,))[0]


def barrier(group: str = GlobalComm.WORLD_COMM_GROUP) -> None:
    """Block until every rank of the group reaches the barrier."""
    _torch.barrier(group)


def gather_into_tensor(tensor, dst: int = 0, group: str = GlobalComm.WORLD_COMM_GROUP):
    """Every rank's `tensor` concatenated along axis 0 on world rank `dst`; the others get a placeholder of
    shape [1] (MindSpore's rule)."""
    group = _group(group, "comm_func.gather_into_tensor")
    _rank_arg(dst, "comm_func.gather_into_tensor", "dst", group)
    gathered = AllGather(group)(tensor)
    return gathered if jax.process_index() == dst else Tensor(np.zeros(1, np.dtype(tensor._data.dtype)))


def reduce(tensor, dst: int, op: str = ReduceOp.SUM, group: str = GlobalComm.WORLD_COMM_GROUP):
    """`tensor` reduced over the ranks on world rank `dst`; the others keep their own `tensor`."""
    what = "comm_func.reduce"
    group = _group(group, what)
    _rank_arg(dst, what, "dst", group)
    reduced = AllReduce(_op(op, what), group)(tensor)
    return reduced if jax.process_index() == dst else tensor


def scatter_tensor(tensor, src: int = 0, group: str = GlobalComm.WORLD_COMM_GROUP):
    """Group rank r gets the r-th of `group size` equal slices (axis 0) of world rank `src`'s `tensor`."""
    what = "comm_func.scatter_tensor"
    group = _group(group, what)
    _rank_arg(src, what, "src", group)
    size, me = len(_members(group)), _me(group, what)
    if tensor.shape[0] % size:
        raise ValueError(f"{what}: axis 0 of shape {tuple(tensor.shape)} must divide by the group size {size}")
    whole = broadcast(tensor, src, group)
    rows = tensor.shape[0] // size
    return whole[me * rows:(me + 1) * rows]


# ----------------------------------------------------------------- point-to-point
def send(tensor, dst: int = 0, group: str = GlobalComm.WORLD_COMM_GROUP, tag: int = 0) -> None:
    """Send `tensor` to world rank `dst` (see `msx.ops.send`)."""
    _torch.send(tensor, dst, group, tag)


def recv(tensor, src: int = 0, group: str = GlobalComm.WORLD_COMM_GROUP, tag: int = 0) -> Tensor:
    """The tensor world rank `src` sent (`tensor` gives its shape and dtype)."""
    group = _group(group, "comm_func.recv")
    return _recv(tensor, _peer(src, group, "comm_func.recv", "src"), group, _torch._tag(tag, "comm_func.recv"))


def isend(tensor, dst: int = 0, group: str = GlobalComm.WORLD_COMM_GROUP, tag: int = 0) -> CommHandle:
    """Send without waiting; a handle."""
    return _torch.isend(tensor, dst, group, tag)


def irecv(tensor, src: int = 0, group: str = GlobalComm.WORLD_COMM_GROUP, tag: int = 0):
    """`(result, handle)`: eagerly the result is filled at `handle.wait()` (the send may come later)."""
    out = Tensor(tensor._data) if isinstance(tensor, Tensor) else tensor
    return out, _torch.irecv(out, src, group, tag)


class P2POp(_torch.P2POp):
    """An entry of `batch_isend_irecv`; a receive's `recv_dtype` overrides its tensor's dtype."""

    def __init__(self, op, tensor, peer: int, group: str | None = None, tag: int = 0, recv_dtype=None) -> None:
        super().__init__(op, tensor, peer, group, tag)
        if recv_dtype is not None and self.op == "irecv":
            self.tensor = Tensor(np.zeros(tensor.shape, to_np(recv_dtype)))


def batch_isend_irecv(p2p_op_list: list) -> tuple:
    """Every send and receive of the list; a tuple of results: the received tensors, a scalar for a send."""
    return tuple(_torch._batch(p2p_op_list, "comm_func.batch_isend_irecv"))


# ----------------------------------------------------------------- all-to-all
def all_to_all_with_output_shape(output_shape_list, input_tensor_list, group: str | None = None,
                                 async_op: bool = False):
    """`input_tensor_list[j]` to group rank j; the tensors received, of the shapes `output_shape_list` names."""
    what = "comm_func.all_to_all_with_output_shape"
    group = _group(group, what)
    n = len(_members(group))
    _torch._tensor_list(input_tensor_list, n, what, "input_tensor_list")
    if not isinstance(output_shape_list, (list, tuple)) or len(output_shape_list) != n:
        raise TypeError(f"{what}: output_shape_list must hold {n} shapes (the group size)")
    shapes = [tuple(s.shape) if isinstance(s, Tensor) else tuple(s) for s in output_shape_list]
    got = _exchange(input_tensor_list, [int(np.prod(s)) for s in shapes], group, what)
    out = tuple(g.reshape(s) for g, s in zip(got, shapes))
    return out, (CommHandle(out[-1]) if async_op else None)


def all_to_all_single_with_output_shape(output_shape, tensor, output_split_sizes=None, input_split_sizes=None,
                                        group: str | None = None, async_op: bool = False):
    """`tensor` cut on axis 0 by `input_split_sizes`, piece j to group rank j; the pieces received, concatenated
    into `output_shape`."""
    what = "comm_func.all_to_all_single_with_output_shape"
    group = _group(group, what)
    shape = tuple(output_shape.shape) if isinstance(output_shape, Tensor) else tuple(output_shape)
    out = _single(shape, tensor, output_split_sizes, input_split_sizes, group, what)
    return out, (CommHandle(out) if async_op else None)


def all_to_all_v_c(output, input, send_count_matrix, group: str | None = None, async_op: bool = False):  # noqa: A002
    """`send_count_matrix[i * n + j]` rows (axis-0 entries, MindSpore's unit) go from group rank i to rank j:
    this rank's `input` is cut by its row, and `output` gets its column's pieces in rank order. The matrix is
    known to every rank, so the padded width is too: this one works inside a compiled graph with uneven counts."""
    return v_c_rows(output, input, send_count_matrix, group, async_op, "comm_func.all_to_all_v_c")


def get_cache_group_rank(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """This rank's rank in the group (MindSpore caches it; msx looks it up)."""
    return _me(_group(group, "get_cache_group_rank"), "get_cache_group_rank")


def get_cache_group_size(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """The group's size."""
    return len(_members(_group(group, "get_cache_group_size")))


__all__ = ["all_reduce", "all_gather_into_tensor", "all_to_all_with_output_shape",
           "all_to_all_single_with_output_shape", "barrier", "broadcast", "gather_into_tensor", "isend", "irecv",
           "reduce_scatter_tensor", "reduce", "scatter_tensor", "send", "recv", "P2POp", "batch_isend_irecv",
           "all_to_all_v_c", "CommHandle", "ReduceOp", "GlobalComm", "get_group_rank_from_world_rank",
           "get_group_size", "get_cache_group_rank", "get_cache_group_size"]
