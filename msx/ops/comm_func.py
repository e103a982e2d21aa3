"""MindSpore 2.10's `mindspore.ops` collectives (`ops.all_reduce`, `ops.all_gather_into_tensor`, `ops.broadcast`,
`ops.barrier`, `ops.get_rank`, ...): torch-style, writing their result into a tensor the caller passes.

MindSpore runs them in place by default (`set_comm_ops_inplace(True)`): the
result is written into `tensor` / `output` and the call returns a handle
(None unless `async_op`); with `set_comm_ops_inplace(False)` (or for one
function, `func_list`) `all_reduce`, `all_gather_into_tensor` and
`reduce_scatter_tensor` return `(result, handle)` instead. Each one is the
registry primitive (`AllReduce`, `AllGather`, `ReduceScatter`, `Broadcast`),
so it works eagerly and inside a compiled graph, where the write is the
graph's update. Point-to-point `send`/`recv` are absent: jax's collectives
involve every rank of the mesh.
"""
from __future__ import annotations

from typing import Any

import jax
import numpy as np

from ..communication.management import (GlobalComm, _check_group, get_group_rank_from_world_rank,
                                         get_world_rank_from_group_rank)
from ..errors import CommunicationError
from ..tensor import Tensor
from . import comm_ops
from .functional import concat

_INPLACE_FUNCS = ("all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "all_gather", "reduce_scatter",
                  "broadcast", "barrier")
_inplace = dict.fromkeys(_INPLACE_FUNCS, True)


class CommHandle:
    """MindSpore's handle of a collective: `wait()` blocks until the result is there (jax runs it asynchronously)."""

    def __init__(self, result: Any = None) -> None:
        self._result = result

    def wait(self) -> None:
        if self._result is not None:
            jax.block_until_ready(getattr(self._result, "_data", self._result))


def set_comm_ops_inplace(is_enable: bool, func_list: list | tuple | None = None) -> None:
    """Whether the collectives write their result into the tensor they are given (MindSpore's default: True)."""
    if not isinstance(is_enable, bool):
        raise TypeError(f"set_comm_ops_inplace: is_enable must be a bool, got {type(is_enable).__name__}")
    if func_list is not None and not isinstance(func_list, (list, tuple)):
        raise TypeError(f"set_comm_ops_inplace: func_list must be a list or tuple, got {type(func_list).__name__}")
    for name in _INPLACE_FUNCS if func_list is None else func_list:
        if name not in _inplace:
            raise ValueError(f"set_comm_ops_inplace: unknown function {name!r}; choose from {list(_INPLACE_FUNCS)}")
        _inplace[name] = is_enable


def _group(group: str | None, what: str) -> str:
    group = GlobalComm.WORLD_COMM_GROUP if group is None else group
    if not isinstance(group, str):
        raise TypeError(f"{what}: group must be a str, got {type(group).__name__}")
    _check_group(group, what)
    return group


def _finish(name: str, target, result, async_op: bool):
    """Write `result` into `target` (in-place mode) and return the handle, else return (result, handle)."""
    handle = CommHandle(result) if async_op else None
    if _inplace[name]:
        if target is None:
            raise CommunicationError(f"ops.{name}: in-place mode needs the output tensor")
        target._rebind(result)
        return handle
    return result, handle


def all_reduce(tensor, op: str = comm_ops.ReduceOp.SUM, group: str | None = None, async_op: bool = False):
    """Reduce `tensor` over the ranks (in place by default)."""
    group = _group(group, "ops.all_reduce")
    return _finish("all_reduce", tensor, comm_ops.AllReduce(op, group)(tensor), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group: str | None = None, async_op: bool = False):
    """Every rank's `input_tensor` concatenated along axis 0, written into `output_tensor`."""
    group = _group(group, "ops.all_gather_into_tensor")
    return _finish("all_gather_into_tensor", output_tensor, comm_ops.AllGather(group)(input_tensor), async_op)


def reduce_scatter_tensor(output, input, op: str = comm_ops.ReduceOp.SUM, group: str | None = None,  # noqa: A002
                          async_op: bool = False):
    """Reduce `input` over the ranks; this rank's slice of axis 0 is written into `output`."""
    group = _group(group, "ops.reduce_scatter_tensor")
    return _finish("reduce_scatter_tensor", output, comm_ops.ReduceScatter(op, group)(input), async_op)


def all_gather(tensor_list: list, tensor, group: str | None = None, async_op: bool = False):
    """Rank r's `tensor` written into `tensor_list[r]`, for every rank r."""
    group = _group(group, "ops.all_gather")
    size = jax.process_count()
    if not isinstance(tensor_list, list) or len(tensor_list) != size:
        raise TypeError(f"ops.all_gather: tensor_list must be a list of {size} tensors (the group size)")
    gathered = comm_ops.AllGather(group)(tensor)
    rows = tensor.shape[0] if tensor.ndim else 1
    parts = [gathered[r * rows:(r + 1) * rows].reshape(tensor.shape) for r in range(size)]
    for out, part in zip(tensor_list, parts):
        out._rebind(part)
    return CommHandle(parts[-1]) if async_op else None


def reduce_scatter(output, input_list: list, op: str = comm_ops.ReduceOp.SUM, group: str | None = None,
                   async_op: bool = False):
    """`output` on rank r: `input_list[r]` reduced over the ranks."""
    group = _group(group, "ops.reduce_scatter")
    size = jax.process_count()
    if not isinstance(input_list, list) or len(input_list) != size:
        raise TypeError(f"ops.reduce_scatter: input_list must be a list of {size} tensors (the group size)")
    result = comm_ops.ReduceScatter(op, group)(concat([t.reshape((1, *t.shape)) for t in input_list], 0))
    output._rebind(result.reshape(output.shape))
    return CommHandle(output) if async_op else None


def broadcast(tensor, src: int, group: str | None = None, async_op: bool = False):
    """Rank `src`'s `tensor` written into `tensor` on every rank."""
    if not isinstance(src, int) or isinstance(src, bool):
        raise TypeError(f"ops.broadcast: src must be an int, got {type(src).__name__}")
    group = _group(group, "ops.broadcast")
    tensor._rebind(comm_ops.Broadcast(src, group)((tensor,))[0])
    return CommHandle(tensor) if async_op else None


def barrier(group: str | None = None, async_op: bool = False, device_ids=None):
    """Block until every rank of the group has reached the barrier (an all-reduce of one number)."""
    group = _group(group, "ops.barrier")
    done = comm_ops.AllReduce("sum", group)(Tensor(np.zeros(1, np.int32)))
    if async_op:
        return CommHandle(done)
    CommHandle(done).wait()
    return None


def get_rank(group: str | None = None) -> int:
    """This process's rank in the group (-1 if it is not part of it)."""
    _group(group, "ops.get_rank")
    return jax.process_index()


def get_process_group_ranks(group: str | None = None) -> list[int]:
    """The global ranks of the group, in group order: every rank (msx has only the world group)."""
    _group(group, "ops.get_process_group_ranks")
    return list(range(jax.process_count()))


def get_group_rank(group: str, global_rank: int) -> int:
    """A global rank's rank in `group` (the same in the world group)."""
    return get_group_rank_from_world_rank(global_rank, group)


def get_global_rank(group: str, group_rank: int) -> int:
    """A group rank's global rank (the same in the world group)."""
    return get_world_rank_from_group_rank(group, group_rank)


__all__ = ["all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "all_gather", "reduce_scatter",
           "broadcast", "barrier", "get_rank", "get_process_group_ranks", "get_group_rank", "get_global_rank",
           "set_comm_ops_inplace"]
