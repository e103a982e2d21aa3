"""Run code written for MindSpore unchanged: `import mindspore` (and every `mindspore.X.Y`) resolves to msx.

`msx.compat.install()` puts an import hook first on `sys.meta_path` that answers every `mindspore` /
`mindspore.<path>` import with the msx module at `msx.<path>`: `import mindspore as ms`, `import mindspore.nn
as nn`, `from mindspore.ops import operations as P`, `from mindspore.common.initializer import Normal` all
give msx's objects, and `mindspore.nn is msx.nn`. Where msx holds the name as an attribute rather than a
module file (`mindspore.common.dtype`), the attribute is the module. A path msx has no module for is a
`ModuleNotFoundError` that names both paths. `python -m msx run script.py [args]` runs a script with the hook
installed (`compat.run`). See docs/api_surface.md ("Running MindSpore code unchanged").
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import runpy
import sys
import types

PREFIX = "mindspore"


def _target(fullname: str) -> str:
    return "msx" + fullname[len(PREFIX):]


def _resolve(fullname: str) -> types.ModuleType:
    """The msx module standing for `mindspore.<path>`: a module, or a module held as an attribute."""
    target = _target(fullname)
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        if exc.name not in (target, None) and not target.startswith(exc.name + "."):
            raise  # an import inside msx's module failed: that error, not a missing alias
        parent, _, leaf = target.rpartition(".")
        obj = getattr(importlib.import_module(parent), leaf, None) if parent else None
        if isinstance(obj, types.ModuleType):
            return obj
        raise ModuleNotFoundError(f"No module named {fullname!r}: msx has no {target!r} (msx.compat maps "
                                  f"mindspore.* to msx.*; this part of MindSpore is not in msx)",
                                  name=fullname) from None


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module: types.ModuleType) -> None:
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module) -> None:  # the msx module has run already
        pass


class MindSporeAlias(importlib.abc.MetaPathFinder):
    """The import hook: `mindspore[.X...]` -> `msx[.X...]`."""

    def find_spec(self, fullname: str, path=None, target=None):
        if fullname != PREFIX and not fullname.startswith(PREFIX + "."):
            return None
        module = _resolve(fullname)
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module), is_package=hasattr(module, "__path__"))


_HOOK = MindSporeAlias()


def install() -> None:
    """Make `import mindspore...` give msx's modules, in this process, from now on (idempotent).

    Refuses when the real MindSpore was imported already (its modules would be mixed with msx's)."""
    real = sys.modules.get(PREFIX)
    if real is not None and not getattr(real, "__name__", "").startswith("msx"):
        raise RuntimeError("msx.compat.install(): the real 'mindspore' is imported already in this process; "
                           "install the alias before anything imports mindspore")
    if _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)


def uninstall() -> None:
    """Remove the hook and the `mindspore*` entries it put in `sys.modules`."""
    if _HOOK in sys.meta_path:
        sys.meta_path.remove(_HOOK)
    for name in [n for n in sys.modules if n == PREFIX or n.startswith(PREFIX + ".")]:
        if getattr(sys.modules[name], "__name__", "").startswith("msx"):
            del sys.modules[name]


def installed() -> bool:
    return _HOOK in sys.meta_path


def run(target: str, args: list[str], module: bool = False) -> None:
    """Run a script (or, with `module`, `python -m`-style a module) as `__main__` with the alias installed."""
    install()
    sys.argv = [target, *args]
    if module:
        if importlib.util.find_spec(target) is None:
            raise ModuleNotFoundError(f"No module named {target!r}", name=target)
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(target, run_name="__main__")
