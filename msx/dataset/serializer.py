"""`serialize` / `deserialize` / `show` / `compare` (MindSpore's): a pipeline as a JSON description, and back.

A node is `{"op_type": ..., "children": [...], ...its arguments}` in MindSpore's layout (`Map` with
`operations` of `{"tensor_op_name", "tensor_op_params"}`, `Batch`, `Shuffle`, `Repeat`, `Take`, `Skip`, `Project`,
`Rename`, `Concat`, `Zip`, and readers by class name with their constructor's arguments). Nothing is pickled or
evaluated: `deserialize` accepts only the op types and transforms of msx.dataset, each argument JSON data (numbers,
strings, lists, `{"__tuple__"}`, `{"__enum__"}`, `{"__dtype__"}`, nested transforms), checks every key, and refuses
the rest — a Python function (`PyFunc`, MindSpore stores its module and name; rebuilding it would import code the
file names) and a `GeneratorDataset` (its data is not in the file) are refused by name.
"""
from __future__ import annotations

import enum
import inspect
import json
import os
from typing import Any

from .. import dtype as mstype
from ..errors import DatasetError
from . import audio, readers, steps, text, transforms, vision
from .base import Dataset, _OneChild
from .map_batch import BatchDataset, MapDataset
from .sources import GeneratorDataset, MappableSource, NumpySlicesDataset
from .transforms.ops import TensorOperation

MAX_DEPTH = 200
MAX_FILE_BYTES = 64 << 20


# ------------------------------------------------------------------ registries (what deserialize may build)
def _transform_modules() -> dict:
    return {"transforms": transforms, "vision": vision, "text": text, "audio": audio}


def _transform_class(name: Any, module: Any) -> type:
    mods = _transform_modules()
    order = [module] if module in mods else list(mods)
    for m in order:
        cls = getattr(mods[m], name, None) if isinstance(name, str) else None
        if isinstance(cls, type) and issubclass(cls, TensorOperation):
            return cls
    raise DatasetError(f"deserialize: unknown operation {name!r}: only msx.dataset transforms are rebuilt")


def _enum_class(name: Any) -> type:
    for mod in _transform_modules().values():
        cls = getattr(mod, name, None) if isinstance(name, str) else None
        if isinstance(cls, type) and issubclass(cls, enum.Enum):
            return cls
    cls = getattr(readers, name, None) if isinstance(name, str) else None
    if isinstance(cls, type) and issubclass(cls, enum.Enum):
        return cls
    raise DatasetError(f"deserialize: unknown enum {name!r}")


def _reader_class(name: str) -> type | None:
    cls = getattr(readers, name, None)
    ok = isinstance(cls, type) and issubclass(cls, MappableSource) and name.endswith("Dataset")
    return cls if ok else None


# ------------------------------------------------------------------ encoding
def _encode(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, enum.Enum):
        return {"__enum__": type(value).__name__, "name": value.name}
    if isinstance(value, mstype.Type):
        return {"__dtype__": _dtype_name(value)}
    if isinstance(value, TensorOperation):
        return _encode_op(value, where)
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v, where) for v in value]}
    if isinstance(value, list):
        return [_encode(v, where) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"__dict__": {k: _encode(v, where) for k, v in value.items()}}
    if callable(value):
        return {"tensor_op_name": "PyFunc", "python_module": getattr(value, "__module__", ""),
                "python_name": getattr(value, "__qualname__", type(value).__name__)}
    raise DatasetError(f"serialize: {where}: a {type(value).__name__} cannot be stored in JSON (numbers, strings, "
                       f"lists, enums, dtypes and msx transforms can)")


def _dtype_name(t: Any) -> str:
    for name in ("bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                 "float32", "float64", "bfloat16"):
        if getattr(mstype, name, None) == t:
            return name
    raise DatasetError(f"serialize: dtype {t!r} has no name")


def _encode_op(op: Any, where: str) -> dict:
    args = op.__dict__.get("_init_args")
    if args is None:
        raise DatasetError(f"serialize: {where}: the arguments of {type(op).__name__} were not recorded")
    module = type(op).__module__.split(".")[2] if type(op).__module__.startswith("msx.dataset.") else ""
    return {"tensor_op_name": type(op).__name__, "tensor_op_module": module,
            "tensor_op_params": {k: _encode(v, f"{type(op).__name__}({k})") for k, v in args.items()}}


def _node(d: Dataset) -> dict:
    kids = [_node(c) for c in d.children]
    name = type(d).__name__
    if isinstance(d, (GeneratorDataset, NumpySlicesDataset)):
        return {"op_type": "GeneratorDataset", "children": [], "num_parallel_workers": d.num_parallel_workers}
    if isinstance(d, MapDataset):
        return {"op_type": "Map", "children": kids, "input_columns": list(d.input_columns),
                "output_columns": list(d.output_columns), "num_parallel_workers": d.num_parallel_workers,
                "operations": [_encode(op, "map") for op in d.operations]}
    if isinstance(d, BatchDataset):
        if d.per_batch_map is not None:
            raise DatasetError("serialize: batch(per_batch_map=...) holds a Python function; it is not stored")
        return {"op_type": "Batch", "children": kids, "batch_size": d.batch_size,
                "drop_remainder": d.drop_remainder, "num_parallel_workers": d.num_parallel_workers}
    simple = {steps.ShuffleDataset: ("Shuffle", {"buffer_size": "buffer_size"}),
              steps.RepeatDataset: ("Repeat", {"count": "count"}), steps.TakeDataset: ("Take", {"count": "count"}),
              steps.SkipDataset: ("Skip", {"count": "count"}), steps.ConcatDataset: ("Concat", {}),
              steps.ZipDataset: ("Zip", {})}
    if type(d) in simple:
        op, attrs = simple[type(d)]
        return {"op_type": op, "children": kids, **{k: getattr(d, a) for k, a in attrs.items()}}
    if isinstance(d, steps.ProjectDataset):
        return {"op_type": "Project", "children": kids, "columns": d.get_col_names()}
    if isinstance(d, steps.RenameDataset):
        pairs = [(o, n) for o, n in zip(d.child.get_col_names(), d.get_col_names()) if o != n]
        return {"op_type": "Rename", "children": kids, "input_columns": [o for o, _ in pairs],
                "output_columns": [n for _, n in pairs]}
    if _reader_class(name) is not None and not d.children:
        args = d.__dict__.get("_init_args")
        if args is None:
            raise DatasetError(f"serialize: the arguments of {name} were not recorded")
        if args.get("sampler") is not None:
            raise DatasetError(f"serialize: {name}(sampler=...) is not stored; use shuffle/num_samples/num_shards")
        return {"op_type": name, "children": [], **{k: _encode(v, f"{name}({k})") for k, v in args.items()}}
    raise DatasetError(f"serialize: a {name} step is not stored in JSON by msx")


def serialize(dataset: Dataset, json_filepath: str = "") -> dict:
    """The pipeline ending at `dataset` as a JSON-ready dict; also written to `json_filepath` when given."""
    if not isinstance(dataset, Dataset):
        raise DatasetError(f"serialize: expected an msx Dataset, got {type(dataset).__name__}")
    out = _node(dataset.child if isinstance(dataset, DeserializedDataset) else dataset)
    if json_filepath:
        with open(json_filepath, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)
    return out


def show(dataset: Dataset, indentation: int = 2) -> None:
    """Print the pipeline's JSON description."""
    print(json.dumps(serialize(dataset), indent=indentation))


def compare(pipeline1: Dataset, pipeline2: Dataset) -> bool:
    """True when both pipelines have the same JSON description."""
    return serialize(pipeline1) == serialize(pipeline2)


# ------------------------------------------------------------------ decoding (untrusted input)
_STEP_KEYS = {"Map": {"input_columns", "output_columns", "num_parallel_workers", "operations", "callback",
                      "connector_queue_size"},
              "Batch": {"batch_size", "drop_remainder", "num_parallel_workers", "input_columns", "output_columns",
                        "connector_queue_size"},
              "Shuffle": {"buffer_size", "reset_each_epoch"}, "Repeat": {"count"}, "Take": {"count"},
              "Skip": {"count"}, "Project": {"columns"}, "Rename": {"input_columns", "output_columns"},
              "Concat": set(), "Zip": set()}


def _decode(value: Any, where: str, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise DatasetError(f"deserialize: {where}: nested deeper than {MAX_DEPTH}")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_decode(v, where, depth + 1) for v in value]
    if not isinstance(value, dict):
        raise DatasetError(f"deserialize: {where}: unexpected {type(value).__name__}")
    keys = set(value)
    if keys == {"__tuple__"} and isinstance(value["__tuple__"], list):
        return tuple(_decode(v, where, depth + 1) for v in value["__tuple__"])
    if keys == {"__dict__"} and isinstance(value["__dict__"], dict):
        return {str(k): _decode(v, where, depth + 1) for k, v in value["__dict__"].items()}
    if keys == {"__enum__", "name"}:
        cls = _enum_class(value["__enum__"])
        if not isinstance(value["name"], str) or value["name"] not in cls.__members__:
            raise DatasetError(f"deserialize: {where}: {value['name']!r} is not a member of {cls.__name__}")
        return cls[value["name"]]
    if keys == {"__dtype__"}:
        name = value["__dtype__"]
        if not isinstance(name, str) or not isinstance(getattr(mstype, name, None), mstype.Type):
            raise DatasetError(f"deserialize: {where}: unknown dtype {name!r}")
        return getattr(mstype, name)
    if "tensor_op_name" in keys:
        return _decode_op(value, where, depth)
    raise DatasetError(f"deserialize: {where}: unknown value {sorted(keys)}")


def _decode_op(value: dict, where: str, depth: int) -> Any:
    name = value.get("tensor_op_name")
    if name == "PyFunc" or "python_module" in value:
        raise DatasetError(f"deserialize: {where}: a Python function ({value.get('python_module')}."
                           f"{value.get('python_name', name)}) is not rebuilt from JSON (it would import and run code "
                           f"the file names); build that map in Python")
    unknown = set(value) - {"tensor_op_name", "tensor_op_module", "tensor_op_params"}
    if unknown:
        raise DatasetError(f"deserialize: {where}: unknown keys {sorted(unknown)} in operation {name!r}")
    cls = _transform_class(name, value.get("tensor_op_module"))
    params = value.get("tensor_op_params", {})
    if not isinstance(params, dict):
        raise DatasetError(f"deserialize: {where}: tensor_op_params of {name} must be a dict")
    return _construct(cls, {k: _decode(v, f"{name}({k})", depth + 1) for k, v in params.items()}, where)


def _construct(cls: type, params: dict, where: str) -> Any:
    sig = inspect.signature(cls)
    args, kwargs = [], {}
    for k, v in params.items():
        p = sig.parameters.get(k)
        if p is None:
            raise DatasetError(f"deserialize: {where}: {cls.__name__} has no argument {k!r}")
        if p.kind is p.VAR_POSITIONAL:
            args.extend(v if isinstance(v, (list, tuple)) else [v])
        elif p.kind is p.VAR_KEYWORD:
            kwargs.update(v if isinstance(v, dict) else {})
        else:
            kwargs[k] = v
    return cls(*args, **kwargs)


def _build(node: Any, depth: int = 0) -> Dataset:
    if depth > MAX_DEPTH:
        raise DatasetError(f"deserialize: the pipeline is nested deeper than {MAX_DEPTH}")
    if not isinstance(node, dict) or not isinstance(node.get("op_type"), str):
        raise DatasetError(f"deserialize: a node must be a dict with an op_type, got {type(node).__name__}")
    op, children = node["op_type"], node.get("children", [])
    if not isinstance(children, list):
        raise DatasetError(f"deserialize: {op}: children must be a list")
    if op == "GeneratorDataset":
        raise DatasetError("deserialize: a GeneratorDataset (or NumpySlicesDataset) is not rebuilt from JSON: its "
                           "Python source or data is not in the file")
    args = {k: v for k, v in node.items() if k not in ("op_type", "children")}
    if op in _STEP_KEYS:
        unknown = set(args) - _STEP_KEYS[op]
        if unknown:
            raise DatasetError(f"deserialize: {op}: unknown keys {sorted(unknown)}")
        want = 2 if op == "Zip" or op == "Concat" else 1
        if (len(children) < 2) if want == 2 else len(children) != 1:
            raise DatasetError(f"deserialize: {op} needs {'at least 2 children' if want == 2 else 'one child'}")
        kids = [_build(c, depth + 1) for c in children]
        return _step(op, kids, args)
    cls = _reader_class(op)
    if cls is None:
        raise DatasetError(f"deserialize: unknown op_type {op!r}")
    if children:
        raise DatasetError(f"deserialize: {op} is a source and has no children")
    return _construct(cls, {k: _decode(v, f"{op}({k})", depth + 1) for k, v in args.items()}, op)


def _step(op: str, kids: list, args: dict) -> Dataset:
    first = kids[0]
    w = args.get("num_parallel_workers")
    if op == "Map":
        ops = _decode(args.get("operations"), "Map.operations", 0)
        return first.map(ops if isinstance(ops, list) else [ops], args.get("input_columns"),
                         args.get("output_columns"), w)
    if op == "Batch":
        return first.batch(args.get("batch_size"), args.get("drop_remainder", False), w)
    if op == "Shuffle":
        return first.shuffle(args.get("buffer_size"))
    if op == "Repeat":
        return first.repeat(args.get("count"))
    if op == "Take":
        return first.take(args.get("count"))
    if op == "Skip":
        return first.skip(args.get("count"))
    if op == "Project":
        return first.project(args.get("columns"))
    if op == "Rename":
        return first.rename(args.get("input_columns"), args.get("output_columns"))
    if op == "Concat":
        return first.concat(kids[1:])
    return first.zip(tuple(kids[1:]))


class DeserializedDataset(_OneChild):
    """A pipeline rebuilt from its JSON description (a dict, or the path of a JSON file): what `deserialize`
    returns; it reads the rows of the rebuilt pipeline."""

    def __init__(self, input_obj: Any) -> None:
        if isinstance(input_obj, str):
            if not os.path.isfile(input_obj):
                raise DatasetError(f"deserialize: {input_obj!r} is not a file")
            if os.path.getsize(input_obj) > MAX_FILE_BYTES:
                raise DatasetError(f"deserialize: {input_obj!r} is over {MAX_FILE_BYTES} bytes")
            with open(input_obj, encoding="utf-8") as f:
                try:
                    input_obj = json.load(f)
                except (ValueError, RecursionError) as exc:
                    raise DatasetError(f"deserialize: the file is not valid JSON: {exc}") from None
        try:
            built = _build(input_obj)
        except RecursionError:
            raise DatasetError("deserialize: the description is nested too deeply") from None
        super().__init__(built)

    def _grain(self, key: Any) -> Any:
        return self.child._grain(key)

    def _pending(self, key: Any) -> Any:
        return self.child._pending(key)


def deserialize(input_dict: dict | None = None, json_filepath: str | None = None) -> Dataset:
    """The pipeline a JSON description (a dict, or a file) describes, as a `DeserializedDataset`."""
    if (input_dict is None) == (json_filepath is None):
        raise DatasetError("deserialize: give exactly one of input_dict and json_filepath")
    return DeserializedDataset(input_dict if input_dict is not None else json_filepath)
