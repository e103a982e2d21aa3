"""Normalisation layers: `BatchNorm1d`, `BatchNorm2d`, `LayerNorm`."""
from __future__ import annotations

from ... import dtype as mstype
from ...ops import nn_ops as N
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
        self.gamma = make_param(name, "gamma_init", gamma_init, shape, dtype, requires_grad=self.affine)
        self.beta = make_param(name, "beta_init", beta_init, shape, dtype, requires_grad=self.affine)
        self.moving_mean = make_param(name, "moving_mean_init", moving_mean_init, shape, dtype, requires_grad=False)
        self.moving_variance = make_param(name, "moving_var_init", moving_var_init, shape, dtype,
                                          requires_grad=False)

    def construct(self, x: Tensor) -> Tensor:
        name = f"{type(self).__name__}(num_features={self.num_features})"
        axis = 3 if self.data_format == "NHWC" else 1
        check_input(x.ndim in self.ranks, name, x, f"expected a {' or '.join(map(str, self.ranks))}-D input")
        check_input(x.shape[axis] == self.num_features, name, x,
                    f"channel dim {x.shape[axis]} != num_features {self.num_features}")
        use_batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        y, new_mean, new_var = apply(N.batch_norm, (x, self.gamma, self.beta, self.moving_mean, self.moving_variance),
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

    def construct(self, x: Tensor) -> Tensor:
        name = f"LayerNorm({self.normalized_shape})"
        ok = -x.ndim <= self.begin_params_axis < x.ndim and -x.ndim <= self.begin_norm_axis < x.ndim
        check_input(ok and tuple(x.shape[self.begin_params_axis:]) == self.normalized_shape, name, x,
                    f"dims from begin_params_axis={self.begin_params_axis} must equal normalized_shape "
                    f"{self.normalized_shape} (and begin_norm_axis={self.begin_norm_axis} must be a valid axis)")
        return apply(N.layer_norm, (x, like(self.gamma, x), like(self.beta, x)),
                     {"begin_norm_axis": self.begin_norm_axis, "epsilon": self.epsilon})

    def extend_repr(self) -> str:
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, gamma={self.gamma}, beta={self.beta}")
