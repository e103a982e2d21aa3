"""msx's graph IR as plain data: `Graph`, `Node`, `Var`, `Const`, `Abstract`.

No jax objects live here (ARCHITECTURE rule 2): a graph can be printed,
compared, rewritten, verified and serialized without running anything.

A `Graph` has user `inputs`, the Parameters it reads (`params`, each a `Var`
named after the Parameter), `nodes` in program order, flat `outputs`, and
`updates`: the Parameters it writes, as (parameter name, value) pairs.
Higher-order nodes (`Grad`, `Cond`, `While`, `Scan`, `Call`) hold subgraphs
in `Node.subgraphs`. `Node.scope` is the path of the Cells whose `construct`
recorded it (attribute names, the outermost Cell by its class name), so a graph
view can fold nodes into their layers; it never affects meaning or equality.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np

from ..errors import SourceLoc


@dataclass(frozen=True)
class Abstract:
    """What is known of a value before running: its shape and dtype name (`"float32"`).

    `weak` marks the type of a Python scalar, as jax's `weak_type` does: its
    dtype is jax's for that scalar (msx runs jax with x64: `int64`,
    `float64`, `complex128`), but in arithmetic the other operand's dtype wins
    (`f32 * 2.0` stays `f32`). Only constants are weak; it prints as `~f64[]`.
    """

    shape: tuple
    dtype: str
    weak: bool = False

    def __str__(self) -> str:
        short = _SHORT.get(self.dtype, self.dtype)
        return f"{'~' if self.weak else ''}{short}[{','.join(str(d) for d in self.shape)}]"


_SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64", "int8": "i8", "int16": "i16",
          "int32": "i32", "int64": "i64", "uint8": "u8", "uint32": "u32", "bool": "bool", "complex64": "c64"}
# jax's dtype for a Python scalar with x64 on (weakly typed); a Python bool is strongly typed, as in jax
_WEAK = {int: "int64", float: "float64", complex: "complex128"}

_ids = itertools.count()


class Var:
    """One value in a graph, defined once (by an input, a parameter or a node output)."""

    __slots__ = ("abstract", "name", "id")

    def __init__(self, abstract: Abstract, name: str | None = None) -> None:
        self.abstract = abstract
        self.name = name
        self.id = next(_ids)

    def __repr__(self) -> str:
        return f"Var({self.name or self.id}: {self.abstract})"


@dataclass(frozen=True, eq=False)
class Const:
    """A constant operand: a Python scalar, or a numpy array (stored by value)."""

    value: Any

    @property
    def abstract(self) -> Abstract:
        v = self.value
        if isinstance(v, bool):
            return Abstract((), "bool")
        if type(v) in _WEAK:  # exactly a Python scalar: numpy's float64 (a float subclass) is strongly typed
            return Abstract((), _WEAK[type(v)], weak=True)
        arr = np.asarray(v)
        return Abstract(tuple(arr.shape), _dtype_name(arr.dtype))

    def same(self, other: "Const") -> bool:
        a, b = np.asarray(self.value), np.asarray(other.value)
        return type(self.value) is type(other.value) and a.shape == b.shape and a.dtype == b.dtype and \
            bool(np.array_equal(a, b, equal_nan=True))

    def __repr__(self) -> str:
        if isinstance(self.value, np.ndarray) and self.value.size > 4:
            return f"Const({Abstract(tuple(self.value.shape), _dtype_name(self.value.dtype))})"
        return repr(self.value.tolist() if isinstance(self.value, np.ndarray) else self.value)


Operand = Var | Const


def _dtype_name(dtype) -> str:
    name = np.dtype(dtype).name
    return "bool" if name == "bool" else name


# the attr `ops.Primitive.recompute(mode)` sets (MindSpore's own name for it): any first-order node may carry it,
# so it shows in the graph text, survives the passes and is part of every structural key (the executable cache's)
RECOMPUTE = "recompute"


@dataclass(eq=False)
class Node:
    """One operation: a registry primitive (`op` = its name) or a higher-order op over `subgraphs`."""

    op: str
    inputs: list[Operand]
    outputs: list[Var]
    attrs: dict = field(default_factory=dict)
    loc: SourceLoc | None = None
    subgraphs: dict[str, "Graph"] = field(default_factory=dict)
    scope: str = ""  # the Cell path it was recorded under ("SimpleNet/fc1"; "" outside any Cell)

    @property
    def recomputed(self) -> bool:
        """MindSpore's per-primitive recompute mark (`ops.Primitive.recompute()`, attr `recompute=True`): a
        gradient of the graph recomputes this node's outputs from its inputs instead of keeping them."""
        return self.attrs.get(RECOMPUTE) is True

    @property
    def op_attrs(self) -> dict:
        """The attrs the op's implementation takes: all but the recompute mark (which only the gradient reads)."""
        if RECOMPUTE not in self.attrs:
            return self.attrs
        return {k: v for k, v in self.attrs.items() if k != RECOMPUTE}

    @property
    def abstract(self) -> Abstract | tuple[Abstract, ...]:
        if len(self.outputs) == 1:
            return self.outputs[0].abstract
        return tuple(v.abstract for v in self.outputs)

    def __repr__(self) -> str:
        return f"Node({self.op}, {len(self.inputs)} in, {len(self.outputs)} out)"


def common_scope(scopes: list[str]) -> str:
    """The innermost Cell path that holds all of `scopes` ("" when they share none)."""
    parts = [s.split("/") if s else [] for s in scopes]
    common: list[str] = []
    for names in zip(*parts):
        if any(n != names[0] for n in names):
            break
        common.append(names[0])
    return "/".join(common)


@dataclass(eq=False)
class Graph:
    """A function graph: inputs and parameters in, outputs and parameter updates out."""

    name: str
    inputs: list[Var] = field(default_factory=list)
    params: list[Var] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    outputs: list[Operand] = field(default_factory=list)
    updates: list[tuple[str, Operand]] = field(default_factory=list)

    @property
    def param_names(self) -> list[str]:
        return [v.name for v in self.params]

    def subgraphs(self) -> Iterator["Graph"]:
        """Every subgraph, depth first."""
        for node in self.nodes:
            for sub in node.subgraphs.values():
                yield sub
                yield from sub.subgraphs()

    def primitives_used(self) -> set[str]:
        ops = {n.op for n in self.nodes}
        for sub in self.subgraphs():
            ops |= {n.op for n in sub.nodes}
        return ops

    def __str__(self) -> str:
        return _FORMAT[0](self)

    def structurally_equal(self, other: "Graph") -> bool:
        """Same ops, attrs, abstracts and wiring (names of intermediate values and locations don't matter).

        `==` and `hash` are identity (a Graph is mutable and used as a key); this is the structural question."""
        return isinstance(other, Graph) and _equal(self, other, {})


def _equal(a: Graph, b: Graph, env: dict[int, int]) -> bool:
    if len(a.inputs) != len(b.inputs) or len(a.params) != len(b.params) or len(a.nodes) != len(b.nodes):
        return False
    for x, y in zip(a.inputs + a.params, b.inputs + b.params):
        if x.abstract != y.abstract:
            return False
        env[x.id] = y.id
    if [v.name for v in a.params] != [v.name for v in b.params]:
        return False
    for n, m in zip(a.nodes, b.nodes):
        if n.op != m.op or not _attrs_equal(n.attrs, m.attrs) or len(n.outputs) != len(m.outputs):
            return False
        if not _operands_equal(n.inputs, m.inputs, env):
            return False
        if n.subgraphs.keys() != m.subgraphs.keys():
            return False
        if not all(_equal(n.subgraphs[k], m.subgraphs[k], env) for k in n.subgraphs):
            return False
        for x, y in zip(n.outputs, m.outputs):
            if x.abstract != y.abstract:
                return False
            env[x.id] = y.id
    if [k for k, _ in a.updates] != [k for k, _ in b.updates]:
        return False
    return _operands_equal(a.outputs, b.outputs, env) and _operands_equal([v for _, v in a.updates],
                                                                           [v for _, v in b.updates], env)


def _operands_equal(xs, ys, env) -> bool:
    if len(xs) != len(ys):
        return False
    for x, y in zip(xs, ys):
        if isinstance(x, Const) != isinstance(y, Const):
            return False
        if isinstance(x, Const):
            if not x.same(y):
                return False
        elif env.get(x.id) != y.id:
            return False
    return True


def _attrs_equal(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not np.array_equal(np.asarray(x), np.asarray(y)):
                return False
        elif x != y:
            return False
    return True


# `ir.printer.format_graph`, handed over by the printer at its import (msx.ir imports it): the printer reads
# Graph, so Graph takes its text form as a registration instead of importing the printer
_FORMAT: list = [lambda graph: f"<Graph {graph.name}>"]


def register_format(format_graph) -> None:
    """Called once by ir.printer: what `str(graph)` writes."""
    _FORMAT[0] = format_graph
