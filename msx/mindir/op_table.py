"""The MindIR rules of every op, in one table per direction, owned by MindIR import/export (ARCHITECTURE rule 11).

Two sources fill them:

- an op declared with `mindir=` (`@primitive("Erfc", ..., mindir="Erfc")`, plain data `msx.ops.api.MindIR`)
  gets the generic rules below: its MindIR call takes the op's tensor inputs, then its `MindIR.args`
  attributes as Constant inputs (or, in an older PRIMITIVE-style file, as attributes of those names). Adding
  such an op touches only its declaration file;
- an op whose MindIR form needs real work (another op's name, reordered outputs, a padding rule) has a
  hand-written entry in `op_readers.READERS` (by MindSpore name) / `op_writers.WRITERS` (by msx name).

An op in both is a declaration error (`MindIRTableError` on first use), so a rule is never silently
shadowed. `READERS` and `WRITERS` here are read-only mappings over both sources; lookups follow the registry
as it grows (a user's op declared after import is seen).
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Callable

from ..ops.primitive import REGISTRY
from . import op_readers, op_writers


class MindIRTableError(ValueError):
    """An op has both a `mindir=` declaration and a hand-written MindIR rule."""


def _generic_reader(prim, form) -> Callable[..., Any]:
    n_args = len(form.args)
    n_in = len(prim.api[0].args) if prim.api else None  # the tensor inputs, as users call the op

    def read(ctx, *inputs):
        k = n_in if n_in is not None else max(len(inputs) - n_args, 0)
        tensors, given = inputs[:k], inputs[k:]
        attrs = {}
        for i, name in enumerate(form.args):
            if i < len(given):
                attrs[name] = ctx.static(given[i], name)
            elif name in ctx.attrs:
                attrs[name] = ctx.attrs[name]
        return ctx.op(prim.name, *tensors, **attrs)

    read.__doc__ = f"`{form.name}` read as msx's `{prim.name}` (declared with mindir=)."
    return read


def _generic_writer(prim, form) -> Callable[..., Any]:
    def write(ctx, node):
        return ctx.call(form.name, node.inputs, args=tuple(node.attrs[a] for a in form.args))

    write.__doc__ = f"msx's `{prim.name}` written as MindSpore's `{form.name}` (declared with mindir=)."
    return write


class _Table(Mapping):
    """The hand-written rules plus those derived from declarations, rebuilt when the registry grows."""

    def __init__(self, explicit: dict, key: Callable, make: Callable, what: str) -> None:
        self.explicit, self.key, self.make, self.what = explicit, key, make, what
        self._seen, self._rules = -1, dict(explicit)

    def _table(self) -> dict:
        if self._seen != len(REGISTRY) + len(self.explicit):
            rules = dict(self.explicit)
            for prim in list(REGISTRY.values()):
                if prim.mindir is None:
                    continue
                k = self.key(prim)
                if k in rules:
                    raise MindIRTableError(f"MindIR {self.what} rule for {k!r} is both declared (mindir= on "
                                           f"primitive {prim.name!r}) and hand-written in msx/mindir")
                rules[k] = self.make(prim, prim.mindir)
            self._rules, self._seen = rules, len(REGISTRY) + len(self.explicit)
        return self._rules

    def __getitem__(self, k: str):
        return self._table()[k]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())

    def __contains__(self, k: object) -> bool:
        return k in self._table()


READERS: Mapping[str, Callable[..., Any]] = _Table(op_readers.READERS, lambda p: p.mindir.name, _generic_reader,
                                                   "reading")
WRITERS: Mapping[str, Callable[..., Any]] = _Table(op_writers.WRITERS, lambda p: p.name, _generic_writer, "writing")
