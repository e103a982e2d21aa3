"""Tensor operators and methods: thin views of the primitive registry, attached to `Tensor`."""
from __future__ import annotations

from ..tensor import Tensor
from . import array_ops as A
from . import functional as F
from . import math_ops as M
from .primitive import apply


def _binary(prim, reflected: bool = False):
    if reflected:
        def op(self, other):
            return apply(prim, (other, self))
    else:
        def op(self, other):
            return apply(prim, (self, other))
    return op


def _unary(prim):
    def op(self):
        return apply(prim, (self,))
    return op


_OPERATORS = {
    "__add__": _binary(M.ADD), "__radd__": _binary(M.ADD, True),
    "__sub__": _binary(M.SUB), "__rsub__": _binary(M.SUB, True),
    "__mul__": _binary(M.MUL), "__rmul__": _binary(M.MUL, True),
    "__truediv__": _binary(M.DIV), "__rtruediv__": _binary(M.DIV, True),
    "__floordiv__": _binary(M.FLOOR_DIV), "__rfloordiv__": _binary(M.FLOOR_DIV, True),
    "__mod__": _binary(M.MOD), "__rmod__": _binary(M.MOD, True),
    "__pow__": _binary(M.POW), "__rpow__": _binary(M.POW, True),
    "__matmul__": _binary(M.matmul), "__rmatmul__": _binary(M.matmul, True),
    "__eq__": lambda self, other: False if other is None else apply(M.EQUAL, (self, other)),
    "__ne__": lambda self, other: True if other is None else apply(M.NOT_EQUAL, (self, other)),
    "__lt__": _binary(M.LESS), "__le__": _binary(M.LESS_EQUAL),
    "__gt__": _binary(M.GREATER), "__ge__": _binary(M.GREATER_EQUAL),
    "__and__": _binary(M.LOGICAL_AND), "__rand__": _binary(M.LOGICAL_AND, True),
    "__or__": _binary(M.LOGICAL_OR), "__ror__": _binary(M.LOGICAL_OR, True),
    "__xor__": _binary(M.LOGICAL_XOR),
    "__neg__": _unary(M.NEG), "__abs__": _unary(M.ABS), "__invert__": _unary(M.LOGICAL_NOT),
    "__pos__": lambda self: self,
}


def _shape_args(shape) -> tuple:
    """`t.reshape(2, 3)` and `t.reshape((2, 3))` both mean shape (2, 3)."""
    return tuple(shape[0]) if len(shape) == 1 and not isinstance(shape[0], int) else shape


def __getitem__(self, index):
    spec, tensors = A.encode_index(index)
    A.check_index(self, spec, "GetItem")
    return apply(A.getitem, (self, *tensors), {"index": spec})


def __setitem__(self, index, value) -> None:
    spec, tensors = A.encode_index(index)
    A.check_index(self, spec, "SetItem")
    self._rebind(apply(A.setitem, (self, value, *tensors), {"index": spec}))


def astype(self, dtype, copy: bool = True):
    return F.cast(self, dtype)


def reshape(self, *shape):
    return F.reshape(self, _shape_args(shape))


def transpose(self, *axes):
    axes = _shape_args(axes)
    return F.transpose(self, axes if axes else tuple(range(self.ndim))[::-1])


def sum(self, axis=None, dtype=None, keepdims=False, initial=None):
    out = F.reduce_sum(self, axis, keepdims)
    if initial is not None:
        out = out + initial
    return out if dtype is None else F.cast(out, dtype)


def mean(self, axis=None, keep_dims=False):
    return F.mean(self, axis, keep_dims)


def max(self, axis=None, keepdims=False, *, initial=None, where=None, return_indices=False):
    if return_indices:
        return F.max(self, axis, keepdims)
    return F.amax(self, axis, keepdims)


def min(self, axis=None, keepdims=False, *, initial=None, where=None, return_indices=False):
    if return_indices:
        return F.min(self, axis, keepdims)
    return F.amin(self, axis, keepdims)


def squeeze(self, axis=None):
    return F.squeeze(self, axis)


def flatten(self, order="C", *, start_dim=0, end_dim=-1):
    return F.flatten(self, order, start_dim=start_dim, end_dim=end_dim)


def argmax(self, axis=None, keepdims=False):
    return F.argmax(self, axis, keepdims)


def argmin(self, axis=None, keepdims=False):
    return F.argmin(self, axis, keepdims)


def var(self, axis=None, ddof=0, keepdims=False):
    centered = self - F.mean(self, axis, True)
    n = self.size if axis is None else _count(self.shape, axis)
    return F.reduce_sum(centered * centered, axis, keepdims) / (n - ddof)


def std(self, axis=None, ddof=0, keepdims=False):
    return F.sqrt(var(self, axis, ddof, keepdims))


def _count(shape, axis) -> int:
    axes = (axis,) if isinstance(axis, int) else axis
    n = 1
    for a in axes:
        n *= shape[a]
    return n


_METHODS = {
    "__getitem__": __getitem__, "__setitem__": __setitem__,
    "astype": astype, "to": astype, "reshape": reshape, "view": reshape, "transpose": transpose,
    "permute": lambda self, *axes: F.transpose(self, _shape_args(axes)),
    "T": property(lambda self: transpose(self)),
    "sum": sum, "mean": mean, "max": max, "min": min, "argmax": argmax, "argmin": argmin,
    "var": var, "std": std,
    "prod": lambda self, axis=None, keep_dims=False: F.prod(self, axis, keep_dims),
    "all": lambda self, axis=None, keep_dims=False: F.all(self, axis, keep_dims),
    "any": lambda self, axis=None, keep_dims=False: F.any(self, axis, keep_dims),
    "cumsum": lambda self, axis=0, dtype=None: F.cumsum(self, axis, dtype),
    "norm": lambda self, ord=None, dim=None, keepdim=False: F.norm(self, ord, dim, keepdim),
    "abs": _unary(M.ABS), "exp": _unary(M.EXP), "log": _unary(M.LOG), "sqrt": _unary(M.SQRT),
    "rsqrt": _unary(M.RSQRT), "square": _unary(M.SQUARE), "neg": _unary(M.NEG), "sign": _unary(M.SIGN),
    "floor": _unary(M.FLOOR), "ceil": _unary(M.CEIL), "log1p": _unary(M.LOG1P),
    "reciprocal": _unary(M.RECIPROCAL), "isnan": _unary(M.ISNAN), "isfinite": _unary(M.ISFINITE),
    "sigmoid": lambda self: F.sigmoid(self), "relu": lambda self: F.relu(self), "tanh": lambda self: F.tanh(self),
    "softmax": lambda self, axis=-1: F.softmax(self, axis),
    "add": _binary(M.ADD), "sub": _binary(M.SUB), "mul": _binary(M.MUL), "div": _binary(M.DIV),
    "pow": _binary(M.POW), "matmul": _binary(M.matmul), "maximum": _binary(M.MAXIMUM),
    "minimum": _binary(M.MINIMUM), "eq": _binary(M.EQUAL), "ne": _binary(M.NOT_EQUAL),
    "lt": _binary(M.LESS), "le": _binary(M.LESS_EQUAL), "gt": _binary(M.GREATER), "ge": _binary(M.GREATER_EQUAL),
    "clip": lambda self, min=None, max=None: F.clamp(self, min, max),
    "clamp": lambda self, min=None, max=None: F.clamp(self, min, max),
    "squeeze": squeeze, "expand_dims": lambda self, axis: F.expand_dims(self, axis),
    "unsqueeze": lambda self, dim: F.expand_dims(self, dim), "flatten": flatten,
    "broadcast_to": lambda self, shape: F.broadcast_to(self, shape),
    "swapaxes": lambda self, a, b: F.swapaxes(self, a, b),
    "float": lambda self: F.cast(self, "float32"), "half": lambda self: F.cast(self, "float16"),
    "int": lambda self: F.cast(self, "int32"), "long": lambda self: F.cast(self, "int64"),
    "bool": lambda self: F.cast(self, "bool"),
    "copy": _unary(A.identity), "clone": _unary(A.identity),
    "stop_gradient": lambda self: F.stop_gradient(self),
}


def attach() -> None:
    for name, fn in {**_OPERATORS, **_METHODS}.items():
        setattr(Tensor, name, fn)
