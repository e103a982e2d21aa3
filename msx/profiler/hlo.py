"""From XLA's optimised HLO back to msx nodes.

Emission names every node's jax evaluation (`jax.named_scope("Dense#3")`,
subgraphs by their key: `Grad#0/body/...`), so each HLO instruction's
`metadata={op_name="jit(step)/Grad#0/transpose(jvp(body))/Dense#0/dot_general"}`
says which node it computes, and whether it is that node's backward pass (a
`transpose(...)` around the path). `HloMap` parses the compiled module's text
once: per instruction its msx node and a work weight (output elements, times
the contracted size for a dot or convolution), so the time of a fused XLA op
can be shared among the msx nodes it fuses in proportion to their work.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from ..ir.graph import Graph, Node

_COMPUTATION = re.compile(r"^(?:ENTRY\s+)?%?([\w.\-]+)\s*\(.*\)\s*->.*\{\s*$")
_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=\s*(.+?)\s+([\w\-]+)\((.*)$")
_SHAPE = re.compile(r"[a-z]+\d*\[([\d,]*)\]")
_OP_NAME = re.compile(r'op_name="([^"]*)"')
_CALLS = re.compile(r"(?:calls|to_apply|body|condition|true_computation|false_computation)=%?([\w.\-]+)")
_BRANCHES = re.compile(r"branch_computations=\{([^}]*)\}")
_WRAPPED = re.compile(r"^([\w\-]+)\((.*)\)$")
_NODE = re.compile(r"^(.+)#(\d+)$")
_OPERANDS = re.compile(r"%([\w.\-]+)")
_CONTRACTING = re.compile(r"lhs_contracting_dims=\{([\d,]*)\}")


@dataclass(frozen=True)
class Site:
    """Where an HLO instruction's work belongs: an msx node (None: XLA's own, e.g. a layout copy), forward or not."""

    node: Node | None
    path: str          # "Grad#0/body/Dense#0" ("" for XLA's own)
    backward: bool


@dataclass
class Instruction:
    name: str
    opcode: str
    elements: int
    weight: float
    site: Site
    called: list[str] = field(default_factory=list)


def resolve(graph: Graph, op_name: str) -> Site:
    """The msx node an HLO `op_name` (a jax name stack) names in `graph`."""
    node: Node | None = None
    current: Graph | None = graph
    path: list[str] = []
    backward = False
    for token in op_name.split("/")[1:]:   # the first is jit(<module>)
        while True:
            m = _WRAPPED.match(token)
            if m is None:
                break
            backward |= m.group(1) == "transpose"
            token = m.group(2)
        m = _NODE.match(token)
        if m is not None and current is not None:
            i = int(m.group(2))
            if i < len(current.nodes) and current.nodes[i].op == m.group(1):
                if node is not current.nodes[i]:
                    node = current.nodes[i]
                    path.append(token)
            continue
        if node is not None and token in node.subgraphs and current is not node.subgraphs[token]:
            current = node.subgraphs[token]
            path.append(token)
    return Site(node, "/".join(path) if node is not None else "", backward)


def _elements(shape_text: str) -> int:
    m = _SHAPE.search(shape_text)
    if m is None:
        return 1
    dims = [int(d) for d in m.group(1).split(",") if d]
    return math.prod(dims) if dims else 1


def _dims(shape_text: str) -> list[int]:
    m = _SHAPE.search(shape_text)
    return [int(d) for d in m.group(1).split(",") if d] if m else []


class HloMap:
    """The instructions of one compiled HLO module (`compiled.as_text()`), each with its msx site and weight."""

    def __init__(self, hlo_text: str, graph: Graph) -> None:
        self.instructions: dict[str, Instruction] = {}
        self.computations: dict[str, list[str]] = {}
        shapes: dict[str, str] = {}
        current: list[str] | None = None
        for line in hlo_text.splitlines():
            head = _COMPUTATION.match(line)
            if head is not None:
                current = self.computations.setdefault(head.group(1), [])
                continue
            m = _INSTRUCTION.match(line)
            if m is None or current is None:
                continue
            name, shape, opcode, rest = m.groups()
            shapes[name] = shape
            op_name = _OP_NAME.search(rest)
            site = resolve(graph, op_name.group(1)) if op_name else Site(None, "", False)
            called = _CALLS.findall(rest)
            branches = _BRANCHES.search(rest)
            if branches:
                called += [b.strip().lstrip("%") for b in branches.group(1).split(",") if b.strip()]
            elements = _elements(shape)
            weight = float(elements)
            if opcode == "dot":
                operands = _OPERANDS.findall(rest.split(")", 1)[0])
                contracting = _CONTRACTING.search(rest)
                if operands and contracting and operands[0] in shapes:
                    lhs = _dims(shapes[operands[0]])
                    weight *= math.prod(lhs[int(d)] for d in contracting.group(1).split(",") if d) or 1
            elif opcode == "convolution":
                operands = _OPERANDS.findall(rest.split(")", 1)[0])
                if len(operands) > 1 and operands[1] in shapes:
                    kernel = _dims(shapes[operands[1]])
                    weight *= max(math.prod(kernel) / max(kernel[-1] if kernel else 1, 1), 1)
            if opcode in ("parameter", "constant", "get-tuple-element", "tuple", "bitcast"):
                weight = 0.0  # no work of their own
            self.instructions[name] = Instruction(name, opcode, elements, weight, site, called)
            current.append(name)

    def shares(self, op: str) -> list[tuple[Site, float]]:
        """How the time of the XLA op (a thunk named `op`) divides among msx sites: (site, fraction) pairs."""
        inst = self.instructions.get(op)
        if inst is None:
            return [(Site(None, "", False), 1.0)]
        weights: dict[Site, float] = {}
        if inst.opcode in ("fusion", "call", "custom-call") and inst.called:
            for comp in inst.called:
                for name in self._walk(comp):
                    inner = self.instructions[name]
                    if inner.site.node is not None and inner.weight > 0:
                        weights[inner.site] = weights.get(inner.site, 0.0) + inner.weight
        if not weights:
            return [(inst.site, 1.0)]
        total = sum(weights.values())
        return [(site, w / total) for site, w in weights.items()]

    def _walk(self, computation: str, seen: set | None = None):
        seen = seen if seen is not None else set()
        if computation in seen:
            return
        seen.add(computation)
        for name in self.computations.get(computation, []):
            yield name
            for inner in self.instructions[name].called:
                yield from self._walk(inner, seen)


def _label(site: Site) -> str:
    node = site.node
    if node is None:
        return "(XLA's own)"
    where = f" {node.loc.file}:{node.loc.line}" if node.loc is not None else ""
    scope = f" [{node.scope}]" if node.scope else ""
    return f"{site.path} {node.op}{scope}{where}{' (backward)' if site.backward else ''}"


def optimized_hlo(compiled: Any) -> tuple[str, Graph]:
    """(XLA's optimised HLO text, the graph it runs) of an msx `Compiled` on an XLA backend."""
    handle = getattr(compiled, "handle", None)
    inner = getattr(handle, "compiled", None)
    if inner is None or not hasattr(inner, "as_text"):
        raise TypeError(f"expected the compiled stage of an XLA backend (jf.lower(*args).compile()), got "
                        f"{type(compiled).__name__} on {type(handle).__name__}")
    graph = getattr(handle, "graph", None) or compiled.lowered.graph
    return inner.as_text(), graph


def annotate(compiled: "Any") -> str:
    """XLA's optimised, scheduled HLO of `compiled` (an msx `Compiled`, from `jf.lower(...).compile()`) with each
    instruction followed by `# <msx node path> <op> [<Cell path>] <file:line>` — the final execution sequence
    (the entry computation's instructions are in XLA's schedule order), traced back to the msx nodes."""
    text, graph = optimized_hlo(compiled)
    hlo = HloMap(text, graph)
    out = []
    for line in text.splitlines():
        m = _INSTRUCTION.match(line)
        inst = hlo.instructions.get(m.group(1)) if m else None
        if inst is not None and inst.site.node is not None:
            line = f"{_strip_metadata(line)}  # {_label(inst.site)}"
        out.append(line)
    return "\n".join(out)


def _strip_metadata(line: str) -> str:
    return re.sub(r",\s*metadata=\{[^}]*\}", "", line)


def node_instructions(compiled: "Any") -> dict[Node, list[Instruction]]:
    """The HLO instructions (with work of their own) that compute each msx node of `compiled`'s graph, the
    instructions inside XLA fusions included."""
    hlo = HloMap(*optimized_hlo(compiled))
    out: dict[Node, list[Instruction]] = {}
    for inst in hlo.instructions.values():
        if inst.site.node is not None and inst.weight > 0:
            out.setdefault(inst.site.node, []).append(inst)
    return out
