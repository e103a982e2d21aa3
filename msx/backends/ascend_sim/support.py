"""Which unit of the simulated Ascend runs each op: the supported-op table, read from the primitive registry.

An Ascend AI Core has a Cube unit (matrix multiply) and a Vector unit
(elementwise, reductions, data movement); ops without an AI Core kernel run
on the AICPU (ARM cores beside the AI Cores) as slow fallbacks. The table is
derived from each registry entry's `category` (ARCHITECTURE rule 1), so an op
added to the registry appears here without an edit; two of this backend's
trait tables (`traits.py`, keyed by the primitive and checked against the
registry when filled) adjust what a category alone would say: `VIEW` (no
kernel, the same buffer) and `VECTOR_KERNEL` (an AI Core kernel for an op
whose category would run on the AICPU).
"""
from __future__ import annotations

from ...ir.graph import Const, Node
from ...ops.primitive import REGISTRY, Category
from .traits import VECTOR_KERNEL, VIEW as VIEW_OPS

CUBE, VECTOR, AICPU, VIEW = "Cube", "Vector", "AICPU", "view"

_BY_CATEGORY = {Category.MATMUL: CUBE, Category.CONV: CUBE, Category.ELEMENTWISE: VECTOR, Category.REDUCE: VECTOR,
                Category.SHAPE: VECTOR, Category.LOSS: VECTOR, Category.STATE: VECTOR}  # the rest -> AICPU
CUBE_DTYPES = {"float16", "bfloat16", "float32", "int8"}  # float32 is rounded by the precision rule


def runs_as_kernel(op: str) -> bool:
    """Whether op `op` is one kernel on the device: a declared op whose meaning is a jax impl. An op over
    subgraphs (`Cond`, `Scan`, ...) is none itself: it runs its subgraphs' kernels."""
    prim = REGISTRY.get(op)
    return prim is not None and prim.impl is not None


def unit_of_primitive(name: str) -> str:
    """The unit for a registry primitive, whatever its operands' dtypes."""
    prim = REGISTRY[name]
    if prim in VIEW_OPS:
        return VIEW
    return VECTOR if prim in VECTOR_KERNEL else _BY_CATEGORY.get(prim.category, AICPU)


def support_table() -> dict[str, str]:
    """Every registered op that runs as a kernel -> the unit that runs it ("Cube", "Vector", "AICPU" or "view")."""
    return {name: unit_of_primitive(name) for name in sorted(REGISTRY) if runs_as_kernel(name)}


def unit_of(node: Node) -> str:
    """The unit for one primitive node: the table, except that the Cube takes only `CUBE_DTYPES`."""
    unit = unit_of_primitive(node.op)
    if unit == CUBE and any(not isinstance(x, Const) and x.abstract.dtype not in CUBE_DTYPES
                            for x in node.inputs[:2]):
        return AICPU
    return unit
