"""Hand-written functional ops, part of `msx.ops.functional`: random ops seeded by `set_seed`, and the
primitives they run (`RandomSplit`, `UniformReal`, `StandardNormal`, `UniformInt`, `Bernoulli`: the key is an
explicit input).

Each draws a fresh key by splitting the global PRNG state Parameter, so a captured graph threads the state
as an ordinary input.

Each is registered with `expose` under its public names; `functional` imports this module and re-exports
the whole surface.
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

import jax

from .. import context
from .. import dtype as mstype
from ..ignored_args import SEED_INSTEAD, not_honoured
from ..sizes import check_size
from ..tensor import PARAMETER_LOCK, Tensor
from .api import SURFACE, expose
from .attr_converters import scalar as _scalar
from .attr_converters import to_dtype as _msx_dtype
from .attr_converters import to_shape as _shape_attr
from .primitive import apply, primitive

# generated views the wrappers below build on
cast = SURFACE["ops"]["cast"]


# ---------------------------------------------------------------- primitives (the key is an explicit input)
def _key(raw):
    return jax.random.wrap_key_data(raw)


@primitive("RandomSplit", category="random", multiple_results=True, differentiable=False,
           internal=("splits the global random key for every random op (functional_random._next_key); MindSpore has "
                     "no such op"))
def random_split(state):
    """(next state, a fresh key) from the global PRNG state."""
    new, sub = jax.random.split(_key(state))
    return jax.random.key_data(new), jax.random.key_data(sub)


@primitive("UniformReal", attrs=("shape", "minval", "maxval", "dtype"), category="random", differentiable=False)
def uniform_(key, *, shape, minval=0.0, maxval=1.0, dtype=mstype.float32):
    check_size("UniformReal", shape, mstype.to_np(dtype))
    return jax.random.uniform(_key(key), shape, mstype.to_np(dtype), minval, maxval)


@primitive("StandardNormal", attrs=("shape", "mean", "stddev", "dtype"), category="random", differentiable=False)
def normal_(key, *, shape, mean=0.0, stddev=1.0, dtype=mstype.float32):
    check_size("StandardNormal", shape, mstype.to_np(dtype))
    return jax.random.normal(_key(key), shape, mstype.to_np(dtype)) * stddev + mean


@primitive("UniformInt", attrs=("shape", "low", "high", "dtype"), category="random", differentiable=False)
def randint_(key, *, shape, low, high, dtype=mstype.int64):
    check_size("UniformInt", shape, mstype.to_np(dtype))
    return jax.random.randint(_key(key), shape, low, high, mstype.to_np(dtype))


@primitive("Bernoulli", attrs=("p", "shape"), category="random", differentiable=False)
def bernoulli_(key, *, p, shape):
    return jax.random.bernoulli(_key(key), p, shape)


_SOURCE = threading.local()  # .state: the PRNG state Tensor of the Generator `keys_from` installed, per thread


@contextlib.contextmanager
def keys_from(generator: Any, owner: str) -> Iterator[None]:
    """Draw the keys of the random ops run inside from `generator` (MindSpore's `generator=` argument): a
    `msx.Generator` of one's own moves its state, not the global one; None or `msx.default_generator` is the
    global state. Per thread, so another thread's draws are not redirected."""
    if generator is None or getattr(generator, "_state", None) is None:  # the default generator has no own state
        if generator is not None and not callable(getattr(generator, "manual_seed", None)):
            raise TypeError(f"{owner}: generator must be an msx.Generator, got {type(generator).__name__}")
        yield
        return
    previous = getattr(_SOURCE, "state", None)
    _SOURCE.state = generator._state
    try:
        yield
    finally:
        _SOURCE.state = previous


def _next_key() -> Tensor:
    """Split the PRNG state (the global one, or the Generator's `keys_from` installed): the state moves on, the
    caller gets a fresh key.

    The read-split-write holds `PARAMETER_LOCK`, the lock a compiled graph binding the state holds while it
    runs: two threads never split the same state (a repeated draw), and a draw never reads the buffer a
    jitted random function in another thread is donating ("Array has been deleted"). Re-entrant: a capture
    (which holds it) draws its keys through here too."""
    state = getattr(_SOURCE, "state", None)
    if state is None:
        state = context.rng_state()
    with PARAMETER_LOCK:
        new_state, key = apply(random_split, (state,))
        state._rebind(new_state)
    return key


@expose(ops="uniform")
def uniform(shape, minval, maxval, seed=None, dtype=None):
    """Uniform samples in [minval, maxval); ints give integers (MindSpore's `ops.uniform`)."""
    not_honoured("ops.uniform", "seed", seed, None, SEED_INSTEAD)
    lo, hi = _scalar(minval), _scalar(maxval)
    if isinstance(lo, int) and isinstance(hi, int) and (dtype is None or not _msx_dtype(dtype).is_floating):
        return randint(lo, hi, shape, dtype=dtype or "int64")
    return apply(uniform_, (_next_key(),), {"shape": _shape_attr(shape), "minval": float(lo), "maxval": float(hi),
                                            "dtype": _msx_dtype(dtype or "float32")})


@expose(ops="normal")
def normal(shape, mean=0.0, stddev=1.0, seed=None):
    not_honoured("ops.normal", "seed", seed, None, SEED_INSTEAD)
    return apply(normal_, (_next_key(),), {"shape": _shape_attr(shape), "mean": float(_scalar(mean)),
                                           "stddev": float(_scalar(stddev)), "dtype": _msx_dtype("float32")})


@expose(ops="standard_normal", prim="StandardNormal")
def standard_normal(shape, seed=None):
    not_honoured("ops.standard_normal", "seed", seed, None, SEED_INSTEAD)
    return normal(shape)


@expose(ops="randn")
def randn(*size, dtype=None, seed=None):
    not_honoured("ops.randn", "seed", seed, None, SEED_INSTEAD)
    shape = size[0] if len(size) == 1 and not isinstance(size[0], int) else size
    return apply(normal_, (_next_key(),), {"shape": _shape_attr(shape), "mean": 0.0, "stddev": 1.0,
                                           "dtype": _msx_dtype(dtype or "float32")})


@expose(ops="rand", prim="UniformReal")
def rand(*size, dtype=None, seed=None):
    not_honoured("ops.rand", "seed", seed, None, SEED_INSTEAD)
    shape = size[0] if len(size) == 1 and not isinstance(size[0], int) else size
    return apply(uniform_, (_next_key(),), {"shape": _shape_attr(shape), "minval": 0.0, "maxval": 1.0,
                                            "dtype": _msx_dtype(dtype or "float32")})


@expose(ops="randint", prim="UniformInt")
def randint(low, high, size, seed=None, *, dtype=None):
    not_honoured("ops.randint", "seed", seed, None, SEED_INSTEAD)
    if high <= low:
        raise ValueError(f"randint: high ({high}) must be greater than low ({low})")
    return apply(randint_, (_next_key(),), {"shape": _shape_attr(size), "low": int(low), "high": int(high),
                                            "dtype": _msx_dtype(dtype or "int64")})


@expose(ops="bernoulli", prim="Bernoulli")
def bernoulli(input, p=0.5, seed=None):
    not_honoured("ops.bernoulli", "seed", seed, None, SEED_INSTEAD)
    return cast(apply(bernoulli_, (_next_key(),), {"p": float(p), "shape": tuple(input.shape)}), input.dtype)
