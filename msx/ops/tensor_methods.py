"""Tensor operators and methods, attached to `Tensor`.

Most come from the ops' declarations (`SURFACE["tensor"]`, `SURFACE["operator"]`); the ones here have
real argument logic (`t.reshape(2, 3)`, `t.sum(axis, dtype, keepdims, initial)`, indexing). A hand-written
name never silently replaces a declared one: `attach` refuses duplicates.
"""
from __future__ import annotations

from ..tensor import Tensor
from . import array_ops as A
from . import functional as F
from . import math_ops as M
from . import tensor_overloads, tensor_own_methods, tensor_state_methods
from .api import SURFACE
from .primitive import apply




def _unary(prim):
    def op(self: Tensor) -> Tensor:
        return apply(prim, (self,))
    return op


_OPERATORS = {
    "__eq__": lambda self, other: False if other is None else apply(M.EQUAL, (self, other)),
    "__ne__": lambda self, other: True if other is None else apply(M.NOT_EQUAL, (self, other)),
    "__neg__": _unary(M.NEG), "__abs__": _unary(M.ABS), "__invert__": _unary(M.LOGICAL_NOT),
    "__pos__": lambda self: self,
}


def _shape_args(shape) -> tuple:
    """`t.reshape(2, 3)` and `t.reshape((2, 3))` both mean shape (2, 3)."""
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else \
        shape[0] if len(shape) == 1 else shape


def __getitem__(self, index) -> Tensor:
    spec, tensors = A.encode_index(index)
    A.check_index(self, spec, "GetItem")
    return apply(A.getitem, (self, *tensors), {"index": spec})


def __setitem__(self, index, value) -> None:
    spec, tensors = A.encode_index(index)
    A.check_index(self, spec, "SetItem")
    self._rebind(apply(A.setitem, (self, value, *tensors), {"index": spec}))


def astype(self, dtype, copy: bool = True) -> Tensor:
    return F.cast(self, dtype)


def reshape(self, *shape) -> Tensor:
    return F.reshape(self, _shape_args(shape))


def transpose(self, *axes) -> Tensor:
    axes = _shape_args(axes)
    return F.transpose(self, axes if axes else tuple(range(self.ndim))[::-1])


def sum(self, axis=None, dtype=None, keepdims=False, initial=None) -> Tensor:
    out = F.reduce_sum(self, axis, keepdims)
    if initial is not None:
        out = out + initial
    return out if dtype is None else F.cast(out, dtype)


def mean(self, axis=None, keep_dims=False) -> Tensor:
    return F.mean(self, axis, keep_dims)


def max(self, axis=None, keepdims=False, *, initial=None, where=None,
        return_indices=False) -> Tensor | tuple[Tensor, Tensor]:
    """numpy's `max`: `where` masks the entries that take part (it needs `initial`), `initial` joins them."""
    if return_indices:
        _no_initial_where("max", initial, where)
        return F.max(self, axis, keepdims)
    return _extreme("max", F.amax, F.maximum, self, axis, keepdims, initial, where)


def min(self, axis=None, keepdims=False, *, initial=None, where=None,
        return_indices=False) -> Tensor | tuple[Tensor, Tensor]:
    """numpy's `min`: `where` masks the entries that take part (it needs `initial`), `initial` joins them."""
    if return_indices:
        _no_initial_where("min", initial, where)
        return F.min(self, axis, keepdims)
    return _extreme("min", F.amin, F.minimum, self, axis, keepdims, initial, where)


def _no_initial_where(what: str, initial, where) -> None:
    if initial is not None or where is not None:
        raise ValueError(f"Tensor.{what}: initial= and where= do not combine with return_indices=True "
                         f"(an index of `initial` would mean nothing)")


def _extreme(what: str, reduce, join, x: Tensor, axis, keepdims, initial, where) -> Tensor:
    if where is not None:
        if initial is None:  # numpy's rule: max/min have no identity to fill the masked-out entries with
            raise ValueError(f"Tensor.{what}: where= needs initial= (the value a masked-out entry takes)")
        x = F.select(F.broadcast_to(F.cast(where, "bool"), x.shape), x, F.full_like(x, initial))
    out = reduce(x, axis, keepdims)
    return out if initial is None else join(out, F.cast(F.full_like(out, initial), out.dtype))


def squeeze(self, axis=None) -> Tensor:
    return F.squeeze(self, axis)


def flatten(self, order="C", *, start_dim=0, end_dim=-1) -> Tensor:
    return F.flatten(self, order, start_dim=start_dim, end_dim=end_dim)


def argmax(self, axis=None, keepdims=False) -> Tensor:
    return F.argmax(self, axis, keepdims)


def argmin(self, axis=None, keepdims=False) -> Tensor:
    return F.argmin(self, axis, keepdims)


def var(self, axis=None, ddof=0, keepdims=False) -> Tensor:
    centered = self - F.mean(self, axis, True)
    n = self.size if axis is None else _count(self.shape, axis)
    return F.reduce_sum(centered * centered, axis, keepdims) / (n - ddof)


def std(self, axis=None, ddof=0, keepdims=False) -> Tensor:
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
    "sum": sum, "max": max, "min": min, "argmax": argmax,
    "var": var, "std": std,
    "prod": lambda self, axis=None, keep_dims=False: F.prod(self, axis, keep_dims),
    "cumsum": lambda self, axis=0, dtype=None: F.cumsum(self, axis, dtype),
    "norm": lambda self, ord=None, dim=None, keepdim=False: F.norm(self, ord, dim, keepdim),
    "relu": lambda self: F.relu(self),
    "softmax": lambda self, axis=-1: F.softmax(self, axis),
    "squeeze": squeeze, "flatten": flatten,
    "float": lambda self: F.cast(self, "float32"), "half": lambda self: F.cast(self, "float16"),
    "int": lambda self: F.cast(self, "int32"), "long": lambda self: F.cast(self, "int64"),
    "bool": lambda self: F.cast(self, "bool"),
    "copy": _unary(A.identity), "clone": _unary(A.identity),
    "stop_gradient": lambda self: F.stop_gradient(self),
}


def _in_place(fn):
    """MindSpore's in-place `x.op_(...)`: compute `op`, keep x's dtype, write it into x, return x."""
    def method(self: Tensor, *args, **kwargs) -> Tensor:
        out = fn(self, *args, **kwargs)
        if out.dtype != self.dtype:
            out = F.cast(out, self.dtype)
        if out.shape != self.shape:
            raise ValueError(f"in-place op: result shape {out.shape} differs from the tensor's shape {self.shape}")
        return self._rebind(out)

    method.__wrapped__ = method._msx_in_place_of = fn  # its signature is fn's; it returns the Tensor (stubs)
    return method


def _copy_from(self, src, non_blocking: bool = False) -> Tensor:
    return F.broadcast_to(src if isinstance(src, Tensor) else Tensor(src), self.shape)


_IN_PLACE = {
    "add_": lambda self, other, *, alpha=1: F.add(self, other if alpha == 1 else F.mul(other, alpha)),
    "sub_": lambda self, other, *, alpha=1: F.sub(self, other if alpha == 1 else F.mul(other, alpha)),
    "div_": lambda self, other, *, rounding_mode=None: F.div(self, other, rounding_mode=rounding_mode),
    "clamp_": lambda self, min=None, max=None: F.clamp(self, min, max),
    "masked_fill_": lambda self, mask, value: F.masked_fill(self, mask, value),
    "zero_": lambda self: F.zeros_like(self), "fill_": lambda self, value: F.full_like(self, value),
    "copy_": _copy_from,
}
_IN_PLACE.update(tensor_overloads.IN_PLACE)
_METHODS.update({name: _in_place(fn) for name, fn in _IN_PLACE.items()})
_METHODS.update(tensor_overloads.METHODS)
_METHODS["fill"] = lambda self, value: F.full_like(self, value)
_METHODS.update(tensor_own_methods.METHODS)
_METHODS.update(tensor_state_methods.METHODS)


def attach() -> None:
    """Set every declared and hand-written method and operator on `Tensor` (declared in-place names, `Api.inplace`,
    get the writing method `_in_place` makes)."""
    declared = {**SURFACE["tensor"], **SURFACE["operator"], **SURFACE["inplace"]}
    for table in (_OPERATORS, _METHODS):
        for name in table:
            if name in declared:
                raise ValueError(f"Tensor.{name} is both declared and hand-written")
    in_place = {name: _in_place(fn) for name, fn in SURFACE["inplace"].items()}
    for name, fn in {**SURFACE["operator"], **_OPERATORS, **SURFACE["tensor"], **in_place, **_METHODS}.items():
        setattr(Tensor, name, fn)
    tensor_own_methods.attach_static()
