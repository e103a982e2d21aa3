"""Embedding layers (MindSpore's `nn.layer.embedding`): `Embedding`, `EmbeddingLookup`."""
from __future__ import annotations

from ... import dtype as mstype
from ...errors import OpError
from ...ignored_args import not_honoured
from ...ops import bounds
from ...ops import functional as F
from ...ops.primitive import known_value
from ...tensor import Tensor
from ..cell import Cell
from ._utils import make_param


class Embedding(Cell):
    """Looks up rows of `embedding_table` (vocab_size, embedding_size) for integer ids.

    `use_one_hot=True` computes one_hot(ids) @ table instead of a gather (same values);
    the `padding_idx` row starts at zero. `dtype` is MindSpore's type of the one-hot values: a number type;
    where MindSpore's MatMul refuses a one-hot type other than the table's, msx multiplies in the table's.
    """

    def __init__(self, vocab_size: int, embedding_size: int, use_one_hot: bool = False,
                 embedding_table="normal", dtype=mstype.float32, padding_idx: int | None = None) -> None:
        super().__init__()
        if dtype not in mstype.number_type:
            raise TypeError(f"Embedding: dtype must be a number type, got {dtype!r}")
        self.dtype = dtype
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


class EmbeddingLookup(Cell):
    """Rows of `embedding_table` (vocab_size, embedding_size) for integer `indices`; `max_norm` renormalises
    looked-up rows whose L2 norm exceeds it. `target`, `slice_mode` and `sparse` choose MindSpore's host/device
    and model-parallel kernels; here the lookup is one gather on the current device whatever they say."""

    BATCH_SLICE, FIELD_SLICE, TABLE_ROW_SLICE, TABLE_COLUMN_SLICE = ("batch_slice", "field_slice", "table_row_slice",
                                                                      "table_column_slice")

    def __init__(self, vocab_size: int, embedding_size: int, param_init="normal", target: str = "CPU",
                 slice_mode: str = "batch_slice", manual_shapes=None, max_norm=None, sparse: bool = True,
                 dtype=mstype.float32) -> None:
        super().__init__()
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"EmbeddingLookup: target must be 'CPU' or 'DEVICE', got {target!r}")
        for key, value, default in (("slice_mode", slice_mode, "batch_slice"), ("manual_shapes", manual_shapes, None),
                                    ("sparse", sparse, True)):
            not_honoured("EmbeddingLookup", key, value, default, "the table is one dense Parameter gathered "
                         "whole (shard it with Cell.shard / a Layout); values are the same")
        self.vocab_size, self.embedding_size, self.target, self.max_norm = vocab_size, embedding_size, target, max_norm
        self.embedding_table = make_param(f"EmbeddingLookup({vocab_size}, {embedding_size})", "param_init",
                                          param_init, (vocab_size, embedding_size), dtype)

    def construct(self, indices: Tensor) -> Tensor:
        out = F.gather(self.embedding_table, indices, 0)
        if self.max_norm is not None:
            norm = F.sqrt(F.sum(F.square(out), -1, True))
            out = out * F.minimum(F.full_like(norm, 1.0), self.max_norm / F.maximum(norm, 1e-12))
        return out

    def extend_repr(self) -> str:
        return f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, target={self.target}"
