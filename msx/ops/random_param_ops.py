"""MindSpore's parameterised random ops: `ops.ParameterizedTruncatedNormal`, `ops.Poisson`,
`ops.NonDeterministicInts`, and the random functions `ops.rrelu`, `ops.gumbel_softmax` and
`ops.function.random_func.uniform_ext` (`ops.functional.uniform_ext`).

Every draw takes one key from msx's global PRNG state (`set_seed`, `msx/ops/random_ops.py`), so a seeded program
repeats its numbers, threads never draw the same key, and the ops run under `msx.jit` (the state is threaded
through the graph). The numbers cannot equal MindSpore's (another generator); shapes, dtypes, supports and
distributions do. MindSpore's `seed`/`seed2` warn once when set (`msx.ignored_args`).

`ParameterizedTruncatedNormal(shape, mean, stdevs, min, max)` draws batch b (the first dim of `shape`) from the
normal (mean[b], stdevs[b]) truncated to [min[b], max[b]], as documented. (MindSpore 2.10's CPU kernel reads
only the first element of each 1-D parameter, for every batch; msx keeps the documented rule.)
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..errors import OpError, OpTypeError
from ..ignored_args import SEED_INSTEAD, not_honoured
from ..tensor import Tensor
from ..sizes import check_size
from . import functional as F
from .api import expose
from .apply_prim import known_value
from .attr_converters import to_dtype
from .detection_ops import static_values
from .primitive import apply, primitive
from .random_ops import _key_for, _keys_from, draw

_FLOATS = (mstype.float16, mstype.float32, mstype.float64)


# ---------------------------------------------------------------- ParameterizedTruncatedNormal
@primitive("ParameterizedTruncatedNormal", attrs=("shape",), category="random", differentiable=False)
def parameterized_truncated_normal_(key, mean, stdevs, minval, maxval, *, shape):
    """Draws of `shape`: row b normal(mean[b], stdevs[b]) truncated to [minval[b], maxval[b]] (a 0-D or
    one-element parameter serves every row); the parameters' dtype."""
    dt = mean.dtype
    real = jnp.float64 if dt == jnp.float64 else jnp.float32
    per_row = (shape[0],) + (1,) * (len(shape) - 1)

    def rows(p):
        return jnp.broadcast_to(p.reshape(-1).astype(real), (shape[0],)).reshape(per_row)

    mu, sd, lo, hi = rows(mean), rows(stdevs), rows(minval), rows(maxval)
    z = jax.random.truncated_normal(jax.random.wrap_key_data(key), (lo - mu) / sd, (hi - mu) / sd, shape, real)
    return jnp.clip(mu + sd * z, lo, hi).astype(dt)


def _ptn_shape(op: str, shape) -> tuple[int, ...]:
    if not isinstance(shape, Tensor):
        raise OpTypeError(f"{op}: shape must be a Tensor (int32 or int64), got {type(shape).__name__}")
    if shape.dtype not in (mstype.int32, mstype.int64):
        raise OpTypeError(f"{op}: shape must be int32 or int64, got {shape.dtype}")
    values = static_values(op, "shape", shape)
    if values.ndim != 1:
        raise OpError(f"{op}: shape must be a 1-D Tensor, got {values.ndim}-D")
    if values.size < 2:
        raise OpError(f"{op}: shape must have at least 2 elements (batch_size, ...), got {values.tolist()}")
    if (values <= 0).any():
        raise OpError(f"{op}: the elements of shape must be positive, got {values.tolist()}")
    return tuple(int(v) for v in values)


@expose(cls="ParameterizedTruncatedNormal", init=("seed", "seed2"), prim="ParameterizedTruncatedNormal")
def _parameterized_truncated_normal(shape, mean, stdevs, min, max, *, seed=0, seed2=0):  # noqa: A002
    op = "ParameterizedTruncatedNormal"
    not_honoured(f"ops.{op}", "seed", seed, 0, SEED_INSTEAD)
    not_honoured(f"ops.{op}", "seed2", seed2, 0, SEED_INSTEAD)
    out = _ptn_shape(op, shape)
    params = (("mean", mean), ("stdevs", stdevs), ("min", min), ("max", max))
    for what, t in params:
        if not isinstance(t, Tensor):
            raise OpTypeError(f"{op}: {what} must be a Tensor, got {type(t).__name__}")
        if t.dtype not in _FLOATS:
            raise OpTypeError(f"{op}: {what} must be float16, float32 or float64, got {t.dtype}")
        if t.dtype != mean.dtype:
            raise OpTypeError(f"{op}: mean, stdevs, min and max must have one dtype, got {what} {t.dtype} and "
                              f"mean {mean.dtype}")
        if t.ndim > 1 or (t.ndim == 1 and t.shape[0] not in (1, out[0])):
            raise OpError(f"{op}: {what} must have shape () or (batch_size={out[0]},), got {tuple(t.shape)}")
    std, lo, hi = (known_value(t) for t in (stdevs, min, max))
    if not isinstance(std, (jax.ShapeDtypeStruct, jax.core.Tracer)) and (np.asarray(std) <= 0).any():
        raise OpError(f"{op}: stdevs must be greater than 0, got {np.asarray(std).tolist()}")
    if not any(isinstance(v, (jax.ShapeDtypeStruct, jax.core.Tracer)) for v in (lo, hi)) and \
            (np.asarray(lo) >= np.asarray(hi)).any():
        raise OpError(f"{op}: min must be less than max, got min {np.asarray(lo).tolist()} and max "
                      f"{np.asarray(hi).tolist()}")
    check_size(op, out, mstype.to_np(mean.dtype))
    return apply(parameterized_truncated_normal_, (_key_for(), mean, stdevs, min, max), {"shape": out})


# ---------------------------------------------------------------- Poisson (the class op)
@expose(cls="Poisson", init=("seed", "seed2"), prim="RandomDistribution")
def _poisson_cls(shape, mean, *, seed=0, seed2=0):
    """Poisson(mean) draws (int32) of `broadcast(shape, mean.shape)`; `shape` a tuple, `mean` float32 > 0."""
    not_honoured("ops.Poisson", "seed", seed, 0, SEED_INSTEAD)
    not_honoured("ops.Poisson", "seed2", seed2, 0, SEED_INSTEAD)
    if not isinstance(shape, tuple):
        raise OpTypeError(f"Poisson: shape must be a tuple, got {type(shape).__name__}")
    if not isinstance(mean, Tensor) or mean.dtype != mstype.float32:
        got = mean.dtype if isinstance(mean, Tensor) else type(mean).__name__
        raise OpTypeError(f"Poisson: mean must be a float32 Tensor, got {got}")
    values = known_value(mean)
    if not isinstance(values, (jax.ShapeDtypeStruct, jax.core.Tracer)) and (np.asarray(values) <= 0).any():
        raise OpError(f"Poisson: mean must be greater than 0, got {np.asarray(values).reshape(-1)[:4].tolist()}")
    try:
        out = np.broadcast_shapes(tuple(int(d) for d in shape), tuple(mean.shape))
    except ValueError:
        raise OpError(f"Poisson: mean's shape {tuple(mean.shape)} does not broadcast with shape {shape}") from None
    return draw("poisson", out, (mean,), mstype.int32)


# ---------------------------------------------------------------- NonDeterministicInts
@primitive("NonDeterministicInts", attrs=("shape", "dtype"), category="random", differentiable=False)
def non_deterministic_ints_(key, *, shape, dtype=mstype.int64):
    """Integers of `shape` uniform over the whole range of `dtype` (int32 or int64)."""
    wide = mstype.to_np(dtype) == np.int64
    bits = jax.random.bits(jax.random.wrap_key_data(key), shape, jnp.uint64 if wide else jnp.uint32)
    return jax.lax.bitcast_convert_type(bits, jnp.int64 if wide else jnp.int32)


_NDI_LIMIT = 1_000_000


@expose(cls="NonDeterministicInts", init=("dtype",), prim="NonDeterministicInts")
def _non_deterministic_ints(shape, *, dtype=mstype.int64):
    op = "NonDeterministicInts"
    dtype = to_dtype(dtype)
    if dtype not in (mstype.int32, mstype.int64):
        raise OpTypeError(f"{op}: dtype must be int32 or int64, got {dtype}")
    out = _ptn_shape(op, shape)
    if int(np.prod(out)) > _NDI_LIMIT:
        raise OpError(f"{op}: the result may hold at most {_NDI_LIMIT} elements, shape {out} has {int(np.prod(out))}")
    return apply(non_deterministic_ints_, (_key_for(),), {"shape": out, "dtype": dtype})


# ---------------------------------------------------------------- rrelu, gumbel_softmax, uniform_ext
@expose(ops="rrelu", prim="RandomDistribution")
def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3) -> Tensor:  # noqa: A002
    """x where x >= 0, else alpha * x with alpha ~ U(lower, upper) drawn per element (MindSpore 2.10's ops.rrelu
    draws every call: it has no training/eval switch)."""
    for what, v in (("upper", upper), ("lower", lower)):
        if not isinstance(v, (float, int)) or isinstance(v, bool):
            raise OpTypeError(f"rrelu: {what} must be an int or a float, got {type(v).__name__}")
    if lower > upper:
        raise OpError(f"rrelu: upper must be greater than or equal to lower, got upper {upper}, lower {lower}")
    if not isinstance(input, Tensor):
        raise OpTypeError(f"rrelu: input must be a Tensor, got {type(input).__name__}")
    if input.dtype not in (mstype.float16, mstype.float32):
        raise OpTypeError(f"rrelu: input must be float16 or float32, got {input.dtype}")
    alpha = F.cast(draw("uniform", input.shape, (float(lower), float(upper)), mstype.float32), input.dtype)
    return F.where(input >= 0, input, input * alpha)


def _check_dim(dim: int, lo: int, hi: int) -> None:
    if not lo <= dim < hi:
        raise OpError(f"gumbel_softmax: dim must be in [{lo}, {hi}), got {dim}")


@expose(ops="gumbel_softmax", prim="RandomDistribution")
def gumbel_softmax(logits: Tensor, tau: float = 1.0, hard: bool = False, dim: int = -1) -> Tensor:
    """softmax((logits + g) / tau) along `dim`, g ~ Gumbel(0, 1); `hard`: the one-hot of its argmax, whose
    gradient is the soft sample's (straight-through)."""
    if not isinstance(logits, Tensor):
        raise OpTypeError(f"gumbel_softmax: logits must be a Tensor, got {type(logits).__name__}")
    if logits.ndim == 0:
        raise OpError("gumbel_softmax: logits must have at least one dimension, got a 0-D Tensor")
    if logits.dtype not in (mstype.float16, mstype.float32):
        raise OpTypeError(f"gumbel_softmax: logits must be float16 or float32, got {logits.dtype}")
    if not isinstance(tau, float):
        raise OpTypeError(f"gumbel_softmax: tau must be a float, got {type(tau).__name__}")
    if not isinstance(hard, bool):
        raise OpTypeError(f"gumbel_softmax: hard must be a bool, got {type(hard).__name__}")
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise OpTypeError(f"gumbel_softmax: dim must be an int, got {type(dim).__name__}")
    if tau <= 0:
        raise OpError(f"gumbel_softmax: tau must be positive, got {tau}")
    _check_dim(dim, -1 if hard else -logits.ndim, logits.ndim)
    u = F.cast(draw("uniform", logits.shape, (0.0, 1.0), mstype.float32), logits.dtype)
    y_soft = F.softmax((logits - F.log(-F.log(u))) / tau, dim)
    if not hard:
        return y_soft
    index = F.argmax(y_soft, dim)
    y_hard = F.one_hot(index, logits.shape[dim], Tensor(1, logits.dtype), Tensor(0, logits.dtype), dim)
    return F.stop_gradient(y_hard - y_soft) + y_soft


@expose(ops="uniform_ext", prim="RandomDistribution")
def uniform_ext(tensor: Tensor, a: float, b: float, generator=None) -> Tensor:
    """Numbers uniform in [a, b) of `tensor`'s shape and dtype (a new Tensor; `tensor` is unchanged), drawn
    from `generator` when one is given."""
    if not isinstance(tensor, Tensor):
        raise OpTypeError(f"uniform_ext: tensor must be a Tensor, got {type(tensor).__name__}")
    if not tensor.dtype.is_floating:
        raise OpTypeError(f"uniform_ext: tensor must have a floating dtype, got {tensor.dtype}")
    lo, hi = float(a), float(b)
    if lo > hi:
        raise OpTypeError(f"uniform_ext: a ({a}) must not be larger than b ({b})")
    with _keys_from(generator, "uniform_ext"):
        return draw("uniform", tensor.shape, (lo, hi), tensor.dtype)
