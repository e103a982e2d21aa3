"""Open a compiled custom-op library and register its handlers as XLA FFI targets (once per process).

A library built with `msx/custom_op.h` carries a table of `(name, handler)`
pairs, read through `msx_custom_op_count/name/handler`; nothing else in it
needs to be exported, so two builds of one module can live in one process.
"""
from __future__ import annotations

import ctypes
import keyword
from dataclasses import dataclass

import jax

from ...errors import CustomOpError

_ABI_VERSION = 1
_LOADED: dict[str, "Library"] = {}      # path -> library; keeps every loaded library alive
_REGISTERED: dict[tuple[str, str], int] = {}   # (target, platform) -> handler address


@dataclass(frozen=True)
class Library:
    path: str
    handle: ctypes.CDLL
    handlers: dict[str, int]  # op name -> XLA_FFI_Handler address, in declaration order


def open_library(path: str, module: str) -> Library:
    """Load the library at `path` (once) and read its table of handlers."""
    lib = _LOADED.get(path)
    if lib is None:
        lib = _read_table(path, module)
        _LOADED[path] = lib
    return lib


def _read_table(path: str, module: str) -> Library:
    try:
        handle = ctypes.CDLL(path)
    except OSError as exc:
        raise CustomOpError(f"CustomOpBuilder({module!r}): cannot load {path}: {exc}") from None
    try:
        version, count = handle.msx_custom_op_abi_version, handle.msx_custom_op_count
    except AttributeError:
        raise CustomOpError(f"CustomOpBuilder({module!r}): {path} declares no msx custom ops; #include "
                            f"\"msx/custom_op.h\" and declare each XLA FFI handler with MSX_CUSTOM_OP(name, impl)"
                            ) from None
    if version() != _ABI_VERSION:
        raise CustomOpError(f"CustomOpBuilder({module!r}): {path} was built with msx/custom_op.h ABI version "
                            f"{version()}, this msx reads version {_ABI_VERSION}; rebuild it")
    name_of, handler_of = handle.msx_custom_op_name, handle.msx_custom_op_handler
    name_of.argtypes, name_of.restype = [ctypes.c_int], ctypes.c_char_p
    handler_of.argtypes, handler_of.restype = [ctypes.c_int], ctypes.c_void_p
    handlers: dict[str, int] = {}
    for i in range(count()):
        name = name_of(i).decode()
        if name in handlers:
            raise CustomOpError(f"CustomOpBuilder({module!r}): op {name!r} is declared twice (MSX_CUSTOM_OP in two "
                                f"sources?)")
        if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("__"):
            raise CustomOpError(f"CustomOpBuilder({module!r}): op name {name!r} is not usable as a Python "
                                f"attribute; rename it")
        handlers[name] = handler_of(i)
    if not handlers:
        raise CustomOpError(f"CustomOpBuilder({module!r}): the sources declare no op; declare each XLA FFI handler "
                            f"with MSX_CUSTOM_OP(name, impl[, binding])")
    return Library(path, handle, handlers)


def register_target(target: str, address: int, platform: str) -> None:
    """Register one handler as an FFI target for `platform` ("cpu" or "CUDA"); repeating it is a no-op."""
    if _REGISTERED.get((target, platform)) == address:
        return
    jax.ffi.register_ffi_target(target, jax.ffi.pycapsule(address), platform=platform)
    _REGISTERED[(target, platform)] = address
