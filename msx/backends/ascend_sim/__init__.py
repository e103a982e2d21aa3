"""The simulated Ascend NPU backend ("ascend"): precision rules, supported-op table, cost and memory model."""
from .backend import AscendExecutable, AscendSim
from .memory import DeviceOutOfMemoryError
from .precision import KEEP_FP32, PRECISION_MODES, PrecisionRule, apply_precision
from .report import AscendSpec, OpCost, ProfileReport
from .support import support_table

__all__ = ["AscendExecutable", "AscendSim", "AscendSpec", "DeviceOutOfMemoryError", "KEEP_FP32", "OpCost",
           "PRECISION_MODES", "PrecisionRule", "ProfileReport", "apply_precision", "support_table"]
