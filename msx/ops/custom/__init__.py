"""Custom ops: C++ kernels through the XLA FFI (`CustomOpBuilder`), Python functions (`Custom`) and
MindSpore's Hybrid DSL (`kernel`), with MindSpore's registration info (`CustomRegOp`, `DataType`).

Both register ordinary primitives (category "custom") in the one registry;
`CUSTOM_OPS` says where each comes from, and `custom_op_records` /
`missing_custom_op_message` let export files record and explain them.
"""
from .builder import CustomFunction, CustomOpBuilder
from .compile import cache_root
from .custom import Custom
from .hybrid import kernel, ms_kernel
from .reg_info import CustomRegOp, DataType, custom_info_register
from .op import CUSTOM_OPS, CustomOp, CustomOpInfo, custom_op_records, missing_custom_op_message

__all__ = ["CUSTOM_OPS", "Custom", "CustomFunction", "CustomOp", "CustomOpBuilder", "CustomOpInfo", "CustomRegOp",
           "DataType", "cache_root", "custom_info_register", "custom_op_records", "kernel", "missing_custom_op_message",
           "ms_kernel"]
