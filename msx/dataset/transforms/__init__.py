"""`msx.dataset.transforms`: MindSpore's general transforms (`mindspore.dataset.transforms`).

Each is an object called on column values — inside `Dataset.map`, or eagerly
on one sample (`transforms.TypeCast(ms.int32)(label)`); a wrong input is a
DatasetError naming the transform.
"""
from .ops import (Compose, Concatenate, Duplicate, Fill, Mask, OneHot, PadEnd, RandomApply,  # noqa: F401
                  RandomChoice, RandomOrder, Relational, Slice, TensorOperation, TypeCast, Unique, not_random)
from ...unavailable import refuse

refuse(globals(), "mindspore.dataset.transforms", {
    ("a loader of native MindData plugin libraries (.so)", "write the transform in Python and use it in map"):
        "Plugin"})
