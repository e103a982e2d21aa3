"""XLA:CPU compile options chosen per program, for the first call's compile time.

XLA:CPU emits each fusion either with its MLIR fusion emitters (jax 0.10's default) or with its older LLVM IR
emitters (`xla_cpu_use_fusion_emitters=False`). The MLIR emitters pay a fixed price per fusion (an MLIR context,
its dialects and a pass pipeline each), which dominates a convolutional network's training step: its hundreds of
fusions are small batch-norm, activation and update kernels around library convolutions. The IR emitters compile
those steps 16-38% faster (EfficientNet-B0's step 5.6 -> 4.4 s, GoogLeNet's 7.5 -> 4.8 s, MobileNetV3-small's
5.0 -> 3.1 s) and the compiled step runs as fast; on a transformer (a ViT's step 1.7 -> 2.2 s) they are slower.
So a program with more convolutions than matrix products is compiled with the IR emitters
(docs/jit.md#xlacpus-emitters-chosen-per-program has the measurements).

A user's own `XLA_FLAGS` setting of the option wins, and a jaxlib that no longer knows the option gets none
(`msx/xla_options.py`, which eager's quick first compiles share).
"""
from __future__ import annotations

import os
from typing import Any

from jax._src.interpreters import mlir

from .. import xla_options


def census(lowered: Any) -> tuple[int, int]:
    """(convolutions, matrix products) in the lowered StableHLO module, nested functions included."""
    counts = {"stablehlo.convolution": 0, "stablehlo.dot_general": 0}

    def visit(op):
        name = op.name
        if name in counts:
            counts[name] += 1
        return mlir.ir.WalkResult.ADVANCE

    lowered.compiler_ir("stablehlo").operation.walk(visit)
    return counts["stablehlo.convolution"], counts["stablehlo.dot_general"]


def compile_options(lowered: Any, platform: str) -> dict[str, Any]:
    """The options to compile `lowered` with on `platform` (empty: XLA's defaults)."""
    emitters = xla_options.FUSION_EMITTERS
    if platform != "cpu" or emitters in xla_options.UNKNOWN or emitters in os.environ.get("XLA_FLAGS", ""):
        return {}
    convolutions, products = census(lowered)
    return {emitters: False} if convolutions > products else {}


def compile_lowered(lowered: Any, platform: str):
    """`lowered.compile()` with this program's options (`xla_options.compile_with`: an unknown one is dropped)."""
    return xla_options.compile_with(lowered, compile_options(lowered, platform))
