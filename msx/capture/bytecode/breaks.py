"""Why capture stops: a graph break (Python must run this instruction) or something it cannot do at all.

A `GraphBreak` carries the reason in plain words and a concrete suggestion;
the interpreter fills in the user's line. Breaks that happen inside a call
msx made on the user's behalf (a function differentiated by
`value_and_grad`, a generator being unrolled) become a break of the outer
call, keeping the inner reason and line.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...errors import CaptureError, MsxError, SourceLoc
from ..failures import BYTECODE_STAGE as STAGE
from ..failures import Unsupported
from .frame_sources import Source

__all__ = ["STAGE", "GraphBreak", "Unsupported", "BreakInfo", "fullgraph_error", "value_needed", "value_break",
           "mutation"]
VALUE_SUGGESTION = ("keep the computation in tensors (msx.ops), or move this line out of the jitted function; as a "
                    "graph break it costs a device-to-host copy and a Python step on every call")


class GraphBreak(Exception):
    """The current instruction cannot be captured: the graph so far ends here and Python runs it."""

    def __init__(self, reason: str, suggestion: str, loc: SourceLoc | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.suggestion = suggestion
        self.loc = loc
        self.inner: list[tuple[str, SourceLoc | None]] = []   # (what, where) of enclosing calls, innermost first

    def within(self, what: str, loc: SourceLoc | None) -> "GraphBreak":
        """This break happened inside `what` (a call the interpreter could not split): it breaks that call."""
        self.inner.append((what, loc))
        return self


@dataclass(frozen=True)
class BreakInfo:
    """A graph break as explain and error messages show it."""

    reason: str
    suggestion: str
    loc: SourceLoc | None           # the user's line that could not be captured
    at: SourceLoc | None            # where the graph was split (differs from `loc` for breaks inside calls)
    inner: tuple = ()

    def render(self, indent: str = "  ") -> str:
        lines = [f"{indent}reason: {self.reason}"]
        if self.loc is not None:
            lines.append(indent + self.loc.render().replace("\n", "\n" + indent))
        for what, where in self.inner:
            lines.append(f"{indent}  inside {what}" + (f" at {where.short()}" if where is not None else ""))
        lines.append(f"{indent}suggestion: {self.suggestion}")
        return "\n".join(lines)


def fullgraph_error(info: BreakInfo) -> CaptureError:
    """fullgraph=True: a graph break is an error with the stage, the reason and the user's line underlined."""
    inner = "".join(f"; inside {what}" + (f" at {where.short()}" if where else "") for what, where in info.inner)
    return CaptureError(f"graph break: {info.reason}{inner}. Suggestion: {info.suggestion} (fullgraph=True: the "
                        f"whole function must be one graph; with fullgraph=False this part would run in Python "
                        f"between graphs)", stage=STAGE, loc=info.loc)


def value_needed(what: str) -> GraphBreak:
    return GraphBreak(f"{what} needs the value of a tensor, which is only known when the graph runs",
                      VALUE_SUGGESTION)


def value_break(exc: BaseException, where: str | None = None) -> GraphBreak:
    text = exc.message if isinstance(exc, MsxError) else str(exc).split("\n")[0]
    what = f"{where} needs the value of a tensor" if where else "this needs the value of a tensor"
    return GraphBreak(f"{what}, which is only known when the graph runs ({text})", VALUE_SUGGESTION)


def mutation(what: str, obj: Any, source: Source | None) -> GraphBreak:
    name = source.describe() if source is not None else f"a {type(obj).__name__}"
    return GraphBreak(f"{what} changes {name}, an object that exists outside the jitted function (a Python side "
                      f"effect)", "return the new value instead, or keep state in a Parameter (msx writes "
                      "Parameters back after the graph runs)")
