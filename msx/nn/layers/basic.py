"""Basic layers: Dense (and torch-style Linear), Dropout, Flatten, Embedding, Identity."""
from __future__ import annotations

import math
from typing import Callable

from ... import dtype as mstype
from ...errors import OpError
from ...ops import bounds
from ...ops.primitive import known_value
from ...ops import functional as F
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

    `p` wins over the older `keep_prob` (= 1 - p); with neither, p = 0.5.
    """

    def __init__(self, keep_prob: float | None = None, p: float | None = None, dtype=mstype.float32) -> None:
        super().__init__()
        if p is not None:
            if not 0.0 <= p < 1.0:
                raise ValueError(f"Dropout: p must be in [0, 1), got {p}")
            self.p = float(p)
        elif keep_prob is not None:
            if not 0.0 < keep_prob <= 1.0:
                raise ValueError(f"Dropout: keep_prob must be in (0, 1], got {keep_prob}")
            self.p = 1.0 - float(keep_prob)
        else:
            self.p = 0.5

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


class Embedding(Cell):
    """Looks up rows of `embedding_table` (vocab_size, embedding_size) for integer ids.

    `use_one_hot=True` computes one_hot(ids) @ table instead of a gather (same values);
    the `padding_idx` row starts at zero.
    """

    def __init__(self, vocab_size: int, embedding_size: int, use_one_hot: bool = False,
                 embedding_table="normal", dtype=mstype.int32, padding_idx: int | None = None) -> None:
        super().__init__()
        self.vocab_size, self.embedding_size = int(vocab_size), int(embedding_size)
        self.use_one_hot = bool(use_one_hot)
        name = f"Embedding({self.vocab_size}, {self.embedding_size})"
        if padding_idx is not None and not -self.vocab_size <= padding_idx < self.vocab_size:
            raise ValueError(f"{name}: padding_idx {padding_idx} is out of range [-{self.vocab_size}, "
                             f"{self.vocab_size})")
        self.padding_idx = None if padding_idx is None else padding_idx % self.vocab_size
        self.embedding_table = make_param(name, "embedding_table", embedding_table,
                                          (self.vocab_size, self.embedding_size), mstype.float32)
        if self.padding_idx is not None:
            self.embedding_table[self.padding_idx] = 0.0

    def construct(self, ids: Tensor) -> Tensor:
        if ids.dtype.is_floating or ids.dtype == mstype.bool_:
            raise OpError(f"Embedding({self.vocab_size}, {self.embedding_size}): ids must be integers, "
                          f"got dtype {ids.dtype} of shape {tuple(ids.shape)}")
        bounds.require(f"Embedding({self.vocab_size}, {self.embedding_size})",
                       bounds.gather(known_value(self.embedding_table), known_value(ids)))
        if self.use_one_hot:
            hot = F.cast(F.one_hot(ids, self.vocab_size), self.embedding_table.dtype)
            return F.matmul(hot, self.embedding_table)
        return F.gather(self.embedding_table, ids, 0)

    def extend_repr(self) -> str:
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, padding_idx={self.padding_idx}")


class Identity(Cell):
    """Returns its input (a placeholder where a layer is optional)."""

    def construct(self, x: Tensor) -> Tensor:
        return x
