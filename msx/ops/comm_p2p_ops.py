"""MindSpore 2.10's point-to-point class ops: `ops.Send`, `ops.Receive`, `ops.BatchISendIRecv`,
`ops.NeighborExchange` and `ops.NeighborExchangeV2` (the halo exchange of an NCHW tensor).

They stand on the registry's `Send`/`Receive`/`Exchange` primitives through `msx.ops.comm_func`'s batch
(`_batch`): eagerly jax's transfer server (`msx.parallel.p2p`), inside a multi-process job's compiled graph
`lax.ppermute`s over the ranks' mesh axis (an isend and an irecv of one shape with the same peer are one
two-way permute). The ranks these ops name (`dest_rank`, `src_rank`, `remote_ranks`, `send_rank_ids`, ...)
are ranks of `group`, as HCCL numbers them; for the world group they are the world ranks.
"""
from __future__ import annotations

import jax

from .. import dtype as mstype
from ..communication.management import GlobalComm
from ..errors import CommunicationError
from ..ignored_args import not_honoured
from ..tensor import Tensor
from .api import SURFACE
from . import comm_func, functional as F
from .comm_collective_ops import _CommOp, _is_int, _tensor

_WORLD = "hccl_world_group"
_RECV_TYPES = ("float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16",
               "uint32", "uint64")


def _group(group, what: str) -> str:
    if group is not None and not isinstance(group, str):
        raise TypeError(f"{what}: group must be a str, got {type(group).__name__}")
    return comm_func._group(GlobalComm.WORLD_COMM_GROUP if group in (None, _WORLD) else group, what)


def _world_peer(rank, group: str, what: str, arg: str) -> int:
    """The world rank of `group`'s rank `rank`, another process than this one."""
    if not _is_int(rank):
        raise TypeError(f"{what}: {arg} must be an int, got {rank!r}")
    members = comm_func._members(group)
    if not 0 <= rank < len(members):
        raise ValueError(f"{what}: {arg}={rank} is not a rank of group {group!r} of size {len(members)}")
    world = members[rank]
    if world == jax.process_index():
        raise ValueError(f"{what}: {arg}={rank} is this process's own rank (a rank cannot send to or receive from "
                         f"itself)")
    return world


def _back(group_back, what: str) -> None:
    not_honoured(what, "group_back", group_back, _WORLD, "msx's communication ops have no backward pass to "
                 "route over another group")


def _tag(sr_tag, what: str) -> int:
    if not _is_int(sr_tag) or sr_tag < 0:
        raise TypeError(f"{what}: sr_tag must be a non-negative int, got {sr_tag!r}")
    return int(sr_tag)


def _dtype(dtype, what: str, arg: str):
    try:
        name = str(mstype.to_msx(dtype)).lower()
    except (TypeError, ValueError, KeyError):
        raise TypeError(f"{what}: {arg} must be a mindspore dtype, got {dtype!r}") from None
    if name not in _RECV_TYPES:
        raise TypeError(f"{what}: {arg} must be one of {list(_RECV_TYPES)}, got {name}")
    return mstype.to_np(mstype.to_msx(dtype))


def _shape(shape, what: str, arg: str) -> tuple[int, ...]:
    if not isinstance(shape, (list, tuple)) or not all(_is_int(s) and s >= 0 for s in shape):
        raise TypeError(f"{what}: {arg} must be a list or tuple of non-negative ints, got {shape!r}")
    return tuple(int(s) for s in shape)


class Send(_CommOp):
    """`ops.Send(sr_tag, dest_rank, group, group_back)(input_x)`: `input_x` goes to `group`'s rank `dest_rank`,
    whose `Receive` with the same `sr_tag` gets it. Returns `input_x` (MindSpore's output has its shape and dtype
    and no meaning; a graph ties it in with `ops.depend`)."""

    name = "Send"

    def __init__(self, sr_tag: int, dest_rank: int, group: str = _WORLD, group_back: str = _WORLD) -> None:
        self.sr_tag, self.group = _tag(sr_tag, self.name), group
        if not _is_int(dest_rank):
            raise TypeError(f"{self.name}: dest_rank must be an int, got {dest_rank!r}")
        self.rank = self.dest_rank = int(dest_rank)
        _back(group_back, self.name)

    def __call__(self, input_x) -> Tensor:
        x = _tensor(input_x, self.name)
        group = _group(self.group, self.name)
        comm_func._send(x, _world_peer(self.dest_rank, group, self.name, "dest_rank"), group, self.sr_tag)
        return x


class Receive(_CommOp):
    """`ops.Receive(sr_tag, src_rank, shape, dtype, group, group_back)()`: the tensor of `shape` and `dtype` that
    `group`'s rank `src_rank` sent with `sr_tag`. MindSpore's optional input only orders the op in a graph."""

    name = "Receive"

    def __init__(self, sr_tag: int, src_rank: int, shape, dtype, group: str = _WORLD,
                 group_back: str = _WORLD) -> None:
        self.sr_tag = self.tag = _tag(sr_tag, self.name)
        if not _is_int(src_rank):
            raise TypeError(f"{self.name}: src_rank must be an int, got {src_rank!r}")
        self.rank = self.src_rank = int(src_rank)
        self.shape, self.dtype = _shape(shape, self.name, "shape"), dtype
        self._np_dtype = _dtype(dtype, self.name, "dtype")
        self.group = group
        _back(group_back, self.name)

    def __call__(self, input_x=None) -> Tensor:
        group = _group(self.group, self.name)
        src = _world_peer(self.src_rank, group, self.name, "src_rank")
        like = F.zeros(self.shape, mstype.to_msx(self.dtype))
        return comm_func._recv(like, src, group, self.sr_tag)


def _batch(kinds: list[str], tensors: list, peers: list[int], group: str, what: str) -> list:
    ops = [comm_func.P2POp(kind, t, peer, group) for kind, t, peer in zip(kinds, tensors, peers)]
    return comm_func._batch(ops, what)


class BatchISendIRecv(_CommOp):
    """`ops.BatchISendIRecv(op_types, remote_ranks, receive_shapes=None, receive_dtypes=None, group)(input_x)`:
    the "isend"s of `op_types` send the tensors of `input_x` in order, the "irecv"s receive tensors of
    `receive_shapes`/`receive_dtypes` in order, each with the `group` rank of `remote_ranks` at its position.
    The result holds, per position, the tensor received, or a float32 scalar 0 for a send."""

    name = "BatchISendIRecv"

    def __init__(self, op_types, remote_ranks, receive_shapes=None, receive_dtypes=None,
                 group: str = _WORLD) -> None:
        receive_shapes = () if receive_shapes is None else receive_shapes
        receive_dtypes = () if receive_dtypes is None else receive_dtypes
        for arg, value in (("receive_shapes", receive_shapes), ("receive_dtypes", receive_dtypes),
                           ("op_types", op_types), ("remote_ranks", remote_ranks)):
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"{self.name}: {arg} must be a tuple or list, got {type(value).__name__}")
        if len(receive_shapes) != len(receive_dtypes):
            raise ValueError(f"{self.name}: receive_shapes ({len(receive_shapes)}) and receive_dtypes "
                             f"({len(receive_dtypes)}) must have the same length")
        if len(op_types) != len(remote_ranks):
            raise ValueError(f"{self.name}: op_types ({len(op_types)}) and remote_ranks ({len(remote_ranks)}) must "
                             f"have the same length")
        bad = [o for o in op_types if o not in ("isend", "irecv")]
        if bad:
            raise ValueError(f"{self.name}: op_types must hold 'isend' or 'irecv', got {bad[0]!r}")
        if list(op_types).count("irecv") != len(receive_shapes):
            raise ValueError(f"{self.name}: op_types holds {list(op_types).count('irecv')} 'irecv', but "
                             f"receive_shapes gives {len(receive_shapes)} shapes")
        self.op_types, self.remote_ranks = tuple(op_types), tuple(remote_ranks)
        self.receive_shapes = tuple(_shape(s, self.name, "receive_shapes entry") for s in receive_shapes)
        self.receive_dtypes = tuple(receive_dtypes)
        self._np_dtypes = [_dtype(d, self.name, "receive_dtypes entry") for d in receive_dtypes]
        self.group = _WORLD if group is None else group

    def __call__(self, input_x) -> tuple:
        if isinstance(input_x, Tensor):
            input_x = (input_x,)
        sends = [t for t in (input_x or ()) if t is not None]
        if not isinstance(input_x, (tuple, list)) or not all(isinstance(t, Tensor) for t in sends):
            raise TypeError(f"{self.name}: input_x must be a tuple of Tensors, got {type(input_x).__name__}")
        if len(sends) != self.op_types.count("isend"):
            raise CommunicationError(f"{self.name}: op_types holds {self.op_types.count('isend')} 'isend', but "
                                     f"input_x gives {len(sends)} tensors")
        group = _group(self.group, self.name)
        peers = [_world_peer(r, group, self.name, "remote_ranks entry") for r in self.remote_ranks]
        sent, got, tensors = iter(sends), iter(zip(self.receive_shapes, self.receive_dtypes)), []
        for kind in self.op_types:
            if kind == "isend":
                tensors.append(next(sent))
            else:
                shape, dtype = next(got)
                tensors.append(F.zeros(shape, mstype.to_msx(dtype)))
        return tuple(_batch(list(self.op_types), tensors, peers, group, self.name))


class NeighborExchange(_CommOp):
    """`ops.NeighborExchange(send_rank_ids, recv_rank_ids, recv_shapes, send_shapes, recv_type, group)(input_x)`:
    tensor i of `input_x` (of `send_shapes[i]`) goes to `group` rank `send_rank_ids[i]`; the result holds, per
    `recv_rank_ids[k]`, the tensor of `recv_shapes[k]` and `recv_type` that rank sent here."""

    name = "NeighborExchange"

    def __init__(self, send_rank_ids, recv_rank_ids, recv_shapes, send_shapes, recv_type,
                 group: str = _WORLD) -> None:
        for arg, value in (("send_rank_ids", send_rank_ids), ("recv_rank_ids", recv_rank_ids),
                           ("recv_shapes", recv_shapes), ("send_shapes", send_shapes)):
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"{self.name}: {arg} must be a list or tuple, got {type(value).__name__}")
        if len(send_rank_ids) != len(send_shapes) or len(recv_rank_ids) != len(recv_shapes):
            raise ValueError(f"{self.name}: send_rank_ids ({len(send_rank_ids)}) / send_shapes ({len(send_shapes)}) "
                             f"and recv_rank_ids ({len(recv_rank_ids)}) / recv_shapes ({len(recv_shapes)}) must "
                             f"pair up")
        self.send_rank_ids, self.recv_rank_ids = list(send_rank_ids), list(recv_rank_ids)
        self.send_shapes = tuple(_shape(s, self.name, "send_shapes entry") for s in send_shapes)
        self.recv_shapes = tuple(_shape(s, self.name, "recv_shapes entry") for s in recv_shapes)
        self.recv_type, self._np_dtype = recv_type, _dtype(recv_type, self.name, "recv_type")
        self.group = group

    def __call__(self, input_x) -> tuple:
        if isinstance(input_x, Tensor):
            input_x = (input_x,)
        if not isinstance(input_x, (tuple, list)) or len(input_x) != len(self.send_rank_ids):
            raise ValueError(f"{self.name}: input_x must be a tuple of {len(self.send_rank_ids)} Tensors (one per "
                             f"send_rank_ids entry)")
        for i, (t, shape) in enumerate(zip(input_x, self.send_shapes)):
            if tuple(_tensor(t, self.name, f"input_x[{i}]").shape) != shape:
                raise ValueError(f"{self.name}: input_x[{i}] has shape {tuple(t.shape)}, send_shapes[{i}] is {shape}")
        group = _group(self.group, self.name)
        peers = [_world_peer(r, group, self.name, "send_rank_ids entry") for r in self.send_rank_ids] + \
                [_world_peer(r, group, self.name, "recv_rank_ids entry") for r in self.recv_rank_ids]
        likes = [F.zeros(s, mstype.to_msx(self.recv_type)) for s in self.recv_shapes]
        kinds = ["isend"] * len(input_x) + ["irecv"] * len(likes)
        if not kinds:
            return ()
        out = _batch(kinds, list(input_x) + likes, peers, group, self.name)
        return tuple(out[len(input_x):])


# the 8 directions of NeighborExchangeV2, in MindSpore's order, as (rows, columns) of the tensor's H x W plane:
# -1 the first lens rows/columns (top/left), 0 all of them, 1 the last (bottom/right)
_DIRECTIONS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
_TOP, _BOTTOM, _LEFT, _RIGHT = range(4)   # the order of send_lens / recv_lens


def _ids(ids, size: int, what: str, arg: str) -> list[int]:
    if not isinstance(ids, list) or len(ids) != 8 or not all(_is_int(r) for r in ids):
        raise TypeError(f"{what}: {arg} must be a list of 8 ints (one per direction), got {ids!r}")
    for r in ids:
        if r < -1 or r >= size:
            raise ValueError(f"{what}: {arg} entry {r} must be -1 (no neighbour) or a rank in [0, {size})")
    used = [r for r in ids if r != -1]
    if len(set(used)) != len(used):
        raise ValueError(f"{what}: {arg} {ids} has repeated values")
    return list(ids)


def _lens(lens, what: str, arg: str) -> list[int]:
    if not isinstance(lens, list) or len(lens) != 4 or not all(_is_int(v) for v in lens):
        raise TypeError(f"{what}: {arg} must be a list of 4 ints [top, bottom, left, right], got {lens!r}")
    if any(v < 0 for v in lens):
        raise ValueError(f"{what}: {arg} {lens} must be non-negative")
    return list(lens)


class NeighborExchangeV2(_CommOp):
    """`ops.NeighborExchangeV2(send_rank_ids, send_lens, recv_rank_ids, recv_lens, data_format, group)(x)`: the
    halo exchange of an NCHW `x`. Direction d (top, top_right, right, bottom_right, bottom, bottom_left, left,
    top_left) sends `x`'s edge of `send_lens` rows/columns ([top, bottom, left, right]) to `send_rank_ids[d]`;
    the result is `x` padded by `recv_lens`, each halo filled with what `recv_rank_ids[d]` sent, zeros where no
    rank (-1) is named: shape (N, C, H + top + bottom, W + left + right)."""

    name = "NeighborExchangeV2"

    def __init__(self, send_rank_ids, send_lens, recv_rank_ids, recv_lens, data_format,
                 group: str = _WORLD) -> None:
        self.group = _group(group, self.name)
        self.rank_size = len(comm_func._members(self.group))
        self.send_rank_ids = _ids(send_rank_ids, self.rank_size, self.name, "send_rank_ids")
        self.recv_rank_ids = _ids(recv_rank_ids, self.rank_size, self.name, "recv_rank_ids")
        self.send_lens, self.recv_lens = _lens(send_lens, self.name, "send_lens"), _lens(recv_lens, self.name,
                                                                                         "recv_lens")
        if data_format != "NCHW":
            raise ValueError(f"{self.name}: data_format must be 'NCHW', got {data_format!r}")
        self.format = data_format

    @staticmethod
    def _span(side: int, size: int, lens_before: int, lens_after: int) -> slice:
        return slice(0, lens_before) if side < 0 else slice(size - lens_after, size) if side > 0 else slice(0, size)

    def __call__(self, input_x) -> Tensor:
        x = _tensor(input_x, self.name)
        if len(x.shape) != 4:
            raise ValueError(f"{self.name}: input_x must be NCHW (4-D), got shape {tuple(x.shape)}")
        n, c, h, w = x.shape
        st, sb, sl, sr = self.send_lens
        rt, rb, rl, rr = self.recv_lens
        if st + sb > h or sl + sr > w:
            raise ValueError(f"{self.name}: send_lens {self.send_lens} exceed the input's H x W ({h} x {w})")
        kinds, tensors, peers, where = [], [], [], []
        for d, (rows, cols) in enumerate(_DIRECTIONS):
            if self.send_rank_ids[d] != -1:
                piece = x[:, :, self._span(rows, h, st, sb), self._span(cols, w, sl, sr)]
                kinds.append("isend")
                tensors.append(piece)
                peers.append(_world_peer(self.send_rank_ids[d], self.group, self.name, "send_rank_ids entry"))
        for d, (rows, cols) in enumerate(_DIRECTIONS):
            if self.recv_rank_ids[d] != -1:
                shape = (n, c, {-1: rt, 0: h, 1: rb}[rows], {-1: rl, 0: w, 1: rr}[cols])
                kinds.append("irecv")
                tensors.append(F.zeros(shape, x.dtype))
                peers.append(_world_peer(self.recv_rank_ids[d], self.group, self.name, "recv_rank_ids entry"))
                where.append((len(kinds) - 1, rows, cols))
        got = _batch(kinds, tensors, peers, self.group, self.name) if kinds else []
        cells = {(rows, cols): got[i] for i, rows, cols in where}
        heights, widths = {-1: rt, 0: h, 1: rb}, {-1: rl, 0: w, 1: rr}
        bands = []
        for rows in (-1, 0, 1):
            band = [x if (rows, cols) == (0, 0) else
                    cells.get((rows, cols), F.zeros((n, c, heights[rows], widths[cols]), x.dtype))
                    for cols in (-1, 0, 1)]
            bands.append(F.concat(band, 3))
        return F.concat(bands, 2)


for _cls in (Send, Receive, BatchISendIRecv, NeighborExchange, NeighborExchangeV2):
    SURFACE.add("cls", _cls.__name__, _cls)
