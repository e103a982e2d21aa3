"""`ops.WhileLoop`, `ops.ForiLoop` and `ops.Scan` inside a capture: the IR's `While` and `Scan` nodes.

The loop function runs once under `lax.while_loop` / `lax.scan` on one iteration's values while a child
`GraphBuilder` records it (the way `transforms.vmap` records a `Vmap` body), so the capture gets the loop's
real results (a trace capture returns them) and the graph one node: what the function reads from outside
becomes the node's extra inputs (a `While` carries them unchanged, a `Scan` takes them as invariants).
The carry is the loop value's tensors, and its numbers as tensors (MindSpore's graph carries them as
scalars); any other leaf (a string, None) must come out of the loop function unchanged.

A `While` node is not reverse-differentiable in jax (its trip count depends on data): a gradient taken
through one while capturing makes the call run in Python (`CaptureFallback`), where MindSpore's gradient
(the Python loop's) is what msx computes. A `Scan` node is differentiable.
"""
from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import tensor as tensor_mod
from .autograd import WHILE_GRADIENT
from .capture.builder import GraphBuilder, close_subgraphs, current_builder
from .errors import CaptureFallback, OpError
from .ir.control import SCAN, WHILE
from .ops import functional as F
from .ops import loop_ops
from .ops.loop_ops import call_user, split_step
from .tensor import Tensor

_NUMBER = (bool, int, float, np.number, np.bool_)


def _is_leaf(x: Any) -> bool:
    return isinstance(x, Tensor)


class _Carry:
    """A loop value split into its carried leaves (Tensors; numbers made Tensors) and its static rest."""

    def __init__(self, op: str, value: Any) -> None:
        self.op = op
        leaves, self.tree = jax.tree_util.tree_flatten(value, is_leaf=_is_leaf)
        self.slots = [isinstance(x, Tensor) or isinstance(x, _NUMBER) for x in leaves]
        self.static = [None if s else x for s, x in zip(self.slots, leaves)]
        self.tensors = [x if isinstance(x, Tensor) else Tensor(x) for s, x in zip(self.slots, leaves) if s]
        self.abstracts = [(tuple(t.shape), t._data.dtype) for t in self.tensors]

    def rebuild(self, tensors: list) -> Any:
        it = iter(tensors)
        return jax.tree_util.tree_unflatten(self.tree, [next(it) if s else x for s, x in zip(self.slots, self.static)])

    def match(self, value: Any, what: str) -> list[Tensor]:
        """The carried Tensors of `value`, which must have this carry's structure, shapes and dtypes."""
        leaves, tree = jax.tree_util.tree_flatten(value, is_leaf=_is_leaf)
        if tree != self.tree:
            raise self._bad(f"{what} has the structure {tree}, but the initial value has {self.tree}")
        out = []
        for i, (s, x, static) in enumerate(zip(self.slots, leaves, self.static)):
            if not s:
                if not (x is static or x == static):
                    raise self._bad(f"{what}: leaf {i} ({static!r}) changed to {x!r}")
                continue
            shape, dtype = self.abstracts[len(out)]
            if isinstance(x, _NUMBER):
                x = Tensor(np.asarray(x, dtype))
            if not isinstance(x, Tensor) or tuple(x.shape) != shape or x._data.dtype != dtype:
                got = f"{type(x).__name__}" if not isinstance(x, Tensor) else f"{x._data.dtype}{list(x.shape)}"
                raise self._bad(f"{what}: leaf {i} is {got}, but the initial value's is {dtype}{list(shape)} "
                                f"(the loop must keep the type and shape of what it carries)")
            out.append(x)
        return out

    def _bad(self, why: str) -> OpError:
        return OpError(f"{self.op}: Invalid loop_func, please check input arguments and return value, error info: "
                       f"{why}")


def _no_writes(op: str, fn: Callable, *args: Any) -> Any:
    """`fn(*args)` refusing state writes (MindSpore: a loop function with side effects is not supported)."""
    log: list = []
    tensor_mod._WRITE_LOGS.append(log)
    try:
        out = fn(*args)
    finally:
        tensor_mod._WRITE_LOGS.pop()
        for obj, old in reversed(log):
            obj._data = old
    if log:
        raise OpError(f"{op}: the loop function writes state ({type(log[0][0]).__name__} "
                      f"{getattr(log[0][0], 'name', '')}); MindSpore does not support a side-effect function in a "
                      f"loop op")
    return out


def _record(builder_box: list, name: str, parent: GraphBuilder, fn: Callable, arrays: tuple, labels: list) -> list:
    """Run `fn(tensors) -> list of Tensors` on `arrays` with a fresh child builder recording it (the last
    trace's builder is kept in `builder_box`); returns the result arrays."""
    child = GraphBuilder(name, parent)
    builder_box[:] = [child]
    tensors = [Tensor._from(a) for a in arrays]
    with child.active():
        for t, label in zip(tensors, labels):
            child.add_input(t, label)
        outs = fn(tensors)
        child.set_outputs(outs)
    return [o._data for o in outs]


def _while_fwd(run, arrays):
    return run(arrays), None


def _while_bwd(run, res, ct):
    raise CaptureFallback(WHILE_GRADIENT)


_while_values = jax.custom_vjp(lambda run, arrays: run(arrays), nondiff_argnums=(0,))  # the loop's values
_while_values.defvjp(_while_fwd, _while_bwd)


def while_node(op: str, cond: Callable, body: Callable, init: list[Tensor], labels: list[str]) -> list[Tensor]:
    """A `While` node: `cond(tensors) -> scalar Tensor`, `body(tensors) -> tensors` over the carry `init`."""
    parent = current_builder()
    cond_box: list = []
    body_box: list = []
    abstracts = [(tuple(t.shape), t._data.dtype) for t in init]

    def cond_arrays(carry):
        def run(ts):
            pred = cond(ts)
            if not isinstance(pred, Tensor) or pred.size != 1:
                raise OpError(f"{op}: the condition must be a bool scalar, got {_describe(pred)}")
            return [pred.reshape(()).astype("bool") if pred._data.dtype != np.bool_ or pred.ndim else pred]
        return _record(cond_box, f"{op}_cond", parent, run, carry, labels)[0]

    def body_arrays(carry):
        def run(ts):
            outs = body(ts)
            for i, (o, (shape, dtype)) in enumerate(zip(outs, abstracts)):
                if tuple(o.shape) != shape or o._data.dtype != dtype:
                    raise OpError(f"{op}: the loop function changes carried value {i} from {dtype}{list(shape)} "
                                  f"to {o._data.dtype}{list(o.shape)}")
            return outs
        return tuple(_record(body_box, f"{op}_body", parent, run, carry, labels))

    def run(arrays):
        return lax.while_loop(cond_arrays, body_arrays, tuple(arrays))

    values = _while_values(run, tuple(t._data for t in init))
    results = [Tensor._from(v) for v in values]
    cond_b, body_b = cond_box[0], body_box[0]
    n = len(init)
    extra = close_subgraphs([body_b, cond_b], [body_b.graph.inputs[:n], cond_b.graph.inputs[:n]])
    body_b.graph.outputs = body_b.graph.outputs[:n] + body_b.graph.inputs[n:]
    dummies = [Tensor._from(jnp.zeros(o.abstract.shape, np.dtype(o.abstract.dtype))) for o in extra]
    parent.add_node(WHILE.make([parent.operand(t) for t in init] + extra, cond_b.graph, body_b.graph),
                    results + dummies)
    return results


def _describe(x: Any) -> str:
    return f"a Tensor of shape {tuple(x.shape)}" if isinstance(x, Tensor) else type(x).__name__


def scan_node(op: str, step: Callable, carry: list[Tensor], xs: list[Tensor], length: int,
              labels: list[str]) -> tuple[list[Tensor], list[Tensor]]:
    """A `Scan` node: `step(carry tensors + x slices) -> (new carry, ys)` over `length` steps."""
    parent = current_builder()
    box: list = []
    n_carry = len(carry)
    n_ys: list = []
    abstracts = [(tuple(t.shape), t._data.dtype) for t in carry]

    def run(ts):
        new, ys = step(ts)
        for i, (o, (shape, dtype)) in enumerate(zip(new, abstracts)):
            if tuple(o.shape) != shape or o._data.dtype != dtype:
                raise OpError(f"{op}: the loop function changes carried value {i} from {dtype}{list(shape)} to "
                              f"{o._data.dtype}{list(o.shape)}")
        n_ys[:] = [len(ys)]
        return list(new) + list(ys)

    def body(c, x):
        outs = _record(box, f"{op}_body", parent, run, tuple(c) + tuple(x), labels)
        return tuple(outs[:n_carry]), tuple(outs[n_carry:])

    final, ys = lax.scan(body, tuple(t._data for t in carry), tuple(t._data for t in xs), length=length)
    results = [Tensor._from(v) for v in (*final, *ys)]
    sub = box[0]
    consts = [value for value, _ in sub.free]
    parent.add_node(SCAN.make([parent.operand(t) for t in carry], [parent.operand(t) for t in xs], consts,
                              sub.graph, length=length), results)
    return results[:n_carry], results[n_carry:]


# ---------------------------------------------------------------- the three ops
def capture_while(cond_func: Callable, loop_func: Callable, init_val: Any) -> Any:
    op = "WhileLoop"
    val = init_val
    while True:  # a condition that is a Python value is decided now; the loop from a tensor one is the graph's
        pred = call_user(op, cond_func, val)
        if isinstance(pred, Tensor):
            break
        if not pred:
            return val
        val = call_user(op, loop_func, val)
    carry = _Carry(op, val)

    def cond(ts):
        return call_user(op, cond_func, carry.rebuild(ts))

    def body(ts):
        return carry.match(_no_writes(op, call_user, op, loop_func, carry.rebuild(ts)), "loop_func's result")

    labels = [f"carry{i}" for i in range(len(carry.tensors))]
    return carry.rebuild(while_node(op, cond, body, carry.tensors, labels))


def capture_fori(lower: Any, upper: Any, loop_func: Callable, init_val: Any, unroll: bool) -> Any:
    op = "ForiLoop"
    if not isinstance(lower, Tensor) and not isinstance(upper, Tensor):
        if unroll:
            val = init_val
            for i in range(lower, upper):
                val = call_user(op, loop_func, i, val)
            return val
        if upper <= lower:
            return init_val
        carry = _Carry(op, init_val)

        def step(ts):
            i, rest = ts[0], ts[1:]
            new = carry.match(_no_writes(op, call_user, op, loop_func, i, carry.rebuild(rest)), "loop_func's result")
            return [i + 1] + new, []

        start = Tensor(np.asarray(lower, np.int64))
        labels = ["i"] + [f"carry{k}" for k in range(len(carry.tensors))]
        final, _ = scan_node(op, step, [start] + carry.tensors, [], upper - lower, labels)
        return carry.rebuild(final[1:])
    lo = lower if isinstance(lower, Tensor) else Tensor(np.asarray(lower, np.int64))
    hi = upper if isinstance(upper, Tensor) else Tensor(np.asarray(upper, np.int64))
    carry = _Carry(op, init_val)

    def cond(ts):
        return ts[0] < ts[1]

    def body(ts):
        new = carry.match(_no_writes(op, call_user, op, loop_func, ts[0], carry.rebuild(ts[2:])), "loop_func's result")
        return [ts[0] + 1, ts[1]] + new

    labels = ["i", "upper"] + [f"carry{k}" for k in range(len(carry.tensors))]
    final = while_node(op, cond, body, [lo.reshape(()), hi.reshape(()).astype(lo.dtype)] + carry.tensors, labels)
    return carry.rebuild(final[2:])


def capture_scan(loop_func: Callable, init: Any, xs: list) -> Any:
    op = "Scan"
    carry = _Carry(op, init)
    length = len(xs)
    x_leaves, x_tree = [], None
    if any(x is not None for x in xs):
        flat = [jax.tree_util.tree_flatten(x, is_leaf=_is_leaf) for x in xs]
        x_tree = flat[0][1]
        if any(t != x_tree for _, t in flat):
            raise OpError(f"{op}: every element of xs must have one structure, got {sorted({str(t) for _, t in flat})}")
        for k in range(len(flat[0][0])):
            column = [leaves[k] if isinstance(leaves[k], Tensor) else Tensor(leaves[k]) for leaves, _ in flat]
            if len({(tuple(c.shape), c._data.dtype) for c in column}) != 1:
                raise OpError(f"{op}: with unroll=False the elements of xs must have one shape and dtype, got "
                              f"{[f'{c._data.dtype}{list(c.shape)}' for c in column]}")
            x_leaves.append(F.stack(column, 0))
    y_tree: list = []
    n_carry = len(carry.tensors)

    def step(ts):
        x = None if x_tree is None else jax.tree_util.tree_unflatten(x_tree, ts[n_carry:])
        new, y = split_step(op, _no_writes(op, call_user, op, loop_func, carry.rebuild(ts[:n_carry]), x))
        leaves, tree = jax.tree_util.tree_flatten(y, is_leaf=_is_leaf)
        y_tree[:] = [tree]
        return carry.match(new, "loop_func's carry"), [v if isinstance(v, Tensor) else Tensor(v) for v in leaves]

    labels = [f"carry{k}" for k in range(n_carry)] + [f"x{k}" for k in range(len(x_leaves))]
    final, ys = scan_node(op, step, carry.tensors, x_leaves, length, labels)
    out = [jax.tree_util.tree_unflatten(y_tree[0], [y[i] for y in ys]) for i in range(length)]
    return carry.rebuild(final), out


loop_ops.CAPTURE.update({"while": capture_while, "fori": capture_fori, "scan": capture_scan})
