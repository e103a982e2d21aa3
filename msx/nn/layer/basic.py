"""Basic layers (MindSpore's `nn.layer.basic`): `Dense` (and torch-style `Linear`), `Dropout` and the channel
dropouts, `Flatten`, `Unflatten`, `Identity`, `Upsample`, `OneHot`, `Tril`/`Triu`, `Roll`, `Norm`, `ClipByNorm`, the
matrix-diagonal layers and `L1Regularizer`."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ... import dtype as mstype
from ...ignored_args import not_honoured
from ...ops import functional as F
from ...ops import functional_layers as X
from ...ops.nn_layer_ops import interpolate
from ...tensor import Tensor
from ..cell import Cell
from ..initializer import HeUniform, Uniform
from ._utils import channels, check_input, like, make_param
from .activation import get_activation


class Dense(Cell):
    """`y = activation(x @ weight.T + bias)`; weight is (out_channels, in_channels).

    Defaults follow MindSpore 2.x: weight HeUniform(sqrt(5)), bias U(-1/sqrt(in), 1/sqrt(in)).
    `activation` is a name ('relu', ...), a Cell or a class-style op.
    """

    _in_arg = "in_channels"

    def __init__(self, in_channels: int, out_channels: int, weight_init=None, bias_init=None, has_bias: bool = True,
                 activation: str | Cell | Callable | None = None, dtype=mstype.float32) -> None:
        super().__init__()
        (self.in_channels, self.out_channels), self.has_bias = channels(self, in_channels, out_channels), bool(has_bias)
        if self.in_channels <= 0 or self.out_channels <= 0:
            raise ValueError(f"{self._name()}: in and out channels must be positive")
        self.weight = make_param(self._name(), "weight_init", HeUniform(math.sqrt(5)) if weight_init is None
                                 else weight_init, (self.out_channels, self.in_channels), dtype)
        if self.has_bias:
            self.bias = make_param(self._name(), "bias_init", Uniform(1 / math.sqrt(self.in_channels))
                                   if bias_init is None else bias_init, (self.out_channels,), dtype)
        else:
            self.bias = None  # MindSpore: a layer without bias has bias None
        if isinstance(activation, str):
            activation = get_activation(activation, self._name())
        elif activation is not None and not callable(activation):
            raise TypeError(f"{self._name()}: activation must be a str, a Cell or None, "
                            f"got {type(activation).__name__}")
        self.activation = activation

    def _name(self) -> str:
        return f"{type(self).__name__}({self.in_channels} -> {self.out_channels})"

    def construct(self, x: Tensor) -> Tensor:
        check_input(x.ndim >= 1 and x.shape[-1] == self.in_channels, self._name(), x,
                    f"last dim {x.shape[-1] if x.ndim else None} != {self._in_arg} {self.in_channels}")
        y = F.dense(x, like(self.weight, x), like(self.bias, x) if self.has_bias else None)
        return y if self.activation is None else self.activation(y)

    def extend_repr(self) -> str:
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}, has_bias={self.has_bias}"
        shown = self.activation is not None and not isinstance(self.activation, Cell)  # a Cell prints as a child
        return f"{s}, activation={self.activation!r}" if shown else s


class Linear(Dense):
    """torch-style `Linear(in_features, out_features, bias=True)` (msx addition beside `Dense`; mint.nn's name)."""

    _in_arg = "in_features"

    def __init__(self, in_features: int, out_features: int, bias: bool = True, weight_init=None, bias_init=None,
                 dtype=None) -> None:
        super().__init__(in_features, out_features, weight_init, bias_init, has_bias=bias,
                         dtype=dtype or mstype.float32)

    @property
    def in_features(self) -> int:
        return self.in_channels

    @property
    def out_features(self) -> int:
        return self.out_channels


class Dropout(Cell):
    """Zeroes elements with probability `p` and scales the rest by 1/(1-p), only while `training`.

    `p` wins over the older `keep_prob` (= 1 - p, default 0.5). `dtype` is deprecated in MindSpore (it warns
    when given and does nothing); msx warns likewise.
    """

    def __init__(self, keep_prob: float = 0.5, p: float | None = None, dtype=mstype.float32) -> None:
        super().__init__()
        not_honoured("Dropout", "dtype", dtype, mstype.float32,
                     "MindSpore deprecates it and ignores it too; the output has the input's dtype")
        if p is not None:
            if not 0.0 <= p < 1.0:
                raise ValueError(f"Dropout: p must be in [0, 1), got {p}")
            self.p = float(p)
        else:
            if not 0.0 < keep_prob <= 1.0:
                raise ValueError(f"Dropout: keep_prob must be in (0, 1], got {keep_prob}")
            self.p = 1.0 - float(keep_prob)

    def construct(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return x
        return F.dropout(x, p=self.p)

    def extend_repr(self) -> str:
        return f"p={self.p}"


class Flatten(Cell):
    """Merges dims `start_dim`..`end_dim` into one (default: all but the batch dim)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = int(start_dim), int(end_dim)

    def construct(self, x: Tensor) -> Tensor:
        return F.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)

    def extend_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Identity(Cell):
    """Returns its input (a placeholder where a layer is optional)."""

    def construct(self, x: Tensor) -> Tensor:
        return x


class Upsample(Cell):
    """`ops.interpolate` as a layer (MindSpore's `nn.Upsample`)."""

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                 recompute_scale_factor=None) -> None:
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def construct(self, x: Tensor) -> Tensor:
        return interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners, self.recompute_scale_factor)

    def extend_repr(self) -> str:
        return f"size={self.size}, scale_factor={self.scale_factor}, mode={self.mode}"


class Unflatten(Cell):
    """Expand dim `axis` into `unflattened_size`."""

    def __init__(self, axis: int, unflattened_size) -> None:
        super().__init__()
        self.axis, self.unflattened_size = int(axis), tuple(int(d) for d in unflattened_size)

    def construct(self, x: Tensor) -> Tensor:
        axis = self.axis % x.ndim
        return F.reshape(x, tuple(x.shape[:axis]) + self.unflattened_size + tuple(x.shape[axis + 1:]))


class _Tri(Cell):
    lower = True

    def construct(self, x: Tensor, k: int = 0) -> Tensor:
        check_input(x.ndim >= 2, type(self).__name__, x, "expected at least 2 dims")
        rows, cols = x.shape[-2], x.shape[-1]
        keep = np.tri(rows, cols, k, dtype=bool) if self.lower else ~np.tri(rows, cols, k - 1, dtype=bool)
        return F.where(Tensor(keep), x, F.zeros_like(x))


class Tril(_Tri):
    """Keep the lower triangle (diagonal `k` and below), zero the rest."""

    lower = True


class Triu(_Tri):
    """Keep the upper triangle (diagonal `k` and above), zero the rest."""

    lower = False


class Roll(Cell):
    """Shift elements along `axis` by `shift`, wrapping around."""

    def __init__(self, shift, axis) -> None:
        super().__init__()
        self.shift = (shift,) if isinstance(shift, int) else tuple(shift)
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis)
        if len(self.shift) != len(self.axis):
            raise ValueError(f"Roll: shift {shift!r} and axis {axis!r} must have the same length")

    def construct(self, x: Tensor) -> Tensor:
        for s, a in zip(self.shift, self.axis):
            n = x.shape[a]
            s = s % n
            if s:
                a = a % x.ndim
                lead = (slice(None),) * a
                x = F.concat([x[lead + (slice(n - s, None),)], x[lead + (slice(0, n - s),)]], a)
        return x


class OneHot(Cell):
    """`ops.one_hot` as a layer: depth, on/off values, axis and dtype fixed at construction."""

    def __init__(self, axis: int = -1, depth: int = 1, on_value: float = 1.0, off_value: float = 0.0,
                 dtype=mstype.float32) -> None:
        super().__init__()
        self.axis, self.depth, self.on_value, self.off_value, self.dtype = axis, depth, on_value, off_value, dtype

    def construct(self, indices: Tensor) -> Tensor:
        return F.cast(F.one_hot(indices, self.depth, self.on_value, self.off_value, self.axis), self.dtype)


class Norm(Cell):
    """Euclidean norm over `axis` (all axes for ())."""

    def __init__(self, axis=(), keep_dims: bool = False) -> None:
        super().__init__()
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis)
        self.keep_dims = bool(keep_dims)

    def construct(self, x: Tensor) -> Tensor:
        axis = self.axis or tuple(range(x.ndim))
        return F.sqrt(F.sum(F.square(x), axis, self.keep_dims))


class ClipByNorm(Cell):
    """`x * clip_norm / max(l2norm(x, axis), clip_norm)`."""

    def __init__(self, axis=None) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x: Tensor, clip_norm) -> Tensor:
        axis = tuple(range(x.ndim)) if self.axis is None else ((self.axis,) if isinstance(self.axis, int)
                                                                 else tuple(self.axis))
        norm = F.sqrt(F.sum(F.square(x), axis, True))
        clip = clip_norm if isinstance(clip_norm, Tensor) else Tensor(float(clip_norm), x.dtype)
        return x * clip / F.maximum(norm, clip)


class MatrixDiag(Cell):
    """A batch of diagonal matrices whose diagonals are the last dim of `x`."""

    def construct(self, x: Tensor) -> Tensor:
        n = x.shape[-1]
        return F.expand_dims(x, -1) * F.cast(Tensor(np.eye(n, dtype=np.float32)), x.dtype)


class MatrixDiagPart(Cell):
    """The main diagonals of a batch of matrices."""

    def construct(self, x: Tensor) -> Tensor:
        m, n = x.shape[-2], x.shape[-1]
        k = min(m, n)
        eye = F.cast(Tensor(np.eye(m, n, dtype=np.float32)), x.dtype)
        return F.sum(x * eye, -1)[..., :k] if m <= n else F.sum(x * eye, -2)[..., :k]


class MatrixSetDiag(Cell):
    """`x` with its main diagonals replaced by `diagonal`."""

    def construct(self, x: Tensor, diagonal: Tensor) -> Tensor:
        m, n = x.shape[-2], x.shape[-1]
        eye = F.cast(Tensor(np.eye(m, n, dtype=np.float32)), x.dtype)
        k = min(m, n)
        pad = [0, n - k] if n > k else []
        diag = F.pad(diagonal, pad) if pad else diagonal
        if m > k:
            rows = F.expand_dims(F.pad(diagonal, [0, m - k]), -1)
            return x * (1 - eye) + rows * eye
        return x * (1 - eye) + F.expand_dims(diag, -2) * eye


class _ChannelDropout(Cell):
    """Zero whole channels (axis 1) with probability `p` while training, scaling the rest by 1/(1-p)."""

    rank = 4

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{type(self).__name__}: p must be in [0, 1], got {p}")
        self.p = float(p)

    def construct(self, x: Tensor) -> Tensor:
        return X.channel_dropout(x, self.p, self.training, self.rank, type(self).__name__)

    def extend_repr(self) -> str:
        return f"p={self.p}"


class Dropout1d(_ChannelDropout):
    rank = 3


class Dropout2d(_ChannelDropout):
    rank = 4


class Dropout3d(_ChannelDropout):
    rank = 5


class L1Regularizer(Cell):
    """`scale * sum(|weights|)`."""

    def __init__(self, scale: float) -> None:
        super().__init__()
        if not isinstance(scale, (int, float)) or isinstance(scale, bool) or scale <= 0 or math.isinf(scale):
            raise ValueError(f"L1Regularizer: scale must be a positive finite number, got {scale!r}")
        self.scale = float(scale)

    def construct(self, weights: Tensor) -> Tensor:
        return F.sum(F.abs(weights)) * self.scale
