"""Numerics helpers of MindSpore 2.10: `ops.CheckNumerics` (refuse NaN/Inf) and `ops.float_power_ext` (power in
double precision). (`ops.stop_gradient_`, the in-place form of `stop_gradient`, is beside its primitive in
`array_ops.py`.)

`CheckNumerics()(x)` returns x when every value is finite and raises `CheckNumericsError` (a RuntimeError, as
MindSpore raises) naming the op and whether a NaN or an Inf was found. Eagerly the values are read at the call;
inside `msx.jit` the check runs on the host when the graph runs (a `jax.debug.callback`): the step fails there
with the same message, inside the runtime error jax raises for a failed callback.
"""
from __future__ import annotations

import numbers

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..errors import OpError, OpTypeError
from ..tensor import Tensor
from .api import SURFACE, expose
from .apply_prim import known_value
from .primitive import apply, primitive


class CheckNumericsError(OpError, RuntimeError):
    """`ops.CheckNumerics` found a NaN or an Inf."""


def _verdict(values: np.ndarray) -> str | None:
    if np.isnan(values).any():
        return "CheckNumerics: Tensor had NaN values"
    if np.isinf(values).any():
        return "CheckNumerics: Tensor had Inf values"
    return None


def _host_check(values) -> None:
    reason = _verdict(np.asarray(values))
    if reason is not None:
        raise CheckNumericsError(reason)


def _cn_check(x) -> str | None:
    if x.dtype not in (jnp.float16, jnp.float32, jnp.float64):
        return f"x must be float16, float32 or float64, got {x.dtype}"
    return None


@primitive("CheckNumerics", category="elementwise", check=_cn_check)
def check_numerics(x):
    """x itself when all its values are finite; a NaN or an Inf raises CheckNumericsError (on the host, when the
    graph runs)."""
    jax.debug.callback(_host_check, x, ordered=True)
    return x


@expose(cls="CheckNumerics", prim="CheckNumerics")
def _check_numerics_cls(x):
    if not isinstance(x, Tensor):
        raise OpTypeError(f"CheckNumerics: x must be a Tensor, got {type(x).__name__}")
    reason = _cn_check(x)
    if reason is not None:
        raise OpTypeError(f"CheckNumerics: {reason}")
    values = known_value(x)
    if not isinstance(values, (jax.ShapeDtypeStruct, jax.core.Tracer)):  # eager: raise here, at the call
        _host_check(values)
    return apply(check_numerics, (x,))


# ---------------------------------------------------------------- float_power_ext
def _real_operand(what: str, v) -> None:
    if isinstance(v, Tensor):
        if mstype.to_np(v.dtype).kind == "c":
            raise OpTypeError(f"float_power_ext: {what} must not be complex, got {v.dtype}")
    elif not isinstance(v, (int, float, bool)) or isinstance(v, complex):
        raise OpTypeError(f"float_power_ext: {what} must be a Tensor or a real number, got {type(v).__name__}")


@expose(ops="float_power_ext", prim="FloatPower")
def float_power_ext(input, exponent) -> Tensor:  # noqa: A002
    """input ** exponent computed in float64, always a float64 Tensor (one of the two must be a Tensor)."""
    if not (isinstance(input, Tensor) or isinstance(exponent, Tensor)):
        raise OpTypeError(f"float_power_ext: input or exponent must be a Tensor, got {type(input).__name__} and "
                          f"{type(exponent).__name__}")
    _real_operand("input", input)
    _real_operand("exponent", exponent)
    cast, power = SURFACE["ops"]["cast"], SURFACE["ops"]["float_power"]
    if isinstance(input, Tensor):
        input = cast(input, mstype.float64)
    else:
        input = Tensor(np.float64(input))
    if isinstance(exponent, Tensor):
        exponent = cast(exponent, mstype.float64)
    elif isinstance(exponent, numbers.Number):
        exponent = float(exponent)
    return power(input, exponent)
