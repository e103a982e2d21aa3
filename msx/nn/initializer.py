"""Parameter initializers (MindSpore's `mindspore.common.initializer`).

`initializer(init, shape, dtype)` makes a Tensor now (msx has no lazy init).
Random initializers draw their key from the global PRNG state, so
`msx.set_seed` makes weights reproducible. Fan-based ones read MindSpore's
weight layouts: Dense (out, in), Conv OIHW, i.e. fan_in = shape[1] * receptive
field, fan_out = shape[0] * receptive field.
"""
from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..ops.sizes import check_size
from ..tensor import Tensor, register_initializer


def _fans(shape: tuple[int, ...]) -> tuple[int, int]:
    if len(shape) < 2:
        raise ValueError(f"fan_in and fan_out need a shape with at least 2 dims (out, in, ...), got {shape}")
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


def _gain(nonlinearity: str, param: float | None = None) -> float:
    """torch/MindSpore `calculate_gain`: the std multiplier that keeps activations' variance."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"unsupported nonlinearity {nonlinearity!r}; use one of {list(linear)} "
                     f"or 'tanh', 'relu', 'leaky_relu', 'selu'")


def _key() -> jax.Array:
    from ..ops.functional import _next_key

    return jax.random.wrap_key_data(_next_key()._data)


def _float(np_dtype: np.dtype) -> np.dtype:
    """Random values are drawn in float32 for integer targets, then cast."""
    return np_dtype if jnp.issubdtype(np_dtype, jnp.floating) else np.dtype(np.float32)


class Initializer:
    """Base class. A subclass either overrides `_make(shape, np_dtype) -> array` or,
    as in MindSpore, `_initialize(self, arr)` which fills a numpy array in place."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs

    def _initialize(self, arr: np.ndarray) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define _initialize(arr) or _make(shape, dtype)")

    def _make(self, shape: tuple[int, ...], np_dtype: np.dtype) -> jax.Array:
        arr = np.zeros(shape, np_dtype)
        self._initialize(arr)
        return jnp.asarray(arr)

    def __call__(self, arr: np.ndarray) -> None:
        """MindSpore's protocol: fill `arr` in place."""
        arr[...] = np.asarray(self._make(tuple(arr.shape), arr.dtype))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


class Constant(Initializer):
    """Every element is `value`."""

    def __init__(self, value: float) -> None:
        super().__init__(value=value)
        self.value = value

    def _make(self, shape, np_dtype):
        return jnp.full(shape, self.value, np_dtype)


class Zero(Constant):
    def __init__(self) -> None:
        super().__init__(0)
        self._kwargs = {}


class One(Constant):
    def __init__(self) -> None:
        super().__init__(1)
        self._kwargs = {}


class Normal(Initializer):
    """N(mean, sigma^2)."""

    def __init__(self, sigma: float = 0.01, mean: float = 0.0) -> None:
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def _make(self, shape, np_dtype):
        return (jax.random.normal(_key(), shape, _float(np_dtype)) * self.sigma + self.mean).astype(np_dtype)


class Uniform(Initializer):
    """U(-scale, scale)."""

    def __init__(self, scale: float = 0.07) -> None:
        super().__init__(scale=scale)
        self.scale = scale

    def _make(self, shape, np_dtype):
        return jax.random.uniform(_key(), shape, _float(np_dtype), -self.scale, self.scale).astype(np_dtype)


class TruncatedNormal(Initializer):
    """N(mean, sigma^2) truncated to [a, b] (absolute bounds, MindSpore 2.x)."""

    def __init__(self, sigma: float = 0.01, mean: float = 0.0, a: float = -2.0, b: float = 2.0) -> None:
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _make(self, shape, np_dtype):
        lo, hi = (self.a - self.mean) / self.sigma, (self.b - self.mean) / self.sigma
        z = jax.random.truncated_normal(_key(), lo, hi, shape, _float(np_dtype))
        return (z * self.sigma + self.mean).astype(np_dtype)


class _VarianceScaling(Initializer):
    """Shared body of He/Xavier: jax's variance_scaling over MindSpore's (out, in, ...) layout."""

    distribution = "uniform"

    def _scale_and_mode(self) -> tuple[float, str]:
        raise NotImplementedError

    def _make(self, shape, np_dtype):
        _fans(shape)  # a clear error for shapes without fans
        scale, mode = self._scale_and_mode()
        init = jax.nn.initializers.variance_scaling(scale, mode, self.distribution, in_axis=1, out_axis=0)
        return init(_key(), shape, _float(np_dtype)).astype(np_dtype)


class HeUniform(_VarianceScaling):
    """Kaiming uniform: U(-b, b), b = gain * sqrt(3 / fan). `HeUniform(sqrt(5))` is Dense/Conv's default."""

    def __init__(self, negative_slope: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu") -> None:
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"{type(self).__name__}: mode must be 'fan_in' or 'fan_out', got {mode!r}")
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.gain = _gain(nonlinearity, negative_slope)
        self.mode = mode

    def _scale_and_mode(self):
        return self.gain ** 2, self.mode


class HeNormal(HeUniform):
    """Kaiming normal: N(0, std^2), std = gain / sqrt(fan)."""

    distribution = "normal"


class XavierUniform(_VarianceScaling):
    """Glorot uniform: U(-b, b), b = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, gain: float = 1) -> None:
        super().__init__(gain=gain)
        self.gain = gain

    def _scale_and_mode(self):
        return float(self.gain) ** 2, "fan_avg"


class XavierNormal(XavierUniform):
    """Glorot normal: N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out))."""

    distribution = "normal"


_BY_NAME: dict[str, type] = {
    "zeros": Zero, "zero": Zero, "ones": One, "one": One, "normal": Normal, "uniform": Uniform,
    "he_uniform": HeUniform, "heuniform": HeUniform, "he_normal": HeNormal, "henormal": HeNormal,
    "xavier_uniform": XavierUniform, "xavieruniform": XavierUniform,
    "xavier_normal": XavierNormal, "xaviernormal": XavierNormal,
    "truncatednormal": TruncatedNormal, "truncated_normal": TruncatedNormal,
}


def _shape_tuple(shape) -> tuple[int, ...]:
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"initializer: shape {shape} has a negative dimension")
    return shape


def initializer(init: Any, shape=None, dtype=mstype.float32) -> Tensor:
    """A Tensor of `shape` and `dtype` filled by `init`.

    `init` is an Initializer, one of the names in `_BY_NAME` ('normal',
    'he_uniform', ...), a number (a constant), or a Tensor / numpy array whose
    shape must equal `shape` (which may then be omitted).
    """
    np_dtype = mstype.to_np(dtype)
    if isinstance(init, (Tensor, np.ndarray, jax.Array)):
        data = init._data if isinstance(init, Tensor) else jnp.asarray(init)
        if shape is not None and tuple(data.shape) != _shape_tuple(shape):
            raise ValueError(f"initializer: the init tensor has shape {tuple(data.shape)}, "
                             f"but the requested shape is {_shape_tuple(shape)}")
        return Tensor._from(data.astype(np_dtype))
    if shape is None:
        raise ValueError(f"initializer: shape is required for init={init!r}")
    shape = _shape_tuple(shape)
    check_size("initializer", shape, np_dtype)  # before `_make` allocates it (XLA would abort the process)
    if isinstance(init, str):
        cls = _BY_NAME.get(init.lower())
        if cls is None:
            raise ValueError(f"initializer: unknown init {init!r}; valid names are {sorted(_BY_NAME)}")
        init = cls()
    elif isinstance(init, (bool, int, float, np.number)):
        init = Constant(init)
    elif not isinstance(init, Initializer):
        raise TypeError(f"initializer: init must be an Initializer, a str, a number or a Tensor, "
                        f"got {type(init).__name__}")
    return Tensor._from(jnp.asarray(init._make(shape, np_dtype), np_dtype))


register_initializer(initializer)  # Tensor(init=...) fills through it (tensor cannot import nn)
