"""MindSpore's Hybrid DSL (`ops.kernel`, `ops.ms_kernel`): kernels written as Python loops over tensors.

    @kernel
    def outer_product(a, b):
        c = output_tensor(a.shape, a.dtype)
        for i0 in range(a.shape[0]):
            for i1 in range(b.shape[1]):
                c[i0, i1] = 0.0
                for i2 in range(a.shape[1]):
                    c[i0, i1] = c[i0, i1] + a[i0, i2] * b[i2, i1]
        return c

MindSpore compiles such a function with AKG for `ops.Custom(fn, func_type="hybrid")` and, called directly
on numpy arrays, runs it as plain Python with the DSL's intrinsics bound to numpy. msx always runs it the
second way, on the host (a `jax.pure_callback` inside `msx.jit`), so both spellings compute what the Python
says. Where MindSpore mutates the caller's module globals to supply the intrinsics, msx runs the function
over a copy of them, so a module's own names are never shadowed outside the kernel.

What a hybrid Custom adds over a pyfunc one is MindSpore's: the static check of the DSL at construction
(`check_dsl`: the same rules and messages), and the outputs' shapes and dtypes inferred by running the
function on zeros of the inputs' shapes and dtypes (`HybridRule`). A kernel may write an input and return it
(an "in-place" output): the kernel gets copies, and Custom then writes the caller's Tensor (`Tensor._rebind`,
a state write under `jit`), as MindSpore does.
"""
from __future__ import annotations

import ast
import functools
import inspect
import itertools
import json
import textwrap
import types
import warnings
from typing import Any, Callable

import jax
import numpy as np

from ... import context
from ... import dtype as mstype
from .op import OutputRule, signature

KERNEL_FLAG = "ms_kernel_flag"


# ------------------------------------------------------------------ intrinsics (numpy)
def _allocate(shape: Any, dtype: Any = "float32", scope: str = "global") -> np.ndarray:
    """A zero-filled buffer: `allocate` (a temporary) and `output_tensor` (an output)."""
    del scope  # a storage hint for AKG's schedules
    return np.zeros(shape).astype(dtype)


def _rsqrt(x: Any) -> Any:
    return np.ones_like(x) / np.sqrt(x)


def _erf(x: float) -> float:
    """erf by Abramowitz-Stegun 7.1.26, the DSL's own formula (so pyfunc runs agree with MindSpore's)."""
    sign = 1 if x >= 0 else -1
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t
    return sign * (1.0 - poly * np.exp(-x * x))


def _grid(extents: Any) -> Any:
    return itertools.product(*[range(e) for e in extents])


class _Scope:
    """`with attr(...)` / `with block_realize(t)`: scheduling hints for AKG, nothing to do on the host."""

    def __call__(self, *args: Any, **kwargs: Any) -> "_Scope":
        return self

    def __enter__(self) -> "_Scope":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


BUFFERS = {"allocate": _allocate, "output_tensor": _allocate}
LOOPS = {"range": range, "serial": range, "vectorize": range, "parallel": range, "reduce": range, "grid": _grid}
SCOPES = {"attr": _Scope(), "block_realize": _Scope()}
UNARY = {"sqrt": np.sqrt, "sign": np.sign, "log": np.log, "tanh": np.tanh, "exp": np.exp, "abs": np.abs,
         "int32": np.int32, "float16": np.float16, "float32": np.float32}
BINARY = {"power": np.power}
GENERAL_UNARY = {"rsqrt": _rsqrt, "erf": _erf, "isnan": np.isnan, "int8": np.int8, "int16": np.int16,
                 "int64": np.int64, "float64": np.float64, "sin": np.sin, "cos": np.cos, "isinf": np.isinf,
                 "isfinite": np.isfinite, "atan": np.arctan, "atan2": np.arctan2, "expm1": np.expm1,
                 "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": np.round}
GENERAL_BINARY = {"ceil_div": lambda a, b: (a + b - 1) // b}
GENERAL = {**GENERAL_UNARY, **GENERAL_BINARY}  # not on Ascend
CPU_UNSUPPORTED = ("atan2", "expm1", "float16")
INTRINSICS = {**BUFFERS, **LOOPS, **SCOPES, **UNARY, **BINARY, **GENERAL}
_CALLABLE = set(INTRINSICS) | {"max", "min", "len", "kernel", "ms_kernel"}


# ------------------------------------------------------------------ the decorator
def _run_with_intrinsics(func: Callable) -> Callable:
    """`func` run with the DSL's names bound (over a fresh copy of its globals, read at each call)."""

    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        scope = {**func.__globals__, **INTRINSICS}
        body = types.FunctionType(func.__code__, scope, func.__name__, func.__defaults__, func.__closure__)
        body.__kwdefaults__ = func.__kwdefaults__
        return body(*args, **kwargs)

    return run


def kernel(fn: Callable | None = None, reg_info: Any = None, compile_attrs: dict | None = None) -> Callable:
    """MindSpore's `@kernel` / `@kernel(reg_info=..., compile_attrs=...)`: mark a Hybrid DSL function.

    The result runs the function as Python over numpy (the DSL's intrinsics bound), and carries
    MindSpore's attributes: `ms_kernel_flag`, `compile_attrs` (the dict as JSON text) and `reg_info` (when
    given), also set on `fn` itself as MindSpore does. `ops.Custom(result, func_type="hybrid")` uses it.
    """
    compile_attrs = {} if compile_attrs is None else compile_attrs
    if not isinstance(compile_attrs, dict):
        raise TypeError(f"The input 'compile_attrs' of @kernel must be a dict, but get a {type(compile_attrs)}")
    for key in compile_attrs:
        if not isinstance(key, str):
            raise TypeError(f"The key of 'compile_attrs' of @kernel must be a str, but get a {type(key)}")
    if reg_info is not None and not isinstance(reg_info, (str, dict, tuple)):
        raise TypeError(f"The input 'reg_info' of @kernel should be one of str, dict and tuple, but get a "
                        f"{type(reg_info)}")

    def wrap(func: Callable) -> Callable:
        if not isinstance(func, types.FunctionType):
            raise TypeError(f"@kernel decorates a Python function (def ...), got {type(func).__name__}")
        func.ms_kernel_flag = True
        func.compile_attrs = json.dumps(compile_attrs)
        if reg_info is not None:
            func.reg_info = reg_info
        return _run_with_intrinsics(func)

    return wrap(fn) if fn is not None else wrap


def ms_kernel(fn: Callable | None = None, reg_info: Any = None, compile_attrs: dict | None = None) -> Callable:
    """MindSpore's deprecated spelling of `kernel` (it warns, then does the same)."""
    warnings.warn("'ms_kernel' is deprecated from version 1.8 and will be removed in a future version, use "
                  "'kernel' instead.", DeprecationWarning, stacklevel=2)
    return kernel(fn, reg_info, compile_attrs)


def is_kernel(func: Any) -> bool:
    return hasattr(func, KERNEL_FLAG)


# ------------------------------------------------------------------ MindSpore's static check of the DSL
def source_of(func: Callable) -> str:
    """The function's source from `def` on (decorators dropped), as MindSpore's Custom reads it."""
    text = textwrap.dedent(inspect.getsource(inspect.unwrap(func)))
    return text[text.find("def "):] if "def " in text else text


class _Checker(ast.NodeVisitor):
    """MindSpore's `VariableUsage`: the DSL's rules on names, calls, loops and the return value."""

    def __init__(self, name: str, device: str) -> None:
        self.name, self.device = name, device
        self.scopes: list[ast.AST] = []
        self.args: dict[str, int] = {}
        self.status: dict[str, tuple] = {}
        self.outputs: list[str] = []
        self.temps: list[str] = []
        self.inplace: list[list[int]] = []

    def _dsl(self, what: str) -> str:
        return f"In the function {self.name} written in the Hybrid DSL, {what}"

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.scopes.append(node)
        self.args.update({a.arg: i for i, a in enumerate(node.args.args)})
        for stmt in node.body:
            self.visit(stmt)

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self.scopes.append(node)
        for stmt in node.body:
            self.visit(stmt)
        self.scopes.pop()

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in self.args:
            return
        loops = [getattr(s.target, "id", None) for s in self.scopes if isinstance(s, ast.For)]
        if node.id in loops:
            if isinstance(node.ctx, ast.Store):
                raise ValueError(self._dsl(f"iter var cannot be overwritten: {node.id}"))
            return
        if node.id not in self.status:
            if not isinstance(node.ctx, ast.Store):
                raise ValueError(self._dsl(f"there is a undeclared variable: {node.id}"))
            self.status[node.id] = (self.scopes[-1],)
        elif self.status[node.id][0] not in self.scopes:
            raise ValueError(self._dsl(f"there is a variable used out of the scope it is defined: {node.id}"))

    def visit_Call(self, node: ast.Call) -> None:
        fid = getattr(node.func, "id", None)
        hint = "For the full support list, please refer to 'Hybrid DSL' at https://www.mindspore.cn."
        if fid not in _CALLABLE:
            raise ValueError(f"In the function [{self.name}], function call id [{fid}] not in intrinsics list of "
                             f"the Hybrid DSL. {hint}")
        if (self.device == "Ascend" and fid in GENERAL) or (self.device == "CPU" and fid in CPU_UNSUPPORTED):
            raise ValueError(f"In the function [{self.name}], function call id [{fid}] is not available on the "
                             f"device {self.device}. {hint}")
        if fid in UNARY or fid in GENERAL_UNARY:
            if len(node.args) != 1:
                raise TypeError(f"In the function [{self.name}], function [{fid}] expects one input, but get "
                                f"{len(node.args)}.")
        elif (fid in BINARY or fid in GENERAL_BINARY or fid in BUFFERS) and len(node.args) != 2:
            raise TypeError(f"In the function [{self.name}], function [{fid}] expects two inputs, but get "
                            f"{len(node.args)}.")
        for arg in node.args:
            self.visit(arg)

    def visit_With(self, node: ast.With) -> None:
        call = node.items[0].context_expr
        fid = getattr(getattr(call, "func", None), "id", None)
        if fid == "attr":
            if len(call.args) != 2:
                raise ValueError(self._dsl(f"two inputs are expected by 'attr', but get {len(call.args)}"))
            first, second = call.args
            if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                raise ValueError(self._dsl(f"the first input of 'attr' should be a string, but get {type(first)}"))
            if not (isinstance(second, ast.Constant) and second.value is not None):
                raise ValueError(self._dsl(f"the second input of 'attr' should be a string, number or bool value, "
                                           f"but get {type(second)}"))
        elif fid == "block_realize":
            if len(call.args) != 1:
                raise ValueError(self._dsl(f"only one input is accepted by 'block_realize', but get "
                                           f"{len(call.args)}"))
            if not isinstance(call.args[0], ast.Name):
                raise ValueError(self._dsl(f"the input of 'block_realize' should be a tensor name, but get "
                                           f"{type(call.args[0])}"))
        else:
            raise ValueError(f"Unsupported function in With scope in the function {self.name} written in the "
                             f"Hybrid DSL: {fid} ")
        for stmt in node.body:
            if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                    and isinstance(stmt.value.value, str)):
                self.visit(stmt)

    def visit_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) > 1:
            raise ValueError(f"One statement with multiple assignments is not allowed in the function {self.name} "
                             f"written in the Hybrid DSL.")
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            if target.id in self.outputs + self.temps:
                raise ValueError(self._dsl(f"the tensor is redefined: {target.id}"))
            if value.func.id == "allocate":
                self.temps.append(target.id)
            elif value.func.id == "output_tensor":
                self.outputs.append(target.id)
        self.generic_visit(node)

    def _keyword(self, node: ast.AST) -> None:
        """`break`, `continue` and `while` are refused: the DSL's loops have static extents."""
        raise TypeError(f"Keyword '{type(node).__name__.lower()}' not accepted in the function {self.name} written "
                        f"in the Hybrid DSL!")

    visit_Break = visit_Continue = visit_While = _keyword

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if not isinstance(node.value, ast.Name):
            raise ValueError(self._dsl(f"getattr is only supported for a tensor object, not for the object with "
                                       f"type: {type(node.value)}"))
        if node.value.id not in self.outputs + self.temps + list(self.args):
            raise ValueError(self._dsl(f"getattr is only supported for a tensor variable after its declaration, "
                                       f"not for: {node.value.id}"))
        if node.attr not in ("shape", "dtype"):
            raise ValueError(self._dsl(f"a tensor object has no attribute called {node.attr}"))

    def visit_Return(self, node: ast.Return) -> None:
        if isinstance(node.value, ast.Name):
            symbols = [node.value.id]
        elif isinstance(node.value, ast.Tuple):
            for elt in node.value.elts:
                if not isinstance(elt, ast.Name):
                    raise TypeError(self._dsl(f"the element in the return value should be the name of a tensor, "
                                              f"but get a {type(elt)}."))
            symbols = [elt.id for elt in node.value.elts]
        else:
            raise TypeError(self._dsl(f"the return value should be either a single tensor or a tuple, but get a "
                                      f"{type(node.value)}."))
        for sym in symbols:
            if sym not in list(self.args) + self.outputs:
                raise TypeError(self._dsl(f"the element in the return value should be either an input tensor or "
                                          f"a tensor allocated by output_tensor, but get name: {sym}"))
        for sym in self.outputs:
            if sym not in symbols:
                raise TypeError(self._dsl(f"the tensor is allocated as an output tensor but not in the return "
                                          f"value: {sym}"))
        self.inplace = [[i, self.args[s]] for i, s in enumerate(symbols) if s in self.args]


def check_dsl(func: Callable) -> list[list[int]]:
    """MindSpore's static check of a Hybrid DSL function (raises its ValueError/TypeError); returns the
    in-place outputs as `[output index, input index]` pairs."""
    name = inspect.unwrap(func).__name__
    try:
        source = source_of(func)
    except (OSError, TypeError):
        warnings.warn(f"ops.Custom(func_type='hybrid'): the source of {name} cannot be read (made by exec or "
                      f"`python -c`?), so the Hybrid DSL check is skipped and no in-place outputs are known",
                      UserWarning, stacklevel=3)
        return []
    checker = _Checker(name, str(context.get_context("device_target")))
    checker.visit(ast.parse(source))
    return checker.inplace


# ------------------------------------------------------------------ automatic infer
class HybridRule:
    """The outputs' shapes and dtypes: what out_shape/out_dtype declare, the rest inferred as MindSpore does
    (the kernel run on zeros of the inputs' shapes and dtypes), memoised per input signature."""

    def __init__(self, op: str, func: Callable, out_shape: Any, out_dtype: Any) -> None:
        self.op, self.func = op, func
        self.declared = OutputRule(op, out_shape, out_dtype) if out_shape is not None and out_dtype is not None \
            else None
        self.out_shape, self.out_dtype = out_shape, out_dtype
        self._memo: dict[Any, tuple] = {}

    def structs(self, inputs: tuple, attrs: dict) -> tuple[jax.ShapeDtypeStruct, ...]:
        if self.declared is not None:
            return self.declared.structs(inputs, attrs)
        key = signature(inputs, attrs)
        found = self._memo.get(key) if key is not None else None
        if found is None:
            found = self._infer(inputs, attrs)
            if key is not None:
                if len(self._memo) >= 256:
                    self._memo.clear()
                self._memo[key] = found
        return found

    def _infer(self, inputs: tuple, attrs: dict) -> tuple[jax.ShapeDtypeStruct, ...]:
        zeros = [np.zeros(x.shape, np.dtype(x.dtype)) if hasattr(x, "dtype") else np.zeros((), np.asarray(x).dtype)
                 for x in inputs]  # shapes and dtypes only: the inputs may be tracers
        try:
            with np.errstate(all="ignore"):  # zeros make log/rsqrt/division warn; the values are not used
                out = self.func(*zeros, **attrs)
        except Exception as exc:
            raise ValueError(f"inferring its outputs (the kernel run on zeros of the inputs' shapes and dtypes) "
                             f"failed: {type(exc).__name__}: {exc}; declare out_shape and out_dtype") from None
        values = [np.asarray(v) for v in (out if isinstance(out, (tuple, list)) else (out,))]
        shapes = [v.shape for v in values]
        dtypes = [v.dtype for v in values]
        if self.out_shape is not None or self.out_dtype is not None:  # one of them declared: it wins
            given = OutputRule(self.op, self.out_shape if self.out_shape is not None else shapes,
                               self.out_dtype if self.out_dtype is not None else [mstype.to_msx(d) for d in dtypes])
            return given.structs(inputs, attrs)
        return tuple(jax.ShapeDtypeStruct(s, d) for s, d in zip(shapes, dtypes))
