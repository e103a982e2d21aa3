"""MindSpore's `ops.CustomOpBuilder`: compile C++ (XLA FFI) sources and use their ops like built-ins.

    my_ops = CustomOpBuilder("cpu_add", ["add3.cc"], backend="CPU").load()
    out = my_ops.add3(x, y, z)

`load()` compiles (or reuses the cached build), registers every handler the
sources declare with `MSX_CUSTOM_OP(name, impl[, binding])` as an XLA FFI
target, and returns a module whose functions are registry primitives named
`"<module>.<op>"`. A function's output defaults to the first input's shape and
dtype; `set_infer(out_shape, out_dtype)` and `set_bprop(bprop)` declare
otherwise, before the op's first call. Keyword arguments of a call are FFI
attributes (a Python float arrives as a C++ double, an int as int64_t).
"""
from __future__ import annotations

import os
import re
import shlex
import types
from typing import Any, Callable, Sequence

import jax

from ...errors import BackendUnavailableError, CustomOpError
from . import compile as compile_mod
from .library import open_library, register_target
from .op import CustomOp, CustomOpInfo, OutputRule, differentiable, install

BACKENDS = {"CPU": "cpu", "GPU": "CUDA"}  # backend -> the FFI platform its handlers are registered for
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KWARGS = ("build_dir",)


def _paths(value: Any, what: str, owner: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, (str, os.PathLike)) else list(value or ())
    if not all(isinstance(p, (str, os.PathLike)) for p in items):
        raise CustomOpError(f"{owner}: {what} must be a path or a list of paths, got {value!r}")
    return tuple(os.path.abspath(os.fspath(p)) for p in items)


def _flags(value: Any, what: str, owner: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(shlex.split(value))
    if isinstance(value, (list, tuple)) and all(isinstance(f, str) for f in value):
        return tuple(value)
    raise CustomOpError(f"{owner}: {what} must be a string of flags or a list of them, got {value!r}")


class CustomOpBuilder:
    """Build and load a module of custom ops from C++ sources (MindSpore's argument names).

    name: the module's name (a Python identifier); its ops register as
    `"<name>.<op>"`. sources: a path or a list of paths. backend: "CPU"
    (g++, `$CXX`) or "GPU" (nvcc, `$NVCC`; needs a GPU visible to jax).
    include_paths, cflags, ldflags: extra include directories and compiler
    and linker flags (a string or a list). `build_dir=`: where the library
    goes (default: `~/.cache/msx/custom_ops/<name>`, or `$MSX_CACHE_DIR`).
    """

    def __init__(self, name: str, sources: str | Sequence[str], backend: str | None = "CPU",
                 include_paths: str | Sequence[str] | None = None, cflags: str | Sequence[str] | None = None,
                 ldflags: str | Sequence[str] | None = None, **kwargs) -> None:
        if not isinstance(name, str) or not _NAME.fullmatch(name) or name == "Custom":
            raise CustomOpError(f"CustomOpBuilder: name must be a Python identifier other than 'Custom' (it names "
                                f"the module and prefixes its ops; 'Custom.*' are ops.Custom's), got {name!r}")
        owner = f"CustomOpBuilder({name!r})"
        unknown = sorted(set(kwargs) - set(_KWARGS))
        if unknown:
            raise CustomOpError(f"{owner}: unknown keyword argument(s) {unknown}; msx takes {list(_KWARGS)} "
                                f"(Ascend-only options such as enable_atb do not apply)")
        backend = "CPU" if backend is None else str(backend).upper()
        if backend == "ASCEND":
            raise CustomOpError(f"{owner}: backend='Ascend': msx simulates Ascend on the CPU; build with "
                                f"backend='CPU' and the simulated Ascend backend runs the op as an AICPU op")
        if backend not in BACKENDS:
            raise CustomOpError(f"{owner}: backend must be one of {list(BACKENDS)}, got {backend!r}")
        sources = _paths(sources, "sources", owner)
        if not sources:
            raise CustomOpError(f"{owner}: sources is empty; give at least one C++ source file")
        build_dir = kwargs.get("build_dir")
        self.name = name
        self.backend = backend
        self._spec = compile_mod.BuildSpec(
            name, sources, backend, _paths(include_paths, "include_paths", owner),
            _flags(cflags, "cflags", owner), _flags(ldflags, "ldflags", owner),
            None if build_dir is None else os.path.abspath(os.fspath(build_dir)))
        self.compiled: bool | None = None  # after build()/load(): whether that call ran the compiler

    # MindSpore's accessors
    def get_sources(self) -> list[str]:
        return list(self._spec.sources)

    def get_include_paths(self) -> list[str]:
        return [jax.ffi.include_dir(), compile_mod.HEADER_DIR] + list(self._spec.include_paths)

    def get_cflags(self) -> list[str]:
        return compile_mod.compile_flags(self._spec)

    def get_ldflags(self) -> list[str]:
        return compile_mod.link_flags(self._spec)

    def _check_device(self) -> None:
        if self.backend == "GPU":
            try:
                jax.devices("gpu")
            except RuntimeError:
                have = sorted({d.platform for d in jax.devices()})
                raise BackendUnavailableError(
                    f"CustomOpBuilder({self.name!r}, backend='GPU'): jax sees no GPU on this machine (devices: "
                    f"{have}); GPU custom ops need a CUDA GPU and jax with CUDA support. Use backend='CPU' here",
                    stage="custom_op") from None

    def _build(self) -> compile_mod.BuildResult:
        self._check_device()
        result = compile_mod.build(self._spec)
        self.compiled = result.compiled
        return result

    def build(self) -> str:
        """Compile (unless a valid cached build exists) and return the shared library's path."""
        return self._build().library

    def load(self) -> types.ModuleType:
        """Build, register every op as an FFI target and return a module of callable ops."""
        result = self._build()
        library = open_library(result.library, self.name)
        platform = BACKENDS[self.backend]
        module = types.ModuleType(self.name, f"custom ops built by CustomOpBuilder({self.name!r}) from "
                                             f"{', '.join(os.path.basename(s) for s in self._spec.sources)}")
        module.__file__ = result.library
        module.__all__ = list(library.handlers)
        for op, address in library.handlers.items():
            target = f"msx.{self.name}.{op}.{result.build_id}"
            register_target(target, address, platform)
            setattr(module, op, CustomFunction(self.name, op, target, CustomOpInfo(
                "ffi", op, self.name, result.library, target, self.backend)))
        return module

    def __repr__(self) -> str:
        return f"CustomOpBuilder({self.name!r}, {list(self._spec.sources)!r}, backend={self.backend!r})"


class CustomFunction(CustomOp):
    """One C++ op of a loaded module: `fn(*tensors, **attrs)`; declare rules with `set_infer`/`set_bprop`."""

    def __init__(self, module: str, op: str, target: str, info: CustomOpInfo) -> None:
        super().__init__(f"{module}.{op}")
        self.module, self.op, self.target, self.info = module, op, target, info
        self.out_shape: Any = None
        self.out_dtype: Any = None
        self.bprop: Callable | None = None
        self._declare()

    def set_infer(self, out_shape: Any = None, out_dtype: Any = None) -> "CustomFunction":
        """Declare the outputs' shapes and dtypes (MindSpore Custom's `out_shape`/`out_dtype` forms); returns self.

        Functions receive the input shapes (tuples) or dtypes (msx dtypes), and
        the call's attributes as keywords. None keeps "same as the first input".
        """
        self._check_unused("set_infer")
        self.out_shape, self.out_dtype = out_shape, out_dtype
        self._declare()
        return self

    def set_bprop(self, bprop: Callable | None) -> "CustomFunction":
        """Declare the backward: `bprop(*inputs, out, dout, **attrs)` returning one gradient per input; returns self."""
        self._check_unused("set_bprop")
        if bprop is not None and not callable(bprop):
            raise CustomOpError(f"{self.name}.set_bprop: bprop must be callable, got {type(bprop).__name__}")
        self.bprop = bprop
        self._declare()
        return self

    def _check_unused(self, what: str) -> None:
        if self._used:
            raise CustomOpError(f"{self.name}.{what}: the op has already run, and graphs compiled since may hold "
                                f"its old declaration; declare before the first call (load() again for a fresh "
                                f"module)")

    def _declare(self) -> None:
        rule = OutputRule(self.name, self.out_shape, self.out_dtype)
        call_target, calls = self.target, {}

        def forward(inputs: tuple, attrs: dict) -> tuple:
            structs = rule.structs(inputs, attrs)
            call = calls.get(structs)
            if call is None:
                if len(calls) >= 256:
                    calls.clear()
                call = calls[structs] = jax.ffi.ffi_call(call_target, structs, vmap_method="sequential")
            try:
                return tuple(call(*inputs, **attrs))
            except jax.errors.JaxRuntimeError as exc:  # the kernel returned an ffi::Error, or a binding mismatch
                detail = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
                raise ValueError(f"the C++ kernel failed: {detail}") from None

        hint = f"declare one with {self.module}.{self.op}.set_bprop(bprop) before its first call"
        impl = differentiable(self.name, forward, self.bprop, hint)
        self._primitive = install(self.name, impl, self.info, f"C++ op {self.op} of CustomOpBuilder {self.module!r}")

    def __repr__(self) -> str:
        return f"<custom op {self.name} (XLA FFI target {self.target!r}, {self.info.backend})>"
