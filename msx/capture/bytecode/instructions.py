"""CPython 3.11 code objects decoded once into what the interpreter needs.

`CodeInfo` holds the instructions (jump targets as instruction indices), the
exception table, and the layout of the frame's "fast locals plus" (local
variables, then cell variables that are not arguments, then free variables),
which is what `LOAD_FAST`, `LOAD_DEREF` and `MAKE_CELL` index in 3.11.
"""
from __future__ import annotations

import dis
import sys
import types
from dataclasses import dataclass

from ...errors import SourceLoc

SUPPORTED_VERSIONS = ((3, 11),)

_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


def python_supported() -> bool:
    return sys.version_info[:2] in SUPPORTED_VERSIONS


@dataclass(frozen=True)
class Instr:
    """One instruction; `target` is the index of the jump target (None for non-jumps)."""

    opname: str
    arg: int | None
    argval: object
    offset: int
    index: int
    target: int | None
    line: int | None
    col: int | None
    end_line: int | None
    end_col: int | None


@dataclass(frozen=True)
class Handler:
    """An exception-table entry: instructions [start, end) jump to `target` with the stack cut to `depth`."""

    start: int
    end: int
    target: int
    depth: int
    lasti: bool


class CodeInfo:
    """A decoded code object."""

    def __init__(self, code: types.CodeType) -> None:
        self.code = code
        raw = list(dis.get_instructions(code))
        index_of = {ins.offset: i for i, ins in enumerate(raw)}
        self.instrs: list[Instr] = []
        for i, ins in enumerate(raw):
            target = index_of[ins.argval] if ins.opcode in _JUMPS else None
            pos = ins.positions
            self.instrs.append(Instr(ins.opname, ins.arg, ins.argval, ins.offset, i, target,
                                     pos.lineno if pos else None, pos.col_offset if pos else None,
                                     pos.end_lineno if pos else None, pos.end_col_offset if pos else None))
        self.handlers = [Handler(index_of[e.start], _index_at_or_after(index_of, e.end), index_of[e.target],
                                 e.depth, e.lasti) for e in dis._parse_exception_table(code)]
        cells = [c for c in code.co_cellvars if c not in code.co_varnames]
        self.names: list[str] = list(code.co_varnames) + cells + list(code.co_freevars)
        self.n_free = len(code.co_freevars)
        self.is_generator = bool(code.co_flags & (0x20 | 0x100 | 0x200))  # generator, coroutine, async generator
        self.qualname = code.co_qualname

    def handler_for(self, index: int) -> Handler | None:
        for h in self.handlers:
            if h.start <= index < h.end:
                return h
        return None

    def loc(self, index: int) -> SourceLoc:
        """The user's source span of instruction `index`."""
        ins = self.instrs[index]
        line = ins.line
        if line is None:  # an instruction without a position (e.g. MAKE_CELL): use the nearest one before it
            for prev in reversed(self.instrs[:index]):
                if prev.line is not None:
                    ins, line = prev, prev.line
                    break
        end_col = ins.end_col if ins.end_line == line else None
        return SourceLoc(self.code.co_filename, line or self.code.co_firstlineno, ins.col or 0, end_col,
                         self.code.co_name)


def _index_at_or_after(index_of: dict, offset: int) -> int:
    while offset not in index_of and offset < max(index_of) + 2:
        offset += 2
    return index_of.get(offset, len(index_of))


_INFOS: dict[types.CodeType, CodeInfo] = {}


def code_info(code: types.CodeType) -> CodeInfo:
    info = _INFOS.get(code)
    if info is None:
        info = _INFOS[code] = CodeInfo(code)
    return info
