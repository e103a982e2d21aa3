"""The format registry: one entry per file format, read by `msx.export`, `msx.load` and `python -m msx inspect`.

A format is registered once, by the module that implements it, with what it
can do: `export(path, request)` writes a file for `msx.export(...,
file_format=NAME)`, `load(path)` is what `msx.load` returns for such a file,
`inspect(path)` is the text `python -m msx inspect` prints. A hook left out
means the format cannot do that, and the caller says so (naming the formats
that can) instead of guessing.

Files are recognised by content first, then by name: each format's
`sniff(path, head)` is asked in registration order (`head` is the file's
first `HEAD_BYTES`; an empty file is sniffed by nobody), and only when none
claims the file do the `suffixes` decide. Content first, because a damaged or
renamed file must reach the reader whose checks explain it; the suffix for
formats whose bytes have no magic of their own (MindIR is bare protobuf) and
for files too damaged to recognise. Registration order matters where two
formats share a container (a MindSpore `.ckpt` and a MindIR are both
protobuf: the checkpoint's sniff is the stricter one and is registered first).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import BadMagicError, ExportError
from ..fileread import open_regular

HEAD_BYTES = 4096


@dataclass(frozen=True)
class ExportRequest:
    """What `msx.export` was asked: the network, its example inputs and the options every format may read."""

    net: Callable
    inputs: tuple
    training: bool = False
    capture_mode: str = "ast"
    options: dict[str, Any] = field(default_factory=dict)  # format-specific keywords (STABLEHLO's `platforms`)


@dataclass(frozen=True)
class FileFormat:
    """One registered format; see the module docstring for what each hook means."""

    name: str
    suffixes: tuple[str, ...]  # the first is what `msx.export` appends
    description: str
    sniff: Callable[[str, bytes], bool] | None = None
    export: Callable[[str, ExportRequest], None] | None = None
    load: Callable[[str], Any] | None = None
    inspect: Callable[[str], str] | None = None
    options: tuple[str, ...] = ()  # the format-specific export keywords it takes


_FORMATS: dict[str, FileFormat] = {}


def register_format(name: str, *, suffixes: tuple[str, ...] | str, description: str,
                    sniff: Callable[[str, bytes], bool] | None = None,
                    export: Callable[[str, ExportRequest], None] | None = None,
                    load: Callable[[str], Any] | None = None, inspect: Callable[[str], str] | None = None,
                    options: tuple[str, ...] = ()) -> FileFormat:
    """Register a file format under `name` (upper case, as `file_format=` spells it); returns its entry.

    `suffixes`: the file names it owns (".npz"), the first appended by
    `msx.export`; `sniff(path, head) -> bool`: whether a file's first bytes are
    this format's; `export`, `load`, `inspect`: see the module docstring;
    `options`: the export keywords beyond `msx.export`'s own that it reads from
    `request.options`. A name is registered once: a second registration is a
    mistake (two modules claiming one format), not an override.
    """
    suffixes = (suffixes,) if isinstance(suffixes, str) else tuple(suffixes)
    if not isinstance(name, str) or not name or name != name.upper():
        raise ValueError(f"register_format: the name must be a non-empty upper-case str, got {name!r}")
    if name in _FORMATS:
        raise ValueError(f"register_format: format {name!r} is already registered")
    if not suffixes or not all(isinstance(s, str) and s.startswith(".") and len(s) > 1 for s in suffixes):
        raise ValueError(f"register_format({name!r}): suffixes must be names like '.npz', got {suffixes!r}")
    if export is None and load is None and inspect is None:
        raise ValueError(f"register_format({name!r}): a format needs at least one of export, load, inspect")
    entry = FileFormat(name, suffixes, description, sniff, export, load, inspect, tuple(options))
    _FORMATS[name] = entry
    return entry


def formats() -> list[FileFormat]:
    """Every registered format, in registration (sniffing) order."""
    return list(_FORMATS.values())


def names(can: str | None = None) -> list[str]:
    """The registered format names; with `can` ("export", "load" or "inspect"), those having that hook."""
    return [f.name for f in _FORMATS.values() if can is None or getattr(f, can) is not None]


def export_format(name: Any) -> FileFormat:
    """The format `msx.export(..., file_format=name)` writes; an `ExportError` listing the choices otherwise."""
    entry = _FORMATS.get(name) if isinstance(name, str) else None
    if entry is None or entry.export is None:
        raise ExportError(f"export: file_format={name!r} is not supported; choose one of {names('export')}")
    return entry


def detect(path: str) -> FileFormat | None:
    """The format of the file at `path`: by content, then by suffix; None when no format claims it."""
    f, _ = open_regular(path)
    with f:
        head = f.read(HEAD_BYTES)
    if head:
        for entry in _FORMATS.values():
            if entry.sniff is not None and entry.sniff(path, head):
                return entry
    lower = path.lower()
    for entry in _FORMATS.values():
        if lower.endswith(entry.suffixes):
            return entry
    return None


def recognise(path: str | os.PathLike, can: str) -> FileFormat:
    """The format of `path` for a caller that needs hook `can`; a `BadMagicError` listing what msx reads when
    no format claims the file."""
    path = os.fspath(path)
    entry = detect(path)
    if entry is None:
        f, _ = open_regular(path)
        with f:
            head = f.read(8)
        pickle = " (it looks like a Python pickle; msx never unpickles files)" if head[:1] == b"\x80" else ""
        known = ", ".join(f"{f.name} ({'/'.join(f.suffixes)})" for f in _FORMATS.values() if getattr(f, can))
        raise BadMagicError(f"{path} is not a file msx recognises: it starts with {head!r}{pickle}; msx reads "
                            f"{known}")
    return entry


__all__ = ["ExportRequest", "FileFormat", "register_format", "formats", "names", "export_format", "detect",
           "recognise", "HEAD_BYTES"]
