"""XLA compile options msx passes, and the one way it passes them: what jitted graphs and eager segments share.

Two callers choose options for their own reasons: the XLA backends give a convolutional program XLA:CPU's
LLVM-IR emitters (`backends/xla_cpu_options.py`), and eager mode compiles a first-sighting segment cheaply
(`eager/lazy.py`, `QUICK`). Both compile through `compile_with`, so an option that a jaxlib no longer knows
("No such compile option") is dropped once for the process, for every caller, and the program is compiled
without it instead of failing. A leaf module: eager sits below the backends.
"""
from __future__ import annotations

from typing import Any

FUSION_EMITTERS = "xla_cpu_use_fusion_emitters"  # False: XLA:CPU's LLVM-IR emitters instead of its MLIR ones
# A first-sighting eager segment (compiled once, replaced by a fully optimised executable if it repeats): XLA's
# optimisation level 0, the IR emitters and one LLVM module (docs/eager.md has the measurements; it keeps
# YNNPACK's fusions, whose matrix products a jitted step runs too, so eager and jit round alike)
QUICK = {"xla_backend_optimization_level": 0, FUSION_EMITTERS: False, "xla_cpu_parallel_codegen_split_count": 1}
UNKNOWN: set[str] = set()  # options this jaxlib refused: never passed again


def usable(options: dict[str, Any]) -> dict[str, Any]:
    """`options` without those this jaxlib refused before."""
    return {k: v for k, v in options.items() if k not in UNKNOWN}


def compile_with(lowered: Any, options: dict[str, Any]):
    """`lowered.compile()` with `options`; an option the jaxlib does not know is dropped (for good) and the
    program compiled without it. Other compile errors propagate."""
    options = usable(options)
    if not options:
        return lowered.compile()
    try:
        return lowered.compile(compiler_options=options)
    except Exception as exc:  # noqa: BLE001 - jax raises its JaxRuntimeError (a RuntimeError) for an unknown option
        if "No such compile option" not in str(exc):
            raise
        named = {k for k in options if k in str(exc)}
        UNKNOWN.update(named or options)
        return compile_with(lowered, options)
