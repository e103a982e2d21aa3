"""Compiled eager dispatch: each primitive application runs one cached `jax.jit` executable.

Op-by-op jax eager runs every jax operation inside a primitive's implementation
as its own dispatch (a composite impl of five jnp calls costs five). Here the
whole impl is one executable per (primitive, static attributes, the Python
ints/bools/None/strings among its inputs), and jax's C++ `jit` fast path keys
on the input avals. Python floats among the inputs are data (a learning rate, a
scalar multiplier): they are passed as weakly typed arguments, so a new value
does not recompile. Python ints stay static because jax treats a concrete int
differently (`x ** 2` is `integer_pow`).

What cannot be compiled runs the plain impl, exactly as before:
- attributes that cannot be a cache key (arrays, unhashable values), and the
  `EAGER_ONLY` primitives (host printing, Python-function custom ops);
- an impl that needs concrete values (data-dependent shapes, a check of a
  value): its first compiled call fails, the plain impl runs, and that key is
  remembered as eager-only;
- any other failure reruns the plain impl, so errors keep today's wording.
A key run here is compiled the first time it is seen (`msx.eager.lazy` defers most first sightings
instead, known by `first_sighting`'s abstract evaluation, and compiles a segment of them as one executable): running the plain impl instead is not free either, since jax
compiles each of its operations for its shapes (a `log_softmax` is five compiles, its executable one).
Measured on notebook 01 (eager training): compiling on the third sighting made 142 XLA compiles (5.2 s),
compiling on the first 54 (2.5 s). Nothing here waits for a result: dispatch stays asynchronous.
"""
from __future__ import annotations

import os
import threading
from typing import Any, Callable

import jax
import numpy as np
from jax._src.array import ArrayImpl

from ..sizes import check_size

FUSE_FIRST = [os.environ.get("MSX_FUSE_FIRST", "1").lower() not in ("0", "false", "off", "no")]  # first sightings
# compiled with their segment (`msx.eager.lazy`) and a first backward as one executable (`tape`); 0: per op
EAGER_ONLY = {"Print", "Summary", "TensorDump", "Assert", "LocalNorm"}  # side effects the user expects on every call, in order: never a cached
# executable, and never deferred (`lazy` drops a deferred op whose results nobody reads, and Summary has none)
_CACHE: dict[tuple, Callable | None] = {}  # key -> jitted function, or None: runs the plain impl
_STATS = {"hits": 0, "misses": 0, "eager_only": 0, "fallbacks": 0, "replays": 0, "replay_compiles": 0,
          "forward_replays": 0, "forward_compiles": 0}
_UNKEYABLE = object()


def _freeze(v: Any):
    """A hashable, type-exact key for an attribute value (1, 1.0 and True must not share an executable)."""
    t = type(v)
    if t is float:  # by bits: -0.0 and 0.0 (and two nans) must not share an executable, nor a nan miss it
        return (t, v.hex())
    if isinstance(v, np.generic):  # a numpy scalar is static like a Python one, by dtype and bits
        return (t, v.tobytes())
    if t in (int, bool, str, type(None)):
        return (t, v)
    if t in (tuple, list):
        return _whole((t, tuple([_freeze(x) for x in v])))
    if t is dict:
        return _whole((t, tuple([(k, _freeze(x)) for k, x in sorted(v.items(), key=lambda kv: str(kv[0]))])))
    if t is slice:
        return _whole((t, (_freeze(v.start), _freeze(v.stop), _freeze(v.step))))
    if isinstance(v, (np.ndarray, jax.Array)) or t.__hash__ is None:
        return _UNKEYABLE
    return (t, v)


def _whole(key: tuple) -> Any:
    """`key` of a container, or `_UNKEYABLE` when any member's key (or a dict item's) is."""
    for k in key[1]:
        if k is _UNKEYABLE or (type(k) is tuple and len(k) == 2 and k[1] is _UNKEYABLE):
            return _UNKEYABLE
    return key


def thaw(key: tuple) -> Any:
    """The input value a `_freeze` key of a static input stands for."""
    t, v = key[0], key[1]
    if t is float:
        return float.fromhex(v)
    if isinstance(t, type) and issubclass(t, np.generic):
        return np.frombuffer(v, dtype=t)[0]
    return v


def _make(prim, attrs: dict, kinds: tuple) -> Callable:
    impl, attrs = prim.impl, dict(attrs)  # the executable's own copy: a caller may reuse its dict
    static = {i: thaw(k) for i, k in enumerate(kinds) if k is not None}
    n = len(kinds)

    def run(*dynamic):
        it = iter(dynamic)
        args = [static[i] if i in static else next(it) for i in range(n)]
        return impl(*args, **attrs)

    run.__name__ = prim.name
    # inline: called inside another trace (a deferred segment, a replayed backward), its jaxpr -- traced once,
    # cached -- is spliced into the caller's instead of staying a nested call, so the caller's StableHLO is one
    # flat function, not one private function per op (EfficientNet-B0's first forward: 138 of them, about
    # 40% of its lowering time). A call at top level compiles and runs exactly as without it.
    return jax.jit(run, inline=True)


def _plain(prim, arrays, attrs):
    return prim.impl(*arrays, **attrs)


def _compilable(prim) -> bool:
    ok = _PRIM_OK.get(prim)
    if ok is None:
        ok = _PRIM_OK[prim] = (prim.name not in EAGER_ONLY and prim.category != "comm"  # collectives: the
                               # communication layer runs them across processes, not a per-process executable
                               and not prim.impl.__module__.startswith("msx.ops.custom"))
    return ok


_PRIM_OK: dict = {}
_DATA_TYPES = (jax.Array, np.ndarray)  # numpy scalars are static inputs (MindSpore's scalar promotion needs them)
_NP = object()  # marks a numpy (or other non-jax) array's part of a key: (_NP, shape, dtype)
_FAST: dict[tuple, tuple] = {}  # (prim, attrs key, input parts) -> (fn, key, sig, output aval or None), once
# compiled for them
_FIRST: dict[tuple, tuple | None] = {}  # full key -> (fn, key, sig, output aval, full key) of an application
# abstractly evaluated but not compiled on its own (a deferred first sighting, `msx.eager.lazy`), or None: it
# cannot be deferred that way; moves to `_FAST` (the same entry object) when it is compiled alone


class _Last(threading.local):
    """The (fn, key, sig, aval) of this thread's last compiled application, for the tape's node (or None).
    Per thread: another thread's op between a forward and its tape node must not lend the node its key (the
    node's VJP would read the wrong inputs: StopIteration/IndexError in backward, or a wrong gradient)."""

    entry: tuple | None = None


LAST = _Last()
TAPING = [0]  # eager tapes recording now, in any thread (`grad.tape_vjp_call`, under PARAMETER_LOCK): the hot
# path below notes its entry in `LAST` only while one records (a thread-local write costs ~0.1 µs per op)


class Pending:
    """A deferred application's result (`msx.eager.lazy`): its output aval, its dispatch entry, its dynamic
    arguments (arrays, floats, earlier `Pending`s), its segment, its index there and a weakref to its Tensor."""

    __slots__ = ("aval", "entry", "args", "seg", "index", "ref")

    @property
    def shape(self) -> tuple:
        return self.aval.shape

    @property
    def dtype(self):
        return self.aval.dtype


def _parts(prim, arrays: list, attrs: dict):
    """(the application's full key, its dynamic arguments), or (None, None) when it cannot be compiled.

    One part per input: an array's aval (its shape, dtype, weak type), `float` (a Python float is data),
    `(_NP, shape, dtype)` for another array, or the `_freeze` key of a static input."""
    if attrs:
        akey = tuple([(k, _freeze(v)) for k, v in attrs.items()])
        for _, v in akey:
            if v is _UNKEYABLE:
                return None, None
    else:
        akey = ()
    parts, dynamic = [], []
    for x in arrays:
        t = type(x)
        if t is ArrayImpl:
            parts.append(x.aval)
        elif t is Pending:  # a deferred result (msx.eager.lazy): keyed by the aval it will have
            parts.append(x.aval)
        elif t is float:
            parts.append(float)
        elif t is int or t is bool or x is None:  # the common static inputs, keyed without `_freeze`
            parts.append((t, x))
            continue
        elif isinstance(x, jax.core.Tracer):
            return None, None
        elif isinstance(x, _DATA_TYPES):
            parts.append((_NP, x.shape, x.dtype))
        else:
            frozen = _freeze(x)
            if frozen is _UNKEYABLE:
                return None, None
            parts.append(frozen)
            continue
        dynamic.append(x)
    return (prim, akey, tuple(parts)), dynamic


def _static(part) -> bool:
    return type(part) is tuple and part[0] is not _NP


def compiled(prim, arrays: list, attrs: dict):
    """(key, jitted function or None, the dynamic arguments, their shape signature) for this application.

    Arrays and Python floats are dynamic arguments; every other input value is static (part of the key)."""
    if not _compilable(prim):
        return None, None, None, None
    full, dynamic = _parts(prim, arrays, attrs)
    if full is None:
        return None, None, None, None
    return _split(full, attrs) + (dynamic, tuple(p for p in full[2] if not _static(p)))


def _split(full: tuple, attrs: dict) -> tuple:
    """(key, its jitted function) for a full key: the key leaves the dynamic inputs' avals out."""
    prim, akey, parts = full
    key = (prim, akey, tuple(p if _static(p) else None for p in parts))
    fn = _CACHE.get(key, _UNKEYABLE)
    if fn is _UNKEYABLE:
        fn = _CACHE[key] = _make(prim, attrs, key[2])
    return key, fn


def run(prim, arrays: list, attrs: dict):
    """Run `prim` on concrete inputs now: its cached executable, or its plain impl where that cannot be."""
    full, dynamic = _parts(prim, arrays, attrs)
    if full is not None:
        entry = _FAST.get(full)
        if entry is not None:  # the hot path: one dict lookup, then jax's C++ jit call
            _STATS["hits"] += 1
            if TAPING[0]:
                LAST.entry = entry
            return entry[0](*dynamic)
    LAST.entry = None
    if full is None or not _compilable(prim):
        _STATS["eager_only"] += 1
        return _plain(prim, arrays, attrs)
    key, fn = _split(full, attrs)
    if fn is None:
        _STATS["eager_only"] += 1
        return _plain(prim, arrays, attrs)
    first = _FIRST.pop(full, None)  # a deferred first sighting's entry: keep its object (segment keys hold it)
    if first is None:
        _check_result_sizes(prim, fn, dynamic)
    try:
        out = fn(*dynamic)
    except Exception:
        out = _plain(prim, arrays, attrs)  # raises the impl's own error, worded as in plain eager
        _CACHE[key] = None  # the impl works eagerly but not compiled (needs concrete values): stays eager
        _STATS["fallbacks"] += 1
        return out
    _STATS["misses"] += 1
    if first is not None and _result_aval(prim, out) == first[3]:
        LAST.entry = _FAST[full] = first
        return out
    sig = tuple(p for p in full[2] if not _static(p))
    LAST.entry = _FAST[full] = (fn, key, sig, _result_aval(prim, out))
    return out


def _result_aval(prim, out):
    """The output aval a deferred application of this entry will have: one aval, a tuple of them for a
    multiple-results primitive, or None when the result is not (all) arrays (then it is never deferred)."""
    if not prim.multiple_results:
        return out.aval if type(out) is ArrayImpl else None
    if type(out) in (tuple, list) and all(type(o) is ArrayImpl for o in out):
        return tuple(o.aval for o in out)
    return None


def first_sighting(prim, full: tuple, attrs: dict, dynamic: list) -> tuple | None:
    """The entry `(fn, key, sig, output aval(s), full)` of an application never compiled, found by
    abstract evaluation (a trace of its executable, which its compile later reuses; no XLA compile), or None
    when it cannot be known that way (the trace fails: bad input or data-dependent; the result could not be
    allocated) -- then it runs at its call, as before, and words its own error there."""
    entry = _FIRST.get(full, _UNKEYABLE)
    if entry is not _UNKEYABLE:
        return entry
    entry = None
    key, fn = _split(full, attrs)
    if fn is not None:
        args = [jax.ShapeDtypeStruct(a.aval.shape, a.aval.dtype, weak_type=a.aval.weak_type)
                if type(a) is Pending else a for a in dynamic]
        try:
            out = fn.eval_shape(*args)
            outs = out if prim.multiple_results and type(out) in (tuple, list) else [out]
            if all(type(o) is jax.ShapeDtypeStruct for o in outs):
                avals = []
                for o in outs:
                    check_size(prim.name, o.shape, o.dtype, _platform())
                    avals.append(jax.core.ShapedArray(o.shape, o.dtype, weak_type=o.weak_type))
                aval = tuple(avals) if prim.multiple_results else avals[0]
                entry = (fn, key, tuple(p for p in full[2] if not _static(p)), aval, full)
        except Exception:  # noqa: BLE001 - its call (not deferred) raises it, worded as the op's error
            entry = None
    _FIRST[full] = entry
    return entry


def compiled_alone(entry: tuple) -> bool:
    """Whether `entry` has its own executable (else it is a first sighting known only abstractly)."""
    return len(entry) < 5 or _FAST.get(entry[4]) is entry


def ran_alone(entry: tuple) -> None:
    """Note that a first sighting's entry just ran on its own (so jax compiled it): it moves to `_FAST`."""
    if len(entry) == 5 and _FIRST.get(entry[4]) is entry:
        del _FIRST[entry[4]]
        _FAST[entry[4]] = entry
        _STATS["misses"] += 1


def _check_result_sizes(prim, fn: Callable, dynamic: list) -> None:
    """Refuse, before it runs, a first-seen application whose results cannot be allocated: XLA would abort the
    process (SIGABRT on the first read) or run out of memory. The abstract results come from tracing `fn`,
    which its call right after reuses (no second trace); a hit of `_FAST` has the same avals and needs no
    check, so the hot path pays nothing. A trace that fails is left to the call, which words the error."""
    try:
        results = jax.tree_util.tree_leaves(fn.eval_shape(*dynamic))
    except Exception:  # noqa: BLE001 - the call below raises it (or falls back to the plain impl)
        return
    platform = _platform()
    for r in results:
        check_size(prim.name, r.shape, r.dtype, platform)


def _platform() -> str:
    if not _PLATFORM:
        _PLATFORM.append(jax.default_backend())
    return _PLATFORM[0]


_PLATFORM: list = []


def cache_info() -> dict:
    """Counters of the per-primitive cache: `compiles` (executables built), `hits`, `eager_only` calls (plain
    impl), `fallbacks` (keys that failed to compile and now run the plain impl),
    `entries`, the eager tape's whole-backward executables: `replay_compiles` built, `replays` run, and the
    deferred forward segments' (`msx.eager.lazy`): `forward_compiles` built, `forward_replays` run."""
    return {"entries": len(_CACHE), "compiles": _STATS["misses"], "hits": _STATS["hits"],
            "eager_only": _STATS["eager_only"], "fallbacks": _STATS["fallbacks"],
            "replays": _STATS["replays"], "replay_compiles": _STATS["replay_compiles"],
            "forward_replays": _STATS["forward_replays"], "forward_compiles": _STATS["forward_compiles"]}


def clear_cache() -> None:
    _CACHE.clear()
    _FAST.clear()
    _FIRST.clear()
    for k in _STATS:
        _STATS[k] = 0
