"""Reading MindSpore `.mindir` files into msx Graphs (no MindSpore needed, nothing in the file is run).

Three passes, each refusing a bad file before the next one starts:

1. **parse** — size limit, protobuf decoding (`mind_ir.proto`, msx's own copy);
   an msx-written file's SHA-256 (kept in `doc_string`) is checked.
2. **check** — every graph, node, primitive and name reference: unique names,
   exactly one output per node, inputs defined before use (a use before its
   definition is a cycle), references that resolve, and one pass collecting
   every op msx lacks, so the error lists them all with counts.
3. **convert** — MindIR's graphs are executed symbolically: Constant nodes
   give Python/numpy values, primitive calls go through the mapping table in
   `msx.ops.mindir_names`, state nodes (`Load`, `UpdateState`, `Depend`) and
   tuples disappear, a called `Switch` of two `Partial`s becomes a `Cond`
   node, a graph that calls itself through a `Switch` (MindSpore's `while`)
   becomes a `While` node, and other graph calls are inlined. Every node's
   result is checked against the type the file records for it, and the
   finished graph is verified (every shape re-inferred).
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field, fields
from typing import Any, Callable

import numpy as np
from google.protobuf.message import DecodeError

from ..fileread import open_regular, read_exact
from ..errors import MalformedFileError, MsxError, TruncatedFileError, VerifyError
from ..ir.control import COND, WHILE
from ..ir.graph import Abstract, Graph, Var
from ..ir.verifier import verify
from ..ops.mindir_names import READERS
from ..passes.base import apply_everywhere
from ..passes.dce import DeadCodeElimination
from . import mind_ir_pb2 as pb
from .build import Budget, GraphBuilder, close_over
from .errors import UnsupportedMindIRError
from .proto import MONAD, TENSOR_DTYPES, A, attribute_value, attributes, dims_of, dtype_of, tensor_value

MAX_FILE_BYTES = (1 << 31) - 1  # protobuf's own limit for one message
MAX_GRAPHS = 10_000
MAX_FILE_NODES = 1_000_000
MAX_INLINE_DEPTH = 200
DIGEST_PREFIX = "msx-sha256:"

STRUCTURAL = ("Load", "UpdateState", "Depend", "MakeTuple", "make_tuple", "TupleGetItem", "tuple_getitem",
              "MakeList", "make_list", "ListGetItem", "list_getitem", "Partial", "Switch")


# ---------------------------------------------------------------- symbolic values
@dataclass(frozen=True)
class GraphRef:
    name: str


@dataclass(frozen=True)
class PartialValue:
    fn: Any
    args: tuple


@dataclass(frozen=True)
class SwitchValue:
    pred: Any
    on_true: Any
    on_false: Any


@dataclass(frozen=True)
class TailCall:
    args: tuple


class Lazy:
    """A value computed only if something uses it (LayerNorm's mean and rstd outputs)."""

    def __init__(self, thunk: Callable[[], tuple], index: int, cache: dict) -> None:
        self.thunk, self.index, self.cache = thunk, index, cache

    def force(self):
        if "values" not in self.cache:
            self.cache["values"] = self.thunk()
        return self.cache["values"][self.index]


def force(x):
    return x.force() if isinstance(x, Lazy) else x


def is_tensor(x) -> bool:
    return isinstance(x, (Var, np.ndarray))


def abstract_of(x) -> Abstract:
    if isinstance(x, Var):
        return x.abstract
    arr = np.asarray(x)
    return Abstract(tuple(arr.shape), arr.dtype.name)


def as_array(x) -> np.ndarray:
    """A Python scalar as the array MindSpore would make of it (int64, float32, bool)."""
    if isinstance(x, bool):
        return np.asarray(x)
    if isinstance(x, int):
        return np.asarray(x, np.int64)
    return np.asarray(x, np.float32)


@dataclass(eq=False)
class LoadedMindIR(Graph):
    """A Graph read from a `.mindir` file, with its weights (`nn.GraphCell(graph)` runs it)."""

    weights: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    requires_grad: dict[str, bool] = field(default_factory=dict, repr=False)
    manifest: dict = field(default_factory=dict, repr=False)


# ---------------------------------------------------------------- pass 1: parse
def parse(path: str, max_bytes: int = MAX_FILE_BYTES) -> pb.ModelProto:
    f, size = open_regular(path, "MindIR file")  # a device or a pipe has no size to check: refused unread
    with f:
        if size > max_bytes:
            raise MalformedFileError(f"{path} is {size} bytes, more than the {max_bytes} msx reads as MindIR")
        blob = read_exact(f, size, path, "the MindIR model")
    return parse_bytes(blob, path)


def parse_bytes(blob: bytes, path: str = "<bytes>") -> pb.ModelProto:
    if not blob:
        raise TruncatedFileError(f"{path} is empty")
    model = pb.ModelProto()
    try:
        model.ParseFromString(blob)
    except (DecodeError, RecursionError, ValueError) as exc:
        raise MalformedFileError(f"{path} is not a valid MindIR file (protobuf decoding failed: {exc}); it is "
                                 f"truncated or corrupted") from None
    _check_strings(model, path)
    if model.doc_string.startswith(DIGEST_PREFIX) or model.producer_name == "msx":
        _check_digest(model, path)
        if model.SerializeToString(deterministic=True) != blob:  # msx writes the canonical encoding only
            raise MalformedFileError(f"{path}: the bytes are not the encoding msx wrote; the file is corrupted")
    return model


def _check_strings(msg, path: str) -> None:
    """proto2 does not validate UTF-8: a corrupted name comes back as bytes. Refuse it here, once."""
    for fd, value in msg.ListFields():
        repeated = fd.is_repeated if hasattr(fd, "is_repeated") else fd.label == fd.LABEL_REPEATED
        values = value if repeated else (value,)
        if fd.type == fd.TYPE_STRING:
            if not all(isinstance(v, str) for v in values):
                raise MalformedFileError(f"{path}: field {fd.full_name} is not valid UTF-8; the file is corrupted")
        elif fd.type == fd.TYPE_MESSAGE:
            for sub in values:
                _check_strings(sub, path)


def digest(model: pb.ModelProto) -> str:
    """SHA-256 of the model serialized without its doc_string (where an msx-written file keeps the digest)."""
    copy = pb.ModelProto()
    copy.CopyFrom(model)
    copy.ClearField("doc_string")
    return hashlib.sha256(copy.SerializeToString(deterministic=True)).hexdigest()


def _check_digest(model: pb.ModelProto, path: str) -> None:
    recorded = model.doc_string[len(DIGEST_PREFIX):] if model.doc_string.startswith(DIGEST_PREFIX) else None
    if digest(model) != recorded:
        raise MalformedFileError(f"{path}: the model does not match the SHA-256 msx recorded when it wrote the file; "
                                 f"the file is corrupted")


# ---------------------------------------------------------------- pass 2: check
@dataclass
class Index:
    """Name tables of a checked model."""

    graphs: dict[str, pb.GraphProto]
    prims: dict[str, pb.PrimitiveProto]
    defined_in: dict[str, str]                 # value name -> graph defining it
    switch_calls: dict[str, int]               # graph -> index of its final `call(Switch(...))` node
    calls: dict[str, set[str]]                 # graph -> graphs it references


def check(model: pb.ModelProto, path: str) -> Index:
    def bad(msg: str) -> MalformedFileError:
        return MalformedFileError(f"{path}: {msg}")

    if not model.HasField("graph"):
        raise bad("no main graph (the file is truncated or not a MindIR model)")
    if len(model.primitives) and not model.HasField("mind_ir_version"):
        raise TruncatedFileError(f"{path} ends before its mind_ir_version field: the file is truncated")
    graphs: dict[str, pb.GraphProto] = {}
    for g in [model.graph, *model.functions]:
        if not g.name or g.name in graphs:
            raise bad(f"graph name {g.name!r} is empty or used twice")
        graphs[g.name] = g
    if len(graphs) > MAX_GRAPHS:
        raise bad(f"{len(graphs)} graphs, more than {MAX_GRAPHS}")
    if sum(len(g.node) for g in graphs.values()) > MAX_FILE_NODES:
        raise bad(f"more than {MAX_FILE_NODES} nodes")
    prims: dict[str, pb.PrimitiveProto] = {}
    for p in model.primitives:
        if not p.name or p.name in prims or not p.op_type:
            raise bad(f"primitive {p.name!r} has no op type, or its name is empty or used twice")
        prims[p.name] = p
    defined_in: dict[str, str] = {}
    for g in graphs.values():
        for name in [v.name for v in g.input] + [t.name for t in g.parameter] + [o for n in g.node for o in n.output]:
            if not name or name in defined_in or name in graphs:
                raise bad(f"graph {g.name}: value name {name!r} is empty or defined twice")
            defined_in[name] = g.name
    switch_calls, calls = {}, {}
    unsupported: dict[str, list] = {}
    for g in graphs.values():
        calls[g.name] = _check_graph(g, graphs, prims, defined_in, bad, unsupported)
        found = _final_switch_call(g, prims)
        if found is not None:
            switch_calls[g.name] = found
    if unsupported:
        total = sum(c for c, _ in unsupported.values())
        listing = ", ".join(f"{op} ({c} node{'s' * (c > 1)}, first {node})" for op, (c, node) in
                            sorted(unsupported.items()))
        raise UnsupportedMindIRError(f"{path}: {total} node(s) use {len(unsupported)} MindSpore op(s) msx cannot run: "
                                     f"{listing}", {k: (c, n) for k, (c, n) in unsupported.items()})
    return Index(graphs, prims, defined_in, switch_calls, calls)


def _check_graph(g, graphs, prims, defined_in, bad, unsupported) -> set[str]:
    seen = {v.name for v in g.input} | {t.name for t in g.parameter}
    for t in g.parameter:
        where = f"graph {g.name}: parameter {t.name}"
        dtype_of(t.data_type, where), dims_of(t, where)
    refs: set[str] = set()

    def resolve(name: str, where: str) -> None:
        if name in seen or name in graphs:
            if name in graphs:
                refs.add(name)
            return
        owner = defined_in.get(name)
        if owner is None:
            raise bad(f"{where} uses {name!r}, which nothing in the file defines (a dangling input)")
        if owner == g.name:
            raise bad(f"{where} uses {name!r} before the node that defines it (a cycle, or misordered nodes)")

    for n in g.node:
        where = f"graph {g.name}: node {n.name or '?'}"
        if len(n.output) != 1:
            raise bad(f"{where} has {len(n.output)} outputs; MindIR nodes have one")
        for x in n.input:
            resolve(x, where)
        op = n.op_type
        if op == "Constant":
            if len(n.attribute) < 1 or n.attribute[0].name != "value":
                raise bad(f"{where}: a Constant needs a 'value' attribute")
            if n.attribute[0].type in (A.FUNCGRAPHCLOSURE, A.GRAPH):
                ref = n.attribute[0].s.decode("utf-8", "replace")
                if ref not in graphs:
                    raise bad(f"{where}: refers to graph {ref!r}, which the file lacks")
                refs.add(ref)
        elif op.startswith("REF::"):
            target = op[5:]
            if target in prims:
                name = prims[target].op_type
                if name not in READERS and name not in STRUCTURAL:
                    count, first = unsupported.get(name, (0, n.name))
                    unsupported[name] = (count + 1, first)
            else:
                resolve(target, where)
        elif not op:
            raise bad(f"{where} has no op_type")
        elif op not in READERS and op not in STRUCTURAL:
            count, first = unsupported.get(op, (0, n.name))
            unsupported[op] = (count + 1, first)
        seen.add(n.output[0])
    if len(g.output) != 1:
        raise bad(f"graph {g.name} has {len(g.output)} outputs; MindIR graphs return one value")
    resolve(g.output[0].name, f"graph {g.name}: its output")
    return refs


def _final_switch_call(g: pb.GraphProto, prims) -> int | None:
    """Index of the node `call(Switch(...))` whose value the graph returns (through Depends), if any."""
    by_output = {n.output[0]: (i, n) for i, n in enumerate(g.node)}
    name = g.output[0].name
    for _ in range(len(g.node) + 1):
        if name not in by_output:
            return None
        i, n = by_output[name]
        target = n.op_type[5:] if n.op_type.startswith("REF::") else None
        prim = prims.get(target)
        if prim is not None and prim.op_type == "Depend" and n.input:
            name = n.input[0]
            continue
        if target in by_output:
            callee = by_output[target][1]
            cprim = prims.get(callee.op_type[5:]) if callee.op_type.startswith("REF::") else None
            if cprim is not None and cprim.op_type == "Switch":
                return i
        return None
    return None


def op_census(model: pb.ModelProto) -> dict[str, int]:
    """How many nodes call each MindSpore op, over every graph of the model."""
    prims = {p.name: p.op_type for p in model.primitives}
    counts: dict[str, int] = {}
    for g in [model.graph, *model.functions]:
        for n in g.node:
            if n.op_type == "Constant":
                continue
            target = n.op_type[5:] if n.op_type.startswith("REF::") else n.op_type
            name = prims.get(target, target if not n.op_type.startswith("REF::") else None)
            if name is not None:
                counts[name] = counts.get(name, 0) + 1
    return counts


def supported(op: str) -> bool:
    return op in READERS or op in STRUCTURAL


def _reaches(index: Index, start: str, goal: str) -> bool:
    todo, seen = [start], set()
    while todo:
        g = todo.pop()
        if g == goal:
            return True
        if g in seen:
            continue
        seen.add(g)
        todo.extend(index.calls.get(g, ()))
    return False


# ---------------------------------------------------------------- pass 3: convert
class Frame:
    """One execution of one MindIR graph: its values by name; free names are looked up in the caller."""

    def __init__(self, builder: GraphBuilder, parent: "Frame | None") -> None:
        self.builder = builder
        self.parent = parent
        self.env: dict[str, Any] = {}

    def lookup(self, name: str, converter: "Converter") -> Any:
        frame = self
        while frame is not None:
            if name in frame.env:
                return frame.env[name]
            frame = frame.parent
        if name in converter.index.graphs:
            return GraphRef(name)
        if name in converter.params:
            return converter.params[name]
        raise MalformedFileError(f"{converter.path}: {name!r} is used where it is not defined")


class OpContext:
    """What a mapping-table entry (`msx.ops.mindir_names.READERS`) sees of the node it converts."""

    def __init__(self, builder: GraphBuilder, op_name: str, attrs: dict, where: str, node_name: str) -> None:
        self.builder, self.op_name, self.attrs, self.where, self.node_name = builder, op_name, attrs, where, node_name

    def op(self, name: str, *inputs, **attrs):
        ins = []
        for x in inputs:
            x = force(x)
            if not (is_tensor(x) or isinstance(x, (bool, int, float))):
                self.unsupported(f"an input of {name} is {type(x).__name__} {x!r}, not a tensor")
            ins.append(x)
        return self.builder.primitive(name, ins, attrs, self.where)

    def static(self, value, what: str):
        value = force(value)
        if isinstance(value, Var):
            self.unsupported(f"its {what} is computed at run time; msx needs it constant")
        if isinstance(value, np.ndarray):
            return value.item() if value.ndim == 0 else tuple(value.tolist())
        if isinstance(value, tuple):
            return tuple(self.static(v, what) for v in value)
        return value

    def abstract(self, value) -> Abstract:
        return abstract_of(force(value))

    def lazy(self, thunk: Callable[[], tuple], n: int) -> tuple:
        cache: dict = {}
        return tuple(Lazy(thunk, i, cache) for i in range(n))

    def unsupported(self, reason: str):
        raise UnsupportedMindIRError(f"{self.where}: {self.op_name}: {reason}", {self.op_name: (1, self.node_name)})


class Converter:
    def __init__(self, model: pb.ModelProto, index: Index, path: str, name: str) -> None:
        self.model, self.index, self.path, self.name = model, index, path, name
        self.budget = Budget()
        self.params: dict[str, Var] = {}          # MindIR parameter name -> top-level Var
        self.by_key: dict[str, Var] = {}          # ref_key -> Var
        self.weights: dict[str, np.ndarray] = {}
        self.inlining: list[str] = []
        self.loops: list[str] = []
        self.counter = 0
        self.top = GraphBuilder(name, self.budget)

    # ------------------------------------------------------------ entry
    def run(self) -> Graph:
        main = self.index.graphs[self.model.graph.name]
        for g in self.index.graphs.values():
            for t in g.parameter:
                self._param(t, g.name)
        args = []
        for vi in main.input:
            abstract = self._value_info(vi, f"graph {main.name}: input {vi.name}")
            if abstract is None:
                raise MalformedFileError(f"{self.path}: main graph input {vi.name!r} is not a tensor of static shape")
            args.append(self.top.input(abstract, _short(vi.name)))
        result = self._inline(main.name, args, None, self.top)
        self.top.graph.outputs = [self.top.local(x) for x in self._leaves(result, f"graph {main.name}: its output")[0]]
        return self.top.graph

    def _param(self, t: pb.TensorProto, graph: str) -> None:
        where = f"graph {graph}: parameter {t.name}"
        key = t.ref_key or _short(t.name)
        value = tensor_value(t, where)
        v = self.by_key.get(key)
        if v is None:
            v = self.top.param(abstract_of(value), key)
            self.by_key[key] = v
            self.weights[key] = value.copy()
        elif v.abstract != abstract_of(value):
            raise MalformedFileError(f"{self.path}: {where}: parameter {key!r} is {abstract_of(value)} here and "
                                     f"{v.abstract} elsewhere")
        self.params[t.name] = v

    def _value_info(self, vi: pb.ValueInfoProto, where: str) -> Abstract | None:
        if len(vi.tensor) != 1:
            return None
        t = vi.tensor[0]
        return Abstract(dims_of(t, where), dtype_of(t.data_type, where).name)

    # ------------------------------------------------------------ graphs
    def call_graph(self, name: str, args: list, frame: Frame | None, builder: GraphBuilder, where: str):
        if self.loops and self.loops[-1] == name:
            return TailCall(tuple(args))
        if name in self.inlining:
            raise UnsupportedMindIRError(f"{self.path}: {where}: graph {name} calls itself in a form msx cannot "
                                         f"turn into a loop", {"recursion": (1, name)})
        if name in self.index.switch_calls and self._loop_branch(name) is not None:
            return self._while(name, args, frame, builder, where)
        return self._inline(name, args, frame, builder)

    def _enter(self, name: str) -> None:
        if len(self.inlining) >= MAX_INLINE_DEPTH:
            raise MalformedFileError(f"{self.path}: graph calls nest more than {MAX_INLINE_DEPTH} deep")
        self.inlining.append(name)

    def _bind(self, name: str, args: list, frame: Frame | None, builder: GraphBuilder) -> Frame:
        g = self.index.graphs[name]
        if len(args) != len(g.input):
            raise MalformedFileError(f"{self.path}: graph {name} takes {len(g.input)} argument(s), is called with "
                                     f"{len(args)}")
        fr = Frame(builder, frame)
        for vi, a in zip(g.input, args):
            expected = self._value_info(vi, f"graph {name}: input {vi.name}")
            a = force(a)
            if expected is not None and is_tensor(a) and abstract_of(a) != expected:
                raise MalformedFileError(f"{self.path}: graph {name}: input {_short(vi.name)} is declared "
                                         f"{expected} but receives {abstract_of(a)}")
            fr.env[vi.name] = a
        return fr

    def _inline(self, name: str, args: list, frame: Frame | None, builder: GraphBuilder):
        self._enter(name)
        try:
            fr = self._bind(name, args, frame, builder)
            g = self.index.graphs[name]
            for node in g.node:
                self._node(fr, g, node)
            return fr.lookup(g.output[0].name, self)
        finally:
            self.inlining.pop()

    # ------------------------------------------------------------ nodes
    def _node(self, fr: Frame, g: pb.GraphProto, node: pb.NodeProto) -> None:
        where = f"graph {g.name}: node {node.name}"
        op = node.op_type
        if op == "Constant":
            value = attribute_value(node.attribute[0], where)
            if isinstance(value, tuple) and len(value) == 2 and value[0] == "graph" and \
                    node.attribute[0].type in (A.FUNCGRAPHCLOSURE, A.GRAPH):
                value = GraphRef(value[1])
        else:
            args = [fr.lookup(x, self) for x in node.input]
            target = op[5:] if op.startswith("REF::") else None
            if target is None:
                value = self._primitive(fr, op, attributes(node.attribute, where, ("input_names", "output_names",
                                                                                     "shape")), args, where, node)
            elif target in self.index.prims:
                prim = self.index.prims[target]
                value = self._primitive(fr, prim.op_type, attributes(prim.attribute, f"primitive {prim.name}"), args,
                                        where, node)
            elif target in self.index.graphs:
                value = self.call_graph(target, args, fr, fr.builder, where)
            else:
                value = self.call_value(fr.lookup(target, self), args, fr, where)
        self._check_type(node, value, where)
        fr.env[node.output[0]] = value

    def _check_type(self, node: pb.NodeProto, value, where: str) -> None:
        for a in node.attribute:
            if a.name == "shape":
                expected = _recorded_type(a, where)
                if not _type_matches(expected, value):
                    raise MalformedFileError(f"{self.path}: {where}: the file records its result as "
                                             f"{_show(expected)}, msx computes {_show_value(value)}")
                return

    def _primitive(self, fr: Frame, op: str, attrs: dict, args: list, where: str, node) -> Any:
        if op in ("Load", "Depend"):
            return self._arg0(args, op, where)
        if op == "UpdateState":
            return MONAD
        if op in ("MakeTuple", "make_tuple", "MakeList", "make_list"):
            return tuple(args)
        if op in ("TupleGetItem", "tuple_getitem", "ListGetItem", "list_getitem"):
            if len(args) != 2 or not isinstance(args[0], tuple) or not isinstance(args[1], int) or \
                    not -len(args[0]) <= args[1] < len(args[0]):
                raise MalformedFileError(f"{self.path}: {where}: {op} needs a tuple and an index within it, got "
                                         f"{_show_value(args[0]) if args else '()'} and {args[1:]!r}")
            return args[0][args[1]]
        if op == "Partial":
            if not args:
                raise MalformedFileError(f"{self.path}: {where}: Partial of nothing")
            return PartialValue(args[0], tuple(args[1:]))
        if op == "Switch":
            if len(args) != 3:
                raise MalformedFileError(f"{self.path}: {where}: Switch takes 3 inputs, got {len(args)}")
            pred = force(args[0])
            static = _static_bool(pred)
            if static is not None:
                return args[1] if static else args[2]
            return SwitchValue(pred, args[1], args[2])
        ctx = OpContext(fr.builder, op, attrs, f"{self.path}: {where}", node.name)
        tensor_args = [a for a in args if a is not MONAD]
        try:
            return READERS[op](ctx, *tensor_args)
        except MsxError:
            raise
        except (TypeError, ValueError, IndexError, KeyError, AttributeError, OverflowError) as exc:
            # the file gave the op inputs of a kind or number it does not take
            raise MalformedFileError(f"{self.path}: {where}: {op} cannot take its inputs "
                                     f"({', '.join(_show_value(a) for a in tensor_args)}): {exc}") from None

    def _arg0(self, args: list, op: str, where: str):
        if not args:
            raise MalformedFileError(f"{self.path}: {where}: {op} needs an input")
        return args[0]

    # ------------------------------------------------------------ calls and control flow
    def call_value(self, fn, args: list, frame: Frame, where: str):
        fn = force(fn)
        if isinstance(fn, GraphRef):
            return self.call_graph(fn.name, args, frame, frame.builder, where)
        if isinstance(fn, PartialValue):
            return self.call_value(fn.fn, list(fn.args) + list(args), frame, where)
        if isinstance(fn, SwitchValue):
            return self._cond(fn, args, frame, where)
        raise MalformedFileError(f"{self.path}: {where} calls {_show_value(fn)}, which is not a function")

    def _fresh(self, kind: str) -> str:
        self.counter += 1
        return f"{self.name}_{kind}{self.counter}"

    def _cond(self, sw: SwitchValue, args: list, frame: Frame, where: str):
        parent = frame.builder
        name = self._fresh("if")
        builders, trees = [], []
        for branch, tag in ((sw.on_true, "then"), (sw.on_false, "else")):
            sb = GraphBuilder(f"{name}_{tag}", self.budget, parent)
            value = self.call_value(branch, args, Frame(sb, frame), where)
            leaves, tree = self._leaves(value, f"{where}: the {tag} branch")
            sb.graph.outputs = [sb.local(x) for x in leaves]
            builders.append(sb)
            trees.append(tree)
        then_t, else_t = (tuple(abstract_of(o) for o in b.graph.outputs) for b in builders)
        if trees[0] != trees[1] or then_t != else_t:
            raise UnsupportedMindIRError(f"{self.path}: {where}: the branches of an if return different things "
                                         f"({_show_types(then_t)} vs {_show_types(else_t)})",
                                         {"Switch": (1, where)})
        captured = close_over(builders, explicit=0)
        outs = parent.add_made(COND.make(sw.pred, captured, builders[0].graph, builders[1].graph,
                                         outputs=list(then_t)), where)
        return _rebuild(trees[0], iter(outs))

    def _loop_branch(self, name: str) -> bool | None:
        """True/False: which Switch branch of graph `name` loops back to it; None if neither or both do."""
        g = self.index.graphs[name]
        call = g.node[self.index.switch_calls[name]]
        by_output = {n.output[0]: n for n in g.node}
        switch = by_output[call.op_type[5:]]
        looping = []
        for x in switch.input[1:3]:
            partial = by_output.get(x)
            targets = [x] if x in self.index.graphs else \
                [i for i in (partial.input if partial is not None else ()) if i in self.index.graphs][:1]
            looping.append(bool(targets) and _reaches(self.index, targets[0], name))
        if len(looping) != 2 or looping[0] == looping[1]:
            return None
        return looping[0]

    def _header(self, name: str, args: list, frame: Frame | None, builder: GraphBuilder):
        """Run a loop header's nodes up to its final Switch call: (pred, loop closure, exit closure, call args)."""
        g = self.index.graphs[name]
        stop = self.index.switch_calls[name]
        self._enter(name)
        try:
            fr = self._bind(name, args, frame, builder)
            for node in g.node[:stop]:
                self._node(fr, g, node)
            call = g.node[stop]
            sw = force(fr.lookup(call.op_type[5:], self))
            call_args = [fr.lookup(x, self) for x in call.input]
        finally:
            self.inlining.pop()
        if not isinstance(sw, SwitchValue):
            raise UnsupportedMindIRError(f"{self.path}: graph {name}: its loop condition is constant here; msx "
                                         f"reads while loops whose condition is a tensor", {"while": (1, name)})
        loops_on_true = self._loop_branch(name)
        pred = sw.pred
        if not loops_on_true:
            pred = builder.primitive("LogicalNot", [pred], {}, f"graph {name}")
        loop, exit_ = (sw.on_true, sw.on_false) if loops_on_true else (sw.on_false, sw.on_true)
        return pred, loop, exit_, call_args

    def _while(self, name: str, args: list, frame: Frame | None, builder: GraphBuilder, where: str):
        args = [force(a) for a in args]
        carried = [i for i, a in enumerate(args) if is_tensor(a)]
        init = [args[i] for i in carried]

        def bind(values: list) -> list:
            out = list(args)
            for i, v in zip(carried, values):
                out[i] = v
            return out

        loop_name = self._fresh("while")
        cb = GraphBuilder(f"{loop_name}_cond", self.budget, builder)
        cvars = [cb.input(abstract_of(v)) for v in init]
        pred, _, _, _ = self._header(name, bind(cvars), frame, cb)
        cb.graph.outputs = [cb.local(force(pred))]

        bb = GraphBuilder(f"{loop_name}_body", self.budget, builder)
        bvars = [bb.input(abstract_of(v)) for v in init]
        _, loop, _, call_args = self._header(name, bind(bvars), frame, bb)
        self.loops.append(name)
        try:
            result = force(self.call_value(loop, call_args, Frame(bb, frame), where))
        finally:
            self.loops.pop()
        if not isinstance(result, TailCall):
            raise UnsupportedMindIRError(f"{self.path}: {where}: the body of loop {name} does not end by calling "
                                         f"{name} again", {"while": (1, name)})
        new = [force(a) for a in result.args]
        if len(new) != len(args):
            raise MalformedFileError(f"{self.path}: {where}: loop {name} calls itself with {len(new)} argument(s), "
                                     f"it takes {len(args)}")
        for i, (old, nxt) in enumerate(zip(args, new)):
            if i in carried:
                if not is_tensor(nxt) or abstract_of(nxt) != abstract_of(old):
                    raise UnsupportedMindIRError(
                        f"{self.path}: {where}: loop {name} changes argument {i} from {_show_value(old)} to "
                        f"{_show_value(nxt)}; msx loops keep each value's shape and dtype", {"while": (1, name)})
            elif not (nxt is old or (nxt is MONAD and old is MONAD) or _same_static(nxt, old)):
                raise UnsupportedMindIRError(f"{self.path}: {where}: loop {name} changes its non-tensor argument "
                                             f"{i} ({old!r} -> {nxt!r})", {"while": (1, name)})
        bb.graph.outputs = [bb.local(new[i]) for i in carried]
        captured = close_over([cb, bb], explicit=len(init))
        bb.graph.outputs += bb.graph.inputs[len(init):]
        abstracts = [abstract_of(v) for v in init] + [abstract_of(c) for c in captured]
        outs = builder.add_made(WHILE.make(init + captured, cb.graph, bb.graph, outputs=abstracts), where)
        _, _, exit_, call_args = self._header(name, bind(outs[:len(init)]), frame, builder)
        return self.call_value(exit_, call_args, Frame(builder, frame), where)

    # ------------------------------------------------------------ results
    def _leaves(self, value, where: str) -> tuple[list, Any]:
        """Flatten a (nested tuple) result into tensor leaves and a tree; statics stay in the tree."""
        value = force(value)
        if isinstance(value, tuple):
            leaves, trees = [], []
            for v in value:
                sub, tree = self._leaves(v, where)
                leaves += sub
                trees.append(tree)
            return leaves, ("tuple", tuple(trees))
        if isinstance(value, (bool, int, float)):
            value = as_array(value)
        if is_tensor(value):
            return [value], ("leaf",)
        if value is MONAD or value is None:
            return [], ("static", repr(value))
        raise UnsupportedMindIRError(f"{self.path}: {where} is {_show_value(value)}, not tensors",
                                     {"output": (1, where)})


def _rebuild(tree, outs):
    kind = tree[0]
    if kind == "leaf":
        return next(outs)
    if kind == "tuple":
        return tuple(_rebuild(t, outs) for t in tree[1])
    return MONAD if tree[1] == "U" else None


def _static_bool(pred) -> bool | None:
    if isinstance(pred, (bool, int, np.bool_)):
        return bool(pred)
    if isinstance(pred, np.ndarray) and pred.size == 1:
        return bool(pred.reshape(()))
    return None


def _same_static(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _recorded_type(a: pb.AttributeProto, where: str, depth: int = 0):
    """The type a node's "shape" attribute records: an Abstract, a tuple of them, or None (not checked)."""
    if depth > 32:
        raise MalformedFileError(f"{where}: its recorded type is nested too deep")
    if a.type == A.TENSORS and len(a.tensors) == 1:
        t = a.tensors[0]
        if any(d < 0 for d in t.dims) or t.data_type not in TENSOR_DTYPES:
            return None
        return Abstract(tuple(int(d) for d in t.dims), TENSOR_DTYPES[t.data_type].name)
    if a.type == A.TUPLE:
        return tuple(_recorded_type(v, where, depth + 1) for v in a.values)
    return None


def _type_matches(expected, value) -> bool:
    value = value.force() if isinstance(value, Lazy) and "values" in value.cache else value
    if expected is None or isinstance(value, Lazy):
        return True
    if isinstance(expected, Abstract):
        if is_tensor(value):
            return abstract_of(value) == expected
        return not isinstance(value, tuple)
    if isinstance(value, tuple):
        return len(value) == len(expected) and all(_type_matches(e, v) for e, v in zip(expected, value))
    return True


def _show(expected) -> str:
    if isinstance(expected, tuple):
        return "(" + ", ".join(_show(e) for e in expected) + ")"
    return str(expected) if expected is not None else "?"


def _show_value(value) -> str:
    value = force(value)
    if is_tensor(value):
        return str(abstract_of(value))
    if isinstance(value, tuple):
        return "(" + ", ".join(_show_value(v) for v in value) + ")"
    if isinstance(value, (GraphRef, PartialValue, SwitchValue)):
        return type(value).__name__
    return repr(value)


def _show_types(abstracts) -> str:
    return f"{len(abstracts)} tensor(s) {', '.join(map(str, abstracts))}"


def _short(name: str) -> str:
    """`"30_1___main___MLP_construct_14:fc1.weight"` -> `"fc1.weight"`."""
    return name.rsplit(":", 1)[-1] or name


def load_mindir(path: str | os.PathLike, max_bytes: int = MAX_FILE_BYTES) -> LoadedMindIR:
    """Read a `.mindir` file into a `LoadedMindIR`; raises a `LoadError` subclass naming what is wrong."""
    path = os.fspath(path)
    model = parse(path, max_bytes)
    index = check(model, path)
    name = os.path.splitext(os.path.basename(path))[0] or "mindir"
    converter = Converter(model, index, path, name)
    graph = apply_everywhere(DeadCodeElimination(), converter.run())  # loop headers are re-read after a While
    try:  # every node's abstract came from its op's own rule (GraphBuilder.add), so no second inference
        verify(graph, infer=False)
    except VerifyError as exc:
        raise MalformedFileError(f"{path}: the graph msx built from it does not verify: {exc.message}") from None
    manifest = {"format": "MINDIR", "producer": f"{model.producer_name} {model.model_version}".strip(),
                "ir_version": model.ir_version, "mind_ir_version": int(model.mind_ir_version),
                "mindspore_ops": sorted({p.op_type for p in model.primitives}),
                "primitives": sorted(graph.primitives_used()), "graphs": len(index.graphs),
                "written_by_msx": model.doc_string.startswith(DIGEST_PREFIX)}
    return LoadedMindIR(**{f.name: getattr(graph, f.name) for f in fields(Graph)}, weights=converter.weights,
                        requires_grad={k: True for k in converter.weights}, manifest=manifest)


__all__ = ["load_mindir", "LoadedMindIR", "MAX_FILE_BYTES"]
