"""MindSpore's registration info for `ops.Custom`: `CustomRegOp`, `DataType` and `custom_info_register`.

    info = (CustomRegOp().input(0, "a").input(1, "b").output(0, "y")
            .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default)
            .target("CPU").get_op_info())

`get_op_info()` gives the same dict as MindSpore's. msx's Custom runs Python functions on the host, so of
that dict it reads what decides whether a call may run: the input dtypes of every `dtype_format` row of a
"CPU" (or target-less) info. A call whose input dtypes match no row is refused as MindSpore's CPU kernel
selection refuses it ("Unsupported data type"); formats are layout hints for Ascend kernels and have no
meaning on the host. `reg_dtypes` turns an info (a dict, its JSON text, or a list of them) into those rows.
"""
from __future__ import annotations

import functools
import json
from typing import Any, Callable

# ------------------------------------------------------------------ DataType
_FORMATS = {"None": "", "Default": "DefaultFormat", "5HD": "NC1HWC0", "FracZ": "FRACTAL_Z", "FracNZ": "FRACTAL_NZ",
            "C1HWNCoC0": "C1HWNCoC0", "NCHW": "NCHW", "NHWC": "NHWC", "HWCN": "HWCN", "NDHWC": "NDHWC",
            "ChannelLast": "ChannelLast", "Default_Tuple": ("DefaultFormat", "tuple"),
            "Default_List": ("DefaultFormat", "list"),
            "NCDHW": "NCDHW", "NDC1HWC0": "NDC1HWC0", "NC1HWC0": "NC1HWC0", "DHWCN": "DHWCN",
            "FRACTAL_Z_3D": "FRACTAL_Z_3D", "FracZNLSTM": "FRACTAL_ZN_LSTM", "FracZNRNN": "FRACTAL_ZN_RNN",
            "ND_RNNBIAS": "ND_RNN_BIAS"}
_COMMON = "None Default 5HD FracZ FracNZ C1HWNCoC0 NCHW NHWC HWCN NDHWC ChannelLast Default_Tuple Default_List"
_FLOAT = _COMMON + " NCDHW NDC1HWC0 DHWCN FRACTAL_Z_3D FracZNLSTM FracZNRNN ND_RNNBIAS"
# MindSpore's prefix -> (dtype, the formats it pairs with)
_PAIRS = {
    "None": ("", "None Default"), "BOOL": ("bool", _COMMON),
    "I8": ("int8", _COMMON + " NCDHW NDC1HWC0 NC1HWC0"), "U8": ("uint8", _COMMON + " NCDHW NDC1HWC0 NC1HWC0"),
    "I16": ("int16", _COMMON), "U16": ("uint16", _COMMON), "I32": ("int32", _COMMON + " NCDHW NDC1HWC0"),
    "U32": ("uint32", _COMMON), "I64": ("int64", _COMMON), "U64": ("uint64", _COMMON),
    "F16": ("float16", _FLOAT), "F32": ("float32", _FLOAT), "F64": ("float64", _COMMON), "BF16": ("bfloat16", _FLOAT),
    "C64": ("complex64", "Default Default_Tuple"), "C128": ("complex128", "Default Default_Tuple"),
}


class DataType:
    """MindSpore's `(dtype, format)` pairs for `CustomRegOp.dtype_format`: `DataType.F32_Default` is
    `("float32", "DefaultFormat")`, `DataType.I32_None` is `("int32", "")`; the `*_Default_Tuple` /
    `*_Default_List` ones add a third item, "tuple" or "list" (204 names, MindSpore 2.10's)."""


for _prefix, (_dtype, _names) in _PAIRS.items():
    for _fmt in _names.split():
        _format = _FORMATS[_fmt]
        setattr(DataType, f"{_prefix}_{_fmt}", (_dtype, *_format) if isinstance(_format, tuple) else (_dtype, _format))
del _prefix, _dtype, _names, _fmt, _format


# ------------------------------------------------------------------ CustomRegOp
def _check(value: Any, kind: type, what: str) -> None:
    if not isinstance(value, kind):
        raise TypeError(f"{value} value must be {what}")


class CustomRegOp:
    """MindSpore's builder of `ops.Custom` registration info (its `RegOp` keys: `op_name`, `inputs`,
    `outputs`, `attr`, `fusion_type`, `dtype_format`, `target`); every method but `get_op_info` returns self."""

    def __init__(self, op_name: str = "Custom") -> None:
        if not isinstance(op_name, str):
            raise ValueError("op name value must be string")
        if not op_name.strip():
            raise ValueError("op name is empty")
        self.op_name = op_name
        self.inputs: list[dict] = []
        self.outputs: list[dict] = []
        self.attr_: list[dict] = []
        self.fusion_type_ = ""
        self.dtype_format_: list[tuple] = []
        self.target_: str | None = "UnKnown"

    @staticmethod
    def _entry(values: dict, kinds: dict, kwargs: dict) -> dict:
        out = {}
        for key, value in values.items():
            if value is not None:
                _check(value, *kinds[key])
                out[key] = value
        return {**out, **kwargs}

    def input(self, index: int | None = None, name: str | None = None, param_type: str | None = "required",
              **kwargs) -> "CustomRegOp":
        """One input: `{"index", "name", "paramType"}` (a None leaves its key out), plus `kwargs`."""
        self.inputs.append(self._entry({"index": index, "name": name, "paramType": param_type},
                                       {"index": (int, "int"), "name": (str, "str"), "paramType": (str, "str")},
                                       kwargs))
        return self

    def output(self, index: int | None = None, name: str | None = None, param_type: str | None = "required",
               **kwargs) -> "CustomRegOp":
        """One output, as `input`."""
        self.outputs.append(self._entry({"index": index, "name": name, "paramType": param_type},
                                        {"index": (int, "int"), "name": (str, "str"), "paramType": (str, "str")},
                                        kwargs))
        return self

    def attr(self, name: str | None = None, param_type: str | None = None, value_type: str | None = None,
             default_value: str | None = None, **kwargs) -> "CustomRegOp":
        """One attribute: `{"name", "paramType", "type", "defaultValue"}`, every value a string."""
        kinds = dict.fromkeys(("name", "paramType", "type", "defaultValue"), (str, "str"))
        self.attr_.append(self._entry({"name": name, "paramType": param_type, "type": value_type,
                                       "defaultValue": default_value}, kinds, kwargs))
        return self

    def fusion_type(self, fusion_type: str) -> "CustomRegOp":
        _check(fusion_type, str, "str")
        self.fusion_type_ = fusion_type
        return self

    def dtype_format(self, *args: tuple) -> "CustomRegOp":
        """One supported combination: a `(dtype, format)` pair (a `DataType` name) per input, then per output."""
        io_nums = len(self.inputs) + len(self.outputs)
        if len(args) != io_nums:
            raise ValueError(f"The size of 'args' must be equal to the sum of input tensors and output tensors, but "
                             f"got {len(args)} vs {io_nums}")
        for arg in args:
            if not isinstance(arg, tuple) or len(arg) not in (2, 3):
                raise ValueError("dtype and format value must be tuple of two or three elements")
            for item in arg:
                _check(item, str, "str")
        self.dtype_format_.append(tuple(args))
        return self

    def target(self, target: str | None = None) -> "CustomRegOp":
        """The device this info is for ("Ascend", "GPU", "CPU"); None: inferred by Custom."""
        if target is not None:
            _check(target, str, "str")
        self.target_ = target
        return self

    def get_op_info(self) -> dict:
        """The info as a dict (keys without their trailing underscore), as MindSpore's."""
        return {(k.rstrip("_") if k.endswith("_") else k): v for k, v in vars(self).items()}


def custom_info_register(*reg_info: Any) -> Callable:
    """MindSpore's decorator binding registration info to a Custom's function (as `func.reg_info`)."""

    def decorator(func: Callable) -> Callable:
        func.reg_info = reg_info

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)

        return wrapper

    return decorator


# ------------------------------------------------------------------ what a Custom reads of it
def _infos(reg_info: Any, owner: str) -> list[dict]:
    items = list(reg_info) if isinstance(reg_info, (list, tuple)) else [reg_info]
    out = []
    for item in items:
        if isinstance(item, (list, tuple)):
            out.extend(_infos(item, owner))
            continue
        if isinstance(item, str):
            try:
                item = json.loads(item)
            except ValueError as exc:
                raise ValueError(f"{owner}: reg_info is not valid JSON: {exc}") from None
        if not isinstance(item, dict):
            raise TypeError(f"{owner}: reg_info must be a dict, its JSON text, or a list of them (use "
                            f"CustomRegOp().get_op_info()), got {type(item).__name__}")
        out.append(item)
    return out


def reg_dtypes(reg_info: Any, owner: str) -> tuple[tuple[str, ...], ...] | None:
    """The input-dtype rows a host (CPU) call must match, or None when the info sets none (any dtype runs)."""
    if reg_info is None:
        return None
    rows = []
    for info in _infos(reg_info, owner):
        if info.get("target") not in (None, "UnKnown", "CPU"):
            continue  # another device's info
        n_in = len(info.get("inputs") or [])
        for row in info.get("dtype_format") or []:
            rows.append(tuple(str(pair[0]) for pair in list(row)[:n_in]))
    return tuple(rows) if rows else None
