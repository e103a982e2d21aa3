"""Sizes checked before XLA is asked for memory.

XLA aborts the whole process (a C++ `BadStatusOr` access) when a shape's element count overflows int64, and on
CPU a request larger than the machine's memory either fails with a raw `RESOURCE_EXHAUSTED` or gets the
process killed. Creation ops check the shapes they are given here, and backends check a graph's values before
compiling it, so the user gets an msx error naming the op, the shape and the sizes instead.
"""
from __future__ import annotations

import functools
import os
import re
from typing import Any, Callable

import jax
import numpy as np

from .errors import OpError, OpMemoryError

_INT64_MAX = 2 ** 63 - 1


def _gib(n: int) -> str:
    return f"{n / 2 ** 30:.3g} GiB"


@functools.lru_cache(maxsize=None)
def device_memory(platform: str = "cpu") -> int:
    """Bytes one buffer may take on `platform`: the device's memory limit, or the host's RAM for CPU."""
    if platform != "cpu":
        try:
            stats = jax.local_devices(backend=platform)[0].memory_stats() or {}
            if stats.get("bytes_limit"):
                return int(stats["bytes_limit"])
        except (RuntimeError, IndexError):
            pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return _INT64_MAX


def _np_dtype(dtype: Any) -> np.dtype:
    """A numpy dtype, an msx `Type` (its `np_dtype`; this layer sits below `msx.dtype`) or a jax dtype."""
    return np.dtype(getattr(dtype, "np_dtype", dtype))


def nbytes(shape: tuple, dtype: Any) -> int:
    """The bytes of a dense tensor of `shape` and `dtype` (exact: Python ints never overflow)."""
    count = 1
    for d in shape:
        count *= int(d)
    return count * _np_dtype(dtype).itemsize


def too_large(shape: tuple, dtype: Any, platform: str = "cpu") -> str | None:
    """Why a tensor of `shape`/`dtype` cannot exist on `platform`, or None when it fits."""
    dtype = _np_dtype(dtype)
    size = nbytes(shape, dtype)
    count = size // max(dtype.itemsize, 1)
    if count > _INT64_MAX:
        return (f"a tensor of shape {tuple(shape)} has {count} elements, more than a tensor can hold "
                f"(at most 2**63-1)")
    limit = device_memory(platform)
    if size > limit:
        return (f"a {dtype.name} tensor of shape {tuple(shape)} needs {_gib(size)}, more than the "
                f"{_gib(limit)} this {platform} device has (out of memory)")
    return None


def check_size(op: str, shape: tuple, dtype: Any, platform: str = "cpu") -> None:
    """Raise `OpMemoryError` naming `op` when a tensor of `shape`/`dtype` cannot be allocated, `OpError` (a
    ValueError, as MindSpore raises) when `shape` has a negative dimension (XLA would fail with a raw MLIRError)."""
    for i, d in enumerate(shape):
        if d < 0:
            raise OpError(f"{op}: shape {tuple(shape)} has a negative dimension ({d} at {i}); dimensions must be >= 0")
    reason = too_large(shape, dtype, platform)
    if reason is not None:
        raise OpMemoryError(f"{op}: {reason}")


def oom_error(op: str, exc: BaseException, describe: Callable[[], str]) -> OpMemoryError | None:
    """An msx error for XLA's RESOURCE_EXHAUSTED (out of memory) raised by `op`, or None for another error."""
    text = str(exc)
    if "RESOURCE_EXHAUSTED" not in text and "Out of memory" not in text:
        return None
    asked = re.search(r"(\d+) bytes", text)
    need = f" (it asked for {_gib(int(asked.group(1)))})" if asked else ""
    return OpMemoryError(f"{op}: out of memory on the device while computing {describe()}{need}; "
                         f"use smaller shapes or a smaller batch")
