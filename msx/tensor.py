"""`Tensor` and `Parameter`: thin Python objects around a `jax.Array`.

A Tensor owns one jax array (`_data`). Ops never mutate arrays; in-place
MindSpore semantics (`t[i] = v`, `param.set_data(x)`, optimizer updates)
rebind the Python object to a new array, which is what capture records as a
write. Methods and operators are attached by `msx.ops.tensor_methods`, as thin
views of the primitive registry.
"""
from __future__ import annotations

import sys
import threading
import types
from typing import TYPE_CHECKING, Any, Iterator

import jax
import jax.numpy as jnp
import numpy as np

from . import dtype as mstype
from . import versions
from .errors import CaptureError
from .ignored_args import not_honoured
from .recording import recording
from .sizes import check_size

_INITIALIZER: dict = {}  # "fn": msx.nn.initializer.initializer, registered by that (higher) layer at import


def register_initializer(fn) -> None:
    """Called by `msx.nn.initializer`: `fn(init, shape, dtype) -> Tensor` fills `Tensor(init=...)` and
    `ParameterTuple.clone(init=...)` (tensor sits below nn and never imports it)."""
    _INITIALIZER["fn"] = fn


def _initialize(init, shape, dtype) -> "Tensor":
    return _INITIALIZER["fn"](init, shape, dtype)


def _default_np_dtype(value: np.ndarray) -> np.dtype:
    """MindSpore's defaults for Python data: floats -> float32, ints -> int64, bools -> bool."""
    kind = value.dtype.kind
    if kind == "f":
        return np.dtype(np.float32)
    if kind in "iu":
        return np.dtype(np.int64)
    if kind == "b":
        return np.dtype(np.bool_)
    if kind == "c":
        return np.dtype(np.complex64)
    raise TypeError(f"Tensor: cannot make a tensor from data of numpy dtype {value.dtype}")


def host_array(value: np.ndarray, owned: bool = False) -> jax.Array:
    """A device array holding host data `value` (a numpy array or scalar), made without an XLA compile.

    Not `jnp.asarray`: in jax 0.10 that stages a small program for every new shape and dtype (one XLA compile,
    5-10 ms each), so building a network paid a compile per distinct weight shape and loading a checkpoint one
    per tensor. `device_put` copies the bytes without compiling. On CPU it may keep the numpy buffer itself
    (zero copy), so unless the caller `owned` the array (made it and will not write it) it is copied first: a
    Tensor never changes when the numpy array it was made from does. Constant under any jax trace."""
    if not owned:
        value = np.array(value, copy=True)
    with jax.ensure_compile_time_eval():
        return jax.device_put(value)


def _to_array(input_data: Any, dtype) -> jax.Array:
    np_dtype = mstype.to_np(dtype)
    if isinstance(input_data, Tensor):
        data = input_data._data
    elif isinstance(input_data, jax.Array):
        data = input_data
    else:
        # host data is a constant: a concrete array even while jax traces (library code run by a capture, a
        # user's jax.jit), never a tracer of that trace, which no graph could take as a constant
        with jax.ensure_compile_time_eval():
            return _host_to_array(input_data, np_dtype)
    return _cast_checked(data, np_dtype)


def _cast_checked(data: jax.Array, np_dtype) -> jax.Array:
    if np_dtype is not None and data.dtype != np_dtype:
        data = data.astype(np_dtype)
    mstype.to_msx(data.dtype)  # a clear TypeError now for a dtype msx has no name for, not a KeyError later
    return data


def _host_to_array(input_data: Any, np_dtype) -> jax.Array:
    if isinstance(input_data, (np.ndarray, np.generic)):  # numpy arrays and scalars keep their dtype
        if input_data.dtype == object:
            raise TypeError("Tensor: cannot make a tensor from a numpy array of Python objects")
        if np_dtype is not None and input_data.dtype != np_dtype and _host_cast_is_exact(input_data.dtype,
                                                                                           np_dtype):
            data = host_array(input_data.astype(np_dtype), owned=True)
        else:
            data = host_array(input_data)
    else:
        if isinstance(input_data, (list, tuple)) and any(isinstance(x, Tensor) for x in input_data):
            input_data = [np.asarray(x.asnumpy()) if isinstance(x, Tensor) else x for x in input_data]
        try:
            value = np.asarray(input_data)
        except ValueError as exc:
            raise ValueError(f"Tensor: input_data is ragged or not numeric: {exc}") from None
        if value.dtype == object:
            raise TypeError(f"Tensor: cannot make a tensor from {type(input_data).__name__} {input_data!r}")
        # numpy casts host data as `jnp.asarray(value, dtype)` did (jax's array constructor casts with numpy)
        cast = value.astype(np_dtype or _default_np_dtype(value), copy=False)
        data = host_array(cast, owned=cast is not value)
    return _cast_checked(data, np_dtype)


def _host_cast_is_exact(src: np.dtype, dst: np.dtype) -> bool:
    """Whether numpy's cast from `src` to `dst` gives what jax's `astype` gives (so it may run on the host):
    float to float, and any cast numpy calls safe. A float to an int cast is left to jax, whose rounding of
    NaN and out-of-range values numpy does not share."""
    src, dst = np.dtype(src), np.dtype(dst)
    to_float = np.issubdtype(dst, np.floating) or np.issubdtype(dst, np.complexfloating)
    return (np.issubdtype(src, np.floating) and to_float) or np.can_cast(src, dst, "safe")


if TYPE_CHECKING:  # the methods msx.ops attaches at import, as a type checker sees them (tools/generate_stubs.py)
    from ._tensor_methods import TensorMethods as _AttachedMethods
else:
    _AttachedMethods = object


class Tensor(_AttachedMethods):
    """MindSpore's Tensor: `Tensor(input_data=None, dtype=None, shape=None)`.

    `Tensor(shape=[None, 784], dtype=msx.float32)` with no data is a
    placeholder that only describes a signature (for `enable_dynamic`).
    """

    __array_priority__ = 100
    __slots__ = ("_data", "_placeholder", "__weakref__")

    def __init__(self, input_data: Any = None, dtype=None, shape=None, init=None, const_arg: bool = False) -> None:
        self._placeholder = None
        if input_data is None:
            if shape is None and dtype is None:
                raise ValueError("Tensor: give input_data, or shape and dtype (shape=None with a dtype: dynamic rank)")
            shape = (shape,) if isinstance(shape, int) else tuple(shape) if shape is not None else None
            if shape is None or any(d is None or d == -1 or type(d).__name__ == "Symbol" for d in shape):
                self._placeholder = (shape, mstype.to_msx(dtype or mstype.float32))
                self._data = None
                return
            check_size("Tensor", shape, mstype.to_np(dtype or mstype.float32))  # before XLA is asked for it
            if init is not None:
                self._data = _initialize(init, shape, dtype or mstype.float32)._data
            else:
                with jax.ensure_compile_time_eval():  # a constant, also while jax traces (see `_to_array`)
                    self._data = jnp.zeros(shape, mstype.to_np(dtype or mstype.float32))
            return
        if isinstance(input_data, Tensor) and input_data._data is not None:

            if recording.recorder is not None:  # a Tensor made from a Tensor inside a capture: same value
                src = input_data if dtype is None or input_data.dtype == dtype else input_data.astype(dtype)
                self._data = src._data
                recording.recorder.on_alias(self, src)
                if shape is not None and tuple(shape) != self.shape:
                    raise ValueError(f"Tensor: data of shape {self.shape} does not fit shape {tuple(shape)}")
                return
        data = _to_array(input_data, dtype)
        if shape is not None:
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            if tuple(data.shape) != shape:
                if data.size != int(np.prod(shape)):
                    raise ValueError(f"Tensor: data of shape {tuple(data.shape)} does not fit shape {shape}")
                data = data.reshape(shape)
        self._data = data

    @classmethod
    def _from(cls, array) -> "Tensor":
        t = object.__new__(Tensor)
        t._data = array
        t._placeholder = None
        return t

    # ------------------------------------------------------------ properties
    # `_placeholder` is None for a Tensor with data, (shape, dtype) for a placeholder, or a deferred op's pending
    # node (`msx.eager.lazy`), whose aval answers these four without running it
    @property
    def shape(self) -> tuple:
        p = self._placeholder
        if p is not None:
            if type(p) is not tuple:
                return p.shape
            if self._data is None:
                return p[0]
        return tuple(self._data.shape)

    @property
    def dtype(self) -> mstype.Type:
        p = self._placeholder
        if p is not None:
            if type(p) is not tuple:
                return mstype.from_array(p)
            if self._data is None:
                return p[1]
        return mstype.from_array(self._data)

    @property
    def ndim(self) -> int:
        p = self._placeholder
        if p is not None and type(p) is not tuple:
            return len(p.shape)
        return self._data.ndim

    @property
    def size(self) -> int:
        p = self._placeholder
        if p is not None and type(p) is not tuple:
            return int(np.prod(p.shape, dtype=np.int64))
        return self._data.size

    @property
    def itemsize(self) -> int:
        return self._data.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    @property
    def strides(self) -> tuple:
        """Byte strides of the (always contiguous, row-major) array, as numpy/MindSpore report them."""
        itemsize, out, step = self._data.dtype.itemsize, [], 1
        for n in reversed(self.shape):
            out.append(step * itemsize)
            step *= n
        return tuple(reversed(out))

    def stride(self, dim: int | None = None) -> int | tuple[int, ...]:
        """Element strides (torch-style); one dim's stride when `dim` is given."""
        elems = tuple(s // self._data.dtype.itemsize for s in self.strides)
        return elems if dim is None else elems[dim]

    def storage_offset(self) -> int:
        return 0  # msx tensors never view into a larger buffer

    def is_contiguous(self) -> bool:
        return True

    def contiguous(self) -> "Tensor":
        return self

    @staticmethod
    def from_numpy(array) -> "Tensor":
        """MindSpore's `Tensor.from_numpy`: a Tensor with the numpy array's dtype."""
        return from_numpy(array)

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    def is_placeholder(self) -> bool:
        return self._data is None

    # ------------------------------------------------------------ conversion
    def _concrete(self, what: str):
        """The concrete array, for a value that leaves the graph world (bool(), asnumpy(), ...)."""
        if recording.recorder is not None:
            recording.recorder.on_concrete(self, what)
        if isinstance(self._data, jax.core.Tracer):
            raise CaptureError(f"{what} needs a concrete value, but this Tensor is abstract here "
                               f"(inside grad/jit); shape {self.shape}, dtype {self.dtype}")
        return self._data

    def asnumpy(self) -> np.ndarray:
        return np.asarray(self._concrete("Tensor.asnumpy()"))

    def numpy(self) -> np.ndarray:
        return self.asnumpy()

    def item(self) -> Any:
        return self._single("Tensor.item()").item()

    def tolist(self) -> Any:
        return self.asnumpy().tolist()

    def _single(self, what: str) -> np.ndarray:
        if self._data.size != 1:
            raise ValueError(f"{what} needs a tensor with one element, got shape {self.shape}")
        return np.asarray(self._concrete(what)).reshape(())

    def __bool__(self) -> bool:
        return bool(self._single("bool(Tensor)"))

    def __float__(self) -> float:
        return float(self._single("float(Tensor)"))

    def __int__(self) -> int:
        return int(self._single("int(Tensor)"))

    def __index__(self) -> int:
        if self.dtype.is_floating:
            raise TypeError("only integer tensors can be used as an index")
        return int(self._single("Tensor.__index__"))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        arr = self.asnumpy()
        return arr.astype(dtype) if dtype is not None else arr

    def __jax_array__(self) -> jax.Array:
        if JAX_ARRAY_HOOK:  # the eager autograd tape: raw jax code on a tracked Tensor is invisible to it
            JAX_ARRAY_HOOK[0](self._data)
        return self._data

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        if self._data is None:
            return f"Tensor(shape={list(self.shape) if self.shape is not None else None}, dtype={self.dtype}, value=<placeholder>)"
        if isinstance(self._data, jax.core.Tracer):
            return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=<abstract>)"
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=\n{np.asarray(self._data)})"

    def __str__(self) -> str:
        if self._data is None or isinstance(self._data, jax.core.Tracer):
            return repr(self)
        return str(np.asarray(self._data))

    def __format__(self, spec: str) -> str:
        if spec and self._data is not None and self._data.size == 1:
            return format(self.item(), spec)
        return str(self)

    def __deepcopy__(self, memo: dict) -> Tensor:
        return type(self)._copy_of(self)

    @classmethod
    def _copy_of(cls, t: "Tensor") -> "Tensor":
        return Tensor._from(t._data)

    # ------------------------------------------------------------ in place
    def _rebind(self, new: "Tensor") -> "Tensor":
        """MindSpore in-place semantics: this Python object now holds `new`'s value."""
        logs = _WRITE_LOGS.stack
        if logs:
            logs[-1].append((self, self._data))
        if recording.recorder is not None:
            recording.recorder.on_rebind(self, new)
        self._data = new._data
        if self._placeholder is not None:  # no longer pending (msx.eager.lazy), nor a placeholder: it has data now
            self._placeholder = None
            if type(self) is PendingTensor or type(self) is UninitTensor:
                self.__class__ = Tensor
            elif type(self) is UninitParameter:  # filled by set_data / a checkpoint: its initializer never runs
                self.__class__ = Parameter
        return self

    def assign_value(self, value: "Tensor") -> "Tensor":
        value = value if isinstance(value, Tensor) else Tensor(value, dtype=self.dtype)
        if value.shape != self.shape:
            raise ValueError(f"assign_value: shape {value.shape} does not match the tensor's shape {self.shape}")
        if value.dtype != self.dtype:
            value = value.astype(self.dtype)
        return self._rebind(value)


class PendingTensor(Tensor):
    """A deferred op's result (`msx.eager.lazy`) until it runs: a Tensor whose `_data` slot is not set yet and
    whose `_placeholder` is its pending node. Reading `_data` finds the slot unset and Python calls
    `__getattr__`, which runs the pending ops and makes the object a plain `Tensor` again. The hook lives on
    this subclass, not on `Tensor`: a `__getattr__` there would make every Tensor attribute read about five
    times slower (CPython cannot specialise attribute reads of a class that has one)."""

    __slots__ = ()

    def __getattr__(self, name: str):
        if name == "_data":
            p = self._placeholder
            if p is not None and type(p) is not tuple:
                return PENDING_HOOK[0](self, p)
        raise AttributeError(f"'Tensor' object has no attribute {name!r}")


PendingTensor.__name__ = PendingTensor.__qualname__ = "Tensor"  # what users see: `type(t).__name__`, reprs

PARAMETER_LOCK = threading.RLock()
"""Held while Parameters are bound to a running graph or swapped for jax values by eager autodiff, so that
two threads training and evaluating one network never see each other's half-written or donated state."""


class Parameter(Tensor):
    """A Tensor that a Cell owns and optimizers update: `Parameter(default_input, name=None, requires_grad=True)`.

    `parallel_optimizer=False` keeps this weight's optimizer state (and, at level3, the weight) whole under
    `enable_parallel_optimizer`, as MindSpore does. `storage_format` and `device` are Ascend-only in MindSpore
    (a device weight format, host offload); msx keeps the value where jax puts it and says so once."""

    __slots__ = ("name", "_requires_grad", "_layerwise_parallel", "__dict__")

    def __init__(self, default_input: Any, name: str | None = None, requires_grad: bool = True,
                 layerwise_parallel: bool = False, parallel_optimizer: bool = True, storage_format: str = "",
                 device: str | None = None) -> None:
        if storage_format or device is not None:
            not_honoured("Parameter", "storage_format", storage_format, "",
                         "an Ascend weight format; the value keeps jax's layout (values unchanged)")
            not_honoured("Parameter", "device", device, None,
                         "Ascend host offload; the value stays on the context's device (values unchanged)")
        if isinstance(default_input, Tensor) and type(default_input._placeholder) is InitSpec:
            # an initializer's Tensor made under `nn.no_init_parameters`: this Parameter stays unfilled too
            self._placeholder = default_input._placeholder
            self.__class__ = UninitParameter
            self.name = name if name is not None else "Parameter"
            self._requires_grad = bool(requires_grad)
            self._layerwise_parallel = layerwise_parallel
            self.parallel_optimizer = bool(parallel_optimizer)
            return
        if isinstance(default_input, Tensor) and default_input._data is None:
            raise ValueError("Parameter: default_input is a placeholder with no data")
        if hasattr(default_input, "to_tensor"):  # an Initializer
            default_input = default_input.to_tensor()
        super().__init__(default_input)
        self.name = name if name is not None else "Parameter"
        self._requires_grad = bool(requires_grad)
        self._layerwise_parallel = layerwise_parallel
        self.parallel_optimizer = bool(parallel_optimizer)

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        """Freezing or unfreezing changes what a compiled training step must compute: cache entries re-check."""
        self._requires_grad = bool(value)
        versions.touch()

    @property
    def data(self) -> "Parameter":
        return self

    def value(self) -> Tensor:
        return Tensor._from(self._data)

    def set_data(self, data: Any, slice_shape: bool = False) -> "Parameter":
        """Replace the value; the new data may have another shape (MindSpore allows it)."""
        new = data if isinstance(data, Tensor) else Tensor(data, dtype=self.dtype)
        if new.dtype != self.dtype and new.shape == self.shape:
            new = new.astype(self.dtype)
        return self._rebind(new)

    def clone(self, init: Any = "same") -> "Parameter":
        """A new Parameter with this one's name; `init="same"` copies the value, any other initializer (a name
        such as "zeros", an Initializer, a Tensor) fills the clone with it, as MindSpore does."""
        if isinstance(init, str) and init == "same":
            return Parameter(Tensor._from(self._data), name=self.name, requires_grad=self.requires_grad)
        return Parameter(_initialize(init, self.shape, self.dtype), name=self.name, requires_grad=self.requires_grad)

    @classmethod
    def _copy_of(cls, t: "Parameter") -> "Parameter":
        return Parameter(Tensor._from(t._data), name=t.name, requires_grad=t.requires_grad)

    def __repr__(self) -> str:
        return (f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    def __reduce__(self):
        raise TypeError("msx Parameters are not picklable; use msx.save_checkpoint")


NO_INIT = [0]  # > 0 inside `nn.no_init_parameters()`: `initializer(...)` gives unfilled Tensors (`InitSpec`)


class InitSpec:
    """The `_placeholder` of a Tensor or Parameter made under `nn.no_init_parameters`: what fills it (`init`,
    an Initializer) and the shape and numpy dtype it answers with before it is filled."""

    __slots__ = ("init", "shape", "dtype")

    def __init__(self, init: Any, shape: tuple, dtype) -> None:
        self.init, self.shape, self.dtype = init, tuple(shape), np.dtype(mstype.to_np(dtype))


def _fill(t: "Tensor", cls: type) -> jax.Array:
    """Run a deferred Tensor's initializer now (MindSpore's `init_data`) and make it a plain `cls`."""
    spec = t._placeholder
    deferring, NO_INIT[0] = NO_INIT[0], 0  # filled now even inside the context
    try:
        with jax.ensure_compile_time_eval():  # a constant, also when first read inside a trace
            data = _initialize(spec.init, spec.shape, mstype.to_msx(spec.dtype))._data
    finally:
        NO_INIT[0] = deferring
    t._data = data
    t._placeholder = None
    t.__class__ = cls
    return data


class UninitTensor(Tensor):
    """An `initializer(...)` Tensor made under `nn.no_init_parameters`: shape and dtype known, data drawn on the
    first read of its value (as `PendingTensor`, the hook is on this subclass only)."""

    __slots__ = ()

    def __getattr__(self, name: str):
        if name == "_data" and type(self._placeholder) is InitSpec:
            return _fill(self, Tensor)
        raise AttributeError(f"'Tensor' object has no attribute {name!r}")


class UninitParameter(Parameter):
    """A Parameter made under `nn.no_init_parameters`: its initializer runs on `init_data()`,
    `Cell.init_parameters_data()` or the first read of its value; `set_data` / `load_checkpoint` fill it
    without running it."""

    __slots__ = ()

    def __getattr__(self, name: str):
        if name == "_data" and type(self._placeholder) is InitSpec:
            return _fill(self, Parameter)
        raise AttributeError(f"'Parameter' object has no attribute {name!r}")


UninitTensor.__name__ = UninitTensor.__qualname__ = "Tensor"
UninitParameter.__name__ = UninitParameter.__qualname__ = "Parameter"


def uninit_tensor(init: Any, shape: tuple, dtype) -> Tensor:
    """An unfilled Tensor that `init` (an Initializer) fills on first read."""
    t = object.__new__(UninitTensor)
    t._placeholder = InitSpec(init, shape, dtype)
    return t


def fill_if_deferred(t: Tensor) -> Tensor:
    """Fill `t` now if it is a deferred Tensor or Parameter (`init_data`); `t` itself either way."""
    if type(t._placeholder) is InitSpec:
        _fill(t, Parameter if isinstance(t, Parameter) else Tensor)
    return t


class _ThreadLogs(threading.local):
    """A stack of write logs, one per active autodiff call (see `autograd._functionalised`), per thread: an
    eager write in another thread (a random op moving the global PRNG state, an optimizer step) is not part
    of this thread's differentiated call and must not be logged, undone or collected by it."""

    def __init__(self) -> None:
        self.stack: list[list] = []

    def append(self, log: list) -> None:
        self.stack.append(log)

    def pop(self) -> list:
        return self.stack.pop()

    def __len__(self) -> int:
        return len(self.stack)

    def __getitem__(self, i: int) -> list:
        return self.stack[i]


_WRITE_LOGS = _ThreadLogs()
JAX_ARRAY_HOOK: list = []  # set by msx.eager.tape: called with the array when jax code reads a Tensor
PENDING_HOOK: list = []  # set by msx.eager.lazy: `force(tensor, node)` -> the array of a deferred op's result


def _wrap(x):
    """A jax array (or Python scalar) as a Tensor; used on every op result."""
    t = object.__new__(Tensor)
    t._data = x if isinstance(x, jax.Array) else jnp.asarray(x)
    t._placeholder = None
    return t


def from_numpy(array: np.ndarray) -> Tensor:
    """MindSpore's `from_numpy`: a Tensor with the array's dtype."""
    return Tensor(np.asarray(array))


def tensor(input_data: Any = None, dtype=None, shape=None, init=None, const_arg: bool = False,
           device=None) -> Tensor:
    """MindSpore 2.x's lower-case constructor, `ms.tensor([1, 2], ms.float32)`: the same as `Tensor(...)`.

    `device` names where the data lives; msx tensors live on the current jax device, so only None (or the
    current device target's name) is accepted.
    """
    if device is not None and str(device).split(":")[0].lower() not in ("cpu", "gpu", "tpu", "ascend", "npu"):
        raise ValueError(f"tensor: unknown device {device!r}")
    return Tensor(input_data, dtype, shape, init, const_arg)


def is_tensor(obj: Any) -> bool:
    """True for msx Tensors (and Parameters)."""
    return isinstance(obj, Tensor)


class ParameterTuple(tuple):
    """MindSpore's `ParameterTuple`: a tuple of Parameters (what `net.trainable_params()` style APIs pass).

    `clone(prefix, init="same")` copies every Parameter, naming the copies `prefix.name` (optimizer moments).
    """

    def __new__(cls, iterable=()) -> "ParameterTuple":
        items = tuple(iterable)
        bad = [type(p).__name__ for p in items if not isinstance(p, Parameter)]
        if bad:
            raise TypeError(f"ParameterTuple: every item must be a Parameter, got {bad[0]}")
        names = [p.name for p in items]
        dup = sorted({n for n in names if names.count(n) > 1 and n != "Parameter"})
        if dup:
            raise ValueError(f"ParameterTuple: duplicate Parameter names {dup}")
        return super().__new__(cls, items)

    def clone(self, prefix: str, init: Any = "same") -> "ParameterTuple":
        if not isinstance(prefix, str) or not prefix:
            raise ValueError(f"ParameterTuple.clone: prefix must be a non-empty string, got {prefix!r}")
        out = []
        for p in self:
            if init == "same":
                data = Tensor._from(p._data)
            else:
                data = _initialize(init, p.shape, p.dtype)
            out.append(Parameter(data, name=f"{prefix}.{p.name}", requires_grad=p.requires_grad))
        return ParameterTuple(out)


jax.tree_util.register_pytree_node(Tensor, lambda t: ((t._data,), None), lambda _, c: Tensor._from(c[0]))
jax.tree_util.register_pytree_node(PendingTensor, lambda t: ((t._data,), None), lambda _, c: Tensor._from(c[0]))
jax.tree_util.register_pytree_node(
    Parameter,
    lambda p: ((p._data,), (p.name, p.requires_grad)),
    lambda aux, c: _param_from(c[0], *aux),
)


def _param_from(data, name: str, requires_grad: bool) -> Parameter:
    p = object.__new__(Parameter)
    p._data = data
    p._placeholder = None
    p.name = name
    p._requires_grad = requires_grad
    p._layerwise_parallel = False
    p.parallel_optimizer = True
    return p


class _CallableModule(types.ModuleType):
    """`msx.tensor` is this module and MindSpore 2.x's `ms.tensor(...)` constructor at once."""

    def __call__(self, input_data: Any = None, dtype=None, shape=None, init=None, const_arg: bool = False,
                 device=None) -> Tensor:
        return tensor(input_data, dtype, shape, init, const_arg, device)


sys.modules[__name__].__class__ = _CallableModule
