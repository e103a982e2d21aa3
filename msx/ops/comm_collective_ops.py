"""MindSpore 2.10's remaining collective class ops (`ops.AllGatherV`, `ReduceScatterV`, `AlltoAll`, `AlltoAllV`,
`AlltoAllVC`, `Barrier`, `CollectiveGather`, `CollectiveScatter`, `Reduce`) and the torch-style functions
`ops.all_to_all_v_c`, `ops.gather_into_tensor`, `ops.scatter_tensor`.

Each one is built from the registry's collective primitives (`AllGather`, `AllReduce`, `Broadcast`, `AllToAll`
of `msx.ops.comm_ops`), so it runs where they run: eagerly, under `msx.jit` (inside a multi-process job's SPMD
program they are `lax` collectives over the ranks' mesh axis), in a one-process job and across msrun's ranks.
jax's collectives are even (every rank sends blocks of one size), so the uneven ones (`*V`) pad every rank's
piece to the largest and cut the padding away; where every rank knows every size (`AllGatherV`'s
`output_split_sizes`, `AlltoAllVC`'s matrix) the padded width is known when the graph is built, so they work
inside a compiled graph too. A rank is a process (`msx.communication`); `group` is a name `create_group` made.
"""
from __future__ import annotations

from typing import Any

import jax
import numpy as np

from ..communication.management import GlobalComm
from ..errors import CommunicationError
from ..parallel import spmd
from ..tensor import Tensor
from .api import SURFACE
from . import comm_func, comm_ops, functional as F
from .primitive import apply, primitive, recording

_WORLD = "hccl_world_group"


def _group(group, what: str) -> str:
    return comm_func._group(GlobalComm.WORLD_COMM_GROUP if group in (None, _WORLD) else group, what)


def _size_me(group: str, what: str) -> tuple[int, int]:
    return len(comm_func._members(group)), comm_func._me(group, what)


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _int_list(value, what: str, name: str) -> list[int]:
    """A list/tuple of ints, or a Tensor of them (read eagerly; a graph's traced Tensor has no value yet)."""
    if isinstance(value, Tensor):
        if isinstance(value._data, jax.core.Tracer):
            raise CommunicationError(f"{what}: {name} must be known when the graph is built (a list or tuple of "
                                     f"ints, or a constant Tensor), got a Tensor computed inside the graph")
        value = np.asarray(value.asnumpy()).reshape(-1).tolist()
    if not isinstance(value, (list, tuple)) or not all(_is_int(v) for v in value):
        raise TypeError(f"{what}: {name} must be a list or tuple of ints (or a Tensor), got {value!r}")
    if any(v < 0 for v in value):
        raise ValueError(f"{what}: {name} must be non-negative, got {list(value)}")
    return [int(v) for v in value]


def _tensor(x, what: str, name: str = "input_x") -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: {name} must be a Tensor, got {type(x).__name__}")
    return x


def _empty(x: Tensor) -> Tensor:
    """MindSpore's result when nothing is gathered: a Tensor of shape () whose value has no meaning."""
    return Tensor(np.zeros((), np.dtype(x._data.dtype)))


def _placeholder(x: Tensor) -> Tensor:
    """What a rank other than the destination gets (MindSpore: a tensor of shape [1] with no meaning)."""
    return Tensor(np.zeros((1,), np.dtype(x._data.dtype)))


_KEEP = "the collectives of this module: a rank whose result does not read a collective's output still runs it"


@primitive("CommKeep", internal=_KEEP, category="comm", differentiable=False)
def comm_keep(result, used):
    """`result`, with the collective output `used` kept in this rank's program. A rank that gets a placeholder
    (CollectiveGather's or Reduce's non-destination ranks, an empty piece) reads nothing of the collective, and
    msx's and XLA's dead-code elimination would drop it on that rank alone: the other ranks would wait for it
    forever. Inside the SPMD program a no-op host callback of one element holds it (as `spmd.permute` does)."""
    if spmd.inside() and used.size:
        jax.debug.callback(spmd._ignore, used.reshape(-1)[:1])
    return result


def _keep(result: Tensor, used: Tensor) -> Tensor:
    return apply(comm_keep, (result, used))


@primitive("Barrier", internal="ops.Barrier, which returns MindSpore's placeholder", category="comm",
           multiple_results=True, differentiable=False, attrs=("group",))
def barrier(x, *, group: str = _WORLD):
    """An all-reduce of `x` whose result nobody reads: an output-less node (kept by msx's dead-code elimination as
    an effect), its result held in the SPMD program by a host callback; eagerly it blocks until every rank came."""
    ranks = comm_ops._ranks(group)
    out = comm_ops._traced(spmd.all_reduce, x, "sum", ranks)
    if spmd.inside():
        jax.debug.callback(spmd._ignore, out.reshape(-1)[:1])
    elif not isinstance(out, jax.core.Tracer):
        jax.block_until_ready(out)
    return ()


def _gather_uneven(flat: Tensor, sizes: list[int], group: str) -> Tensor:
    """Every member's flat piece (member r has sizes[r] elements), concatenated in group-rank order."""
    width = max(max(sizes), 1)
    mine = int(flat.shape[0])
    row = F.pad(flat, [0, width - mine]) if mine < width else flat
    rows = comm_ops.AllGather(group)(row.reshape((1, width)))
    parts = [rows[r, :sizes[r]] for r in range(len(sizes)) if sizes[r]]
    return F.concat(parts, 0) if parts else _empty(flat)


class _CommOp:
    """The common face of these class ops: MindSpore's `name`, `group` and a readable repr."""

    name = ""
    group = _WORLD

    def __repr__(self) -> str:
        return f"Prim[{self.name}]<group={self.group}>"


class AllGatherV(_CommOp):
    """`ops.AllGatherV(group)(input_x, output_split_sizes)`: every rank's flat `input_x` (rank r holds
    `output_split_sizes[r]` elements) concatenated in rank order, on every rank."""

    name = "AllGatherV"

    def __init__(self, group: str = _WORLD) -> None:
        self.group = _group(group, self.name)
        self.rank_size, self.rank = _size_me(self.group, self.name)

    def __call__(self, input_x, output_split_sizes) -> Tensor:
        x = _tensor(input_x, self.name)
        sizes, me = _per_rank(self, output_split_sizes, "output_split_sizes")
        flat = x.reshape((-1,))
        if int(flat.shape[0]) != sizes[me]:
            raise ValueError(f"{self.name}: this rank's input has {int(flat.shape[0])} elements, "
                             f"output_split_sizes[{me}] says {sizes[me]}")
        return _gather_uneven(flat, sizes, self.group)


def _per_rank(op: "_CommOp", value, what: str) -> tuple[list[int], int]:
    """(`value` as one int per rank of `op`'s group, this rank's index in it); a wrong count names the op."""
    sizes = _int_list(value, op.name, what)
    n, me = _size_me(op.group, op.name)
    if len(sizes) != n:
        raise ValueError(f"{op.name}: {what} must hold {n} sizes (one per rank of group {op.group!r}), got "
                         f"{len(sizes)}")
    return sizes, me


_V_OPS = ("sum", "max", "min")


class ReduceScatterV(_CommOp):
    """`ops.ReduceScatterV(op='sum', group)(input_x, input_split_sizes)`: the flat `input_x` reduced over the
    ranks; rank r keeps its `input_split_sizes[r]` elements (an all-reduce, then this rank's piece)."""

    name = "ReduceScatterV"

    def __init__(self, op: str = "sum", group: str = _WORLD) -> None:
        if not isinstance(op, str):
            raise TypeError(f"{self.name}: op must be a str, got {type(op).__name__}")
        if op not in _V_OPS:
            raise ValueError(f"{self.name}: op must be one of {_V_OPS} (MindSpore's ReduceScatterV has no prod), "
                             f"got {op!r}")
        self.op, self.group = op, _group(group, self.name)
        self.rank_size, self.rank_id = _size_me(self.group, self.name)

    def __call__(self, input_x, input_split_sizes) -> Tensor:
        x = _tensor(input_x, self.name)
        sizes, me = _per_rank(self, input_split_sizes, "input_split_sizes")
        flat = x.reshape((-1,))
        if int(flat.shape[0]) != sum(sizes):
            raise ValueError(f"{self.name}: input has {int(flat.shape[0])} elements, input_split_sizes sum to "
                             f"{sum(sizes)}")
        total = comm_ops.AllReduce(self.op, self.group)(flat)
        if not sizes[me]:
            return _keep(_empty(x), total)
        start = sum(sizes[:me])
        return total[start:start + sizes[me]]


class AlltoAll(_CommOp):
    """`ops.AlltoAll(split_count, split_dim, concat_dim, group)(input_x)`: `input_x` cut into `split_count`
    (the group size) blocks along `split_dim`, block j to rank j; the blocks received, in rank order, are
    concatenated along `concat_dim`."""

    name = "AlltoAll"

    def __init__(self, split_count: int, split_dim: int, concat_dim: int, group: str = _WORLD) -> None:
        for arg, value in (("split_count", split_count), ("split_dim", split_dim), ("concat_dim", concat_dim)):
            if not _is_int(value):
                raise TypeError(f"{self.name}: {arg} must be an int, got {value!r}")
        self.group = _group(group, self.name)
        self.rank_size = len(comm_func._members(self.group))
        if split_count != self.rank_size:
            raise ValueError(f"{self.name}: split_count={split_count} must equal the size of group {self.group!r} "
                             f"({self.rank_size})")
        self.split_count, self.split_dim, self.concat_dim = int(split_count), int(split_dim), int(concat_dim)

    def __call__(self, input_x) -> Tensor:
        x = _tensor(input_x, self.name)
        nd, n = len(x.shape), self.split_count
        for arg, d in (("split_dim", self.split_dim), ("concat_dim", self.concat_dim)):
            if not -nd <= d < nd:
                raise ValueError(f"{self.name}: {arg}={d} is out of range for an input of shape {tuple(x.shape)}")
        split, concat = self.split_dim % nd, self.concat_dim % nd
        if x.shape[split] % n:
            raise ValueError(f"{self.name}: dimension {split} of shape {tuple(x.shape)} must divide by "
                             f"split_count={n}")
        if n == 1:
            return x
        blocks = F.stack(F.split(x, x.shape[split] // n, split), 0)   # (n, ...): block j goes to rank j
        got = comm_ops.all_to_all(blocks, group=self.group)            # got[j]: rank j's block for this rank
        return F.concat([got[j] for j in range(n)], concat)


def _cut_exchange(flat: Tensor, send: list[int], recv: list[int], group: str, what: str,
                  width: int | None) -> Tensor:
    """Flat piece j (send[j] elements) to rank j; the pieces received (recv[j] from rank j), concatenated. Every
    piece is padded to one width (jax's all-to-all is even): `width` when every rank knows it, else agreed
    eagerly by an all-reduce(max) of each rank's largest piece (in a graph only even pieces can agree)."""
    n = len(send)
    starts = np.cumsum([0, *send])
    chunks = [flat[int(starts[j]):int(starts[j + 1])] for j in range(n)]
    if width is None:
        if recording.recorder is not None or isinstance(flat._data, jax.core.Tracer) or spmd.inside():
            if len(set(send) | set(recv)) > 1:
                raise CommunicationError(f"{what}: uneven counts inside a compiled graph: every rank's program "
                                         f"needs one padded width, which only an eager exchange can agree on; call "
                                         f"it eagerly (PyNative), split evenly, or use AlltoAllVC (its matrix "
                                         f"gives every count)")
            width = max(send + recv + [0])
        else:
            mine = Tensor(np.array([max(send + recv + [0])], np.int64))
            width = int(comm_ops.AllReduce("max", group)(mine).asnumpy()[0])
    width = max(width, 1)
    rows = F.stack([F.pad(c, [0, width - int(c.shape[0])]) if int(c.shape[0]) < width else c for c in chunks], 0)
    got = comm_ops.all_to_all(rows, group=group) if n > 1 else rows
    pieces = [got[j, :recv[j]] for j in range(n) if recv[j]]
    return F.concat(pieces, 0) if pieces else _keep(_empty(flat), got)


def _block_size(block_size, what: str) -> int:
    if not _is_int(block_size) or block_size < 1:
        raise TypeError(f"{what}: block_size must be a positive int, got {block_size!r}")
    return int(block_size)


class AlltoAllV(_CommOp):
    """`ops.AlltoAllV(group, block_size=1)(input_x, send_numel_list, recv_numel_list)`: the flat `input_x` cut
    into pieces of `send_numel_list[j] * block_size` elements, piece j to rank j; the pieces received
    (`recv_numel_list[j] * block_size` from rank j) concatenated. Eagerly any sizes; in a compiled graph every
    rank's pieces must have one size (jax's all-to-all is even and a graph cannot agree on a padded width)."""

    name = "AlltoAllV"

    def __init__(self, group: str = _WORLD, block_size: int = 1) -> None:
        self.group = _group(group, self.name)
        self.rank_size = len(comm_func._members(self.group))
        self.block_size = _block_size(block_size, self.name)

    def __call__(self, input_x, send_numel_list, recv_numel_list) -> Tensor:
        x = _tensor(input_x, self.name)
        n = len(comm_func._members(self.group))
        lists = []
        for arg, value in (("send_numel_list", send_numel_list), ("recv_numel_list", recv_numel_list)):
            counts = _int_list(value, self.name, arg)
            if len(counts) != n:
                raise ValueError(f"{self.name}: {arg} must hold {n} counts (one per rank of group {self.group!r}), "
                                 f"got {len(counts)}")
            lists.append([c * self.block_size for c in counts])
        send, recv = lists
        flat = x.reshape((-1,))
        if int(flat.shape[0]) != sum(send):
            raise ValueError(f"{self.name}: input_x has {int(flat.shape[0])} elements, send_numel_list * block_size "
                             f"sums to {sum(send)}")
        return _cut_exchange(flat, send, recv, self.group, self.name, None)


def _matrix(send_count_matrix, n: int, what: str) -> np.ndarray:
    counts = _int_list(send_count_matrix, what, "send_count_matrix")
    if len(counts) != n * n:
        raise ValueError(f"{what}: send_count_matrix must hold {n}x{n} = {n * n} counts (group size {n}), got "
                         f"{len(counts)}")
    return np.asarray(counts, np.int64).reshape(n, n)


def _v_c(flat: Tensor, matrix: np.ndarray, me: int, group: str, what: str) -> Tensor:
    """Row `me` of `matrix` says what this rank sends to each rank, column `me` what it receives; every rank
    knows the whole matrix, so the padded width (its largest entry) is known when a graph is built."""
    if int(flat.shape[0]) != int(matrix[me].sum()):
        raise ValueError(f"{what}: this rank's input has {int(flat.shape[0])} elements, its row {me} of "
                         f"send_count_matrix sums to {int(matrix[me].sum())}")
    return _cut_exchange(flat, [int(v) for v in matrix[me]], [int(v) for v in matrix[:, me]], group, what,
                         int(matrix.max()))


class AlltoAllVC(_CommOp):
    """`ops.AlltoAllVC(group, block_size=1, transpose=False)(input_x, send_count_matrix)`:
    `send_count_matrix[i * n + j] * block_size` elements go from rank i to rank j (`transpose`: the transposed
    matrix, the backward pass's direction); the result is the flat pieces this rank receives, in rank order.
    Works inside a compiled graph with uneven counts (every rank knows the matrix)."""

    name = "AlltoAllVC"

    def __init__(self, group: str = _WORLD, block_size: int = 1, transpose: bool = False) -> None:
        self.group = _group(group, self.name)
        self.rank_size, self.rank_id = _size_me(self.group, self.name)
        self.block_size = _block_size(block_size, self.name)
        if not isinstance(transpose, bool):
            raise TypeError(f"{self.name}: transpose must be a bool, got {transpose!r}")
        self.transpose = transpose

    def __call__(self, input_x, send_count_matrix) -> Tensor:
        x = _tensor(input_x, self.name)
        n, me = _size_me(self.group, self.name)
        matrix = _matrix(send_count_matrix, n, self.name) * self.block_size
        return _v_c(x.reshape((-1,)), matrix.T if self.transpose else matrix, me, self.group, self.name)


class Barrier(_CommOp):
    """`ops.Barrier(group)()`: returns once every rank of the group has reached it (an all-reduce of one number;
    the result, a float32 Tensor of shape [1], has no meaning, as in MindSpore)."""

    name = "Barrier"

    def __init__(self, group: str = _WORLD) -> None:
        if not isinstance(group, str):
            raise TypeError(f"{self.name}: group must be a str, got {type(group).__name__}")
        self.group = group

    def __call__(self) -> Tensor:
        apply(barrier, (Tensor(np.zeros(1, np.float32)),), {"group": _group(self.group, self.name)})
        return Tensor(np.zeros(1, np.float32))


def _world_member(rank, group: str, what: str, arg: str) -> int:
    """A world rank that belongs to `group` (MindSpore's `dest_rank`/`src_rank` of CollectiveGather/Scatter)."""
    if not _is_int(rank):
        raise TypeError(f"{what}: {arg} must be an int, got {rank!r}")
    members = comm_func._members(group)
    if rank not in members:
        raise ValueError(f"{what}: {arg}={rank} is not a rank of group {group!r} (ranks {list(members)})")
    return int(rank)


class CollectiveGather(_CommOp):
    """`ops.CollectiveGather(dest_rank, group)(input_x)`: on world rank `dest_rank`, every rank's `input_x`
    concatenated along axis 0 in rank order; the other ranks get a Tensor of shape [1] (no meaning)."""

    name = "CollectiveGather"

    def __init__(self, dest_rank: int, group: str = _WORLD) -> None:
        self.group = _group(group, self.name)
        self.rank_size, self.rank_id = _size_me(self.group, self.name)
        self.dest_rank = _world_member(dest_rank, self.group, self.name, "dest_rank")

    def __call__(self, input_x) -> Tensor:
        x = _tensor(input_x, self.name)
        if not x.shape:
            raise ValueError(f"{self.name}: input_x must have at least one dimension (gathered along axis 0)")
        gathered = comm_ops.AllGather(self.group)(x)
        return gathered if jax.process_index() == self.dest_rank else _keep(_placeholder(x), gathered)


class CollectiveScatter(_CommOp):
    """`ops.CollectiveScatter(src_rank=0, group)(input_x)`: world rank `src_rank`'s `input_x` cut into
    group-size equal slices along axis 0; group rank r gets slice r (every rank passes a tensor of that shape)."""

    name = "CollectiveScatter"

    def __init__(self, src_rank: int = 0, group: str = _WORLD) -> None:
        self.group = _group(group, self.name)
        self.rank_size, self.rank_id = _size_me(self.group, self.name)
        self.src_rank = _world_member(src_rank, self.group, self.name, "src_rank")

    def __call__(self, input_x) -> Tensor:
        x = _tensor(input_x, self.name)
        n, me = _size_me(self.group, self.name)
        if not x.shape or x.shape[0] % n:
            raise ValueError(f"{self.name}: axis 0 of shape {tuple(x.shape)} must divide by the group size {n}")
        whole = comm_ops.Broadcast(self.src_rank, self.group)((x,))[0]
        rows = x.shape[0] // n
        return whole[me * rows:(me + 1) * rows]


class Reduce(_CommOp):
    """`ops.Reduce(dest_rank, op='sum', group)(input_x)`: `input_x` reduced over the group, on the group's rank
    `dest_rank` (MindSpore: the local rank in the group); the other ranks get a Tensor of shape [1]."""

    name = "Reduce"

    def __init__(self, dest_rank: int, op: str = "sum", group: str = _WORLD) -> None:
        if not isinstance(op, str):
            raise TypeError(f"{self.name}: op must be a str, got {type(op).__name__}")
        if op not in comm_ops.REDUCE_OPS[:4]:
            raise ValueError(f"{self.name}: op must be one of {comm_ops.REDUCE_OPS[:4]}, got {op!r}")
        if not _is_int(dest_rank):
            raise TypeError(f"{self.name}: dest_rank must be an int, got {dest_rank!r}")
        self.group = _group(group, self.name)
        n = len(comm_func._members(self.group))
        if not 0 <= dest_rank < n:
            raise ValueError(f"{self.name}: dest_rank={dest_rank} is not a rank of group {self.group!r} of size {n}")
        self.dest_rank, self.op = int(dest_rank), op

    def __call__(self, input_x) -> Tensor:
        x = _tensor(input_x, self.name)
        _, me = _size_me(self.group, self.name)
        reduced = comm_ops.AllReduce(self.op, self.group)(x)
        return reduced if me == self.dest_rank else _keep(_placeholder(x), reduced)


# ----------------------------------------------------------------- torch-style functions (write into the output)
def _inplace_only(what: str) -> None:
    if not comm_func._inplace.get(what, True):
        raise ValueError(f"ops.{what}: Non-inplace mode is currently not supported (MindSpore's rule); "
                         f"set_comm_ops_inplace(True)")


def _async(async_op, what: str) -> None:
    if not isinstance(async_op, bool):
        raise TypeError(f"ops.{what}: async_op must be a bool, got {type(async_op).__name__}")


def all_to_all_v_c(output, input, send_count_matrix, group: str | None = None,  # noqa: A002
                   async_op: bool = False) -> Any:
    """`send_count_matrix[i * n + j]` rows (axis-0 entries of `input`) go from group rank i to rank j; `output`
    gets the rows this rank receives, in rank order (written in place). Works inside a compiled graph."""
    _inplace_only("all_to_all_v_c")
    return v_c_rows(output, input, send_count_matrix, group, async_op, "ops.all_to_all_v_c")


def v_c_rows(output, input, send_count_matrix, group, async_op: bool, what: str) -> Any:  # noqa: A002
    """`all_to_all_v_c`'s work (also `communication.comm_func.all_to_all_v_c`'s): counts in rows of axis 0."""
    _tensor(input, what, "input")
    _tensor(output, what, "output")
    _async(async_op, what.split(".")[-1])
    if not isinstance(send_count_matrix, list) or not all(_is_int(v) for v in send_count_matrix):
        raise TypeError(f"{what}: send_count_matrix must be a list of ints, got {send_count_matrix!r}")
    group = _group(group, what)
    n, me = _size_me(group, what)
    row_in, row_out = int(np.prod(input.shape[1:])), int(np.prod(output.shape[1:]))
    if row_in != row_out:
        raise ValueError(f"{what}: the input and output dimensions except 0 must be of equal size, got "
                         f"{tuple(input.shape)} and {tuple(output.shape)}")
    matrix = _matrix(send_count_matrix, n, what) * row_in
    got = _v_c(input.reshape((-1,)), matrix, me, group, what)
    if int(np.prod(output.shape)) != int(matrix[:, me].sum()):
        raise ValueError(f"{what}: output {tuple(output.shape)} holds {int(np.prod(output.shape))} elements, "
                         f"this rank receives {int(matrix[:, me].sum())}")
    output._rebind(got.reshape(output.shape).astype(output.dtype))
    return comm_func.CommHandle(output) if async_op else None


def _world_rank_arg(rank, group: str, what: str, arg: str) -> int:
    if not _is_int(rank):
        raise TypeError(f"For {what}, the {arg} must be int, got {type(rank).__name__}")
    return _world_member(rank, group, f"ops.{what}", arg)


def gather_into_tensor(output_tensor, input_tensor, dst: int = 0, group: str | None = None,
                       async_op: bool = False) -> Any:
    """On world rank `dst`, every rank's `input_tensor` concatenated along axis 0 is written into
    `output_tensor`; the other ranks' `output_tensor` is left as it is."""
    what = "gather_into_tensor"
    _inplace_only(what)
    _tensor(input_tensor, f"For {what}, the input tensor")
    _tensor(output_tensor, f"For {what}, the output tensor")
    _async(async_op, what)
    group = _group(group, f"ops.{what}")
    dst = _world_rank_arg(dst, group, what, "dst")
    gathered = comm_ops.AllGather(group)(input_tensor)
    if jax.process_index() == dst:
        return comm_func._write(output_tensor, gathered, f"ops.{what}", async_op)
    output_tensor._rebind(_keep(output_tensor, gathered))   # unchanged, but this rank's graph keeps the gather
    return comm_func.CommHandle(output_tensor) if async_op else None


def scatter_tensor(output_tensor, input_tensor, src: int = 0, group: str | None = None,
                   async_op: bool = False) -> Any:
    """World rank `src`'s `input_tensor` cut into group-size equal slices along axis 0; group rank r's
    `output_tensor` gets slice r (written in place)."""
    what = "scatter_tensor"
    _inplace_only(what)
    _tensor(input_tensor, f"For {what}, the input tensor")
    _tensor(output_tensor, f"For {what}, the output tensor")
    _async(async_op, what)
    group = _group(group, f"ops.{what}")
    src = _world_rank_arg(src, group, what, "src")
    part = CollectiveScatter(src, group)(input_tensor)
    return comm_func._write(output_tensor, part, f"ops.{what}", async_op)


CLASS_OPS = (AllGatherV, ReduceScatterV, AlltoAll, AlltoAllV, AlltoAllVC, Barrier, CollectiveGather,
             CollectiveScatter, Reduce)
for _cls in CLASS_OPS:
    SURFACE.add("cls", _cls.__name__, _cls)
FUNCTIONS = ("all_to_all_v_c", "gather_into_tensor", "scatter_tensor")   # ops names, not ops.functional's (MindSpore's)
