"""MindSpore names that exist in msx only so that imports work, and refuse every use with one clear error.

MindSpore's public modules export Ascend-only kernels (`Cus*`, fused attention, MoE dispatch), internals of
its graph compiler and runtime (`switch`, `environ_get`, streams, parameter-server contexts) and tools for
its own hardware (silent-data-corruption checks, model encryption). A program that only imports such a
name must keep working; one that uses it must stop at once with `NotAvailableError` saying what the name
is and what to use in msx instead -- never a stub that pretends to work.

One mechanism for every namespace: a module calls `refuse(globals(), "mindspore.ops", TABLE)` with a table
`{(what, instead): "Name1 Name2 ..."}`; each name becomes a class (a name MindSpore spells like a class) or a
function that raises on construction or call. Every refused name is recorded in `REFUSED`, so the coverage
tool (`python -m msx.tools.api_coverage`) counts them apart from working names and a test calls each one.
"""
from __future__ import annotations

from typing import Any, Callable

from .errors import NotAvailableError

# "mindspore.ops.CusBatchMatMul" -> the message using it raises
REFUSED: dict[str, str] = {}
_MARK = "__msx_refused__"


def message(path: str, what: str, instead: str) -> str:
    return f"{path} is not available in msx ({what}): {instead}"


def _is_class_name(name: str) -> bool:
    return name[:1].isupper() and not name.isupper()


def refused(path: str, what: str, instead: str) -> Any:
    """A stand-in for MindSpore's `path` that raises `NotAvailableError` when constructed or called."""
    obj = _stand_in(path, what, instead)
    REFUSED.setdefault(path, message(path, what, instead))
    return obj


def _stand_in(path: str, what: str, instead: str) -> Any:
    text = message(path, what, instead)
    name = path.rpartition(".")[2]

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise NotAvailableError(text)

    if _is_class_name(name):
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            raise NotAvailableError(text)

        obj: Any = type(name, (), {"__init__": __init__, "__call__": fail, "__doc__": f"Not available in msx: "
                                   f"{what}. {instead}.", "__module__": _msx_module(path), _MARK: text})
    else:
        fail.__name__ = fail.__qualname__ = name
        fail.__doc__ = f"Not available in msx: {what}. {instead}."
        setattr(fail, _MARK, text)
        obj = fail
    return obj


def _msx_module(path: str) -> str:
    module = path.rpartition(".")[0]
    return "msx" + module[len("mindspore"):] if module.startswith("mindspore") else module


def refused_method(owner: str, name: str, what: str, instead: str) -> Callable:
    """A method of a class (`mindspore.Tensor.offload`) that raises when called."""
    text = message(f"{owner}.{name}", what, instead)

    def method(*args: Any, **kwargs: Any) -> Any:  # (self, ...) or, called on the class, anything
        raise NotAvailableError(text)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"Not available in msx: {what}. {instead}."
    setattr(method, _MARK, text)
    REFUSED.setdefault(f"{owner}.{name}", text)
    return method


def refuse(namespace: dict, module: str, table: dict[tuple[str, str], str]) -> list[str]:
    """Put a refusing stand-in for every name of `table` (`{(what, instead): "A B c"}`) into `namespace` (a
    module's `globals()`), named as MindSpore's `module.<name>`; return the names, for `__all__`."""
    names = []
    for (what, instead), spaced in table.items():
        for name in spaced.split():
            namespace[name] = refused(f"{module}.{name}", what, instead)
            names.append(name)
    return names


def refuse_methods(cls: type, owner: str, table: dict[tuple[str, str], str]) -> list[str]:
    """Attach refusing methods to `cls` (MindSpore's `owner` class) for every name of `table`."""
    names = []
    for (what, instead), spaced in table.items():
        for name in spaced.split():
            setattr(cls, name, refused_method(owner, name, what, instead))
            names.append(name)
    return names


def refuse_decorators(namespace: dict, module: str, table: dict[tuple[str, str], str]) -> list[str]:
    """Like `refuse`, for MindSpore's decorators (`prim_attr_register`, `ms_kernel`): decorating works, so a
    module that defines such an op still imports; calling what was decorated raises."""
    names = []
    for (what, instead), spaced in table.items():
        for name in spaced.split():
            path = f"{module}.{name}"
            namespace[name] = _decorator(path, what, instead)
            names.append(name)
    return names


def _decorator(path: str, what: str, instead: str) -> Callable:
    text = message(path, what, instead)

    def decorator(*args: Any, **kwargs: Any) -> Any:
        if len(args) != 1 or kwargs or not callable(args[0]):  # used with arguments: `@op_info_register(info)`
            return decorator
        fn = args[0]
        return fn if isinstance(fn, type) else _stand_in(f"{path}({getattr(fn, '__qualname__', 'fn')})", what, instead)

    decorator.__name__ = decorator.__qualname__ = path.rpartition(".")[2]
    decorator.__doc__ = f"Not available in msx: {what}. {instead}."
    setattr(decorator, _MARK, text)
    decorator.refuses_when_called_after_decorating = True  # type: ignore[attr-defined]
    REFUSED.setdefault(path, text)
    return decorator


def mark_refused(obj: Any, path: str, what: str, instead: str) -> Any:
    """Count a hand-made stand-in (a class whose every method refuses, like `train.ConvertNetUtils`) as refused."""
    text = message(path, what, instead)
    setattr(obj, _MARK, text)
    REFUSED.setdefault(path, text)
    return obj


def is_refused(obj: Any) -> bool:
    """True for a stand-in made here (a class, function or method that only raises)."""
    return getattr(obj, _MARK, None) is not None and isinstance(getattr(obj, _MARK), str)
