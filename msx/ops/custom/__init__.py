"""Custom ops: C++ kernels through the XLA FFI (`CustomOpBuilder`) and Python functions (`Custom`).

Both register ordinary primitives (category "custom") in the one registry;
`CUSTOM_OPS` says where each comes from, and `custom_op_records` /
`missing_custom_op_message` let export files record and explain them.
"""
from .builder import CustomFunction, CustomOpBuilder
from .compile import cache_root
from .custom import Custom
from .op import CUSTOM_OPS, CustomOp, CustomOpInfo, custom_op_records, missing_custom_op_message

__all__ = ["CUSTOM_OPS", "Custom", "CustomFunction", "CustomOp", "CustomOpBuilder", "CustomOpInfo", "cache_root",
           "custom_op_records", "missing_custom_op_message"]
