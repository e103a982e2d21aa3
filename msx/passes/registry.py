"""User passes registered per backend and stage (MindSpore's `register_custom_pass`).

A registered pass runs on every graph compiled for its backend (or for all
backends) at its stage, including inside control-flow and gradient
subgraphs. Graphs already compiled are not recompiled.

Backends sit above passes (ARCHITECTURE rule 10), so this module never
imports them: `msx.backends` hands it, at import, the functions that resolve
a backend name and list the known names (`set_backend_directory`), and the
pass manager takes the backend object — whose `passes()` it runs — as an
argument.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import MsxError
from .base import Pass, as_pass

STAGES = ("frontend", "backend")
ALL = "all"


@dataclass(frozen=True)
class Registration:
    pass_: Pass
    backend: str
    stage: str
    priority: int
    order: int

    def applies_to(self, backend: Any) -> bool:
        if self.backend == ALL:
            return True
        try:
            return resolve_backend(self.backend) is backend  # "ms_backend" follows device_target at compile time
        except (MsxError, ValueError):  # registered for a backend this machine lacks
            return False


_REGISTERED: list[Registration] = []
_order = itertools.count()
_directory: dict[str, Callable] = {}


# the built-in passes' names, handed over by passes.manager (which imports this registry) as it defines them
_BUILTIN_NAMES: set[str] = set()


def reserve_builtin_names(names) -> None:
    """Called by passes.manager: names no custom pass may take."""
    _BUILTIN_NAMES.update(names)


def set_backend_directory(get: Callable[[str | None], Any], names: Callable[[], list[str]]) -> None:
    """Called by `msx.backends`: `get(name)` returns a backend (None or "ms_backend": the one for
    device_target), `names()` every registered name."""
    _directory.update(get=get, names=names)


def resolve_backend(backend) -> Any:
    """The backend object for a name (None: the default backend); a backend object is returned as it is."""
    if backend is not None and not isinstance(backend, str):
        return backend
    if "get" not in _directory:
        raise RuntimeError("msx.passes: no backend directory; import msx (msx.backends registers it)")
    return _directory["get"](backend)


def register_custom_pass(pass_, backend: str = ALL, stage: str = "frontend", priority: int = 0) -> bool:
    """Run `pass_` (a Pass, e.g. a PatternToPatternPass instance, or a Graph -> Graph function) on every
    graph compiled for `backend` ("all", a backend name or "ms_backend") at `stage` ("frontend": after
    the built-in frontend passes; "backend": before the backend's own passes). Passes of one stage run
    by descending `priority`, then in registration order. Returns True."""
    p = as_pass(pass_)
    known = _directory["names"]() if "names" in _directory else []
    if not isinstance(backend, str) or (backend not in (ALL, "ms_backend") and backend not in known):
        raise ValueError(f"register_custom_pass: unknown backend {backend!r}; choose 'all', 'ms_backend' or one of "
                         f"{known}")
    if stage not in STAGES:
        raise ValueError(f"register_custom_pass: stage={stage!r} is not valid; choose one of {list(STAGES)}")
    if not isinstance(priority, int) or isinstance(priority, bool):
        raise TypeError(f"register_custom_pass: priority must be an int, got {type(priority).__name__}")
    for reg in _REGISTERED:
        if reg.pass_ is p or _target(reg.pass_) is _target(pass_):
            raise ValueError(f"register_custom_pass: pass {p.name!r} is already registered "
                             f"(backend={reg.backend!r}, stage={reg.stage!r}); unregister it first")
        if reg.pass_.name == p.name:
            raise ValueError(f"register_custom_pass: another pass is already registered as {p.name!r}; names must be "
                             f"unique (they are how passes are listed and disabled)")
    if p.name in _BUILTIN_NAMES:
        raise ValueError(f"register_custom_pass: {p.name!r} is the name of a built-in pass; give the pass another "
                         f"name")
    _REGISTERED.append(Registration(p, backend, stage, priority, next(_order)))
    return True


def _target(p) -> object:
    """What the user registered: the Pass, or the function inside a FunctionPass."""
    return getattr(p, "fn", p)


def unregister_custom_pass(pass_) -> bool:
    """Remove a registered pass (the object given to `register_custom_pass`, or its name).
    Returns False when it was not registered."""
    for i, reg in enumerate(_REGISTERED):
        if reg.pass_ is pass_ or _target(reg.pass_) is pass_ or reg.pass_.name == pass_:
            del _REGISTERED[i]
            return True
    return False


def registered_passes(backend: Any, stage: str) -> list[Pass]:
    """The user passes for a backend and stage, in run order."""
    regs = [r for r in _REGISTERED if r.stage == stage and r.applies_to(backend)]
    return [r.pass_ for r in sorted(regs, key=lambda r: (-r.priority, r.order))]


def all_registered() -> list[Registration]:
    return list(_REGISTERED)
