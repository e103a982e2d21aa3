"""File formats, one module each, in one registry (`register_format`): what `msx.export`, `msx.load` and
`python -m msx inspect` dispatch on.

A format module implements its hooks and registers itself; importing it here
is what lists it. The import order below is the order formats sniff a file
in (see `registry`): the STABLEHLO trailer first (it ends any file), then
the checkpoints (msx's tagged safetensors, other safetensors, MindSpore's
protobuf), MindIR (bare protobuf), MSXIR, NPZ. Adding a format is one module
plus its test, and its line here (docs/export.md, "Formats are a registry").
"""
from .registry import ExportRequest, FileFormat, detect, export_format, formats, names, recognise, register_format
# each module registers its format; this order is the sniffing order
from . import stablehlo, checkpoints, mindir, msxir, npz  # noqa: E402,F401

__all__ = ["ExportRequest", "FileFormat", "register_format", "formats", "names", "detect", "export_format",
           "recognise"]
