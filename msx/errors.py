"""msx's error family: every error names its stage and, when known, the user's line.

`MsxError` renders as::

    [capture] MatMul: contracting dims differ: (2, 5) @ (4, 3): 5 != 4
      File "train.py", line 12, in forward
        h = ops.matmul(x, w)
            ^^^^^^^^^^^^^^^^

Op errors subclass the builtin `TypeError`/`ValueError` too, so code that
catches those (as numpy and jax code does) keeps working.
"""
from __future__ import annotations

import linecache
from dataclasses import dataclass
import sys


@dataclass(frozen=True)
class SourceLoc:
    """Where in the user's source a node or error comes from (1-based line, 0-based columns)."""

    file: str
    line: int
    col: int = 0
    end_col: int | None = None
    func: str = ""

    def short(self) -> str:
        return f"{self.file.rsplit('/', 1)[-1]}:{self.line}"

    def render(self) -> str:
        where = f'  File "{self.file}", line {self.line}' + (f", in {self.func}" if self.func else "")
        text = linecache.getline(self.file, self.line).rstrip("\n")
        if not text:
            return where
        stripped = text.lstrip()
        indent = len(text) - len(stripped)
        start = max(self.col - indent, 0)
        end = (self.end_col - indent) if self.end_col is not None and self.end_col > self.col else len(stripped)
        underline = " " * start + "^" * max(end - start, 1)
        return f"{where}\n    {stripped}\n    {underline}"


_MSX_DIR = __file__.rsplit("/", 1)[0] + "/"

# Code objects of msx functions that interpret user source (the ast and bytecode captures) -> a function giving
# the line being interpreted, or the interpreted call stack's lines innermost first: for such a frame the first
# of those lines outside msx, not the frame's own, is the user's.
SOURCE_FRAMES: dict = {}


def _internal(file: str) -> bool:
    """A file of msx itself, of jax, or of the interpreter's frozen modules: never the user's line."""
    return file.startswith(_MSX_DIR) or file.startswith("<frozen") or "/jax/" in file or "/jaxlib/" in file


def _interpreted_loc(interpreted) -> SourceLoc | None:
    """The innermost interpreted line outside msx (a Cell's `construct` in msx/nn is msx's, not the user's)."""
    found = interpreted()
    for loc in ((found,) if found is None or isinstance(found, SourceLoc) else found):
        if loc is not None and not _internal(loc.file):
            return loc
    return None


def user_loc(skip_msx: bool = True) -> SourceLoc | None:
    """The innermost stack frame outside msx (the user's line), with its column span."""
    frame = sys._getframe(1)
    while frame is not None and skip_msx and _internal(frame.f_code.co_filename):
        interpreted = SOURCE_FRAMES.get(frame.f_code)
        if interpreted is not None:
            loc = _interpreted_loc(interpreted)
            if loc is not None:
                return loc
        frame = frame.f_back
    if frame is None:
        return None
    code = frame.f_code
    line, col, end_col = frame.f_lineno, 0, None
    try:
        positions = list(code.co_positions())[frame.f_lasti // 2]
        if positions[0] is not None:
            line, _, col, end_col = positions[0], positions[1], positions[2] or 0, positions[3]
            if positions[1] != positions[0]:
                end_col = None  # spans lines: underline to the end of the first one
    except (IndexError, AttributeError):
        pass
    return SourceLoc(code.co_filename, line, col, end_col, code.co_name)


class MsxError(Exception):
    """Base of every msx error: a message, the stage that raised it and the user's line."""

    stage = "run"
    locate = False  # True: an error made without `loc` finds the user's line itself (see `user_loc`)

    def __init__(self, message: str, *, stage: str | None = None, loc: SourceLoc | None = None) -> None:
        super().__init__(message)
        self.message = message
        if stage is not None:
            self.stage = stage
        self.loc = loc if loc is not None or not self.locate else user_loc()

    def __str__(self) -> str:
        text = f"[{self.stage}] {self.message}"
        if self.loc is not None:
            text += "\n" + self.loc.render()
        return text


class OpError(MsxError, ValueError):
    """An op got inputs it cannot take: names the op, the shapes and dtypes."""

    locate = True


class OpTypeError(MsxError, TypeError):
    """An op got inputs of the wrong type or dtype."""

    locate = True


class OpIndexError(OpError, IndexError):
    """An index or class label out of its valid range (an `IndexError`, as in numpy): names the op, the offending
    value and the range."""


class OpMemoryError(OpError, MemoryError):
    """A tensor too large for the device's memory, found before asking XLA for it, or XLA ran out of memory."""


class ContextError(MsxError, ValueError):
    """A bad `set_context` key or value."""

    stage = "context"


class CaptureError(MsxError):
    """Capturing a function into a graph failed."""

    stage = "capture"


class CaptureFallback(CaptureError):
    """This call cannot be captured (fullgraph=False): jit runs the signature eagerly and warns once."""


class PassError(MsxError):
    """A pass produced an invalid graph or failed."""

    stage = "passes"


class BackendError(MsxError):
    """A backend could not build or run a graph."""

    stage = "backend"
    locate = True


class BackendUnavailableError(BackendError, ValueError):
    """An unknown backend name, or a backend whose device this machine lacks; the message lists what is available."""


class VerifyError(MsxError):
    """A graph failed verification."""

    stage = "verify"


class GradError(MsxError):
    """Autodiff could not differentiate the function as asked."""

    stage = "grad"


class ExportError(MsxError):
    """A network or graph could not be exported (capture, serialization or writing failed)."""

    stage = "export"


class LoadError(MsxError, ValueError):
    """A file could not be loaded; the subclass says why. Raised before anything from the file runs."""

    stage = "load"
    locate = True


class BadMagicError(LoadError):
    """The file does not start with the magic bytes of the expected format."""


class FormatVersionError(LoadError):
    """The file was written in a format version this msx cannot read (usually a newer one)."""


class TruncatedFileError(LoadError):
    """The file is shorter than its own header says: it was cut off."""


class ChecksumError(LoadError):
    """A part of the file does not match the checksum recorded for it: the file is corrupted."""


class UnknownPrimitiveError(LoadError):
    """The graph uses a primitive this msx does not have."""


class MalformedFileError(LoadError):
    """The file is structurally invalid (bad JSON, a graph that does not verify, mismatched weights, ...)."""


class CheckpointError(MsxError, ValueError):
    """Parameters could not be saved or loaded into a network: names the parameter, shapes and dtypes."""

    stage = "checkpoint"


class DatasetError(MsxError, ValueError):
    """A dataset got data it cannot hold or a pipeline step failed: names the column, the row and the step."""

    stage = "dataset"


class DatasetTypeError(DatasetError, TypeError):
    """A dataset method got an argument of the wrong type (MindSpore raises `TypeError` there): also a
    `DatasetError`, so code catching either keeps working."""


class CustomOpError(MsxError, ValueError):
    """A custom op (`ops.CustomOpBuilder`, `ops.Custom`) could not be declared, built or loaded: names the op."""

    stage = "custom_op"


class CustomOpBuildError(CustomOpError):
    """The compiler rejected a custom op's sources; `.command` and `.compiler_output` hold what it ran and said."""

    def __init__(self, message: str, command: list[str], compiler_output: str) -> None:
        super().__init__(message)
        self.command = command
        self.compiler_output = compiler_output


class VizError(MsxError, ValueError):
    """The graph view (`msx.viz`) could not do what was asked: names the graph, file or overlay."""

    stage = "viz"


class VizUnavailableError(VizError, ImportError):
    """Google's Model Explorer is not installed: the graph view needs `pip install "msx[viz]"`."""


class ProfilerError(MsxError, ValueError):
    """`msx.Profiler` was used in a way it cannot honour (two recordings at once, step() without a schedule)."""

    stage = "profiler"


class CommunicationError(MsxError, RuntimeError):
    """A distributed job could not start, or a collective asked for what the cluster cannot do."""

    stage = "communication"


class NotAvailableError(MsxError, NotImplementedError):
    """A MindSpore name that exists in msx only so that imports work (an Ascend-only kernel, an internal of
    MindSpore's compiler or runtime): using it raises this, naming what to use instead (`msx.unavailable`)."""

    stage = "api"
