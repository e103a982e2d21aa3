"""Float -> integer conversion with MindSpore 2.10's CPU answers, the same in eager, every jit level and mode.

XLA leaves out-of-range and NaN conversions to the backend (CPU saturates, other
paths wrap or give 0), so `Cast` would depend on where it runs. MindSpore's CPU
kernel is C++'s `static_cast` on x86, whose out-of-range results are fixed by
the instruction set; msx computes exactly those with ordinary jax ops:

- int32/int64: truncation toward zero; NaN, +-inf and values outside the range
  give the type's minimum (x86's "integer indefinite", `INT_MIN`).
- int8/int16/uint8/uint16: converted to int32 as above, then wrapped to the
  low bits (300.7 -> int8 44, -1.0 -> uint8 255, NaN -> 0).
- uint32: converted to int64, then wrapped (1e10 -> 1410065408).
- uint64: values below 2**63 go through int64 (negatives wrap); larger ones
  are offset by 2**63 first; NaN and -inf give 2**63, +inf gives 0.
- bool: `x != 0` (NaN is True).

Recorded from MindSpore in tests/golden_sem (see docs/ops.md, "Float to integer casts").
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

_VIA_INT32 = {np.dtype(t) for t in (np.int8, np.int16, np.uint8, np.uint16)}


def _signed(x, dtype: np.dtype):
    """x86 `cvttss2si`: truncate; NaN or out of range gives the minimum of `dtype` (int32 or int64)."""
    info = np.iinfo(dtype)
    x = x.astype(jnp.float64) if x.dtype == jnp.float64 else x.astype(jnp.float32)
    ok = (x >= float(info.min)) & (x < -float(info.min))  # both bounds are powers of two: exact in float32
    return jnp.where(ok, jnp.where(ok, x, 0).astype(dtype), np.array(info.min, dtype))


def float_to_int(x, dtype) -> jnp.ndarray:
    """`x` (any float dtype) converted to the integer or bool `dtype` as MindSpore's CPU Cast does."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return x != 0
    if dtype in (np.dtype(np.int32), np.dtype(np.int64)):
        return _signed(x, dtype)
    if dtype in _VIA_INT32:
        return _signed(x, np.dtype(np.int32)).astype(dtype)
    if dtype == np.dtype(np.uint32):
        return _signed(x, np.dtype(np.int64)).astype(dtype)
    if dtype == np.dtype(np.uint64):
        x = x.astype(jnp.float64) if x.dtype == jnp.float64 else x.astype(jnp.float32)
        big = x >= 2.0 ** 63
        low = _signed(jnp.where(big, x - 2.0 ** 63, x), np.dtype(np.int64)).astype(np.uint64)
        return jnp.where(big, low ^ np.uint64(2 ** 63), low)
    raise TypeError(f"float_to_int: {dtype} is not an integer dtype")
