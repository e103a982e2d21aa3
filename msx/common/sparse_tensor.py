"""`mindspore.common.sparse_tensor`: the path MindSpore keeps `RowTensor` at (msx's lives in `msx.sparse_tensor`)."""
from ..sparse_tensor import RowTensor  # noqa: F401

__all__ = ["RowTensor"]
