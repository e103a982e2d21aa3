"""The one graph builder every capture mode uses (ARCHITECTURE rule 3).

While a builder is active (`with builder.active():`), every primitive applied
through `msx.ops.primitive.apply` is reported to it and becomes a `Node`;
Tensors map to graph values by identity. Parameters read become parameter
inputs, Parameters rebound (optimizer updates, BatchNorm statistics, the RNG
state) become updates, and a Tensor's value leaving the graph world (`bool(t)`,
`t.asnumpy()`) becomes a *guard*: the outcome seen at capture time that the
runtime re-checks on every call.
"""
from __future__ import annotations

import contextlib
import linecache
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import jax
import jax.numpy as jnp
import numpy as np

from ..eager import tensor_hooks
from ..errors import CaptureError, CaptureFallback, SourceLoc, user_loc
from ..ir.control import GRAD_HOOK
from ..ir.graph import RECOMPUTE, Abstract, Const, Graph, Node, Operand, Var
from ..ir.symbolic import plain_shape
from ..ops import math_ops as M
from ..ops.primitive import Primitive, apply, recording
from ..runtime.python_guards import NO_STATE, PythonReads, StateGuards
from ..runtime.value_sources import Source
from ..tensor import Parameter, Tensor


def abstract_of(t: Tensor) -> Abstract:
    data = t._data
    name = np.dtype(data.dtype).name
    return Abstract(plain_shape(data.shape), name)  # a symbolic dim (dynamic shapes) becomes an ir Dim


@dataclass
class Guard:
    """A capture-time decision on a tensor's value: `value` must come out the same at run time.

    With `error` set it is a *check* instead: the graph is right for every outcome but one that the eager
    program would refuse (a variable read where the path taken never assigned it); that outcome raises
    `error()` after the run, before any state is written back, as the eager call would have raised."""

    var: Operand
    value: np.ndarray
    what: str
    loc: SourceLoc | None
    error: Callable[[], BaseException] | None = None

    def describe(self) -> str:
        where = f" at {self.loc.short()}" if self.loc else ""
        return f"{self.what}{where}"

    def origin(self) -> str:
        """`prog.py:12 `if x > 0:``: the line whose decision the graph recomputes (as runtime guards say it)."""
        if self.loc is None:
            return "a value the graph computes"
        text = linecache.getline(self.loc.file, self.loc.line).strip()
        return self.loc.short() + (f" `{text}`" if text else "")


@dataclass
class Captured:
    """What a capture produced: the graph plus what the runtime needs to bind it."""

    graph: Graph
    params: list[Parameter]            # objects behind graph.params, in order
    updated: list[Parameter]           # objects behind graph.updates, in order
    guards: list[Guard] = field(default_factory=list)
    out_tree: Any = None               # pytree structure of the outputs
    old_values: list = field(default_factory=list)  # arrays of `updated` from before the capture run
    unguarded: list[str] = field(default_factory=list)  # value-dependent decisions no guard can check
    state: StateGuards = NO_STATE      # the Python state the capture read (globals, attributes, Cells reached)
    input_writes: list[int] = field(default_factory=list)  # graph inputs written in place: the graph's last
    # len(input_writes) outputs are their new values, which the runtime writes back into the caller's Tensors
    written_inputs: list = field(default_factory=list)  # (Tensor, array before the capture run) per input write

    def restore(self) -> None:
        """Undo the capture run's writes to Parameters (for stage calls that must not have effects)."""
        for p, old in zip(self.updated, self.old_values):
            p._data = old
        for t, old in self.written_inputs:
            t._data = old

    def release_run_state(self) -> None:
        """Drop the arrays from before the capture run once nothing can `restore` them: the compiled entry
        keeps its Captured, and these would pin a second copy of every written Parameter (the initial
        weights, for the entry's life) and make the first run copy each buffer it donates (EfficientNet-B0:
        427 copies, 1.0 s of its first step)."""
        self.old_values, self.written_inputs = [], []


class GraphBuilder:
    """Builds one Graph from recorded ops; a child builder builds a closed subgraph."""

    guards_allowed = True  # False (set on the root by source capture): a tensor's value in Python is an error
    runs_always = False  # True (a gradient's body): the subgraph runs whenever its node does, unlike a branch
    watch_attribute_writes = False  # True (set by trace capture): a Cell's Tensor attribute assigned is unguarded

    def __init__(self, name: str, parent: "GraphBuilder | None" = None) -> None:
        self.graph = Graph(name)
        self.parent = parent
        self._vars: dict[int, Operand] = {}
        self._keep: list[Any] = []          # keeps mapped objects alive so ids stay unique
        self.param_objs: list[Parameter] = []
        self._param_names: set[str] = set()
        self.free: list[tuple[Operand, Var]] = []   # (outer value, inner input) for subgraphs
        self._updates: dict[int, tuple[Tensor, Operand]] = {}
        self.guards: list[Guard] = []
        self.unguarded: list[str] = []
        self.old_values: dict[int, Any] = {}   # Parameters' arrays from before their first write
        self._input_writes: dict[int, tuple] = {}  # id(input) -> (input index, new value, Tensor, array before)
        self._input_index: dict[int, int] = {}   # id(input Tensor) -> its position, whatever it holds since
        self._may_alias: dict[int, list[tuple[Tensor, Any]]] = {}  # see `may_alias`
        self._propagating = False
        self._state_names: dict[int, str] = {}   # id(Parameter) -> its name in this graph (params, free inputs)
        self.reads = parent.reads if parent is not None else PythonReads()  # one log per capture
        # False (bytecode capture, which runs ops on the call's values and then runs the graph on the call too):
        # effect-only ops (Print) are recorded, not run, so the first call prints once
        self.runs_effects = parent.runs_effects if parent is not None else True
        # what autodiff may assume of the values while capturing: "run" (trace: Python reads them, the first
        # call's result is the capture's), "unread" (bytecode: the call's values, but a read is a graph break
        # and the graph computes the results), "abstract" (ast: tracers inside jax.eval_shape)
        self.capture_values = parent.capture_values if parent is not None else "run"

    # ------------------------------------------------------------ values
    def _bind(self, obj: Tensor, value: Operand) -> None:
        self._vars[id(obj)] = value
        self._keep.append(obj)

    def knows(self, t: Tensor) -> bool:
        return id(t) in self._vars or (self.parent is not None and self.parent.knows(t))

    def lookup(self, t: Tensor) -> Operand | None:
        """The graph value bound to `t` here or in an enclosing builder, without binding anything (None: unknown)."""
        v = self._vars.get(id(t))
        if v is None and self.parent is not None:
            return self.parent.lookup(t)
        return v

    def add_input(self, t: Tensor, name: str | None = None) -> Var:
        v = Var(abstract_of(t), name)
        self._input_index.setdefault(id(t), len(self.graph.inputs))
        self.graph.inputs.append(v)
        self._bind(t, v)
        return v

    def _state_name(self, p: Parameter) -> str:
        """The name `p` has in this graph (its updates name it): its own, unless another Parameter has it."""
        name = p.name
        k = 1
        while name in self._param_names:  # two Parameter objects with one name stay distinct
            name, k = f"{p.name}#{k}", k + 1
        self._param_names.add(name)
        self._state_names[id(p)] = name
        return name

    def add_param(self, p: Parameter) -> Var:
        name = self._state_name(p)
        v = Var(abstract_of(p), name)
        self.graph.params.append(v)
        self.param_objs.append(p)
        self._bind(p, v)
        return v

    def operand(self, x: Any) -> Operand:
        """The graph value for a Tensor, or a Const for Python/numpy data."""
        if isinstance(x, Tensor):
            v = self._vars.get(id(x))
            return v if v is not None else self._capture(x)
        if isinstance(x, (bool, int, float, complex, np.number, np.bool_)):  # a numpy scalar: its Python value
            return Const(x.item() if isinstance(x, (np.number, np.bool_)) else x)
        if isinstance(x, (np.ndarray, jax.Array)):
            if isinstance(x, jax.core.Tracer):
                raise CaptureError("a jax value from an enclosing jax transform reached a captured op; "
                                   "wrap it in msx.Tensor outside the captured function", loc=user_loc())
            return Const(np.asarray(x))
        if x is None:
            return Const(None)
        raise CaptureError(f"cannot use a {type(x).__name__} as an op input in a graph", loc=user_loc())

    def _capture(self, t: Tensor) -> Operand:
        """A Tensor first seen inside the function: a Parameter read, a constant, or an outer value."""
        if self.parent is not None and (self.parent.knows(t) or isinstance(t, Parameter)):
            outer = self.parent.operand(t)
            if isinstance(outer, Const):
                self._bind(t, outer)
                return outer
            inner = Var(outer.abstract, self._state_name(t) if isinstance(t, Parameter) else outer.name)
            self.graph.inputs.append(inner)
            self.free.append((outer, inner))
            self._bind(t, inner)
            return inner
        if isinstance(t, Parameter):
            return self.add_param(t)
        if t._data is None:
            raise CaptureError("a placeholder Tensor (no data) was used as an op input", loc=user_loc())
        if isinstance(t._data, jax.core.Tracer):
            raise CaptureError(f"a Tensor of shape {t.shape} computed outside this graph under a jax transform was "
                               f"used inside it; pass it as an argument", loc=user_loc())
        const = Const(np.asarray(t._data))
        self._bind(t, const)
        return const

    # ------------------------------------------------------------ recorder hooks (called by msx core)
    def record(self, prim: Primitive, inputs: tuple, attrs: dict, result) -> None:
        ins = [self.operand(x) for x in inputs]
        results = result if prim.multiple_results else (result,)
        outs = [Var(abstract_of(r)) for r in results]
        attrs = {**attrs, RECOMPUTE: True} if recording.recompute else dict(attrs)  # Primitive.recompute()
        self.graph.nodes.append(Node(prim.name, ins, outs, attrs, user_loc(), scope=recording.scope))
        for r, v in zip(results, outs):
            self._bind(r, v)

    def add_node(self, node: Node, results: list[Tensor]) -> Node:
        """Append a higher-order node made by its constructor (`COND.make(...)`); its outputs are `results`
        (already computed eagerly)."""
        node.outputs = [Var(abstract_of(r)) for r in results]
        node.loc, node.scope = node.loc or user_loc(), recording.scope
        self.graph.nodes.append(node)
        for r, v in zip(results, node.outputs):
            self._bind(r, v)
        return node

    def on_rebind(self, obj: Tensor, new: Tensor) -> None:
        position = self._input_position(obj)
        if isinstance(obj, Parameter) and id(obj) not in self._vars:
            self._capture(obj)  # a write before any read still needs the Parameter bound
        outer = not isinstance(obj, Parameter) and id(obj) not in self._updates and self._is_outer(obj)
        value = self.operand(new)
        self._bind(obj, value)
        if isinstance(obj, Parameter) or outer or id(obj) in self._updates:
            # a subgraph's write to a Tensor of an enclosing graph (the caller's input written inside a
            # differentiated function) is state too: a gradient's body gives it out as an update
            if id(obj) not in self._updates:
                self.old_values[id(obj)] = obj._data  # called before the write: this is the value from before
            self._updates[id(obj)] = (obj, value)
        elif position is not None:  # as eagerly, the caller's Tensor holds the new value after the call
            first = self._input_writes.get(id(obj))
            self._input_writes[id(obj)] = (position, value, obj, obj._data if first is None else first[3])
        if not self._propagating:
            self._write_aliases(obj, new)

    # ------------------------------------------------------------ objects that are one object on some paths only
    def may_alias(self, a: Tensor, b: Tensor, when: "tuple | None") -> None:
        """After tensor-dependent control flow, `a` is the very object `b` on some paths only (`h = x`, then a
        `while` on a tensor that may run no iteration, rebinding `h`): `when` is the condition, a tuple of
        (one-element predicate Tensor, polarity) terms that must all hold, or None where it is not known. An
        in-place write to either is then a write to the other where `when` holds (a `Select`), as eagerly."""
        if a is b:
            return
        for other, cond in self.aliases_of(b):
            if other is not a:
                self._add_alias(a, other, None if cond is None or when is None else when + cond)
        self._add_alias(a, b, when)

    def _add_alias(self, a: Tensor, b: Tensor, when: "tuple | None") -> None:
        self._may_alias.setdefault(id(a), []).append((b, when))
        self._may_alias.setdefault(id(b), []).append((a, when))
        self._keep += [a, b]

    def aliases_of(self, obj: Tensor) -> list[tuple[Tensor, Any]]:
        found = list(self._may_alias.get(id(obj), ()))
        return found + (self.parent.aliases_of(obj) if self.parent is not None else [])

    def _write_aliases(self, obj: Tensor, new: Tensor) -> None:
        aliases = self.aliases_of(obj)
        if not aliases:
            return
        self._propagating = True
        try:
            for other, when in aliases:
                if when is None or abstract_of(other) != abstract_of(new):
                    raise CaptureError("an in-place write to a tensor that is the same object as another on some "
                                       "paths of tensor-dependent control flow only (an alias rebound in a loop or "
                                       "a branch); write to a copy (`h = x.copy()`) or assign the result instead",
                                       loc=user_loc())
                other._rebind(_select(when, new, other))
        finally:
            self._propagating = False

    def _is_outer(self, obj: Tensor) -> bool:
        """`obj` is a Tensor of an enclosing graph, read here as one of this subgraph's inputs (named uniquely
        then, as its update names it)."""
        if self.parent is None or not self.parent.knows(obj):
            return False
        inner = self._vars.get(id(obj))
        if inner is None:
            inner = self._capture(obj)
        if not isinstance(inner, Var):
            return False   # a constant of the enclosing graph: the write stays local, as before
        base = inner.name or "tensor"
        name, k = base, 1
        while name in self._param_names:
            name, k = f"{base}#{k}", k + 1
        self._param_names.add(name)
        inner.name = name
        self._state_names[id(obj)] = name
        return True

    def _input_position(self, obj: Tensor) -> int | None:
        """Which graph input `obj` is (None: not an input of the root graph, or a Parameter). By the object, not
        by the value it holds: the second write to an input (through any alias) lands in the caller's Tensor too."""
        if self.parent is not None or isinstance(obj, Parameter):
            return None
        return self._input_index.get(id(obj))

    def on_cell(self, cell: Any) -> None:
        """A Cell was called: its state (training flag, sub-Cells, attributes) is part of what the graph assumes."""
        self.reads.cell(cell)

    def note_read(self, source: Source, value: Any) -> None:
        """A capture read a Python value through `source` (a global, a closure variable, an attribute)."""
        self.reads.read(source, value)

    def grad_hook(self, t: Tensor, hook: Any) -> None:
        """`t.register_hook(hook)` inside the capture: `hook` is captured now, on a stand-in gradient, into the
        subgraph of a `GradHook` node, and `t` is bound to that node's output, so the backward pass of every
        later use runs it (what the hook reads from the function becomes the node's free inputs). A Tensor an
        op has already read would miss that use's gradient, which PyNative includes: the call runs in Python."""
        if self._read_by_an_op(t):
            raise CaptureFallback("Tensor.register_hook: inside a jitted function a hook must be registered before "
                                  "the Tensor is used (MindSpore's graph-mode rule): the graph has already used "
                                  "it, and a hook registered now would miss that use's gradient, which PyNative "
                                  "includes; the call runs in Python (move register_hook up to where the Tensor "
                                  "is made)")
        body = GraphBuilder(f"{getattr(hook, '__name__', 'hook')}_grad_hook", self)
        body.runs_effects = False  # run here on a stand-in gradient: its effects (a dump, a print) are the node's
        grad = Tensor._from(jnp.zeros_like(t._data))
        converter = recording.converter  # source capture: the hook is captured from its source too
        with body.active():
            body.add_input(grad, "grad")
            new = hook(grad) if converter is None else converter(hook, (grad,), {})
            body.set_outputs([tensor_hooks.checked(hook, grad, new)])
        sub = body.finish()
        free = [value for value, _ in body.free]
        self.add_node(GRAD_HOOK.make(self.operand(t), free, sub.graph, outputs=[abstract_of(t)]), [t])

    def _read_by_an_op(self, t: Tensor) -> bool:
        """Whether an op recorded so far (here or in an enclosing builder) read `t`'s current value."""
        v = self.lookup(t)
        builder: GraphBuilder | None = self
        while v is not None and builder is not None:
            if any(any(x is v for x in node.inputs) for node in builder.graph.nodes):
                return True
            builder = builder.parent
        return False

    def on_alias(self, obj: Tensor, src: Tensor) -> None:
        """`obj` is a new Tensor object holding `src`'s value (e.g. `Tensor(t)`)."""
        self._bind(obj, self.operand(src))

    def on_concrete(self, t: Tensor, what: str) -> None:
        value = self.operand(t)
        if isinstance(value, Const):
            return  # a constant's value cannot change between calls
        root = self
        while root.parent is not None:
            root = root.parent
        if not root.guards_allowed:
            raise CaptureError(f"{what} needs the value of a tensor that is only known when the graph runs",
                               loc=user_loc())
        if self.parent is not None:
            # inside a subgraph (a gradient body) the value is not a graph output the runtime could check
            loc = user_loc()
            root.unguarded.append(f"{what}{f' at {loc.short()}' if loc else ''} inside a differentiated function")
            return
        data = t._data
        if isinstance(data, jax.core.Tracer):
            return  # Tensor._concrete raises a clear error right after this
        self.guards.append(Guard(value, np.array(data), what, user_loc()))

    def on_attribute_write(self, cell: Any, name: str) -> None:
        """A Cell's plain attribute was assigned a Tensor while this trace recorded (`self.t = x * 2`): a
        Python side effect that later calls of the graph would not repeat, so this signature must run in
        Python (source and bytecode capture see the assignment themselves and decide there)."""
        if not self.watch_attribute_writes:
            return
        root = self
        while root.parent is not None:
            root = root.parent
        loc = user_loc()
        root.unguarded.append(f"assigning the Tensor attribute `.{name}` of a {type(cell).__name__}"
                              f"{f' at {loc.short()}' if loc else ''} (an effect each call must repeat)")

    # ------------------------------------------------------------ undo (bytecode capture: a call that must run in Python)
    def checkpoint(self) -> tuple:
        """A mark to `rollback` to, taken before a call whose recording may have to be undone."""
        return (len(self.graph.nodes), len(self.param_objs), dict(self._updates), dict(self.old_values),
                dict(self._input_writes))

    def rollback(self, mark: tuple) -> None:
        """Forget the nodes, Parameter reads and writes recorded since `mark` (the call will run in Python)."""
        n_nodes, n_params, updates, old_values, self._input_writes = mark
        del self.graph.nodes[n_nodes:]
        for p, v in zip(self.param_objs[n_params:], self.graph.params[n_params:]):
            self._vars.pop(id(p), None)
            self._param_names.discard(v.name)
            self._state_names.pop(id(p), None)
        del self.param_objs[n_params:]
        del self.graph.params[n_params:]
        self._updates, self.old_values = updates, old_values

    # ------------------------------------------------------------ finishing
    @contextlib.contextmanager
    def active(self) -> Iterator["GraphBuilder"]:
        previous = recording.recorder
        recording.recorder = self
        try:
            yield self
        finally:
            recording.recorder = previous

    def set_outputs(self, flat_outputs: list) -> None:
        self.graph.outputs = [self.operand(o) for o in flat_outputs]

    def finish(self) -> Captured:
        updated = []
        for obj, value in self._updates.values():
            # a Parameter read from an enclosing graph (the moving mean a first gradient updated, written again in
            # a second one) is one of this graph's inputs, named after it: its update names that input
            pname = self._state_names.get(id(obj)) or obj.name
            self.graph.updates.append((pname, value))
            updated.append(obj)
        writes = sorted(self._input_writes.values(), key=lambda w: w[0])
        self.graph.outputs.extend(w[1] for w in writes)
        return Captured(self.graph, list(self.param_objs), updated, list(self.guards),
                        old_values=[self.old_values[id(p)] for p in updated], unguarded=list(self.unguarded),
                        state=self.reads.finish(), input_writes=[w[0] for w in writes],
                        written_inputs=[(w[2], w[3]) for w in writes])


def _select(when: tuple, new: Tensor, old: Tensor) -> Tensor:
    """`new` where every (predicate, polarity) term of `when` holds, else `old`, as recorded ops."""
    flag = None
    for pred, polarity in when:
        term = pred.reshape(())
        if np.dtype(term._data.dtype) != np.bool_:
            term = apply(M.NOT_EQUAL, (term, 0))
        if not polarity:
            term = apply(M.LOGICAL_NOT, (term,))
        flag = term if flag is None else apply(M.LOGICAL_AND, (flag, term))
    return apply(M.select, (flag, new, old))


def close_subgraphs(builders: list[GraphBuilder], leading: list[list[Var]]) -> list[Operand]:
    """Give every builder's graph the same inputs: its own `leading` ones, then one per outer value any of them
    uses (unused ones get a fresh Var). Returns those outer values, the node's extra inputs."""
    order: list[Operand] = []
    counts: dict[int, int] = {}
    per_builder = []
    for b in builders:
        inner_by_outer: dict[int, list[Var]] = {}
        for outer, inner in b.free:
            inner_by_outer.setdefault(id(outer), []).append(inner)
            if id(outer) not in counts:
                counts[id(outer)] = 0
                order.append(outer)
        for key, inners in inner_by_outer.items():
            counts[key] = max(counts[key], len(inners))
        per_builder.append(inner_by_outer)
    outer_operands = [o for o in order for _ in range(counts[id(o)])]
    for b, lead, inner_by_outer in zip(builders, leading, per_builder):
        inputs = list(lead)
        for o in order:
            inners = inner_by_outer.get(id(o), [])
            inputs += inners + [Var(o.abstract, o.name) for _ in range(counts[id(o)] - len(inners))]
        b.graph.inputs = inputs
    return outer_operands


def current_builder() -> GraphBuilder | None:
    rec = recording.recorder
    return rec if isinstance(rec, GraphBuilder) else None
