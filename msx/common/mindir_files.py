"""MindSpore's `load_mindir(file_name)` / `save_mindir(model, file_name)`: a MindIR file as its protobuf
`ModelProto` (to inspect or edit a model's graph and attributes) and back. `msx.load` runs a MindIR file."""
from __future__ import annotations

import os

from ..atomic import write_atomic
from ..mindir import mind_ir_pb2
from ..mindir.reader import parse


def load_mindir(file_name: str) -> "mind_ir_pb2.ModelProto":
    """The `ModelProto` of a MindIR file (size-limited and validated while parsing)."""
    if not isinstance(file_name, (str, os.PathLike)):
        raise TypeError(f"load_mindir: file_name must be a path, got {type(file_name).__name__}")
    return parse(os.fspath(file_name))


def save_mindir(model: "mind_ir_pb2.ModelProto", file_name: str) -> None:
    """Write a `ModelProto` to `file_name` (".mindir" appended when missing), atomically."""
    if not isinstance(model, mind_ir_pb2.ModelProto):
        raise TypeError(f"For 'save_mindir', the argument 'model' must be ModelProto, but got {type(model)}.")
    path = os.path.realpath(os.fspath(file_name))
    if not path.endswith(".mindir"):
        path += ".mindir"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomic(path, [model.SerializeToString()])
