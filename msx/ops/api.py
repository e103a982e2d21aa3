"""One declaration per op carries its whole MindSpore surface (ARCHITECTURE rule 1).

A primitive's `api` (a tuple of `Api`) says how users call it: the functional
names (`ops.sin`), argument names and defaults, the class-style names
(`ops.Sin()`), the Tensor methods (`x.sin()`), the Tensor operators (`x + y`)
and the `mint` names. `build_function` turns one `Api` into a real function
with that signature; `expose` registers a hand-written function (one with real
argument logic) under the same tables. The public modules (`ops.functional`,
`ops.operations`, `Tensor`'s methods, `mint`) are filled from `SURFACE` only,
so adding an op is one declaration plus its test case.

Dispatch stays as cheap as a hand-written wrapper: a generated function binds
its arguments with one length check when called positionally, and only walks
names and defaults when keywords are given or trailing defaults are used.
"""
from __future__ import annotations

import functools
import inspect
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import OpError
from ..recording import recording
from .apply_prim import apply
from .attr_converters import AttrError

NAMESPACES = ("ops", "cls", "tensor", "inplace", "mint", "mintf", "operator")
REQUIRED = inspect.Parameter.empty


@dataclass(frozen=True)
class Attr:
    """An argument that becomes a static attribute of the primitive.

    `param`: the user-facing argument name; `default`: its default (REQUIRED: none);
    `convert`: applied to the value before it becomes an attribute (`int`, `bool`, ...);
    `to`: the primitive's attribute name when it differs from `param`;
    `kw_only`: keyword-only, as in `sum(input, dim, *, dtype=None)`.
    """

    param: str
    default: Any = REQUIRED
    convert: Callable[[Any], Any] | None = None
    to: str | None = None
    kw_only: bool = False


def _names(v) -> tuple[str, ...]:
    """Names given as a tuple or as one space-separated string ("neg negative")."""
    return tuple(v.split()) if isinstance(v, str) else tuple(v)


@dataclass(frozen=True)
class Api:
    """How users call one primitive: names in each public namespace plus the signature.

    `args` are the tensor inputs (positional, in the primitive's order), `attrs` the static
    attributes. `init` names the attrs that a class-style op takes in its constructor
    (MindSpore's `ops.ReduceSum(keep_dims)(x, axis)`); the rest stay call arguments.
    """

    ops: tuple[str, ...] | str = ()
    args: tuple[str, ...] = ("input",)
    attrs: tuple[Attr, ...] = ()
    cls: tuple[str, ...] | str = ()
    init: tuple[str, ...] = ()
    tensor: tuple[str, ...] | str = ()
    inplace: tuple[str, ...] | str = ()  # in-place Tensor methods (`x.exp_()`): compute, keep x's dtype, write x
    mint: tuple[str, ...] | str = ()
    mintf: tuple[str, ...] | str = ()  # `mint.nn.functional` names
    operator: tuple[str, ...] | str = ()
    # defaults of trailing `args`, as (name, value) pairs: MindSpore's `addcdiv(input, tensor1, tensor2, value=1)`
    arg_defaults: tuple[tuple[str, Any], ...] = ()
    doc: str = field(default="", repr=False)
    # applied to the primitive's result: MindSpore's `mint.allclose` answers a Python bool, not a Tensor
    result: Callable[[Any], Any] | None = field(default=None, repr=False)


@dataclass(frozen=True)
class MindIR:
    """How an op appears in a MindSpore `.mindir` file when that is a plain call (plain data; the reading and
    writing rules that use it belong to `msx.mindir.op_table`).

    `name`: MindSpore's primitive name in the file (`REF::<name>`); `args`: the op's attributes that MindSpore
    2.x passes as trailing Constant inputs of its PRIMITIVE_FUNCTION call, in MindSpore's order (an older
    PRIMITIVE-style file keeps them as the primitive's attributes of the same names; both are read). An op
    whose MindIR form needs real work (other inputs, another op's name) has an entry in
    `msx.mindir.op_readers` / `op_writers` instead, never both.
    """

    name: str
    args: tuple[str, ...] = ()


class Surface:
    """The public names of every namespace, each mapped to the object users get."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[str, Any]] = {ns: {} for ns in NAMESPACES}

    def add(self, namespace: str, name: str, obj: Any) -> None:
        table = self.tables[namespace]
        if name in table and table[name] is not obj:
            raise ValueError(f"{namespace}.{name} is declared twice")
        table[name] = obj

    def __getitem__(self, namespace: str) -> dict[str, Any]:
        return self.tables[namespace]


SURFACE = Surface()
WRAPPED: set[str] = set()  # primitives a hand-written `expose(prim=...)` wrapper is the public view of


# ---------------------------------------------------------------- argument binding
class Binder:
    """Fast positional/keyword binding for a fixed list of parameters (Python's rules and messages)."""

    def __init__(self, fname: str, params: list[tuple[str, Any, bool]]) -> None:
        self.fname = fname
        self.names = tuple(p[0] for p in params)
        self.defaults = tuple(p[1] for p in params)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.n_positional = sum(1 for p in params if not p[2])
        self.n = len(params)
        required = [i for i, d in enumerate(self.defaults) if d is REQUIRED]
        self.n_required = (max(required) + 1) if required else 0
        # positional calls that stop after the required prefix are completed from this tail
        self.tail = self.defaults[self.n_required:]
        self.fast_ok = all(d is not REQUIRED for d in self.tail) and not any(p[2] for p in params[:self.n_required])

    def signature(self) -> inspect.Signature:
        kinds = [inspect.Parameter.POSITIONAL_OR_KEYWORD] * self.n_positional + \
                [inspect.Parameter.KEYWORD_ONLY] * (self.n - self.n_positional)
        return inspect.Signature([inspect.Parameter(n, k, default=d)
                                  for n, k, d in zip(self.names, kinds, self.defaults)])

    def bind(self, args: tuple, kwargs: dict) -> tuple:
        k = len(args)
        if k > self.n_positional:
            raise TypeError(f"{self.fname}() takes {self.n_positional} positional arguments but {k} were given")
        if not kwargs and k >= self.n_required and self.fast_ok:
            return args + self.tail[k - self.n_required:]
        values = list(args) + [REQUIRED] * (self.n - k)
        for key, v in kwargs.items():
            i = self.index.get(key)
            if i is None:
                raise TypeError(f"{self.fname}() got an unexpected keyword argument {key!r}")
            if i < k:
                raise TypeError(f"{self.fname}() got multiple values for argument {key!r}")
            values[i] = v
        for i, v in enumerate(values):
            if v is REQUIRED:
                if self.defaults[i] is REQUIRED:
                    raise TypeError(f"{self.fname}() missing required argument {self.names[i]!r}")
                values[i] = self.defaults[i]
        return tuple(values)


# ---------------------------------------------------------------- generated functions
def build_function(prim, api: Api, name: str) -> Callable:
    """The functional view of `prim` with `api`'s signature: inputs positional, attrs converted."""
    n_in = len(api.args)
    given = dict(api.arg_defaults)
    params = [(a, given.get(a, REQUIRED), False) for a in api.args] + [(a.param, a.default, a.kw_only)
                                                                      for a in api.attrs]
    binder = Binder(name, params)
    bind = binder.bind
    if not api.attrs:
        def fn(*args, **kwargs):
            if kwargs or len(args) != n_in:
                args = bind(args, kwargs)
            return apply(prim, args)
    else:
        fn = _attr_function(prim, api, binder, n_in, name)
    if api.result is not None:
        fn = _converted(fn, api.result)
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "msx.ops.functional"
    fn.__signature__ = binder.signature()
    fn.__doc__ = (api.doc or prim.doc or f"MindSpore's `ops.{name}`.") + f"\n\nPrimitive: `{prim.name}`."
    return fn


def _converted(fn: Callable, result: Callable) -> Callable:
    def call(*args, **kwargs):
        return result(fn(*args, **kwargs))
    return call


def _ident(v):
    return v


def _attr_function(prim, api: Api, binder: Binder, n_in: int, name: str) -> Callable:
    """The call path of an op with attributes, unrolled for one to three of them (the common cases) so a
    generated function costs what a hand-written `apply(prim, (x,), {"axis": _axis(axis), ...})` costs."""
    keys = tuple(a.to or a.param for a in api.attrs)
    convs = tuple(a.convert or _ident for a in api.attrs)
    bind = binder.bind
    full = binder.n if binder.n_positional == binder.n else -1  # keyword-only attrs: always bind
    tail, n_req = binder.tail, binder.n_required
    short_ok = binder.fast_ok and full != -1

    def complete(args, kwargs):
        k = len(args)
        if not kwargs and short_ok and n_req <= k < full:
            return args + tail[k - n_req:]
        return bind(args, kwargs)

    if len(keys) == 1:
        (k0,), (c0,) = keys, convs

        def fn(*args, **kwargs):
            if kwargs or len(args) != full:
                args = complete(args, kwargs)
            try:
                attrs = {k0: c0(args[n_in])}
            except AttrError as exc:
                raise exc.named(name) from None
            return apply(prim, args[:n_in], attrs)
    elif len(keys) == 2:
        (k0, k1), (c0, c1) = keys, convs

        def fn(*args, **kwargs):
            if kwargs or len(args) != full:
                args = complete(args, kwargs)
            try:
                attrs = {k0: c0(args[n_in]), k1: c1(args[n_in + 1])}
            except AttrError as exc:
                raise exc.named(name) from None
            return apply(prim, args[:n_in], attrs)
    elif len(keys) == 3:
        (k0, k1, k2), (c0, c1, c2) = keys, convs

        def fn(*args, **kwargs):
            if kwargs or len(args) != full:
                args = complete(args, kwargs)
            try:
                attrs = {k0: c0(args[n_in]), k1: c1(args[n_in + 1]), k2: c2(args[n_in + 2])}
            except AttrError as exc:
                raise exc.named(name) from None
            return apply(prim, args[:n_in], attrs)
    else:
        def fn(*args, **kwargs):
            if kwargs or len(args) != full:
                args = complete(args, kwargs)
            try:
                attrs = {k: c(v) for k, c, v in zip(keys, convs, args[n_in:])}
            except AttrError as exc:
                raise exc.named(name) from None
            return apply(prim, args[:n_in], attrs)
    return fn


def operator_method(prim, dunder: str) -> Callable:
    """`Tensor.__add__`-style method; `__rop__` names swap the operands."""
    if dunder.startswith("__r") and dunder not in ("__round__",):
        def op(self, other):
            return apply(prim, (other, self))
    else:
        def op(self, other):
            return apply(prim, (self, other))
    op.__name__ = dunder
    return op


# ---------------------------------------------------------------- class-style ops
# `Primitive.shard`'s rules: "set" records a strategy on a class-style op, "call" runs an op that has one through
# `Shard` nodes. `msx.ops.sharding_ops` fills it when `msx.ops` loads: it declares the `Shard` op, so it sits
# above this module (which the declarations import), and a strategy means nothing without it.
STRATEGY: dict[str, Any] = {"files": {"active": False}}

class PrimitiveOp:
    """MindSpore's `ops.Primitive`: the base of class-style ops (`ops.Sin()`, `ops.ReduceSum(keep_dims=True)`).

    Construction fixes the op's attributes; calling it runs the op on tensors. `name` is the MindSpore
    primitive name; `attrs` holds the attributes given at construction (MindSpore's `prim.attrs`).
    """

    name = ""

    def __init__(self, name: str | None = None) -> None:
        if name is not None:
            self.name = name
        self.attrs: dict[str, Any] = {}

    def add_prim_attr(self, name: str, value: Any) -> "PrimitiveOp":
        self.attrs[name] = value
        return self

    def del_prim_attr(self, name: str) -> "PrimitiveOp":
        self.attrs.pop(name, None)
        return self

    def set_prim_instance_name(self, instance_name: str) -> "PrimitiveOp":
        self.instance_name = instance_name
        return self

    def init_prim_io_names(self, inputs, outputs) -> None:
        self.attrs["input_names"], self.attrs["output_names"] = list(inputs), list(outputs)

    def recompute(self, mode: bool = True) -> "PrimitiveOp":
        """MindSpore's per-primitive recompute: with `mode=True`, a gradient inside a compiled graph (`msx.jit`,
        any capture mode) recomputes this op's outputs from its inputs in the backward pass instead of keeping
        them (the graph's node carries `recompute=True`; msx.ir.recompute). `mode=False` clears the mark. As in
        MindSpore's PyNative mode, eager gradients do not act on it (values are the same either way)."""
        if not isinstance(mode, bool):
            raise TypeError(f"{self.name or type(self).__name__}.recompute: the input value must be a bool, "
                            f"but got {type(mode).__name__}")
        self.__dict__.setdefault("attrs", {})["recompute"] = mode  # (a hand-written class op may have no attrs yet)
        return self

    def shard(self, in_strategy=None, out_strategy=None) -> "PrimitiveOp":
        """MindSpore's `Primitive.shard`: how the inputs (outputs) are cut, honoured in semi_auto/auto_parallel."""
        return STRATEGY["set"](self, in_strategy, out_strategy)

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "__call__" in vars(cls):  # a strategy set by `shard` lays out the call's tensors (msx.ops.sharding_ops);
            # a `recompute()` mark goes on the nodes the call records
            cls.__call__ = _honour_recompute(_honour_strategy(vars(cls)["__call__"]))

    def __repr__(self) -> str:
        attrs = self.attrs if "attrs" in vars(self) else {k: v for k, v in vars(self).items() if not k.startswith("_")}
        shown = ", ".join(f"{k}={v!r}" for k, v in attrs.items())
        return f"Prim[{self.name}]({shown})" if shown else f"Prim[{self.name}]"


def _honour_recompute(call: Callable) -> Callable:
    @functools.wraps(call)
    def run(self, *args, **kwargs):
        mark = self.__dict__.get("attrs", {}).get("recompute")
        if mark is False and recording.recompute_cell and not self.__dict__.get("_told_recompute"):
            self._told_recompute = True
            warnings.warn(f"{self.name or type(self).__name__}.recompute(False) inside a recomputed Cell is not "
                          f"honoured: msx recomputes the whole Cell (jax.checkpoint); values are unchanged",
                          stacklevel=2)
        if recording.recorder is None or mark is not True or recording.recompute:
            return call(self, *args, **kwargs)
        recording.recompute = True  # every node this call records is marked (GraphBuilder.record)
        try:
            return call(self, *args, **kwargs)
        finally:
            recording.recompute = False
    return run


def _honour_strategy(call: Callable) -> Callable:
    @functools.wraps(call)
    def run(self, *args, **kwargs):
        if "_shard_strategy" not in self.__dict__ and not STRATEGY["files"]["active"]:
            return call(self, *args, **kwargs)   # (a saved or loaded operator strategy file: msx.parallel.op_strategy)
        return STRATEGY["call"](self, call, args, kwargs)
    return run


def build_class(cls_name: str, fn: Callable, prim_name: str, init: tuple = ()) -> type:
    """A class-style op whose constructor takes the `init` arguments of `fn` and whose call passes the rest.

    `init` items are `fn` parameter names, or `(class_param, default, fn_param)` when MindSpore's class
    spells or defaults them differently.
    """
    sig = inspect.signature(fn)
    specs = []
    for item in init:
        if isinstance(item, str):
            p = sig.parameters[item]
            specs.append((item, p.default, item))
        else:
            specs.append(tuple(item))
    binder = Binder(cls_name, [(c, d, False) for c, d, _ in specs])
    fn_params = tuple(f for _, _, f in specs)
    ctor_names = tuple(c for c, _, _ in specs)

    def __init__(self, *args, **kwargs):
        PrimitiveOp.__init__(self)
        values = binder.bind(args, kwargs)
        self.attrs.update(zip(ctor_names, values))
        self._kw = dict(zip(fn_params, values))
        for c, v in zip(ctor_names, values):
            setattr(self, c, v)

    if specs:
        def __call__(self, *args, **kwargs):
            return fn(*args, **self._kw, **kwargs)
    else:
        def __call__(self, *args, **kwargs):
            return fn(*args, **kwargs)

    __init__.__signature__ = inspect.Signature([inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)]
                                               + list(binder.signature().parameters.values()))
    doc = f"Class form of `ops.{fn.__name__}`: `ops.{cls_name}({', '.join(ctor_names)})(...)`."
    return type(cls_name, (PrimitiveOp,), {"name": prim_name, "__init__": __init__, "__call__": __call__,
                                           "__doc__": doc, "__module__": "msx.ops.operations"})


# ---------------------------------------------------------------- registration
def declare(prim, apis: tuple[Api, ...]) -> None:
    """Put every view of `prim` that its `apis` name into `SURFACE`."""
    for api in apis:
        names = _names(api.ops)
        fn = build_function(prim, api, (names or _names(api.tensor) or _names(api.mint) or _names(api.mintf)
                                      or (prim.name.lower(),))[0])
        _add_views(fn, prim.name, names, _names(api.cls), api.init, _names(api.tensor), _names(api.mint),
                   _names(api.mintf))
        for dunder in _names(api.operator):
            SURFACE.add("operator", dunder, operator_method(prim, dunder))
        for n in _names(api.inplace):
            SURFACE.add("inplace", n, fn)  # `tensor_methods.attach` makes the writing method


def expose(*, ops=(), cls=(), init: tuple = (), tensor=(), mint=(), mintf=(), prim: str = "",
           name: str = "") -> Callable:
    """Decorator for a hand-written function (real argument logic): register it under these names. `prim`: the
    registered primitive this function is the public view of (its class ops report that name); `name`: the name
    a class op reports where no primitive backs it (a value computed in Python, like `Rank`)."""

    def register(fn: Callable) -> Callable:
        if prim:
            WRAPPED.add(prim)
        _add_views(fn, prim or name or fn.__name__, _names(ops), _names(cls), init, _names(tensor), _names(mint),
                   _names(mintf))
        return fn

    return register


def _add_views(fn, prim_name, ops, classes, init, tensor, mint, mintf=()) -> None:
    for n in ops:
        SURFACE.add("ops", n, fn)
    for n in classes:
        SURFACE.add("cls", n, build_class(n, fn, prim_name, init))
    for n in tensor:
        SURFACE.add("tensor", n, fn)
    for n in mint:
        SURFACE.add("mint", n, fn)
    for n in mintf:
        SURFACE.add("mintf", n, fn)
