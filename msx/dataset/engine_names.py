"""Module-level names `mindspore.dataset` exposes from its engine, with their meaning in msx: the dtype tables,
`select_sampler`, `LineReader`, the Python-function wrappers and the constants.

What is MindSpore-internal plumbing with no msx meaning (Huawei OBS, offload to Ascend, encrypted MindRecord,
worker processes driven by its C++ engine) is absent or refuses with what to use instead (see docs/dataset.md).
"""
from __future__ import annotations

import enum
import os
import sys
import traceback
import warnings
from enum import Enum  # noqa: F401 — MindSpore's module re-exports it
from importlib import import_module  # noqa: F401 — MindSpore's module re-exports it
from types import GeneratorType  # noqa: F401 — MindSpore's module re-exports it
from typing import Any, Callable

from .. import dtype as mstype
from ..errors import DatasetError
from ..tensor import Tensor  # noqa: F401 — MindSpore's module re-exports its Tensor
from .readers.text_files import Shuffle
from .samplers import (BuiltinSampler, DistributedSampler, IterSampler, RandomSampler, Sampler,
                       SequentialSampler, SubsetSampler)
from .text.sentencepiece_ops import SentencePieceModel
from .validators import check_value, type_check

MAX_METADATA_LENGTH = 2048  # MindSpore's limit on a dataset's metadata string

# MindSpore's numbering of its dtypes (its TypeId), both ways
int_to_mstype = {0: mstype.bool_, 1: mstype.int8, 3: mstype.int16, 5: mstype.int32, 7: mstype.int64,
                 8: mstype.uint8, 9: mstype.uint16, 10: mstype.uint32, 11: mstype.uint64, 13: mstype.float16,
                 15: mstype.float32, 17: mstype.float64, 18: mstype.bfloat16}
mstype_to_int = {t: i for i, t in int_to_mstype.items()}

# MindSpore maps its Python enum to the C++ one; msx's pipeline uses the Python enum itself
DE_C_INTER_SENTENCEPIECE_MODE = {mode: mode for mode in SentencePieceModel}

_DETYPE = {mstype.bool_: "bool", mstype.int8: "int8", mstype.int16: "int16", mstype.int32: "int32",
           mstype.int64: "int64", mstype.uint8: "uint8", mstype.uint16: "uint16", mstype.uint32: "uint32",
           mstype.uint64: "uint64", mstype.float16: "float16", mstype.float32: "float32",
           mstype.float64: "float64", mstype.bfloat16: "bfloat16"}


def mstype_to_detype(type_: Any) -> str:
    """The dataset type name of an msx dtype (`msx.int32` -> "int32", `msx.string` -> "string"): what msx's
    `Schema` and serialized pipelines store (MindSpore returns its C++ `DataType` of that name). Anything else
    is a `NotImplementedError`, as in MindSpore."""
    for t, name in _DETYPE.items():
        if type_ is t or (isinstance(type_, mstype.Type) and type_ == t):
            return name
    raise NotImplementedError(f"mstype_to_detype: {type_!r} is not an msx dtype")


def select_sampler(num_samples: Any, input_sampler: Any, shuffle: Any, num_shards: Any, shard_id: Any) -> Sampler:
    """The sampler a reader's arguments mean, by MindSpore's rules: `shuffle` a `Shuffle` mode (FALSE: in order,
    else random), `input_sampler` a sampler (then every other argument must be None), a list of indices, an
    iterable of them, or one index."""
    if input_sampler is None and not isinstance(shuffle, Shuffle):
        raise DatasetError(f"The input parameter shuffle: {shuffle} is not valid.")
    if input_sampler is not None:
        if isinstance(input_sampler, BuiltinSampler) and any(
                a is not None for a in (num_shards, shard_id, shuffle, num_samples)):
            raise DatasetError(f"Conflicting arguments during sampler assignments. num_samples: {num_samples}, "
                               f"num_shards: {num_shards}, shard_id: {shard_id}, shuffle: {shuffle}.")
        if isinstance(input_sampler, Sampler):
            return input_sampler
        if isinstance(input_sampler, (list, tuple)) or type(input_sampler).__name__ == "ndarray":
            return SubsetSampler(input_sampler, num_samples)
        if isinstance(input_sampler, int) and not isinstance(input_sampler, bool):
            return SubsetSampler([input_sampler])
        if not isinstance(input_sampler, (str, bytes)) and hasattr(input_sampler, "__iter__"):
            return IterSampler(input_sampler, num_samples)
        raise DatasetError(f"Unsupported sampler object of type ({type(input_sampler)})")
    if shuffle is not Shuffle.FALSE:
        if num_shards is not None:
            return DistributedSampler(num_shards, shard_id, shuffle=True, num_samples=num_samples)
        return RandomSampler(replacement=num_samples is not None, num_samples=num_samples)
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle=False, num_samples=num_samples)
    return SequentialSampler(num_samples=num_samples)


class Implementation(enum.Enum):
    """Where an operation is implemented: C (MindSpore's C++ kernels) or PY (Python). msx runs every transform in
    Python/numpy; its transforms report C where MindSpore's counterpart is C++, as MindSpore's do."""

    C = 0
    PY = 1


class ExceptionHandler:
    """An exception caught where it happened (a worker, a Python function in `map`), to raise again in the caller
    with its traceback in the message (MindSpore's)."""

    def __init__(self, except_info: Any = None, where: str = "in python function") -> None:
        if except_info is None:
            except_info = sys.exc_info()
        self.where = where
        self.except_type = except_info[0]
        self.except_msg = "".join(traceback.format_exception(*except_info))

    def reraise(self) -> None:
        """Raise the caught exception's type, its message the last traceback of the caught one."""
        starts = [i for i in range(len(self.except_msg)) if self.except_msg.startswith("Traceback", i)]
        message = self.except_msg[starts[-1]:].strip() if starts else self.except_msg.strip()
        raise self.except_type(message)


class FuncWrapper:
    """A Python function as a pipeline operation (MindSpore's wrapper): calls it, re-raising any exception with
    where it happened; warns once when it returns a list of mixed element types."""

    def __init__(self, transform: Callable) -> None:
        if not callable(transform):
            raise DatasetError("Input operations should be callable Python function, but got: " + str(transform))
        self.transform = transform
        self.implementation = Implementation.C
        self.random = False
        self.logged_list_mixed_type_warning = False

    def __call__(self, *args: Any) -> Any:
        try:
            result = self.transform(*args)
        except Exception:  # noqa: BLE001 — re-raised with its traceback, as MindSpore does
            ExceptionHandler(where="in map(or batch) worker and execute Python function").reraise()
        if isinstance(result, list) and result and not self.logged_list_mixed_type_warning:
            first = type(result[0])
            if not all(type(t) is first for t in result):
                self.logged_list_mixed_type_warning = True
                warnings.warn("All elements in returned list are not of the same type in Python function. First "
                              f"element has type: {first}", UserWarning)
        return result

    def to_json(self) -> dict:
        """MindSpore's JSON form of a Python operation; msx's `serialize` refuses to store Python functions."""
        return {"tensor_op_name": getattr(self.transform, "__name__", type(self.transform).__name__),
                "python_module": getattr(self.transform, "__module__", "")}


class LineReader:
    """Random access to the lines of a text file (MindSpore's): the line offsets are read once; `readline(n)`
    (from 1) gives line n without its line break, `len()` the line count, `close()` closes the handle."""

    def __init__(self, filename: str) -> None:
        type_check(filename, (str,), "filename")
        self.filename = os.path.realpath(filename)
        if not os.path.exists(self.filename):
            raise DatasetError(f"The input file [{filename}] does not exist.")
        if not os.path.isfile(self.filename):
            raise DatasetError(f"The input file [{filename}] is not a regular file.")
        self.offsets = [0]
        with open(self.filename, mode="rb") as f:
            while f.readline():
                self.offsets.append(f.tell())
        self.offsets.pop()
        if not self.offsets:
            warnings.warn(f"The input file [{filename}] is empty.", UserWarning)
        self.fo_handle = None

    def __getitem__(self, line: int) -> str:
        return self.readline(line)

    def __len__(self) -> int:
        return self.len()

    def __del__(self) -> None:
        self.close()

    def len(self) -> int:
        return len(self.offsets)

    def readline(self, line: int) -> str:
        type_check(line, (int,), "line")
        check_value(line, [1, len(self.offsets)], "line")
        if self.fo_handle is None:
            self.fo_handle = open(self.filename, mode="rt", newline="")  # noqa: SIM115 — kept for the next reads
        self.fo_handle.seek(self.offsets[line - 1])
        content = self.fo_handle.readline()
        for end in ("\r\n", "\n", "\r"):
            if content.endswith(end):
                return content[:-len(end)]
        return content

    def close(self) -> None:
        if getattr(self, "fo_handle", None) is not None:
            self.fo_handle.close()
            self.fo_handle = None
