"""Activation Cells (MindSpore's `nn.ReLU`, ...) and `get_activation` for `Dense(activation='relu')`."""
from __future__ import annotations

import numpy as np

from ...ops import functional as F
from ...tensor import Parameter, Tensor
from ..cell import Cell


class ReLU(Cell):
    def construct(self, x: Tensor) -> Tensor:
        return F.relu(x)


class ReLU6(Cell):
    def construct(self, x: Tensor) -> Tensor:
        return F.relu6(x)


class Sigmoid(Cell):
    def construct(self, x: Tensor) -> Tensor:
        return F.sigmoid(x)


class Tanh(Cell):
    def construct(self, x: Tensor) -> Tensor:
        return F.tanh(x)


class SiLU(Cell):
    def construct(self, x: Tensor) -> Tensor:
        return F.silu(x)


class GELU(Cell):
    """`approximate=True` (MindSpore's default) uses the tanh formula; False, or 'none', the exact erf.
    The strings 'tanh'/'none' are accepted too, for torch-style callers."""

    def __init__(self, approximate: bool | str = True) -> None:
        super().__init__()
        if approximate not in (True, False, "tanh", "none"):
            raise ValueError(f"GELU: approximate must be True, False, 'tanh' or 'none', got {approximate!r}")
        self.approximate = "tanh" if approximate in (True, "tanh") else "none"

    def construct(self, x: Tensor) -> Tensor:
        return F.gelu(x, approximate=self.approximate)

    def extend_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softmax(Cell):
    def __init__(self, axis: int | tuple[int, ...] = -1) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x: Tensor) -> Tensor:
        return F.softmax(x, self.axis)

    def extend_repr(self) -> str:
        return f"axis={self.axis}"


class LogSoftmax(Softmax):
    def construct(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, self.axis)


class LeakyReLU(Cell):
    def __init__(self, alpha: float = 0.2) -> None:
        super().__init__()
        self.alpha = float(alpha)

    def construct(self, x: Tensor) -> Tensor:
        return F.leaky_relu(x, self.alpha)

    def extend_repr(self) -> str:
        return f"alpha={self.alpha}"


class _Param(Cell):
    """An activation with one float argument shown in its repr."""

    _arg = "alpha"

    def __init__(self, value: float = 1.0) -> None:
        super().__init__()
        setattr(self, self._arg, float(value))

    def extend_repr(self) -> str:
        return f"{self._arg}={getattr(self, self._arg)}"


class ELU(_Param):
    """`x` for x > 0, `alpha * (exp(x) - 1)` otherwise."""

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__(alpha)

    def construct(self, x: Tensor) -> Tensor:
        return F.where(x > 0, x, self.alpha * (F.exp(F.minimum(x, 0.0)) - 1))


class CELU(_Param):
    """`max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`."""

    def __init__(self, alpha: float = 1.0) -> None:
        if float(alpha) == 0.0:
            raise ValueError("CELU: alpha must not be 0")
        super().__init__(alpha)

    def construct(self, x: Tensor) -> Tensor:
        return F.relu(x) + F.minimum(self.alpha * (F.exp(F.minimum(x, 0.0) / self.alpha) - 1), 0.0)


class SeLU(Cell):
    """Scaled ELU with the self-normalising constants."""

    _ALPHA, _SCALE = 1.6732632423543772, 1.0507009873554805

    def construct(self, x: Tensor) -> Tensor:
        return self._SCALE * F.where(x > 0, x, self._ALPHA * (F.exp(F.minimum(x, 0.0)) - 1))


class Mish(Cell):
    """`x * tanh(softplus(x))`."""

    def construct(self, x: Tensor) -> Tensor:
        return x * F.tanh(F.softplus(x))


class HSwish(Cell):
    """Hard swish, `x * relu6(x + 3) / 6`."""

    def construct(self, x: Tensor) -> Tensor:
        return x * F.relu6(x + 3.0) / 6.0


class HSigmoid(Cell):
    """Hard sigmoid, `relu6(x + 3) / 6`."""

    def construct(self, x: Tensor) -> Tensor:
        return F.relu6(x + 3.0) / 6.0


class Hardtanh(Cell):
    """`x` clamped to [min_val, max_val]."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0) -> None:
        super().__init__()
        if min_val >= max_val:
            raise ValueError(f"Hardtanh: min_val {min_val} must be below max_val {max_val}")
        self.min_val, self.max_val = float(min_val), float(max_val)

    def construct(self, x: Tensor) -> Tensor:
        return F.minimum(F.maximum(x, self.min_val), self.max_val)

    def extend_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}"


class HShrink(_Param):
    """`x` where |x| > lambd, else 0."""

    _arg = "lambd"

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__(lambd)

    def construct(self, x: Tensor) -> Tensor:
        return F.where(F.abs(x) > self.lambd, x, 0.0 * x)


class SoftShrink(HShrink):
    """`x - lambd` above lambd, `x + lambd` below -lambd, else 0."""

    def __init__(self, lambd: float = 0.5) -> None:
        if lambd < 0:
            raise ValueError(f"SoftShrink: lambd must be >= 0, got {lambd}")
        super().__init__(lambd)

    def construct(self, x: Tensor) -> Tensor:
        return F.where(x > self.lambd, x - self.lambd, F.where(x < -self.lambd, x + self.lambd, 0.0 * x))


class Softsign(Cell):
    """`x / (1 + |x|)`."""

    def construct(self, x: Tensor) -> Tensor:
        return x / (F.abs(x) + 1.0)


class Tanhshrink(Cell):
    """`x - tanh(x)`."""

    def construct(self, x: Tensor) -> Tensor:
        return x - F.tanh(x)


class Threshold(Cell):
    """`x` where x > threshold, else `value`."""

    def __init__(self, threshold: float, value: float) -> None:
        super().__init__()
        self.threshold, self.value = float(threshold), float(value)

    def construct(self, x: Tensor) -> Tensor:
        return F.where(x > self.threshold, x, F.full_like(x, self.value))

    def extend_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}"


class LogSigmoid(Cell):
    """`log(sigmoid(x)) = -softplus(-x)`, stable for large |x|."""

    def construct(self, x: Tensor) -> Tensor:
        return -F.softplus(-x)


class Softmin(Softmax):
    """`softmax(-x)` along `axis`."""

    def construct(self, x: Tensor) -> Tensor:
        return F.softmax(-x, self.axis)


class Softmax2d(Cell):
    """Softmax over the channel axis of (C, H, W) or (N, C, H, W)."""

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected a 3-D or 4-D input, got shape {tuple(x.shape)}")
        return F.softmax(x, -3)


class GLU(Cell):
    """Gated linear unit: split `axis` in halves a, b and return `a * sigmoid(b)`."""

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = int(axis)

    def construct(self, x: Tensor) -> Tensor:
        if x.shape[self.axis] % 2:
            raise ValueError(f"GLU: dim {self.axis} of shape {tuple(x.shape)} must be even")
        a, b = F.split(x, x.shape[self.axis] // 2, self.axis)
        return a * F.sigmoid(b)


class FastGelu(Cell):
    """MindSpore's fast GELU, `x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))`."""

    def construct(self, x: Tensor) -> Tensor:
        ax = F.abs(x)
        return x / (F.exp(ax * -1.702) + 1.0) * F.exp((x - ax) * 0.851)


class PReLU(Cell):
    """`max(0, x) + w * min(0, x)` with a learnt slope `w` per channel (axis 1), or one shared (`channel=1`)."""

    def __init__(self, channel: int = 1, w=0.25) -> None:
        super().__init__()
        if not isinstance(channel, int) or channel < 1:
            raise ValueError(f"PReLU: channel must be a positive int, got {channel!r}")
        if isinstance(w, (int, float)):
            value = Tensor(np.full((channel,), float(w), np.float32))
        elif isinstance(w, (list, tuple, np.ndarray, Tensor)):
            value = Tensor(np.asarray(w.asnumpy() if isinstance(w, Tensor) else w, np.float32))
            if tuple(value.shape) != (channel,):
                raise ValueError(f"PReLU: w must have shape ({channel},), got {tuple(value.shape)}")
        else:
            raise TypeError(f"PReLU: w must be a float, a list or a Tensor, got {type(w).__name__}")
        self.channel = channel
        self.w = Parameter(value, name="a")

    def construct(self, x: Tensor) -> Tensor:
        w = self.w if x.dtype == self.w.dtype else F.cast(self.w, x.dtype)
        if x.ndim >= 2 and self.channel > 1:
            w = F.reshape(w, (1, -1) + (1,) * (x.ndim - 2))
        elif self.channel > 1:
            raise ValueError(f"PReLU: {self.channel} channels need an input of rank >= 2, got shape {tuple(x.shape)}")
        return F.relu(x) - w * F.relu(-x)


class RReLU(Cell):
    """Randomised leaky ReLU: the negative slope is drawn uniformly from [lower, upper] per element on every
    call — in training and in eval, as MindSpore 2.10's RReLU does (torch uses the mean slope in eval)."""

    def __init__(self, lower: float = 1 / 8, upper: float = 1 / 3) -> None:
        super().__init__()
        if not lower <= upper:
            raise ValueError(f"RReLU: lower {lower} must not exceed upper {upper}")
        self.lower, self.upper = float(lower), float(upper)

    def construct(self, x: Tensor) -> Tensor:
        slope = F.cast(F.uniform(tuple(x.shape), Tensor(self.lower), Tensor(self.upper)), x.dtype)
        return F.where(x >= 0, x, x * slope)

    def extend_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}"


class LogSoftmaxExt(Cell):
    """log(softmax(x)) along `dim` (None: MindSpore's legacy choice, 0 for 0-D/1-D/3-D inputs, else 1)."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def construct(self, x: Tensor) -> Tensor:
        dim = self.dim if self.dim is not None else (0 if x.ndim in (0, 1, 3) else 1)
        return F.log_softmax(x, dim)



_ACTIVATIONS: dict[str, type] = {
    "relu": ReLU, "relu6": ReLU6, "sigmoid": Sigmoid, "tanh": Tanh, "silu": SiLU, "swish": SiLU, "gelu": GELU,
    "softmax": Softmax, "logsoftmax": LogSoftmax, "log_softmax": LogSoftmax, "leakyrelu": LeakyReLU,
    "leaky_relu": LeakyReLU, "elu": ELU, "celu": CELU, "selu": SeLU, "mish": Mish, "hswish": HSwish,
    "hsigmoid": HSigmoid, "hardtanh": Hardtanh, "hshrink": HShrink, "softshrink": SoftShrink, "softsign": Softsign,
    "tanhshrink": Tanhshrink, "logsigmoid": LogSigmoid, "softmin": Softmin, "prelu": PReLU, "rrelu": RReLU,
    "fast_gelu": FastGelu, "fastgelu": FastGelu, "glu": GLU,
}


def get_activation(name: str | None, prim_name: str | None = None) -> Cell | None:
    """A fresh activation Cell for `name` (case-insensitive); None for None."""
    if name is None:
        return None
    if not isinstance(name, str) or name.lower() not in _ACTIVATIONS:
        who = f"{prim_name}: " if prim_name else ""
        raise ValueError(f"{who}unknown activation {name!r}; valid names are {sorted(_ACTIVATIONS)}")
    return _ACTIVATIONS[name.lower()]()
