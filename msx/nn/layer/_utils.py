"""Helpers shared by the layers: parameter creation with the layer named in errors, dtype following."""
from __future__ import annotations

from typing import Any

from ... import dtype as mstype
from ...errors import OpError, OpTypeError
from ...ops import functional as F
from ...ops.attr_converters import to_int
from ...sizes import check_size
from ...tensor import Parameter, Tensor
from ..initializer import initializer


def make_param(layer: str, what: str, init: Any, shape: tuple, dtype, requires_grad: bool = True) -> Parameter:
    """A Parameter from `init`; a bad init is reported with the layer and argument that gave it."""
    check_size(f"{layer}: {what}", shape, dtype)  # before the initializer allocates it
    try:
        value = initializer(init, shape, dtype)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{layer}: {what}: {exc}") from None
    return Parameter(value, requires_grad=requires_grad)


def channels(layer: Any, *counts: Any) -> tuple[int, ...]:
    """`in_channels`, `out_channels`... as ints: a float or None is a TypeError naming the layer and the argument
    (MindSpore's "the 'in_channels' must be int"), never truncated (`Dense(4.5, 3)`) nor a raw `int()` error."""
    names = type(layer)._in_arg, "out_channels"
    return tuple(to_int(c, f"{type(layer).__name__}: {n}") for n, c in zip(names, counts))


def like(w: Tensor, x: Tensor) -> Tensor:
    """`w` cast to `x`'s float dtype, so a Cell computed in float16 (`to_float`) stays in float16.

    Two inputs are refused as MindSpore 2.10 refuses them, naming the parameter (and so the layer): a value
    that is not a Tensor (a numpy array: MindSpore's "the input argument must be Tensor"), and a float64 input
    to float32 weights, which would otherwise silently train the whole network in float64 (MindSpore: "the
    type of 'x2' should be same as 'x1'")."""
    dtype = getattr(x, "dtype", None)
    if not isinstance(dtype, mstype.Type):
        raise OpTypeError(f"{_owner(w)}: the input must be a msx Tensor, got {type(x).__name__}"
                        + (" (wrap it: msx.Tensor(x))" if hasattr(x, "__array__") else ""))
    if dtype.is_floating and w.dtype != dtype:
        if dtype == mstype.float64:
            raise OpTypeError(f"{_owner(w)}: the input is float64 but the parameter is {w.dtype}; MindSpore refuses "
                            f"mixed dtypes here too: cast the input (x.astype(msx.float32)) or build the layer "
                            f"with dtype=msx.float64")
        return F.cast(w, dtype)
    return w


def _owner(w: Tensor) -> str:
    """The layer a parameter belongs to, from its name ('fc.weight' -> 'fc'), for errors."""
    name = getattr(w, "name", "") or ""
    return f"layer {name.rsplit('.', 1)[0]!r}" if "." in name else f"the layer of parameter {name!r}"


def check_input(ok: bool, layer: str, x: Tensor, reason: str) -> None:
    if not ok:
        raise OpError(f"{layer} got input of shape {tuple(x.shape)}: {reason}")


def pair(layer: str, name: str, v) -> tuple[int, int]:
    """An int or (h, w) argument as a pair of positive ints."""
    out = (int(v), int(v)) if isinstance(v, int) else tuple(int(x) for x in v)
    if len(out) != 2 or min(out) < 1:
        raise ValueError(f"{layer}: {name} must be a positive int or a pair of them, got {v!r}")
    return out


def padding4(layer: str, v) -> tuple[int, int, int, int]:
    """MindSpore's `padding`: an int, (h, w), or (top, bottom, left, right)."""
    pads = (int(v),) * 4 if isinstance(v, int) else tuple(int(x) for x in v)
    if len(pads) == 2:
        pads = (pads[0], pads[0], pads[1], pads[1])
    if len(pads) != 4 or min(pads) < 0:
        raise ValueError(f"{layer}: padding must be a non-negative int, (h, w) or (top, bottom, left, right), "
                         f"got {v!r}")
    return pads


def pad_mode(layer: str, mode: str, padding: tuple[int, ...]) -> str:
    """Validated lower-case pad_mode; a non-zero `padding` needs 'pad'."""
    mode = mode.lower() if isinstance(mode, str) else mode
    if mode not in ("same", "valid", "pad"):
        raise ValueError(f"{layer}: pad_mode must be 'same', 'valid' or 'pad', got {mode!r}")
    if mode != "pad" and any(padding):
        raise ValueError(f"{layer}: padding {padding} needs pad_mode='pad' (got pad_mode={mode!r})")
    return mode
