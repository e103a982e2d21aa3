"""`TCPStore`: MindSpore's (torch's) key-value store as a thin wrapper over jax's distributed key-value store.

jax's distributed runtime (the coordination service behind `jax.distributed`) has a key-value store with
`key_value_set`, `blocking_key_value_get`, `key_value_increment` and `key_value_delete`, which is exactly the
store's `set`/`get`/`add`/`delete_key`; jax offers no other. In a job started by msrun the store is the job's
own (jax's coordinator at MS_SCHED_HOST:MS_SCHED_PORT), whatever host and port are given: every rank sees the
same keys. Outside a job, a one-process store (`world_size` None or 1) starts its own coordination service at
`host_name:port` (`is_master`) and connects to it. A store of several processes outside msrun is refused:
jax's store clients need a node id, which `TCPStore` does not take.
"""
from __future__ import annotations

import atexit
import datetime

from jax._src import distributed as _distributed
from jax._src.lib import _jax

from ..errors import CommunicationError

_PREFIX = "msx/store/"
_own: list = []  # (client, service) of stores started here, shut down client first at exit


def _shutdown() -> None:
    for client, service in reversed(_own):
        client.shutdown()
        if service is not None:
            service.shutdown()
    _own.clear()


atexit.register(_shutdown)


class TCPStore:
    """`TCPStore(host_name, port, world_size=None, is_master=False, timeout=timedelta(seconds=300), ...)`."""

    def __init__(self, host_name: str, port: int, world_size: int | None = None, is_master: bool = False,
                 timeout: datetime.timedelta = datetime.timedelta(seconds=300), wait_for_workers: bool = True,
                 multi_tenant: bool = False, master_listen_fd=None, use_libuv: bool = True) -> None:
        if not isinstance(host_name, str) or not isinstance(port, int):
            raise TypeError(f"TCPStore: host_name must be a str and port an int, got {host_name!r}, {port!r}")
        if not isinstance(timeout, datetime.timedelta):
            raise TypeError(f"TCPStore: timeout must be a datetime.timedelta, got {type(timeout).__name__}")
        self._timeout_ms = max(1, int(timeout.total_seconds() * 1000))
        client = _distributed.global_state.client
        if client is None:
            if world_size not in (None, 1):
                raise CommunicationError(f"TCPStore: a store of {world_size} processes outside an msrun job: msx's "
                                         f"store is jax's distributed key-value store, whose clients need a node "
                                         f"id; start the job with msrun (the job's store is then shared)")
            address = f"{host_name}:{port}"
            service = _jax.get_distributed_runtime_service(address, 1) if is_master else None
            client = _jax.get_distributed_runtime_client(address, 0, init_timeout=max(1, self._timeout_ms // 1000))
            client.connect()
            _own.append((client, service))
        self._client = client

    @staticmethod
    def _key(key: str, what: str) -> str:
        if not isinstance(key, str):
            raise TypeError(f"TCPStore.{what}: key must be a str, got {type(key).__name__}")
        return _PREFIX + key

    def set(self, key: str, value: str | bytes) -> None:
        """Store `value` under `key` (overwriting)."""
        if not isinstance(value, (str, bytes)):
            raise TypeError(f"TCPStore.set: value must be a str or bytes, got {type(value).__name__}")
        name = self._key(key, "set")
        self._client.key_value_delete(name)
        self._client.key_value_set_bytes(name, value.encode() if isinstance(value, str) else value)

    def get(self, key: str) -> bytes:
        """The value of `key`, waiting up to the store's timeout for it to be set."""
        name = self._key(key, "get")
        try:
            return self._client.blocking_key_value_get_bytes(name, self._timeout_ms)
        except Exception as exc:
            raise CommunicationError(f"TCPStore.get: key {key!r} was not set within {self._timeout_ms / 1000} s "
                                     f"({exc})") from exc

    def add(self, key: str, amount: int) -> int:
        """Add `amount` to the counter `key` (created at 0); its new value."""
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise TypeError(f"TCPStore.add: amount must be an int, got {type(amount).__name__}")
        return int(self._client.key_value_increment(self._key(key, "add"), amount))

    def delete_key(self, key: str) -> bool:
        """Remove `key`; True if it was there."""
        name = self._key(key, "delete_key")
        try:
            self._client.key_value_try_get_bytes(name)
        except Exception:
            return False
        self._client.key_value_delete(name)
        return True
