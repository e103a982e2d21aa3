"""The object collectives of `mint.distributed` (`all_gather_object`, `broadcast_object_list`, `send_object_list`,
...): split from `msx.ops.comm_func` by concern. Objects travel as tagged JSON bytes (`comm_objects`, never pickle)
over the same tensor collectives and point-to-point ops, so they need no transport of their own."""
from __future__ import annotations

from typing import Any

import jax
import numpy as np

from ..errors import CommunicationError
from ..ignored_args import not_honoured
from ..recording import recording
from ..tensor import Tensor
from . import comm_objects, comm_ops
from .comm_func import _group, _me, _members, _peer, _rank_arg, _recv, _send

__all__ = ["all_gather_object", "gather_object", "broadcast_object_list", "scatter_object_list", "send_object_list",
           "recv_object_list"]


# ----------------------------------------------------------------- Python objects (tagged JSON, never pickle)
def _objects_eagerly(what: str) -> None:
    if recording.recorder is not None:
        raise CommunicationError(f"{what} runs in PyNative mode only (as in MindSpore): Python objects are not "
                                 f"values of a compiled graph")


def _bytes_tensor(data: bytes, size: int) -> Tensor:
    buf = np.zeros(size, np.uint8)
    buf[:len(data)] = np.frombuffer(data, np.uint8)
    return Tensor(buf)


def _gather_bytes(data: bytes, group: str) -> list[bytes]:
    """Every member's bytes, in group-rank order (lengths first, then the payloads padded to the longest)."""
    n = len(_members(group))
    lengths = comm_ops.AllGather(group)(Tensor(np.array([len(data)], np.int64))).asnumpy()
    top = max(int(lengths.max()), 1)
    rows = comm_ops.AllGather(group)(_bytes_tensor(data, top).reshape((1, top))).asnumpy()
    return [rows[r, :int(lengths[r])].tobytes() for r in range(n)]


def _broadcast_bytes(data: bytes | None, src: int, group: str) -> bytes:
    length = comm_ops.Broadcast(src, group)((Tensor(np.array([len(data or b"")], np.int64)),))[0]
    size = int(length.asnumpy()[0])
    got = comm_ops.Broadcast(src, group)((_bytes_tensor(data or b"", max(size, 1)),))[0]
    return got.asnumpy()[:size].tobytes()


def all_gather_object(object_list: list, obj: Any, group: str | None = None) -> None:
    """`object_list[r]` becomes group rank r's `obj`, on every rank."""
    what = "all_gather_object"
    _objects_eagerly(what)
    group = _group(group, what)
    n = len(_members(group))
    if not isinstance(object_list, list) or len(object_list) != n:
        raise TypeError(f"{what}: object_list must be a list of {n} entries (the group size)")
    parts = _gather_bytes(comm_objects.encode(obj, what), group)
    object_list[:] = [comm_objects.decode(p, what) for p in parts]


def gather_object(obj: Any, object_gather_list: list | None = None, dst: int = 0, group: str | None = None) -> None:
    """On world rank `dst`, `object_gather_list[r]` becomes group rank r's `obj`."""
    what = "gather_object"
    _objects_eagerly(what)
    group = _group(group, what)
    _rank_arg(dst, what, "dst", group)
    n = len(_members(group))
    parts = _gather_bytes(comm_objects.encode(obj, what), group)
    if jax.process_index() == dst:
        if not isinstance(object_gather_list, list) or len(object_gather_list) != n:
            raise TypeError(f"{what}: on dst, object_gather_list must be a list of {n} entries (the group size)")
        object_gather_list[:] = [comm_objects.decode(p, what) for p in parts]


def broadcast_object_list(object_list: list, src: int = 0, group: str | None = None, device=None) -> None:
    """Every rank's `object_list` becomes world rank `src`'s (the lists have one length on every rank)."""
    what = "broadcast_object_list"
    _objects_eagerly(what)
    group = _group(group, what)
    _rank_arg(src, what, "src", group)
    not_honoured(what, "device", device, None, "the objects travel as bytes on the group's devices")
    if not isinstance(object_list, list):
        raise TypeError(f"{what}: object_list must be a list, got {type(object_list).__name__}")
    mine = comm_objects.encode(list(object_list), what) if jax.process_index() == src else None
    got = comm_objects.decode(_broadcast_bytes(mine, src, group), what)
    if len(got) != len(object_list):
        raise ValueError(f"{what}: rank {src} sent {len(got)} objects, this rank's object_list has "
                         f"{len(object_list)}")
    object_list[:] = got


def scatter_object_list(scatter_object_output_list: list, scatter_object_input_list: list | None,
                        src: int = 0, group: str | None = None) -> None:
    """Group rank r's `scatter_object_output_list[0]` becomes `scatter_object_input_list[r]` of world rank `src`."""
    what = "scatter_object_list"
    _objects_eagerly(what)
    group = _group(group, what)
    _rank_arg(src, what, "src", group)
    n, me = len(_members(group)), _me(group, what)
    if not isinstance(scatter_object_output_list, list) or not scatter_object_output_list:
        raise TypeError(f"{what}: scatter_object_output_list must be a non-empty list")
    mine = None
    if jax.process_index() == src:
        if not isinstance(scatter_object_input_list, list) or len(scatter_object_input_list) != n:
            raise TypeError(f"{what}: on src, scatter_object_input_list must be a list of {n} objects (the group "
                            f"size)")
        mine = comm_objects.encode(list(scatter_object_input_list), what)
    scatter_object_output_list[0] = comm_objects.decode(_broadcast_bytes(mine, src, group), what)[me]


def send_object_list(object_list: list, dst: int, group: str | None = None, device=None) -> None:
    """Send the objects of `object_list` to world rank `dst` (its `recv_object_list` has a list as long)."""
    what = "send_object_list"
    _objects_eagerly(what)
    group = _group(group, what)
    dst = _peer(dst, group, what, "dst")
    not_honoured(what, "device", device, None, "the objects travel as bytes")
    if not isinstance(object_list, list):
        raise TypeError(f"{what}: object_list must be a list, got {type(object_list).__name__}")
    parts = [comm_objects.encode(o, what) for o in object_list]
    _send(Tensor(np.array([len(p) for p in parts], np.int64)), dst, group, 0)
    data = b"".join(parts)
    _send(_bytes_tensor(data, len(data)), dst, group, 0)


def recv_object_list(object_list: list, src: int = 0, group: str | None = None, device=None) -> int:
    """Fill `object_list` with the objects world rank `src` sent with send_object_list; returns 0."""
    what = "recv_object_list"
    _objects_eagerly(what)
    group = _group(group, what)
    src = _peer(src, group, what, "src")
    not_honoured(what, "device", device, None, "the objects travel as bytes")
    if not isinstance(object_list, list):
        raise TypeError(f"{what}: object_list must be a list, got {type(object_list).__name__}")
    sizes = _recv(Tensor(np.zeros(len(object_list), np.int64)), src, group, 0).asnumpy()
    data = _recv(Tensor(np.zeros(int(sizes.sum()), np.uint8)), src, group, 0).asnumpy().tobytes()
    starts = np.cumsum([0, *sizes])
    object_list[:] = [comm_objects.decode(data[int(starts[i]):int(starts[i + 1])], what) for i in range(len(sizes))]
    return 0
