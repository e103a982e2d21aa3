"""The cost model: one row per op the simulated chip runs, with Cube FLOPs, bytes moved and an estimated time.

Per primitive node: the Cube does 2*M*N*K FLOPs for a matmul (2 * output
elements * the contracted size; for a convolution the contracted size is
in-channels/groups * kernel height * width) at the peak for its operands'
dtype, while its operands and result cross device memory; Vector and AICPU
ops cost their bytes (inputs read + outputs written) at their bandwidth.
Every kernel adds a launch cost; a fused node is one kernel whose bytes are
only its inputs and outputs. Views (reshape and friends) and the casts the
precision rewrite adds only to model float16 storage are free.

Higher-order nodes are costed by their rule in `COST_RULES`, this model's
own table keyed by the primitive (filled below), which calls back into the
model: a `Grad` runs its body forward, then a backward pass estimated per
differentiable op as twice its forward work (a matmul's
backward is two matmuls, dX and dW; an elementwise op reads the saved input
and the incoming gradient), in reverse order; `Cond` counts its costlier
branch; `Scan` its body times the trip count; `While` one iteration (the trip
count is not known before running), said in the row's scope.
"""
from __future__ import annotations

import math
from dataclasses import replace

import jax.numpy as jnp

from ...ir.control import CALL, CASE, COND, FUSED, GRAD, GRAD_HOOK, SCAN, VMAP, WHILE, scan_length
from ...ir.graph import Const, Graph, Node, Operand
from ...ops.primitive import REGISTRY
from ...ops.rule_tables import RuleTable, by_impl
from .report import AscendSpec, OpCost
from .support import AICPU, CUBE, VECTOR, VIEW, unit_of

LOW_PRECISION = {"float16", "bfloat16", "int8"}
# `(node, model, scope) -> rows` of a node; a higher-order op's rule asks the model `rows(graph, scope)`,
# `repeat(rows, n)`, `backward(rows, scope)`, `fused(node, scope)`, `total(rows)` and `join(scope, label)`; an op
# with a jax impl is one kernel, its row derived from the declaration (`CostModel.primitive_row`)
COST_RULES = RuleTable("cost", "msx/backends/ascend_sim/cost.py",
                       derived=by_impl(lambda node, model, scope: [model.primitive_row(node, scope)]))


class CostModel:
    def __init__(self, spec: AscendSpec, storage: dict[int, str], free: set[int]) -> None:
        self.spec, self.storage, self.free = spec, storage, free

    # ------------------------------------------------------------ sizes
    def dtype_of(self, x: Operand) -> str:
        return x.abstract.dtype if isinstance(x, Const) else self.storage.get(x.id, x.abstract.dtype)

    def nbytes(self, x: Operand) -> int:
        if isinstance(x, Const):
            value = x.value
            return int(value.nbytes) if hasattr(value, "nbytes") else 0  # Python scalars are kernel arguments
        return math.prod(x.abstract.shape) * jnp.dtype(self.dtype_of(x)).itemsize

    def traffic(self, node: Node) -> int:
        return sum(self.nbytes(x) for x in node.inputs) + sum(self.nbytes(v) for v in node.outputs)

    # ------------------------------------------------------------ rows
    def rows(self, graph: Graph, scope: str = "") -> list[OpCost]:
        out: list[OpCost] = []
        for node in graph.nodes:
            out += self.node_rows(node, scope)
        return out

    def node_rows(self, node: Node, scope: str) -> list[OpCost]:
        if id(node) in self.free:
            return []
        return COST_RULES.rule_for(node.op)(node, self, scope)  # an op with no cost rule is an error, never "fused"

    def primitive_row(self, node: Node, scope: str) -> OpCost:
        unit = unit_of(node)
        flops = self.cube_flops(node) if unit == CUBE else 0
        nbytes = 0 if unit == VIEW else self.traffic(node)
        if unit == CUBE:  # the dtype the Cube multiplies in (constant operands were rounded when folded in)
            operands = [self.dtype_of(x) for x in node.inputs[:2] if not isinstance(x, Const)]
            dtype = operands[0] if operands and all(d in LOW_PRECISION for d in operands) else "float32"
        else:
            dtype = self.dtype_of(node.outputs[0]) if node.outputs else ""
        kernels = 0 if unit == VIEW else 1
        time = self.spec.time_us(unit, flops, nbytes, kernels, dtype in LOW_PRECISION)
        return OpCost(node.op, unit, scope, _type(node), dtype, flops, nbytes, kernels, time, _where(node))

    def cube_flops(self, node: Node) -> int:
        out = math.prod(node.outputs[0].abstract.shape)
        if REGISTRY[node.op].category == "conv":
            contracted = math.prod(node.inputs[1].abstract.shape[1:])  # OIHW: in/groups * kh * kw
        else:
            contracted = node.inputs[0].abstract.shape[-1]
        return 2 * out * contracted

    # ------------------------------------------------------------ what higher-order `cost` rules ask
    @staticmethod
    def total(rows: list[OpCost]) -> float:
        return sum(r.time_us for r in rows)

    @staticmethod
    def join(scope: str, inner: str) -> str:
        return _join(scope, inner)

    @staticmethod
    def repeat(rows: list[OpCost], n: int) -> list[OpCost]:
        return [_times(r, n) for r in rows]

    def backward(self, forward: list[OpCost], scope: str) -> list[OpCost]:
        """The backward pass of `forward`'s rows, in reverse order (differentiable kernels only)."""
        return [self.backward_row(r, scope) for r in reversed(forward) if r.kernels and _differentiable(r)]

    def backward_row(self, row: OpCost, scope: str) -> OpCost:
        kernels = row.kernels * (2 if row.unit == CUBE else 1)
        flops, nbytes = 2 * row.flops, 2 * row.bytes
        time = self.spec.time_us(row.unit, flops, nbytes, kernels, row.dtype in LOW_PRECISION)
        return replace(row, scope=scope, flops=flops, bytes=nbytes, kernels=kernels, time_us=time)

    def fused(self, node: Node, scope: str) -> OpCost:
        """One kernel over the node's body (the `Fused` node of the O1 pipeline)."""
        inner = [r for g in node.subgraphs.values() for r in self.rows(g)]
        units = {r.unit for r in inner}
        unit = CUBE if CUBE in units else AICPU if AICPU in units else VECTOR
        flops, nbytes = sum(r.flops for r in inner), self.traffic(node)
        dtype = self.dtype_of(node.outputs[0]) if node.outputs else ""
        name = f"{node.op}({'+'.join(r.op for r in inner)})"
        time = self.spec.time_us(unit, flops, nbytes, 1, dtype in LOW_PRECISION)
        return OpCost(name, unit, scope, _type(node), dtype, flops, nbytes, 1, time, _where(node))


def _differentiable(row: OpCost) -> bool:
    prim = REGISTRY.get(row.op)
    return (prim is None or prim.differentiable) and (row.dtype.startswith(("float", "bfloat")) or row.unit == CUBE)


def _times(row: OpCost, n: int) -> OpCost:
    return replace(row, flops=row.flops * n, bytes=row.bytes * n, kernels=row.kernels * n, time_us=row.time_us * n)


def _join(scope: str, inner: str) -> str:
    return f"{scope} / {inner}" if scope else inner


def _type(node: Node) -> str:
    if len(node.outputs) == 1:
        return str(node.outputs[0].abstract)
    return f"{len(node.outputs)} outputs"


def _where(node: Node) -> str:
    return node.loc.short() if node.loc is not None else ""


# ---------------------------------------------------------------- the higher-order ops' cost rules
@COST_RULES.register(GRAD)
def _grad_cost(node: Node, model: CostModel, scope: str) -> list[OpCost]:
    forward = model.rows(node.subgraphs["body"], model.join(scope, "grad fwd"))
    return forward + model.backward(forward, model.join(scope, "grad bwd"))


@COST_RULES.register(GRAD_HOOK)
def _grad_hook_cost(node: Node, model: CostModel, scope: str) -> list[OpCost]:
    return model.rows(node.subgraphs["hook"], model.join(scope, "grad hook"))  # forward: none; the hook's ops


@COST_RULES.register(CALL)
def _call_cost(node: Node, model: CostModel, scope: str) -> list[OpCost]:
    return model.rows(node.subgraphs["body"], scope)


@COST_RULES.register(FUSED)
def _fused_cost(node: Node, model: CostModel, scope: str) -> list[OpCost]:
    return [model.fused(node, scope)]


@COST_RULES.register(COND, CASE)
def _costliest_branch(node: Node, model: CostModel, scope: str) -> list[OpCost]:
    label = node.op.lower()
    branches = [model.rows(g, model.join(scope, f"{label} {k}")) for k, g in node.subgraphs.items()]
    return max(branches, key=model.total)


@COST_RULES.register(WHILE)
def _while_cost(node: Node, model: CostModel, scope: str) -> list[OpCost]:
    inner = model.join(scope, "while, 1 iteration")
    return model.rows(node.subgraphs["cond"], inner) + model.rows(node.subgraphs["body"], inner)


@COST_RULES.register(SCAN)
def _scan_cost(node: Node, model: CostModel, scope: str) -> list[OpCost]:
    n = scan_length(node)
    return model.repeat(model.rows(node.subgraphs["body"], model.join(scope, f"scan x{n}")), n)


@COST_RULES.register(VMAP)
def _vmap_cost(node: Node, model: CostModel, scope: str) -> list[OpCost]:
    n = node.attrs["axis_size"]  # one batched kernel per body op, doing the work of n examples
    return model.repeat(model.rows(node.subgraphs["body"], model.join(scope, f"vmap x{n}")), n)
