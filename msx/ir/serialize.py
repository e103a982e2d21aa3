"""Graph <-> plain JSON-able data, losslessly, with no code in the data.

`graph_to_data(graph)` returns `(data, arrays)`: `data` holds only JSON types
(dict, list, str, int, float, bool, None), and `arrays` the numpy arrays it
refers to by key (constants and array attributes), to be stored as tensors.
`graph_from_data(data, arrays)` rebuilds an equal Graph and treats its input
as untrusted: every field is type-checked, every name is looked up in fixed
tables (no `eval`, no imports, no pickle), and any defect raises
`MalformedFileError` or `UnknownPrimitiveError`.

Values (attributes and constants) are JSON scalars for None, bool, int, str
and finite floats, a JSON list for a list, and a one-key object for the rest:
`{"tuple": [...]}`, `{"dict": {...}}`, `{"float": "nan"|"inf"|"-inf"}`,
`{"complex": [re, im]}`, `{"dtype": "float32"}` (an `msx.dtype.Type`),
`{"scalar": ["float32", value]}` (a numpy scalar) and `{"array": key}`.

A graph is `{"name", "inputs", "params", "nodes", "outputs", "updates"}`;
values are numbered per graph (subgraphs are closed, so references never
cross graphs): inputs, params and node outputs define `{"id", "name",
"shape", "dtype"}`, operands are an id or `{"const": value}`, a node is
`{"op", "inputs", "outputs", "attrs", "loc", "subgraphs"}` with `loc` =
`[file, line, col, end_col, func]` or null, plus `"scope"` (the Cell path,
a str) when the node was recorded inside a Cell.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import dtype as mstype
from ..errors import ExportError, MalformedFileError, SourceLoc, UnknownPrimitiveError
from .graph import Abstract, Const, Graph, Node, Operand, Var
from .symbolic import Dim, check_expr, shape_to_data

DTYPE_NAMES = frozenset({"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                         "float16", "bfloat16", "float32", "float64", "complex64", "complex128"})
MSX_TYPES = {t.name: t for t in mstype._ALL}
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


# ---------------------------------------------------------------- encoding
class _Encoder:
    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def value(self, v: Any, where: str) -> Any:
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, float):
            return v if math.isfinite(v) else {"float": "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")}
        if isinstance(v, tuple):
            return {"tuple": [self.value(x, where) for x in v]}
        if isinstance(v, list):
            return [self.value(x, where) for x in v]
        if isinstance(v, dict):
            if not all(isinstance(k, str) for k in v):
                raise ExportError(f"{where}: a dict value has non-string keys; only str keys can be serialized")
            return {"dict": {k: self.value(x, where) for k, x in v.items()}}
        if isinstance(v, complex):
            return {"complex": [self.value(v.real, where), self.value(v.imag, where)]}
        if isinstance(v, mstype.Type):
            return {"dtype": v.name}
        if isinstance(v, np.ndarray):
            self._check_dtype(v.dtype, where)
            key = f"c{len(self.arrays)}"
            self.arrays[key] = v
            return {"array": key}
        if isinstance(v, np.generic):
            self._check_dtype(v.dtype, where)
            return {"scalar": [v.dtype.name, self.value(v.item(), where)]}
        raise ExportError(f"{where}: cannot serialize a value of type {type(v).__name__} ({v!r:.60}); graph values "
                          f"must be None, bool, int, float, complex, str, tuple, list, dict, msx dtypes or numpy "
                          f"arrays/scalars")

    @staticmethod
    def _check_dtype(dtype: np.dtype, where: str) -> None:
        if dtype.name not in DTYPE_NAMES:
            raise ExportError(f"{where}: numpy dtype {dtype} cannot be serialized "
                              f"(supported: {', '.join(sorted(DTYPE_NAMES))})")

    def graph(self, g: Graph) -> dict:
        ids: dict[int, int] = {}

        def define(v: Var) -> dict:
            ids[v.id] = len(ids)
            return {"id": ids[v.id], "name": v.name, "shape": shape_to_data(v.abstract.shape), "dtype": v.abstract.dtype}

        def use(x: Operand, where: str) -> Any:
            if isinstance(x, Const):
                return {"const": self.value(x.value, where)}
            if x.id not in ids:
                raise ExportError(f"graph {g.name}: {where} uses a value that is not defined before it")
            return ids[x.id]

        data: dict[str, Any] = {"name": g.name, "inputs": [define(v) for v in g.inputs],
                                "params": [define(v) for v in g.params], "nodes": []}
        for i, node in enumerate(g.nodes):
            where = f"graph {g.name}, node {i} ({node.op})"
            entry = {"op": node.op, "inputs": [use(x, where) for x in node.inputs],
                     "attrs": {k: self.value(v, f"{where}, attribute {k!r}") for k, v in node.attrs.items()},
                     "loc": _loc_to_data(node.loc),
                     "subgraphs": {k: self.graph(sub) for k, sub in node.subgraphs.items()}}
            entry["outputs"] = [define(v) for v in node.outputs]
            if node.scope:  # optional key: graphs captured outside any Cell read as before
                entry["scope"] = node.scope
            data["nodes"].append(entry)
        data["outputs"] = [use(x, f"graph {g.name}: the return") for x in g.outputs]
        data["updates"] = [[name, use(x, f"graph {g.name}: update of {name}")] for name, x in g.updates]
        return data


def _loc_to_data(loc: SourceLoc | None) -> list | None:
    return None if loc is None else [loc.file, loc.line, loc.col, loc.end_col, loc.func]


def graph_to_data(graph: Graph) -> tuple[dict, dict[str, np.ndarray]]:
    """(JSON-able data, arrays it refers to by key); raises ExportError for a value that cannot be stored."""
    encoder = _Encoder()
    return encoder.graph(graph), encoder.arrays


def value_to_data(value: Any, where: str = "value") -> Any:
    """One attribute-like value as JSON-able data (no arrays allowed)."""
    encoder = _Encoder()
    data = encoder.value(value, where)
    if encoder.arrays:
        raise ExportError(f"{where}: numpy arrays cannot be stored here")
    return data


# ---------------------------------------------------------------- decoding (untrusted input)
def _fail(where: str, problem: str) -> MalformedFileError:
    return MalformedFileError(f"malformed graph data: {where}: {problem}")


def _expect(x: Any, kind: type | tuple, where: str) -> Any:
    if not isinstance(x, kind) or (kind is int and isinstance(x, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise _fail(where, f"expected {names}, got {type(x).__name__}")
    return x


def _dim(s: Any, where: str) -> int | Dim:
    """A dim from a file: an int, or a symbolic expression (checked by jax's shape parser, never evaluated)."""
    if isinstance(s, str):
        try:
            return Dim(check_expr(s))
        except ValueError as exc:
            raise _fail(where, str(exc)) from None
    return _expect(s, int, where)


def _keys(d: Any, required: set[str], where: str, optional: frozenset[str] = frozenset()) -> dict:
    _expect(d, dict, where)
    if not required <= set(d) <= required | optional:
        raise _fail(where, f"expected the keys {sorted(required)}{f' (optionally {sorted(optional)})' if optional else ''}"
                           f", got {sorted(d)}")
    return d


class _Decoder:
    def __init__(self, arrays: dict[str, np.ndarray], known_op: Callable[[str], bool]) -> None:
        self.arrays = arrays
        self.known_op = known_op

    def value(self, d: Any, where: str) -> Any:
        if d is None or isinstance(d, (bool, int, str)):
            return d
        if isinstance(d, float):
            return d
        if isinstance(d, list):
            return [self.value(x, where) for x in d]
        if not isinstance(d, dict) or len(d) != 1:
            raise _fail(where, f"a value must be a JSON scalar, a list or a one-key object, got {str(d)[:60]}")
        (tag, payload), = d.items()
        if tag == "tuple":
            return tuple(self.value(x, where) for x in _expect(payload, list, where))
        if tag == "dict":
            return {k: self.value(x, where) for k, x in _expect(payload, dict, where).items()}
        if tag == "float":
            if not isinstance(payload, str) or payload not in _NON_FINITE:
                raise _fail(where, f"unknown float {payload!r}")
            return _NON_FINITE[payload]
        if tag == "complex":
            re, im = self.pair(payload, where)
            re, im = self.value(re, where), self.value(im, where)
            if not all(isinstance(x, float) for x in (re, im)):
                raise _fail(where, "a complex value needs two floats")
            return complex(re, im)
        if tag == "dtype":
            if not isinstance(payload, str) or payload not in MSX_TYPES:
                raise _fail(where, f"unknown dtype {payload!r}")
            return MSX_TYPES[payload]
        if tag == "scalar":
            dtype, v = self.pair(payload, where)
            dtype, v = self.dtype(dtype, where), self.value(v, where)
            if not isinstance(v, (bool, int, float, complex)):
                raise _fail(where, "a numpy scalar needs a number")
            try:
                return np.array(v, dtype=dtype)[()]
            except (OverflowError, TypeError, ValueError) as exc:
                raise _fail(where, f"{v!r:.40} is not a {dtype}: {exc}") from None
        if tag == "array":
            if not isinstance(payload, str) or payload not in self.arrays:
                raise _fail(where, f"refers to array {str(payload)[:40]!r}, which the file does not contain")
            return self.arrays[payload]
        raise _fail(where, f"unknown value tag {tag!r}")

    @staticmethod
    def pair(payload: Any, where: str) -> list:
        if not isinstance(payload, list) or len(payload) != 2:
            raise _fail(where, "expected a list of two items")
        return payload

    @staticmethod
    def dtype(name: Any, where: str) -> str:
        if not isinstance(name, str) or name not in DTYPE_NAMES:
            raise _fail(where, f"unknown dtype {str(name)[:40]!r}")
        return name

    def graph(self, d: Any, where: str) -> Graph:
        d = _keys(d, {"name", "inputs", "params", "nodes", "outputs", "updates"}, where)
        name = _expect(d["name"], str, f"{where}.name")
        where = f"graph {name}"
        env: dict[int, Var] = {}

        def define(v: Any, at: str) -> Var:
            v = _keys(v, {"id", "name", "shape", "dtype"}, at)
            vid = _expect(v["id"], int, f"{at}.id")
            if vid in env:
                raise _fail(at, f"value {vid} is defined twice")
            if v["name"] is not None:
                _expect(v["name"], str, f"{at}.name")
            shape = tuple(_dim(s, f"{at}.shape") for s in _expect(v["shape"], list, f"{at}.shape"))
            if any(isinstance(s, int) and s < 0 for s in shape):
                raise _fail(at, f"negative dimension in shape {shape}")
            env[vid] = Var(Abstract(shape, self.dtype(v["dtype"], f"{at}.dtype")), v["name"])
            return env[vid]

        def use(x: Any, at: str) -> Operand:
            if isinstance(x, dict):
                return Const(self.value(_keys(x, {"const"}, at)["const"], at))
            vid = _expect(x, int, at)
            if vid not in env:
                raise _fail(at, f"uses value {vid}, which is not defined before it")
            return env[vid]

        inputs = [define(v, f"{where}, input {i}") for i, v in enumerate(_expect(d["inputs"], list, where))]
        params = [define(v, f"{where}, parameter {i}") for i, v in enumerate(_expect(d["params"], list, where))]
        if any(v.name is None for v in params):
            raise _fail(where, "a parameter has no name")
        nodes = []
        for i, n in enumerate(_expect(d["nodes"], list, f"{where}.nodes")):
            at = f"{where}, node {i}"
            n = _keys(n, {"op", "inputs", "outputs", "attrs", "loc", "subgraphs"}, at, frozenset({"scope"}))
            op = _expect(n["op"], str, f"{at}.op")
            at = f"{at} ({op[:40]})"
            if not self.known_op(op):
                raise UnknownPrimitiveError(f"{at}: unknown primitive {op!r}; this msx version does not have it")
            ins = [use(x, f"{at}, input {k}") for k, x in enumerate(_expect(n["inputs"], list, at))]
            attrs = {k: self.value(v, f"{at}, attribute {k!r}") for k, v in _expect(n["attrs"], dict, at).items()}
            subs = {k: self.graph(g, f"{at}, subgraph {k!r}") for k, g in _expect(n["subgraphs"], dict, at).items()}
            outs = [define(v, f"{at}, output {k}") for k, v in enumerate(_expect(n["outputs"], list, at))]
            scope = _expect(n.get("scope", ""), str, f"{at}.scope")
            nodes.append(Node(op, ins, outs, attrs, self.loc(n["loc"], at), subs, scope))
        outputs = [use(x, f"{where}, output {k}") for k, x in enumerate(_expect(d["outputs"], list, where))]
        updates = []
        for k, u in enumerate(_expect(d["updates"], list, where)):
            at = f"{where}, update {k}"
            if not isinstance(u, list) or len(u) != 2:
                raise _fail(at, "an update is [parameter name, value]")
            updates.append((_expect(u[0], str, at), use(u[1], at)))
        return Graph(name, inputs, params, nodes, outputs, updates)

    @staticmethod
    def loc(d: Any, where: str) -> SourceLoc | None:
        if d is None:
            return None
        if not isinstance(d, list) or len(d) != 5:
            raise _fail(where, "a location is [file, line, col, end_col, func]")
        file, line, col, end_col, func = d
        _expect(file, str, where), _expect(line, int, where), _expect(col, int, where), _expect(func, str, where)
        if end_col is not None:
            _expect(end_col, int, where)
        return SourceLoc(file, line, col, end_col, func)


def graph_from_data(data: Any, arrays: dict[str, np.ndarray], known_op: Callable[[str], bool]) -> Graph:
    """Rebuild a Graph from `graph_to_data`'s output; `known_op(name)` says which ops exist."""
    try:
        return _Decoder(arrays, known_op).graph(data, "graph")
    except RecursionError:
        raise MalformedFileError("malformed graph data: nested too deeply") from None


def value_from_data(data: Any, where: str = "value") -> Any:
    """The inverse of `value_to_data` (untrusted input)."""
    try:
        return _Decoder({}, lambda op: False).value(data, where)
    except RecursionError:
        raise MalformedFileError(f"malformed data: {where}: nested too deeply") from None
