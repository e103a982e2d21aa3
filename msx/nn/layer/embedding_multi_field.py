"""`nn.MultiFieldEmbeddingLookup`: MindSpore's multi-hot field embedding (CTR models such as Wide&Deep).

Each sample has `seq` (index, value, field id) triples; the looked-up rows, weighted by their values, are merged
per (sample, field) into a (batch, field_size, embedding_size) result: summed (`operator="SUM"`), averaged by
the sum of |value| (`"MEAN"`, 0 where a field has none) or maxed (`"MAX"`, entries of value 0 are padding and
take no part; a field with no non-zero value gives 0). MindSpore 2.10's computation, op for op.
"""
from __future__ import annotations

from ... import dtype as mstype
from ...errors import OpError
from ...ops import functional as F
from ...tensor import Tensor
from .embedding import EmbeddingLookup

_NEG_INF = -3.402823466e+38  # MindSpore's float32 minimum for the MAX padding


class MultiFieldEmbeddingLookup(EmbeddingLookup):
    """`MultiFieldEmbeddingLookup(vocab_size, embedding_size, field_size, param_init='normal', target='CPU',
    slice_mode='batch_slice', feature_num_list=None, max_norm=None, sparse=True, operator='SUM',
    dtype=float32)`; called with `(input_indices, input_values, field_ids)`, each (batch, seq), of dtypes
    int32/int64, float32 and int32."""

    OPERATOR_SUM, OPERATOR_MEAN, OPERATOR_MAX = "SUM", "MEAN", "MAX"

    def __init__(self, vocab_size: int, embedding_size: int, field_size: int, param_init="normal",
                 target: str = "CPU", slice_mode: str = "batch_slice", feature_num_list=None, max_norm=None,
                 sparse: bool = True, operator: str = "SUM", dtype=mstype.float32) -> None:
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode, feature_num_list, max_norm,
                         sparse, dtype=dtype)
        if not isinstance(field_size, int) or isinstance(field_size, bool) or field_size <= 0:
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', the 'field_size' must be a positive int, but got "
                             f"{field_size!r}.")
        if operator not in ("SUM", "MAX", "MEAN"):
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', the 'operator' should be in ['SUM', 'MAX', 'MEAN'], "
                             f"but got '{operator}'.")
        self.field_size = field_size
        self.operator = operator

    def _check(self, name: str, x, dtypes: tuple) -> None:
        if not isinstance(x, Tensor) or x.ndim != 2:
            raise OpError(f"For 'MultiFieldEmbeddingLookup', the dimension of '{name}' must be 2, but got "
                          f"{getattr(x, 'shape', type(x).__name__)}")
        if x.dtype not in dtypes:
            raise OpError(f"For 'MultiFieldEmbeddingLookup', the dtype of '{name}' must be one of "
                          f"{[str(mstype.to_msx(d)) for d in dtypes]}, but got {x.dtype}")

    def construct(self, input_indices: Tensor, input_values: Tensor, field_ids: Tensor) -> Tensor:
        self._check("input_indices", input_indices, ("int32", "int64"))
        self._check("input_values", input_values, ("float32",))
        self._check("field_ids", field_ids, ("int32",))
        if not (input_indices.shape == input_values.shape == field_ids.shape):
            raise OpError(f"For 'MultiFieldEmbeddingLookup', input_indices {input_indices.shape}, input_values "
                          f"{input_values.shape} and field_ids {field_ids.shape} must have one shape")
        batch, seq = input_indices.shape
        segments = batch * self.field_size
        bias = F.reshape(F.arange(0, segments, self.field_size, dtype=mstype.int32), (batch, 1))
        ids = field_ids + bias  # field f of sample b is segment b * field_size + f
        out = EmbeddingLookup.construct(self, input_indices)  # (batch, seq, embedding_size)
        weights = F.reshape(input_values, (batch, seq, 1))
        embedding = weights * out
        if self.operator == "MAX":
            pad = F.cast(F.equal(weights, 0), mstype.float32) * _NEG_INF
            embedding = F.reshape(embedding + pad, (-1, self.embedding_size))
            ids = F.reshape(ids, (-1,))
            merged = F.unsorted_segment_max(embedding, ids, segments)
            count = F.unsorted_segment_sum(F.abs(F.reshape(input_values, (-1,))), ids, segments)
            merged = merged * F.expand_dims(F.cast(F.not_equal(count, 0.0), mstype.float32), -1)
        else:
            merged = F.unsorted_segment_sum(embedding, ids, segments)
            if self.operator == "MEAN":
                count = F.expand_dims(F.unsorted_segment_sum(F.abs(input_values), ids, segments), -1)
                zero = F.equal(count, 0.0)
                merged = F.select(F.broadcast_to(zero, merged.shape), F.zeros_like(merged),
                                  merged / F.select(zero, F.ones_like(count), count))
        return F.reshape(merged, (batch, self.field_size, -1))

    def extend_repr(self) -> str:
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, field_size={self.field_size}, "
                f"operator={self.operator}")
