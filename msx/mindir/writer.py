"""Writing msx Graphs as MindSpore `.mindir` files (`msx.export(..., file_format="MINDIR")`).

The file has the shape MindSpore 2.10's own exports have, so `mindspore.load`
reads it: a ModelProto whose main graph holds the weights as parameters
(`ref_key` = the Parameter's name), one node per MindSpore primitive call
(`REF::<primitive>`, arguments of PRIMITIVE_FUNCTION ops as `Constant`
inputs, attributes of PRIMITIVE ops in the primitive table), and each node's
result type in its "shape" attribute. `Cond` becomes MindSpore's
`Switch(pred, Partial(then, ...), Partial(else, ...))()`; `While` becomes a
header graph that calls itself through the body (MindSpore's loop form);
`Call` is inlined. Each msx primitive is written by its entry in
`msx.mindir.op_writers.WRITERS`; a graph holding anything else is refused
before a byte is written. The SHA-256 of the model goes in `doc_string`,
so msx refuses a corrupted copy of a file it wrote.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..atomic import write_atomic
from ..ir.control import CALL, CASE, COND, WHILE
from ..ir.graph import Abstract, Const, Graph, Node, Var
from ..ops.rule_tables import RuleTable
from .op_readers import TYPE_ID_OF
from .op_table import WRITERS
from . import mind_ir_pb2 as pb
from .errors import MindIRExportError
from .proto import DTYPE_CODES, A
from .reader import DIGEST_PREFIX, digest

# the higher-order ops a MindIR file can hold, with their writing rules `(graph writer, node) -> operand names`:
# this consumer's table (registered below _GraphWriter, whose methods they are), keyed by the declarations
CONTROL_WRITERS = RuleTable("mindir write", "msx/mindir/writer.py")
PRIM_INPUT_NAMES = {"Conv2D": ["x", "w"], "MaxPool": ["x"]}


def unsupported_ops(graph: Graph) -> list[str]:
    """The primitives of `graph` (and its subgraphs) that have no MindIR form."""
    return sorted(op for op in graph.primitives_used() if op not in WRITERS and CONTROL_WRITERS.get(op) is None)


class _Writer:
    def __init__(self, model: pb.ModelProto) -> None:
        self.model = model
        self.count = 0

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def primitive(self, op_type: str, attrs: dict | None) -> str:
        name = self.fresh(f"{op_type}:")
        p = self.model.primitives.add(name=name, op_type=op_type, instance_name="")
        if attrs is None:
            p.prim_type = pb.PrimitiveProto.PRIMITIVE_FUNCTION
        else:
            p.prim_type = pb.PrimitiveProto.PRIMITIVE
            for key, value in attrs.items():
                _set_value(p.attribute.add(name=key), value)
            _set_value(p.attribute.add(name="input_names"), PRIM_INPUT_NAMES.get(op_type, ["x"]), kind=A.LIST)
            _set_value(p.attribute.add(name="output_names"), ["output"], kind=A.LIST)
        return name


class _GraphWriter:
    """Writes one msx Graph's nodes into one GraphProto; `env` maps msx Var ids to MindIR value names."""

    def __init__(self, w: _Writer, proto: pb.GraphProto, env: dict[int, str] | None = None) -> None:
        self.w, self.proto = w, proto
        self.env: dict[int, str] = dict(env or {})
        self.abstracts: dict[str, Any] = {}
        self.node: Node | None = None

    # ------------------------------------------------------------ what WRITERS entries call
    def abstract(self, x) -> Abstract:
        return x.abstract

    def unsupported(self, reason: str):
        raise MindIRExportError(f"export: {self.node.op if self.node else '?'} cannot be written as MindIR: {reason}")

    def type_id(self, dtype: str) -> int:
        if dtype not in TYPE_ID_OF:
            self.unsupported(f"dtype {dtype}")
        return TYPE_ID_OF[dtype]

    def scalar_tensor(self, value, like) -> str:
        """A 0-d tensor constant of the dtype of `like` (an operand, or an Abstract)."""
        dtype = like.dtype if isinstance(like, Abstract) else like.abstract.dtype
        return self.constant(np.asarray(value, dtype=dtype))

    def call(self, ms_name: str, inputs: list, args: tuple = (), attrs: dict | None = None, n_out: int = 1,
             out: Any = None) -> str:
        names = [self.operand(x, inputs) for x in inputs] + [self.constant(a) for a in args]
        prim = self.w.primitive(ms_name, attrs)
        if out is None:
            outs = self.node.outputs
            out = outs[0].abstract if n_out == 1 else tuple(
                outs[i].abstract if i < len(outs) else outs[0].abstract for i in range(n_out))
        return self.emit(f"REF::{prim}", names, out)

    def make_tuple(self, items: list) -> str:
        names = [self.operand(x, items) for x in items]
        return self.emit(f"REF::{self.w.primitive('MakeTuple', None)}", names,
                         tuple(self.abstracts.get(n) for n in names))

    def getitem(self, name: str, i: int) -> str:
        t = self.abstracts.get(name)
        return self.emit(f"REF::{self.w.primitive('TupleGetItem', None)}", [name, self.constant(i)],
                         t[i] if isinstance(t, tuple) else None)

    # ------------------------------------------------------------ values
    def emit(self, op_type: str, inputs: list[str], out: Any, shape_attr: pb.AttributeProto | None = None) -> str:
        name = f"{self.proto.name}:{self.w.fresh('CNode_')}"
        n = self.proto.node.add(input=inputs, output=[name], name=name, op_type=op_type)
        if shape_attr is not None:
            n.attribute.add().CopyFrom(shape_attr)
        elif out is not None:
            _set_type(n.attribute.add(name="shape"), out)
        self.abstracts[name] = out
        return name

    def constant(self, value) -> str:
        name = self.w.fresh("ValueNode_")
        n = self.proto.node.add(output=[name], name=name, op_type="Constant")
        attr = n.attribute.add(name="value")
        if isinstance(value, np.ndarray):
            _set_tensor(attr.tensors.add(name="value0"), value, with_data=True)
            attr.type = A.TENSORS
            self.abstracts[name] = Abstract(tuple(value.shape), value.dtype.name)
        else:
            _set_value(attr, value)
        return name

    def operand(self, x, siblings: list) -> str:
        if isinstance(x, str):
            return x
        if isinstance(x, Const):
            value = x.value
            if not isinstance(value, np.ndarray):  # a Python scalar takes the dtype of the tensor beside it
                like = next((s.abstract.dtype for s in siblings if isinstance(s, Var)), None)
                value = np.asarray(value, dtype=like) if like else np.asarray(value)
            return self.constant(value)
        return self.env[x.id]

    # ------------------------------------------------------------ graphs
    def write_nodes(self, graph: Graph) -> None:
        for node in graph.nodes:
            self.node = node
            writer = CONTROL_WRITERS.get(node.op) or WRITERS.get(node.op)
            if writer is None:
                self.unsupported("no MindIR form for this primitive")
            results = writer(self, node)
            results = results if isinstance(results, list) else [results]
            if len(results) != len(node.outputs):
                raise MindIRExportError(f"export: writing {node.op} gave {len(results)} value(s) for "
                                        f"{len(node.outputs)} output(s)")
            for v, r in zip(node.outputs, results):
                self.env[v.id] = self.operand(r, [])

    def result(self, operands: list) -> str:
        names = [self.operand(x, []) for x in operands]
        if len(names) == 1:
            return names[0]
        return self.make_tuple(names)

    def _write_call(self, node: Node) -> list[str]:
        body = node.subgraphs["body"]
        inner = _GraphWriter(self.w, self.proto, self.env)
        inner.abstracts = self.abstracts
        for v, x in zip(body.inputs, node.inputs):
            inner.env[v.id] = self.operand(x, [])
        inner.write_nodes(body)
        self.node = node
        return [inner.operand(x, []) for x in body.outputs + [u for _, u in body.updates]]

    def _function(self, graph: Graph, tag: str) -> tuple[pb.GraphProto, "_GraphWriter"]:
        proto = self.w.model.functions.add(name=self.w.fresh(f"{tag}_"))
        gw = _GraphWriter(self.w, proto)
        for v in graph.inputs:
            name = f"{proto.name}:{self.w.fresh('in')}"
            _set_tensor(proto.input.add(name=name).tensor.add(), v.abstract)
            gw.env[v.id] = name
            gw.abstracts[name] = v.abstract
        return proto, gw

    def _finish(self, proto: pb.GraphProto, name: str, out: Any) -> None:
        o = proto.output.add(name=name)
        if isinstance(out, Abstract):
            _set_tensor(o.tensor.add(), out)

    def _switch_call(self, pred: str, on_true: str, on_false: str, args: list[str], out) -> str:
        closures = []
        for g in (on_true, on_false):
            attr = pb.AttributeProto(name="shape", type=A.FUNCGRAPHCLOSURE, s=g.encode())
            closures.append(self.emit(f"REF::{self.w.primitive('Partial', None)}", [g] + args, None, attr))
        union = pb.AttributeProto(name="shape", type=A.UNIONFUNCCLOSURE)
        for g in (on_true, on_false):
            union.values.add(type=A.FUNCGRAPHCLOSURE, s=g.encode())
        switch = self.emit(f"REF::{self.w.primitive('Switch', None)}", [pred] + closures, None, union)
        return self.emit(f"REF::{switch}", [], out)

    def _switch_layer_call(self, index: str, graphs: list[str], args: list[str], out) -> str:
        """MindSpore's form of `cells[index](*args)`: Partial closures in a MakeTuple, switch_layer, a call."""
        closures = []
        for g in graphs:
            attr = pb.AttributeProto(name="shape", type=A.FUNCGRAPHCLOSURE, s=g.encode())
            closures.append(self.emit(f"REF::{self.w.primitive('Partial', None)}", [g] + args, None, attr))
        listed = pb.AttributeProto(name="shape", type=A.TUPLE)
        union = pb.AttributeProto(name="shape", type=A.UNIONFUNCCLOSURE)
        for g in graphs:
            listed.values.add(type=A.FUNCGRAPHCLOSURE, s=g.encode())
            union.values.add(type=A.FUNCGRAPHCLOSURE, s=g.encode())
        tup = self.emit(f"REF::{self.w.primitive('MakeTuple', None)}", closures, None, listed)
        switch = self.emit(f"REF::{self.w.primitive('switch_layer', None)}", [index, tup], None, union)
        return self.emit(f"REF::{switch}", [], out)

    def _out_type(self, values: list) -> Any:
        abstracts = tuple(v.abstract for v in values)
        return abstracts[0] if len(abstracts) == 1 else abstracts

    def _unpack(self, name: str, count: int) -> list[str]:
        return [name] if count == 1 else [self.getitem(name, i) for i in range(count)]

    def _write_cond(self, node: Node) -> list[str]:
        operands = [self.operand(x, []) for x in node.inputs[1:]]
        names = []
        for key in ("then", "else"):
            sub = node.subgraphs[key]
            proto, gw = self._function(sub, key)
            gw.write_nodes(sub)
            self._finish(proto, gw.result(sub.outputs), self._out_type(sub.outputs))
            names.append(proto.name)
        self.node = node
        pred = self.operand(node.inputs[0], [])
        if node.inputs[0].abstract.dtype != "bool":
            pred = self.call("Cast", [pred], args=(TYPE_ID_OF["bool"],), out=Abstract(node.inputs[0].abstract.shape,
                                                                                          "bool"))
        out = self._switch_call(pred, names[0], names[1], operands, self._out_type(node.outputs))
        return self._unpack(out, len(node.outputs))

    def _write_case(self, node: Node) -> list[str]:
        operands = [self.operand(x, []) for x in node.inputs[1:]]
        names = []
        for key, sub in node.subgraphs.items():
            proto, gw = self._function(sub, key)
            gw.write_nodes(sub)
            self._finish(proto, gw.result(sub.outputs), self._out_type(sub.outputs))
            names.append(proto.name)
        self.node = node
        index = self.operand(node.inputs[0], [])
        if node.inputs[0].abstract.dtype != "int32":  # MindSpore's switch_layer takes an int32 index
            index = self.call("Cast", [index], args=(TYPE_ID_OF["int32"],), out=Abstract(node.inputs[0].abstract.shape,
                                                                                           "int32"))
        out = self._switch_layer_call(index, names, operands, self._out_type(node.outputs))
        return self._unpack(out, len(node.outputs))

    def _write_while(self, node: Node) -> list[str]:
        """header(c) = Switch(cond(c), Partial(body, c), Partial(after, c))(); body(c) = header(step(c))."""
        cond_g, body_g = node.subgraphs["cond"], node.subgraphs["body"]
        out_type = self._out_type(node.outputs)
        header, hw = self._function(cond_g, "while_header")
        body, bw = self._function(body_g, "while_body")
        after, aw = self._function(cond_g, "while_after")
        aw.write_nodes(Graph("after"))
        self._finish(after, aw.result(cond_g.inputs), out_type)
        hw.write_nodes(cond_g)
        pred = hw.operand(cond_g.outputs[0], [])
        args = [hw.env[v.id] for v in cond_g.inputs]
        self._finish(header, hw._switch_call(pred, body.name, after.name, args, out_type), out_type)
        bw.write_nodes(body_g)
        step = [bw.operand(x, []) for x in body_g.outputs]
        self._finish(body, bw.emit(f"REF::{header.name}", step, out_type), out_type)
        self.node = node
        out = self.emit(f"REF::{header.name}", [self.operand(x, []) for x in node.inputs], out_type)
        return self._unpack(out, len(node.outputs))


CONTROL_WRITERS.register(COND)(_GraphWriter._write_cond)
CONTROL_WRITERS.register(CASE)(_GraphWriter._write_case)
CONTROL_WRITERS.register(WHILE)(_GraphWriter._write_while)
CONTROL_WRITERS.register(CALL)(_GraphWriter._write_call)


def _set_tensor(t: pb.TensorProto, value, with_data: bool = False) -> None:
    if isinstance(value, Abstract):
        dims, dtype = value.shape, np.dtype(value.dtype)
    else:
        dims, dtype = value.shape, value.dtype
    if dtype not in DTYPE_CODES or not all(isinstance(d, int) for d in dims):
        raise MindIRExportError(f"export: a tensor of dtype {dtype} and shape {dims} cannot be written as MindIR "
                                f"(static shapes and numeric dtypes only)")
    t.dims.extend(int(d) for d in dims)
    t.data_type = DTYPE_CODES[dtype]
    if with_data:
        t.raw_data = np.ascontiguousarray(value, dtype=dtype.newbyteorder("<")).tobytes()


def _set_type(attr: pb.AttributeProto, out) -> None:
    if isinstance(out, Abstract):
        attr.type = A.TENSORS
        _set_tensor(attr.tensors.add(), out)
    elif isinstance(out, tuple):
        attr.type = A.TUPLE
        for o in out:
            if o is not None:
                _set_type(attr.values.add(), o)


def _set_value(attr: pb.AttributeProto, value, kind: int | None = None) -> None:
    """A Python value as MindSpore writes it (scalars in i/f; tuple elements in one-element ints/floats)."""
    if isinstance(value, (bool, np.bool_)):
        attr.type, attr.i = A.BOOL, int(value)
    elif isinstance(value, (int, np.integer)):
        attr.type, attr.i = A.INT64, int(value)
    elif isinstance(value, (float, np.floating)):
        attr.type, attr.f = A.FLOAT, float(value)
    elif isinstance(value, str):
        attr.type, attr.s = A.STRING, value.encode()
    elif value is None:
        attr.type = A.NONE
    elif isinstance(value, (tuple, list)):
        attr.type = kind or A.TUPLE
        for v in value:
            item = attr.values.add()
            if isinstance(v, (bool, np.bool_)):
                item.type = A.BOOL
                item.ints.append(int(v))
            elif isinstance(v, (int, np.integer)):
                item.type = A.INT64
                item.ints.append(int(v))
            elif isinstance(v, (float, np.floating)):
                item.type = A.FLOAT
                item.floats.append(float(v))
            elif isinstance(v, str):
                item.type = A.STRING
                item.strings.append(v.encode())
            else:
                _set_value(item, v)
    else:
        raise MindIRExportError(f"export: the value {value!r} cannot be written as a MindIR attribute")


def build_model(graph: Graph, weights: dict[str, np.ndarray], producer_version: str) -> pb.ModelProto:
    """The ModelProto for `graph` with `weights` (by parameter name); raises before building for what can't be."""
    missing = unsupported_ops(graph)
    if missing:
        raise MindIRExportError(f"export: graph {graph.name} uses {missing}, which msx cannot write as MindIR "
                                f"(MINDIR holds MindSpore primitives; use file_format='MSXIR' for any msx graph)")
    if graph.updates:
        raise MindIRExportError(f"export: graph {graph.name} writes Parameters "
                                f"({', '.join(n for n, _ in graph.updates)}); export it in eval mode for MINDIR")
    model = pb.ModelProto(ir_version="1.1", producer_name="msx", model_version=producer_version,
                          little_endian=True, mind_ir_version=3)
    main = model.graph
    main.name = _clean(graph.name)
    gw = _GraphWriter(_Writer(model), main)
    for v in graph.inputs:
        name = f"{main.name}:{v.name or gw.w.fresh('x')}"
        _set_tensor(main.input.add(name=name).tensor.add(), v.abstract)
        gw.env[v.id] = name
        gw.abstracts[name] = v.abstract
    for v in graph.params:
        name = f"{main.name}:{v.name}"
        t = main.parameter.add(name=name, ref_key=v.name)
        _set_tensor(t, np.asarray(weights[v.name]), with_data=True)
        gw.env[v.id] = name
        gw.abstracts[name] = v.abstract
    gw.write_nodes(graph)
    out = gw.result(graph.outputs)
    o = main.output.add(name=out)
    if len(graph.outputs) == 1:
        _set_tensor(o.tensor.add(), graph.outputs[0].abstract)
    model.doc_string = DIGEST_PREFIX + digest(model)
    return model


def _clean(name: str) -> str:
    return "".join(c if c.isalnum() or c in "_." else "_" for c in name) or "graph"


def write_mindir(path: str, graph: Graph, weights: dict[str, np.ndarray], producer_version: str) -> None:
    """Write `graph` as a `.mindir` file, atomically."""
    write_atomic(path, [build_model(graph, weights, producer_version).SerializeToString(deterministic=True)])
