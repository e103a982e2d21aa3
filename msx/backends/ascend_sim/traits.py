"""The simulated Ascend's traits of first-order primitives: tables its rules own, keyed by the primitive.

Three facts about an op matter only to an Ascend device model, so they live
here beside the rules that read them, not on the core `Primitive` (jax's
pattern: a consumer's rule table keyed by the primitive, e.g.
`mlir.register_lowering`):

- `KEEP_FP32`: precision-sensitive ops whose float32 results mixed precision
  ("allow_mix_precision") leaves in float32 (`precision.py`);
- `VIEW`: ops with no kernel, whose result is their first operand's buffer (a
  reshape): free in the cost model, sharing a buffer in the memory model;
- `VECTOR_KERNEL`: ops with a Vector-unit kernel although their category alone
  would run them on the AICPU (`support.py`).

The tables are filled below by MindSpore name; `declare_traits` resolves each
name in the registry and checks that the trait means something for the op's
category, so a misspelt name or a trait on the wrong kind of op fails at
import, never switches a rule off silently. An op added later (a user's
custom op) has none of the traits until it is declared here.
"""
from __future__ import annotations

from ...ops.primitive import REGISTRY, Category, Primitive

KEEP_FP32: set[Primitive] = set()
VIEW: set[Primitive] = set()
VECTOR_KERNEL: set[Primitive] = set()

_LOW_PRECISION_RESULTS = (Category.ELEMENTWISE, Category.MATMUL, Category.CONV)  # what mixed precision narrows


def _keep_fp32_problem(prim: Primitive) -> str | None:
    if prim.category not in _LOW_PRECISION_RESULTS:
        return (f"keep_fp32 means nothing for category {prim.category.value!r} "
                f"(only {[c.value for c in _LOW_PRECISION_RESULTS]} results are narrowed)")
    return None


def _view_problem(prim: Primitive) -> str | None:
    if prim.category not in (Category.SHAPE, Category.ELEMENTWISE) or prim.multiple_results:
        return "view=True needs one result of a shape or elementwise op"
    return None


def _vector_kernel_problem(prim: Primitive) -> str | None:
    if prim.category not in (Category.OTHER, Category.RANDOM):
        return (f"vector_kernel=True is for 'other'/'random' ops; category {prim.category.value!r} already says "
                f"where it runs")
    return None


TRAITS = {"keep_fp32": (KEEP_FP32, _keep_fp32_problem), "view": (VIEW, _view_problem),
          "vector_kernel": (VECTOR_KERNEL, _vector_kernel_problem)}


def declare_traits(trait: str, *ops: "str | Primitive") -> None:
    """Give each of `ops` (registered primitives or their names) the Ascend `trait` (a key of `TRAITS`);
    `ValueError` for an unknown trait, an unregistered name, or a trait the op's category makes meaningless."""
    if trait not in TRAITS:
        raise ValueError(f"unknown Ascend trait {trait!r}; traits are {sorted(TRAITS)}")
    table, problem = TRAITS[trait]
    for op in ops:
        prim = op if isinstance(op, Primitive) else REGISTRY.get(op)
        if prim is None:
            raise ValueError(f"Ascend trait {trait}: {op!r} is not a registered primitive")
        reason = problem(prim)
        if reason is not None:
            raise ValueError(f"primitive {prim.name!r}: {reason}")
        table.add(prim)


declare_traits("keep_fp32", "Cast", "Exp", "Log", "Log1p", "Pow", "RealDiv", "Reciprocal", "Rsqrt", "Softplus", "Sqrt")
declare_traits("view", "ExpandDims", "Flatten", "Identity", "Reshape", "Slice", "Squeeze", "StopGradient")
declare_traits("vector_kernel", "BatchNorm", "ClipByGlobalNorm", "Dropout", "Eye", "Fill", "LayerNorm", "Range", "TopK")
