"""The torch-style layers MindSpore 2.10 names `nn.*Ext` and exposes again as `mint.nn.*` (`nn.AvgPool2dExt is
mint.nn.AvgPool2d`): torch's argument names and defaults (`stride=None` meaning the kernel size, `p`,
`inplace`, `num_parameters`) over msx's `nn` layers, so values and gradients are theirs. `inplace=True` is
honoured as torch and MindSpore do: the result is written into the input Tensor (`InPlace`)."""
from __future__ import annotations

import numpy as np

from ... import dtype as mstype
from ...ops import functional as F
from ...ops import functional_layers as X
from ...ops.functional_layers import in_place
from ...tensor import Parameter, Tensor
from ..cell import Cell
from ..initializer import Normal
from ._utils import check_input, make_param
from .basic import Dropout, Dropout2d
from .pooling import AvgPool1d, AvgPool2d, AvgPool3d, MaxPool2d


def _dtype(dtype):
    return mstype.float32 if dtype is None else mstype.to_msx(dtype)


class InPlace:
    """A torch-style layer whose `inplace=True` writes its result into its input (`functional_layers.in_place`)."""

    inplace = False

    def construct(self, x):
        return in_place(x, super().construct(x), self.inplace)


class DropoutExt(InPlace, Dropout):
    """torch-style: `Dropout(p=0.5)` drops with probability p."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__(p=p)
        self.inplace = bool(inplace)


class Dropout2dExt(InPlace, Dropout2d):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__(p)
        self.inplace = bool(inplace)


class PReLUExt(Cell):
    """`PReLU(num_parameters=1, init=0.25, dtype=None)`: the slope Parameter is `weight` (MindSpore's name)."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, dtype=None) -> None:
        super().__init__()
        np_dtype = mstype.to_np(mstype.to_msx(dtype)) if dtype is not None else np.float32
        self.weight = Parameter(Tensor(np.full((num_parameters,), init, np_dtype)), name="weight")

    def construct(self, input):
        return F.prelu(input, self.weight)


class AvgPool1dExt(AvgPool1d):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__(kernel_size, kernel_size if stride is None else stride, pad_mode="pad", padding=padding,
                         ceil_mode=ceil_mode, count_include_pad=count_include_pad)


class AvgPool2dExt(AvgPool2d):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override=None) -> None:
        super().__init__(kernel_size, kernel_size if stride is None else stride, pad_mode="pad", padding=padding,
                         ceil_mode=ceil_mode, count_include_pad=count_include_pad, divisor_override=divisor_override)


class AvgPool3dExt(AvgPool3d):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override=None) -> None:
        super().__init__(kernel_size, kernel_size if stride is None else stride, pad_mode="pad", padding=padding,
                         ceil_mode=ceil_mode, count_include_pad=count_include_pad, divisor_override=divisor_override)


class MaxPool2dExt(MaxPool2d):
    def __init__(self, kernel_size=1, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__(kernel_size, kernel_size if stride is None else stride, pad_mode="pad", padding=padding,
                         dilation=dilation, return_indices=return_indices, ceil_mode=ceil_mode)
class EmbeddingExt(Cell):
    """Rows of `weight` (num_embeddings, embedding_dim), initialised N(0, 1) with the `padding_idx` row zero;
    that row gets no gradient. `max_norm` renormalises (in place, as torch) the looked-up rows whose
    `norm_type`-norm exceeds it; `scale_grad_by_freq` divides each row's gradient by its count in the batch."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight: Tensor | None = None, _freeze: bool = False, dtype=None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        name = self._name()
        if sparse:
            raise ValueError(f"{name}: sparse=True (sparse gradients) is not supported, as in MindSpore")
        if padding_idx is not None and not -self.num_embeddings <= padding_idx < self.num_embeddings:
            raise ValueError(f"{name}: padding_idx must be in range of [-{self.num_embeddings}, "
                             f"{self.num_embeddings}), got {padding_idx}")
        self.padding_idx = None if padding_idx is None else int(padding_idx) % self.num_embeddings
        self.max_norm = None if max_norm is None else float(max_norm)
        self.norm_type, self.scale_grad_by_freq, self.sparse = float(norm_type), bool(scale_grad_by_freq), False
        shape = (self.num_embeddings, self.embedding_dim)
        if _weight is None:
            self.weight = make_param(name, "weight", Normal(1.0), shape, _dtype(dtype), requires_grad=not _freeze)
            if self.padding_idx is not None:
                self.weight[self.padding_idx] = 0.0
        else:
            if tuple(_weight.shape) != shape:
                raise ValueError(f"{name}: _weight must have shape {shape}, got {tuple(_weight.shape)}")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def _name(self) -> str:
        return f"Embedding({self.num_embeddings}, {self.embedding_dim})"

    def construct(self, input: Tensor) -> Tensor:
        if input.dtype.is_floating or input.dtype == mstype.bool_:
            check_input(False, self._name(), input, f"indices must be integers, got dtype {input.dtype}")
        renormed = self._renorm(input) if self.max_norm is not None else None
        weight = self.weight if renormed is None else self.weight + F.stop_gradient(renormed - self.weight)
        out = X.embedding(input, weight, self.padding_idx)
        if renormed is not None:
            self.weight._rebind(renormed)  # after the lookup: `weight` above must still hold the Parameter's trace
        if self.scale_grad_by_freq:
            flat = F.reshape(input, (-1,))
            counts = F.reduce_sum(F.cast(F.equal(F.expand_dims(flat, 1), F.expand_dims(flat, 0)), out.dtype), 1)
            scale = F.reshape(1.0 / counts, tuple(input.shape) + (1,))
            out = out * scale + F.stop_gradient(out - out * scale)  # the value is `out`; its gradient is scaled
        return out

    def _renorm(self, ids: Tensor) -> Tensor:
        """torch's embedding_renorm_: the table with the looked-up rows whose norm exceeds max_norm scaled
        to max_norm / (norm + 1e-7); it replaces the Parameter, and the gradient flows to it as if unscaled."""
        w = F.stop_gradient(self.weight)
        hit = F.reduce_sum(F.one_hot(F.reshape(ids, (-1,)), self.num_embeddings, 1.0, 0.0), 0) > 0
        norms = F.pow(F.reduce_sum(F.pow(F.abs(w), self.norm_type), 1), 1.0 / self.norm_type)
        scale = F.where(hit & (norms > self.max_norm), self.max_norm / (norms + 1e-7), F.ones_like(norms))
        return w * F.expand_dims(scale, 1)

    def extend_repr(self) -> str:
        return (f"{self.num_embeddings}, {self.embedding_dim}, padding_idx={self.padding_idx}, "
                f"max_norm={self.max_norm}")


__all__ = ["AvgPool1dExt", "AvgPool2dExt", "AvgPool3dExt", "Dropout2dExt", "DropoutExt", "EmbeddingExt",
           "MaxPool2dExt", "PReLUExt"]
