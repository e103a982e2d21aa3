"""Activation Cells (MindSpore's `nn.ReLU`, ...) and `get_activation` for `Dense(activation='relu')`."""
from __future__ import annotations

from ...ops import functional as F
from ...tensor import Tensor
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


_ACTIVATIONS: dict[str, type] = {
    "relu": ReLU, "relu6": ReLU6, "sigmoid": Sigmoid, "tanh": Tanh, "silu": SiLU, "swish": SiLU, "gelu": GELU,
    "softmax": Softmax, "logsoftmax": LogSoftmax, "log_softmax": LogSoftmax, "leakyrelu": LeakyReLU,
    "leaky_relu": LeakyReLU,
}


def get_activation(name: str | None, prim_name: str | None = None) -> Cell | None:
    """A fresh activation Cell for `name` (case-insensitive); None for None."""
    if name is None:
        return None
    if not isinstance(name, str) or name.lower() not in _ACTIVATIONS:
        who = f"{prim_name}: " if prim_name else ""
        raise ValueError(f"{who}unknown activation {name!r}; valid names are {sorted(_ACTIVATIONS)}")
    return _ACTIVATIONS[name.lower()]()
