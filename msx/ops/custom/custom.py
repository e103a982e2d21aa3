"""MindSpore's `ops.Custom` for Python functions: `func_type="jax"` (traced, fused into the graph),
`"pyfunc"` (numpy, run on the host through `jax.pure_callback`; called directly when nothing is traced) or
`"hybrid"` (a `@kernel` Hybrid DSL function, run on the host as pyfunc; see hybrid.py).

    double = ops.Custom(lambda x: 2 * x, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc",
                        bprop=lambda x, out, dout: (2 * dout,))

Each distinct definition registers one primitive, `"Custom.<function name>"`
(numbered when two definitions share a name); creating the same definition
again reuses it, so a Custom made inside `construct` does not grow the registry.
"""
from __future__ import annotations

import re
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from ...errors import CustomOpError
from ...tensor import Tensor
from ..primitive import REGISTRY, Primitive
from . import hybrid
from .op import CustomOp, CustomOpInfo, OutputRule, differentiable, install
from .reg_info import reg_dtypes

FUNC_TYPES = ("pyfunc", "jax", "hybrid")
_MINDSPORE_ONLY = {"akg": "MindSpore's AKG DSL", "tbe": "Ascend TBE",
                   "aicpu": "Ascend AICPU kernels", "aot": "precompiled kernels (use ops.CustomOpBuilder)",
                   "julia": "Julia kernels"}
_DEFINITIONS: dict[Any, Primitive] = {}  # a definition's key -> its primitive


def _freeze(x: Any) -> Any:
    return tuple(_freeze(v) for v in x) if isinstance(x, (list, tuple)) else x


def _base_name(func: Callable) -> str:
    qualname = getattr(func, "__qualname__", None) or type(func).__name__
    cleaned = re.sub(r"[^A-Za-z0-9_.]", "", qualname.replace("<locals>.", ""))
    return "Custom." + (cleaned or "func")


def _check_outputs(values: tuple, structs: tuple, what: str) -> tuple:
    if len(values) != len(structs):
        raise ValueError(f"the {what} returned {len(values)} output(s), {len(structs)} declared")
    for i, (v, s) in enumerate(zip(values, structs)):
        if tuple(np.shape(v)) != tuple(s.shape):
            raise ValueError(f"the {what} returned shape {tuple(np.shape(v))} for output {i}, declared "
                             f"{tuple(s.shape)}")
    return values


def _check_dtypes(op: str, rows: tuple | None, inputs: tuple) -> None:
    """Refuse inputs whose dtypes match no `dtype_format` row of the reg_info (MindSpore's kernel selection)."""
    if rows is None:
        return
    have = tuple(str(np.dtype(jnp.result_type(x))) for x in inputs)
    if not any(all(want in ("", got) for want, got in zip(row, have)) and len(row) == len(have) for row in rows):
        raise TypeError(f"Select CPU operator fail! Unsupported data type: the input dtypes are {list(have)}, "
                        f"{op}'s reg_info supports {[list(r) for r in rows]}")


def _forward_impl(forward: Callable) -> Callable:
    """A primitive impl that is the forward itself (no custom backward)."""
    return lambda *inputs, **attrs: forward(inputs, attrs)


class Custom(CustomOp):
    """MindSpore's `ops.Custom` over a Python function (`func_type` "pyfunc", "jax" or "hybrid").

    out_shape/out_dtype: as MindSpore's Custom (a shape or dtype, lists of them
    for several outputs, or functions of the input shapes/dtypes); None means
    the first input's. For `"jax"` they default to what the function computes
    and, when given, must agree with it; for `"hybrid"` (a `@kernel` function)
    what is not given is inferred by running the kernel on zeros, as MindSpore
    does. bprop: `bprop(*inputs, out, dout)` returning one gradient per input;
    without it a `"jax"` function is differentiated by jax and a `"pyfunc"` or
    `"hybrid"` one refuses gradients with an error. reg_info: MindSpore's
    registration info (`CustomRegOp().....get_op_info()`, its JSON text, or a
    list of them; default: the function's `reg_info`); a call whose input
    dtypes match none of its CPU `dtype_format` rows is refused.
    """

    def __init__(self, func: Callable, out_shape: Any = None, out_dtype: Any = None, func_type: str = "pyfunc",
                 bprop: Callable | None = None, reg_info: Any = None) -> None:
        if not callable(func):
            raise CustomOpError(f"ops.Custom: func must be a Python function, got {type(func).__name__}; for C++ "
                                f"sources use ops.CustomOpBuilder")
        if func_type not in FUNC_TYPES:
            why = f" ({_MINDSPORE_ONLY[func_type]}, which msx does not have)" if func_type in _MINDSPORE_ONLY else ""
            raise CustomOpError(f"ops.Custom: func_type={func_type!r}{why}; choose 'jax' (a jax-traceable function, "
                                f"fused into the graph), 'pyfunc' (a numpy function run on the host) or 'hybrid' (a "
                                f"Hybrid DSL function decorated by ops.kernel, run on the host)")
        if bprop is not None and not callable(bprop):
            raise CustomOpError(f"ops.Custom: bprop must be callable, got {type(bprop).__name__}")
        if func_type == "hybrid" and not hybrid.is_kernel(func):
            raise TypeError(f"ops.Custom(func_type='hybrid'): 'func' must be a function decorated by kernel, got "
                            f"{func!r}")
        self.inplace_assign_output = hybrid.check_dsl(func) if func_type == "hybrid" else []
        self.reg_info = getattr(func, "reg_info", None) if reg_info is None else reg_info
        self._dtype_rows = reg_dtypes(self.reg_info, "ops.Custom")
        try:
            key = (func, func_type, _freeze(out_shape), _freeze(out_dtype), bprop, repr(self.reg_info))
            hash(key)
        except TypeError:
            key = None
        same = _DEFINITIONS.get(key) if key is not None else None
        self.func, self.func_type, self.bprop = func, func_type, bprop
        self.out_shape, self.out_dtype = out_shape, out_dtype
        if same is not None and REGISTRY.get(same.name) is same:  # the same definition again: the same primitive
            super().__init__(same.name)
            self._primitive = same
            return
        super().__init__(self._free_name(_base_name(func)))
        rule = hybrid.HybridRule(self.name, func, out_shape, out_dtype) if func_type == "hybrid" else \
            OutputRule(self.name, out_shape, out_dtype)
        forward = self._jax_forward(rule) if func_type == "jax" else self._host_forward(rule)
        if func_type == "jax" and bprop is None:
            impl = _forward_impl(forward)  # jax differentiates the function itself
        else:
            impl = differentiable(self.name, forward, bprop, "pass bprop=... to ops.Custom")
        info = CustomOpInfo(func_type, getattr(func, "__qualname__", type(func).__name__))
        self._primitive = install(self.name, impl, info, (getattr(func, "__doc__", None) or "").strip())
        if key is not None:
            _DEFINITIONS[key] = self._primitive

    @staticmethod
    def _free_name(base: str) -> str:
        name, k = base, 1
        while name in REGISTRY:
            name, k = f"{base}_{k}", k + 1
        return name

    def _jax_forward(self, rule: OutputRule) -> Callable:
        """The function itself; what the user declared (shapes, dtypes) is checked against what it computes."""
        func, check_shape, check_dtype = self.func, self.out_shape is not None, self.out_dtype is not None
        name, rows = self.name, self._dtype_rows

        def forward(inputs: tuple, attrs: dict) -> tuple:
            _check_dtypes(name, rows, inputs)
            out = func(*inputs, **attrs)
            values = tuple(out) if isinstance(out, (tuple, list)) else (out,)
            if check_shape or check_dtype:
                structs = rule.structs(inputs, attrs)
                if check_shape or len(values) != len(structs):
                    _check_outputs(values, structs, "function")
                for i, (v, s) in enumerate(zip(values, structs)):
                    if check_dtype and jnp.result_type(v) != s.dtype:
                        raise ValueError(f"the function returned dtype {jnp.result_type(v)} for output {i}, "
                                         f"declared {s.dtype}")
            return values

        return forward

    def _host_forward(self, rule: OutputRule) -> Callable:
        func, name, rows = self.func, self.name, self._dtype_rows
        writable = hybrid.is_kernel(func)  # a kernel may write its inputs (an in-place output): give it copies

        def forward(inputs: tuple, attrs: dict) -> tuple:
            _check_dtypes(name, rows, inputs)
            structs = rule.structs(inputs, attrs)

            def host(*arrays):
                if writable:
                    arrays = [np.array(a) for a in arrays]
                out = func(*arrays, **attrs)
                values = tuple(out) if isinstance(out, (tuple, list)) else (out,)
                _check_outputs(values, structs, "Python function")
                return tuple(np.asarray(v, dtype=s.dtype) for v, s in zip(values, structs))

            if any(isinstance(x, jax.core.Tracer) for x in inputs):
                return tuple(jax.pure_callback(host, structs, *inputs, vmap_method="sequential"))
            return tuple(jnp.asarray(v) for v in host(*[np.asarray(x) for x in inputs]))

        return forward

    def __call__(self, *inputs, **attrs):
        out = super().__call__(*inputs, **attrs)
        if self.inplace_assign_output:  # a hybrid kernel that wrote an input and returned it: MindSpore writes
            outs = out if isinstance(out, tuple) else (out,)  # the caller's Tensor too
            for o, i in self.inplace_assign_output:
                if i < len(inputs) and isinstance(inputs[i], Tensor) and o < len(outs):
                    inputs[i]._rebind(outs[o])
        return out

    def __repr__(self) -> str:
        return f"<ops.Custom {self.name} (func_type={self.func_type!r})>"
