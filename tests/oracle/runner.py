"""Run one oracle case on a framework (MindSpore or msx), the same way for both.

`Framework` holds the few entry points a case needs; `run_case` resolves the call, builds tensors from
the stored numpy inputs, and returns the outputs as numpy arrays with their dtype names, and the
gradients of `sum(first output * cotangent)` for the float tensor inputs.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .cases import Case, Dt, In


@dataclass
class Framework:
    ops: Any
    mint: Any
    Tensor: type
    dtype_of: Callable[[str], Any]  # "float32" -> the framework's dtype object
    grad: Callable  # grad(fn, positions) -> fn returning a tuple of gradients
    to_numpy: Callable[[Any], np.ndarray]


def make_inputs(case: Case) -> list[np.ndarray]:
    """The case's tensor inputs, drawn from a seed derived from its id (in `args` order, lists flattened)."""
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    out = []
    for spec in _specs(case.args):
        if spec.dtype == "bool":
            out.append(rng.integers(0, 2, spec.shape).astype(np.bool_))
        elif spec.dtype.startswith("complex"):
            shape = spec.shape
            out.append((rng.uniform(spec.lo, spec.hi, shape) + 1j * rng.uniform(spec.lo, spec.hi, shape))
                       .astype(spec.dtype))
        elif spec.dtype.startswith(("int", "uint")):
            out.append(rng.integers(int(spec.lo), int(spec.hi), spec.shape).astype(spec.dtype))
        else:
            out.append(rng.uniform(spec.lo, spec.hi, spec.shape).astype(spec.dtype))
    return out


def _specs(args) -> list[In]:
    specs = []
    for a in args:
        if isinstance(a, In):
            specs.append(a)
        elif isinstance(a, list):
            specs.extend(x for x in a if isinstance(x, In))
    return specs


def grad_positions(case: Case, inputs: list[np.ndarray]) -> tuple[int, ...]:
    """Positions (in `args`) of the top-level float tensor inputs that gradients are taken for."""
    if not case.grad:
        return ()
    positions, k = [], 0
    for i, a in enumerate(case.args):
        if isinstance(a, In):
            if inputs[k].dtype.kind == "f":
                positions.append(i)
            k += 1
        elif isinstance(a, list):
            k += sum(isinstance(x, In) for x in a)
    return tuple(positions)


def resolve(fw: Framework, call: str) -> Callable:
    """`ops.sin` / `mint.nn.functional.gelu` / `Tensor.sum` -> a callable taking the case's arguments."""
    root, _, rest = call.partition(".")
    if root == "Tensor":
        return lambda self, *a, **k: getattr(self, rest)(*a, **k)
    obj = {"ops": fw.ops, "mint": fw.mint}[root]
    for part in rest.split("."):
        obj = getattr(obj, part)
    return obj


def build_args(fw: Framework, case: Case, inputs: list[np.ndarray]) -> list:
    it = iter(inputs)

    def one(a):
        if isinstance(a, In):
            return fw.Tensor(next(it))
        if isinstance(a, Dt):
            return fw.dtype_of(a.name)
        if isinstance(a, list):
            return [one(x) for x in a]
        return a

    return [one(a) for a in case.args]


def _kwargs(fw: Framework, kwargs: dict) -> dict:
    return {k: fw.dtype_of(v.name) if isinstance(v, Dt) else v for k, v in kwargs.items()}


def callable_for(fw: Framework, case: Case) -> Callable:
    fn = resolve(fw, case.call)
    if case.init is not None:
        init_args, init_kwargs = case.init
        fn = fn(*init_args, **_kwargs(fw, init_kwargs))
    kwargs = _kwargs(fw, case.kwargs)
    return lambda *args: fn(*args, **kwargs)


def outputs_of(fw: Framework, result) -> list[tuple[np.ndarray, str]]:
    items = result if isinstance(result, (tuple, list)) else (result,)
    out = []
    for r in items:
        if isinstance(r, fw.Tensor):
            out.append((fw.to_numpy(r), str(r.dtype)))
        else:
            out.append((np.asarray(r), type(r).__name__))
    return out


def run_case(fw: Framework, case: Case, inputs: list[np.ndarray], cotangent: np.ndarray | None = None):
    """(outputs [(array, dtype name)], grads [array] or None, the cotangent used)."""
    fn = callable_for(fw, case)
    args = build_args(fw, case, inputs)
    result = fn(*args)
    outs = outputs_of(fw, [a for a in args if isinstance(a, fw.Tensor)] if case.written else result)
    positions = grad_positions(case, inputs)
    if not positions or outs[0][0].dtype.kind != "f":
        return outs, None, None
    if cotangent is None:
        rng = np.random.default_rng(zlib.crc32(case.id.encode()) + 1)
        cotangent = rng.uniform(0.5, 1.5, outs[0][0].shape).astype(outs[0][0].dtype)
    ct = fw.Tensor(cotangent)

    def loss(*tensors):
        full = list(args)
        for p, t in zip(positions, tensors):
            full[p] = t
        r = fn(*full)
        first = r[0] if isinstance(r, (tuple, list)) else r
        return (first * ct).sum()

    grads = fw.grad(loss, tuple(range(len(positions))))(*[args[p] for p in positions])
    grads = grads if isinstance(grads, (tuple, list)) else (grads,)
    return outs, [fw.to_numpy(g) for g in grads], cotangent
