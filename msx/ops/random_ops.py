"""Random sampling ops under MindSpore's names, drawn from msx's global PRNG state (seeded by `set_seed`).

Every primitive takes the key as an explicit input (split from the state Parameter by `_key_for`), so a
compiled graph sees randomness as ordinary state and a seeded program repeats its draws. The numbers cannot
equal MindSpore's (another generator); the shapes, dtypes, supports and distributions do, and the tests check
those. MindSpore's per-op `seed`/`seed2` arguments are accepted and warn once when set (`msx.ignored_args`); the
sequence is fixed by `set_seed`.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..ignored_args import SEED_INSTEAD, not_honoured
from ..tensor import Tensor
from .api import expose
from .attr_converters import scalar, to_dtype, to_shape
from .functional_random import _next_key, keys_from
from .array_ops import cast as _cast
from .primitive import apply, primitive
from ..sizes import check_size


def _key_for():
    return _next_key()


def _keys_from(generator, owner: str):
    """`functional_random.keys_from`: the ops below draw from `generator` (MindSpore's `generator=`)."""
    return keys_from(generator, owner)


def _k(raw):
    return jax.random.wrap_key_data(raw)


def _np(dtype) -> np.dtype:
    return mstype.to_np(dtype)


def _rand(name: str, attrs: tuple, multiple_results: bool = False):
    return primitive(name, attrs=attrs, category="random", differentiable=False, multiple_results=multiple_results)


# ---------------------------------------------------------------- categorical and permutations
@_rand("RandomCategoricalDraw", ("num_samples", "replacement", "dtype", "logits"))
def categorical(key, p, *, num_samples, replacement=True, dtype=mstype.int32, logits=False):
    """`num_samples` class indices per row of `p` (probabilities, or logits); without replacement: Gumbel top-k."""
    lg = p if logits else jnp.log(jnp.maximum(p, 0) / jnp.sum(jnp.maximum(p, 0), -1, keepdims=True))
    if replacement:
        draws = jax.random.categorical(_k(key), lg, axis=-1, shape=(num_samples,) + lg.shape[:-1])
        return jnp.moveaxis(draws, 0, -1).astype(_np(dtype))
    g = lg + jax.random.gumbel(_k(key), lg.shape, lg.dtype)
    return jnp.argsort(-g, axis=-1)[..., :num_samples].astype(_np(dtype))


def _probs(op: str, input, num_samples: int, replacement: bool):
    if len(input.shape) not in (1, 2):
        raise ValueError(f"{op}: the input must be 1-D or 2-D, got shape {tuple(input.shape)}")
    if not replacement and num_samples > input.shape[-1]:
        raise ValueError(f"{op}: num_samples {num_samples} exceeds the {input.shape[-1]} categories without "
                         f"replacement")


@expose(ops="multinomial", tensor="multinomial", prim="RandomCategoricalDraw")
def multinomial(input, num_samples, replacement=True, seed=None):
    not_honoured("ops.multinomial", "seed", seed, None, SEED_INSTEAD)
    _probs("multinomial", input, int(num_samples), replacement)
    return apply(categorical, (_key_for(), input), {"num_samples": int(num_samples), "replacement": bool(replacement),
                                                   "dtype": mstype.int32, "logits": False})


@expose(cls="Multinomial", init=("seed", "seed2", "dtype"), prim="RandomCategoricalDraw")
def _multinomial_cls(x, num_samples, *, seed=0, seed2=0, dtype=mstype.int32):
    not_honoured("ops.Multinomial", "seed", seed, 0, SEED_INSTEAD)
    not_honoured("ops.Multinomial", "seed2", seed2, 0, SEED_INSTEAD)
    _probs("Multinomial", x, int(num_samples), True)
    return apply(categorical, (_key_for(), x), {"num_samples": int(num_samples), "replacement": True,
                                               "dtype": to_dtype(dtype), "logits": False})


@expose(ops="multinomial_with_replacement", prim="RandomCategoricalDraw")
def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """`seed`/`offset` are MindSpore's Philox seed and counter Tensors; msx draws from its global state."""
    not_honoured("ops.multinomial_with_replacement", "seed", seed, None, SEED_INSTEAD)
    not_honoured("ops.multinomial_with_replacement", "offset", offset, None, SEED_INSTEAD)
    _probs("multinomial_with_replacement", x, int(numsamples), replacement)
    return apply(categorical, (_key_for(), x), {"num_samples": int(numsamples), "replacement": bool(replacement),
                                               "dtype": mstype.int64, "logits": False})


@expose(cls="MultinomialWithReplacement", init=("numsamples", "replacement"), prim="RandomCategoricalDraw")
def _mwr_cls(x, seed, offset, *, numsamples, replacement=False):
    return multinomial_with_replacement(x, seed, offset, numsamples, replacement)


@expose(ops="random_categorical", tensor="random_categorical", prim="RandomCategoricalDraw")
def random_categorical(logits, num_sample, seed=0, dtype=mstype.int64):
    not_honoured("ops.random_categorical", "seed", seed, 0, SEED_INSTEAD)
    if len(logits.shape) != 2:
        raise ValueError(f"random_categorical: logits must be 2-D, got shape {tuple(logits.shape)}")
    return apply(categorical, (_key_for(), logits), {"num_samples": int(num_sample), "replacement": True,
                                                    "dtype": to_dtype(dtype), "logits": True})


@expose(cls="RandomCategorical", init=("dtype",), prim="RandomCategoricalDraw")
def _random_categorical_cls(logits, num_sample, seed=0, *, dtype=mstype.int64):
    return random_categorical(logits, num_sample, seed, dtype)


@_rand("RandomPermutation", ("n", "length", "pad", "dtype"))
def permutation(key, *, n, length, pad=-1, dtype=mstype.int64):
    perm = jax.random.permutation(_k(key), n)
    return jnp.concatenate([perm, jnp.full((length - n,), pad, perm.dtype)]).astype(_np(dtype))


def _perm(op: str, n, length=None, pad=-1, dtype=mstype.int64):
    n = int(scalar(n.reshape(-1)[0]) if isinstance(n, Tensor) and n.ndim else scalar(n))
    if n <= 0:
        raise ValueError(f"{op}: n must be greater than 0, got {n}")
    length = n if length is None else int(length)
    if n > length:
        raise ValueError(f"{op}: n ({n}) must be <= max_length ({length})")
    return apply(permutation, (_key_for(),), {"n": n, "length": length, "pad": int(pad), "dtype": to_dtype(dtype)})


@expose(ops="randperm", prim="RandomPermutation")
def randperm(n, seed=0, offset=0, dtype=mstype.int64):
    not_honoured("ops.randperm", "seed", seed, 0, SEED_INSTEAD)
    not_honoured("ops.randperm", "offset", offset, 0, SEED_INSTEAD)
    return _perm("randperm", n, dtype=dtype)


@expose(cls="RandpermV2", init=("seed", "offset", "dtype"), prim="RandomPermutation")
def _randperm_v2(n, *, seed=0, offset=0, dtype=mstype.int64):
    not_honoured("ops.RandpermV2", "seed", seed, 0, SEED_INSTEAD)
    not_honoured("ops.RandpermV2", "offset", offset, 0, SEED_INSTEAD)
    return _perm("RandpermV2", n, dtype=dtype)


@expose(cls="Randperm", init=("max_length", "pad", "dtype"), prim="RandomPermutation")
def _randperm_cls(n, *, max_length=1, pad=-1, dtype=mstype.int32):
    return _perm("Randperm", n, max_length, pad, dtype)


@_rand("RandomShuffle", ())
def shuffle_(key, x):
    return jax.random.permutation(_k(key), x, axis=0) if x.ndim else x


@expose(ops="shuffle", prim="RandomShuffle")
def shuffle(x, seed=None):
    not_honoured("ops.shuffle", "seed", seed, None, SEED_INSTEAD)
    return apply(shuffle_, (_key_for(), x))


@expose(cls="RandomShuffle", init=("seed", "seed2"), prim="RandomShuffle")
def _shuffle_cls(x, *, seed=0, seed2=0):
    not_honoured("ops.RandomShuffle", "seed", seed, 0, SEED_INSTEAD)
    not_honoured("ops.RandomShuffle", "seed2", seed2, 0, SEED_INSTEAD)
    return shuffle(x)


@_rand("RandomChoiceWithMask", ("count",), multiple_results=True)
def choice_with_mask_(key, mask, *, count):
    """Up to `count` coordinates of True elements of `mask`, in random order, and which rows are real."""
    flat = mask.reshape(-1)
    scores = jnp.where(flat, jax.random.uniform(_k(key), flat.shape), -1.0)
    order = jnp.argsort(-scores)
    order = jnp.concatenate([order, jnp.zeros((max(count - order.size, 0),), order.dtype)])[:count]
    valid = jnp.take(flat, order) & (jnp.arange(count) < flat.size)
    coords = jnp.stack(jnp.unravel_index(order, mask.shape), axis=-1) if mask.ndim else order[:, None]
    return jnp.where(valid[:, None], coords, 0).astype(jnp.int32), valid


@expose(ops="choice_with_mask", prim="RandomChoiceWithMask")
def choice_with_mask(input_x, count=256, seed=None):
    not_honoured("ops.choice_with_mask", "seed", seed, None, SEED_INSTEAD)
    if input_x.dtype != mstype.bool_:
        raise TypeError(f"choice_with_mask: input_x must be a bool Tensor, got {input_x.dtype}")
    if not 1 <= len(input_x.shape) <= 5:
        raise ValueError(f"choice_with_mask: input_x must have rank 1..5, got shape {tuple(input_x.shape)}")
    if count <= 0:
        raise ValueError(f"choice_with_mask: count must be > 0, got {count}")
    return apply(choice_with_mask_, (_key_for(), input_x), {"count": int(count)})


@expose(cls="RandomChoiceWithMask", init=("count", "seed", "seed2"), prim="RandomChoiceWithMask")
def _choice_with_mask_cls(input_x, *, count=256, seed=0, seed2=0):
    not_honoured("ops.RandomChoiceWithMask", "seed", seed, 0, SEED_INSTEAD)
    not_honoured("ops.RandomChoiceWithMask", "seed2", seed2, 0, SEED_INSTEAD)
    return choice_with_mask(input_x, count)


# ---------------------------------------------------------------- continuous and count distributions
@_rand("RandomDistribution", ("dist", "shape", "dtype"))
def distribution(key, *params, dist, shape, dtype=mstype.float32):
    """One draw of `shape` from `dist` with tensor parameters `params` (broadcast to `shape`)."""
    k, dt = _k(key), _np(dtype)
    real = dt if np.issubdtype(dt, np.floating) else np.float32
    if dist == "gamma":  # params: alpha[, beta (a rate)]
        alpha = jnp.broadcast_to(params[0], shape)
        out = jax.random.gamma(k, alpha.astype(real), shape, real)
        return (out / params[1] if len(params) > 1 else out).astype(dt)
    if dist == "poisson":
        return jax.random.poisson(k, jnp.broadcast_to(params[0], shape), shape).astype(dt)
    if dist == "laplace":  # params: mean, scale
        out = jax.random.laplace(k, shape, real)
        return (params[0] + params[1] * out if params else out).astype(dt)
    if dist == "truncated_normal":
        return jax.random.truncated_normal(k, -2.0, 2.0, shape, real).astype(dt)
    if dist == "cauchy":  # params: median, sigma
        return (params[0] + params[1] * jax.random.cauchy(k, shape, real)).astype(dt)
    if dist == "lognormal":
        return jnp.exp(params[0] + params[1] * jax.random.normal(k, shape, real)).astype(dt)
    if dist == "exponential":
        return (jax.random.exponential(k, shape, real) / params[0]).astype(dt)
    if dist == "normal":
        return (params[0] + params[1] * jax.random.normal(k, shape, real)).astype(dt)
    if dist == "uniform":
        return jax.random.uniform(k, shape, real, params[0], params[1]).astype(dt)
    if dist == "randint":
        return jax.random.randint(k, shape, params[0], params[1], dt)
    if dist == "bernoulli":
        return jax.random.bernoulli(k, jnp.broadcast_to(params[0], shape).astype(jnp.float32), shape).astype(dt)
    raise ValueError(f"RandomDistribution: unknown distribution {dist!r}")


def draw(dist: str, shape, params=(), dtype=mstype.float32):
    shape = to_shape(shape)
    check_size(dist, shape, _np(dtype))
    params = tuple(p if isinstance(p, Tensor) else float(p) if isinstance(p, (float, int)) else p for p in params)
    return apply(distribution, (_key_for(), *params), {"dist": dist, "shape": shape, "dtype": to_dtype(dtype)})


def _shape_of(shape) -> tuple:
    return to_shape(shape)


def _positive(op: str, what: str, t) -> None:
    values = t.asnumpy() if isinstance(t, Tensor) else np.asarray(t)
    if (values <= 0).any():
        raise ValueError(f"{op}: {what} must be > 0, got {values.reshape(-1)[:4].tolist()}")


@expose(ops="random_gamma", prim="RandomDistribution")
def random_gamma(shape, alpha, seed=None):
    """Gamma(alpha) draws: the result has shape `shape + alpha.shape`."""
    not_honoured("ops.random_gamma", "seed", seed, None, SEED_INSTEAD)
    _positive("random_gamma", "alpha", alpha)
    out = _shape_of(shape) + tuple(alpha.shape)
    return draw("gamma", out, (alpha,), alpha.dtype)


@expose(cls="RandomGamma", init=("seed", "seed2"), prim="RandomDistribution")
def _random_gamma_cls(shape, alpha, *, seed=0, seed2=0):
    not_honoured("ops.RandomGamma", "seed", seed, 0, SEED_INSTEAD)
    not_honoured("ops.RandomGamma", "seed2", seed2, 0, SEED_INSTEAD)
    return random_gamma(shape, alpha)


@expose(ops="gamma", prim="RandomDistribution")
def gamma(shape, alpha, beta, seed=None):
    """Gamma(alpha, rate beta) draws of `broadcast(shape, alpha.shape, beta.shape)`."""
    not_honoured("ops.gamma", "seed", seed, None, SEED_INSTEAD)
    _positive("gamma", "alpha", alpha)
    _positive("gamma", "beta", beta)
    out = np.broadcast_shapes(_shape_of(shape), tuple(alpha.shape), tuple(beta.shape))
    return draw("gamma", out, (alpha, beta), alpha.dtype)


@expose(cls="Gamma", init=("seed", "seed2"), prim="RandomDistribution")
def _gamma_cls(shape, alpha, beta, *, seed=0, seed2=0):
    not_honoured("ops.Gamma", "seed", seed, 0, SEED_INSTEAD)
    not_honoured("ops.Gamma", "seed2", seed2, 0, SEED_INSTEAD)
    return gamma(shape, alpha, beta)


@expose(ops="random_poisson", prim="RandomDistribution")
def random_poisson(shape, rate, seed=None, dtype=mstype.float32):
    not_honoured("ops.random_poisson", "seed", seed, None, SEED_INSTEAD)
    out = _shape_of(shape) + tuple(rate.shape)
    return draw("poisson", out, (rate,), dtype)


@expose(cls="RandomPoisson", init=("seed", "seed2", "dtype"), prim="RandomDistribution")
def _random_poisson_cls(shape, rate, *, seed=0, seed2=0, dtype=mstype.int64):
    not_honoured("ops.RandomPoisson", "seed", seed, 0, SEED_INSTEAD)
    not_honoured("ops.RandomPoisson", "seed2", seed2, 0, SEED_INSTEAD)
    return random_poisson(shape, rate, dtype=dtype)


@expose(ops="poisson", prim="RandomDistribution")
def poisson(shape, mean, seed=None):
    """Poisson(mean) draws (int32) of `broadcast(shape, mean.shape)`."""
    not_honoured("ops.poisson", "seed", seed, None, SEED_INSTEAD)
    _positive("poisson", "mean", mean)
    try:
        out = np.broadcast_shapes(_shape_of(shape), tuple(mean.shape))
    except ValueError:
        raise ValueError(f"poisson: mean's shape {tuple(mean.shape)} does not broadcast with shape {shape}") from None
    return draw("poisson", out, (mean,), mstype.int32)


@expose(ops="laplace", prim="RandomDistribution")
def laplace(shape, mean, lambda_param, seed=None):
    not_honoured("ops.laplace", "seed", seed, None, SEED_INSTEAD)
    return draw("laplace", shape, (mean, lambda_param), mstype.float32)


@expose(ops="standard_laplace", prim="RandomDistribution")
def standard_laplace(shape, seed=None):
    not_honoured("ops.standard_laplace", "seed", seed, None, SEED_INSTEAD)
    return draw("laplace", shape, (), mstype.float32)


@expose(cls="StandardLaplace", init=("seed", "seed2"), prim="RandomDistribution")
def _standard_laplace_cls(shape, *, seed=0, seed2=0):
    not_honoured("ops.StandardLaplace", "seed", seed, 0, SEED_INSTEAD)
    not_honoured("ops.StandardLaplace", "seed2", seed2, 0, SEED_INSTEAD)
    return standard_laplace(shape)


@expose(cls="TruncatedNormal", init=("dtype", "seed", "seed2"), prim="RandomDistribution")
def _truncated_normal_cls(shape, *, dtype=mstype.float32, seed=0, seed2=0):
    """Normal draws truncated to two standard deviations."""
    not_honoured("ops.TruncatedNormal", "seed", seed, 0, SEED_INSTEAD)
    not_honoured("ops.TruncatedNormal", "seed2", seed2, 0, SEED_INSTEAD)
    return draw("truncated_normal", shape, (), dtype)


@expose(cls="StandardNormal", init=("seed", "seed2"), prim="RandomDistribution")
def _standard_normal_cls(shape, *, seed=0, seed2=0):
    not_honoured("ops.StandardNormal", "seed", seed, 0, SEED_INSTEAD)
    not_honoured("ops.StandardNormal", "seed2", seed2, 0, SEED_INSTEAD)
    return draw("normal", shape, (0.0, 1.0), mstype.float32)


@expose(cls="UniformReal", init=("seed", "seed2"), prim="RandomDistribution")
def _uniform_real_cls(shape, *, seed=0, seed2=0):
    not_honoured("ops.UniformReal", "seed", seed, 0, SEED_INSTEAD)
    not_honoured("ops.UniformReal", "seed2", seed2, 0, SEED_INSTEAD)
    return draw("uniform", shape, (0.0, 1.0), mstype.float32)


@expose(cls="UniformInt", init=("seed", "seed2"), prim="RandomDistribution")
def _uniform_int_cls(shape, minval, maxval, *, seed=0, seed2=0):
    not_honoured("ops.UniformInt", "seed", seed, 0, SEED_INSTEAD)
    not_honoured("ops.UniformInt", "seed2", seed2, 0, SEED_INSTEAD)
    lo, hi = int(scalar(minval)), int(scalar(maxval))
    if hi <= lo:
        raise ValueError(f"UniformInt: maxval ({hi}) must be greater than minval ({lo})")
    return draw("randint", shape, (lo, hi), mstype.int32)


@expose(cls="Cauchy", init=("size", "median", "sigma"), prim="RandomDistribution")
def _cauchy_cls(*, size, median=0.0, sigma=1.0):
    return draw("cauchy", size, (float(median), float(sigma)), mstype.float32)


@expose(cls="LogNormalReverse", init=("mean", "std"), prim="RandomDistribution")
def _log_normal_cls(input, *, mean=1.0, std=2.0):
    return draw("lognormal", input.shape, (float(mean), float(std)), input.dtype)


@expose(cls="Bernoulli", init=("seed", "offset"), prim="RandomDistribution")
def _bernoulli_cls(x, p, *, seed=-1, offset=0):
    """0/1 draws of x's shape and dtype, 1 with probability `p` (a number or a Tensor broadcast to x)."""
    not_honoured("ops.Bernoulli", "seed", seed, -1, SEED_INSTEAD)
    not_honoured("ops.Bernoulli", "offset", offset, 0, SEED_INSTEAD)
    return draw("bernoulli", x.shape, (p,), x.dtype)


@expose(mint="bernoulli", prim="RandomDistribution")
def bernoulli_ext(input, *, generator=None):
    """`mint.bernoulli`: 0/1 draws of `input`'s shape and dtype, each 1 with the probability `input` holds."""
    with _keys_from(generator, "mint.bernoulli"):
        return draw("bernoulli", input.shape, (input,), input.dtype)


# ---------------------------------------------------------------- like-shaped draws and in-place fills
@expose(ops="rand_like", prim="RandomDistribution")
def rand_like(input, seed=None, *, dtype=None):
    not_honoured("ops.rand_like", "seed", seed, None, SEED_INSTEAD)
    return draw("uniform", input.shape, (0.0, 1.0), dtype or input.dtype)


@expose(ops="randn_like", prim="RandomDistribution")
def randn_like(input, seed=None, *, dtype=None):
    not_honoured("ops.randn_like", "seed", seed, None, SEED_INSTEAD)
    return draw("normal", input.shape, (0.0, 1.0), dtype or input.dtype)


@expose(ops="randint_like", prim="RandomDistribution")
def randint_like(input, low, high, seed=None, *, dtype=None):
    not_honoured("ops.randint_like", "seed", seed, None, SEED_INSTEAD)
    dtype = to_dtype(dtype or input.dtype)
    if dtype.is_floating:
        raise ValueError(f"randint_like: the 'dtype' must be an int type, but got {dtype}")
    if high <= low:
        raise ValueError(f"randint_like: high ({high}) must be greater than low ({low})")
    return draw("randint", input.shape, (int(low), int(high)), dtype)


def _fill_(input, dist: str, params):
    return input._rebind(draw(dist, input.shape, params, input.dtype))


@expose(ops="uniform_", tensor="uniform_", prim="RandomDistribution")
def uniform_(input, from_=0, to=1, *, generator=None):
    if from_ > to:
        raise ValueError(f"uniform_: from_ ({from_}) must be <= to ({to})")
    with _keys_from(generator, "uniform_"):
        return _fill_(input, "uniform", (float(from_), float(to)))


@expose(ops="normal_", tensor="normal_", prim="RandomDistribution")
def normal_(input, mean=0, std=1, *, generator=None):
    if std < 0:
        raise ValueError(f"normal_: std must be >= 0, got {std}")
    with _keys_from(generator, "normal_"):
        return _fill_(input, "normal", (float(mean), float(std)))


@expose(ops="exponential_", tensor="exponential_", prim="RandomDistribution")
def exponential_(input, lambd=1, *, generator=None):
    if lambd <= 0:
        raise ValueError(f"exponential_: lambd must be > 0, got {lambd}")
    with _keys_from(generator, "exponential_"):
        return _fill_(input, "exponential", (float(lambd),))


@expose(ops="random_", tensor="random_", prim="RandomDistribution")
def random_(input, from_=0, to=None, *, generator=None):
    """Integers in [from_, to) (to=None: up to the dtype's mantissa/integer limit), in input's dtype."""
    np_dt = _np(input.dtype)
    if to is None:
        to = 2 ** np.finfo(np_dt).nmant + 1 if np.issubdtype(np_dt, np.floating) else int(np.iinfo(np_dt).max)
    if to <= from_:
        raise ValueError(f"random_: to ({to}) must be greater than from_ ({from_})")
    with _keys_from(generator, "random_"):
        ints = draw("randint", input.shape, (int(from_), int(to)), mstype.int64)
    return input._rebind(apply(_cast, (ints,), {"dtype": input.dtype}))


@expose(ops="bernoulli_", tensor="bernoulli_", prim="RandomDistribution")
def bernoulli_(input, p=0.5, *, generator=None):
    with _keys_from(generator, "bernoulli_"):
        return _fill_(input, "bernoulli", (p,))


@expose(ops="bernoulli_ext", prim="RandomDistribution")
def bernoulli_ext(input, *, generator=None):
    """0/1 draws, 1 with the probability held in each element of `input`."""
    with _keys_from(generator, "bernoulli_ext"):
        return draw("bernoulli", input.shape, (input,), input.dtype)
