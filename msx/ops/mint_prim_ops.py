"""Names MindSpore 2.10's `mint` and `mint.nn` export for single primitives (torch's kernels of the same names):
`mint.equal_ext_op`, `mint.conv_tbc` and `mint.nn.upsample_nearest2d_op` / `mint.nn.upsample_bilinear2d_op`
(`mint.addr_` is beside its `Addr` primitive in `matrix_ops.py`).

`equal_ext_op` and the two upsample names are primitive *instances* in MindSpore (`Prim[EqualExt]`), so they
are `PrimitiveOp` instances here too. `EqualExt` is torch.equal: one 0-d bool, True when both inputs have the
same shape and every element is equal (what `mint.equal` reads with `.item()`). `conv_tbc` is the
time-batch-channel 1-d convolution of fairseq ((T, B, C_in) input, (K, C_in, C_out) weight). The upsample
ops resize the last two dims of an NCHW tensor to `output_size` or by `scales` with torch's source coordinates,
as `UpsampleNearest3D` / `UpsampleTrilinear3D` (`resize_ops.py`) do for three. Of these only UpsampleNearest2D has a CPU kernel in
MindSpore 2.10 (its goldens); the others are checked against torch.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtype as mstype
from ..errors import OpError
from ..tensor import Tensor
from .api import SURFACE, PrimitiveOp, expose
from .primitive import apply, primitive
from .resize_ops import (
    _F32,
    _bool_attr,
    _compute_dtype,
    _fail,
    _floats_attr,
    _image_check,
    _ints_attr,
    _linear_taps,
    _resample,
    _torch_scale,
    _upsample_sizes,
)


# ---------------------------------------------------------------- EqualExt
@primitive("EqualExt", category="reduce", differentiable=False,
           internal="run by the primitive instance mint.equal_ext_op, which compares the shapes first")
def equal_ext(x, y):
    """0-d bool: every element of x equals y's (same shapes; dtypes promoted)."""
    return jnp.all(jnp.equal(x, y))


class _EqualExt(PrimitiveOp):
    name = "EqualExt"

    def __call__(self, input, other):
        for what, t in (("input", input), ("other", other)):
            if not isinstance(t, Tensor):
                raise TypeError(f"EqualExt: {what} must be a Tensor, got {type(t).__name__}")
        if tuple(input.shape) != tuple(other.shape):
            return Tensor(np.asarray(False))
        return apply(equal_ext, (input, other), {})


SURFACE.add("mint", "equal_ext_op", _EqualExt())


# ---------------------------------------------------------------- conv_tbc
@primitive("ConvTbc", attrs=("pad",), category="conv",
           internal="run by mint.conv_tbc, which checks the shapes in words")
def conv_tbc_(x, weight, bias, *, pad):
    """(T, B, C_in) * (K, C_in, C_out) + bias -> (T + 2 * pad - K + 1, B, C_out), a cross-correlation over T."""
    y = lax.conv_general_dilated(x, weight.astype(x.dtype), window_strides=(1,), padding=[(pad, pad)],
                                 dimension_numbers=("WNC", "WIO", "WNC"))
    return y + bias.astype(y.dtype)


@expose(mint="conv_tbc", prim="ConvTbc")
def conv_tbc(input, weight, bias, pad=0):
    """fairseq's time-batch-channel convolution: input (T, B, C_in), weight (K, C_in, C_out), bias (C_out,)."""
    got = f"input {input.dtype}{tuple(input.shape)}, weight {weight.dtype}{tuple(weight.shape)}, " \
          f"bias {bias.dtype}{tuple(bias.shape)}"
    if input.ndim != 3 or weight.ndim != 3 or bias.ndim != 1:
        raise OpError(f"conv_tbc: input must be 3-D (T, B, C_in), weight 3-D (K, C_in, C_out), bias 1-D; got {got}")
    if input.shape[2] != weight.shape[1] or bias.shape[0] != weight.shape[2]:
        raise OpError(f"conv_tbc: channels disagree (input C_in = weight dim 1, bias = weight dim 2); got {got}")
    if isinstance(pad, bool) or not isinstance(pad, (int, np.integer)) or pad < 0:
        raise OpError(f"conv_tbc: pad must be an int >= 0, got {pad!r}")
    if input.shape[0] + 2 * int(pad) < weight.shape[0]:
        raise OpError(f"conv_tbc: the padded time length {input.shape[0]} + 2 * {pad} is shorter than the kernel "
                      f"({weight.shape[0]}); got {got}")
    if input.dtype not in mstype.float_type:
        raise OpError(f"conv_tbc: input must be a float tensor; got {got}")
    return apply(conv_tbc_, (input, weight, bias), {"pad": int(pad)})


# ---------------------------------------------------------------- UpsampleNearest2D / UpsampleBilinear2D
_nearest2d_check = _image_check(4, "(N, C, H, W)", ("float16", "float32", "float64", "uint8"))
_bilinear2d_check = _image_check(4, "(N, C, H, W)")


@primitive("UpsampleNearest2D", attrs=("output_size", "scales"), category="shape", check=_nearest2d_check,
           internal="run by the primitive instance mint.nn.upsample_nearest2d_op, which converts its arguments")
def upsample_nearest_2d(x, *, output_size=None, scales=None):
    """(N, C, H, W) -> (N, C, *output_size), nearest (source index floor(out * in / out_size))."""
    _fail(_nearest2d_check(x))
    sizes, scales = _upsample_sizes(x, output_size, scales)
    y = x
    for axis, n_out, scale in zip((2, 3), sizes, scales):
        n_in = x.shape[axis]
        src = np.floor(np.arange(n_out, dtype=_F32) * _torch_scale(n_in, n_out, scale))
        y = _resample(y, axis, np.minimum(src.astype(np.int64), n_in - 1)[:, None])
    return y


@primitive("UpsampleBilinear2D", attrs=("output_size", "scales", "align_corners"), category="shape",
           check=_bilinear2d_check,
           internal="run by the primitive instance mint.nn.upsample_bilinear2d_op, which converts its arguments")
def upsample_bilinear_2d(x, *, output_size=None, scales=None, align_corners=False):
    """(N, C, H, W) -> (N, C, *output_size), bilinear (torch's source coordinates)."""
    _fail(_bilinear2d_check(x))
    sizes, scales = _upsample_sizes(x, output_size, scales)
    y = x.astype(_compute_dtype(x.dtype))
    for axis, n_out, scale in zip((2, 3), sizes, scales):
        idx, w = _linear_taps(x.shape[axis], n_out, align_corners, scale)
        y = _resample(y, axis, idx, w)
    return y.astype(x.dtype)


def _sizes_or_scales(op: str, output_size, scales) -> dict:
    output_size = _ints_attr(op, "output_size", 2, True)(output_size)
    scales = _floats_attr(op, "scales", 2)(scales)
    if (output_size is None) == (scales is None):
        raise OpError(f"{op}: give exactly one of output_size and scales, got output_size={output_size!r}, "
                      f"scales={scales!r}")
    return {"output_size": output_size, "scales": scales}


class _UpsampleNearest2D(PrimitiveOp):
    name = "UpsampleNearest2D"

    def __call__(self, x, output_size=None, scales=None):
        return apply(upsample_nearest_2d, (x,), _sizes_or_scales(self.name, output_size, scales))


class _UpsampleBilinear2D(PrimitiveOp):
    name = "UpsampleBilinear2D"

    def __call__(self, x, output_size=None, scales=None, align_corners=False):
        attrs = _sizes_or_scales(self.name, output_size, scales)
        attrs["align_corners"] = _bool_attr(self.name, "align_corners")(align_corners)
        return apply(upsample_bilinear_2d, (x,), attrs)


upsample_nearest2d_op = _UpsampleNearest2D()  # mint.nn's names (msx/mint/nn/__init__.py)
upsample_bilinear2d_op = _UpsampleBilinear2D()
