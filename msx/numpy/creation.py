"""`mindspore.numpy`'s names that are not one op: constructors, dtype queries, index objects, random arrays,
constants, and the functions that take a Python callable (`apply_along_axis`, `piecewise`).

They are plain Python over msx ops, so they run eagerly and in every capture mode: a constructor called with
constants inside a jitted function is a graph constant (as `ms.Tensor(...)` is), a callable is traced like
any other user code.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from .. import dtype as mstype
from ..ops import functional as F
from ..tensor import Tensor
from .functions import FUNCTIONS, _default_dtype, constant, to_tensor

pi, inf, nan = math.pi, math.inf, math.nan
PINF, NINF = math.inf, -math.inf
bool_, int8, int16, int32, int64 = mstype.bool_, mstype.int8, mstype.int16, mstype.int32, mstype.int64
uint8, uint16, uint32, uint64 = mstype.uint8, mstype.uint16, mstype.uint32, mstype.uint64
float16, float32, float64 = mstype.float16, mstype.float32, mstype.float64
int_, uint, float_ = mstype.int32, mstype.uint32, mstype.float32  # MindSpore's defaults: 32 bits
numeric_types = [int_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float_, float16, float32, float64,
                 bool_]


def asarray(a: Any, dtype=None) -> Tensor:
    """`a` as a Tensor (MindSpore's defaults: Python ints int32, floats float32); a Tensor is cast if asked."""
    if isinstance(a, Tensor):
        return a if dtype is None or a.dtype == dtype else F.cast(a, dtype)
    if isinstance(a, (list, tuple)) and dtype is not None:
        return F.cast(to_tensor(a), dtype)
    if isinstance(a, np.ndarray) or dtype is not None:
        return constant(a, dtype)
    return to_tensor(a) if isinstance(a, (list, tuple, bool, int, float)) else constant(a)


def array(obj: Any, dtype=None, copy: bool = True, ndmin: int = 0) -> Tensor:
    """`mnp.array`: a new Tensor from `obj` (a copy of a Tensor when `copy`), with at least `ndmin` dims."""
    out = asarray(obj, dtype)
    if copy and out is obj:
        out = FUNCTIONS["copy"](out)
    while len(out.shape) < ndmin:
        out = F.expand_dims(out, 0)
    return out


def asfarray(a: Any, dtype=float32) -> Tensor:
    """`a` as a float Tensor (float32 unless `dtype` is another float type)."""
    return FUNCTIONS["asfarray"](asarray(a), dtype)


def empty(shape, dtype=float32) -> Tensor:
    """MindSpore's `empty`: an uninitialised array; msx's is zeros (never garbage)."""
    return FUNCTIONS["zeros"](shape, dtype)


def empty_like(prototype, dtype=None, shape=None) -> Tensor:
    p = asarray(prototype)
    return FUNCTIONS["zeros"](tuple(shape) if shape is not None else tuple(p.shape), dtype or p.dtype)


def isscalar(element: Any) -> bool:
    """True for Python numbers and strings (MindSpore's rule: a Tensor is never a scalar here)."""
    return isinstance(element, (int, float, complex, str, bool, np.generic))


def size(a: Any, axis: int | None = None) -> int:
    shape = asarray(a).shape
    return int(np.prod(shape)) if axis is None else int(shape[axis])


def array_str(a: Any) -> str:
    return np.array2string(asarray(a).asnumpy())


def promote_types(type1, type2):
    """The msx dtype both promote to (MindSpore's `promote_types`)."""
    return _to_type(_ms_promote(_np_dtype(type1), _np_dtype(type2)))


def _ms_promote(*dtypes: np.dtype) -> np.dtype:
    """numpy's promotion without its 64-bit widening (MindSpore's: int32 with float32 is float32)."""
    out = np.result_type(*dtypes)
    if out == np.float64 and np.dtype(np.float64) not in dtypes:
        floats = [d for d in dtypes if np.issubdtype(d, np.floating)]
        return max(floats, key=lambda d: d.itemsize) if floats else np.dtype(np.float32)
    return out


def result_type(*arrays_and_dtypes):
    """The dtype an operation on all of them gives: Tensors by dtype, Python numbers as weak types."""
    parts = []
    for x in arrays_and_dtypes:
        if isinstance(x, Tensor):
            parts.append(np.dtype(x.dtype.np_dtype if isinstance(x.dtype, mstype.Type) else x.dtype))
        elif isinstance(x, (bool, int, float)):
            parts.append(np.dtype(_default_dtype(x).np_dtype))
        else:
            parts.append(_np_dtype(x))
    return _to_type(_ms_promote(*parts))


def _np_dtype(t) -> np.dtype:
    return t.np_dtype if isinstance(t, mstype.Type) else np.dtype(t)


def _to_type(d: np.dtype):
    for t in numeric_types + [mstype.complex64, mstype.complex128]:
        if t.np_dtype == d:
            return t
    raise TypeError(f"msx.numpy: no msx dtype for numpy dtype {d}")


def rand(*shape, dtype=float32) -> Tensor:
    """Uniform [0, 1) samples from msx's RNG (`ms.set_seed` makes them reproducible)."""
    return F.rand(*_shape(shape), dtype=dtype)


def randn(*shape, dtype=float32) -> Tensor:
    return F.randn(*_shape(shape), dtype=dtype)


def randint(minval: int, maxval: int | None = None, shape=None, dtype=int32) -> Tensor:
    if maxval is None:
        minval, maxval = 0, minval
    return F.randint(minval, maxval, tuple(_shape((shape,))) if shape is not None else (), dtype=dtype)


def _shape(shape: tuple) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def apply_along_axis(func1d: Callable, axis: int, arr, *args, **kwargs) -> Tensor:
    """`func1d` on every 1-D slice along `axis` (a Python loop over msx ops, as MindSpore's)."""
    arr = asarray(arr)
    axis = axis % len(arr.shape)
    moved = FUNCTIONS["moveaxis"](arr, axis, -1)
    lead = tuple(moved.shape[:-1])
    rows = F.reshape(moved, (-1, moved.shape[-1]))
    outs = [asarray(func1d(r, *args, **kwargs)) for r in F.unstack(rows, 0)]
    inner = tuple(outs[0].shape)
    out = F.reshape(F.stack(outs, 0), lead + inner)
    if not inner:
        return out
    n = len(lead)  # numpy's layout: arr.shape[:axis] + func1d's shape + arr.shape[axis+1:]
    perm = list(range(axis)) + list(range(n, n + len(inner))) + list(range(axis, n))
    return F.transpose(out, tuple(perm))


def apply_over_axes(func: Callable, a, axes) -> Tensor:
    """`func(a, axis)` for each axis in turn, keeping the reduced dims (numpy's rule)."""
    out = asarray(a)
    for ax in (axes,) if isinstance(axes, int) else axes:
        res = func(out, ax)
        out = res if len(res.shape) == len(out.shape) else F.expand_dims(res, ax)
    return out


def piecewise(x, condlist, funclist: Sequence, *args, **kw) -> Tensor:
    """numpy's `piecewise`: a function (or a value) per condition; a last extra one is the otherwise case."""
    x = asarray(x)
    conds = [asarray(c) for c in (condlist if isinstance(condlist, (list, tuple)) else [condlist])]
    funcs = list(funclist)
    if len(funcs) == len(conds) + 1:
        otherwise = funcs.pop()
        rest = conds[0]
        for c in conds[1:]:
            rest = F.logical_or(rest, c)
        conds.append(F.logical_not(rest))
        funcs.append(otherwise)
    if len(funcs) != len(conds):
        raise ValueError(f"piecewise: {len(funcs)} functions for {len(conds)} conditions (one per condition, "
                         "or one more for the rest)")
    vals = [asarray(fn(x, *args, **kw) if callable(fn) else fn) for fn in funcs]
    dtype = result_type(*vals)  # MindSpore's: the values' dtype (int32 for int values), not x's
    out = F.zeros(tuple(x.shape), dtype)
    for c, v in zip(conds, vals):
        out = F.where(c, F.cast(v, dtype), out)
    return out


class _Grid:
    """`mgrid[0:2, 0:3]` (dense) and `ogrid[...]` (open) index arrays, as numpy's."""

    def __init__(self, sparse: bool) -> None:
        self.sparse = sparse

    def __getitem__(self, keys):
        single = not isinstance(keys, tuple)
        keys = (keys,) if single else keys
        axes = [_grid_axis(k) for k in keys]
        if single:
            return axes[0]
        grids = FUNCTIONS["meshgrid"](*axes, indexing="ij", sparse=self.sparse)
        return list(grids) if self.sparse else F.stack(list(grids), 0)


def _grid_axis(k: slice) -> Tensor:
    start = 0 if k.start is None else k.start
    step = 1 if k.step is None else k.step
    if isinstance(step, complex):  # numpy: a complex step is a number of points, stop included
        return FUNCTIONS["linspace"](start, k.stop, int(abs(step)))
    return FUNCTIONS["arange"](start, k.stop, step)


mgrid, ogrid = _Grid(False), _Grid(True)
