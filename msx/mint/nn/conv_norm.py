"""`mint.nn` convolutions, batch/layer/group norms and `Embedding`: torch's arguments, Parameter names
(`weight`, `bias`, `running_mean`, `running_var`, `num_batches_tracked`), shapes and initialisation, as
MindSpore 2.10's `mindspore.mint.nn` has them, over msx's conv / batch-norm / layer-norm / embedding ops.

Differences from `msx.nn`'s MindSpore-style layers that these classes exist for: torch's `padding`
(int, per-dim tuple, 'same', 'valid') with `padding_mode`, 1-d weights of shape (out, in/groups, k),
BatchNorm's `momentum` weighing the *batch* statistic (None: a cumulative average) and
`track_running_stats`, and Embedding's `padding_idx`, `max_norm` and `scale_grad_by_freq`.
"""
from __future__ import annotations

import math

import numpy as np

from ... import dtype as mstype
from ...nn.cell import Cell
from ...nn.initializer import HeUniform, Uniform
from ...nn.layer._utils import check_input, like, make_param
from ...ops import functional as F
from ...ops import conv_transpose_ops as _conv_transpose_fn
from ...ops import functional_layers as X
from ...ops import nn_layer_ops as L
from ...ops import functional_nn as FN
from ...ops.primitive import apply
from ...nn.layer.ext_layers import EmbeddingExt as Embedding  # noqa: F401
from ...tensor import Parameter, Tensor

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _dtype(dtype):
    return mstype.float32 if dtype is None else mstype.to_msx(dtype)


def _ints(layer: str, name: str, v, n: int, low: int) -> tuple[int, ...]:
    out = (int(v),) * n if isinstance(v, (int, np.integer)) else tuple(int(x) for x in v)
    if len(out) == 1 and n > 1:
        out = out * n
    if len(out) != n or min(out) < low:
        raise ValueError(f"{layer}: {name} must be an int >= {low} or {n} of them, got {v!r}")
    return out


class _ConvBase(Cell):
    """What the forward and transposed convolutions share: argument checks and the weight/bias Parameters,
    initialised as torch does (kaiming-uniform a=sqrt(5), bias U(+-1/sqrt(fan_in)), fan_in from weight dim 1)."""

    n = 2
    transposed = False

    def _setup(self, in_channels, out_channels, kernel_size, stride, dilation, groups, bias, dtype) -> None:
        n = self.n
        self.in_channels, self.out_channels, self.groups = int(in_channels), int(out_channels), int(groups)
        name = self._name()
        self.kernel_size = _ints(name, "kernel_size", kernel_size, n, 1)
        self.stride, self.dilation = _ints(name, "stride", stride, n, 1), _ints(name, "dilation", dilation, n, 1)
        if self.groups < 1 or self.in_channels % self.groups or self.out_channels % self.groups:
            raise ValueError(f"{name}: in_channels {self.in_channels} and out_channels {self.out_channels} must "
                             f"both be divisible by groups {self.groups}")
        a, b = (self.in_channels, self.out_channels) if self.transposed else (self.out_channels, self.in_channels)
        shape = (a, b // self.groups) + self.kernel_size
        dt = _dtype(dtype)
        self.weight = make_param(name, "weight", HeUniform(math.sqrt(5)), shape, dt)
        fan_in = int(math.prod(shape[1:]))
        self.bias = make_param(name, "bias", Uniform(1 / math.sqrt(fan_in)), (self.out_channels,), dt) if bias \
            else None

    def _name(self) -> str:
        return (f"{type(self).__name__}(in_channels={self.in_channels}, out_channels={self.out_channels}, "
                f"kernel_size={getattr(self, 'kernel_size', '?')})")

    def _batched(self, x: Tensor) -> tuple[Tensor, bool]:
        """torch accepts an unbatched (C, *spatial) input too: add the batch dim, and say so."""
        check_input(x.ndim in (self.n + 1, self.n + 2), self._name(), x,
                    f"expected a {self.n + 2}-D (N, C, *spatial) or {self.n + 1}-D (C, *spatial) input")
        unbatched = x.ndim == self.n + 1
        if unbatched:
            x = F.expand_dims(x, 0)
        check_input(x.shape[1] == self.in_channels, self._name(), x,
                    f"channel dim {x.shape[1]} != in_channels {self.in_channels}")
        return x, unbatched

    def _args(self, x: Tensor) -> tuple:
        return (x, like(self.weight, x)) + ((like(self.bias, x),) if self.bias is not None else ())


class _ConvNd(_ConvBase):
    """torch-style N-d convolution; `padding` an int, one int per spatial dim, 'valid' or 'same' (stride 1),
    applied with `padding_mode` ('zeros', 'reflect', 'replicate', 'circular')."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", dtype=None) -> None:
        super().__init__()
        self._setup(in_channels, out_channels, kernel_size, stride, dilation, groups, bias, dtype)
        name = self._name()
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"{name}: padding_mode must be one of {_PADDING_MODES}, got {padding_mode!r}")
        self.padding_mode = padding_mode
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"{name}: padding must be an int, a tuple of ints, 'valid' or 'same', "
                                 f"got {padding!r}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError(f"{name}: padding='same' is not supported for strided convolutions "
                                 f"(stride={self.stride})")
            self.padding = padding
            total = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            self._pads = tuple((t // 2, t - t // 2) if padding == "same" else (0, 0) for t in total)
        else:
            self.padding = _ints(name, "padding", padding, self.n, 0)
            self._pads = tuple((p, p) for p in self.padding)

    def construct(self, input: Tensor) -> Tensor:
        x, unbatched = self._batched(input)
        pads = self._pads
        if self.padding_mode != "zeros" and any(p for pr in pads for p in pr):
            x = apply(L.pad_v3, (x,), {"paddings": ((0, 0), (0, 0)) + pads, "mode": self.padding_mode,
                                       "value": 0.0})
            pads = ((0, 0),) * self.n
        y = apply(X.conv_nd, self._args(x), {"stride": self.stride, "padding": pads, "dilation": self.dilation,
                                             "groups": self.groups})
        return F.squeeze(y, 0) if unbatched else y

    def extend_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, groups={self.groups}, "
                f"bias={self.bias is not None}, padding_mode={self.padding_mode}")


class Conv1d(_ConvNd):
    """Convolution over (N, C, L); weight (out_channels, in_channels / groups, k)."""

    n = 1


class Conv2d(_ConvNd):
    """Convolution over (N, C, H, W); weight (out_channels, in_channels / groups, kH, kW)."""

    n = 2


class Conv3d(_ConvNd):
    """Convolution over (N, C, D, H, W); weight (out_channels, in_channels / groups, kD, kH, kW)."""

    n = 3


class ConvTranspose2d(_ConvBase):
    """Transposed 2-d convolution (the gradient of Conv2d wrt its input); weight (in, out / groups, kH, kW).
    Output size (H - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1; `output_size` in
    the call picks `output_padding` as torch does. Only padding_mode='zeros' exists (as in MindSpore)."""

    n = 2
    transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", dtype=None) -> None:
        super().__init__()
        self._setup(in_channels, out_channels, kernel_size, stride, dilation, groups, bias, dtype)
        name = self._name()
        if padding_mode != "zeros":
            raise ValueError(f"{name}: only padding_mode='zeros' is supported for ConvTranspose2d, "
                             f"got {padding_mode!r}")
        self.padding_mode = padding_mode
        self.padding = _ints(name, "padding", padding, 2, 0)
        self.output_padding = _ints(name, "output_padding", output_padding, 2, 0)
        if any(op >= max(s, d) for op, s, d in zip(self.output_padding, self.stride, self.dilation)):
            raise ValueError(f"{name}: output_padding {self.output_padding} must be smaller than stride "
                             f"{self.stride} or dilation {self.dilation}")

    def construct(self, input: Tensor, output_size=None) -> Tensor:
        x, unbatched = self._batched(input)
        extra = self.output_padding
        if output_size is not None:
            extra = self._output_padding(tuple(x.shape[2:]), tuple(int(s) for s in output_size)[-2:])
        y = _conv_transpose2d(self._args(x), self.stride, self.padding, extra, self.groups, self.dilation)
        return F.squeeze(y, 0) if unbatched else y

    def _output_padding(self, size: tuple[int, ...], want: tuple[int, ...]) -> tuple[int, ...]:
        out = []
        for n, w, k, s, p, d in zip(size, want, self.kernel_size, self.stride, self.padding, self.dilation):
            low = (n - 1) * s - 2 * p + d * (k - 1) + 1
            if not low <= w < low + s:
                raise ValueError(f"{self._name()}: output_size {want} is not reachable from input size {size}: "
                                 f"each must lie in [{low}, {low + s})")
            out.append(w - low)
        return tuple(out)

    def extend_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, output_padding={self.output_padding}, groups={self.groups}, "
                f"bias={self.bias is not None}, dilation={self.dilation}")


def _conv_transpose2d(args: tuple, stride, padding, output_padding, groups, dilation) -> Tensor:
    return apply(L.conv2d_transpose, args, {"stride": stride, "crop": tuple((p, p) for p in padding),
                                            "dilation": dilation, "groups": groups, "output_padding": output_padding})


conv_transpose2d = _conv_transpose_fn.conv_transpose2d  # MindSpore's ops and mint share this function


# ---------------------------------------------------------------- normalisation
class _BatchNorm(Cell):
    """torch's batch norm: normalise over every axis but the channel axis 1. While training (or always,
    with track_running_stats=False) it uses the batch's statistics and, when tracking, updates
    `running = (1 - momentum) * running + momentum * batch` (unbiased variance; momentum=None: the
    cumulative average, 1 / num_batches_tracked); in eval mode the running statistics normalise."""

    ranks: tuple[int, ...] = (4,)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, dtype=None) -> None:
        super().__init__()
        name = f"{type(self).__name__}(num_features={num_features})"
        if not isinstance(num_features, int) or num_features < 1:
            raise ValueError(f"{name}: num_features must be a positive int, got {num_features!r}")
        if momentum is not None and not 0.0 <= momentum <= 1.0:
            raise ValueError(f"{name}: momentum must be None or in [0, 1] (the weight of the batch statistic), "
                             f"got {momentum}")
        self.num_features, self.eps = num_features, float(eps)
        self.momentum = None if momentum is None else float(momentum)
        self.affine, self.track_running_stats = bool(affine), bool(track_running_stats)
        dt, shape = _dtype(dtype), (num_features,)
        self.weight = make_param(name, "weight", "ones", shape, dt) if affine else None
        self.bias = make_param(name, "bias", "zeros", shape, dt) if affine else None
        if self.track_running_stats:
            self.running_mean = make_param(name, "running_mean", "zeros", shape, dt, requires_grad=False)
            self.running_var = make_param(name, "running_var", "ones", shape, dt, requires_grad=False)
            self.num_batches_tracked = Parameter(Tensor(np.array(0, np.int64)), requires_grad=False)
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    def _name(self) -> str:
        return f"{type(self).__name__}(num_features={self.num_features})"

    def construct(self, input: Tensor) -> Tensor:
        check_input(input.ndim in self.ranks, self._name(), input,
                    f"expected {' or '.join(f'{r}D' for r in self.ranks)} input, but got {input.ndim}D input")
        check_input(input.shape[1] == self.num_features, self._name(), input,
                    f"channel dim {input.shape[1]} != num_features {self.num_features}")
        ones = F.ones((self.num_features,), input.dtype)
        zeros = F.zeros((self.num_features,), input.dtype)
        weight = like(self.weight, input) if self.affine else ones
        bias = like(self.bias, input) if self.affine else zeros
        track = self.track_running_stats
        mean = like(self.running_mean, input) if track else zeros
        var = like(self.running_var, input) if track else ones
        use_batch = self.training or not track
        # momentum 0 (the primitive's weight of the old stats) returns the batch mean and unbiased variance
        y, batch_mean, batch_var = apply(FN.batch_norm_, (input, weight, bias, mean, var),
                                         {"is_training": bool(use_batch), "epsilon": self.eps, "momentum": 0.0,
                                          "axis": 1})
        if self.training and track:
            count = self.num_batches_tracked + 1
            self.num_batches_tracked._rebind(count)
            f = self.momentum if self.momentum is not None else 1.0 / F.cast(count, mstype.float32)
            for stat, batch in ((self.running_mean, batch_mean), (self.running_var, batch_var)):
                stat._rebind(like(stat + (like(batch, stat) - stat) * f, stat))
        return y

    def extend_repr(self) -> str:
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L)."""

    ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W)."""

    ranks = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch norm over (N, C, D, H, W)."""

    ranks = (5,)


class SyncBatchNorm(_BatchNorm):
    """Batch norm over (N, C, *) whose statistics would be reduced over `process_group`; msx runs one
    process, where it is exactly BatchNorm (a process group other than the default one is refused)."""

    ranks = (2, 3, 4, 5)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group: str | None = None, dtype=None) -> None:
        if process_group is not None:
            raise ValueError(f"SyncBatchNorm(num_features={num_features}): msx runs in one process; only "
                             f"process_group=None (the whole, one-process world) is supported, got "
                             f"{process_group!r}")
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype)


class LayerNorm(Cell):
    """Normalise the trailing `normalized_shape` dims; optional elementwise `weight` (ones) and `bias` (zeros)."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 dtype=None) -> None:
        super().__init__()
        shape = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) \
            else tuple(int(d) for d in normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, float(eps), bool(elementwise_affine)
        dt, name = _dtype(dtype), f"LayerNorm({shape})"
        self.weight = make_param(name, "weight", "ones", shape, dt) if elementwise_affine else None
        self.bias = make_param(name, "bias", "zeros", shape, dt) if elementwise_affine and bias else None

    def construct(self, input: Tensor) -> Tensor:
        n = len(self.normalized_shape)
        check_input(tuple(input.shape[input.ndim - n:]) == self.normalized_shape and input.ndim >= n,
                    f"LayerNorm({self.normalized_shape})", input,
                    f"the trailing dims must equal normalized_shape {self.normalized_shape}")
        weight = like(self.weight, input) if self.weight is not None else None
        bias = like(self.bias, input) if self.bias is not None else None
        return F.layer_norm(input, self.normalized_shape, weight, bias, self.eps)

    def extend_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Cell):
    """Normalise each of `num_groups` channel groups of (N, C, *) over its channels and spatial dims, then
    scale by per-channel `weight` and shift by `bias` (kept, frozen, with affine=False as MindSpore does)."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 dtype=None) -> None:
        super().__init__()
        name = f"GroupNorm(num_groups={num_groups}, num_channels={num_channels})"
        if num_groups < 1 or num_channels % num_groups:
            raise ValueError(f"{name}: num_channels must be divisible by num_groups, got num_channels "
                             f"{num_channels} and num_groups {num_groups}")
        self.num_groups, self.num_channels, self.eps, self.affine = int(num_groups), int(num_channels), \
            float(eps), bool(affine)
        dt = _dtype(dtype)
        self.weight = make_param(name, "weight", "ones", (num_channels,), dt, requires_grad=self.affine)
        self.bias = make_param(name, "bias", "zeros", (num_channels,), dt, requires_grad=self.affine)

    def construct(self, input: Tensor) -> Tensor:
        check_input(input.ndim >= 2 and input.shape[1] == self.num_channels,
                    f"GroupNorm(num_groups={self.num_groups}, num_channels={self.num_channels})", input,
                    f"expected (N, {self.num_channels}, *)")
        return X.group_norm(input, self.num_groups, like(self.weight, input), like(self.bias, input), self.eps)

    def extend_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose2d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
           "SyncBatchNorm", "LayerNorm", "GroupNorm", "Embedding"]
