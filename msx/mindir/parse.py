"""Passes 1 and 2 of reading a `.mindir` file (`msx.mindir.reader`): parse the protobuf within size limits
(an msx-written file's SHA-256 checked), then check every graph, node, primitive and name reference, listing
every op msx lacks at once."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Iterable

from google.protobuf.message import DecodeError

from ..fileread import open_regular, read_exact
from ..errors import MalformedFileError, TruncatedFileError
from .op_table import READERS
from . import mind_ir_pb2 as pb
from .errors import UnsupportedMindIRError
from .proto import A, dims_of, dtype_of

MAX_FILE_BYTES = (1 << 31) - 1  # protobuf's own limit for one message
MAX_GRAPHS = 10_000
MAX_FILE_NODES = 1_000_000
DIGEST_PREFIX = "msx-sha256:"

STRUCTURAL = ("Load", "UpdateState", "Depend", "MakeTuple", "make_tuple", "TupleGetItem", "tuple_getitem",
              "MakeList", "make_list", "ListGetItem", "list_getitem", "Partial", "Switch", "switch_layer", "SwitchLayer")


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


def reaches(index: Index, start: str, goal: str, avoid: Iterable[str] = ()) -> bool:
    """Whether graph `start` calls `goal`, directly or through other graphs, but not through those in `avoid`
    (the headers of the loops around: a call to one of them ends that path, as the converter ends it)."""
    todo, seen = [start], set(avoid) - {goal}
    while todo:
        g = todo.pop()
        if g == goal:
            return True
        if g in seen:
            continue
        seen.add(g)
        todo.extend(index.calls.get(g, ()))
    return False
