"""The two ways an ast capture fails: the graph cannot hold something (`Unsupported`), or the user's code is wrong.

`Unsupported` becomes a fallback to eager execution (`fullgraph=False`) or a
`CaptureError` (`fullgraph=True`). An error of the user's code (a shape error,
a type error, a failed `assert`) is raised as it would be eagerly, keeping its
builtin type (`TypeError`, `ValueError`, ...) and gaining the stage and the
underlined source line.
"""
from __future__ import annotations

from ...errors import MsxError, SourceLoc

STAGE = "capture: ast"


class Unsupported(Exception):
    """Something the graph cannot hold, with the reason in plain words and where it is."""

    def __init__(self, reason: str, loc: SourceLoc | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.loc = loc


class SourceError(MsxError):
    """An error of the captured code itself, raised at compile time with the user's line."""

    stage = STAGE


_CLASSES: dict[type, type] = {}


def user_error(exc: BaseException, loc: SourceLoc | None) -> MsxError:
    """`exc` as an msx error that is still an instance of its builtin type (`except ValueError` keeps working)."""
    base = type(exc)
    message = f"{base.__name__}: {exc}"
    cls = _CLASSES.get(base)
    if cls is None:
        try:
            cls = type(base.__name__, (SourceError, base), {"__module__": base.__module__, "__str__": MsxError.__str__,
                                                             "__init__": MsxError.__init__})
            cls(message, stage=STAGE, loc=loc)
        except TypeError:  # a builtin whose instance layout or constructor cannot be combined (e.g. OSError)
            cls = SourceError
        _CLASSES[base] = cls
    return cls(message, stage=STAGE, loc=loc)
