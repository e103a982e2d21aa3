"""`msx.backends`: the backend registry. A backend turns a Graph into something that runs.

Built in: XLA "cpu", "gpu", "tpu" (each where jax has such a device) and the
simulated Ascend "ascend". "ms_backend" (MindSpore's name) is the backend for
the current `device_target` ("CPU" -> "cpu", "GPU" -> "gpu", "TPU" -> "tpu",
"Ascend" -> the simulated "ascend").
"""
from __future__ import annotations

from ..context import get_context
from ..errors import BackendUnavailableError
from ..passes.registry import set_backend_directory
from .ascend_sim import AscendSim, ProfileReport
from .base import BackendBase, BuildConfig
from .xla import XlaBackend

_BACKENDS: dict[str, BackendBase] = {}
_DEVICE_TARGET = {"CPU": "cpu", "GPU": "gpu", "TPU": "tpu", "Ascend": "ascend"}


def register_custom_backend(name: str, backend: BackendBase) -> None:
    """Make `backend` available as `jit(backend=name)`; registering a name again replaces it."""
    if not isinstance(name, str) or not name or name == "ms_backend":
        raise ValueError(f"register_custom_backend: the name must be a non-empty str other than 'ms_backend', "
                         f"got {name!r}")
    if not isinstance(backend, BackendBase):
        raise TypeError(f"register_custom_backend: {name!r} must be a BackendBase instance, got {type(backend).__name__}")
    if backend.name in (None, BackendBase.name):  # a backend that did not name itself takes the registered name
        backend.name = name
    _BACKENDS[name] = backend


for _name, _backend in (("cpu", XlaBackend("cpu")), ("gpu", XlaBackend("gpu")), ("tpu", XlaBackend("tpu")),
                        ("ascend", AscendSim())):
    register_custom_backend(_name, _backend)


def get_backend(name: str | None = None) -> BackendBase:
    """The backend called `name`; None or "ms_backend" means the one for the current `device_target`.

    Raises `BackendUnavailableError` (a ValueError) for an unknown name or a backend whose device this
    machine lacks, listing the available backends.
    """
    asked = name
    if name is None or name == "ms_backend":
        target = get_context("device_target")
        name = _DEVICE_TARGET[target]
        asked = f"ms_backend (device_target={target!r} -> {name!r})"
    backend = _BACKENDS.get(name)
    if backend is None:
        raise BackendUnavailableError(f"unknown backend {name!r}; available: {_available_text()}")
    if not backend.available():
        raise BackendUnavailableError(f"backend {asked if asked != name else repr(name)} is not available on this "
                                      f"machine ({backend!r}); available: {_available_text()}")
    return backend


def list_backends(include_unavailable: bool = False) -> list[str]:
    """The names `jit(backend=...)` accepts here (besides "ms_backend"): registered backends whose device is present."""
    return sorted(n for n, b in _BACKENDS.items() if include_unavailable or b.available())


def _available_text() -> str:
    return f"{list_backends()} (and 'ms_backend', the backend for device_target)"


set_backend_directory(get_backend, lambda: list_backends(include_unavailable=True))  # for the pass registry

__all__ = ["AscendSim", "BackendBase", "BuildConfig", "ProfileReport", "XlaBackend", "get_backend", "list_backends",
           "register_custom_backend"]
