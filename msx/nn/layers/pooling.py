"""2-D pooling over NCHW (or CHW) input: `MaxPool2d`, `AvgPool2d`."""
from __future__ import annotations

from ...ops import functional as F
from ...ops import nn_ops as N
from ...ops.primitive import apply
from ...tensor import Tensor
from ..cell import Cell
from ._utils import check_input, pad_mode as check_pad_mode, padding4, pair


class _Pool2d(Cell):
    prim = N.max_pool2d

    def __init__(self, kernel_size, stride, pad_mode: str, padding, ceil_mode: bool, data_format: str) -> None:
        super().__init__()
        name = type(self).__name__
        self.kernel_size, self.stride = pair(name, "kernel_size", kernel_size), pair(name, "stride", stride)
        self.padding = padding4(name, padding)
        self.pad_mode = check_pad_mode(name, pad_mode, self.padding)
        self.ceil_mode = bool(ceil_mode)
        if data_format != "NCHW":
            raise ValueError(f"{name}: only data_format='NCHW' is supported, got {data_format!r}")

    def _attrs(self) -> dict:
        return {"kernel_size": self.kernel_size, "stride": self.stride, "pad_mode": self.pad_mode,
                "padding": self.padding, "ceil_mode": self.ceil_mode}

    def construct(self, x: Tensor) -> Tensor:
        name = f"{type(self).__name__}(kernel_size={self.kernel_size}, stride={self.stride})"
        check_input(x.ndim in (3, 4), name, x, "expected 4-D (N, C, H, W) or 3-D (C, H, W) input")
        batched = x if x.ndim == 4 else F.expand_dims(x, 0)
        y = self._pool(batched)
        return y if x.ndim == 4 else F.squeeze(y, 0)

    def _pool(self, x: Tensor) -> Tensor:
        return apply(type(self).prim, (x,), self._attrs())

    def extend_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, ceil_mode={self.ceil_mode}")


class MaxPool2d(_Pool2d):
    """Max over each window; 'pad' mode pads with -inf so padding never wins."""

    prim = N.max_pool2d

    def __init__(self, kernel_size=1, stride=1, pad_mode: str = "valid", padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False, data_format: str = "NCHW") -> None:
        if return_indices or dilation not in (1, (1, 1)):
            raise ValueError("MaxPool2d: return_indices=True and dilation != 1 are not supported yet")
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)


class AvgPool2d(_Pool2d):
    """Mean over each window. `count_include_pad` counts zero padding in the divisor ('pad' mode);
    `divisor_override` replaces the divisor."""

    prim = N.avg_pool2d

    def __init__(self, kernel_size=1, stride=1, pad_mode: str = "valid", padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None,
                 data_format: str = "NCHW") -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)
        if divisor_override is not None and (int(divisor_override) <= 0 or self.pad_mode == "same" or self.ceil_mode):
            raise ValueError(f"AvgPool2d: divisor_override must be positive and needs pad_mode 'valid' or 'pad' "
                             f"without ceil_mode, got {divisor_override} with pad_mode={self.pad_mode!r}, "
                             f"ceil_mode={self.ceil_mode}")
        self.count_include_pad, self.divisor_override = bool(count_include_pad), divisor_override

    def _attrs(self) -> dict:
        # with divisor_override the primitive must divide by the full window, which _pool then rescales
        return {**super()._attrs(), "count_include_pad": self.count_include_pad or self.divisor_override is not None}

    def _pool(self, x: Tensor) -> Tensor:
        y = super()._pool(x)
        if self.divisor_override is None:
            return y
        return F.mul(y, (self.kernel_size[0] * self.kernel_size[1]) / self.divisor_override)
