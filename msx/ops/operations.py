"""`msx.ops.operations` (`from mindspore.ops import operations as P`): every class-style op.

The class ops (`classes.py`, most generated from their op's declaration), the collectives and custom ops
that live in their own modules, and MindSpore's internal or Ascend-only class ops (its `Cus*` kernels,
quantisation-training ops, `*Grad` ops, NPU float-status ops): those exist so that imports work, and
constructing one raises an `MsxError` that says what to use instead.
"""
from __future__ import annotations

from ..unavailable import refuse
from .classes import *  # noqa: F401,F403
from .classes import __all__ as _class_names
from .comm_ops import AllGather, AllReduce, Broadcast, ReduceOp, ReduceScatter  # noqa: F401
from .custom import Custom, CustomOpBuilder, kernel, ms_kernel  # noqa: F401
from .functional import identity  # noqa: F401  (MindSpore's operations exports the function too)
from .summary_ops import HistogramSummary, ImageSummary, ScalarSummary, TensorSummary  # noqa: F401

# MindSpore-internal names, grouped by what they are and what to use instead.
_UNAVAILABLE = {
    ("an Ascend custom kernel of MindSpore's model zoo", "use the ordinary op (ops.matmul, ops.transpose, ...)"): (
        "CusBatchMatMul CusCholeskyTrsm CusFusedAbsMax1 CusImg2Col CusMatMulCube CusMatMulCubeDenseLeft "
        "CusMatMulCubeDenseRight CusMatMulCubeFraczLeftCast CusMatMulCubeFraczRightMul CusMatrixCombine "
        "CusTranspose02314 LoadIm2Col NewIm2Col"),
    ("a quantisation-aware-training op", "msx has no quantisation training (train in float, then quantise)"): (
        "ActULQClampMaxGrad ActULQClampMinGrad ActsULQ ActsULQInputGrad BatchNormFold BatchNormFold2 "
        "BatchNormFold2D BatchNormFold2Grad BatchNormFold2GradD BatchNormFold2GradReduce BatchNormFoldD "
        "BatchNormFoldGrad BatchNormFoldGradD CorrectionMul CorrectionMulGrad CorrectionMulGradReduce "
        "FakeLearnedScaleQuantPerChannel FakeLearnedScaleQuantPerChannelGrad FakeLearnedScaleQuantPerChannelGradD "
        "FakeLearnedScaleQuantPerChannelGradDReduce FakeLearnedScaleQuantPerLayer FakeLearnedScaleQuantPerLayerGrad "
        "FakeLearnedScaleQuantPerLayerGradD FakeLearnedScaleQuantPerLayerGradDReduce FakeQuantParam "
        "FakeQuantPerChannel FakeQuantPerChannelGrad FakeQuantPerLayer FakeQuantPerLayerGrad "
        "FakeQuantWithMinMaxVars FakeQuantWithMinMaxVarsGradient FakeQuantWithMinMaxVarsPerChannel "
        "FakeQuantWithMinMaxVarsPerChannelGradient IFMR MinMaxUpdatePerChannel MinMaxUpdatePerLayer WtsARQ"),
    ("an internal gradient op", "msx differentiates with msx.grad / value_and_grad"): "CTCLossV2Grad",
    ("an Ascend NPU float-status op", "use amp.all_finite (or ops.isfinite) to detect overflow"): (
        "NPUAllocFloatStatus NPUClearFloatStatus NPUGetFloatStatus FloatStatus"),
    ("a kernel-registration helper for Ascend/GPU/AiCPU/AKG kernels",
     "msx runs custom ops as ops.Custom over jax (ops.CustomRegOp describes their dtypes)"): (
        "AiCPURegOp AkgAscendRegOp AkgGpuRegOp CpuRegOp TBERegOp"),
    ("an Ascend inference kernel for a paged KV cache",
     "use ops.flash_attention_score or nn.MultiheadAttention over a dense cache"): (
        "PagedAttention PagedAttentionMask ReshapeAndCache"),
    ("an internal node of MindSpore's graph compiler", "msx's jit captures Python directly (msx.jit)"): (
        "UpdateState PyExecute Load"),
}
UNAVAILABLE_NAMES = tuple(refuse(globals(), "mindspore.ops.operations", _UNAVAILABLE))  # ops re-exports them too

__all__ = sorted(set(_class_names) | {"AllGather", "AllReduce", "Broadcast", "ReduceOp", "ReduceScatter", "Custom",
                                      "CustomOpBuilder", "kernel", "ms_kernel", "identity", "HistogramSummary",
                                      "ImageSummary", "ScalarSummary", "TensorSummary"}
                 | set(UNAVAILABLE_NAMES))
