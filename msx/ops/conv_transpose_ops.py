"""`ops.conv_transpose2d` and `ops.conv3d_transpose`: MindSpore 2.10's functional transposed convolutions over the
`Conv2DTranspose` / `Conv3DTranspose` primitives (`nn_layer_ops.py`).

`ops.conv_transpose2d` is the very function `mint.nn.functional.conv_transpose2d` is in MindSpore (torch's
arguments: `padding` taken off both sides, `output_padding` added at the end), so mint re-exports this one.
`ops.conv3d_transpose(inputs, weight, pad_mode, padding, stride, dilation, group, output_padding)` builds the
class op `ops.Conv3DTranspose` from the weight's shape, as MindSpore's function does.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..tensor import Tensor
from . import functional as F
from .api import expose
from .layer_classes import Conv3DTranspose
from .nn_layer_ops import conv2d_transpose
from .primitive import apply


def _ints(op: str, name: str, v, n: int, low: int) -> tuple[int, ...]:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer, tuple, list)):
        raise TypeError(f"{op}: {name} must be an int or a tuple of {n} ints, got {type(v).__name__} ({v!r})")
    out = (int(v),) * n if isinstance(v, (int, np.integer)) else tuple(int(x) for x in v)
    if len(out) == 1 and n > 1:
        out = out * n
    if len(out) != n or min(out) < low:
        raise ValueError(f"{op}: {name} must be an int >= {low} or {n} of them, got {v!r}")
    return out


# Conv2DTranspose stays in nn_layer_ops.py: layer_classes' Conv2DBackpropInput runs it, and this imports layer_classes
@expose(ops="conv_transpose2d", prim="Conv2DTranspose")
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, output_padding=0,
                     groups: int = 1, dilation=1) -> Tensor:
    """(N, C_in, H, W) (or unbatched (C_in, H, W)) with weight (C_in, C_out / groups, kH, kW); output size
    (H - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1."""
    name = "conv_transpose2d"
    if input.ndim not in (3, 4) or weight.ndim != 4:
        raise OpError(f"{name}: expected a 3-D or 4-D input and a 4-D weight, got input {tuple(input.shape)} and "
                      f"weight {tuple(weight.shape)}")
    x = F.expand_dims(input, 0) if input.ndim == 3 else input
    if x.shape[1] != weight.shape[0]:
        raise OpError(f"{name}: the input's channel dim {x.shape[1]} != weight's dim 0 ({weight.shape[0]}); got "
                      f"input {tuple(input.shape)} and weight {tuple(weight.shape)}")
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1 or \
            weight.shape[0] % int(groups):
        raise OpError(f"{name}: groups must be a positive int dividing C_in ({weight.shape[0]}), got {groups!r}")
    if bias is not None and tuple(bias.shape) != (weight.shape[1] * int(groups),):
        raise OpError(f"{name}: bias must have shape ({weight.shape[1] * int(groups)},) (C_out), got "
                      f"{tuple(bias.shape)}")
    stride, dilation = _ints(name, "stride", stride, 2, 1), _ints(name, "dilation", dilation, 2, 1)
    padding, extra = _ints(name, "padding", padding, 2, 0), _ints(name, "output_padding", output_padding, 2, 0)
    args = (x, weight) + (() if bias is None else (bias,))
    y = apply(conv2d_transpose, args, {"stride": stride, "crop": tuple((p, p) for p in padding),
                                       "dilation": dilation, "groups": int(groups), "output_padding": extra})
    return F.squeeze(y, 0) if input.ndim == 3 else y


# Conv3DTranspose stays in nn_layer_ops.py: declared here, it would make a cycle with layer_classes' Conv3DTranspose
@expose(ops="conv3d_transpose", prim="Conv3DTranspose")
def conv3d_transpose(inputs: Tensor, weight: Tensor, pad_mode: str = "valid", padding=0, stride=1, dilation=1,
                     group: int = 1, output_padding=0) -> Tensor:
    """The transposed 3-d convolution of (N, C_in, D, H, W) with weight (C_in, C_out / group, kD, kH, kW):
    `ops.Conv3DTranspose(C_in, C_out, kernel_size, 1, pad_mode, padding, ...)(inputs, weight)`."""
    if inputs.ndim != 5 or weight.ndim != 5:
        raise OpError(f"conv3d_transpose: inputs and weight must be 5-D, got {tuple(inputs.shape)} and "
                      f"{tuple(weight.shape)}")
    if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same", "pad"):
        raise ValueError(f"conv3d_transpose: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    pads = (int(padding),) * 6 if isinstance(padding, (int, np.integer)) else tuple(int(p) for p in padding)
    if len(pads) != 6 or min(pads) < 0:
        raise ValueError(f"conv3d_transpose: padding must be an int >= 0 or 6 of them, got {padding!r}")
    if pad_mode.lower() != "pad" and any(pads):
        raise ValueError(f"conv3d_transpose: padding must be 0 unless pad_mode='pad', got {padding!r} with "
                         f"pad_mode={pad_mode!r}")
    if inputs.shape[1] != weight.shape[0]:
        raise OpError(f"conv3d_transpose: the input's channel dim {inputs.shape[1]} != weight's dim 0 "
                      f"({weight.shape[0]})")
    extra = _ints("conv3d_transpose", "output_padding", output_padding, 3, 0)
    if pad_mode.lower() != "pad" and any(extra):
        raise ValueError(f"conv3d_transpose: output_padding must be 0 unless pad_mode='pad' (as in MindSpore), got "
                         f"{output_padding!r} with pad_mode={pad_mode!r}")
    op = Conv3DTranspose(inputs.shape[1], weight.shape[1], tuple(weight.shape[2:]), 1, pad_mode, pads,
                         _ints("conv3d_transpose", "stride", stride, 3, 1),
                         _ints("conv3d_transpose", "dilation", dilation, 3, 1), int(group), extra)
    return op(inputs, weight)
