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
A key is compiled the third time it is seen with the same input shapes and dtypes (`_warm`,
`COMPILE_AFTER`): an application that happens once or twice (a test, a shape seen a few times) costs no
XLA compile, and a training loop runs compiled from its third step on. Nothing here waits for a result: dispatch stays asynchronous.
"""
from __future__ import annotations

from typing import Any, Callable

import jax
import numpy as np

EAGER_ONLY = {"Print"}  # side effects the user expects on every call, in order; not cached executables
_CACHE: dict[tuple, Callable | None] = {}  # key -> jitted function, or None: runs the plain impl
_STATS = {"hits": 0, "misses": 0, "eager_only": 0, "fallbacks": 0}
_UNKEYABLE = object()
_SEEN: dict[tuple, int] = {}  # (key, input shapes and dtypes) -> times seen, until compiled
COMPILE_AFTER = 2  # sightings that run the plain impl before a key is compiled


def _freeze(v: Any):
    """A hashable, type-exact key for an attribute value (1, 1.0 and True must not share an executable)."""
    t = type(v)
    if t in (int, float, bool, str, type(None)):
        return (t, v)
    if t in (tuple, list):
        return (t, tuple(_freeze(x) for x in v))
    if t is dict:
        return (t, tuple((k, _freeze(x)) for k, x in sorted(v.items(), key=lambda kv: str(kv[0]))))
    if t is slice:
        return (t, _freeze(v.start), _freeze(v.stop), _freeze(v.step))
    if isinstance(v, (np.ndarray, jax.Array)) or t.__hash__ is None:
        return _UNKEYABLE
    return (t, v)


def _attrs_key(attrs: dict) -> tuple:
    return tuple((k, _freeze(v)) for k, v in attrs.items()) if attrs else ()


def _deep_unkeyable(key) -> bool:
    if key is _UNKEYABLE:
        return True
    return type(key) is tuple and any(_deep_unkeyable(k) for k in key)


def _input_kind(x) -> Any:
    """None for data (arrays, floats: dynamic arguments), else the static value as a key."""
    if isinstance(x, (jax.Array, np.ndarray, np.generic, float)):
        return None
    return _freeze(x)


def _make(prim, attrs: dict, kinds: tuple) -> Callable:
    impl, attrs = prim.impl, dict(attrs)  # the executable's own copy: a caller may reuse its dict
    static = {i: k[1] for i, k in enumerate(kinds) if k is not None}
    n = len(kinds)

    def run(*dynamic):
        it = iter(dynamic)
        args = [static[i] if i in static else next(it) for i in range(n)]
        return impl(*args, **attrs)

    run.__name__ = prim.name
    return jax.jit(run)


def _plain(prim, arrays, attrs):
    return prim.impl(*arrays, **attrs)


def compiled(prim, arrays: list, attrs: dict):
    """(key, jitted function or None, the dynamic arguments) for this application."""
    if prim.name in EAGER_ONLY or prim.impl.__module__.startswith("msx.ops.custom"):
        return None, None, None
    akey = _attrs_key(attrs)
    if _deep_unkeyable(akey) or any(isinstance(x, jax.core.Tracer) for x in arrays):
        return None, None, None
    kinds = tuple(_input_kind(x) for x in arrays)
    if any(k is not None and _deep_unkeyable(k) for k in kinds):
        return None, None, None
    key = (prim, akey, kinds)
    fn = _CACHE.get(key, _UNKEYABLE)
    if fn is _UNKEYABLE:
        fn = _CACHE[key] = _make(prim, attrs, kinds)
    dynamic = [x for x, k in zip(arrays, kinds) if k is None] if any(k is not None for k in kinds) else arrays
    return key, fn, dynamic


def run(prim, arrays: list, attrs: dict):
    """Run `prim` on concrete inputs now: its cached executable, or its plain impl where that cannot be."""
    key, fn, dynamic = compiled(prim, arrays, attrs)
    if fn is None:
        _STATS["eager_only"] += 1
        return _plain(prim, arrays, attrs)
    if not _warm(key, dynamic):
        _STATS["eager_only"] += 1
        return _plain(prim, arrays, attrs)
    before = fn._cache_size()
    try:
        out = fn(*dynamic)
    except Exception:
        out = _plain(prim, arrays, attrs)  # raises the impl's own error, worded as in plain eager
        _CACHE[key] = None  # the impl works eagerly but not compiled (needs concrete values): stays eager
        _STATS["fallbacks"] += 1
        return out
    if fn._cache_size() != before:
        _STATS["misses"] += 1
    else:
        _STATS["hits"] += 1
    return out


def _warm(key: tuple, dynamic: list) -> bool:
    """True once `key` was seen `COMPILE_AFTER` times with these input shapes/dtypes (then it runs compiled)."""
    sig = (key, tuple((x.shape, x.dtype) if hasattr(x, "dtype") else type(x) for x in dynamic))
    seen = _SEEN.get(sig, 0)
    if seen >= COMPILE_AFTER:
        return True
    _SEEN[sig] = seen + 1
    return False


def cache_info() -> dict:
    """Counters of the per-primitive cache: `compiles` (executables built), `hits`, `eager_only` calls (plain
    impl, including a key's first sighting), `fallbacks` (keys that failed to compile and now run the plain impl) and `entries`."""
    return {"entries": len(_CACHE), "compiles": _STATS["misses"], "hits": _STATS["hits"],
            "eager_only": _STATS["eager_only"], "fallbacks": _STATS["fallbacks"]}


def clear_cache() -> None:
    _CACHE.clear()
    _SEEN.clear()
    for k in _STATS:
        _STATS[k] = 0
