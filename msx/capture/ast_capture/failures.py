"""The two ways an ast capture fails: the graph cannot hold something (`Unsupported`, shared by every mode in
`msx.capture.failures`), or the user's code is wrong.

An error of the user's code (a shape error, a type error, a failed `assert`)
is raised as it would be eagerly, keeping its builtin type (`TypeError`,
`ValueError`, ...) and gaining the stage and the underlined source line.
"""
from __future__ import annotations

from ...errors import MsxError, SourceLoc
from ..failures import AST_STAGE as STAGE
from ..failures import Unsupported

__all__ = ["STAGE", "SourceError", "Unsupported", "user_error"]


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
