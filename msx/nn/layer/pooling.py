"""2-D pooling over NCHW (or CHW) input: `MaxPool2d`, `AvgPool2d`."""
from __future__ import annotations

from ...ops import functional as F
from ...ops import functional_layers as X
from ...ops import functional_nn as FN
from ...ops.pool_argmax_ops import adaptive_max_pool3d
from ...ops.primitive import apply
from ...tensor import Tensor
from ..cell import Cell
from ._utils import check_input, pad_mode as check_pad_mode, padding4, pair


class _Pool2d(Cell):
    prim = FN.max_pool2d_

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

    prim = FN.max_pool2d_

    def __init__(self, kernel_size=1, stride=1, pad_mode: str = "valid", padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False, data_format: str = "NCHW") -> None:
        if return_indices or dilation not in (1, (1, 1)):
            raise ValueError("MaxPool2d: return_indices=True and dilation != 1 are not supported yet")
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)


class AvgPool2d(_Pool2d):
    """Mean over each window. `count_include_pad` counts zero padding in the divisor ('pad' mode);
    `divisor_override` replaces the divisor."""

    prim = FN.avg_pool2d_

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


# ---------------------------------------------------------------- 1-d pools (2-d pools of height 1)
class _Pool1d(Cell):
    """Shared by MaxPool1d/AvgPool1d: (N, C, L) or (C, L) input, pooled as a 2-d input of height 1."""

    def _to2d(self, x: Tensor, pool: Cell) -> Tensor:
        name = type(self).__name__
        check_input(x.ndim in (2, 3), name, x, "expected 3-D (N, C, L) or 2-D (C, L) input")
        batched = x if x.ndim == 3 else F.expand_dims(x, 0)
        y = F.squeeze(pool(F.expand_dims(batched, 2)), 2)
        return y if x.ndim == 3 else F.squeeze(y, 0)

    def construct(self, x: Tensor) -> Tensor:
        return self._to2d(x, self.pool)

    def extend_repr(self) -> str:
        return self.pool.extend_repr()


def _one(v, name: str) -> int:
    if isinstance(v, (tuple, list)):
        if len(v) != 1:
            raise ValueError(f"{name}: expected an int or a 1-tuple, got {v!r}")
        v = v[0]
    return int(v)


class MaxPool1d(_Pool1d):
    def __init__(self, kernel_size=1, stride=1, pad_mode: str = "valid", padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        p = _one(padding, "MaxPool1d")
        self.pool = MaxPool2d((1, _one(kernel_size, "MaxPool1d")), (1, _one(stride, "MaxPool1d")), pad_mode,
                              (0, 0, p, p), dilation, return_indices, ceil_mode)


class AvgPool1d(_Pool1d):
    def __init__(self, kernel_size=1, stride=1, pad_mode: str = "valid", padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        p = _one(padding, "AvgPool1d")
        self.pool = AvgPool2d((1, _one(kernel_size, "AvgPool1d")), (1, _one(stride, "AvgPool1d")), pad_mode,
                              (0, 0, p, p), ceil_mode, count_include_pad)


# ---------------------------------------------------------------- 3-d pools
class _Pool3d(Cell):
    def __init__(self, kernel_size, stride, pad_mode: str, padding, ceil_mode: bool) -> None:
        super().__init__()
        name = type(self).__name__
        self.kernel_size = X.triple(name, "kernel_size", kernel_size)
        self.stride = X.triple(name, "stride", stride)
        self.padding = X.pool3d_padding(name, padding)
        flat = [p for pair in self.padding for p in pair]
        self.pad_mode = pad_mode.lower()
        if self.pad_mode not in ("same", "valid", "pad"):
            raise ValueError(f"{name}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        if self.pad_mode != "pad" and any(flat):
            raise ValueError(f"{name}: padding {padding!r} needs pad_mode='pad'")
        self.ceil_mode = bool(ceil_mode)

    def _pads(self, x: Tensor) -> tuple:
        size = tuple(x.shape[-3:])
        if self.pad_mode == "same":
            out = []
            for n, k, s in zip(size, self.kernel_size, self.stride):
                need = max((-(-n // s) - 1) * s + k - n, 0)
                out.append((need // 2, need - need // 2))
            return tuple(out)
        pads = self.padding if self.pad_mode == "pad" else ((0, 0),) * 3
        return X.ceil_pads(size, self.kernel_size, self.stride, pads) if self.ceil_mode else pads

    def construct(self, x: Tensor) -> Tensor:
        check_input(x.ndim in (4, 5), type(self).__name__, x, "expected 5-D (N, C, D, H, W) or 4-D (C, D, H, W)")
        return self._pool(x)

    def extend_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, padding={self.padding}"


class MaxPool3d(_Pool3d):
    def __init__(self, kernel_size=1, stride=1, pad_mode: str = "valid", padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        if return_indices:
            raise ValueError("MaxPool3d: return_indices=True is not supported")
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.dilation = X.triple("MaxPool3d", "dilation", dilation)

    def _pool(self, x: Tensor) -> Tensor:
        return apply(X.max_pool_nd, (x,), {"kernel_size": self.kernel_size, "stride": self.stride,
                                           "padding": self._pads(x), "dilation": self.dilation})


class AvgPool3d(_Pool3d):
    def __init__(self, kernel_size=1, stride=1, pad_mode: str = "valid", padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.count_include_pad, self.divisor_override = bool(count_include_pad), divisor_override

    def _pool(self, x: Tensor) -> Tensor:
        return apply(X.avg_pool_nd, (x,), {"kernel_size": self.kernel_size, "stride": self.stride,
                                           "padding": self._pads(x), "divisor_override": self.divisor_override,
                                           "count_include_pad": self.count_include_pad and self.pad_mode != "same"})


# ---------------------------------------------------------------- adaptive pools
class _Adaptive(Cell):
    """Pools the trailing `rank` dims to `output_size` (None in output_size keeps that dim)."""

    rank = 1
    reduce = "mean"

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        if return_indices and self._with_indices is None:
            raise ValueError(f"{type(self).__name__}: return_indices=True is not supported")
        self.return_indices = bool(return_indices)
        self.output_size = X.adaptive_sizes(output_size, self.rank, type(self).__name__)

    _with_indices = None  # the functional form that also answers the argmax (2-d and 3-d max pools)

    def construct(self, x: Tensor) -> Tensor:
        if self.return_indices:
            return self._with_indices(x, self.output_size, True)
        return X.adaptive_pool(x, self.output_size, self.rank, self.reduce, type(self).__name__)

    def extend_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_Adaptive):
    rank = 1


class AdaptiveAvgPool2d(_Adaptive):
    rank = 2


class AdaptiveAvgPool3d(_Adaptive):
    rank = 3


class AdaptiveMaxPool1d(_Adaptive):
    rank, reduce = 1, "max"


class AdaptiveMaxPool2d(_Adaptive):
    """With `return_indices`, (output, argmax int64) as `ops.adaptive_max_pool2d(..., return_indices=True)`."""

    rank, reduce = 2, "max"
    _with_indices = staticmethod(X.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_Adaptive):
    """With `return_indices`, (output, argmax int32) as `ops.adaptive_max_pool3d(..., return_indices=True)`."""

    rank, reduce = 3, "max"
    _with_indices = staticmethod(adaptive_max_pool3d)


class _LPPool(Cell):
    """`(sum over the window of x ** p) ** (1 / p)`."""

    rank = 1

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = float(norm_type)
        k = (kernel_size,) * self.rank if isinstance(kernel_size, int) else tuple(kernel_size)
        s = k if stride is None else ((stride,) * self.rank if isinstance(stride, int) else tuple(stride))
        self.kernel_size, self.stride, self.ceil_mode = tuple(map(int, k)), tuple(map(int, s)), bool(ceil_mode)

    def construct(self, x: Tensor) -> Tensor:
        return X.lp_pool(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode, self.rank)

    def extend_repr(self) -> str:
        return f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}"


class LPPool1d(_LPPool):
    rank = 1


class LPPool2d(_LPPool):
    rank = 2
