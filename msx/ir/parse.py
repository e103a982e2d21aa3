"""Read the printer's text form back into a Graph (the grammar is in `msx.ir.printer`'s docstring).

`parse_graph(str(graph))` is structurally equal to `graph` when its constants
were printed in full (`format_graph(graph, full_constants=True)`; small ones
always are): the text is a complete description of the graph, not only a
view of it. Locations come back as `file:line` (the printer's short form);
Cell scopes are not printed, so they come back empty. A recursive-descent
parser over a regex tokenizer — no Python evaluation of any part of the text.
"""
from __future__ import annotations

import re
from typing import Any

import ml_dtypes
import numpy as np

from ..errors import MsxError, SourceLoc
from .graph import _SHORT, Abstract, Const, Graph, Node, Var
from .symbolic import Dim


class IRParseError(MsxError, ValueError):
    """The text is not a graph in msx's text form; says where and what was expected."""

    stage = "parse"


_LONG = {short: name for name, short in _SHORT.items()}
_DTYPE = r"(?:bf16|f16|f32|f64|i8|i16|i32|i64|u8|u16|u32|u64|c64|c128|bool|bfloat16|float\w*|u?int\w*|complex\w*)"
_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<loc>\#[^\n]*)
  | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<type>~?""" + _DTYPE + r"""\[[^\]\n]*\])
  | (?P<var>%[^\s,()\[\]{}:]+)
  | (?P<sub>@[^\s,()\[\]{}]+)
  | (?P<arrow><-)
  | (?P<dots>\.\.\.)
  | (?P<num>-?(?:inf|nan)(?![\w.])|-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_<][^\s,()\[\]{}:=]*)
  | (?P<punct>[()\[\]{},:=])
""", re.VERBOSE)


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise IRParseError(f"line {text.count(chr(10), 0, pos) + 1}: unexpected {text[pos:pos + 20]!r}")
        kind = m.lastgroup
        if kind != "ws":
            out.append((kind, m.group(), text.count("\n", 0, pos) + 1))
        pos = m.end()
    out.append(("end", "", text.count("\n") + 1))
    return out


def _dtype_name(short: str) -> str:
    return _LONG.get(short, short)


def _np_dtype(name: str) -> np.dtype:
    try:
        return np.dtype(name)
    except TypeError:
        return np.dtype(getattr(ml_dtypes, name))


def _dims(inner: str) -> tuple:
    dims, depth, start = [], 0, 0
    for i, ch in enumerate(inner + ","):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            part = inner[start:i].strip()
            if part:
                dims.append(int(part) if part.isdigit() else Dim(part))
            start = i + 1
    return tuple(dims)


def _abstract(tok: str) -> Abstract:
    weak = tok.startswith("~")
    head, inner = tok.lstrip("~")[:-1].split("[", 1)
    return Abstract(_dims(inner), _dtype_name(head), weak)


def _unescape(s: str) -> str:
    body = s[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}.get(m.group(1), m.group(1)), body)


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0

    # ------------------------------------------------------------ tokens
    def peek(self, k: int = 0) -> tuple[str, str, int]:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> tuple[str, str, int]:
        tok = self.toks[self.i]
        self.i = min(self.i + 1, len(self.toks) - 1)
        return tok

    def fail(self, wanted: str) -> IRParseError:
        kind, text, line = self.peek()
        return IRParseError(f"line {line}: expected {wanted}, got {text or 'the end'!r}")

    def expect(self, text: str) -> None:
        if self.peek()[1] != text:
            raise self.fail(repr(text))
        self.next()

    def take(self, kind: str, wanted: str) -> str:
        if self.peek()[0] != kind:
            raise self.fail(wanted)
        return self.next()[1]

    def accept(self, text: str) -> bool:
        if self.peek()[1] == text and self.peek()[0] in ("punct", "name", "arrow"):
            self.next()
            return True
        return False

    def listed(self, close: str, item) -> list:
        items = []
        while not self.accept(close):
            items.append(item())
            if not self.accept(","):
                self.expect(close)
                break
        return items

    # ------------------------------------------------------------ values
    def scalar(self):
        kind, text, _ = self.next()
        if kind == "num":
            return float(text) if any(c in text for c in ".eEna") else int(text)
        if text in ("True", "False"):
            return text == "True"
        raise IRParseError(f"expected a number, True or False, got {text!r}")

    def array(self, tok: str) -> np.ndarray:
        a = _abstract(tok)
        if any(isinstance(d, Dim) for d in a.shape):
            raise IRParseError(f"a constant array cannot have a symbolic shape ({tok})")
        self.expect("{")
        if self.peek()[0] == "dots":
            raise IRParseError(f"line {self.peek()[2]}: the values of constant {tok} were elided when printed; "
                               f"print with format_graph(graph, full_constants=True)")
        values = self.listed("}", self.scalar)
        dtype = _np_dtype(a.dtype)
        if len(values) != int(np.prod(a.shape, dtype=np.int64)):
            raise IRParseError(f"constant {tok} lists {len(values)} values")
        return np.asarray(values, dtype=np.float64 if dtype.kind == "f" or dtype.kind == "V" else None) \
            .astype(dtype).reshape(a.shape)

    def literal(self) -> Any:
        kind, text, _ = self.peek()
        if kind == "str":
            self.next()
            return _unescape(text)
        if kind == "type":
            self.next()
            return self.array(text)
        if text == "None" and kind == "name":
            self.next()
            return None
        if text == "(" and kind == "punct":
            self.next()
            items, trailing = [], False
            while not self.accept(")"):
                items.append(self.literal())
                trailing = self.accept(",")
                if not trailing:
                    self.expect(")")
                    break
            return tuple(items)
        if text == "[" and kind == "punct":
            self.next()
            return self.listed("]", self.literal)
        if text == "{" and kind == "punct":
            self.next()

            def pair():
                k = self.literal()
                self.expect(":")
                return k, self.literal()

            return dict(self.listed("}", pair))
        return self.scalar()

    # ------------------------------------------------------------ graphs
    def graph(self) -> tuple[Graph, list[tuple[Node, dict[str, str]]]]:
        self.expect("graph")
        name = self.take("name", "a graph name")
        env: dict[str, Var] = {}

        def binder() -> Var:
            vname = self.take("var", "a value name")[1:]
            self.expect(":")
            v = Var(_abstract(self.take("type", "a type")), vname)
            env[vname] = v
            return v

        self.expect("(")
        inputs = self.listed(")", binder)
        params = []
        if self.accept("params"):
            self.expect("(")
            params = self.listed(")", binder)
        self.expect("{")
        g = Graph(name, inputs, params)
        pending = []
        while True:
            kind, text, line = self.peek()
            if kind == "name" and text == "return":
                self.next()
                if self.peek()[1] == "(":
                    self.next()
                    g.outputs = self.listed(")", lambda: self.operand(env))
                else:
                    g.outputs = [self.operand(env)]
                self.expect("}")
                return g, pending
            if kind == "name" and text == "update":
                self.next()
                pname = self.take("var", "a parameter name")[1:]
                self.take("arrow", "'<-'")
                g.updates.append((pname, self.operand(env)))
                continue
            node, subs = self.node(env)
            g.nodes.append(node)
            pending.append((node, subs))

    def operand(self, env: dict[str, Var]):
        kind, text, line = self.peek()
        if kind == "var":
            self.next()
            if text[1:] not in env:
                raise IRParseError(f"line {line}: {text} is used before it is defined")
            return env[text[1:]]
        if kind == "type":
            self.next()
            return Const(self.array(text))
        return Const(self.scalar())

    def node(self, env: dict[str, Var]) -> tuple[Node, dict[str, str]]:
        outs: list[str] = []
        if self.peek()[1] == "(" and self.peek(1)[1] == ")":
            self.next(), self.next()
        else:
            outs.append(self.take("var", "a node's output, 'update' or 'return'")[1:])
            while self.accept(","):
                outs.append(self.take("var", "an output name")[1:])
        self.expect("=")
        op = self.take("name", "an op name")
        attrs: dict[str, Any] = {}
        subs: dict[str, str] = {}
        if self.accept("["):
            def attr() -> None:
                key = self.take("name", "an attr name")
                self.expect("=")
                if self.peek()[0] == "sub":
                    subs[key] = self.next()[1][1:]
                else:
                    attrs[key] = self.literal()

            self.listed("]", attr)
        self.expect("(")
        inputs = self.listed(")", lambda: self.operand(env))
        self.expect(":")
        if self.peek()[0] == "type":
            types = [_abstract(self.next()[1])]
        else:
            self.expect("(")
            types = self.listed(")", lambda: _abstract(self.take("type", "a type")))
        if len(types) != len(outs):
            raise IRParseError(f"line {self.peek()[2]}: {op} names {len(outs)} outputs but gives {len(types)} types")
        loc = None
        if self.peek()[0] == "loc":
            m = re.match(r"#\s*(.*):(\d+)\s*$", self.next()[1])
            if m is not None:
                loc = SourceLoc(m.group(1), int(m.group(2)))
        outputs = []
        for vname, a in zip(outs, types):
            v = Var(a, None if vname.isdigit() else vname)
            env[vname] = v
            outputs.append(v)
        return Node(op, inputs, outputs, attrs, loc), subs


def parse_graph(text: str) -> Graph:
    """The Graph `text` describes (the first graph in it; the rest are its subgraphs, referenced by `@name`)."""
    p = _Parser(text)
    graphs: dict[str, Graph] = {}
    pending: list[tuple[Node, dict[str, str]]] = []
    first = None
    while p.peek()[0] != "end":
        g, nodes = p.graph()
        if g.name in graphs:
            raise IRParseError(f"graph {g.name!r} is defined twice")
        graphs[g.name] = g
        pending += nodes
        first = first or g
    if first is None:
        raise IRParseError("no graph in the text")
    for node, subs in pending:
        for key, name in subs.items():
            if name not in graphs:
                raise IRParseError(f"{node.op} refers to subgraph @{name}, which the text does not define")
            node.subgraphs[key] = graphs[name]
    return first
