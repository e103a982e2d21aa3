"""`msx.backends`: the backend registry. A backend turns a Graph into something that runs."""
from __future__ import annotations

from ..context import get_context
from ..errors import BackendError
from .base import BackendBase, BuildConfig
from .xla import XlaBackend

_BACKENDS: dict[str, BackendBase] = {"cpu": XlaBackend("cpu"), "gpu": XlaBackend("gpu"), "tpu": XlaBackend("tpu")}
_DEVICE_TARGET = {"CPU": "cpu", "GPU": "gpu", "TPU": "tpu"}


def register_custom_backend(name: str, backend: BackendBase) -> None:
    """Make `backend` available as `jit(backend=name)`."""
    if not isinstance(backend, BackendBase):
        raise TypeError(f"register_custom_backend: {name!r} must be a BackendBase instance, got {type(backend).__name__}")
    _BACKENDS[name] = backend


def get_backend(name: str | None = None) -> BackendBase:
    """The backend called `name`; None or "ms_backend" means the default for `device_target`."""
    if name is None or name == "ms_backend":
        target = get_context("device_target")
        name = _DEVICE_TARGET.get(target)
        if name is None:
            raise BackendError(f"no backend for device_target={target!r} yet; available: {list_backends()}")
    try:
        return _BACKENDS[name]
    except KeyError:
        raise BackendError(f"unknown backend {name!r}; available: {list_backends()}") from None


def list_backends() -> list[str]:
    return sorted(_BACKENDS)


__all__ = ["BackendBase", "BuildConfig", "get_backend", "list_backends", "register_custom_backend"]
