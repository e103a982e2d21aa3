"""`mindspore.common.sparse_tensor`: the path MindSpore keeps `RowTensor` and its base `RowTensorInner` at
(msx's live in `msx.sparse_tensor`)."""
from ..sparse_tensor import RowTensor, RowTensorInner  # noqa: F401

__all__ = ["RowTensorInner", "RowTensor"]
