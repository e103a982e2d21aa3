"""MindSpore's candidate samplers for sampled losses: `ops.UniformCandidateSampler`,
`ops.LogUniformCandidateSampler` (and their `ops.*_candidate_sampler` functions) and `ops.ComputeAccidentalHits`.

A sampler draws `num_sampled` class ids from [0, range_max) and gives the expected count of each true and
sampled class under the sampling, as MindSpore 2.10's CPU kernels (TensorFlow's rule) do:

- without `unique`, `num_sampled` independent draws, and the expected count of class k is `num_sampled * p(k)`;
- with `unique`, draws until `num_sampled` distinct ids are picked (rejection); after `tries` draws the expected
  count is `-expm1(tries * log1p(-p(k)))` (`num_sampled * p(k)` when nothing was rejected);
- `UniformCandidateSampler(remove_accidental_hits=True)` (with `unique`) also rejects the true classes of the
  batch, unless `num_sampled` plus their number of distinct values exceeds `range_max` (the kernel then samples
  without the rule, as here).

p(k) is 1 / range_max (uniform) or log((k + 2) / (k + 1)) / log(range_max + 1) (log-uniform, drawn as
floor(exp(u * log(range_max + 1))) - 1). The draws come from msx's global PRNG state (`set_seed`), one key per
call, and the rejection loop is a `lax.while_loop`, so the samplers run under `msx.jit` too; MindSpore's `seed`
warns once (`msx.ignored_args`). `ComputeAccidentalHits` lists the (row, position) pairs where a sampled id
equals a true class: its length depends on the values, so it runs eagerly only.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtype as mstype
from ..errors import OpError, OpTypeError
from ..ignored_args import SEED_INSTEAD, not_honoured
from ..tensor import Tensor
from .api import expose
from .index_ops import eager_only
from .primitive import apply, primitive
from .ragged_sparse_ops import refuse_graph_values
from .random_ops import _key_for  # the global PRNG state's one splitter

_INTS = (np.dtype("int32"), np.dtype("int64"))


def _expected(p, num_sampled: int, tries):
    """TensorFlow's approximate expected count of a class of probability `p` after `tries` draws."""
    return jnp.where(tries == num_sampled, p * num_sampled, -jnp.expm1(tries * jnp.log1p(-p)))


def _unique_draws(key, draw, num_sampled: int, dtype, banned, ban):
    """Draw (rejection) until `num_sampled` distinct ids, none in `banned` while `ban`; the ids and the tries."""
    slots = jnp.arange(num_sampled)

    def more(state):
        return state[1] < num_sampled

    def step(state):
        out, picked, tries = state
        v = draw(jax.random.fold_in(key, tries)).astype(dtype)
        fresh = ~jnp.any((out == v) & (slots < picked))
        if banned is not None:
            fresh &= ~(ban & jnp.any(banned == v))
        out = jnp.where(fresh & (slots == picked), v, out)
        return out, picked + fresh.astype(jnp.int32), tries + 1

    out, _, tries = lax.while_loop(more, step, (jnp.zeros((num_sampled,), dtype), jnp.int32(0), jnp.int32(0)))
    return out, tries


def _distinct(x):
    s = jnp.sort(x.reshape(-1))
    return 1 + jnp.sum(s[1:] != s[:-1]) if s.size else jnp.int32(0)


@primitive("UniformCandidateSampler", attrs=("num_true", "num_sampled", "unique", "range_max",
                                            "remove_accidental_hits"),
           category="random", differentiable=False, multiple_results=True)
def uniform_candidate_draw(key, true_classes, *, num_true, num_sampled, unique, range_max,
                           remove_accidental_hits=False):
    """`num_sampled` ids uniform in [0, range_max) (true_classes' dtype), the expected counts of the true
    classes (float32, true_classes' shape) and of the sampled ids (float32, (num_sampled,))."""
    k = jax.random.wrap_key_data(key)
    dt = true_classes.dtype
    if unique:
        ban = (_distinct(true_classes) + num_sampled <= range_max) if remove_accidental_hits else None
        draw = lambda kk: jax.random.randint(kk, (), 0, range_max, jnp.int64)  # noqa: E731
        sampled, tries = _unique_draws(k, draw, num_sampled, dt, true_classes.reshape(-1) if ban is not None
                                       else None, ban)
    else:
        sampled, tries = jax.random.randint(k, (num_sampled,), 0, range_max, jnp.int64).astype(dt), num_sampled
    value = _expected(jnp.float32(1.0 / range_max), num_sampled, tries).astype(jnp.float32)
    return sampled, jnp.full(true_classes.shape, value), jnp.full((num_sampled,), value)


def _log_uniform_p(ids, range_max: int):
    ids = ids.astype(jnp.float64)
    return (jnp.log((ids + 2.0) / (ids + 1.0)) / np.log1p(range_max)).astype(jnp.float32)


@primitive("LogUniformCandidateSampler", attrs=("num_true", "num_sampled", "unique", "range_max"),
           category="random", differentiable=False, multiple_results=True)
def log_uniform_candidate_draw(key, true_classes, *, num_true, num_sampled, unique, range_max):
    """`num_sampled` ids in [0, range_max) with P(k) = log((k+2)/(k+1)) / log(range_max+1) (int64), and the
    expected counts (float32) of the true classes and of the sampled ids."""
    k = jax.random.wrap_key_data(key)
    log_range = np.log1p(range_max)

    def draw(kk, shape=()):
        u = jax.random.uniform(kk, shape, jnp.float64)
        return (jnp.floor(jnp.exp(u * log_range)).astype(jnp.int64) - 1) % range_max

    if unique:
        sampled, tries = _unique_draws(k, draw, num_sampled, jnp.int64, None, None)
    else:
        sampled, tries = draw(k, (num_sampled,)), num_sampled
    true_count = _expected(_log_uniform_p(true_classes, range_max), num_sampled, tries).astype(jnp.float32)
    sampled_count = _expected(_log_uniform_p(sampled, range_max), num_sampled, tries).astype(jnp.float32)
    return sampled.astype(true_classes.dtype), true_count, sampled_count


def _positive_int(op: str, what: str, v) -> int:
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
        raise OpTypeError(f"{op}: {what} must be an int, got {type(v).__name__}")
    if v <= 0:
        raise OpError(f"{op}: {what} must be greater than 0, got {v}")
    return int(v)


def _sampler_args(op: str, true_classes, num_true, num_sampled, unique, range_max, seed, dtypes=_INTS):
    num_true = _positive_int(op, "num_true", num_true)
    num_sampled = _positive_int(op, "num_sampled", num_sampled)
    range_max = _positive_int(op, "range_max", range_max)
    if not isinstance(unique, bool):
        raise OpTypeError(f"{op}: unique must be a bool, got {type(unique).__name__}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise OpTypeError(f"{op}: seed must be an int, got {type(seed).__name__}")
    if seed < 0:
        raise OpError(f"{op}: seed must be non-negative, got {seed}")
    not_honoured(f"ops.{op}", "seed", seed, 0, SEED_INSTEAD)
    if unique and num_sampled > range_max:
        raise OpError(f"{op}: with unique=True, num_sampled ({num_sampled}) can not be larger than range_max "
                      f"({range_max})")
    shape, dt = tuple(true_classes.shape), mstype.to_np(true_classes.dtype)
    if dt not in dtypes:
        raise OpTypeError(f"{op}: true_classes must be {' or '.join(d.name for d in dtypes)}, got {dt}")
    if len(shape) != 2 or shape[1] != num_true:
        raise OpError(f"{op}: true_classes must have shape (batch_size, num_true={num_true}), got {shape}")
    if dt == np.int32 and range_max > np.iinfo(np.int32).max:
        raise OpError(f"{op}: range_max ({range_max}) exceeds int32; pass int64 true_classes")
    return {"num_true": num_true, "num_sampled": num_sampled, "unique": unique, "range_max": range_max}


@expose(ops="uniform_candidate_sampler", prim="UniformCandidateSampler")
def uniform_candidate_sampler(true_classes: Tensor, num_true: int, num_sampled: int, unique: bool, range_max: int,
                              seed: int = 0, remove_accidental_hits: bool = False) -> tuple[Tensor, Tensor, Tensor]:
    """(sampled_candidates, true_expected_count, sampled_expected_count): ids uniform in [0, range_max)."""
    attrs = _sampler_args("UniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max, seed)
    if not isinstance(remove_accidental_hits, bool):
        raise OpTypeError(f"UniformCandidateSampler: remove_accidental_hits must be a bool, got "
                          f"{type(remove_accidental_hits).__name__}")
    attrs["remove_accidental_hits"] = remove_accidental_hits
    return apply(uniform_candidate_draw, (_key_for(), true_classes), attrs)


@expose(cls="UniformCandidateSampler", init=("num_true", "num_sampled", "unique", "range_max", "seed",
                                            "remove_accidental_hits"), prim="UniformCandidateSampler")
def _uniform_candidate_sampler_cls(true_classes, *, num_true, num_sampled, unique, range_max, seed=0,
                                   remove_accidental_hits=False):
    return uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed,
                                     remove_accidental_hits)


@expose(ops="log_uniform_candidate_sampler", prim="LogUniformCandidateSampler")
def log_uniform_candidate_sampler(true_classes: Tensor, num_true: int = 1, num_sampled: int = 5, unique: bool = True,
                                  range_max: int = 5, seed: int = 0) -> tuple[Tensor, Tensor, Tensor]:
    """(sampled_candidates, true_expected_count, sampled_expected_count): ids drawn log-uniformly (Zipf-like,
    small ids most often) from [0, range_max); true_classes must be int64."""
    attrs = _sampler_args("LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max, seed,
                          (np.dtype("int64"),))
    return apply(log_uniform_candidate_draw, (_key_for(), true_classes), attrs)


@expose(cls="LogUniformCandidateSampler", init=("num_true", "num_sampled", "unique", "range_max", "seed"),
        prim="LogUniformCandidateSampler")
def _log_uniform_candidate_sampler_cls(true_classes, *, num_true=1, num_sampled=5, unique=True, range_max=5,
                                       seed=0):
    return log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed)


# ---------------------------------------------------------------- accidental hits
def _hits_check(true_classes, sampled_candidates, *, num_true) -> str | None:
    if len(true_classes.shape) != 2 or true_classes.shape[1] != num_true:
        return f"true_classes must have shape (batch_size, num_true={num_true}), got {tuple(true_classes.shape)}"
    if len(sampled_candidates.shape) != 1:
        return f"sampled_candidates must be 1-D (num_sampled,), got shape {tuple(sampled_candidates.shape)}"
    for what, t in (("true_classes", true_classes), ("sampled_candidates", sampled_candidates)):
        if np.dtype(t.dtype) not in _INTS:
            return f"{what} must be int32 or int64, got {t.dtype}"
    if true_classes.dtype != sampled_candidates.dtype:
        return f"true_classes and sampled_candidates must have one dtype, got {true_classes.dtype} and " \
               f"{sampled_candidates.dtype}"
    return None


@primitive("ComputeAccidentalHits", attrs=("num_true",), category="shape", check=_hits_check,
           differentiable=False, multiple_results=True)
def compute_accidental_hits(true_classes, sampled_candidates, *, num_true=1):
    """For each true class (row i, in row order) found among the sampled ids: the row (int32), the position of
    its last occurrence in sampled_candidates (int64) and the weight -FLT_MAX (float32)."""
    eager_only("ComputeAccidentalHits", true_classes, sampled_candidates)
    reason = _hits_check(true_classes, sampled_candidates, num_true=num_true)
    if reason is not None:
        raise OpError(f"ComputeAccidentalHits: {reason}")
    position = {int(c): j for j, c in enumerate(np.asarray(sampled_candidates))}
    hits = [(i, position[int(c)]) for i, row in enumerate(np.asarray(true_classes)) for c in row
            if int(c) in position]
    rows = np.array([h[0] for h in hits], np.int32)
    ids = np.array([h[1] for h in hits], np.int64)
    return (jnp.asarray(rows), jnp.asarray(ids),
            jnp.full((len(hits),), -np.finfo(np.float32).max, jnp.float32))


@expose(cls="ComputeAccidentalHits", init=("num_true",), prim="ComputeAccidentalHits")
def _compute_accidental_hits_cls(true_classes, sampled_candidates, *, num_true=1):
    if not isinstance(num_true, (int, np.integer)) or isinstance(num_true, bool):
        raise OpTypeError(f"ComputeAccidentalHits: num_true must be an int, got {type(num_true).__name__}")
    refuse_graph_values("ComputeAccidentalHits", true_classes, sampled_candidates)
    return apply(compute_accidental_hits, (true_classes, sampled_candidates), {"num_true": int(num_true)})
