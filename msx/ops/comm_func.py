"""MindSpore 2.10's torch-style collectives, `mindspore.ops.<name>` and `mindspore.mint.distributed.<name>` alike
(`all_reduce`, `all_gather_into_tensor`, `broadcast`, `send`/`recv`/`isend`/`irecv`, `new_group`, ...): they
write their result into a tensor the caller passes.

MindSpore runs them in place by default (`set_comm_ops_inplace(True)`): the
result is written into `tensor` / `output` and the call returns a handle
(None unless `async_op`); with `set_comm_ops_inplace(False)` (or for one
function, `func_list`) `all_reduce`, `all_gather_into_tensor` and
`reduce_scatter_tensor` return `(result, handle)` instead. Each one is a
registry primitive (`AllReduce`, `AllGather`, `ReduceScatter`, `Broadcast`,
`AllToAll`, `Send`, `Receive`), so it works eagerly and inside a compiled
graph, where the write is the graph's update. Ranks named by `dst`/`src`/`peer`
are world ranks (MindSpore's rule); a group is a name made by `new_group`.
Python-object collectives (`all_gather_object`, ...) serialise with
`msx.ops.comm_func_objects` (tagged JSON, never pickle).
"""
from __future__ import annotations

import datetime
import hashlib
from typing import Any, Callable

import jax
import numpy as np

from ..communication import management
from ..communication.management import GlobalComm, _check_group
from ..errors import CommunicationError
from ..ignored_args import not_honoured
from ..parallel import p2p
from ..parallel.store import TCPStore
from ..tensor import Tensor
from . import comm_ops
from .functional import concat, pad, stack
from .primitive import apply

_INPLACE_FUNCS = ("all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "all_gather", "reduce_scatter",
                  "broadcast", "barrier", "gather_into_tensor", "scatter_tensor", "all_to_all_v_c")
_inplace = dict.fromkeys(_INPLACE_FUNCS, True)
_OPS = {"sum": "sum", "max": "max", "min": "min", "prod": "prod", "avg": "mean", "mean": "mean"}


class CommHandle:
    """MindSpore's handle of a collective: `wait()` blocks until the result is there (jax runs it asynchronously;
    an `irecv`'s transfer runs at its `wait`, so a rank may post it before the matching send exists)."""

    def __init__(self, result: Any = None, run: Callable[[], Any] | None = None) -> None:
        self._result, self._run = result, run

    def wait(self) -> None:
        if self._run is not None:
            run, self._run = self._run, None
            self._result = run()
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


# ----------------------------------------------------------------- argument checks
def _group(group: str | None, what: str) -> str:
    group = GlobalComm.WORLD_COMM_GROUP if group is None else group
    if not isinstance(group, str):
        raise TypeError(f"{what}: group must be a str, got {type(group).__name__}")
    _check_group(group, what)
    return group


def _members(group: str) -> tuple[int, ...]:
    return management.group_ranks(group)


def _me(group: str, what: str) -> int:
    """This process's rank in `group`; an error when it is not a member."""
    ranks = _members(group)
    if jax.process_index() not in ranks:
        raise CommunicationError(f"{what}: rank {jax.process_index()} is not a member of group {group!r} "
                                 f"(ranks {list(ranks)})")
    return ranks.index(jax.process_index())


def _op(op: str, what: str) -> str:
    if op not in _OPS:
        raise ValueError(f"{what}: op must be one of {sorted(_OPS)}, got {op!r}")
    return _OPS[op]


def _tensor(t, what: str, name: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{what}: {name} must be a Tensor, got {type(t).__name__}")
    return t


def _rank_arg(rank, what: str, name: str, group: str) -> int:
    if not isinstance(rank, int) or isinstance(rank, bool):
        raise TypeError(f"{what}: {name} must be an int, got {type(rank).__name__}")
    if rank not in _members(group):
        raise ValueError(f"{what}: {name}={rank} is not a member of group {group!r} (ranks {list(_members(group))})")
    return rank


def _tensor_list(items, n: int, what: str, name: str) -> list:
    if not isinstance(items, (list, tuple)) or len(items) != n or not all(isinstance(t, Tensor) for t in items):
        raise TypeError(f"{what}: {name} must be a list of {n} Tensors (the group size)")
    return list(items)


def _traced(t: Tensor) -> bool:
    return isinstance(t._data, jax.core.Tracer)


def _finish(name: str, target, result, async_op: bool):
    """Write `result` into `target` (in-place mode) and return the handle, else return (result, handle)."""
    handle = CommHandle(result) if async_op else None
    if _inplace[name]:
        if target is None:
            raise CommunicationError(f"ops.{name}: in-place mode needs the output tensor")
        target._rebind(result)
        return handle
    return result, handle


def _write(target: Tensor, result: Tensor, what: str, async_op: bool):
    if tuple(target.shape) != tuple(result.shape):
        raise ValueError(f"{what}: the output tensor has shape {tuple(target.shape)}, the result {tuple(result.shape)}")
    target._rebind(result.astype(target.dtype) if result.dtype != target.dtype else result)
    return CommHandle(target) if async_op else None


# ----------------------------------------------------------------- collectives
def all_reduce(tensor, op: str = comm_ops.ReduceOp.SUM, group: str | None = None, async_op: bool = False):
    """Reduce `tensor` over the ranks of the group (in place by default); op "avg" is the mean."""
    group = _group(group, "ops.all_reduce")
    return _finish("all_reduce", tensor, comm_ops.AllReduce(_op(op, "all_reduce"), group)(tensor), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group: str | None = None, async_op: bool = False):
    """Every rank's `input_tensor` concatenated along axis 0, written into `output_tensor`."""
    group = _group(group, "ops.all_gather_into_tensor")
    return _finish("all_gather_into_tensor", output_tensor, comm_ops.AllGather(group)(input_tensor), async_op)


def reduce_scatter_tensor(output, input, op: str = comm_ops.ReduceOp.SUM, group: str | None = None,  # noqa: A002
                          async_op: bool = False):
    """Reduce `input` over the ranks; this rank's slice of axis 0 is written into `output`."""
    group = _group(group, "ops.reduce_scatter_tensor")
    result = comm_ops.ReduceScatter(_op(op, "reduce_scatter_tensor"), group)(input)
    return _finish("reduce_scatter_tensor", output, result, async_op)


def all_gather(tensor_list: list, tensor, group: str | None = None, async_op: bool = False):
    """Rank r's `tensor` written into `tensor_list[r]`, for every rank r of the group."""
    group = _group(group, "ops.all_gather")
    size = len(_members(group))
    _tensor_list(tensor_list, size, "ops.all_gather", "tensor_list")
    gathered = comm_ops.AllGather(group)(tensor.reshape((1, *tensor.shape)))
    parts = [gathered[r].reshape(tensor.shape) for r in range(size)]
    for out, part in zip(tensor_list, parts):
        out._rebind(part)
    return CommHandle(parts[-1]) if async_op else None


def reduce_scatter(output, input_list: list, op: str = comm_ops.ReduceOp.SUM, group: str | None = None,
                   async_op: bool = False):
    """`output` on rank r: `input_list[r]` reduced over the ranks."""
    group = _group(group, "ops.reduce_scatter")
    size = len(_members(group))
    _tensor_list(input_list, size, "ops.reduce_scatter", "input_list")
    stacked = concat([t.reshape((1, *t.shape)) for t in input_list], 0)
    result = comm_ops.ReduceScatter(_op(op, "reduce_scatter"), group)(stacked)
    output._rebind(result.reshape(output.shape))
    return CommHandle(output) if async_op else None


def _split_sizes(sizes, total: int, n: int, what: str, name: str) -> list[int]:
    if sizes is None:
        if total % n:
            raise ValueError(f"{what}: axis 0 ({total}) must divide by the group size {n} when {name} is None")
        return [total // n] * n
    if not isinstance(sizes, (list, tuple)) or len(sizes) != n or \
            not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in sizes):
        raise ValueError(f"{what}: {name} must be {n} non-negative ints (one per rank), got {sizes!r}")
    return list(sizes)


def all_gather_into_tensor_uneven(output, input, output_split_sizes: list | None = None,  # noqa: A002
                                  group: str | None = None, async_op: bool = False):
    """Rank r contributes `output_split_sizes[r]` rows; `output` gets them all, in rank order. Every input is
    padded to the largest count, gathered (jax's all-gather is even), and the padding is cut away."""
    what = "all_gather_into_tensor_uneven"
    group = _group(group, what)
    n, me = len(_members(group)), _me(group, what)
    sizes = _split_sizes(output_split_sizes, output.shape[0], n, what, "output_split_sizes")
    if input.shape[0] != sizes[me]:
        raise ValueError(f"{what}: this rank's input has {input.shape[0]} rows, output_split_sizes[{me}] says "
                         f"{sizes[me]}")
    if output.shape[0] != sum(sizes):
        raise ValueError(f"{what}: output has {output.shape[0]} rows, the split sizes sum to {sum(sizes)}")
    top = max(sizes)
    padded = pad(input, [0, 0] * (input.ndim - 1) + [0, top - sizes[me]]) if top > sizes[me] else input
    gathered = comm_ops.AllGather(group)(padded)
    parts = [gathered[r * top:r * top + sizes[r]] for r in range(n)]
    return _write(output, concat(parts, 0), what, async_op)


def reduce_scatter_tensor_uneven(output, input, input_split_sizes: list | None = None,  # noqa: A002
                                 op: str = comm_ops.ReduceOp.SUM, group: str | None = None, async_op: bool = False):
    """`input` reduced over the ranks; rank r keeps its `input_split_sizes[r]` rows (an all-reduce, then this
    rank's rows: jax's reduce-scatter cuts evenly)."""
    what = "reduce_scatter_tensor_uneven"
    group = _group(group, what)
    n, me = len(_members(group)), _me(group, what)
    sizes = _split_sizes(input_split_sizes, input.shape[0], n, what, "input_split_sizes")
    if input.shape[0] != sum(sizes):
        raise ValueError(f"{what}: input has {input.shape[0]} rows, the split sizes sum to {sum(sizes)}")
    total = comm_ops.AllReduce(_op(op, what), group)(input)
    start = sum(sizes[:me])
    return _write(output, total[start:start + sizes[me]], what, async_op)


def _exchange(chunks: list, recv_numels: list[int], group: str, what: str, width: int | None = None) -> list:
    """Send flat chunk j to group rank j and get the chunk each rank sent here (`recv_numels` long): every chunk
    padded to one width (jax's all-to-all is even) and the padding cut away. The width is the largest chunk of
    any rank: given, agreed eagerly by an all-reduce(max), and under jit only when every chunk has one size."""
    n = len(chunks)
    flat = [c.reshape((-1,)) for c in chunks]
    mine = max([int(c.shape[0]) for c in flat] + list(recv_numels) + [0])
    if width is None:
        if any(_traced(c) for c in flat):
            if len({int(c.shape[0]) for c in flat} | set(recv_numels)) > 1:
                raise CommunicationError(f"{what}: uneven splits inside a compiled graph: every rank's program needs "
                                         f"one padded width, which only an eager exchange can agree on; call it "
                                         f"eagerly (PyNative) or split evenly")
            width = mine
        else:
            width = int(comm_ops.AllReduce("max", group)(Tensor(np.array([mine], np.int64))).asnumpy()[0])
    width = max(width, 1)
    rows = [pad(c, [0, width - int(c.shape[0])]) if int(c.shape[0]) < width else c for c in flat]
    got = comm_ops.all_to_all(stack(rows, 0), group=group) if n > 1 else stack(rows, 0)
    return [got[j, :recv_numels[j]] for j in range(n)]


def all_to_all(output_tensor_list: list, input_tensor_list: list, group: str | None = None, async_op: bool = False):
    """`input_tensor_list[j]` goes to group rank j; `output_tensor_list[i]` gets what rank i sent here."""
    what = "all_to_all"
    group = _group(group, what)
    n = len(_members(group))
    _tensor_list(input_tensor_list, n, what, "input_tensor_list")
    _tensor_list(output_tensor_list, n, what, "output_tensor_list")
    numel = [int(np.prod(t.shape)) for t in output_tensor_list]
    got = _exchange(input_tensor_list, numel, group, what)
    for out, part in zip(output_tensor_list, got):
        out._rebind(part.reshape(out.shape).astype(out.dtype))
    return CommHandle(output_tensor_list[-1]) if async_op else None


def _single(output_shape: tuple, input, output_split_sizes, input_split_sizes, group: str, what: str):
    """all_to_all_single's result: `input`'s axis-0 pieces (input_split_sizes) to the ranks, the received pieces
    (output_split_sizes) concatenated."""
    n = len(_members(group))
    rest = tuple(input.shape[1:])
    ins = _split_sizes(input_split_sizes, input.shape[0], n, what, "input_split_sizes")
    outs = _split_sizes(output_split_sizes, output_shape[0], n, what, "output_split_sizes")
    if sum(ins) != input.shape[0]:
        raise ValueError(f"{what}: input has {input.shape[0]} rows, input_split_sizes sum to {sum(ins)}")
    starts = np.cumsum([0] + ins)
    chunks = [input[int(starts[j]):int(starts[j + 1])] for j in range(n)]
    per_row = int(np.prod(rest))
    got = _exchange(chunks, [s * per_row for s in outs], group, what)
    return concat([g.reshape((s, *rest)) for g, s in zip(got, outs)], 0)


def all_to_all_single(output, input, output_split_sizes: list | None = None,  # noqa: A002
                      input_split_sizes: list | None = None, group: str | None = None, async_op: bool = False):
    """`input` cut on axis 0 by `input_split_sizes` (even by default), piece j to group rank j; `output` gets the
    pieces received, cut by `output_split_sizes`, in rank order."""
    what = "all_to_all_single"
    group = _group(group, what)
    result = _single(tuple(output.shape), input, output_split_sizes, input_split_sizes, group, what)
    return _write(output, result, what, async_op)


def broadcast(tensor, src: int, group: str | None = None, async_op: bool = False):
    """World rank `src`'s `tensor` written into `tensor` on every rank of the group."""
    if not isinstance(src, int) or isinstance(src, bool):
        raise TypeError(f"ops.broadcast: src must be an int, got {type(src).__name__}")
    group = _group(group, "ops.broadcast")
    tensor._rebind(comm_ops.Broadcast(src, group)((tensor,))[0])
    return CommHandle(tensor) if async_op else None


def gather(tensor, gather_list: list, dst: int = 0, group: str | None = None, async_op: bool = False):
    """Every rank's `tensor`, in rank order, written into `gather_list` on world rank `dst` (the others' lists are
    left as they are)."""
    what = "gather"
    group = _group(group, what)
    _rank_arg(dst, what, "dst", group)
    n = len(_members(group))
    gathered = comm_ops.AllGather(group)(_tensor(tensor, what, "tensor").reshape((1, *tensor.shape)))
    if jax.process_index() == dst:
        for out, r in zip(_tensor_list(gather_list, n, what, "gather_list"), range(n)):
            out._rebind(gathered[r].reshape(tensor.shape))
    return CommHandle(gathered) if async_op else None


def scatter(tensor, scatter_list: list, src: int = 0, group: str | None = None, async_op: bool = False):
    """Group rank r's `tensor` gets `scatter_list[r]` of world rank `src` (a broadcast of the stacked list, each
    rank keeping its row)."""
    what = "scatter"
    group = _group(group, what)
    _rank_arg(src, what, "src", group)
    n, me = len(_members(group)), _me(group, what)
    _tensor(tensor, what, "tensor")
    if jax.process_index() == src:
        items = _tensor_list(scatter_list, n, what, "scatter_list")
        if any(tuple(t.shape) != tuple(tensor.shape) for t in items):
            raise TypeError(f"{what}: every scatter_list tensor must have the output's shape {tuple(tensor.shape)}")
        rows = stack([t.astype(tensor.dtype) for t in items], 0)
    else:
        rows = Tensor(np.zeros((n, *tensor.shape), np.dtype(tensor._data.dtype)))
    whole = comm_ops.Broadcast(src, group)((rows,))[0]
    tensor._rebind(whole[me])
    return CommHandle(tensor) if async_op else None


def reduce(tensor, dst: int, op: str = comm_ops.ReduceOp.SUM, group: str | None = None, async_op: bool = False):
    """`tensor` reduced over the group, written into `tensor` on world rank `dst` (the others keep theirs)."""
    what = "reduce"
    group = _group(group, what)
    _rank_arg(dst, what, "dst", group)
    reduced = comm_ops.AllReduce(_op(op, what), group)(_tensor(tensor, what, "tensor"))
    if jax.process_index() == dst:
        tensor._rebind(reduced)
    return CommHandle(reduced) if async_op else None


def barrier(group: str | None = None, async_op: bool = False, device_ids=None):
    """Block until every rank of the group has reached the barrier (an all-reduce of one number)."""
    group = _group(group, "ops.barrier")
    not_honoured("ops.barrier", "device_ids", device_ids, None, "a rank is one process; the group's ranks meet")
    done = comm_ops.AllReduce("sum", group)(Tensor(np.zeros(1, np.int32)))
    if async_op:
        return CommHandle(done)
    CommHandle(done).wait()
    return None


# ----------------------------------------------------------------- point-to-point
def _peer(peer, group: str, what: str, name: str) -> int:
    """A world rank of `group` other than this one (MindSpore's ValueError when it is this rank)."""
    _rank_arg(peer, what, name, group)
    if peer == jax.process_index():
        raise ValueError(f"{what}: {name}={peer} is this process's own rank (a rank cannot send to or receive from "
                         f"itself)")
    return peer


def _tag(tag, what: str) -> int:
    if not isinstance(tag, int) or isinstance(tag, bool) or tag < 0:
        raise TypeError(f"{what}: tag must be a non-negative int, got {tag!r}")
    return tag


def _send(tensor, dst: int, group: str, tag: int) -> None:
    apply(comm_ops.send, (tensor,), {"dst": dst, "tag": tag, "group": group})


def _recv(tensor, src: int, group: str, tag: int) -> Tensor:
    return apply(comm_ops.receive, (tensor,), {"src": src, "tag": tag, "group": group})


def send(tensor, dst: int = 0, group: str | None = None, tag: int = 0) -> None:
    """Send `tensor` to world rank `dst` (its matching `recv`: same tag, same order). Returns at once eagerly:
    the receiver pulls the tensor from jax's transfer server; in a compiled graph a `lax.ppermute`."""
    group = _group(group, "send")
    _send(_tensor(tensor, "send", "tensor"), _peer(dst, group, "send", "dst"), group, _tag(tag, "send"))


def recv(tensor, src: int = 0, group: str | None = None, tag: int = 0) -> int:
    """Fill `tensor` (its shape and dtype must be the sent tensor's) with what world rank `src` sent; returns 0."""
    group = _group(group, "recv")
    got = _recv(_tensor(tensor, "recv", "tensor"), _peer(src, group, "recv", "src"), group, _tag(tag, "recv"))
    tensor._rebind(got)
    return 0


def isend(tensor, dst: int = 0, group: str | None = None, tag: int = 0) -> CommHandle:
    """`send` without waiting (an eager send never waits for its receiver anyway)."""
    send(tensor, dst, group, tag)
    return CommHandle()


def irecv(tensor, src: int = 0, group: str | None = None, tag: int = 0) -> CommHandle:
    """Post a receive into `tensor`; eagerly it happens at the handle's `wait()`, so the matching send may come
    later (e.g. both ranks `irecv`, then `send`). In a compiled graph it happens here."""
    group = _group(group, "irecv")
    _tensor(tensor, "irecv", "tensor")
    src, tag = _peer(src, group, "irecv", "src"), _tag(tag, "irecv")

    def run():
        tensor._rebind(_recv(tensor, src, group, tag))
        return tensor

    if _traced(tensor):
        return CommHandle(run())
    return CommHandle(run=run)


class P2POp:
    """One entry of `batch_isend_irecv`: `op` is "isend"/"irecv" (or the functions `isend`/`irecv`), `peer` the
    world rank to send to or receive from."""

    def __init__(self, op, tensor, peer: int, group: str | None = None, tag: int = 0) -> None:
        names = {isend: "isend", irecv: "irecv", "isend": "isend", "irecv": "irecv"}
        if not (callable(op) or isinstance(op, str)) or names.get(op) is None:
            raise TypeError(f"P2POp: op must be 'isend', 'irecv' or the function isend/irecv, got {op!r}")
        if not isinstance(tensor, Tensor):
            raise TypeError(f"P2POp: tensor must be a Tensor, got {type(tensor).__name__}")
        if not isinstance(peer, int) or isinstance(peer, bool):
            raise TypeError(f"P2POp: peer must be an int, got {type(peer).__name__}")
        if tag != 0:
            raise NotImplementedError("P2POp: tag is not supported (MindSpore's rule); use 0")
        self.op, self.tensor, self.peer, self.group, self.tag = names[op], tensor, peer, group, tag


def _batch(p2p_op_list: list, what: str) -> list:
    """Run a batch: the sends first (an eager send never waits), then the receives, each in place. Inside a
    compiled graph the transfers are ordered by (sender, receiver) world ranks, the same on both sides of each
    pair, so the two programs' permutes pair up whatever order each rank listed them in."""
    if not isinstance(p2p_op_list, (list, tuple)) or not p2p_op_list or \
            not all(isinstance(o, P2POp) for o in p2p_op_list):
        raise TypeError(f"{what}: p2p_op_list must be a non-empty list of P2POp")
    groups = {GlobalComm.WORLD_COMM_GROUP if o.group is None else o.group for o in p2p_op_list}
    if len(groups) > 1:
        raise TypeError(f"{what}: every P2POp must use the same group, got {sorted(groups)}")
    group = _group(groups.pop(), what)
    me = jax.process_index()
    ops = [(o, _peer(o.peer, group, what, "peer")) for o in p2p_op_list]
    results: list = [None] * len(ops)
    if any(_traced(o.tensor) for o, _ in ops):
        _pair_exchanges(ops, results, group)
        order = sorted((i for i in range(len(ops)) if results[i] is None),
                       key=lambda i: (me, ops[i][1]) if ops[i][0].op == "isend" else (ops[i][1], me))
    else:
        order = [i for i in range(len(ops)) if ops[i][0].op == "isend"] + \
                [i for i in range(len(ops)) if ops[i][0].op == "irecv"]
    for i in order:
        o, peer = ops[i]
        if o.op == "isend":
            _send(o.tensor, peer, group, 0)
            results[i] = Tensor(np.zeros((), np.float32))
        else:
            results[i] = _recv(o.tensor, peer, group, 0)
    return results


def _pair_exchanges(ops: list, results: list, group: str) -> None:
    """In a compiled batch, an isend to a peer and an irecv from the same peer, of one shape and dtype, become
    one `Exchange` (both ranks' programs hold the same ppermute); the results of the paired ops are filled in."""
    for i, (o, peer) in enumerate(ops):
        if o.op != "isend" or results[i] is not None:
            continue
        j = next((j for j, (r, p) in enumerate(ops) if r.op == "irecv" and p == peer and results[j] is None
                  and tuple(r.tensor.shape) == tuple(o.tensor.shape) and r.tensor.dtype == o.tensor.dtype), None)
        if j is not None:
            results[j] = apply(comm_ops.exchange, (o.tensor,), {"peer": peer, "group": group})
            results[i] = Tensor(np.zeros((), np.float32))


def batch_isend_irecv(p2p_op_list: list) -> list:
    """Post every send and receive of the list; the received tensors are written in place. Returns one handle."""
    results = _batch(p2p_op_list, "batch_isend_irecv")
    for o, got in zip(p2p_op_list, results):
        if o.op == "irecv":
            o.tensor._rebind(got)
    return [CommHandle()]


# ----------------------------------------------------------------- groups and the process group
def init_process_group(backend: str = "hccl", init_method: str | None = None, timeout=None, world_size: int = -1,
                       rank: int = -1, store=None, group_name: str = "", pg_options=None, device_id=None) -> None:
    """Join the job (msrun's workers joined jax's cluster at import) and check `world_size`/`rank` against it;
    `timeout` bounds how long a recv waits for its send."""
    if not isinstance(backend, str) or backend not in management.BACKENDS:
        raise CommunicationError(f"init_process_group: backend must be one of {management.BACKENDS}, got {backend!r}")
    for name, value in (("init_method", init_method), ("store", store), ("pg_options", pg_options),
                        ("device_id", device_id)):
        not_honoured("init_process_group", name, value, None, "the cluster is jax's, formed from msrun's "
                     "environment (MS_SCHED_HOST, RANK_ID, RANK_SIZE)")
    not_honoured("init_process_group", "group_name", group_name, "", "the world group keeps MindSpore's name "
                 f"{GlobalComm.WORLD_COMM_GROUP!r}")
    if timeout is not None:
        if not isinstance(timeout, datetime.timedelta):
            raise TypeError(f"init_process_group: timeout must be a datetime.timedelta, got {type(timeout).__name__}")
        p2p.timeout_s[0] = max(1, int(timeout.total_seconds()))
    management.init(backend)
    size, me = jax.process_count(), jax.process_index()
    if world_size not in (-1, size):
        raise CommunicationError(f"init_process_group: world_size={world_size}, but the job has {size} ranks")
    if rank not in (-1, me):
        raise CommunicationError(f"init_process_group: rank={rank}, but this process is rank {me}")


def destroy_process_group(group: str | None = None) -> None:
    """Destroy `group`; None or the world group: every group, and leave the job (`release`)."""
    if group is not None and not isinstance(group, str):
        raise TypeError(f"destroy_process_group: group must be a str, got {type(group).__name__}")
    if group is None or group in management._WORLD_NAMES:
        management.release()
    else:
        management.destroy_group(group)


def is_available() -> bool:
    """The distributed API is there (always, on jax's runtime)."""
    return True


def is_initialized() -> bool:
    """init_process_group (or communication.init) has run."""
    return GlobalComm.INITED


def get_backend(group: str | None = None) -> str:
    """The communication backend's name of the group (MindSpore's names: "hccl", "nccl", ...)."""
    _group(group, "get_backend")
    return GlobalComm.BACKEND


def new_group(ranks: list | None = None, timeout=None, backend: str | None = None, pg_options=None,
              use_local_synchronization: bool = False, group_desc: str | None = None) -> str:
    """A group of world `ranks` (sorted), named as MindSpore names it; None: the world group."""
    if not GlobalComm.INITED:
        raise CommunicationError("new_group: call init_process_group() first")
    if ranks is None:
        return GlobalComm.WORLD_COMM_GROUP
    if not isinstance(ranks, list):
        raise TypeError(f"new_group: ranks must be a list, got {type(ranks).__name__}")
    if backend is not None and backend not in ("hccl", "mccl"):
        raise TypeError(f"new_group: backend must be 'hccl' or 'mccl', got {backend!r}")
    for name, value in (("timeout", timeout), ("pg_options", pg_options), ("group_desc", group_desc)):
        not_honoured("new_group", name, value, None, "a group is a sub-mesh of jax's devices")
    not_honoured("new_group", "use_local_synchronization", use_local_synchronization, False,
                 "making a group needs no communication in msx")
    ranks = sorted(ranks)
    name = f"{backend or 'hccl'}_{len(ranks)}_{hashlib.sha1('_'.join(map(str, ranks)).encode()).hexdigest()}"
    if name in management._GROUPS:
        return name
    management.create_group(name, ranks)
    return name


def get_rank(group: str | None = None) -> int:
    """This process's rank in the group; -1 if it is not a member (or the group is unknown)."""
    group = GlobalComm.WORLD_COMM_GROUP if group is None else group
    if not isinstance(group, str):
        raise TypeError(f"get_rank: group must be a str, got {type(group).__name__}")
    try:
        ranks = management.group_ranks(group, "get_rank")
    except CommunicationError:
        return -1
    return ranks.index(jax.process_index()) if jax.process_index() in ranks else -1


def get_world_size(group: str | None = None) -> int:
    """The number of ranks in the group; -1 if the group is not available."""
    group = GlobalComm.WORLD_COMM_GROUP if group is None else group
    if not isinstance(group, str):
        raise TypeError(f"get_world_size: group must be a str, got {type(group).__name__}")
    try:
        return len(management.group_ranks(group, "get_world_size"))
    except CommunicationError:
        return -1


def get_process_group_ranks(group: str | None = None) -> list[int]:
    """The world ranks of the group, in group-rank order."""
    return list(_members(_group(group, "ops.get_process_group_ranks")))


def get_group_rank(group: str, global_rank: int) -> int:
    """A world rank's rank in `group`."""
    return management.get_group_rank_from_world_rank(global_rank, group)


def get_global_rank(group: str, group_rank: int) -> int:
    """A group rank's world rank."""
    return management.get_world_rank_from_group_rank(group, group_rank)


__all__ = ["all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "all_gather", "reduce_scatter",
           "broadcast", "barrier", "get_rank", "get_process_group_ranks", "get_group_rank", "get_global_rank",
           "set_comm_ops_inplace", "all_gather_into_tensor_uneven", "reduce_scatter_tensor_uneven", "all_to_all",
           "all_to_all_single", "gather", "scatter", "reduce", "send", "recv", "isend", "irecv", "P2POp",
           "batch_isend_irecv", "init_process_group", "destroy_process_group", "is_available", "is_initialized",
           "get_backend", "new_group", "get_world_size", "TCPStore"]
