"""Parameter initializers (MindSpore's `mindspore.common.initializer`), filled on the host.

As in MindSpore, an initializer fills a numpy array: `_initialize(arr)` writes into `arr` in place, and
`initializer(init, shape, dtype)` wraps the filled array in a Tensor (one host-to-device copy, no XLA
compile, so building a network costs what numpy costs). Every random fill takes its seed from numpy's
global stream (`np.random.randint(1, 2**63)`, which `msx.set_seed` seeds as `mindspore.set_seed` does)
and draws MindSpore's own Philox stream and distribution algorithms (`init_random`), so under the same
`set_seed(s)` a network built by msx starts from the same float32 weights as the one MindSpore 2.10
builds, bit for bit (docs/initializers.md says where not: Orthogonal's QR is LAPACK's, to rounding).

msx builds the value when `initializer(...)` is called rather than at `init_data()` time: a Parameter
made from it at once - the way MindSpore's PyNative layers use it - draws the seed at the same point of
numpy's stream, and `Tensor.init_data()` returns the filled Tensor. Fan-based initializers read
MindSpore's weight layouts: Dense (out, in), Conv OIHW, i.e. fan_in = shape[1] * receptive field,
fan_out = shape[0] * receptive field.
"""
from __future__ import annotations

import contextlib
import math
from typing import Any, Callable, Iterator

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from .. import tensor as tensor_mod
from ..sizes import check_size
from ..tensor import Tensor, host_array, register_initializer
from . import init_random


def _fans(shape: tuple[int, ...]) -> tuple[int, int]:
    """MindSpore's `_calculate_fan_in_and_fan_out`."""
    if len(shape) < 2:
        raise ValueError(f"fan_in and fan_out need a shape with at least 2 dims (out, in, ...), got {shape}")
    receptive = 1
    for d in shape[2:]:
        receptive *= d
    return shape[1] * receptive, shape[0] * receptive


def _gain(nonlinearity: str, param: float | None = None) -> float:
    """MindSpore's `_calculate_gain` (the same Python arithmetic, so the same bounds to the last bit)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"leaky_relu gain: negative_slope must be an int or a float, got {param!r}")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"unsupported nonlinearity {nonlinearity!r}; use one of {list(linear)} "
                     f"or 'tanh', 'relu', 'leaky_relu', 'selu'")


def _calculate_correct_fan(shape: tuple[int, ...], mode: str) -> int:
    """MindSpore's helper of the same name: fan_in or fan_out of `shape`."""
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan_in, fan_out = _fans(shape)
    return fan_in if mode == "fan_in" else fan_out


# MindSpore's private names for these helpers, which model-zoo code imports from mindspore.common.initializer
_calculate_fan_in_and_fan_out = _fans
_calculate_gain = _gain


def _assign(arr: np.ndarray, data: np.ndarray) -> None:
    """MindSpore's `_assignment`: cast `data` (float32 or float64) into `arr`."""
    arr[...] = np.asarray(data).reshape(arr.shape)


def _own_float32(arr: np.ndarray) -> np.ndarray | None:
    """`arr`'s own memory as a flat float32 vector, when a random fill can write its values there directly (no
    second array and copy: a fresh parameter's pages are touched once); None for any other dtype or layout,
    which `_assign` casts into as MindSpore's `_assignment` does."""
    return arr.reshape(-1) if arr.dtype == np.float32 and arr.flags.c_contiguous else None


def _drawn_into(arr: np.ndarray, draw: Callable[[np.ndarray | None], np.ndarray]) -> None:
    """Fill `arr` with `draw(out)`: written into `arr` itself where `_own_float32` allows, else cast into it."""
    out = _own_float32(arr)
    data = draw(out)
    if out is None:
        _assign(arr, data)


def _uniform(arr: np.ndarray, a: float, b: float) -> None:
    _drawn_into(arr, lambda out: init_random.uniform(init_random.numpy_seed(), arr.size, a, b, out=out))


def _normal_array(mean: float, sigma: float, shape: tuple[int, ...], out: np.ndarray | None = None) -> np.ndarray:
    if sigma < 0:
        raise ValueError(f"Normal: sigma must be >= 0, got {sigma}")
    n = int(np.prod(shape))
    return init_random.normal(init_random.numpy_seed(), n, mean, sigma, out=out).reshape(shape)


def _normal(arr: np.ndarray, mean: float, sigma: float) -> None:
    _drawn_into(arr, lambda out: _normal_array(mean, sigma, arr.shape, out))


def _truncated_normal(arr: np.ndarray, a: float, b: float, mean: float, sigma: float) -> None:
    _drawn_into(arr, lambda out: init_random.truncated_normal(init_random.numpy_seed(), arr.size, a, b, mean,
                                                            sigma, out=out))


class Initializer:
    """Base class: a subclass defines `_initialize(self, arr)`, which fills the numpy array `arr` in place
    (MindSpore's protocol; `init(arr)` calls it)."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs

    def _initialize(self, arr: np.ndarray) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define _initialize(arr)")

    def _make(self, shape: tuple[int, ...], np_dtype: np.dtype) -> np.ndarray:
        arr = np.zeros(shape, np_dtype)
        self._initialize(arr)
        return arr

    def __call__(self, arr: np.ndarray) -> None:
        """MindSpore's protocol: fill `arr` in place."""
        return self._initialize(arr)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


class Constant(Initializer):
    """Every element is `value` (a number, or an array broadcast to the shape)."""

    def __init__(self, value: Any) -> None:
        super().__init__(value=value)
        self.value = value

    def _initialize(self, arr):
        arr[...] = self.value


class Zero(Initializer):
    def _initialize(self, arr):
        arr.fill(0)


class One(Initializer):
    def _initialize(self, arr):
        arr.fill(1)


class Normal(Initializer):
    """N(mean, sigma^2)."""

    def __init__(self, sigma: float = 0.01, mean: float = 0.0) -> None:
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def _initialize(self, arr):
        _normal(arr, self.mean, self.sigma)


class Uniform(Initializer):
    """U(-scale, scale)."""

    def __init__(self, scale: float = 0.07) -> None:
        super().__init__(scale=scale)
        self.scale = scale

    def _initialize(self, arr):
        _uniform(arr, -self.scale, self.scale)


class TruncatedNormal(Initializer):
    """N(mean, sigma^2) truncated to [a, b] (absolute bounds, MindSpore 2.x)."""

    def __init__(self, sigma: float = 0.01, mean: float = 0.0, a: float = -2.0, b: float = 2.0) -> None:
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _initialize(self, arr):
        _truncated_normal(arr, self.a, self.b, self.mean, self.sigma)


class HeUniform(Initializer):
    """Kaiming uniform: U(-b, b), b = sqrt(3) * gain / sqrt(fan). `HeUniform(sqrt(5))` is Dense/Conv's default."""

    def __init__(self, negative_slope: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu") -> None:
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"{type(self).__name__}: mode must be 'fan_in' or 'fan_out', got {mode!r}")
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity
        self.gain = _gain(nonlinearity, negative_slope)

    def _std(self, shape) -> float:
        fan_in, fan_out = _fans(shape)
        return self.gain / math.sqrt(fan_in if self.mode == "fan_in" else fan_out)

    def _initialize(self, arr):
        boundary = math.sqrt(3.0) * self._std(arr.shape)
        _uniform(arr, -boundary, boundary)


class HeNormal(HeUniform):
    """Kaiming normal: N(0, std^2), std = gain / sqrt(fan)."""

    def _initialize(self, arr):
        _normal(arr, 0, self._std(arr.shape))


class XavierUniform(Initializer):
    """Glorot uniform: U(-b, b), b = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, gain: float = 1) -> None:
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        n_in, n_out = _fans(arr.shape)
        boundary = self.gain * math.sqrt(6.0 / (n_in + n_out))
        _uniform(arr, -boundary, boundary)


class XavierNormal(XavierUniform):
    """Glorot normal: N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out))."""

    def _initialize(self, arr):
        fan_in, fan_out = _fans(arr.shape)
        _normal(arr, 0, self.gain * math.sqrt(2.0 / float(fan_in + fan_out)))


class Identity(Initializer):
    """A 2-d identity matrix (np.eye of the shape)."""

    def _initialize(self, arr):
        if arr.ndim != 2:
            raise ValueError(f"Identity initializer needs a 2-d shape, got {arr.shape}")
        _assign(arr, np.eye(arr.shape[0], arr.shape[1]))


class Sparse(Initializer):
    """A 2-d N(0, sigma^2) matrix with ceil(sparsity * rows) zeros in each column (rows chosen by
    numpy's global stream, after the normal fill, as MindSpore does)."""

    def __init__(self, sparsity: float, sigma: float = 0.01) -> None:
        super().__init__()
        self.sparsity, self.sigma = sparsity, sigma

    def _initialize(self, arr):
        if arr.ndim != 2:
            raise ValueError(f"Sparse initializer needs a 2-d shape, got {arr.shape}")
        rows, cols = arr.shape
        zero_num = int(np.ceil(self.sparsity * rows))
        data = _normal_array(0, self.sigma, arr.shape)
        for col in range(cols):
            data[np.random.permutation(list(range(rows)))[:zero_num], col] = 0.0
        _assign(arr, data)


class Dirac(Initializer):
    """A Dirac delta per (group, channel) at the kernel's centre: a convolution that keeps its input."""

    def __init__(self, groups: int = 1) -> None:
        super().__init__()
        self.groups = groups

    def _initialize(self, arr):
        shape = arr.shape
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Dirac initializer needs a 3-, 4- or 5-d shape, got {shape}")
        if shape[0] % self.groups:
            raise ValueError(f"Dirac initializer: the first dim {shape[0]} must be divisible by groups "
                             f"{self.groups}")
        data = np.zeros(shape)
        per_group = shape[0] // self.groups
        centre = tuple(d // 2 for d in shape[2:])
        for group in range(self.groups):
            for dim in range(min(per_group, shape[1])):
                data[(group * per_group + dim, dim) + centre] = 1
        _assign(arr, data)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix from the QR of a N(0, 1) draw, trailing dims flattened, times `gain`."""

    def __init__(self, gain: float = 1.0) -> None:
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        if arr.ndim < 2:
            raise ValueError(f"Orthogonal initializer needs at least 2 dims, got {arr.shape}")
        rows = arr.shape[0]
        cols = int(np.prod(arr.shape)) // rows
        data = _normal_array(0, 1, (rows, cols))
        if rows < cols:
            data = data.T
        q, r = np.linalg.qr(data)
        q *= np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        _assign(arr, (q * self.gain).reshape(arr.shape))


class VarianceScaling(Initializer):
    """scale / n variance, n = fan_in, fan_out or their mean; 'uniform' U(-sqrt(3 scale / n), +),
    'untruncated_normal' N(0, scale / n).

    MindSpore 2.10 tests for 'truncated_norm' (a name its own argument check rejects), so its default
    'truncated_normal' draws from the uniform branch; msx does the same, to give MindSpore's weights.
    """

    def __init__(self, scale: float = 1.0, mode: str = "fan_in", distribution: str = "truncated_normal") -> None:
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        if scale <= 0.0:
            raise ValueError(f"VarianceScaling: scale must be > 0, got {scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"VarianceScaling: mode must be 'fan_in', 'fan_out' or 'fan_avg', got {mode!r}")
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"VarianceScaling: distribution must be 'uniform', 'truncated_normal' or "
                             f"'untruncated_normal', got {distribution!r}")
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _initialize(self, arr):
        scale = self.scale
        fan_in, fan_out = _fans(arr.shape)
        if self.mode == "fan_in":
            scale /= max(1.0, fan_in)
        elif self.mode == "fan_out":
            scale /= max(1.0, fan_out)
        else:
            scale /= max(1.0, (fan_in + fan_out) / 2.0)
        if self.distribution == "untruncated_normal":
            _assign(arr, _normal_array(0, np.sqrt(scale), arr.shape))
        else:
            limit = float(np.sqrt(3.0 * scale))
            _uniform(arr, -limit, limit)


_BY_NAME: dict[str, type] = {
    "zeros": Zero, "zero": Zero, "ones": One, "one": One, "normal": Normal, "uniform": Uniform,
    "he_uniform": HeUniform, "heuniform": HeUniform, "he_normal": HeNormal, "henormal": HeNormal,
    "xavier_uniform": XavierUniform, "xavieruniform": XavierUniform,
    "xavier_normal": XavierNormal, "xaviernormal": XavierNormal,
    "truncatednormal": TruncatedNormal, "truncated_normal": TruncatedNormal, "identity": Identity,
    "orthogonal": Orthogonal, "dirac": Dirac, "sparse": Sparse, "variancescaling": VarianceScaling,
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
        data = init._data if isinstance(init, Tensor) else init if isinstance(init, jax.Array) else host_array(init)
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
    if tensor_mod.NO_INIT[0]:  # nn.no_init_parameters: drawn when first read, or never if a checkpoint fills it
        return tensor_mod.uninit_tensor(init, shape, np_dtype)
    # filled on the host by msx's own initializer, so the device array may keep its buffer
    return Tensor._from(host_array(np.asarray(init._make(shape, np_dtype), np_dtype), owned=True))


@contextlib.contextmanager
def no_init_parameters() -> Iterator[None]:
    """Parameters made from an initializer inside this block stay unfilled (`has_init` True): their initializer
    runs on `init_data()`, `Cell.init_parameters_data()` or the first read of the value, and never when
    `load_checkpoint` / `set_data` fills them first -- a network built for a checkpoint draws no random
    weights. Parameters made from a Tensor or numpy data are filled as usual (MindSpore's rule)."""
    tensor_mod.NO_INIT[0] += 1
    try:
        yield
    finally:
        tensor_mod.NO_INIT[0] -= 1


register_initializer(initializer)  # Tensor(init=...) fills through it (tensor cannot import nn)
