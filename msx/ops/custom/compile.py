"""Compile custom-op sources into a shared library, cached on disk by everything that went into it.

The cache key hashes the sources (path and bytes), include paths, flags, the
compiler's identity and the msx/jaxlib versions, so a second `load()` with
nothing changed compiles nothing. Headers a source includes are found by the
compiler itself (`-MMD`) and recorded with their hashes beside the library;
a changed header recompiles too. Libraries and their records are written to
temporary files and renamed into place, so a reader (another process, an
interrupted build) never sees half a library.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

import jax
import jaxlib

from ...atomic import write_atomic
from ...errors import CustomOpBuildError, CustomOpError
from ...release import __version__ as msx_version

HEADER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")
_CACHE_FORMAT = 1
_SHOWN_LINES = 60  # of the compiler's output, in an error


@dataclass(frozen=True)
class BuildSpec:
    """What to build: absolute paths and flag lists, as `CustomOpBuilder` normalised them."""

    name: str
    sources: tuple[str, ...]
    backend: str                 # "CPU" or "GPU"
    include_paths: tuple[str, ...] = ()
    cflags: tuple[str, ...] = ()
    ldflags: tuple[str, ...] = ()
    build_dir: str | None = None


@dataclass(frozen=True)
class BuildResult:
    library: str    # path of the shared library
    build_id: str   # names this exact build (sources, flags and headers)
    compiled: bool  # whether this call ran the compiler
    seconds: float


def cache_root() -> str:
    """`$MSX_CACHE_DIR/custom_ops`, else `$XDG_CACHE_HOME/msx/custom_ops`, else `~/.cache/msx/custom_ops`."""
    base = os.environ.get("MSX_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "msx")
    return os.path.join(base, "custom_ops")


def compiler(backend: str) -> str:
    """The compiler for a backend: `$CXX` or g++ for CPU, `$NVCC` or nvcc for GPU (a clear error if absent)."""
    wanted = os.environ.get("NVCC", "nvcc") if backend == "GPU" else os.environ.get("CXX", "g++")
    found = shutil.which(wanted)
    if found is None:
        what = "the CUDA compiler" if backend == "GPU" else "a C++ compiler"
        raise CustomOpError(f"CustomOpBuilder: {what} {wanted!r} was not found on PATH; install it (e.g. "
                            f"{'the CUDA toolkit' if backend == 'GPU' else 'apt-get install g++'}) or point "
                            f"{'NVCC' if backend == 'GPU' else 'CXX'} at one")
    return found


@functools.lru_cache(maxsize=None)
def _compiler_identity(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    return f"{path} {out.strip()}"


def compile_flags(spec: BuildSpec) -> list[str]:
    """Flags for compiling one source: the defaults (C++17, -O2, PIC, FFI and msx headers), then the user's."""
    includes = ["-isystem", jax.ffi.include_dir(), "-isystem", HEADER_DIR]
    includes += [f"-I{p}" for p in spec.include_paths]
    if spec.backend == "GPU":
        base = ["-std=c++17", "-O2", "-Xcompiler", "-fPIC,-fvisibility=hidden"]
    else:
        base = ["-std=c++17", "-O2", "-fPIC", "-fvisibility=hidden"]
    return base + includes + list(spec.cflags)


def link_flags(spec: BuildSpec) -> list[str]:
    return ["-shared"] + list(spec.ldflags)


def _sha256_file(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def cache_key(spec: BuildSpec) -> str:
    cc = compiler(spec.backend)
    with open(os.path.join(HEADER_DIR, "msx", "custom_op.h"), "rb") as f:
        header = hashlib.sha256(f.read()).hexdigest()

    payload = {"format": _CACHE_FORMAT, "name": spec.name, "backend": spec.backend,
               "sources": [[p, _sha256_file(p)] for p in spec.sources], "compile": compile_flags(spec),
               "link": link_flags(spec), "compiler": _compiler_identity(cc), "msx": msx_version,
               "jaxlib": jaxlib.__version__, "msx_header": header}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _record_path(root: str, name: str, key: str) -> str:
    return os.path.join(root, f"lib{name}-{key[:16]}.json")


def _cached(record_path: str, root: str) -> tuple[str, str] | None:
    """(library, build id) of a previous build whose headers are unchanged, else None."""
    try:
        with open(record_path, encoding="utf-8") as f:
            record = json.load(f)
        library = os.path.join(root, record["library"])
        headers = record["headers"]
        if not os.path.isfile(library) or not isinstance(headers, dict):
            return None
        for path, digest in headers.items():
            if not os.path.isfile(path) or _sha256_file(path) != digest:
                return None
        return library, record["build_id"]
    except (OSError, ValueError, KeyError, TypeError):  # missing or damaged record: build again
        return None


def build(spec: BuildSpec) -> BuildResult:
    """The shared library for `spec`, compiled only when no valid cached build exists."""
    for src in spec.sources:
        if not os.path.isfile(src):
            raise CustomOpError(f"CustomOpBuilder({spec.name!r}): source file {src!r} does not exist")
    start = time.perf_counter()
    key = cache_key(spec)
    root = spec.build_dir or os.path.join(cache_root(), spec.name)
    try:
        os.makedirs(root, exist_ok=True)
    except OSError as exc:
        raise CustomOpError(f"CustomOpBuilder({spec.name!r}): cannot create the build directory {root}: {exc}; "
                            f"pass build_dir=... or set MSX_CACHE_DIR") from None
    record_path = _record_path(root, spec.name, key)
    hit = _cached(record_path, root)
    if hit is not None:
        return BuildResult(hit[0], hit[1], False, time.perf_counter() - start)
    library, build_id, headers = _compile(spec, key, root)
    record = {"library": os.path.basename(library), "build_id": build_id, "headers": headers,
              "sources": list(spec.sources)}
    write_atomic(record_path, [json.dumps(record, indent=1).encode()])
    return BuildResult(library, build_id, True, time.perf_counter() - start)


def _compile(spec: BuildSpec, key: str, root: str) -> tuple[str, str, dict[str, str]]:
    """Compile every source (in parallel), link, and move the library into place; returns (path, id, headers)."""
    cc = compiler(spec.backend)
    work = tempfile.mkdtemp(prefix=f".build-{spec.name}-", dir=root)
    jobs: list = []
    try:
        for i, src in enumerate(spec.sources):
            obj, dep = os.path.join(work, f"{i}.o"), os.path.join(work, f"{i}.d")
            cmd = [cc] + compile_flags(spec) + ["-c", src, "-o", obj, "-MMD", "-MF", dep]
            jobs.append((cmd, obj, dep, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)))
        for cmd, _, _, proc in jobs:
            _check(spec, cmd, proc)
        headers: dict[str, str] = {}
        for _, _, dep, _ in jobs:
            for path in _depfile_paths(dep):
                if path not in spec.sources:
                    headers[path] = _sha256_file(path)
        build_id = key[:16] + hashlib.sha256(json.dumps(headers, sort_keys=True).encode()).hexdigest()[:8]
        library = os.path.join(root, f"lib{spec.name}-{build_id}.so")
        tmp = os.path.join(work, "lib.so")
        cmd = [cc, *[obj for _, obj, _, _ in jobs], "-o", tmp] + link_flags(spec)
        _check(spec, cmd, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
        os.replace(tmp, library)
        return library, build_id, headers
    finally:
        for _, _, _, proc in jobs:  # a failed job's siblings must not outlive the build
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        shutil.rmtree(work, ignore_errors=True)


def _check(spec: BuildSpec, cmd: list[str], proc: subprocess.Popen) -> None:
    output = proc.communicate()[0].decode(errors="replace")
    if proc.returncode == 0:
        return
    lines = output.rstrip().splitlines()
    shown = "\n".join(lines[:_SHOWN_LINES])
    if len(lines) > _SHOWN_LINES:
        shown += f"\n... ({len(lines) - _SHOWN_LINES} more lines)"
    command = " ".join(_quote(c) for c in cmd)
    raise CustomOpBuildError(f"CustomOpBuilder({spec.name!r}): {os.path.basename(cmd[0])} failed with exit status "
                             f"{proc.returncode}\ncommand: {command}\ncompiler output:\n{shown}", cmd, output)


def _quote(arg: str) -> str:
    return arg if re.fullmatch(r"[\w@%+=:,./-]+", arg) else "'" + arg.replace("'", "'\"'\"'") + "'"


def _depfile_paths(depfile: str) -> list[str]:
    """The prerequisites a Makefile-style depfile (`obj: a.cc b.h \\`) lists, as absolute paths."""
    with open(depfile, encoding="utf-8", errors="replace") as f:
        text = f.read().replace("\\\n", " ")
    _, _, prereqs = text.partition(": ")
    paths = [p.replace("\\ ", " ") for p in re.split(r"(?<!\\)\s+", prereqs) if p]
    return [os.path.abspath(p) for p in paths]
