"""Normalisation layers: `BatchNorm1d`, `BatchNorm2d`, `LayerNorm`."""
from __future__ import annotations

from ... import dtype as mstype
from ...ops import functional as F
from ...ops import functional_nn as FN
from ...ops.layer_classes import LRN as LRNOp, LayerNorm as LayerNormOp
from ...ops.primitive import apply
from ...tensor import Tensor
from ..cell import Cell
from ._utils import check_input, like, make_param


class _BatchNorm(Cell):
    """Normalises over every axis but the channel axis.

    With batch statistics (training, or `use_batch_statistics=True`) the moving
    stats are updated in place: new = momentum * old + (1 - momentum) * batch stat
    (the unbiased variance); otherwise the moving stats normalise.
    """

    ranks: tuple[int, ...] = (4,)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9, affine: bool = True,
                 gamma_init="ones", beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics: bool | None = None, data_format: str = "NCHW",
                 dtype=mstype.float32) -> None:
        super().__init__()
        name = f"{type(self).__name__}(num_features={num_features})"
        if not isinstance(num_features, int) or num_features < 1:
            raise ValueError(f"{name}: num_features must be a positive int")
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"{name}: momentum must be in [0, 1] (the weight of the old moving stats), "
                             f"got {momentum}")
        if use_batch_statistics not in (None, True, False):
            raise ValueError(f"{name}: use_batch_statistics must be None, True or False")
        formats = ("NCHW", "NHWC") if self.ranks == (4,) else ("NCHW",)
        if data_format not in formats:
            raise ValueError(f"{name}: data_format must be one of {formats}, got {data_format!r}")
        self.num_features, self.eps, self.momentum = num_features, float(eps), float(momentum)
        self.affine, self.use_batch_statistics, self.data_format = bool(affine), use_batch_statistics, data_format
        shape = (num_features,)
        # MindSpore's order (moving statistics first): get_parameters(), optimizers and checkpoints list them so
        self.moving_mean = make_param(name, "moving_mean_init", moving_mean_init, shape, dtype, requires_grad=False)
        self.moving_variance = make_param(name, "moving_var_init", moving_var_init, shape, dtype,
                                          requires_grad=False)
        self.gamma = make_param(name, "gamma_init", gamma_init, shape, dtype, requires_grad=self.affine)
        self.beta = make_param(name, "beta_init", beta_init, shape, dtype, requires_grad=self.affine)

    def construct(self, x: Tensor) -> Tensor:
        name = f"{type(self).__name__}(num_features={self.num_features})"
        axis = 3 if self.data_format == "NHWC" else 1
        check_input(x.ndim in self.ranks, name, x, f"expected a {' or '.join(map(str, self.ranks))}-D input")
        check_input(x.shape[axis] == self.num_features, name, x,
                    f"channel dim {x.shape[axis]} != num_features {self.num_features}")
        use_batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        y, new_mean, new_var = apply(FN.batch_norm_, (x, self.gamma, self.beta, self.moving_mean, self.moving_variance),
                                     {"is_training": bool(use_batch), "epsilon": self.eps, "momentum": self.momentum,
                                      "axis": axis})
        if use_batch:
            self.moving_mean._rebind(like(new_mean, self.moving_mean))
            self.moving_variance._rebind(like(new_var, self.moving_variance))
        return like(y, x)

    def extend_repr(self) -> str:
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
                f"moving_variance={self.moving_variance}")


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) (or NHWC with data_format='NHWC')."""

    ranks = (4,)


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L)."""

    ranks = (2, 3)


class LayerNorm(Cell):
    """Normalises over axes `begin_norm_axis`.. and scales by gamma/beta of shape `normalized_shape`,
    which must equal the input's shape from `begin_params_axis` on."""

    def __init__(self, normalized_shape, begin_norm_axis: int = -1, begin_params_axis: int = -1,
                 gamma_init="ones", beta_init="zeros", epsilon: float = 1e-7, dtype=mstype.float32) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(int(d) for d in normalized_shape)
        name = f"LayerNorm({shape})"
        self.normalized_shape, self.epsilon = shape, float(epsilon)
        self.begin_norm_axis, self.begin_params_axis = int(begin_norm_axis), int(begin_params_axis)
        self.gamma = make_param(name, "gamma_init", gamma_init, shape, dtype)
        self.beta = make_param(name, "beta_init", beta_init, shape, dtype)
        # MindSpore's attribute: subclasses call it (mindcv's ConvNextLayerNorm: `y, _, _ = self.layer_norm(x, g, b)`)
        self.layer_norm = LayerNormOp(begin_norm_axis=self.begin_norm_axis, begin_params_axis=self.begin_params_axis,
                                      epsilon=self.epsilon)

    def construct(self, x: Tensor) -> Tensor:
        name = f"LayerNorm({self.normalized_shape})"
        ok = -x.ndim <= self.begin_params_axis < x.ndim and -x.ndim <= self.begin_norm_axis < x.ndim
        check_input(ok and tuple(x.shape[self.begin_params_axis:]) == self.normalized_shape, name, x,
                    f"dims from begin_params_axis={self.begin_params_axis} must equal normalized_shape "
                    f"{self.normalized_shape} (and begin_norm_axis={self.begin_norm_axis} must be a valid axis)")
        return apply(FN.layer_norm_, (x, like(self.gamma, x), like(self.beta, x)),
                     {"begin_norm_axis": self.begin_norm_axis, "epsilon": self.epsilon})

    def extend_repr(self) -> str:
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, gamma={self.gamma}, beta={self.beta}")


class BatchNorm3d(_BatchNorm):
    """Batch norm over (N, C, D, H, W) (MindSpore keeps its parameters in a BatchNorm2d named `bn2d`)."""

    ranks = (5,)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9, affine: bool = True,
                 gamma_init="ones", beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics: bool | None = None, dtype=mstype.float32) -> None:
        Cell.__init__(self)
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                                moving_var_init, use_batch_statistics, dtype=dtype)

    def construct(self, x: Tensor) -> Tensor:
        check_input(x.ndim == 5, f"BatchNorm3d(num_features={self.bn2d.num_features})", x, "expected a 5-D input")
        n, c, d, h, w = x.shape
        y = self.bn2d(F.reshape(x, (n, c, d * h, w)))
        return F.reshape(y, (n, c, d, h, w))

    def extend_repr(self) -> str:
        return self.bn2d.extend_repr()


class GroupNorm(Cell):
    """Normalises each of `num_groups` channel groups of every sample over (channels in group, spatial),
    then scales by per-channel gamma/beta."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 gamma_init="ones", beta_init="zeros", dtype=mstype.float32) -> None:
        super().__init__()
        name = f"GroupNorm(num_groups={num_groups}, num_channels={num_channels})"
        if num_groups < 1 or num_channels % num_groups:
            raise ValueError(f"{name}: num_channels must be divisible by a positive num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = int(num_groups), int(num_channels), float(eps), affine
        self.gamma = make_param(name, "gamma_init", gamma_init, (num_channels,), dtype, requires_grad=affine)
        self.beta = make_param(name, "beta_init", beta_init, (num_channels,), dtype, requires_grad=affine)

    def construct(self, x: Tensor) -> Tensor:
        name = f"GroupNorm(num_groups={self.num_groups}, num_channels={self.num_channels})"
        check_input(x.ndim >= 2 and x.shape[1] == self.num_channels, name, x,
                    f"expected (N, {self.num_channels}, ...)")
        shape = tuple(x.shape)
        g = F.reshape(x, (shape[0], self.num_groups, -1))
        mean = F.mean(g, -1, True)
        var = F.mean(F.square(g - mean), -1, True)
        y = F.reshape((g - mean) * F.rsqrt(var + self.eps), shape)
        bshape = (1, -1) + (1,) * (len(shape) - 2)
        return y * F.reshape(like(self.gamma, x), bshape) + F.reshape(like(self.beta, x), bshape)

    def extend_repr(self) -> str:
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}, eps={self.eps}, affine={self.affine}"


class _InstanceNorm(Cell):
    """Normalises every (sample, channel) over its spatial dims, always with the instance's own statistics;
    while training the moving stats follow `new = (1 - momentum) * old + momentum * batch mean of the
    instance stats` (unbiased variance), kept for inspection and checkpoints."""

    rank = 4

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 gamma_init="ones", beta_init="zeros", dtype=mstype.float32) -> None:
        super().__init__()
        name = f"{type(self).__name__}(num_features={num_features})"
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"{name}: momentum must be in [0, 1], got {momentum}")
        self.num_features, self.eps, self.momentum, self.affine = int(num_features), float(eps), float(momentum), affine
        shape = (num_features,)
        self.moving_mean = make_param(name, "moving_mean", "zeros", shape, dtype, requires_grad=False)
        self.moving_variance = make_param(name, "moving_variance", "ones", shape, dtype, requires_grad=False)
        self.gamma = make_param(name, "gamma_init", gamma_init, shape, dtype, requires_grad=affine)
        self.beta = make_param(name, "beta_init", beta_init, shape, dtype, requires_grad=affine)

    def construct(self, x: Tensor) -> Tensor:
        name = f"{type(self).__name__}(num_features={self.num_features})"
        check_input(x.ndim == self.rank and x.shape[1] == self.num_features, name, x,
                    f"expected a {self.rank}-D input with {self.num_features} channels")
        axes = tuple(range(2, x.ndim))
        mean = F.mean(x, axes, True)
        var = F.mean(F.square(x - mean), axes, True)
        y = (x - mean) * F.rsqrt(var + self.eps)
        if self.training:
            n = 1
            for d in x.shape[2:]:
                n *= d
            batch_mean = F.stop_gradient(F.mean(F.reshape(mean, x.shape[:2]), 0))
            batch_var = F.stop_gradient(F.mean(F.reshape(var, x.shape[:2]), 0)) * (n / max(n - 1, 1))
            m = self.momentum
            self.moving_mean._rebind(like((1 - m) * self.moving_mean + m * batch_mean, self.moving_mean))
            self.moving_variance._rebind(like((1 - m) * self.moving_variance + m * batch_var, self.moving_variance))
        bshape = (1, -1) + (1,) * (x.ndim - 2)
        return y * F.reshape(like(self.gamma, x), bshape) + F.reshape(like(self.beta, x), bshape)

    def extend_repr(self) -> str:
        return f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}"


class InstanceNorm1d(_InstanceNorm):
    """Instance norm over (N, C, L)."""

    rank = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance norm over (N, C, H, W)."""

    rank = 4


class InstanceNorm3d(_InstanceNorm):
    """Instance norm over (N, C, D, H, W)."""

    rank = 5


class LayerNormExt(Cell):
    """torch-style layer norm (mint's): normalise the trailing `normalized_shape` dims, optional affine
    `weight`/`bias`."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 dtype=None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(int(d) for d in normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, float(eps), bool(elementwise_affine)
        dtype = dtype or mstype.float32
        if elementwise_affine:
            self.weight = make_param("LayerNormExt", "weight", "ones", shape, dtype)
            self.bias = make_param("LayerNormExt", "bias", "zeros", shape, dtype) if bias else None

    def construct(self, x: Tensor) -> Tensor:
        n = len(self.normalized_shape)
        check_input(tuple(x.shape[-n:]) == self.normalized_shape, f"LayerNormExt({self.normalized_shape})", x,
                    f"the trailing dims must equal normalized_shape {self.normalized_shape}")
        axes = tuple(range(x.ndim - n, x.ndim))
        mean = F.mean(x, axes, True)
        y = (x - mean) * F.rsqrt(F.mean(F.square(x - mean), axes, True) + self.eps)
        if self.elementwise_affine:
            y = y * like(self.weight, x)
            if self.bias is not None:
                y = y + like(self.bias, x)
        return y


class LRN(Cell):
    """Local response normalisation across channels of (N, C, H, W): x / (bias + alpha * sum(x^2))^beta over
    the `depth_radius` neighbouring channels on each side (MindSpore's `nn.LRN`)."""

    def __init__(self, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5,
                 norm_region: str = "ACROSS_CHANNELS") -> None:
        super().__init__()
        self.lrn = LRNOp(depth_radius, bias, alpha, beta, norm_region)

    def construct(self, input_x: Tensor) -> Tensor:
        return self.lrn(input_x)
