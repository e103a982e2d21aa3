"""Every primitive says how users reach it (docs/ops.md "Adding an op"): an `Api` on its declaration, a
hand-written wrapper registered with `expose(prim=...)`, or `internal="..."` naming who calls it instead.

`NOT_YET_SAID` is the debt when this rule came in (81 primitives whose wrappers do not name them yet): it may
only shrink. A new primitive without any of the three fails here.
"""
from __future__ import annotations

import msx  # noqa: F401  (declares every op, msx.numpy's too)
from msx.ops.api import WRAPPED
from msx.ops.primitive import REGISTRY

NOT_YET_SAID = frozenset("""
    AMinMax AvgPool AvgPool3D BCEWithLogitsLoss BatchDot BatchNorm Bernoulli BlockDiag CartesianProd
    ClipByGlobalNorm ClipByValue Combinations ConjugateTranspose Conv2D Conv2DTranspose Conv3D Conv3DTranspose
    Cov CrossEntropy Dense DiagEmbed DiagonalScatter Dropout Einsum FFTFreq FFTShift
    FlashAttentionScoreSoftmaxStats Flatten GatherD GetItem Histc IndexFill Interpolate LayerNorm LogSpace
    MatrixDiagPartV3 MatrixDiagV3 MatrixNorm MatrixSetDiagV3 MaxPool MaxPool3D NLLLoss Norm OneHot
    OptimizerUpdate Pad PadV3 Pdist Pinv Polygamma Print Quantile RandomSplit ReduceNanMean Renorm
    ScaledDotProductAttention SequenceMask SetItem Shard SliceScatter Stack StandardNormal StdVar Summary Svd
    TensorDot TopK Trapz TrilIndices TriuIndices UniformInt UniformReal Vander Window
""".split())


def _silent() -> set[str]:
    # a user's op (ops.Custom, CustomOpBuilder: "<module>.<name>", registered by other tests in this process) is
    # the user's declaration, not msx's
    return {n for n, p in REGISTRY.items() if not p.api and n not in WRAPPED and not p.internal and "." not in n}


def test_every_primitive_has_a_view_or_says_why_not():
    new = sorted(_silent() - NOT_YET_SAID)
    assert not new, f"primitives with no Api, no expose(prim=...) wrapper and no internal= reason: {new}"


def test_the_debt_list_only_shrinks():
    done = sorted(NOT_YET_SAID - _silent())
    assert not done, f"these now have a view or a reason: remove them from NOT_YET_SAID: {done}"


def test_a_reason_is_a_sentence_and_not_beside_an_api():
    for name, prim in REGISTRY.items():
        if prim.internal:
            assert not prim.api, f"{name} has an Api and says it is internal"
            assert len(prim.internal.split()) >= 4, f"{name}: internal= should say who calls it"
