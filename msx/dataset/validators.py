"""MindSpore's dataset argument validators (`mindspore/dataset/engine/validators.py`): decorators that check a
dataset method's arguments before it runs and raise MindSpore's errors with MindSpore's messages.

    @check_shuffle
    def shuffle(self, buffer_size): ...

A type error is a `DatasetTypeError` (a `TypeError` and a `DatasetError`), a value error a `DatasetError` (a
`ValueError`), a conflict MindSpore reports from its engine a `DatasetError` too. Each decorator binds the call to
the method's own signature (MindSpore's `parse_user_args`), so it fits any method whose parameters are named and
ordered as MindSpore's. msx's `Dataset` methods use them (`base.py`); the messages are checked against MindSpore
2.10 in tests/golden/dataset_names/.
"""
from __future__ import annotations

import functools
import inspect
import os
import sys
from typing import Any, Callable

from .. import dtype as mstype
from ..errors import DatasetError, DatasetTypeError
from ..tensor import Tensor
from .callbacks import DSCallback

INT32_MAX = 2147483647
INT32_MIN = -2147483648
UINT32_MAX = 4294967295


# ------------------------------------------------------------------ MindSpore's validator helpers
def parse_user_args(method: Callable, *args: Any, **kwargs: Any) -> tuple[list, dict]:
    """(the values of the method's parameters after `self`, in order; {name: value}) for this call."""
    sig = inspect.signature(method)
    names = list(sig.parameters)
    if names and names[0] in ("self", "cls"):
        bound = sig.bind(None, *args, **kwargs)
        names = names[1:]
    else:
        bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return [bound.arguments.get(n) for n in names], dict(bound.arguments)


def type_check(arg: Any, types: tuple, arg_name: str) -> None:
    shown = '""' if repr(arg) == repr("") else arg
    if int in types and bool not in types and isinstance(arg, bool):
        raise DatasetTypeError(f"Argument {arg_name} with value {shown} is not of type {types}, but got {type(arg)}.")
    if not isinstance(arg, types):
        raise DatasetTypeError(f"Argument {arg_name} with value {shown} is not of type {list(types)}, "
                               f"but got {type(arg)}.")


def type_check_list(args: Any, types: tuple, arg_names: Any) -> None:
    type_check(args, (list, tuple), arg_names)
    if not isinstance(arg_names, str) and len(args) != len(arg_names):
        raise DatasetError("List of arguments is not the same length as argument_names.")
    names = [f"{arg_names}[{i}]" for i in range(len(args))] if isinstance(arg_names, str) else arg_names
    for arg, name in zip(args, names):
        type_check(arg, types, name)


def check_value(value: Any, valid_range: Any, arg_name: str = "") -> None:
    """`value` within the closed interval `valid_range`."""
    name = arg_name + " " if arg_name else ""
    if value < valid_range[0] or value > valid_range[1]:
        raise DatasetError(f"Input {name}is not within the required interval of [{valid_range[0]}, "
                           f"{valid_range[1]}].")


def check_pos_int32(value: Any, arg_name: str = "") -> None:
    type_check(value, (int,), arg_name)
    check_value(value, [1, INT32_MAX], arg_name)


def check_uint32(value: Any, arg_name: str = "") -> None:
    type_check(value, (int,), arg_name)
    check_value(value, [0, UINT32_MAX], arg_name)


def check_int32(value: Any, arg_name: str = "") -> None:
    type_check(value, (int,), arg_name)
    check_value(value, [INT32_MIN, INT32_MAX], arg_name)


def check_columns(columns: Any, name: str) -> None:
    """A column name or a non-empty list of distinct, non-empty names."""
    type_check(columns, (list, str), name)
    if isinstance(columns, str):
        if not columns:
            raise DatasetError(f"{name} should not be an empty str.")
        return
    if not columns:
        raise DatasetError(f"{name} should not be empty.")
    for i, column in enumerate(columns):
        if not column:
            raise DatasetError(f"{name}[{i}] should not be empty.")
    type_check_list(columns, (str,), [f"{name}[{i}]" for i in range(len(columns))])
    if len(set(columns)) != len(columns):
        raise DatasetError("Every column name should not be same with others in column_names.")


def check_num_parallel_workers(value: Any) -> None:
    """An int >= 1. MindSpore also refuses more workers than CPU cores; msx's workers are grain threads, and more
    threads than cores is allowed (they overlap reading), so only the lower bound is kept."""
    type_check(value, (int,), "num_parallel_workers")
    if value < 1:
        raise DatasetError(f"num_parallel_workers exceeds the boundary between 1 and {os.cpu_count() or 1}!")


def _bool_params(names: list[str], params: dict) -> None:
    for name in names:
        if params.get(name) is not None:
            type_check(params[name], (bool,), name)


def check_pad_info(key: Any, val: Any) -> None:
    type_check(key, (str,), "key in pad_info")
    if val is None:
        return
    if len(val) != 2:
        raise DatasetError("value of pad_info should be a tuple of size 2.")
    type_check(val, (tuple,), "value in pad_info")
    if val[0] is not None:
        type_check(val[0], (list,), "shape in pad_info")
        for dim in val[0]:
            if dim is not None:
                check_pos_int32(dim, "dim of shape in pad_info")
    if val[1] is not None:
        type_check(val[1], (int, float, str, bytes), "pad_value")


def _validator(check: Callable[[list, dict], None]) -> Callable[[Callable], Callable]:
    """A decorator factory: `check(values, params)` runs on the bound arguments before the method."""
    def decorator(method: Callable) -> Callable:
        @functools.wraps(method)
        def new_method(*args: Any, **kwargs: Any) -> Any:
            values, params = parse_user_args(method, *args[1:], **kwargs) if _has_self(method) \
                else parse_user_args(method, *args, **kwargs)
            check(values, params)
            return method(*args, **kwargs)
        return new_method
    decorator.__doc__ = check.__doc__
    return decorator


def _has_self(method: Callable) -> bool:
    params = list(inspect.signature(method).parameters)
    return bool(params) and params[0] in ("self", "cls")


def _int_range_count(count: Any, message: str) -> None:
    type_check(count, (int,), "count")
    if (count <= 0 and count != -1) or count > INT32_MAX:
        raise DatasetError(message.format(count))


# ------------------------------------------------------------------ the decorators, by method
def _shuffle(values: list, params: dict) -> None:
    """shuffle(buffer_size): an int in [2, INT32_MAX]."""
    type_check(values[0], (int,), "buffer_size")
    check_value(values[0], [2, INT32_MAX], "buffer_size")


def _repeat(values: list, params: dict) -> None:
    """repeat(count): None, -1 or a positive int32."""
    count = values[0]
    type_check(count, (int, type(None)), "repeat")
    if isinstance(count, int) and ((count <= 0 and count != -1) or count > INT32_MAX):
        raise DatasetError("count should be either -1 or positive integer, range[1, INT32_MAX].")


def _take(values: list, params: dict) -> None:
    """take(count): -1 or a positive int32."""
    _int_range_count(values[0], "count should be either -1 or within the required interval of (0, 2147483647], "
                                "got {}.")


def _skip(values: list, params: dict) -> None:
    """skip(count): an int in [0, INT32_MAX]."""
    type_check(values[0], (int,), "count")
    check_value(values[0], (0, INT32_MAX), "count")


def _project(values: list, params: dict) -> None:
    """project(columns): column names."""
    check_columns(values[0], "columns")


def _rename(values: list, params: dict) -> None:
    """rename(input_columns, output_columns): as many names each."""
    for name, value in zip(("input_columns", "output_columns"), values):
        check_columns(value, name)
    sizes = [len(v) if isinstance(v, list) else 1 for v in values[:2]]
    if sizes[0] != sizes[1]:
        raise DatasetError("Number of column in input_columns and output_columns is not equal.")


def _filter(values: list, params: dict) -> None:
    """filter(predicate, input_columns, num_parallel_workers)."""
    predicate, input_columns, workers = values[:3]
    if not callable(predicate):
        raise DatasetTypeError("Predicate should be a Python function or a callable Python object.")
    if workers is not None:
        check_num_parallel_workers(workers)
    if input_columns is not None:
        check_columns(input_columns, "input_columns")


def _split(values: list, params: dict) -> None:
    """split(sizes, randomize): ints > 0, or fractions in (0, 1] summing to 1."""
    sizes, randomize = values[:2]
    type_check(sizes, (list,), "sizes")
    type_check(randomize, (bool,), "randomize")
    if not sizes:
        raise DatasetError("sizes cannot be empty.")
    all_int = all(isinstance(s, int) for s in sizes)
    all_float = all(isinstance(s, float) for s in sizes)
    if not (all_int or all_float):
        raise DatasetError("sizes should be list of int or list of float.")
    if all_int and not all(s > 0 for s in sizes):
        raise DatasetError("sizes is a list of int, but there should be no negative or zero numbers.")
    if all_float:
        if not all(0 < s <= 1 for s in sizes):
            raise DatasetError("sizes is a list of float, but there should be no numbers outside the range (0, 1].")
        if not abs(sum(sizes) - 1) < 0.00001:
            raise DatasetError("sizes is a list of float, but the percentages do not sum up to 1.")


def _zip(values: list, params: dict) -> None:
    """the module-level zip(datasets): a tuple."""
    type_check(values[0], (tuple,), "datasets")


def _dataset_types() -> tuple:
    # base.py imports this module for its methods' decorators, so Dataset is looked up, not imported (no cycle)
    return (sys.modules[__package__ + ".base"].Dataset,)


def _zip_dataset(values: list, params: dict) -> None:
    """Dataset.zip(datasets): a Dataset or a tuple of them."""
    type_check(values[0], (tuple, *_dataset_types()), "datasets")


def _concat(values: list, params: dict) -> None:
    """Dataset.concat(datasets): a Dataset or a list of them."""
    dataset = _dataset_types()
    type_check(values[0], (list, *dataset), "datasets")
    if isinstance(values[0], list):
        type_check_list(values[0], dataset, "dataset")


def _sync_wait(values: list, params: dict) -> None:
    """sync_wait(condition_name, num_batch, callback)."""
    type_check(values[0], (str,), "condition_name")
    type_check(values[1], (int,), "num_batch")


def _sync_update(values: list, params: dict) -> None:
    """sync_update(condition_name, num_batch, data): MindSpore checks nothing more here."""


def _save(values: list, params: dict) -> None:
    """save(file_name, num_files, file_type)."""
    if params.get("num_files") is not None:
        type_check(params["num_files"], (int,), "num_files")
    if params.get("num_files") <= 0 or params.get("num_files") > 1000:
        raise DatasetError("num_files should between 0 and 1000.")
    for name in ("file_name", "file_type"):
        if params.get(name) is not None:
            type_check(params[name], (str,), name)
    if params.get("file_type") != "mindrecord":
        raise DatasetError(f"{params.get('file_type')} dataset format is not supported.")


def _num_epochs(num_epochs: Any) -> None:
    if num_epochs is not None:
        type_check(num_epochs, (int,), "num_epochs")
        check_value(num_epochs, [-1, INT32_MAX], "num_epochs")


def _tuple_iterator(values: list, params: dict) -> None:
    """create_tuple_iterator(columns, num_epochs, output_numpy, do_copy)."""
    _bool_params(["output_numpy", "do_copy"], params)
    _num_epochs(values[1])
    if values[0] is not None:
        check_columns(values[0], "column_names")


def _dict_iterator(values: list, params: dict) -> None:
    """create_dict_iterator(num_epochs, output_numpy, do_copy)."""
    _bool_params(["output_numpy", "do_copy"], params)
    _num_epochs(values[0])


def _to_device_send(values: list, params: dict) -> None:
    """TransferDataset.send(num_epochs)."""
    _num_epochs(values[0])


def _device_send(values: list, params: dict) -> None:
    """device_que(send_epoch_end, create_data_info_queue, queue_name)."""
    type_check(values[0], (bool,), "send_epoch_end")
    type_check(values[1], (bool,), "create_data_info_queue")
    type_check(values[2], (str,), "queue_name")


def _output_shape(values: list, params: dict) -> None:
    """output_shapes(estimate)."""
    type_check(params.get("estimate"), (bool,), "estimate")


def _batch_size(batch_size: Any, allow_minus_one: bool) -> None:
    if not (isinstance(batch_size, int) or callable(batch_size)):
        raise DatasetTypeError("batch_size should either be an int or a callable.")
    if callable(batch_size):
        if len(inspect.signature(batch_size).parameters) != 1:
            raise DatasetError("callable batch_size should take one parameter (BatchInfo).")
    elif not (allow_minus_one and batch_size == -1):
        check_pos_int32(int(batch_size), "batch_size")


def _pad_info_arg(pad_info: Any) -> None:
    if pad_info is not None:
        type_check(pad_info, (dict,), "pad_info")
        for key, value in pad_info.items():
            check_pad_info(key, value)


def _batch(values: list, params: dict) -> None:
    """batch(batch_size, drop_remainder, num_parallel_workers, **kwargs)."""
    batch_size, drop_remainder, workers = values[:3]
    kwargs = dict(params.get("kwargs") or {})
    _batch_size(batch_size, True)
    if workers is not None:
        check_num_parallel_workers(workers)
    type_check(drop_remainder, (bool,), "drop_remainder")
    per_batch_map, input_columns = kwargs.get("per_batch_map"), kwargs.get("input_columns")
    if input_columns is not None and per_batch_map is None:
        raise DatasetError("input_columns can be specified only when per_batch_map is set.")
    if input_columns is not None:
        check_columns(input_columns, "input_columns")
        if len(input_columns) != len(inspect.signature(per_batch_map).parameters) - 1:
            raise DatasetError("The signature of per_batch_map should match with input columns.")
    if kwargs.get("output_columns") is not None:
        check_columns(kwargs["output_columns"], "output_columns")
    if kwargs.get("python_multiprocessing") is not None:
        type_check(kwargs["python_multiprocessing"], (bool,), "python_multiprocessing")


def _padded_batch(values: list, params: dict) -> None:
    """padded_batch(batch_size, drop_remainder, num_parallel_workers, pad_info)."""
    batch_size, drop_remainder, workers, pad_info = values[:4]
    _batch_size(batch_size, False)
    if workers is not None:
        check_num_parallel_workers(workers)
    type_check(drop_remainder, (bool,), "drop_remainder")
    _pad_info_arg(pad_info)


def _bucket_batch_by_length(values: list, params: dict) -> None:
    """bucket_batch_by_length(column_names, bucket_boundaries, bucket_batch_sizes, element_length_function,
    pad_info, pad_to_bucket_boundary, drop_remainder)."""
    names, bounds, sizes, length_fn, pad_info, to_boundary, drop = values[:7]
    type_check_list([names, bounds, sizes], (list,), ["column_names", "bucket_boundaries", "bucket_batch_sizes"])
    type_check_list([to_boundary, drop], (bool,), ["pad_to_bucket_boundary", "drop_remainder"])
    check_columns(names, "column_names")
    if length_fn is None and len(names) != 1:
        raise DatasetError("If element_length_function is not specified, exactly one column name should be passed.")
    if length_fn is not None and not callable(length_fn):
        raise DatasetTypeError("element_length_function object is not callable.")
    if not bounds:
        raise DatasetError("bucket_boundaries cannot be empty.")
    if not all(isinstance(b, int) for b in bounds):
        raise DatasetTypeError("bucket_boundaries should be a list of int.")
    if not all(b > 0 for b in bounds):
        raise DatasetError("bucket_boundaries must only contain positive numbers.")
    if any(not bounds[i + 1] > bounds[i] for i in range(len(bounds) - 1)):
        raise DatasetError("bucket_boundaries should be strictly increasing.")
    if len(sizes) != len(bounds) + 1:
        raise DatasetError("bucket_batch_sizes must contain one element more than bucket_boundaries.")
    if not all(isinstance(s, int) for s in sizes):
        raise DatasetTypeError("bucket_batch_sizes should be a list of int.")
    if not all(s > 0 for s in sizes):
        raise DatasetError("bucket_batch_sizes should be a list of positive numbers.")
    _pad_info_arg(pad_info)


def _map(values: list, params: dict) -> None:
    """map(operations, input_columns, output_columns, num_parallel_workers, **kwargs)."""
    operations, input_columns, output_columns, workers = values[:4]
    kwargs = dict(params.get("kwargs") or {})
    if "python_multiprocessing" in params:  # msx's map names it; MindSpore's takes it in **kwargs
        kwargs["python_multiprocessing"] = params["python_multiprocessing"]
    if workers is not None:
        check_num_parallel_workers(workers)
    type_check(kwargs.get("python_multiprocessing", False), (bool,), "python_multiprocessing")
    if kwargs.get("offload") is not None:
        type_check(kwargs["offload"], (bool,), "offload")
    callbacks = kwargs.get("callbacks")
    if callbacks is not None:
        if isinstance(callbacks, (list, tuple)):
            type_check_list(callbacks, (DSCallback,), "callbacks")
        else:
            type_check(callbacks, (DSCallback,), "callbacks")
    for name, value in (("input_columns", input_columns), ("output_columns", output_columns)):
        if value is not None:
            check_columns(value, name)


def _schema(values: list, params: dict) -> None:
    """Schema(schema_file): a readable file when given."""
    schema_file = values[0]
    if schema_file is not None:
        type_check(schema_file, (str,), "filename")
        path = os.path.realpath(schema_file)
        if not os.path.isfile(path) or not os.access(path, os.R_OK):
            raise DatasetError(f"The file {path} does not exist or permission denied!")


def _add_column(values: list, params: dict) -> None:
    """Schema.add_column(name, de_type, shape)."""
    name, de_type, shape = values[:3]
    type_check(name, (str,), "name")
    if not name:
        raise DatasetTypeError("Expected non-empty string for column name.")
    if de_type is None:
        raise DatasetTypeError("Expected non-empty string for de_type.")
    known = isinstance(de_type, mstype.Type) if hasattr(mstype, "Type") else False
    if not known and not (isinstance(de_type, str) and de_type in _DE_TYPES):
        raise DatasetTypeError(f"Unknown column type: {de_type}.")
    if shape is not None:
        type_check(shape, (list,), "shape")
        type_check_list(shape, (int,), "shape")


_DE_TYPES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16",
             "float32", "float64", "string", "bytes")


def _send(values: list, params: dict) -> None:
    """send(tensor, dst, group): MindSpore's dataset communication between processes."""
    tensor, dst, group = values[:3]
    if tensor is not None:
        type_check(tensor, (Tensor, list), "tensor")
        if isinstance(tensor, list):
            for item in tensor:
                type_check(item, (Tensor,), "element of tensor")
    _ranks(dst, "dst")
    if group is not None:
        type_check(group, (str,), "group")


def _ranks(value: Any, name: str) -> None:
    type_check(value, (int, list), name)
    for item in (value if isinstance(value, list) else [value]):
        check_uint32(item, name if isinstance(value, int) else f"element of {name}")


def _recv(values: list, params: dict) -> None:
    """recv(src, group)."""
    _ranks(values[0], "src")
    if values[1] is not None:
        type_check(values[1], (str,), "group")


check_shuffle = _validator(_shuffle)
check_repeat = _validator(_repeat)
check_take = _validator(_take)
check_skip = _validator(_skip)
check_project = _validator(_project)
check_rename = _validator(_rename)
check_filter = _validator(_filter)
check_split = _validator(_split)
check_zip = _validator(_zip)
check_zip_dataset = _validator(_zip_dataset)
check_concat = _validator(_concat)
check_sync_wait = _validator(_sync_wait)
check_sync_update = _validator(_sync_update)
check_save = _validator(_save)
check_tuple_iterator = _validator(_tuple_iterator)
check_dict_iterator = _validator(_dict_iterator)
check_to_device_send = _validator(_to_device_send)
check_device_send = _validator(_device_send)
check_output_shape = _validator(_output_shape)
check_batch = _validator(_batch)
check_padded_batch = _validator(_padded_batch)
check_bucket_batch_by_length = _validator(_bucket_batch_by_length)
check_map = _validator(_map)
check_schema = _validator(_schema)
check_add_column = _validator(_add_column)
check_send = _validator(_send)
check_recv = _validator(_recv)


def check_total_batch(total_batch: Any) -> None:
    """`total_batch` an int32 (MindSpore checks it when a dataset is sent to the device)."""
    check_int32(total_batch, "total_batch")


_ITERATOR_CLEANUP = False


def check_iterator_cleanup() -> bool:
    """True once the interpreter's exit has stopped every live iterator (MindSpore's flag; see ITERATORS_LIST)."""
    return _ITERATOR_CLEANUP


def set_iterator_cleanup() -> None:
    global _ITERATOR_CLEANUP
    _ITERATOR_CLEANUP = True


VALIDATORS = tuple(n for n in dict(globals()) if n.startswith("check_") and n not in (
    "check_value", "check_pos_int32", "check_uint32", "check_int32", "check_columns", "check_num_parallel_workers",
    "check_pad_info"))
