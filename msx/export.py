"""`msx.export` and `msx.load`: networks as self-contained, versioned, safe files, in any registered format.

`export(net, *inputs, file_name, file_format)` writes `net` (captured on
`inputs`, which fix the shapes) in the format registered as `file_format`
(`msx.formats`): `"MSXIR"` (`.msxir`, msx's own graph file, the default),
`"MINDIR"` (`.mindir`, MindSpore's, for interchange), `"STABLEHLO"`
(`.stablehlo`, a checksummed `jax.export` artifact), and any format a module
registers. `load(file_name)` asks the registry which format the file is (by
content, then by name) and returns what that format loads: a `LoadedGraph`
for MSXIR, a `LoadedMindIR` for a MindSpore file; for a STABLEHLO artifact
or a checkpoint it says which reader to use. Every reader treats its file as
untrusted and raises an `msx.errors.LoadError` subclass naming the defect.
"""
from __future__ import annotations

import os
from typing import Any, Callable

from .errors import ExportError, LoadError
from .formats import ExportRequest, export_format, formats, names, recognise
from .formats.graph_capture import capture_for_export  # noqa: F401  (the graph every export writes)
from .formats.msxir import FORMAT_VERSION, HEADER, MAGIC, LoadedGraph, read_container  # noqa: F401  (MSXIR's names)
from .stablehlo_file import load_stablehlo  # noqa: F401  (reads what export(file_format="STABLEHLO") writes)

DEFAULT_FORMAT = "MSXIR"


def export(net: Callable, *inputs, file_name: str, file_format: str = DEFAULT_FORMAT, training: bool = False,
           capture_mode: str = "ast", platforms: tuple[str, ...] | None = None) -> str:
    """Export `net` (a Cell or a function) run on `inputs`; returns the path written.

    `file_name` gets the format's suffix unless it ends with it (as in
    MindSpore). A Cell is captured in eval mode (its training flags are
    restored afterwards) unless `training=True`. With `capture_mode="ast"`
    (jit's default) tensor-dependent control flow becomes Cond/While/Scan
    nodes; a "trace" capture whose Python control flow depended on tensor
    values is refused, since the file would silently keep one branch.
    `platforms` (STABLEHLO only) lists the jax platforms to lower for
    (default: this machine's); a format-specific keyword given to a format
    that does not take it is refused, naming the formats that do.
    """
    fmt = export_format(file_format)
    if not isinstance(file_name, (str, os.PathLike)) or not os.fspath(file_name):
        raise ExportError(f"export: file_name must be a non-empty path, got {file_name!r}")
    options = {k: v for k, v in {"platforms": platforms}.items() if v is not None}
    for key in set(options) - set(fmt.options):
        takes = [f.name for f in formats() if key in f.options]
        where = f"file_format={takes[0]!r} only" if len(takes) == 1 else f"file_format in {takes} only"
        raise ExportError(f"export: {key} applies to {where}")
    path = os.fspath(file_name)
    if not path.endswith(fmt.suffixes[0]):
        path += fmt.suffixes[0]
    fmt.export(path, ExportRequest(net, inputs, training, capture_mode, options))
    return path


def load(file_name: str | os.PathLike) -> Any:
    """What the file's format loads (`LoadedGraph` for MSXIR, `LoadedMindIR` for MindIR, ...); a `LoadError`
    subclass naming what is wrong, or which reader a file msx.load does not return (STABLEHLO, checkpoints) needs."""
    path = os.fspath(file_name)
    fmt = recognise(path, "load")
    if fmt.load is None:
        raise LoadError(f"{path} is a {fmt.name} file, which msx.load does not read; it reads {names('load')}")
    return fmt.load(path)


__all__ = ["export", "load", "load_stablehlo", "capture_for_export", "LoadedGraph", "MAGIC", "FORMAT_VERSION"]
