"""Tensor-dependent control flow as graph nodes: `if` -> Cond, `while` -> While, `for` over a tensor -> Scan.

Each branch or loop body is interpreted into a child GraphBuilder, which makes
it a closed subgraph: values from outside become its inputs (`builder.free`).
What the construct changes is found by comparing the variables before and
after: a variable (or a Tensor leaf inside a list, tuple or dict) bound to a
new value, and any Tensor written in place (a Parameter's `set_data`, an
optimizer update, `x[i] = v`). Those become the node's outputs, so a Parameter
written in a branch or a loop is threaded out as state. Python numbers that a
construct changes become tensors; other Python values must come out the same.

Node conventions (see msx/ir/interpret.py):
- Cond: inputs = predicate + operands; both branches take the operands.
- While: inputs = carry; `cond` and `body` take the carry. Loop-invariant
  values ride along in the carry, passed through unchanged.
- Scan: inputs = carry, scanned tensor, invariants; outputs = final carry.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import jax.numpy as jnp
import numpy as np

from ...errors import SourceLoc
from ...ir.control import COND, SCAN, WHILE
from ...ir.graph import Abstract, Const, Operand, Var
from ...ops import math_ops as M
from ...ops.primitive import apply
from ...tensor import Parameter, Tensor
from ..builder import GraphBuilder, abstract_of, close_subgraphs, current_builder
from ..session import write_log
from . import aliases
from .failures import Unsupported
from .scope import LOOP, Return
from .values import ZEROS as _ZEROS, MaybeUnbound, Undefined, flatten, is_dynamic, is_number, number_dtype, static_equal, unflatten

if TYPE_CHECKING:
    from .interpreter import Interpreter

MAX_LOOP_PASSES = 4  # a loop body is re-interpreted until the set of carried values stops growing


@dataclass
class Branch:
    """One interpreted branch or loop body: its builder, the variables after it, its value, its writes."""

    builder: GraphBuilder
    vars: dict
    value: Any
    writes: list = field(default_factory=list)   # (Tensor, array before the write)


@dataclass(frozen=True)
class _Slot:
    index: int  # which node output replaces this leaf


def placeholder(abstract: Abstract) -> Tensor:
    """A Tensor standing for a graph value of this shape and dtype (its data is abstract during capture)."""
    return Tensor._from(jnp.zeros(abstract.shape, jnp.dtype(abstract.dtype)))


def run_branch(interp: "Interpreter", name: str, thunk: Callable[[], Any], start_vars: dict,
               bind: Callable[[GraphBuilder], None] | None = None) -> Branch:
    """Interpret `thunk` into a child builder on a private copy of the variables; undo its writes afterwards."""
    parent = current_builder()
    child = GraphBuilder(name, parent)
    if bind is not None:
        bind(child)
    scope = interp.frame.scope
    saved_vars, saved_rest = scope.vars, interp.frame.rest
    scope.vars = fork(start_vars, interp)
    interp.branch_depth += 1
    try:
        with write_log("always") as log, child.active():   # the next branch (and the code after) starts alike
            value = thunk()
    finally:
        interp.branch_depth -= 1
        branch_vars = scope.vars
        scope.vars, interp.frame.rest = saved_vars, saved_rest
    return Branch(child, branch_vars, value, log)


def fork(vars_: dict, interp: "Interpreter") -> dict:
    """A copy of the variables in which locally created lists, dicts and sets are copies too (memo keeps aliasing)."""
    memo: dict[int, Any] = {}

    def copy(value: Any) -> Any:
        key = id(value)
        if key in memo:
            return memo[key]
        kind = type(value)
        if kind is list and interp.is_local(value):
            new: Any = interp.mark_local([])
            memo[key] = new
            new.extend(copy(v) for v in value)
        elif kind is dict and interp.is_local(value):
            new = interp.mark_local({})
            memo[key] = new
            new.update((k, copy(v)) for k, v in value.items())
        elif kind is set and interp.is_local(value):
            new = interp.mark_local(set(value))
            memo[key] = new
        elif kind is tuple:
            items = tuple(copy(v) for v in value)
            new = value if all(a is b for a, b in zip(items, value)) else items
            memo[key] = new
        else:
            return value
        return new

    return {name: copy(value) for name, value in vars_.items()}


def _rebuild(interp: "Interpreter", structure: Any, leaves: list) -> Any:
    value = unflatten(structure, leaves)
    _mark_containers(interp, value)
    return value


def _mark_containers(interp: "Interpreter", value: Any) -> None:
    if isinstance(value, (list, dict, set)):
        interp.mark_local(value)
    if isinstance(value, (list, tuple)):
        for v in value:
            _mark_containers(interp, v)
    elif isinstance(value, dict):
        for v in value.values():
            _mark_containers(interp, v)


def _leaf_ids(vars_: dict) -> set[int]:
    ids: set[int] = set()
    for value in vars_.values():
        if type(value) is not Undefined:
            ids.update(id(x) for x in flatten(value)[0] if isinstance(x, Tensor))
    return ids


def _written_objects(branches: list[Branch], vars_: dict, parent: GraphBuilder) -> list[Tensor]:
    """Tensors that existed before the construct and were written in place in it (Parameters and locals)."""
    before = _leaf_ids(vars_)
    found: dict[int, Tensor] = {}
    for branch in branches:
        for obj, _ in branch.writes:
            if id(obj) not in found and (isinstance(obj, Parameter) or id(obj) in before or parent.knows(obj)):
                found[id(obj)] = obj
    return list(found.values())


def _describe(x: Any) -> str:
    if isinstance(x, Tensor):
        return f"a tensor {abstract_of(x)}"
    if isinstance(x, (Var, Const)):
        return f"a tensor {x.abstract}"
    text = repr(x)
    return f"{type(x).__name__} {text if len(text) < 40 else text[:37] + '...'}"


# ---------------------------------------------------------------- outputs of a construct
class _Outputs:
    """Per output: the operand each branch (or the loop body) gives, checked to agree in shape and dtype."""

    def __init__(self, kinds: tuple[str, ...]) -> None:
        self.kinds = kinds
        self.operands: list[tuple[Operand, ...]] = []
        self.abstracts: list[Abstract] = []
        self.values: list[tuple | None] = []   # per output: the value each path gives (None: a written object)

    def add(self, operands: tuple[Operand, ...], what: str, values: tuple | None = None) -> _Slot:
        abstracts = [o.abstract for o in operands]
        if any(a != abstracts[0] for a in abstracts):
            shown = " but ".join(f"{a} in the {k}" for a, k in zip(abstracts, self.kinds))
            raise Unsupported(f"{what} is {shown}; a graph needs the same shape and dtype on every path")
        self.operands.append(operands)
        self.abstracts.append(abstracts[0])
        self.values.append(values)
        return _Slot(len(self.operands) - 1)


def _operand(builder: GraphBuilder, value: Any, other: Any, what: str) -> Operand:
    """`value` as an operand of `builder`; a Python number takes the shape and dtype of its counterpart (so
    does `_ZEROS`, a path's stand-in for a name it never assigned)."""
    if isinstance(value, Tensor):
        return builder.operand(value)
    if value is _ZEROS:
        a = abstract_of(other)
        return Const(np.zeros(a.shape, jnp.dtype(a.dtype)))
    if is_number(value):
        if isinstance(other, Tensor):
            a = abstract_of(other)
            return Const(np.full(a.shape, value, jnp.dtype(a.dtype)))
        return Const(np.asarray(value, number_dtype(value, *([other] if is_number(other) else []))))
    raise Unsupported(f"{what} is {_describe(value)} on one path and {_describe(other)} on the other; only "
                      f"tensors and numbers may differ between the paths of tensor-dependent control flow")


def _merge_value(what: str, values: list, branches: list[Branch], outputs: _Outputs) -> tuple | None:
    """(structure, leaves with `_Slot`s) merging one value across branches, or None when nothing differs."""
    flat = [flatten(v) for v in values]
    structure = flat[0][1]
    for leaves, other in flat[1:]:
        if other != structure:
            raise Unsupported(f"{what} has a different structure on the two paths of tensor-dependent control "
                              f"flow ({_short(values[0])} vs {_short(values[1])})")
    merged, changed = [], False
    for column in zip(*(leaves for leaves, _ in flat)):
        first = column[0]
        if all(x is first for x in column) or (not any(is_dynamic(x) for x in column)
                                               and all(static_equal(first, x) for x in column)):
            merged.append(first)
            continue
        changed = True
        operands = tuple(_operand(b.builder, x, column[1 - i] if len(column) == 2 else first, what)
                         for i, (b, x) in enumerate(zip(branches, column)))
        merged.append(outputs.add(operands, what, column))
    return (structure, merged) if changed else None


def _short(value: Any) -> str:
    """The shape of a Python structure in words: `a tensor`, `a tuple of 2`, `a dict with keys ['a']`."""
    if isinstance(value, Tensor):
        return "a tensor"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    if isinstance(value, dict):
        keys = repr(list(value))
        return f"a dict with keys {keys if len(keys) < 40 else keys[:37] + '...'}"
    return _describe(value)


def _fill(plan: tuple, results: list[Tensor], interp: "Interpreter") -> Any:
    structure, leaves = plan
    return _rebuild(interp, structure, [results[x.index] if isinstance(x, _Slot) else x for x in leaves])


def _name(interp: "Interpreter", kind: str, node: ast.AST) -> str:
    return f"{interp.frame.name}_{kind}{node.lineno}"


# ---------------------------------------------------------------- if / conditional expression
def _check_pred(pred: Tensor) -> None:
    if pred.size != 1:
        raise ValueError(f"bool(Tensor) needs a tensor with one element, got shape {pred.shape}")


def _contains(stmts: list, kinds: tuple, stop: tuple = ()) -> ast.AST | None:
    """The first node of `kinds` in `stmts`, not looking inside nested functions (or `stop` node types)."""
    todo = list(stmts)
    while todo:
        node = todo.pop(0)
        if isinstance(node, kinds):
            return node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef) + stop):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return None


def _loop_jump(stmts: list) -> ast.AST | None:
    """A break/continue that would leave `stmts` (not one belonging to a loop inside them)."""
    return _contains(stmts, (ast.Break, ast.Continue), stop=(ast.For, ast.While, ast.AsyncFor))


def _cond_node(pred: Tensor, branches: list[Branch], outputs: _Outputs) -> list[Tensor]:
    """The Cond node over two interpreted branches; returns Tensors for its outputs."""
    parent = current_builder()
    extra = close_subgraphs([b.builder for b in branches], [[], []])
    for i, b in enumerate(branches):
        b.builder.graph.outputs = [ops[i] for ops in outputs.operands]
    results = [placeholder(a) for a in outputs.abstracts]
    if results or any(b.builder.graph.nodes for b in branches):
        parent.add_node(COND.make(parent.operand(pred), extra, branches[0].builder.graph, branches[1].builder.graph),
                        results)
    return results


def _merge_branches(interp: "Interpreter", node: ast.AST, pred: Tensor, branches: list[Branch], start_vars: dict,
                    *, value_what: str | None, keep_vars: bool) -> Any:
    """One Cond node for two interpreted branches; rebinds what they changed. Returns the merged value."""
    parent = current_builder()
    outputs = _Outputs(("then-branch", "else-branch"))
    line = getattr(node, "lineno", "?")
    value_plan = None
    if value_what is not None:
        value_plan = _merge_value(value_what, [b.value for b in branches], branches, outputs)
    var_plans: dict[str, Any] = {}
    if keep_vars:
        names = list(dict.fromkeys([*branches[0].vars, *branches[1].vars]))
        for name in names:
            values = [b.vars.get(name, _ABSENT) for b in branches]
            undefined = next((v for v in values if type(v) is Undefined), None)
            if undefined is not None:
                var_plans[name] = undefined
                continue
            if any(v is _ABSENT or type(v) is MaybeUnbound for v in values):
                var_plans[name] = _maybe_plan(interp, name, node, values, branches, outputs)
                continue
            plan = _merge_value(f"`{name}`", values, branches, outputs)
            if plan is not None:
                var_plans[name] = plan
            elif not _same_leaves(values[0], start_vars.get(name, _ABSENT)):
                var_plans[name] = values[0]
    objects = _written_objects(branches, start_vars, parent)
    first_object = len(outputs.operands)
    for obj in objects:
        what = f"the Parameter {obj.name}" if isinstance(obj, Parameter) else "a tensor written in place"
        outputs.add(tuple(b.builder.operand(obj) for b in branches), what)
    results = _cond_node(pred, branches, outputs)
    for obj, result in zip(objects, results[first_object:]):
        obj._rebind(result)
    aliases.cond_results(parent, pred, results, outputs.values)
    scope = interp.frame.scope
    for name, plan in var_plans.items():
        if type(plan) is tuple and len(plan) == 4:
            merged, like, defined, loc = plan
            value = _fill(merged, results, interp) if merged is not None else like
            scope.vars[name] = MaybeUnbound(name, value, results[defined.index], loc)
            continue
        scope.vars[name] = _fill(plan, results, interp) if type(plan) is tuple else plan
    return _fill(value_plan, results, interp) if value_plan is not None else (
        branches[0].value if value_what is not None else None)


_ABSENT = object()


def _maybe_plan(interp: "Interpreter", name: str, node: ast.AST, values: list, branches: list[Branch],
                outputs: _Outputs) -> tuple:
    """Merge a name some branches leave unassigned (absent, or a nested `if`'s `MaybeUnbound`): (its merge plan,
    or None: `like` on every path; the Cond output saying whether the path taken assigned it; where)."""
    plain = [v.value if type(v) is MaybeUnbound else v for v in values]
    like = next(v for v in plain if v is not _ABSENT)
    leaves, structure = flatten(like)
    stand_in = unflatten(structure, [_ZEROS if isinstance(x, Tensor) else x for x in leaves])
    plan = _merge_value(f"`{name}`", [stand_in if v is _ABSENT else v for v in plain], branches, outputs)
    flags = [b.builder.operand(v.defined) if type(v) is MaybeUnbound else Const(np.array(v is not _ABSENT))
             for b, v in zip(branches, values)]
    defined = outputs.add(tuple(flags), f"whether `{name}` is assigned")
    frame = interp.frame
    return plan, like, defined, SourceLoc(frame.filename, node.lineno, node.col_offset, None, frame.name)


def _same_leaves(a: Any, b: Any) -> bool:
    """`a` is `b`, or a copy of it (see `fork`) holding the same objects."""
    if a is b:
        return True
    if b is _ABSENT:
        return False
    (la, sa), (lb, sb) = flatten(a), flatten(b)
    return sa == sb and all(x is y for x, y in zip(la, lb))


def tensor_if(interp: "Interpreter", node: ast.If, pred: Tensor) -> None:
    """`if` on a tensor: a Cond node with both branches captured."""
    _check_pred(pred)
    jump = _loop_jump(node.body + node.orelse)
    if jump is not None:
        raise interp.unsupported(f"`{'break' if isinstance(jump, ast.Break) else 'continue'}` inside an `if` on a "
                                 f"tensor: the trip count of the loop would depend on data; compute a mask instead "
                                 f"(ops.where) or use a `while` loop on a tensor condition")
    start_vars = interp.frame.scope.vars
    if _contains(node.body + node.orelse, (ast.Return,)) is not None:
        _returning_if(interp, node, pred, start_vars)
        return
    branches = [run_branch(interp, _name(interp, kind, node), lambda body=body: interp.exec_block(body), start_vars)
                for kind, body in (("then", node.body), ("else", node.orelse))]
    _merge_branches(interp, node, pred, branches, start_vars, value_what=None, keep_vars=True)


def _returning_if(interp: "Interpreter", node: ast.If, pred: Tensor, start_vars: dict) -> None:
    """An `if` on a tensor with a `return` inside: each branch runs to the end of the function (the code after
    the `if` joins the branch that falls through), and the Cond's outputs are the function's result."""
    saved = list(interp.frame.rest)
    if LOOP in saved:
        raise interp.unsupported("`return` inside an `if` on a tensor, inside a loop, cannot be captured: where the "
                                 "function returns would depend on data at every iteration; keep the result in a "
                                 "variable and return after the loop")

    def branch(body: list) -> Callable[[], Any]:
        def run() -> Any:
            interp.frame.rest = list(saved)
            try:
                interp.exec_block(body)
                interp.run_continuation(saved)
            except Return as ret:
                return ret.value
        return run

    branches = [run_branch(interp, _name(interp, kind, node), branch(body), start_vars)
                for kind, body in (("then", node.body), ("else", node.orelse))]
    value = _merge_branches(interp, node, pred, branches, start_vars, value_what="the returned value",
                            keep_vars=False)
    raise Return(value)


def tensor_ifexp(interp: "Interpreter", node: ast.IfExp, pred: Tensor) -> Any:
    """`a if t else b` on a tensor: a Cond node over the two expressions."""
    _check_pred(pred)
    start_vars = interp.frame.scope.vars
    branches = [run_branch(interp, _name(interp, kind, node), lambda e=expr: interp.value_of(e), start_vars)
                for kind, expr in (("then", node.body), ("else", node.orelse))]
    for b in branches:
        if any(not _same_leaves(b.vars.get(k, _ABSENT), v) for k, v in start_vars.items()) or \
                len(b.vars) != len(start_vars):
            raise interp.unsupported("an assignment expression (`:=`) inside a conditional expression on a tensor "
                                     "cannot be captured")
    return _merge_branches(interp, node, pred, branches, start_vars, value_what="the conditional expression",
                           keep_vars=False)


def _is_bool(t: Tensor) -> bool:
    return np.dtype(t._data.dtype) == np.bool_


def tensor_not(value: Tensor) -> Tensor:
    """`not t` for a one-element tensor: a bool tensor (t == 0 for numbers, as Python's truthiness)."""
    _check_pred(value)
    return apply(M.LOGICAL_NOT, (value,)) if _is_bool(value) else apply(M.EQUAL, (value, 0))


def tensor_bool_op(is_and: bool, values: list) -> Tensor:
    """`a and b` / `a or b` where some operand is a tensor: logical_and / logical_or of one-element bool values."""
    operands = []
    for v in values:
        if is_dynamic(v):
            _check_pred(v)
            if not _is_bool(v):
                raise Unsupported(f"`{'and' if is_and else 'or'}` on a {v.dtype} tensor: its Python value would be "
                                  f"the tensor itself, not a bool; compare it explicitly (`x > 0`) or use "
                                  f"ops.logical_{'and' if is_and else 'or'}")
        elif not isinstance(v, (bool, np.bool_)):
            raise Unsupported(f"`{'and' if is_and else 'or'}` mixing a tensor with the {type(v).__name__} {v!r}: the "
                              f"result's Python value cannot be a graph value; use bools")
        operands.append(v)
    result = operands[0]
    prim = M.LOGICAL_AND if is_and else M.LOGICAL_OR
    for v in operands[1:]:
        result = apply(prim, (result, v))
    return result


# ---------------------------------------------------------------- loops
def _changed_leaves(before: dict, after: dict, exclude: set) -> tuple[dict, set]:
    """({(name, leaf index): new leaf} for leaves bound to something else, names assigned only in `after`)."""
    changed: dict = {}
    for name, old in before.items():
        if name in exclude or type(old) is Undefined:
            continue
        new = after.get(name, _ABSENT)
        if type(old) is MaybeUnbound and new is not old:
            raise Unsupported(old.reason)
        if new is _ABSENT:
            raise Unsupported(f"`{name}` is deleted inside a loop on a tensor")
        if type(new) is Undefined:
            raise Unsupported(new.reason)
        old_leaves, old_structure = flatten(old)
        new_leaves, new_structure = flatten(new)
        if old_structure != new_structure:
            raise Unsupported(f"`{name}` changes structure inside a loop on a tensor ({_short(old)} -> "
                              f"{_short(new)}), e.g. a list that grows; the number of iterations is only known at "
                              f"run time. Collect per-step tensors with a `for` loop over range(n) instead")
        for i, (a, b) in enumerate(zip(old_leaves, new_leaves)):
            if a is not b and (is_dynamic(a) or is_dynamic(b) or not static_equal(a, b)):
                changed[(name, i)] = b
    new_names = {name for name in after if name not in before and name not in exclude}
    return changed, new_names


def _carry_abstract(name: str, old: Any, new: Any) -> Abstract:
    if isinstance(old, Tensor):
        return abstract_of(old)
    if is_number(old):
        if isinstance(new, Tensor):
            return abstract_of(new)
        if is_number(new):
            return Abstract((), number_dtype(old, new).name)
    raise Unsupported(f"`{name}` changes inside a loop on a tensor, but it is {_describe(old)}; only tensors and "
                      f"numbers can be carried from one iteration to the next")


def _initial_operand(parent: GraphBuilder, old: Any, abstract: Abstract) -> Operand:
    if isinstance(old, Tensor):
        return parent.operand(old)
    return Const(np.full(abstract.shape, old, jnp.dtype(abstract.dtype)))


class _Loop:
    """Carried values of a loop on a tensor: found by interpreting the body, then fixed by re-interpreting it."""

    def __init__(self, interp: "Interpreter", node: ast.AST, kind: str, targets: set) -> None:
        self.interp, self.node, self.kind, self.targets = interp, node, kind, targets
        self.start_vars = interp.frame.scope.vars
        self.carried: dict = {}        # (name, leaf index) -> Abstract
        self.objects: list[Tensor] = []

    def _with(self, vars_: dict, replacements: dict) -> dict:
        out = dict(vars_)
        by_name: dict[str, dict] = {}
        for (name, i), value in replacements.items():
            by_name.setdefault(name, {})[i] = value
        for name, leaves_by_index in by_name.items():
            leaves, structure = flatten(out[name])
            leaves = [leaves_by_index.get(i, x) for i, x in enumerate(leaves)]
            out[name] = _rebuild(self.interp, structure, leaves)
        return out

    def discover(self, run_body: Callable[[], Any], bind_extra: Callable[[GraphBuilder], None]) -> None:
        probe = run_branch(self.interp, "probe", run_body, self.start_vars, bind_extra)
        changed, _ = _changed_leaves(self.start_vars, probe.vars, self.targets)
        self._grow(changed, probe)

    def _grow(self, changed: dict, branch: Branch) -> bool:
        grew = False
        for key, new in changed.items():
            if key not in self.carried:
                old = flatten(self.start_vars[key[0]])[0][key[1]]
                self.carried[key] = _carry_abstract(key[0], old, new)
                grew = True
        for obj in _written_objects([branch], self.start_vars, current_builder()):
            if all(obj is not o for o in self.objects):
                self.objects.append(obj)
                grew = True
        return grew

    def interpret(self, name: str, run: Callable[[], Any], extra_inputs: list[tuple[Tensor, str]]) -> tuple:
        """Interpret `run` with the carried values as fresh inputs; returns (branch, carry placeholders)."""
        holders = {key: placeholder(a) for key, a in self.carried.items()}

        def bind(child: GraphBuilder) -> None:
            for (var_name, _), ph in holders.items():
                child.add_input(ph, var_name)
            for obj in self.objects:
                child.add_input(obj, getattr(obj, "name", None))
            for t, label in extra_inputs:
                child.add_input(t, label)

        return run_branch(self.interp, name, run, self._with(self.start_vars, holders), bind), holders

    def settle(self, run_body: Callable[[], Any], extra_inputs: list[tuple[Tensor, str]]) -> tuple:
        """Re-interpret the body until every value it changes is carried."""
        for _ in range(MAX_LOOP_PASSES):
            body, holders = self.interpret(_name(self.interp, self.kind, self.node), run_body, extra_inputs)
            before = self._with(self.start_vars, holders)
            changed, _ = _changed_leaves(before, body.vars, self.targets)
            if not self._grow({k: v for k, v in changed.items() if k not in self.carried}, body):
                return body, holders
        raise Unsupported("the values a loop on a tensor changes keep growing as it is re-interpreted")

    def body_outputs(self, body: Branch, holders: dict) -> list[Operand]:
        outs = []
        for key, abstract in self.carried.items():
            leaves = flatten(body.vars[key[0]])[0]
            new = leaves[key[1]]
            operand = _operand(body.builder, new, holders[key], f"`{key[0]}`")
            if operand.abstract != abstract:
                raise Unsupported(f"`{key[0]}` is {abstract} before the loop but {operand.abstract} after one "
                                  f"iteration; a loop on a tensor must keep the shape and dtype of what it carries")
            outs.append(operand)
        for obj in self.objects:
            operand = body.builder.operand(obj)
            if operand.abstract != abstract_of(obj):
                raise Unsupported(f"the tensor {getattr(obj, 'name', '')} written in the loop changes from "
                                  f"{abstract_of(obj)} to {operand.abstract}")
            outs.append(operand)
        return outs

    def initial(self) -> list[Operand]:
        parent = current_builder()
        ops = [_initial_operand(parent, flatten(self.start_vars[name])[0][i], a)
               for (name, i), a in self.carried.items()]
        return ops + [parent.operand(obj) for obj in self.objects]

    def finish(self, results: list[Tensor], new_names: set, reason: str) -> None:
        """Bind the loop's results: carried variables, Tensors written in place, names the body created."""
        interp = self.interp
        scope = interp.frame.scope
        n = len(self.carried)
        vars_ = self._with(self.start_vars, dict(zip(self.carried, results[:n])))
        for obj, result in zip(self.objects, results[n:n + len(self.objects)]):
            obj._rebind(result)
        for name in new_names:
            vars_[name] = Undefined(f"`{name}` is assigned only inside the {reason} at line {self.node.lineno}; "
                                    f"assign it before the loop to use it afterwards")
        scope.vars.clear()
        scope.vars.update(vars_)


def _check_loop_body(interp: "Interpreter", node: ast.AST, what: str) -> None:
    found = _loop_jump(node.body) or _contains(node.body, (ast.Return,))
    if found is not None:
        keyword = {ast.Break: "break", ast.Continue: "continue", ast.Return: "return"}[type(found)]
        raise Unsupported(f"`{keyword}` inside {what}: the number of iterations would depend on data in a way a "
                          f"graph loop cannot express; use a `for` loop over range(n) with an `if` on the condition")


def tensor_while(interp: "Interpreter", node: ast.While, first_test: Tensor) -> None:
    """`while` on a tensor condition: a While node (cond and body subgraphs over the carried values)."""
    _check_pred(first_test)
    _check_loop_body(interp, node, "a `while` loop on a tensor")
    if _contains([node.test], (ast.NamedExpr,)) is not None:
        raise interp.unsupported("an assignment expression (`:=`) in the condition of a `while` loop on a tensor "
                                 "cannot be captured")
    loop = _Loop(interp, node, "while", set())
    run_body = lambda: interp.exec_block(node.body)  # noqa: E731
    loop.discover(run_body, None)
    body, holders = loop.settle(run_body, [])
    aliases.check_loop_writes(loop, body, holders)
    _, new_names = _changed_leaves(loop.start_vars, body.vars, set())
    body_outs = loop.body_outputs(body, holders)
    cond, cond_holders = loop.interpret(_name(interp, "while_cond", node), lambda: interp.value_of(node.test), [])
    test = cond.value
    if is_dynamic(test):
        _check_pred(test)
        cond.builder.graph.outputs = [cond.builder.operand(test)]
    else:
        cond.builder.graph.outputs = [Const(np.asarray(bool(test)))]
    carry_vars = [body.builder.graph.inputs[:len(body_outs)], cond.builder.graph.inputs[:len(body_outs)]]
    extra = close_subgraphs([body.builder, cond.builder], carry_vars)
    body.builder.graph.outputs = body_outs + body.builder.graph.inputs[len(body_outs):]
    parent = current_builder()
    initial = loop.initial()
    results = [placeholder(o.abstract) for o in initial] + [placeholder(o.abstract) for o in extra]
    parent.add_node(WHILE.make(initial + extra, cond.builder.graph, body.builder.graph), results)
    aliases.loop_results(loop, results, body, holders, ((first_test, False),))
    loop.finish(results, new_names, "`while` loop on a tensor")
    interp.exec_block(node.orelse)


def tensor_for(interp: "Interpreter", node: ast.For, xs: Tensor) -> None:
    """`for x in tensor`: a Scan node over the tensor's first axis, carrying what the body changes."""
    if xs.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    length = xs.shape[0]
    if length == 0:
        interp.exec_block(node.orelse)
        return
    _check_loop_body(interp, node, "a `for` loop over a tensor")
    targets = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    loop = _Loop(interp, node, "scan", targets)
    item_abstract = Abstract(tuple(xs.shape[1:]), abstract_of(xs).dtype)
    item = [placeholder(item_abstract)]

    def run_body() -> None:
        interp.assign(node.target, item[0])
        interp.exec_block(node.body)

    def bind_probe(child: GraphBuilder) -> None:
        child.add_input(item[0], "item")

    loop.discover(run_body, bind_probe)
    item[0] = placeholder(item_abstract)
    body, holders = loop.settle(run_body, [(item[0], "item")])
    aliases.check_loop_writes(loop, body, holders)
    _, new_names = _changed_leaves(loop.start_vars, body.vars, targets)
    body_outs = loop.body_outputs(body, holders)
    n_carry = len(body_outs)
    extra = close_subgraphs([body.builder], [body.builder.graph.inputs[:n_carry + 1]])
    body.builder.graph.outputs = body_outs
    parent = current_builder()
    initial = loop.initial()
    results = [placeholder(o.abstract) for o in initial]
    parent.add_node(SCAN.make(initial, [parent.operand(xs)], extra, body.builder.graph, length=length), results)
    aliases.loop_results(loop, results, body, holders, None)
    loop.finish(results, new_names, "`for` loop over a tensor")
    interp.assign(node.target, xs[length - 1])  # Python leaves the loop variable at the last item
    interp.exec_block(node.orelse)


# ---------------------------------------------------------------- print
