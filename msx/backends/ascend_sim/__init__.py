"""The simulated Ascend NPU backend ("ascend"): precision rules, supported-op table, cost and memory model."""
from .backend import AscendExecutable, AscendSim
from .memory import DeviceOutOfMemoryError
from .precision import PRECISION_MODES, PrecisionRule, apply_precision, keep_fp32_ops
from .report import AscendSpec, OpCost, ProfileReport
from .support import support_table

__all__ = ["AscendExecutable", "AscendSim", "AscendSpec", "DeviceOutOfMemoryError", "OpCost",
           "PRECISION_MODES", "PrecisionRule", "ProfileReport", "apply_precision", "keep_fp32_ops", "support_table"]
