"""The ops over subgraphs (`Grad`, `Cond`, `While`, ...), each declared once with the IR's rules beside it.

Each is an ordinary `Primitive` of the one registry (`declare_higher_order`,
see `msx.ops.primitive`): its subgraphs, attrs, input/output layout and its
constructor (`make`, defined just above the declaration). Right after it, the
op fills the interpreter's tables (`msx.ir.interpret`): its lowering to jax
(`LOWERINGS`) and its structural shape rule (`ABSTRACT_EVAL`).
Producers (capture, autograd, GraphCell, the O1 fusion pass, MindIR import)
build nodes only through the constructors; consumers only through their own
rule tables. A consumer owns its table and, when it sits above the IR, fills
it itself (the data flow into subgraphs: `msx.ir.gradient_path`; the simulated
Ascend's cost and memory: `msx/backends/ascend_sim/`; MindIR writing:
`msx.mindir.writer`), so adding an op is one declaration here (see `Case`), a
row in each such table, and its test.
"""
from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..eager.tensor_hooks import with_backward
from ..ops.primitive import declare_higher_order
from .graph import Abstract, Const, Graph, Node, Operand, Var
from .interpret import ABSTRACT_EVAL, LOWERINGS
from .recompute import has_marked, rematerialised

Sub = Callable[[str, list], tuple[list, list]]  # sub(key, args) -> (outputs, updates) of subgraph `key`


# ---------------------------------------------------------------- shared helpers of the rules
def abstract_of_operand(x: Operand) -> Abstract:
    """The abstract a value has when it runs (a Python scalar's, without its weak mark)."""
    a = x.abstract
    return Abstract(a.shape, a.dtype) if a.weak else a


def _types(xs) -> list[Abstract]:
    return [abstract_of_operand(x) for x in xs]


def _show(xs: list[Abstract]) -> str:
    return "(" + ", ".join(map(str, xs)) + ")"


def _takes(node: Node, key: str, operands: list[Operand]) -> None:
    """Subgraph `key` must take exactly `operands` (count and types; constants are not type-checked)."""
    g = node.subgraphs[key]
    if len(g.inputs) != len(operands):
        raise ValueError(f"subgraph {key!r} ({g.name}) takes {len(g.inputs)} inputs but the node passes "
                         f"{len(operands)}")
    for i, (v, x) in enumerate(zip(g.inputs, operands)):
        if isinstance(x, Var) and v.abstract != x.abstract:
            raise ValueError(f"subgraph {key!r} ({g.name}) input {i} is {v.abstract} but the node passes "
                             f"{x.abstract}")


def _returns(g: Graph) -> list[Abstract]:
    return _types(g.outputs)


def _node(prim, inputs: list[Operand], attrs: dict, subgraphs: dict[str, Graph], outputs, loc=None) -> Node:
    """The node; `outputs` (Vars to reuse, or Abstracts) default to the op's `abstract_eval` rule."""
    node = Node(prim.name, list(inputs), [], dict(attrs), loc, dict(subgraphs))
    abstracts = outputs if outputs is not None else ABSTRACT_EVAL.rule_for(prim.name)(node)
    node.outputs = [a if isinstance(a, Var) else Var(a) for a in abstracts]
    return node


# ---------------------------------------------------------------- Grad
def _make_grad(body: Graph, args: list[Operand], params: list[Operand], free: list[Operand],
               sens: list[Operand] = (), *, has_aux: bool = False, outputs=None, loc=None) -> Node:
    attrs = {"n_args": len(args), "n_params": len(params), "has_aux": has_aux, "n_sens": len(sens)}
    return _node(GRAD, [*args, *params, *free, *sens], attrs, {"body": body}, outputs, loc)


GRAD = declare_higher_order(
    "Grad", make=_make_grad, subgraphs=("body",), attrs=("n_args", "n_params", "has_aux", "n_sens"),
    layout="inputs: n_args differentiated inputs, n_params differentiated Parameters, the body's free values, "
           "then n_sens sensitivities (cotangents; ones if none). The body takes every input but the "
           "sensitivities. Outputs: the body's outputs, one gradient per differentiated input, then the state "
           "the body writes (its updates).",
    doc="Reverse-mode gradient of `body` (lowers to jax.vjp).")


@ABSTRACT_EVAL.register(GRAD)
def _grad_types(node: Node) -> list[Abstract]:
    n_diff, n_sens = node.attrs["n_args"] + node.attrs["n_params"], node.attrs["n_sens"]
    if n_diff + n_sens > len(node.inputs):
        raise ValueError(f"n_args + n_params + n_sens = {n_diff + n_sens} but the node has {len(node.inputs)} inputs")
    _takes(node, "body", node.inputs[:len(node.inputs) - n_sens])
    body = node.subgraphs["body"]
    if node.attrs["has_aux"] and not body.outputs:
        raise ValueError("has_aux=True but the body returns nothing")
    return _returns(body) + _types(node.inputs[:n_diff]) + _types([x for _, x in body.updates])


def _ones_cotangent(x):
    if jnp.issubdtype(x.dtype, jnp.inexact):
        return jnp.ones(x.shape, x.dtype)
    return np.zeros(x.shape, jax.dtypes.float0)


def _zero_grad_like(x, g):
    return jnp.zeros(jnp.shape(x), jnp.result_type(x)) if getattr(g, "dtype", None) == jax.dtypes.float0 else g


@LOWERINGS.register(GRAD)
def _lower_grad(node: Node, args: list, sub: Sub) -> list:
    n_diff = node.attrs["n_args"] + node.attrs["n_params"]
    has_aux, n_sens = node.attrs["has_aux"], node.attrs["n_sens"]
    sens = args[len(args) - n_sens:]
    args = args[:len(args) - n_sens]
    diff, free = list(args[:n_diff]), list(args[n_diff:])

    def pure(diff):
        outs, updates = sub("body", list(diff) + free)
        if has_aux:
            return outs[0], (tuple(outs[1:]), updates)
        return tuple(outs), ((), updates)

    if has_marked(node.subgraphs["body"]):  # ops.Primitive.recompute(): those outputs recomputed, the rest kept
        pure = rematerialised(pure)
    main, vjp_fn, (aux, updates) = jax.vjp(pure, diff, has_aux=True)
    if n_sens:
        cot = sens[0] if has_aux else tuple(sens)
    else:
        cot = jax.tree_util.tree_map(_ones_cotangent, main)
    (grads,) = vjp_fn(cot)
    grads = [_zero_grad_like(x, g) for x, g in zip(diff, grads)]
    values = [main, *aux] if has_aux else list(main)
    return values + grads + list(updates)


# ---------------------------------------------------------------- Call and Fused
def _body_types(node: Node) -> list[Abstract]:
    _takes(node, "body", node.inputs)
    body = node.subgraphs["body"]
    return _returns(body) + _types([x for _, x in body.updates])


def _lower_body(node: Node, args: list, sub: Sub) -> list:
    outs, updates = sub("body", args)
    return outs + updates


def _declare_body_op(name: str, *, layout: str, doc: str):
    """A higher-order op that runs one subgraph `body` on its inputs (Call, Fused): one declaration shape."""
    def make(body: Graph, operands: list[Operand], *, outputs=None, loc=None, scope: str = "") -> Node:
        node = _node(prim, operands, {}, {"body": body}, outputs, loc)
        node.scope = scope
        return node

    prim = declare_higher_order(name, make=make, subgraphs=("body",), layout=layout, doc=doc)
    ABSTRACT_EVAL.register(prim)(_body_types)
    LOWERINGS.register(prim)(_lower_body)
    return prim


CALL = _declare_body_op(
    "Call", layout="inputs: the body's inputs. Outputs: the body's outputs, then the state it writes (its updates).",
    doc="A call of a graph (a GraphCell, a no_inline function); the inline pass replaces it by its body.")


FUSED = _declare_body_op(
    "Fused", layout="inputs: the body's inputs. Outputs: the body's outputs.",
    doc="A group of elementwise ops run as one kernel (made by the O1 fusion pass).")


# ---------------------------------------------------------------- Cond
def _make_cond(pred: Operand, operands: list[Operand], then: Graph, else_: Graph, *, outputs=None, loc=None) -> Node:
    return _node(COND, [pred, *operands], {}, {"then": then, "else": else_}, outputs, loc)


COND = declare_higher_order(
    "Cond", make=_make_cond, subgraphs=("then", "else"),
    layout="inputs: a scalar predicate, then the operands; both branches take the operands and return values "
           "of the same types, which are the outputs.",
    doc="Two-way branch on a tensor predicate (lowers to lax.cond).")


def _branch_types(node: Node, operands: list[Operand]) -> list[Abstract]:
    outs = None
    for key in node.subgraphs:
        _takes(node, key, operands)
        got = _returns(node.subgraphs[key])
        if outs is not None and got != outs:
            raise ValueError(f"the branches return different types: {_show(outs)} vs {_show(got)} ({key!r})")
        outs = got
    return outs or []


def _scalar_pred(x: Operand, what: str) -> None:
    a = abstract_of_operand(x)
    if tuple(a.shape) not in ((), (1,)):
        raise ValueError(f"the {what} must be a scalar, got {a}")


@ABSTRACT_EVAL.register(COND)
def _cond_types(node: Node) -> list[Abstract]:
    if not node.inputs:
        raise ValueError("a Cond node needs a predicate input")
    _scalar_pred(node.inputs[0], "predicate")
    return _branch_types(node, node.inputs[1:])


@LOWERINGS.register(COND)
def _lower_cond(node: Node, args: list, sub: Sub) -> list:
    pred, operands = args[0], tuple(args[1:])

    def branch(key: str) -> Callable:
        return lambda ops: tuple(sub(key, list(ops))[0])

    return list(lax.cond(jnp.asarray(pred).astype(bool).reshape(()), branch("then"), branch("else"), operands))


# ---------------------------------------------------------------- While
def _make_while(init: list[Operand], cond: Graph, body: Graph, *, outputs=None, loc=None) -> Node:
    return _node(WHILE, init, {}, {"cond": cond, "body": body}, outputs, loc)


WHILE = declare_higher_order(
    "While", make=_make_while, subgraphs=("cond", "body"),
    layout="inputs: the initial carry. `cond` maps the carry to a scalar bool, `body` the carry to the next "
           "carry (same types). Outputs: the final carry.",
    doc="A loop while a tensor condition holds (lowers to lax.while_loop; not reverse-differentiable).")


@ABSTRACT_EVAL.register(WHILE)
def _while_types(node: Node) -> list[Abstract]:
    carry = _types(node.inputs)
    _takes(node, "cond", node.inputs)
    _takes(node, "body", node.inputs)
    cond_out = _returns(node.subgraphs["cond"])
    if len(cond_out) != 1:
        raise ValueError(f"subgraph 'cond' must return one scalar bool, returns {_show(cond_out)}")
    _scalar_pred(node.subgraphs["cond"].outputs[0], "loop condition")
    body_out = _returns(node.subgraphs["body"])
    if body_out != carry:
        raise ValueError(f"subgraph 'body' returns {_show(body_out)} but the carry is {_show(carry)}")
    return carry


@LOWERINGS.register(WHILE)
def _lower_while(node: Node, args: list, sub: Sub) -> list:
    def keep_going(c):
        return jnp.asarray(sub("cond", list(c))[0][0]).astype(bool).reshape(())

    return list(lax.while_loop(keep_going, lambda c: tuple(sub("body", list(c))[0]), tuple(args)))


# ---------------------------------------------------------------- Scan
def _make_scan(carry: list[Operand], xs: list[Operand], consts: list[Operand], body: Graph, *, length: int | None,
               reverse: bool = False, outputs=None, loc=None) -> Node:
    attrs = {"n_carry": len(carry), "n_xs": len(xs), "length": length, "reverse": reverse}
    return _node(SCAN, [*carry, *xs, *consts], attrs, {"body": body}, outputs, loc)


SCAN = declare_higher_order(
    "Scan", make=_make_scan, subgraphs=("body",), attrs=("n_carry", "n_xs", "length", "reverse"),
    layout="inputs: n_carry carries, n_xs scanned inputs (sliced along axis 0), then loop-invariant values. "
           "The body maps (carry..., x slices..., invariants...) to (carry..., y slices...). Outputs: the final "
           "carry, then the ys stacked along a new axis 0.",
    doc="A loop over the leading axis (lowers to lax.scan).")


def scan_length(node: Node) -> int:
    """The trip count of a Scan node: its `length` attr, else the leading dimension of its first scanned input."""
    length = node.attrs.get("length")
    if length is None:
        length = node.inputs[node.attrs["n_carry"]].abstract.shape[0]
    return int(length)


@ABSTRACT_EVAL.register(SCAN)
def _scan_types(node: Node) -> list[Abstract]:
    n_carry, n_xs = node.attrs["n_carry"], node.attrs["n_xs"]
    if n_carry + n_xs > len(node.inputs) or (n_xs == 0 and node.attrs.get("length") is None):
        raise ValueError(f"n_carry={n_carry}, n_xs={n_xs} do not fit its {len(node.inputs)} inputs")
    xs = _types(node.inputs[n_carry:n_carry + n_xs])
    length = scan_length(node)
    if any(not x.shape or x.shape[0] != length for x in xs):
        raise ValueError(f"scanned inputs {_show(xs)} do not all have leading dimension {length}")
    body = node.subgraphs["body"]
    wanted = _types(node.inputs[:n_carry]) + [Abstract(tuple(x.shape[1:]), x.dtype) for x in xs] \
        + _types(node.inputs[n_carry + n_xs:])
    if len(body.inputs) != len(wanted):
        raise ValueError(f"subgraph 'body' ({body.name}) takes {len(body.inputs)} inputs but the node passes "
                         f"{len(wanted)}")
    for i, (v, a) in enumerate(zip(body.inputs, wanted)):
        if v.abstract != a and not isinstance(node.inputs[i], Const):
            raise ValueError(f"subgraph 'body' ({body.name}) input {i} is {v.abstract} but gets {a}")
    outs = _returns(body)
    carry = _types(node.inputs[:n_carry])
    if outs[:n_carry] != carry:
        raise ValueError(f"subgraph 'body' returns the carry as {_show(outs[:n_carry])}, but it is {_show(carry)}")
    return carry + [Abstract((length, *y.shape), y.dtype) for y in outs[n_carry:]]


@LOWERINGS.register(SCAN)
def _lower_scan(node: Node, args: list, sub: Sub) -> list:
    n_carry, n_xs = node.attrs["n_carry"], node.attrs["n_xs"]
    carry, xs, consts = tuple(args[:n_carry]), tuple(args[n_carry:n_carry + n_xs]), list(args[n_carry + n_xs:])

    def step(c, x):
        outs = sub("body", list(c) + list(x) + consts)[0]
        return tuple(outs[:n_carry]), tuple(outs[n_carry:])

    final, ys = lax.scan(step, carry, xs, length=node.attrs.get("length"), reverse=node.attrs.get("reverse", False))
    return list(final) + list(ys)


# ---------------------------------------------------------------- Case
def _make_case(index: Operand, operands: list[Operand], branches: list[Graph], *, outputs=None, loc=None) -> Node:
    return _node(CASE, [index, *operands], {}, {f"branch{i}": g for i, g in enumerate(branches)}, outputs, loc)


CASE = declare_higher_order(
    "Case", make=_make_case, subgraphs=("branch*",),
    layout="inputs: a scalar integer index, then the operands; every branch takes the operands and returns values "
           "of the same types, which are the outputs. The index is 0..n-1 (producers normalise a negative one and "
           "check the range where the program must raise: lax.switch clamps it).",
    doc="Multi-way branch on a tensor index (lowers to lax.switch): a CellList indexed by a tensor, and what "
        "MindIR's switch_layer reads as.")


@ABSTRACT_EVAL.register(CASE)
def _case_types(node: Node) -> list[Abstract]:
    if not node.inputs:
        raise ValueError("a Case node needs an index input")
    _scalar_pred(node.inputs[0], "index")
    if not np.issubdtype(np.dtype(abstract_of_operand(node.inputs[0]).dtype), np.integer):
        raise ValueError(f"the index must be an integer, got {abstract_of_operand(node.inputs[0])}")
    return _branch_types(node, node.inputs[1:])


@LOWERINGS.register(CASE)
def _lower_case(node: Node, args: list, sub: Sub) -> list:
    def branch(key: str) -> Callable:
        return lambda *ops: tuple(sub(key, list(ops))[0])

    index = jnp.asarray(args[0]).astype(jnp.int32).reshape(())
    return list(lax.switch(index, [branch(k) for k in node.subgraphs], *args[1:]))


# ---------------------------------------------------------------- Vmap
def _make_vmap(body: Graph, inputs: list[Operand], *, in_axes: tuple, out_axes: tuple, axis_size: int,
               outputs=None, loc=None) -> Node:
    attrs = {"in_axes": tuple(in_axes), "out_axes": tuple(out_axes), "axis_size": int(axis_size)}
    return _node(VMAP, list(inputs), attrs, {"body": body}, outputs, loc)


VMAP = declare_higher_order(
    "Vmap", make=_make_vmap, subgraphs=("body",), attrs=("in_axes", "out_axes", "axis_size"),
    layout="inputs: the values the body takes, batched or not: `in_axes` gives, per input, the axis its batch "
           "runs along (None: the same value for every example; the body's free values are None). The body "
           "takes one example of each input (the batch axis removed). Outputs: the body's outputs, each with "
           "the batch axis inserted at its `out_axes` entry (None: an output that does not vary over the batch).",
    doc="The body mapped over a batch axis (lowers to jax.vmap): msx.vmap inside a captured function, as "
        "MindSpore's vmap in GRAPH_MODE.")


def _unbatched(a: Abstract, axis: int | None) -> Abstract:
    if axis is None:
        return a
    return Abstract(tuple(d for i, d in enumerate(a.shape) if i != axis), a.dtype)


@ABSTRACT_EVAL.register(VMAP)
def _vmap_types(node: Node) -> list[Abstract]:
    in_axes, out_axes, size = node.attrs["in_axes"], node.attrs["out_axes"], node.attrs["axis_size"]
    body = node.subgraphs["body"]
    if len(in_axes) != len(node.inputs) or len(body.inputs) != len(node.inputs):
        raise ValueError(f"in_axes has {len(in_axes)} entries and the body takes {len(body.inputs)} inputs, but "
                         f"the node passes {len(node.inputs)}")
    if body.updates:
        raise ValueError("a Vmap body writes state, which cannot leave the mapped function")
    for i, (v, x, axis) in enumerate(zip(body.inputs, node.inputs, in_axes)):
        a = abstract_of_operand(x)
        if axis is not None and (not 0 <= axis < len(a.shape) or a.shape[axis] != size):
            raise ValueError(f"input {i} is {a}, which has no axis {axis} of size {size}")
        if isinstance(x, Var) and v.abstract != _unbatched(a, axis):
            raise ValueError(f"subgraph 'body' ({body.name}) input {i} is {v.abstract} but one example of "
                             f"{a} along axis {axis} is {_unbatched(a, axis)}")
    outs = _returns(body)
    if len(out_axes) != len(outs):
        raise ValueError(f"out_axes has {len(out_axes)} entries but the body returns {len(outs)} values")
    result = []
    for y, axis in zip(outs, out_axes):
        if axis is None:
            result.append(y)
            continue
        if not 0 <= axis <= len(y.shape):
            raise ValueError(f"out_axes entry {axis} is outside an output of rank {len(y.shape)} (+1)")
        result.append(Abstract((*y.shape[:axis], size, *y.shape[axis:]), y.dtype))
    return result


@LOWERINGS.register(VMAP)
def _lower_vmap(node: Node, args: list, sub: Sub) -> list:
    def body(*xs):
        return tuple(sub("body", list(xs))[0])

    return list(jax.vmap(body, in_axes=node.attrs["in_axes"], out_axes=node.attrs["out_axes"],
                         axis_size=node.attrs["axis_size"])(*args))


# ---------------------------------------------------------------- GradHook
def _make_grad_hook(value: Operand, free: list[Operand], hook: Graph, *, outputs=None, loc=None) -> Node:
    return _node(GRAD_HOOK, [value, *free], {}, {"hook": hook}, outputs, loc)


GRAD_HOOK = declare_higher_order(
    "GradHook", make=_make_grad_hook, subgraphs=("hook",),
    layout="inputs: the hooked value, then the hook's free values. The hook takes the value's gradient (of "
           "its type), then the free values, and returns the gradient that flows on. Output: the value, "
           "unchanged.",
    doc="`Tensor.register_hook` inside a captured function: the identity forward; in the backward pass the "
        "gradient runs through the hook subgraph (lowers to a jax.custom_vjp).")


@ABSTRACT_EVAL.register(GRAD_HOOK)
def _grad_hook_types(node: Node) -> list[Abstract]:
    if not node.inputs:
        raise ValueError("a GradHook node needs the hooked value as its first input")
    _takes(node, "hook", node.inputs)
    value = abstract_of_operand(node.inputs[0])
    got = _returns(node.subgraphs["hook"])
    if got != [value]:
        raise ValueError(f"the hook returns {_show(got)}, but the gradient of the value is {value}")
    return [value]


@LOWERINGS.register(GRAD_HOOK)
def _lower_grad_hook(node: Node, args: list, sub: Sub) -> list:
    def backward(free, ct):
        (grad,), _ = sub("hook", [ct, *free])
        return grad

    return [with_backward(args[0], tuple(args[1:]), backward)]
