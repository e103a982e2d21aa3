"""Resuming after a graph break: the frames Python left, adopted with sources for what they hold, and
the iterators carried across the break (`SymbolicVM` mixin)."""
from __future__ import annotations

import types
from typing import Any

from ...runtime.guards import EQUALS, ID, ITER_ATLEAST, ITER_LEFT, KEYS, LEN, TYPE
from ...runtime.list_iterator import ListIterator
from .kinds import EnvListIterator, _is_cell, _span_text
from .frame_sources import Attr, CellContents, FrameOverride, FrameSlot, FrameStack, Item, Source
from .stack_values import NULL, UNBOUND, is_immutable_constant
from .vm import Frame


class Resume:
    """See the module docstring."""

    def resume_frames(self, env: list[Frame], fresh: dict[int, Any]) -> list[Frame]:
        """Frames to continue from after a graph break; `fresh` are the ids of objects the function made."""
        memo: dict[int, Any] = {}
        frames = []
        self.origin = "the values live at the graph break"
        for fi, ef in enumerate(env):
            where = f"in {ef.info.qualname}, at the graph break"
            names = ef.info.names
            lp = [self._adopt(v, self.src(FrameSlot(fi, i, names[i], where)), fresh, memo)
                  for i, v in enumerate(ef.lp)]
            glue = ef.info.instrs[ef.ip - 1] if ef.ip else None   # a call the glue just made: its result is on top
            result = fi == len(env) - 1 and glue is not None and glue.opname.startswith("CALL")
            top = len(ef.stack) - 1 if result else -1
            text = _span_text(ef.info.loc(ef.ip - 1)) if result else None
            stack = [self._adopt(v, self.src(FrameStack(fi, j, where, text if j == top else None)), fresh, memo)
                     for j, v in enumerate(ef.stack)]
            f = Frame(ef.info, ef.globals, ef.builtins, lp, stack, ef.ip)
            f.kw_names = ef.kw_names
            if ef.override is not UNBOUND:
                f.override = self._adopt(ef.override, self.src(FrameOverride(fi, where)), fresh, memo)
            frames.append(f)
        return frames

    def _adopt(self, v: Any, source: Source, fresh: dict[int, Any], memo: dict[int, Any]) -> Any:
        """A value of a resumed frame: things the function made are copied (sourced item by item), the rest
        is wrapped like any value from outside."""
        if v is NULL or v is UNBOUND:
            return v
        if fresh.get(id(v), NULL) is not v:
            return self.wrap(v, source)
        if id(v) in memo:
            return memo[id(v)]
        t = type(v)
        if t is list:   # its elements are only looked at (and guarded) if the code reads them: see `materialize`
            out = memo[id(v)] = self.new_local([])
            self.lazy_lists[id(out)] = (source, v, fresh, memo)
        elif isinstance(v, tuple):
            self.guard(LEN, source, (t, len(v)))
            items = [self._adopt(x, self.src(Item(source, i)), fresh, memo) for i, x in enumerate(v)]
            out = memo[id(v)] = self.new_local(t(*items) if hasattr(t, "_fields") else t(items))
        elif isinstance(v, dict):
            self.guard(KEYS, source, (t, tuple(v)))
            out = memo[id(v)] = self.new_local(t())
            for k, x in v.items():
                out[k] = self._adopt(x, self.src(Item(source, k)), fresh, memo) if type(k) in (int, str) else x
        elif t is set:
            self.guard(EQUALS, source, frozenset(v)) if all(is_immutable_constant(x) for x in v) else None
            out = memo[id(v)] = self.new_local(set(v))
        elif isinstance(v, ListIterator):
            if isinstance(source, FrameStack):
                source.label = "the iterator of a loop"
            self.guard(TYPE, source, ListIterator)
            out = memo[id(v)] = self.new_local(EnvListIterator(list(v.items[v.index:]), source))
            self.env_iters.append(out)
        elif _is_cell(v):
            out = memo[id(v)] = self.new_local(types.CellType())
            try:
                contents = v.cell_contents
            except ValueError:
                return out
            out.cell_contents = self._adopt(contents, self.src(CellContents(source, "cell")), fresh, memo)
        elif t is types.FunctionType:
            self.guard(ID, self.src(Attr(source, "__code__")), v.__code__)
            closure = tuple(self._adopt(c, self.src(Item(self.src(Attr(source, "__closure__")), i)), fresh, memo)
                            for i, c in enumerate(v.__closure__ or ()))
            out = types.FunctionType(v.__code__, v.__globals__, v.__name__, v.__defaults__, closure or None)
            out.__qualname__, out.__kwdefaults__ = v.__qualname__, v.__kwdefaults__
            out = memo[id(v)] = self.new_local(out)
        elif t is types.MethodType:
            func = self._adopt(v.__func__, self.src(Attr(source, "__func__")), fresh, memo)
            self_ = self._adopt(v.__self__, self.src(Attr(source, "__self__")), fresh, memo)
            out = memo[id(v)] = self.new_local(types.MethodType(func, self_))
        else:  # an object of a user class the function created
            self.guard(TYPE, source, t)
            out = memo[id(v)] = self.new_local(object.__new__(t))
            for k, x in vars(v).items():
                out.__dict__[k] = self._adopt(x, self.src(Attr(source, k)), fresh, memo)
        return out

    def materialize(self, obj: Any) -> Any:
        """A list carried across a break, about to be read: its old elements come in now (guarded). Until then
        it holds only what this piece appended, so `losses.append(float(loss))` in a loop with a break does not
        make one cache entry per length."""
        lazy = self.lazy_lists.pop(id(obj), None) if type(obj) is list else None
        if lazy is not None:
            source, old, fresh, memo = lazy
            self.guard(LEN, source, (list, len(old)))
            obj[:0] = [self._adopt(x, self.src(Item(source, i)), fresh, memo) for i, x in enumerate(old)]
        return obj

    def finish_iterators(self) -> None:
        """Guard how many elements each carried-over iterator must have left (not its position: a loop with a
        break in its body then reuses one entry for every iteration)."""
        for it in self.env_iters:
            self.guard(ITER_LEFT if it.exhausted else ITER_ATLEAST, it.source, it.index)
