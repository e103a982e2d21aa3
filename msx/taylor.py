"""MindSpore's Taylor-mode APIs `ops.jet`, `ops.derivative` and `ops.linearize`, on jax's.

`jet(fn, primals, series)`: `series[k - 1]` is the k-th derivative of an input path x(t) at t = 0, so
x(t) = primals + sum_k series[k - 1] t^k / k!; the answer is (fn(primals), the 1st..n-th derivatives of
fn(x(t)) at 0, stacked on a new leading axis) -- jax.experimental.jet's convention, which MindSpore's
`_TaylorOperation` shares (its documented example, exp(sin(x)), is reproduced in tests). `derivative(fn,
primals, order)` is the jet of the path x(t) = primals + t (every input moved by t), keeping only the order-th
term. A tuple of primals takes a tuple of series; an integer input is cast to float32 first; a function that
returns several Tensors gives lists, as MindSpore's do.

`linearize(fn, inputs)` returns (fn(*inputs), jvp_fn) with `jvp_fn(v)` the Jacobian of fn at `inputs` times
`v` (a Tensor, or a tuple/list of them, one per input): jax.linearize eagerly.

Eagerly these run jax's transforms on the msx function (inputs wrapped as Tensors, as `msx.transforms` does);
inside a `jit` capture, where jax cannot trace the graph being recorded, the same derivatives are nested
`msx.jvp`s of the scalar path parameter t (Grad nodes the graph compiles), so jit gives eager's values.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import jax
import jax.experimental.jet  # noqa: F401  (jax.experimental.jet.jet)
import numpy as np

from . import dtype as mstype
from .capture.builder import current_builder
from .errors import GradError
from .ops import functional as F
from .tensor import Tensor
from .transforms import _arrays, _pure, _tensors, jvp

_VALUE_DTYPES = (mstype.int32, mstype.int64, mstype.float32, mstype.float64)


def _as_float(x: Any, api: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{api}: primals must be Tensors, got {type(x).__name__}")
    if x.dtype not in _VALUE_DTYPES:
        raise TypeError(f"{api}: the primals must be int32, int64, float32 or float64, got {x.dtype}")
    return F.cast(x, mstype.float32) if x.dtype in (mstype.int32, mstype.int64) else x


def _series_of(primal: Tensor, original: Tensor, series: Any, api: str) -> Tensor:
    if not isinstance(series, Tensor):
        raise TypeError(f"{api}: each series must be a Tensor, got {type(series).__name__}")
    if series.dtype != original.dtype:
        raise TypeError(f"{api}: each series must have its primal's dtype ({original.dtype}), got {series.dtype}")
    if tuple(series.shape) == tuple(primal.shape):
        series = F.expand_dims(series, 0)
    if tuple(series.shape[1:]) != tuple(primal.shape):
        raise ValueError(f"{api}: each series must be (n, *primal.shape) = (n, {', '.join(map(str, primal.shape))}"
                         f"), got {tuple(series.shape)}")
    return F.cast(series, primal.dtype) if series.dtype != primal.dtype else series


def _outputs(out: Any) -> tuple[list[Tensor], bool]:
    """The function's Tensors and whether it returned several."""
    if isinstance(out, Tensor):
        return [out], False
    if isinstance(out, (tuple, list)) and out and all(isinstance(o, Tensor) for o in out):
        return list(out), len(out) > 1
    raise TypeError(f"jet: the function must return a Tensor or a tuple of Tensors, got {type(out).__name__}")


def _eager_jet(fn: Callable, primals: list[Tensor], series: list[Tensor]):
    order = series[0].shape[0]
    arrays = [p._data for p in primals]
    terms = [[s._data[k] for k in range(order)] for s in series]
    out, out_terms = jax.experimental.jet.jet(_pure(fn, "jet"), tuple(arrays), tuple(terms))
    return _tensors(out), _tensors(out_terms)


def _captured_jet(fn: Callable, primals: list[Tensor], series: list[Tensor]):
    """Nested msx.jvp of g(t) = fn(x(t)) in the scalar t: the k-th level is the k-th derivative at t = 0."""
    order = series[0].shape[0]

    def path(t: Tensor) -> list[Tensor]:
        xs = []
        for p, s in zip(primals, series):
            x = p
            for k in range(order):
                x = x + s[k] * (t ** (k + 1) / math.factorial(k + 1))
            xs.append(x)
        return xs

    out = fn(*primals)
    outs, _ = _outputs(out)
    per_output = []
    for j in range(len(outs)):
        level: Callable = (lambda t, j=j: _outputs(fn(*path(t)))[0][j])
        terms = []
        for _ in range(order):
            level = (lambda t, prev=level: jvp(prev, t, F.ones_like(t))[1])
            terms.append(level)
        zero = F.zeros((), primals[0].dtype)
        per_output.append(F.stack([term(zero) for term in terms]))
    return out, per_output


def _jet(fn: Callable, primals: list[Tensor], series: list[Tensor], api: str):
    orders = {s.shape[0] for s in series}
    if len(orders) != 1:
        raise ValueError(f"{api}: every series must hold the same number of terms, got {sorted(orders)}")
    if current_builder() is not None:
        out, out_series = _captured_jet(fn, primals, series)
        outs, several = _outputs(out)
        return (outs, out_series) if several else (outs[0], out_series[0])
    try:
        out, out_series = _eager_jet(fn, primals, series)
    except NotImplementedError:  # a primitive without a jet rule: the nested-jvp route gives the same terms
        out, out_series = _captured_jet(fn, primals, series)
        outs, several = _outputs(out)
        return (outs, out_series) if several else (outs[0], out_series[0])
    outs, several = _outputs(out)
    if several:
        return outs, [F.stack(list(terms)) for terms in out_series]
    terms = out_series[0] if isinstance(out_series, (tuple, list)) and not isinstance(out_series[0], Tensor) \
        else out_series
    return outs[0], F.stack(list(terms))


def jet(fn: Callable, primals, series):
    """(fn(primals), the 1st..n-th derivatives of fn along the input path whose derivatives `series` gives)."""
    if isinstance(primals, Tensor) and isinstance(series, Tensor):
        ps = [_as_float(primals, "jet")]
        ss = [_series_of(ps[0], primals, series, "jet")]
    elif isinstance(primals, tuple) and isinstance(series, tuple):
        if len(primals) != len(series):
            raise ValueError(f"jet: primals and series must have the same length, got {len(primals)} and "
                             f"{len(series)}")
        ps = [_as_float(p, "jet") for p in primals]
        ss = [_series_of(p, o, s, "jet") for p, o, s in zip(ps, primals, series)]
    else:
        raise TypeError(f"jet: primals and series must both be Tensors or both tuples, got "
                        f"{type(primals).__name__} and {type(series).__name__}")
    return _jet(fn, ps, ss, "jet")


def derivative(fn: Callable, primals, order: int):
    """(fn(primals), the order-th derivative of fn(primals + t) in t at 0 (every input moved by t))."""
    if isinstance(order, bool) or not isinstance(order, int):
        raise TypeError(f"derivative: order must be an int, got {type(order).__name__}")
    if order < 1:
        raise ValueError(f"derivative: order must be at least 1, got {order}")
    items = primals if isinstance(primals, tuple) else (primals,)
    ps = [_as_float(p, "derivative") for p in items]
    ss = []
    for p in ps:
        basis = np.zeros((order,) + tuple(p.shape), np.float64)
        basis[0] = 1
        ss.append(F.cast(Tensor(basis), p.dtype))
    out, out_series = _jet(fn, ps, ss, "derivative")
    if isinstance(out, list):
        return out, [s[-1] for s in out_series]
    return out, out_series[-1]


def linearize(fn: Callable, inputs):
    """(fn(*inputs), jvp_fn): `jvp_fn(v)` is the Jacobian of fn at `inputs` applied to `v`."""
    if not isinstance(inputs, (Tensor, tuple, list)):
        raise TypeError(f"linearize: inputs must be a Tensor or a tuple/list of Tensors, got {type(inputs).__name__}")
    xs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if not all(isinstance(x, Tensor) for x in xs):
        raise TypeError("linearize: every input must be a Tensor")
    linear = None
    if current_builder() is None:
        out_arrays, linear = jax.linearize(_pure(fn, "linearize"), *_arrays(xs))
        output = _tensors(out_arrays)
    else:
        output = fn(*xs)

    def jvp_fn(v):
        vs = (v,) if isinstance(v, Tensor) else tuple(v)
        if len(vs) != len(xs) or not all(isinstance(t, Tensor) for t in vs):
            raise GradError(f"linearize: jvp_fn takes one Tensor per input ({len(xs)}), got {len(vs)}")
        for x, t in zip(xs, vs):
            if tuple(x.shape) != tuple(t.shape):
                raise GradError(f"linearize: each vector must have its input's shape, got {tuple(t.shape)} for "
                                f"an input of shape {tuple(x.shape)}")
        if linear is not None and current_builder() is None:
            return _tensors(linear(*_arrays(vs)))
        outs = output if isinstance(output, (tuple, list)) else (output,)
        tangents = [jvp(lambda *a, j=j: _outputs(fn(*a))[0][j], xs, vs)[1] for j in range(len(outs))]
        return tuple(tangents) if isinstance(output, (tuple, list)) else tangents[0]

    return output, jvp_fn
