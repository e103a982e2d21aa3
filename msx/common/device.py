"""MindSpore's device-manager and runtime helpers (`ms.set_device`, `ms.synchronize`, `ms.memory_allocated`, ...)
with their meaning on XLA.

msx's arrays live on jax devices: the device `set_context(device_target=..., device_id=...)` picks. Memory
statistics come from the device's allocator where jax reports them (GPU/TPU); on CPU, where XLA keeps no
allocator statistics, the memory held by live arrays is counted and the peak/reset calls say they cannot work.
"""
from __future__ import annotations

import os
import re
import warnings
import sys
from collections import namedtuple
from typing import Any

import jax
import numpy as np
import gc

from .. import context
from ..tensor import Tensor
from ..release import __version__

DeviceInfo = namedtuple("DeviceInfo", ["device_target", "device_id"])


def set_device(device_target: str, device_id: int | None = None) -> None:
    """Pick the device eager ops and graphs run on (`set_context(device_target=..., device_id=...)`)."""
    if not isinstance(device_target, str):
        raise TypeError(f"set_device: device_target must be a str, got {type(device_target).__name__}")
    kwargs: dict[str, Any] = {"device_target": device_target}
    if device_id is not None:
        kwargs["device_id"] = device_id
    context.set_context(**kwargs)


def get_current_device() -> DeviceInfo:
    """(device_target, device_id) of the current context, as MindSpore's `DeviceInfo`."""
    return DeviceInfo(context.get_context("device_target"), context.get_context("device_id"))


def set_deterministic(deterministic: bool) -> None:
    """Ask for bit-reproducible results (`set_context(deterministic="ON")`). XLA's CPU kernels are
    deterministic already; on GPU XLA's deterministic-ops flag is set for backends not yet started."""
    if not isinstance(deterministic, bool):
        raise TypeError(f"set_deterministic: deterministic must be a bool, got {type(deterministic).__name__}")
    if deterministic and "--xla_gpu_deterministic_ops" not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_gpu_deterministic_ops=true").strip()
    context.set_context(deterministic="ON" if deterministic else "OFF")


def set_recursion_limit(recursion_limit: int = 1000) -> None:
    """The depth limit of nested calls a graph capture follows (`set_context(max_call_depth=...)`)."""
    if not isinstance(recursion_limit, int) or isinstance(recursion_limit, bool) or recursion_limit <= 0:
        raise ValueError(f"set_recursion_limit: recursion_limit must be a positive int, got {recursion_limit!r}")
    context.set_context(max_call_depth=recursion_limit)


def _device() -> jax.Device:
    """The device eager ops run on: the one `set_context(device_id=...)` picked, else jax's first."""
    return jax.config.jax_default_device or jax.devices()[0]


def synchronize() -> None:
    """Wait until every computation queued on the devices has finished (MindSpore's `synchronize`)."""
    for a in jax.live_arrays():
        a.block_until_ready()


def _allocator_stats() -> dict | None:
    stats = _device().memory_stats()
    return stats or None


def _live_bytes() -> int:
    return int(sum(a.nbytes for a in jax.live_arrays()))


def memory_allocated() -> int:
    """Bytes held by tensors now: the allocator's count where the device keeps one, else the live arrays'."""
    stats = _allocator_stats()
    return int(stats.get("bytes_in_use", 0)) if stats else _live_bytes()


def memory_reserved() -> int:
    """Bytes the device allocator has reserved (on CPU: what live arrays hold; XLA reserves no pool there)."""
    stats = _allocator_stats()
    if stats:
        return int(stats.get("bytes_reserved", stats.get("pool_bytes", stats.get("bytes_in_use", 0))))
    return _live_bytes()


def _peak(what: str, key: str) -> int:
    stats = _allocator_stats()
    if not stats or key not in stats:
        raise RuntimeError(f"{what}: the {_device().platform} device keeps no allocator peak statistics under XLA "
                           f"(GPU and TPU devices do); memory_allocated() gives the current bytes")
    return int(stats[key])


def max_memory_allocated() -> int:
    """Peak bytes in use since the process started or `reset_max_memory_allocated` (the allocator's count)."""
    return _peak_since_reset("max_memory_allocated", "peak_bytes_in_use")


def max_memory_reserved() -> int:
    """Peak bytes reserved by the device allocator (XLA reports the peak in use), since a reset if any."""
    return _peak_since_reset("max_memory_reserved", "peak_bytes_in_use")


def memory_stats() -> dict:
    """MindSpore's memory statistics dict; peak entries are None where the device keeps no peak."""
    stats = _allocator_stats() or {}
    allocated, reserved = memory_allocated(), memory_reserved()
    peak = stats.get("peak_bytes_in_use")
    return {"total_reserved_memory": reserved, "total_allocated_memory": allocated,
            "total_idle_memory": max(reserved - allocated, 0), "total_eager_free_memory": 0,
            "max_reserved_memory": peak, "max_allocated_memory": peak}


def memory_summary() -> str:
    """A readable table of `memory_stats()`."""
    lines = ["|" + "=" * 48 + "|", f"|{'msx memory summary (' + _device().platform + ')':^48}|", "|" + "=" * 48 + "|"]
    for key, value in memory_stats().items():
        lines.append(f"| {key:<30}| {('n/a' if value is None else value):>15}|")
    return "\n".join(lines + ["|" + "=" * 48 + "|"])


def empty_cache() -> None:
    """Release cached memory: XLA frees an array's buffer when the array dies, so this drops jax's compiled
    caches' constants by collecting garbage; the allocator keeps no separate cache to empty."""
    gc.collect()


def set_cpu_affinity(enable_affinity: bool, affinity_cpu_list=None, module_to_cpu_dict=None,
                     bind_file=None) -> None:
    """Bind this process to CPU cores: `affinity_cpu_list` (e.g. `["0-3", "8"]`), or all cores when None."""
    if not isinstance(enable_affinity, bool):
        raise TypeError(f"set_cpu_affinity: enable_affinity must be a bool, got {type(enable_affinity).__name__}")
    if not hasattr(os, "sched_setaffinity"):
        raise RuntimeError(f"set_cpu_affinity: this platform ({sys.platform}) has no CPU affinity call")
    if module_to_cpu_dict is not None or bind_file is not None:
        raise ValueError("set_cpu_affinity: module_to_cpu_dict and bind_file bind MindSpore's runtime threads, "
                         "which msx does not have; give affinity_cpu_list")
    if not enable_affinity:
        return
    cpus = set(range(os.cpu_count() or 1))
    if affinity_cpu_list is not None:
        cpus = set()
        for item in affinity_cpu_list:
            lo, _, hi = str(item).partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
    os.sched_setaffinity(0, cpus)


def run_check() -> None:
    """Check the install by multiplying two tensors on the current device (MindSpore's message)."""
    print("msx version: ", __version__)
    a = Tensor(np.ones((3, 3), np.float32))
    out = (a * a).asnumpy()
    target = context.get_context("device_target")
    if np.array_equal(out, np.ones((3, 3), np.float32)):
        print(f"The result of multiplication calculation is correct, msx has been installed on platform "
              f"[{target}] successfully!")
    else:
        raise RuntimeError(f"run_check: 1 * 1 gave {out.ravel()[:3]} on {target}: the install is broken")


# The peak a reset starts from. XLA's allocator keeps one peak per process and has no call to reset it, so a
# reset remembers the peak it saw: while the allocator's peak stays there, the peak since the reset is not
# known exactly and the current bytes in use (a lower bound) stand for it; once use passes the old peak, the
# allocator's peak is exact again.
_PEAK_AT_RESET: dict[str, int] = {}


def _reset_peak(what: str) -> None:
    stats = _allocator_stats()
    if stats and "peak_bytes_in_use" in stats:
        _PEAK_AT_RESET[what] = int(stats["peak_bytes_in_use"])
    # no allocator statistics (XLA's CPU): there is no peak to reset, as MindSpore's CPU answers 0 before and after


def _peak_since_reset(what: str, key: str) -> int:
    peak = _peak(what, key)
    old = _PEAK_AT_RESET.get(what)
    if old is None or peak > old:
        return peak
    return int((_allocator_stats() or {}).get("bytes_in_use", 0))


def reset_max_memory_allocated() -> None:
    """Start the peak of bytes in use (`max_memory_allocated`) again from now."""
    _reset_peak("max_memory_allocated")


def reset_max_memory_reserved() -> None:
    """Start the peak of reserved bytes (`max_memory_reserved`) again from now."""
    _reset_peak("max_memory_reserved")


def reset_peak_memory_stats() -> None:
    """Start every peak statistic (`max_memory_allocated`, `max_memory_reserved`) again from now."""
    _reset_peak("max_memory_allocated")
    _reset_peak("max_memory_reserved")


_MEMORY_SET: list[bool] = []
_GB = re.compile(r"^(\d+(\.\d*)?|\.\d+)GB$")


def _check_gb(name: str, value: Any, zero_ok: bool = False) -> float:
    if not isinstance(value, str):
        raise TypeError(f"The parameter '{name}' must be {str}, but got {type(value)}")
    if not _GB.match(value):
        raise ValueError(f"The memory value should be in correct format! It must be a string ending with 'GB', "
                         f"in addition to that, it must contain only numbers or decimal points, such as \"5GB\" or "
                         f"\"3.5GB\", but got {value}.")
    if not zero_ok and float(value[:-2]) == 0:
        raise ValueError("The memory value should not be \"0GB\".")
    return float(value[:-2])


def set_memory(init_size: str = "2GB", increase_size: str = "2GB", max_size: str = "1024GB",
               optimize_level: str = "O0", huge_page_reserve_size: str = "0GB") -> None:
    """MindSpore's memory-pool settings, checked as MindSpore checks them and settable once per process. XLA
    sizes its own allocator, so the pool sizes have no effect here and say so once; `optimize_level` is kept
    as the context's `memory_optimize_level`."""
    if _MEMORY_SET:
        raise RuntimeError("The 'set_memory' can not be set repeatedly.")
    for name, value in (("init_size", init_size), ("increase_size", increase_size), ("max_size", max_size)):
        _check_gb(name, value)
    _check_gb("huge_page_reserve_size", huge_page_reserve_size, zero_ok=True)
    if optimize_level not in ("O0", "O1"):
        raise ValueError(f"The optimize_level must be one of ['O0', 'O1'], but got {optimize_level}.")
    _MEMORY_SET.append(True)
    if optimize_level != context.get_context("memory_optimize_level"):
        context.set_context(memory_optimize_level=optimize_level)  # stored; notes once that XLA has no such level
    if (init_size, increase_size, max_size, huge_page_reserve_size) != ("2GB", "2GB", "1024GB", "0GB"):
        warnings.warn("set_memory: the memory-pool sizes are accepted for MindSpore compatibility but have no "
                      "effect (XLA sizes its own allocator; on a GPU set XLA_PYTHON_CLIENT_MEM_FRACTION before "
                      "the first op)", UserWarning, stacklevel=2)


class DeviceCtx:
    """`with DeviceCtx("CPU", 0):` runs the block on that device, then returns to the device before it
    (MindSpore's device context; `set_device` for the block only)."""

    _VALID = ("CPU", "GPU", "Ascend", "meta")

    def __init__(self, name: str, device_id: int | None = None) -> None:
        self.name = name
        self.device_id = device_id
        self._saved: list = []

    def __enter__(self) -> "DeviceCtx":
        if self.name not in self._VALID:
            raise ValueError(f"For DeviceCtx, the name must be one of {list(self._VALID)}, but got {self.name}.")
        if self.device_id is not None and self.device_id < 0:
            raise ValueError("For DeviceCtx, the device_id must be greater than or equal to 0.")
        if self.name == "meta":
            raise ValueError("For DeviceCtx, msx has no 'meta' device (Tensors without storage); use "
                             "jax.eval_shape or a placeholder Tensor(shape=..., dtype=...) instead")
        if self.device_id is None:
            self.device_id = 0
        self._saved.append(get_current_device())
        set_device(self.name, self.device_id)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        info = self._saved.pop()
        set_device(info.device_target, info.device_id)
