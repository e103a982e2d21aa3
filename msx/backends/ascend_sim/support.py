"""Which unit of the simulated Ascend runs each op: the supported-op table, read from the primitive registry.

An Ascend AI Core has a Cube unit (matrix multiply) and a Vector unit
(elementwise, reductions, data movement); ops without an AI Core kernel run
on the AICPU (ARM cores beside the AI Cores) as slow fallbacks. The table is
derived from each registry entry's `category` (ARCHITECTURE rule 1), so an op
added to the registry appears here without an edit; the few names below only
adjust what a category alone would say.
"""
from __future__ import annotations

from ...ir.graph import Const, Node
from ...ops.primitive import REGISTRY

CUBE, VECTOR, AICPU, VIEW = "Cube", "Vector", "AICPU", "view"

_BY_CATEGORY = {"matmul": CUBE, "conv": CUBE, "elementwise": VECTOR, "reduce": VECTOR, "shape": VECTOR,
                "loss": VECTOR, "state": VECTOR}  # anything else ("random", "other", new ones) -> AICPU
_AICORE_ANYWAY = {"BatchNorm": VECTOR, "LayerNorm": VECTOR, "Fill": VECTOR, "Range": VECTOR, "Eye": VECTOR,
                  "TopK": VECTOR, "ClipByGlobalNorm": VECTOR, "Dropout": VECTOR}
_VIEWS = {"Reshape", "Squeeze", "ExpandDims", "Flatten", "Identity", "StopGradient"}  # no kernel: same buffer
CUBE_DTYPES = {"float16", "bfloat16", "float32", "int8"}  # float32 is rounded by the precision rule


def unit_of_primitive(name: str) -> str:
    """The unit for a registry primitive, whatever its operands' dtypes."""
    if name in _VIEWS:
        return VIEW
    if name in _AICORE_ANYWAY:
        return _AICORE_ANYWAY[name]
    return _BY_CATEGORY.get(REGISTRY[name].category, AICPU)


def support_table() -> dict[str, str]:
    """Every registered primitive -> the unit that runs it ("Cube", "Vector", "AICPU" or "view")."""
    return {name: unit_of_primitive(name) for name in sorted(REGISTRY)}


def unit_of(node: Node) -> str:
    """The unit for one primitive node: the table, except that the Cube takes only `CUBE_DTYPES`."""
    unit = unit_of_primitive(node.op)
    if unit == CUBE and any(not isinstance(x, Const) and x.abstract.dtype not in CUBE_DTYPES
                            for x in node.inputs[:2]):
        return AICPU
    return unit
