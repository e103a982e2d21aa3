"""msx's own cache of compiled executables, keyed on the graph: a rerun with a warm cache lowers nothing.

jax's persistent compilation cache (`msx/compile_cache.py`) keys an executable on its StableHLO, so a second
process must still lower each graph (evaluate it under jax's tracer, emit and hash the module: 0.2-0.8 s of a
CNN step's first call) before it can load anything. This cache sits in front of it for the XLA backends: an
entry is keyed on the graph msx built (after the passes), so a hit goes from the graph straight to the
executable, with no tracing, lowering or HLO hashing.

The key covers everything the lowering reads: the graph losslessly (`ir.serialize.graph_to_data`: every node,
attribute, constant's bytes, shape and dtype; not the source lines, which jax's own key strips as well), the
build's settings (written Parameters,
donation, extra outputs), msx's version and a fingerprint of its source files (an edited op implementation
lowers differently), jax and jaxlib's versions, jax's tracing configuration, `XLA_FLAGS`, and the device
(platform, its version, kind, id). A graph is cached only when every op in it is one of msx's own (a user's
custom op's implementation can change under the same name) and the executable is one device's plain program
(no host callbacks, effects, constants passed as arguments or shardings over several devices).

An entry is one file: a magic line, the SHA-256 of the rest, the length of a JSON header (its key and the
executable's signature: input and output types, kept inputs, donation, the output structure) and XLA's
serialized executable. A reader treats it as untrusted: a short or damaged file, another key's entry, a header
of the wrong shape or a checksum mismatch is a miss (the graph is compiled again and the entry rewritten), never an error or a wrong program. Files are
written atomically; processes share the folder (a reader sees a whole entry or none); least-recently-used
entries are evicted past `MSX_COMPILE_CACHE_MAX_BYTES`. As with jax's own cache, the folder itself is trusted
to hold executables this user's processes wrote: an XLA executable is machine code.

The signature is rebuilt into a `jax.stages.Compiled` through jax's `pxla.UnloadedMeshExecutable` (what
`jax.experimental.serialize_executable` pickles; msx writes no pickle). Those are jax internals: the key holds
jax's version, and any failure to rebuild is a miss that turns the cache off for the process.
"""
from __future__ import annotations

import hashlib
import json
import os
import struct
import threading
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import monitoring
from jax._src import config as jax_config  # the settings jax's own jit cache keys on (`trace_context`)
from jax._src import core
from jax._src.interpreters import pxla
from jax._src.lib import xla_client as xc
from jax.experimental.layout import Layout
from jax.sharding import SingleDeviceSharding

from .. import compile_cache
from ..atomic import write_atomic
from ..ir.graph import Graph
from ..ir.interpret import LOWERINGS
from ..ir.serialize import DTYPE_NAMES, graph_to_data
from ..ops.primitive import REGISTRY
from ..release import __version__

FORMAT = "msx-executable-1"
MAGIC = b"MSXEXE1\n"
SUFFIX = ".msxexe"
MAX_HEADER = 1 << 24  # bytes: a header is a few kB per hundred inputs; a larger length is a damaged file
DISABLED: list[str] = []  # why the cache turned itself off in this process (jax's internals did not fit)
# jax.monitoring events, beside jax's own "/jax/compilation_cache/cache_hits" and "cache_misses"
HIT, MISS, WRITE = "/msx/executable_cache/hits", "/msx/executable_cache/misses", "/msx/executable_cache/writes"
JAX_HIT = "/jax/compilation_cache/cache_hits"
_JAX_HITS = threading.local()  # jax's persistent-cache hits in this thread (see `jax_hits`)


def _count_jax_hit(event: str, **kwargs: Any) -> None:
    if event == JAX_HIT:
        _JAX_HITS.n = getattr(_JAX_HITS, "n", 0) + 1


monitoring.register_event_listener(_count_jax_hit)


def jax_hits() -> int:
    """How many executables jax's persistent cache has loaded in this thread. An executable XLA:CPU loaded
    from serialized bytes serializes again without its kernels (its next load runs into "Function ... not
    found"), so `store` is given only executables that this thread's compile made afresh."""
    return getattr(_JAX_HITS, "n", 0)


def folder() -> str | None:
    """Where entries live: `msx_executables/` in the compile cache's rank folder; None when the cache is off."""
    base = compile_cache.folder()
    return None if base is None or DISABLED else os.path.join(base, "msx_executables")


# ---------------------------------------------------------------- the key
_SOURCE_FINGERPRINT: list[str] = []


def _source_fingerprint() -> str:
    """A hash of msx's own source files (names, sizes, modification times): code that lowers differently after
    an edit gets other keys, though the version string did not change. Computed once per process."""
    if not _SOURCE_FINGERPRINT:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        digest = hashlib.sha256()
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith(".py"):
                    st = os.stat(os.path.join(dirpath, name))
                    digest.update(f"{os.path.relpath(os.path.join(dirpath, name), root)}:{st.st_size}:"
                                  f"{st.st_mtime_ns};".encode())
        _SOURCE_FINGERPRINT.append(digest.hexdigest())
    return _SOURCE_FINGERPRINT[0]


def _tracing_config() -> str:
    """jax's settings that change what tracing emits (x64, matmul precision, ...), as stable text."""
    simple = (type(None), bool, int, float, str, tuple)
    return repr([x if isinstance(x, simple) else (str(x) if hasattr(x, "value") else type(x).__name__)
                 for x in jax_config.trace_context()])


_LIBRARIES = ("msx", "jax", "jaxlib", "numpy")


def _lowerings(graph: Graph, found: set) -> bool:
    """Add to `found` the code that lowers each op of the graph (subgraphs too), as `module.name`; False when an
    op's lowering is not msx's, jax's or numpy's own (a user's custom op can change under the same name)."""
    for node in graph.nodes:
        prim = REGISTRY.get(node.op)  # the code that lowers it: its jax impl, else its rule in LOWERINGS
        if prim is None or prim.attrs == ("*",) or prim.category == "custom":
            fn = None
        else:
            fn = prim.impl if prim.impl is not None else LOWERINGS.get(node.op)
        module = getattr(fn, "__module__", None) or ""
        if fn is None or module.split(".")[0] not in _LIBRARIES:
            return False
        found.add(f"{node.op}={module}.{getattr(fn, '__qualname__', type(fn).__name__)}")
        if not all(_lowerings(sub, found) for sub in node.subgraphs.values()):
            return False
    return True


def _without_locations(data: dict) -> dict:
    """The graph's data without its nodes' source lines (jax's own cache key strips them from the HLO too): an
    edit above a jitted function moves its lines but not its program. Only the nodes' `loc` fields go (an op's
    attribute may be called `loc` too)."""
    nodes = [{**{k: v for k, v in n.items() if k != "loc"},
              "subgraphs": {name: _without_locations(sub) for name, sub in n["subgraphs"].items()}}
             for n in data["nodes"]]
    return {**data, "nodes": nodes}


def key(graph: Graph, rw_params: tuple, donate: bool, device: Any) -> str | None:
    """The entry's name for this graph's build on `device`, or None when it must not be cached."""
    lowerings: set[str] = set()
    if folder() is None or not _lowerings(graph, lowerings):
        return None
    try:
        data, arrays = graph_to_data(graph)
    except Exception:  # noqa: BLE001 - a value graph_to_data cannot store (a Python callable): not cacheable
        return None
    digest = hashlib.sha256()
    settings = {"format": FORMAT, "msx": __version__, "source": _source_fingerprint(), "jax": jax.__version__,
                "jaxlib": jax.lib.__version__, "tracing": _tracing_config(),
                "xla_flags": os.environ.get("XLA_FLAGS", ""), "platform": device.platform,
                "platform_version": device.client.platform_version, "device_kind": device.device_kind,
                "device": device.id, "processes": jax.process_count(), "rw_params": list(rw_params),
                "donate": bool(donate), "lowerings": sorted(lowerings)}
    digest.update(json.dumps([settings, _without_locations(data)], sort_keys=True, default=str).encode())
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}:{array.dtype.str}:{array.shape};".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


# ---------------------------------------------------------------- the executable's signature
def _aval_data(aval: Any) -> list:
    return [list(aval.shape), str(aval.dtype), bool(aval.weak_type)]


def _aval(data: list) -> core.ShapedArray:
    shape, dtype, weak = data
    return core.ShapedArray(tuple(shape), jnp.dtype(dtype), weak_type=weak)


def signature(compiled: Any, device: Any) -> dict | None:
    """What rebuilding `compiled` (a `jax.stages.Compiled` of `XlaBackend`'s `(inputs, ro, rw)` call) around its
    XLA executable needs, as JSON data; None when it is not one device's plain program."""
    unloaded = getattr(compiled._executable, "_unloaded_executable", None)
    if unloaded is None or unloaded.unordered_effects or unloaded.ordered_effects or unloaded.keepalive \
            or unloaded.host_callbacks or unloaded.mut is not None or unloaded.pgle_profiler is not None \
            or compiled._params.const_args or any(x is not None for x in unloaded.dispatch_in_layouts):
        return None
    single = SingleDeviceSharding(device)
    if any(s != single for s in (*unloaded.input_shardings, *unloaded.output_shardings)):
        return None
    (groups, kwargs) = compiled.args_info
    args = [info for group in groups for info in group]
    results = compiled.out_tree.unflatten([0] * compiled.out_tree.num_leaves)
    if kwargs or len(groups) != 3 or not isinstance(results, tuple) or len(results) != 3 \
            or not all(isinstance(r, list) for r in results):
        return None
    if any(str(info._aval.dtype) not in DTYPE_NAMES for info in args) \
            or any(str(a.dtype) not in DTYPE_NAMES for a in unloaded.output_avals):
        return None
    debug = unloaded.all_args_info.debug_info if unloaded.all_args_info is not None else None
    return {"name": unloaded.name, "committed": bool(unloaded.committed), "groups": [len(g) for g in groups],
            "results": [len(r) for r in results],
            "args": [_aval_data(info._aval) + [bool(info.donated)] for info in args],
            "kept": sorted(unloaded.kept_var_idx), "outputs": [_aval_data(a) for a in unloaded.output_avals],
            "arg_names": list(debug.arg_names) if debug is not None and debug.arg_names is not None else None}


def rebuild(sig: dict, executable: Any, device: Any) -> jax.stages.Compiled:
    """A `jax.stages.Compiled` over XLA `executable` with the signature `sig` (from `signature`)."""
    single = SingleDeviceSharding(device)
    args = [_aval(a[:3]) for a in sig["args"]]
    kept = sig["kept"]
    ins, outs = [args[i] for i in kept], [_aval(a) for a in sig["outputs"]]
    names = tuple(sig["arg_names"]) if sig["arg_names"] is not None else None
    debug = core.DebugInfo("jit", sig["name"], names, None)
    unloaded = pxla.UnloadedMeshExecutable(
        xla_executable=executable, device_list=xc.DeviceList((device,)), backend=device.client,
        input_avals=ins, input_shardings=[single] * len(ins), output_avals=outs,
        output_shardings=[single] * len(outs), committed=sig["committed"], name=sig["name"],
        unordered_effects=[], ordered_effects=[], keepalive=[], host_callbacks=[], kept_var_idx=set(kept), mut=None,
        xla_in_layouts=[Layout.from_pjrt_layout(x) for x in executable.get_parameter_layouts()],
        dispatch_in_layouts=[None] * len(ins),
        xla_out_layouts=[Layout.from_pjrt_layout(x) for x in executable.get_output_layouts()],
        all_args_info=pxla.AllArgsInfo(args, debug),
        pgle_profiler=None)
    infos = iter(jax.stages.ArgInfo(aval, a[3]) for aval, a in zip(args, sig["args"]))
    groups = tuple([next(infos) for _ in range(n)] for n in sig["groups"])
    out_tree = jax.tree_util.tree_structure(tuple([0] * n for n in sig["results"]))
    return jax.stages.Compiled(unloaded.load(), [], (groups, {}), out_tree, no_kwargs=True)


def _same(rebuilt: jax.stages.Compiled, compiled: Any) -> bool:
    """Whether the rebuilt signature is the original's, field by field (checked before an entry is written)."""
    a, b = rebuilt._executable, compiled._executable
    return (rebuilt.in_tree == compiled.in_tree and rebuilt.out_tree == compiled.out_tree
            and list(a.in_avals) == list(b.in_avals) and list(a.out_avals) == list(b.out_avals)
            and set(a._kept_var_idx) == set(b._kept_var_idx) and list(a._xla_in_layouts) == list(b._xla_in_layouts)
            and list(a._xla_out_layouts) == list(b._xla_out_layouts)
            and [i.donated for i in jax.tree_util.tree_leaves(rebuilt.args_info)]
            == [i.donated for i in jax.tree_util.tree_leaves(compiled.args_info)])


# ---------------------------------------------------------------- entries on disk
def _is_count(x: Any, limit: int = 2 ** 62) -> bool:
    return type(x) is int and 0 <= x < limit


def _checked_signature(sig: Any) -> dict:
    """The header's signature, every field type-checked (a file is untrusted); ValueError otherwise."""
    def avals(xs: Any, width: int) -> None:
        if not isinstance(xs, list) or not all(
                isinstance(x, list) and len(x) == width and isinstance(x[0], list) and all(map(_is_count, x[0]))
                and isinstance(x[1], str) and x[1] in DTYPE_NAMES and all(type(f) is bool for f in x[2:])
                for x in xs):
            raise ValueError("avals")

    def counts(xs: Any, total: int) -> None:
        if not isinstance(xs, list) or len(xs) != 3 or not all(map(_is_count, xs)) or sum(xs) != total:
            raise ValueError("counts")

    if not isinstance(sig, dict) or set(sig) != {"name", "committed", "groups", "results", "args", "kept",
                                                 "outputs", "arg_names"}:
        raise ValueError("fields")
    avals(sig["args"], 4)
    avals(sig["outputs"], 3)
    counts(sig["groups"], len(sig["args"]))
    counts(sig["results"], len(sig["outputs"]))
    kept, names = sig["kept"], sig["arg_names"]
    if not isinstance(sig["name"], str) or type(sig["committed"]) is not bool:
        raise ValueError("name")
    if not isinstance(kept, list) or not all(_is_count(i, len(sig["args"])) for i in kept) \
            or kept != sorted(set(kept)):
        raise ValueError("kept")
    if names is not None and (not isinstance(names, list) or len(names) != len(sig["args"])
                              or not all(isinstance(n, str) for n in names)):
        raise ValueError("arg_names")
    return sig


def _read(path: str, name: str) -> tuple[dict, bytes] | None:
    """(signature, executable bytes) of entry `name`, or None for a missing, short, damaged or foreign file."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError:
        return None
    head = len(MAGIC) + 32 + 8
    if len(blob) < head or not blob.startswith(MAGIC) \
            or blob[len(MAGIC):len(MAGIC) + 32] != hashlib.sha256(memoryview(blob)[len(MAGIC) + 32:]).digest():
        return None
    (size,) = struct.unpack("<Q", blob[head - 8:head])
    if size > MAX_HEADER or head + size > len(blob):
        return None
    try:
        header = json.loads(blob[head:head + size].decode("utf-8"))
        if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("key") != name:
            return None
        return _checked_signature(header.get("signature")), blob[head + size:]
    except ValueError:  # JSON, UTF-8 or a field of the wrong shape
        return None


def load(name: str, device: Any) -> jax.stages.Compiled | None:
    """The cached executable `name` for `device`, or None (a miss: compile it and `store` it)."""
    where = folder()
    if where is None:
        return None
    path = os.path.join(where, name + SUFFIX)
    compiled = _load(path, name, device)
    monitoring.record_event(MISS if compiled is None else HIT)
    if compiled is not None:
        try:
            os.utime(path)  # most recently used: the last to be evicted
        except OSError:
            pass
    return compiled


def _load(path: str, name: str, device: Any) -> jax.stages.Compiled | None:
    entry = _read(path, name)
    if entry is None:
        return None
    sig, payload = entry
    try:
        executable = device.client.deserialize_executable(payload, xc.DeviceList((device,)), None)
    except Exception:  # noqa: BLE001 - XLA refuses an executable of another build: compile again
        return None
    try:
        return rebuild(sig, executable, device)
    except Exception as exc:  # noqa: BLE001 - jax's internals changed shape: no more cache in this process
        DISABLED.append(f"{type(exc).__name__}: {exc}")
        return None


def store(name: str, compiled: Any, device: Any) -> bool:
    """Write `compiled` as entry `name` when its signature can be rebuilt exactly; whether it was written."""
    where = folder()
    sig = signature(compiled, device) if where is not None else None
    if sig is None:
        return False
    executable = compiled._executable.xla_executable
    try:
        if not _same(rebuild(sig, executable, device), compiled):
            return False
        payload = device.client.serialize_executable(executable)
    except Exception as exc:  # noqa: BLE001 - jax's internals changed shape: no more cache in this process
        DISABLED.append(f"{type(exc).__name__}: {exc}")
        return False
    header = json.dumps({"format": FORMAT, "key": name, "signature": sig}, sort_keys=True).encode()
    body = [struct.pack("<Q", len(header)), header, payload]
    digest = hashlib.sha256()
    for part in body:
        digest.update(part)
    try:
        os.makedirs(where, exist_ok=True)
        write_atomic(os.path.join(where, name + SUFFIX), [MAGIC, digest.digest(), *body])
    except OSError:  # a full disk or a read-only folder: the run goes on uncached
        return False
    monitoring.record_event(WRITE)
    evict(where, keep=name + SUFFIX)
    return True


def evict(where: str, keep: str = "", max_bytes: int | None = None) -> None:
    """Remove least-recently-used entries until the folder holds at most `max_bytes` (never `keep`)."""
    limit = compile_cache.max_bytes() if max_bytes is None else max_bytes
    entries = []
    for entry in os.scandir(where):
        if entry.name.endswith(SUFFIX):
            try:
                st = entry.stat()
            except OSError:  # another process evicted it first
                continue
            entries.append((st.st_mtime_ns, st.st_size, entry.path, entry.name))
    total = sum(size for _, size, _, _ in entries)
    for _, size, path, entry_name in sorted(entries):
        if total <= limit:
            break
        if entry_name == keep:
            continue
        try:
            os.remove(path)
        except OSError:
            pass
        total -= size
