"""MindSpore 2.10's debugging class ops: `ops.Assert`, `ops.TensorDump` / `ops.tensordump`, `ops.DumpGradient`,
`ops.InsertGradientOf`, `ops.PyFunc`, `ops.Morph` and `ops.Reusing`.

`Assert` and `TensorDump` are output-less primitives whose implementation is an ordered `jax.debug.callback`,
so they run on the host when the op runs, eagerly and inside a compiled graph alike, in program order, and
dead-code elimination keeps them (an effect). A failed `Assert` prints MindSpore's lines
(`For 'Assert' condition is false.`, then `input data: ...` per input, `summarize` elements each) and raises
a `RuntimeError` (eagerly `AssertFailedError`; from a compiled graph jax's `JaxRuntimeError`, also a
`RuntimeError`, as MindSpore's graph mode raises one). `TensorDump` writes `<file>_<dtype>_<id>.npy`
(`id` one counter for the process, as MindSpore's), atomically (a temporary file, then a rename).
`InsertGradientOf` and `DumpGradient` are `Tensor.register_hook` on a fresh identity of the input: the
eager tape's hook, a `GradHook` node under jit.
"""
from __future__ import annotations

import itertools
import os
import tempfile
import threading

import jax
import jax.numpy as jnp
import numpy as np

from ..recording import not_recording
from ..errors import CaptureFallback, MsxError, OpError, OpTypeError
from ..tensor import Tensor
from . import functional as F
from .api import SURFACE, PrimitiveOp
from .custom import Custom
from .primitive import apply, primitive, recording


class AssertFailedError(MsxError, RuntimeError):
    """`ops.Assert`'s condition was False (MindSpore raises `RuntimeError: assert failed`)."""


# ---------------------------------------------------------------- TensorDump
_ids = itertools.count()
_id_lock = threading.Lock()


def dump_path(file: str, dtype_name: str, index: int) -> str:
    """MindSpore's name of the `index`th dump: the file name without `.npy`, `_<dtype>_<index>.npy`."""
    stem = file[:-4] if file.endswith(".npy") else file
    return f"{stem}_{dtype_name}_{index}.npy"


def _write(file: str, dtype_name: str, value) -> None:
    with _id_lock:
        index = next(_ids)
    path = dump_path(file, dtype_name, index)
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    array = np.asarray(value)
    if dtype_name == "bfloat16":  # as MindSpore: bfloat16 data is stored as float32
        array = array.astype(np.float32)
    fd, tmp = tempfile.mkstemp(prefix=".tensordump-", suffix=".npy", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            np.save(f, array, allow_pickle=False)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@primitive("TensorDump", attrs=("file", "dtype_name"), multiple_results=True, differentiable=False,
           internal="what ops.tensordump, ops.TensorDump and ops.DumpGradient run, each checking its arguments")
def tensor_dump(x, *, file, dtype_name):
    """Write `x` to `<file>_<dtype>_<id>.npy` when the op runs (host callback, in program order)."""
    jax.debug.callback(lambda v: _write(file, dtype_name, v), x, ordered=True)
    return ()


def _dump(op: str, file, x, mode: str) -> None:
    if not isinstance(file, str):
        raise OpTypeError(f"{op}: file_name must be a str, got {type(file).__name__}")
    if not isinstance(x, Tensor):
        raise OpTypeError(f"{op}: the tensor must be a Tensor, got {type(x).__name__}")
    if mode == "all":
        raise OpError(f"{op}: mode 'all' is no longer supported (MindSpore 2.10); use 'out' or 'in'")
    if mode not in ("out", "in"):
        raise OpError(f"{op}: mode must be one of ['out', 'in'], got {mode!r}")
    # stand-alone (no redistribution between ops) 'in' and 'out' dump the same slice under the same name
    apply(tensor_dump, (x,), {"file": file, "dtype_name": str(x.dtype).lower()})


def tensordump(file_name: str, tensor: Tensor, mode: str = "out") -> None:
    """MindSpore's `ops.tensordump(file_name, tensor, mode='out')`: save `tensor` as
    `<file_name>_<dtype>_<id>.npy` when the op runs."""
    _dump("tensordump", file_name, tensor, mode)


class TensorDump(PrimitiveOp):
    """`ops.TensorDump(input_output='out')(file, input_x)`: `ops.tensordump` as a class op."""

    name = "TensorDump"

    def __init__(self, input_output: str = "out") -> None:
        super().__init__()
        if input_output not in ("out", "in"):
            raise OpError(f"TensorDump: input_output must be one of ['out', 'in'], got {input_output!r}")
        self.input_output = input_output
        self.add_prim_attr("input_output", input_output)

    def __call__(self, file, input_x) -> None:
        _dump(self.name, file, input_x, self.input_output)


# ---------------------------------------------------------------- gradient hooks
def _hooked(op: str, x, hook, effect_only: bool = False) -> Tensor:
    """A fresh identity of `x` whose gradient runs through `hook`. `effect_only` (the hook returns its gradient
    unchanged): inside a capture whose graph then runs the same call (bytecode's) only the graph's `GradHook`
    node runs it, not also the capture run's own backward pass, so a dump is written once per call."""
    if not isinstance(x, Tensor):
        raise OpTypeError(f"{op}: the input must be a Tensor, got {type(x).__name__}")
    y = F.identity(x)
    recorder = recording.recorder
    if y._data is x._data and recorder is None:  # a fresh array: the hook is this use's, not `x`'s
        y = Tensor._from(jnp.array(x._data, copy=True))
    if effect_only and recorder is not None and not getattr(recorder, "runs_effects", True):
        recorder.grad_hook(y, hook)  # bytecode capture: the graph runs this call too, so only its node dumps
    else:
        y.register_hook(hook)
    return y


class InsertGradientOf(PrimitiveOp):
    """`ops.InsertGradientOf(f)(x)`: `x` unchanged; the gradient flowing back to `x` through this use is `f(dout)`."""

    name = "InsertGradientOf"

    def __init__(self, f) -> None:
        super().__init__()
        if not callable(f):
            raise OpTypeError(f"InsertGradientOf: f must be callable, got {type(f).__name__}")
        self.f = f

    def __call__(self, x):
        return _hooked(self.name, x, self.f)


class DumpGradient(PrimitiveOp):
    """`ops.DumpGradient()(path, x, input_output)`: `x` unchanged; the gradient flowing back to `x` through
    this use is saved as `<path>_<dtype>_<id>.npy` (as `tensordump` names it) when the backward pass runs."""

    name = "DumpGradient"

    def __call__(self, path, x, input_output):
        if not isinstance(path, str):
            raise OpTypeError(f"DumpGradient: path must be a str, got {type(path).__name__}")
        if input_output not in ("out", "in"):
            raise OpError(f"DumpGradient: input_output must be one of ['out', 'in'], got {input_output!r}")

        def dump(dout):
            _dump(self.name, path, dout, input_output)
            return dout

        return _hooked(self.name, x, dump, effect_only=True)


# ---------------------------------------------------------------- Assert
def _summary(value, n: int) -> str:
    flat = np.asarray(value).reshape(-1)[:n]
    return "[" + " ".join(f"{v:g}" if np.issubdtype(flat.dtype, np.floating) else str(v) for v in flat) + "]"


def _check(summarize: int, cond, *data) -> None:
    if bool(np.asarray(cond).reshape(())):
        return
    lines = ["For 'Assert' condition is false."] + [f"input data: {_summary(d, summarize)}" for d in data]
    print("\n".join(lines), flush=True)
    raise AssertFailedError("Assert: assert failed\n" + "\n".join(lines))


@primitive("Assert", attrs=("summarize",), multiple_results=True, differentiable=False,
           internal="what ops.Assert runs after checking the condition's dtype and size")
def assert_(cond, *data, summarize):
    """Check `cond` when the op runs; False prints the inputs and raises (host callback, in program order)."""
    jax.debug.callback(lambda c, *d: _check(summarize, c, *d), cond, *data, ordered=True)
    return ()


class Assert(PrimitiveOp):
    """`ops.Assert(summarize=3)(condition, input_data)`: raise when `condition` (a bool, or a one-element bool
    Tensor) is False, printing the first `summarize` elements of each Tensor of `input_data`; returns
    MindSpore's int32 `[0]`."""

    name = "Assert"

    def __init__(self, summarize: int = 3) -> None:
        super().__init__()
        if isinstance(summarize, bool) or not isinstance(summarize, int):
            raise OpTypeError(f"Assert: summarize must be an int, got {type(summarize).__name__}")
        self.summarize = summarize
        self.add_prim_attr("summarize", summarize)

    def __call__(self, condition, input_data):
        if isinstance(input_data, Tensor) or not isinstance(input_data, (list, tuple)):
            raise OpTypeError(f"Assert: input_data must be a list or tuple of Tensors, got "
                              f"{type(input_data).__name__}")
        data = [d if isinstance(d, Tensor) else Tensor(d) for d in input_data]
        if isinstance(condition, Tensor):
            if str(condition.dtype) != "Bool":
                raise OpTypeError(f"Assert: the condition must be a bool Tensor, got {condition.dtype}")
            if condition.size != 1:
                raise OpError(f"Assert: the condition must have one element, got shape {tuple(condition.shape)}")
            cond = condition.reshape(())
        else:
            cond = Tensor(bool(condition))
        if recording.recorder is None and not isinstance(cond._data, jax.core.Tracer):
            _check(self.summarize, np.asarray(cond._data), *[np.asarray(d._data) for d in data])
        else:
            apply(assert_, (cond, *data), {"summarize": self.summarize})
        return Tensor(np.zeros((1,), np.int32))


# ---------------------------------------------------------------- PyFunc, Morph, Reusing
class PyFunc(PrimitiveOp):
    """`ops.PyFunc(fn, in_types, in_shapes, out_types, out_shapes, stateful=True)(*inputs)` -> a tuple of
    Tensors: `fn` runs on the host on numpy arrays (`jax.pure_callback` inside a graph; an `ops.Custom` of
    func_type 'pyfunc'), its results checked against `out_types`/`out_shapes`. No gradient (MindSpore: no bprop).
    `stateful`: jax orders a host call by its data flow only, and a compiled graph drops one whose results
    nothing reads (keep a result, or use `ops.TensorDump`/`ops.Print` for effects)."""

    name = "PyFunc"

    def __init__(self, fn, in_types, in_shapes, out_types, out_shapes, stateful: bool = True) -> None:
        super().__init__()
        if not callable(fn):
            raise OpTypeError(f"PyFunc: fn must be callable, got {type(fn).__name__}")
        if type(fn).__name__ == "InterpretedFunction":  # source capture's def/lambda: gone when the graph runs
            raise CaptureFallback("PyFunc: a function defined inside the captured function cannot be called on the "
                                  "host when the graph runs; the call runs in Python (make the PyFunc outside, "
                                  "e.g. in the Cell's __init__)")
        for what, v in (("in_types", in_types), ("in_shapes", in_shapes), ("out_types", out_types),
                        ("out_shapes", out_shapes)):
            if not isinstance(v, (list, tuple)):
                raise OpTypeError(f"PyFunc: {what} must be a list, got {type(v).__name__}")
        if len(in_types) != len(in_shapes) or len(out_types) != len(out_shapes):
            raise OpError(f"PyFunc: {len(in_types)} in_types for {len(in_shapes)} in_shapes, {len(out_types)} "
                          f"out_types for {len(out_shapes)} out_shapes")
        self.fn, self.stateful = fn, stateful
        self.in_types, self.in_shapes = list(in_types), [tuple(s) for s in in_shapes]
        self.out_types, self.out_shapes = list(out_types), [tuple(s) for s in out_shapes]
        self._op = Custom(fn, out_shape=lambda *s: list(self.out_shapes), out_dtype=lambda *d: list(self.out_types),
                          func_type="pyfunc")

    def __call__(self, *inputs):
        if len(inputs) != len(self.in_types):
            raise OpError(f"PyFunc: {len(inputs)} inputs for {len(self.in_types)} declared in_types")
        for i, (x, t, s) in enumerate(zip(inputs, self.in_types, self.in_shapes)):
            if not isinstance(x, Tensor):
                raise OpTypeError(f"PyFunc: input {i} must be a Tensor, got {type(x).__name__}")
            if str(x.dtype) != str(t) or tuple(x.shape) != s:
                raise OpTypeError(f"PyFunc: input {i} is {x.dtype}{list(x.shape)}, declared {t}{list(s)}")
        out = self._op(*inputs)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)


class Morph(PrimitiveOp):
    """`ops.Morph(fn, infer_shape, infer_dtype, bprop_fn=None)(*args)`: `fn(*args)` as one op of the graph;
    its gradient is `bprop_fn(*args, out, dout)` (a tuple, one per input) when given, else `fn`'s own. As in
    MindSpore it runs only in a compiled graph (`msx.jit`): called eagerly it raises `RuntimeError`."""

    name = "Morph"

    def __init__(self, fn, infer_shape, infer_dtype, bprop_fn=None) -> None:
        super().__init__()
        for what, f in (("fn", fn), ("infer_shape", infer_shape), ("infer_dtype", infer_dtype)):
            if not callable(f):
                raise OpTypeError(f"Morph: {what} must be callable, got {type(f).__name__}")
        if bprop_fn is not None and not callable(bprop_fn):
            raise OpTypeError(f"Morph: bprop_fn must be callable, got {type(bprop_fn).__name__}")
        self.fn, self.infer_shape, self.infer_dtype, self.bprop_fn = fn, infer_shape, infer_dtype, bprop_fn
        self._op = Custom(self._jax_fn, out_shape=infer_shape, out_dtype=infer_dtype, func_type="jax",
                          bprop=bprop_fn)

    def _jax_fn(self, *arrays):
        with not_recording():  # the op's implementation: its inner ops are not the graph's nodes
            out = self.fn(*[Tensor._from(a) for a in arrays])
        return tuple(o._data for o in out) if isinstance(out, (tuple, list)) else out._data

    def __call__(self, *args):
        if recording.recorder is None:
            raise RuntimeError("Morph is only supported in GRAPH_MODE (call it inside an msx.jit function)")
        return self._op(*args)


class Reusing(PrimitiveOp):
    """`ops.Reusing()(fn)`: MindSpore marks `fn`'s graph no-inline (compiled once, called at each use), a
    compile-time hint with no effect on values; msx returns `fn` itself, as MindSpore's PyNative does (jax
    traces each call; use `msx.no_inline` for a graph call msx keeps)."""

    name = "Reusing"

    def __call__(self, x):
        return x


for _cls in (Assert, TensorDump, DumpGradient, InsertGradientOf, PyFunc, Morph, Reusing):
    SURFACE.add("cls", _cls.__name__, _cls)
SURFACE.add("ops", "tensordump", tensordump)
