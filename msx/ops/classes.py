"""`msx.ops.operations` (MindSpore's `P`): class-style ops (`ops.Sin()`, `ops.ReduceSum(keep_dims=True)`, ...).

Most classes are generated from their op's declaration (`api.build_class`): construction fixes the
attributes MindSpore puts on the class, `__call__` runs the functional op. The classes below are the
ones whose constructor or call differs in real logic from any functional op.
"""
from __future__ import annotations

from . import functional as F
from ..ignored_args import SEED_INSTEAD, not_honoured, only_default
from . import functional_nn as FN
from .api import SURFACE, PrimitiveOp
from .primitive import apply


class ReduceSum(PrimitiveOp):
    """`ops.ReduceSum(keep_dims=False, skip_mode=False)(x, axis=())`; with `skip_mode`, an empty axis returns x."""

    name = "ReduceSum"

    def __init__(self, keep_dims: bool = False, skip_mode: bool = False) -> None:
        super().__init__()
        self.keep_dims, self.skip_mode = keep_dims, skip_mode
        self.attrs.update(keep_dims=keep_dims, skip_mode=skip_mode)

    def __call__(self, x, axis=()):
        if self.skip_mode and (axis is None or (not isinstance(axis, int) and len(axis) == 0)):
            return x
        return F.reduce_sum(x, axis, self.keep_dims)


class Shape(PrimitiveOp):
    """`ops.Shape()(x)` -> the static shape tuple."""

    name = "Shape"

    def __call__(self, x):
        return tuple(x.shape)


class MatMul(PrimitiveOp):
    name = "MatMul"

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False) -> None:
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def __call__(self, x, y):
        if self.transpose_a:
            x = F.swapaxes(x, -1, -2)
        if self.transpose_b:
            y = F.swapaxes(y, -1, -2)
        return F.matmul(x, y)


class BatchMatMul(MatMul):
    name = "MatMul"












class Argmax(PrimitiveOp):
    name = "Argmax"

    def __init__(self, axis: int = -1, output_type=None) -> None:
        self.axis = axis
        self.output_type = output_type if output_type is not None else "int32"  # MindSpore's default

    def __call__(self, x):
        return F.cast(F.argmax(x, self.axis), self.output_type)






class GeLU(PrimitiveOp):
    name = "GeLU"

    def __call__(self, x):
        return F.gelu(x, approximate="tanh")








class Flatten(PrimitiveOp):
    name = "Flatten"

    def __call__(self, x):
        return F.flatten(x)








class BCEWithLogitsLoss(PrimitiveOp):
    name = "BCEWithLogitsLoss"

    def __init__(self, reduction: str = "mean") -> None:
        self.reduction = reduction

    def __call__(self, logits, label, weight=None, pos_weight=None):
        return F.binary_cross_entropy_with_logits(logits, label, weight, pos_weight, self.reduction)


class SoftmaxCrossEntropyWithLogits(PrimitiveOp):
    """Dense-label softmax cross-entropy; returns (loss per sample, d loss / d logits) like MindSpore."""

    name = "CrossEntropy"

    def __call__(self, logits, labels):
        loss = F.cross_entropy(logits, labels, reduction="none")
        return loss, F.sub(F.softmax(logits, -1), labels)


class Conv2D(PrimitiveOp):
    name = "Conv2D"

    def __init__(self, out_channel: int, kernel_size, mode: int = 1, pad_mode: str = "valid", pad=0, stride=1,
                 dilation=1, group: int = 1, data_format: str = "NCHW") -> None:
        only_default("Conv2D", "data_format", data_format, "NCHW", "it computes channels-first only")
        self.out_channel, self.kernel_size, self.pad_mode = out_channel, kernel_size, pad_mode
        self.pad, self.stride, self.dilation, self.group = pad, stride, dilation, group

    def __call__(self, x, weight):
        return F.conv2d(x, weight, None, self.stride, self.pad_mode, self.pad, self.dilation, self.group)


class MaxPool(PrimitiveOp):
    name = "MaxPool"

    def __init__(self, kernel_size=1, strides=1, pad_mode: str = "valid", data_format: str = "NCHW") -> None:
        only_default("MaxPool", "data_format", data_format, "NCHW", "it computes channels-first only")
        self.kernel_size, self.strides, self.pad_mode = kernel_size, strides, pad_mode.lower()

    def __call__(self, x):
        k = F._pair(self.kernel_size)
        return apply(FN.max_pool2d_, (x,), {"kernel_size": k, "stride": F._pair(self.strides),
                                          "pad_mode": self.pad_mode, "padding": (0, 0, 0, 0), "ceil_mode": False})


class Dropout(PrimitiveOp):
    """`ops.Dropout(keep_prob)(x)` -> (output, mask) like MindSpore."""

    name = "Dropout"

    def __init__(self, keep_prob: float = 0.5, Seed0: int = 0, Seed1: int = 0) -> None:
        not_honoured("ops.Dropout", "Seed0", Seed0, 0, SEED_INSTEAD)
        not_honoured("ops.Dropout", "Seed1", Seed1, 0, SEED_INSTEAD)
        self.keep_prob = keep_prob

    def __call__(self, x):
        out = F.dropout(x, p=1.0 - self.keep_prob)
        return out, F.cast(F.not_equal(out, 0), "float32")


class Einsum(PrimitiveOp):
    """`ops.Einsum(equation)(operands)`: the operands come as one tuple/list."""

    name = "Einsum"

    def __init__(self, equation: str) -> None:
        super().__init__()
        self.equation = equation
        self.add_prim_attr("equation", equation)

    def __call__(self, operands):
        return F.einsum(self.equation, *operands)


class Print(PrimitiveOp):
    """`ops.Print()('text', tensor, ...)`: prints at run time, in program order (also under jit)."""

    name = "Print"

    def __call__(self, *inputs):
        F.print_(*inputs)


class UniformReal(PrimitiveOp):
    name = "UniformReal"

    def __init__(self, seed: int = 0, seed2: int = 0) -> None:
        not_honoured("ops.UniformReal", "seed", seed, 0, SEED_INSTEAD)
        not_honoured("ops.UniformReal", "seed2", seed2, 0, SEED_INSTEAD)

    def __call__(self, shape):
        return F.rand(tuple(shape))


class StandardNormal(UniformReal):
    name = "StandardNormal"

    def __call__(self, shape):
        return F.randn(tuple(shape))


from .layer_classes import *  # noqa: F401,F403,E402  (class ops of layers: norms, pools, convs, pads, dropout)
from .array_classes import *  # noqa: F401,F403,E402  (class ops over arrays: boxes, lookups, hooks, dtype)

globals().update(SURFACE["cls"])  # the generated class-style ops
Primitive = PrimitiveOp  # MindSpore's `ops.Primitive`: the base class of class-style ops
__all__ = sorted(set(SURFACE["cls"]) | {n for n, v in list(globals().items())
                                        if isinstance(v, type) and issubclass(v, PrimitiveOp)
                                        and not n.startswith("_")} | {"Primitive"})
