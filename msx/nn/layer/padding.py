"""Padding layers: `ConstantPad1d/2d/3d`, `ReflectionPad*`, `ReplicationPad*`, `ZeroPad2d` and `Pad`.

`padding` follows MindSpore (and torch): an int pads every padded side, a
tuple lists (left, right[, top, bottom[, front, back]]) from the last dim
backwards.
"""
from __future__ import annotations

from ...ops import nn_layer_ops as L
from ...ops.primitive import apply
from ...tensor import Tensor
from ..cell import Cell
from ._utils import check_input


class _PadNd(Cell):
    rank = 1
    mode = "constant"

    def __init__(self, padding, value: float = 0.0) -> None:
        super().__init__()
        name = type(self).__name__
        flat = (int(padding),) * (2 * self.rank) if isinstance(padding, int) else tuple(int(p) for p in padding)
        if len(flat) != 2 * self.rank:
            raise ValueError(f"{name}: padding must be an int or {2 * self.rank} ints, got {padding!r}")
        if self.mode != "constant" and min(flat) < 0:
            raise ValueError(f"{name}: padding must be non-negative, got {padding!r}")
        self.padding, self.value = flat, float(value)

    def construct(self, x: Tensor) -> Tensor:
        name = type(self).__name__
        check_input(x.ndim in (self.rank + 1, self.rank + 2), name, x,
                    f"expected a {self.rank + 1}-D or {self.rank + 2}-D input")
        pairs = [(self.padding[2 * i], self.padding[2 * i + 1]) for i in range(self.rank)][::-1]
        if self.mode == "reflect":
            for (lo, hi), n in zip(pairs, x.shape[-self.rank:]):
                check_input(lo < n and hi < n, name, x, f"reflection padding {lo, hi} must be below the dim size {n}")
        if any(p < 0 for pair_ in pairs for p in pair_):  # negative constant padding crops
            crop = tuple(slice(max(-lo, 0), n - max(-hi, 0)) for (lo, hi), n in zip(pairs, x.shape[-self.rank:]))
            x = x[(Ellipsis,) + crop]
            pairs = [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
        pads = ((0, 0),) * (x.ndim - self.rank) + tuple(pairs)
        return apply(L.pad_v3, (x,), {"paddings": pads, "mode": self.mode, "value": self.value})

    def extend_repr(self) -> str:
        return f"padding={self.padding}" + (f", value={self.value}" if self.mode == "constant" else "")


class ConstantPad1d(_PadNd):
    rank = 1

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding, value)


class ConstantPad2d(ConstantPad1d):
    rank = 2


class ConstantPad3d(ConstantPad1d):
    rank = 3


class ZeroPad2d(_PadNd):
    rank = 2


class ReflectionPad1d(_PadNd):
    rank, mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    rank, mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    rank, mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    rank, mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    rank, mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    rank, mode = 3, "replicate"


class Pad(Cell):
    """MindSpore's `nn.Pad(paddings, mode)`: `paddings` is ((before, after), ...) for every dim, from the first;
    mode "CONSTANT" (zeros), "REFLECT" or "SYMMETRIC"."""

    _MODES = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}

    def __init__(self, paddings, mode: str = "CONSTANT") -> None:
        super().__init__()
        if mode not in self._MODES:
            raise ValueError(f"Pad: mode must be one of {list(self._MODES)}, got {mode!r}")
        pairs = tuple(tuple(int(v) for v in p) for p in paddings)
        if any(len(p) != 2 or min(p) < 0 for p in pairs):
            raise ValueError(f"Pad: paddings must be ((before, after), ...) of non-negative ints, got {paddings!r}")
        self.paddings, self.mode = pairs, mode

    def construct(self, x: Tensor) -> Tensor:
        check_input(len(self.paddings) <= x.ndim, "Pad", x, f"{len(self.paddings)} padding pairs for rank {x.ndim}")
        pads = self.paddings + ((0, 0),) * (x.ndim - len(self.paddings))
        return apply(L.pad_v3, (x,), {"paddings": pads, "mode": self._MODES[self.mode], "value": 0.0})

    def extend_repr(self) -> str:
        return f"paddings={self.paddings}, mode={self.mode}"
