"""Errors of the MindIR reader and writer (the `msx.errors.LoadError` family, stage `load`)."""
from __future__ import annotations

from ..errors import ExportError, UnknownPrimitiveError


class UnsupportedMindIRError(UnknownPrimitiveError):
    """The file uses MindSpore ops (or forms) msx cannot run; `.unsupported` maps each to (count, first node)."""

    def __init__(self, message: str, unsupported: dict[str, tuple[int, str]]) -> None:
        super().__init__(message)
        self.unsupported = unsupported


class MindIRExportError(ExportError):
    """An msx graph holds something MindIR cannot express; raised before anything is written."""
