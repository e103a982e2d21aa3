"""Class-style ops (`ops.ReLU()`, `ops.Add()`, `ops.ReduceSum(keep_dims=True)`, ...).

Each class is a thin view of a registry primitive: construction fixes the static
attributes MindSpore puts on the class, `__call__` forwards to `ops` functions.
"""
from __future__ import annotations

from . import functional as F


class PrimitiveOp:
    """Base of class-style ops: `name` is the registry primitive it calls."""

    name = ""

    def __repr__(self) -> str:
        attrs = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"Prim[{self.name}]({attrs})" if attrs else f"Prim[{self.name}]"


def _simple(cls_name: str, prim_name: str, fn) -> type:
    """A class-style op without construction attributes."""

    def __call__(self, *args):
        return fn(*args)

    return type(cls_name, (PrimitiveOp,), {"name": prim_name, "__call__": __call__,
                                           "__doc__": f"Class form of `ops.{fn.__name__}`."})


Add = _simple("Add", "Add", F.add)
Sub = _simple("Sub", "Sub", F.sub)
Mul = _simple("Mul", "Mul", F.mul)
Div = _simple("Div", "RealDiv", F.div)
RealDiv = Div
Neg = _simple("Neg", "Neg", F.neg)
Abs = _simple("Abs", "Abs", F.abs)
Exp = _simple("Exp", "Exp", F.exp)
Log = _simple("Log", "Log", F.log)
Sqrt = _simple("Sqrt", "Sqrt", F.sqrt)
Rsqrt = _simple("Rsqrt", "Rsqrt", F.rsqrt)
Pow = _simple("Pow", "Pow", F.pow)
Square = _simple("Square", "Square", F.square)
Maximum = _simple("Maximum", "Maximum", F.maximum)
Minimum = _simple("Minimum", "Minimum", F.minimum)
ReLU = _simple("ReLU", "ReLU", F.relu)
Sigmoid = _simple("Sigmoid", "Sigmoid", F.sigmoid)
Tanh = _simple("Tanh", "Tanh", F.tanh)
Equal = _simple("Equal", "Equal", F.equal)
NotEqual = _simple("NotEqual", "NotEqual", F.not_equal)
Less = _simple("Less", "Less", F.less)
LessEqual = _simple("LessEqual", "LessEqual", F.less_equal)
Greater = _simple("Greater", "Greater", F.greater)
GreaterEqual = _simple("GreaterEqual", "GreaterEqual", F.greater_equal)
Select = _simple("Select", "Select", F.where)
Reshape = _simple("Reshape", "Reshape", F.reshape)
Transpose = _simple("Transpose", "Transpose", F.transpose)
ExpandDims = _simple("ExpandDims", "ExpandDims", F.expand_dims)
Cast = _simple("Cast", "Cast", F.cast)
StopGradient = _simple("StopGradient", "StopGradient", F.stop_gradient)
Gather = _simple("Gather", "Gather", F.gather)
Tile = _simple("Tile", "Tile", F.tile)
OnesLike = _simple("OnesLike", "FillLike", F.ones_like)
ZerosLike = _simple("ZerosLike", "FillLike", F.zeros_like)
class BroadcastTo(PrimitiveOp):
    name = "BroadcastTo"

    def __init__(self, shape) -> None:
        self.shape = tuple(shape)

    def __call__(self, x):
        return F.broadcast_to(x, self.shape)


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


class _Reduce(PrimitiveOp):
    fn = staticmethod(F.reduce_sum)

    def __init__(self, keep_dims: bool = False) -> None:
        self.keep_dims = keep_dims

    def __call__(self, x, axis=()):
        return type(self).fn(x, axis if axis != () else None, self.keep_dims)


class ReduceSum(_Reduce):
    name, fn = "ReduceSum", staticmethod(F.reduce_sum)


class ReduceMean(_Reduce):
    name, fn = "ReduceMean", staticmethod(F.mean)


class ReduceMax(_Reduce):
    name, fn = "ReduceMax", staticmethod(F.amax)


class ReduceMin(_Reduce):
    name, fn = "ReduceMin", staticmethod(F.amin)


class Argmax(PrimitiveOp):
    name = "Argmax"

    def __init__(self, axis: int = -1, output_type=None) -> None:
        self.axis = axis
        self.output_type = output_type if output_type is not None else "int32"  # MindSpore's default

    def __call__(self, x):
        return F.cast(F.argmax(x, self.axis), self.output_type)


class Softmax(PrimitiveOp):
    name = "Softmax"

    def __init__(self, axis=-1) -> None:
        self.axis = axis

    def __call__(self, x):
        return F.softmax(x, self.axis)


class LogSoftmax(Softmax):
    name = "LogSoftmax"

    def __call__(self, x):
        return F.log_softmax(x, self.axis)


class GeLU(PrimitiveOp):
    name = "GeLU"

    def __call__(self, x):
        return F.gelu(x, approximate="tanh")


class Concat(PrimitiveOp):
    name = "Concat"

    def __init__(self, axis: int = 0) -> None:
        self.axis = axis

    def __call__(self, tensors):
        return F.concat(tensors, self.axis)


class Stack(Concat):
    name = "Stack"

    def __call__(self, tensors):
        return F.stack(tensors, self.axis)


class Squeeze(PrimitiveOp):
    name = "Squeeze"

    def __init__(self, axis=()) -> None:
        self.axis = axis

    def __call__(self, x):
        return F.squeeze(x, self.axis if self.axis != () else None)


class Flatten(PrimitiveOp):
    name = "Flatten"

    def __call__(self, x):
        return F.flatten(x)


class _Loss(PrimitiveOp):
    fn = staticmethod(F.l1_loss)

    def __init__(self, reduction: str = "mean") -> None:
        self.reduction = reduction

    def __call__(self, x, y):
        return type(self).fn(x, y, reduction=self.reduction)


class L1Loss(_Loss):
    name, fn = "L1Loss", staticmethod(F.l1_loss)


class MSELoss(_Loss):
    name, fn = "MSELoss", staticmethod(F.mse_loss)


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
        self.out_channel, self.kernel_size, self.pad_mode = out_channel, kernel_size, pad_mode
        self.pad, self.stride, self.dilation, self.group = pad, stride, dilation, group

    def __call__(self, x, weight):
        return F.conv2d(x, weight, None, self.stride, self.pad_mode, self.pad, self.dilation, self.group)


class MaxPool(PrimitiveOp):
    name = "MaxPool"

    def __init__(self, kernel_size=1, strides=1, pad_mode: str = "valid", data_format: str = "NCHW") -> None:
        self.kernel_size, self.strides, self.pad_mode = kernel_size, strides, pad_mode.lower()

    def __call__(self, x):
        from . import nn_ops as N
        from .primitive import apply

        k = F._pair(self.kernel_size)
        return apply(N.max_pool2d, (x,), {"kernel_size": k, "stride": F._pair(self.strides),
                                          "pad_mode": self.pad_mode, "padding": (0, 0, 0, 0), "ceil_mode": False})


class Dropout(PrimitiveOp):
    """`ops.Dropout(keep_prob)(x)` -> (output, mask) like MindSpore."""

    name = "Dropout"

    def __init__(self, keep_prob: float = 0.5, Seed0: int = 0, Seed1: int = 0) -> None:
        self.keep_prob = keep_prob

    def __call__(self, x):
        out = F.dropout(x, p=1.0 - self.keep_prob)
        return out, F.cast(F.not_equal(out, 0), "float32")


class Print(PrimitiveOp):
    """`ops.Print()('text', tensor, ...)`: prints at run time, in program order (also under jit)."""

    name = "Print"

    def __call__(self, *inputs):
        F.print_(*inputs)


class UniformReal(PrimitiveOp):
    name = "UniformReal"

    def __init__(self, seed: int = 0, seed2: int = 0) -> None:
        pass

    def __call__(self, shape):
        return F.rand(tuple(shape))


class StandardNormal(UniformReal):
    name = "StandardNormal"

    def __call__(self, shape):
        return F.randn(tuple(shape))
