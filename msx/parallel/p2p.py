"""Eager point-to-point transfers between ranks (`send`/`recv`) on jax's own transfer engine.

A collective program needs every member running it at once, in the same order, which point-to-point code
(`isend` then `recv` on both ranks, a blocking `send` paired with an `irecv`) does not give. jax 0.10's
`jax.experimental.transfer` does: each rank starts one `TransferServer` (its address published in jax's
distributed key-value store, `msx/p2p/address/<rank>`); a send schedules the array to be pulled
(`await_pull`, which does not wait for the receiver) and publishes a header (dtype and shape) under the
message's key; the receiver waits for the header, checks it against its tensor, and pulls the array from
the sender's server. A message is (src, dst, tag, n): the n-th send from src to dst with that tag pairs with
the n-th such recv, as in MPI and HCCL. Inside a compiled graph a transfer is `lax.ppermute` instead
(`msx.parallel.spmd.permute`).
"""
from __future__ import annotations

import collections
import hashlib
import json
import os
import socket
import threading

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import distributed as _distributed
from jax.experimental import transfer

from ..errors import CommunicationError

DEFAULT_TIMEOUT_S = 1836  # MindSpore's HCCL_EXEC_TIMEOUT default: how long a recv waits for its send
_lock = threading.Lock()
_server = None
_connections: dict[int, object] = {}
_sequence: collections.Counter = collections.Counter()  # (direction, peer, tag) -> messages so far
timeout_s = [int(os.environ.get("HCCL_EXEC_TIMEOUT", DEFAULT_TIMEOUT_S))]  # init_process_group(timeout=) sets it


def _client():
    client = _distributed.global_state.client
    if client is None:
        raise CommunicationError("point-to-point transfers need a job of several ranks started by msrun (jax's "
                                 "distributed runtime); this process is a one-process group")
    return client


def _host() -> str:
    """This node's address as the other ranks reach it: the interface that routes to the coordinator (no
    packet is sent: a UDP socket's `connect` only picks the route)."""
    coordinator = os.environ.get("MS_SCHED_HOST", "127.0.0.1")
    if coordinator in ("127.0.0.1", "localhost", "::1"):
        return "127.0.0.1"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect((coordinator, int(os.environ.get("MS_SCHED_PORT", "8118"))))
        return s.getsockname()[0]


def _start_server():
    global _server
    if _server is None:
        host = _host()
        _server = transfer.start_transfer_server(jax.local_devices()[0].client, f"{host}:0", [f"{host}:0"])
        _client().key_value_set(f"msx/p2p/address/{jax.process_index()}", _server.address())
    return _server


def _connection(peer: int):
    if peer not in _connections:
        address = _client().blocking_key_value_get(f"msx/p2p/address/{peer}", timeout_s[0] * 1000)
        _connections[peer] = _start_server().connect(address)
    return _connections[peer]


def _message(direction: str, src: int, dst: int, tag: int) -> tuple[str, int]:
    """The next message's header key and its transfer id on the sender's server."""
    peer = dst if direction == "send" else src
    with _lock:
        n = _sequence[(direction, peer, tag)]
        _sequence[(direction, peer, tag)] += 1
    key = f"msx/p2p/{src}/{dst}/{tag}/{n}"
    return key, int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little") >> 1


def _check_peer(peer: int, what: str) -> None:
    me, size = jax.process_index(), jax.process_count()
    if not isinstance(peer, int) or isinstance(peer, bool) or not 0 <= peer < size:
        raise CommunicationError(f"{what}: peer rank {peer!r} is not a rank of the world group of {size}")
    if peer == me:
        raise ValueError(f"{what}: the peer rank {peer} is this process's own rank (a rank cannot send to or "
                         f"receive from itself)")


def send(x: jax.Array, dst: int, tag: int = 0) -> None:
    """Hand `x` to world rank `dst` (returns at once: the receiver pulls it when it calls recv)."""
    _check_peer(dst, "send")
    key, uuid = _message("send", jax.process_index(), dst, tag)
    x = jax.device_put(x, jax.local_devices()[0])
    if x.size:  # an empty tensor is its header alone
        _start_server().await_pull(uuid, [x])
    _client().key_value_set(key, json.dumps({"dtype": str(x.dtype), "shape": list(x.shape)}))


def recv(shape: tuple, dtype, src: int, tag: int = 0) -> jax.Array:
    """The next array world rank `src` sent here with `tag`; it must have `shape` and `dtype` (MindSpore's
    rule: the receiving tensor names them)."""
    _check_peer(src, "recv")
    key, uuid = _message("recv", src, jax.process_index(), tag)
    client = _client()
    try:
        header = json.loads(client.blocking_key_value_get(key, timeout_s[0] * 1000))
    except Exception as exc:
        raise CommunicationError(f"recv: nothing arrived from rank {src} (tag {tag}) within {timeout_s[0]} s: "
                                 f"no matching send ({exc})") from exc
    client.key_value_delete(key)
    want = {"dtype": str(np.dtype(dtype)), "shape": list(shape)}
    if header != want:
        raise CommunicationError(f"recv: rank {src} sent a {header['dtype']} tensor of shape "
                                 f"{tuple(header['shape'])} (tag {tag}), but the receiving tensor is "
                                 f"{want['dtype']} of shape {tuple(shape)}: they must match")
    device = jax.local_devices()[0]
    if not int(np.prod(shape)):
        return jax.device_put(jnp.zeros(shape, dtype), device)
    struct = jax.ShapeDtypeStruct(tuple(shape), np.dtype(dtype), sharding=jax.sharding.SingleDeviceSharding(device))
    return jax.block_until_ready(_connection(src).pull(uuid, [struct])[0])
