"""Fractional max/avg pooling (Graham, arXiv:1412.6071) under MindSpore 2.10's names, one primitive each.

- `ops.FractionalMaxPoolWithFixedKsize(ksize, output_shape)(input_x, random_samples)` (NCHW) and
  `ops.FractionalMaxPool3DWithFixedKsize(ksize, output_shape)(x, random_samples)` (NCDHW): windows of a fixed
  `ksize`, started at torch's intervals `int((i + u) * alpha) - int(u * alpha)` (`alpha = (in - k) / (out - 1)`,
  the last window ending at the border) for the per-plane samples `u` in [0, 1) -- W reads `u[..., 0]`, H
  `u[..., 1]` in 2-d; D, H, W read `u[..., 0]`, `u[..., 1]`, `u[..., 2]` in 3-d. Results (y, argmax int64), argmax
  the flat position in the plane (`h * W + w`, `(d * H + h) * W + w`); NaN never wins (the first maximum does; a
  window of NaN alone gives -inf at its first position), as MindSpore's CPU kernels answer.
  `ops.fractional_max_pool2d/3d` and `nn.FractionalMaxPool2d/3d` draw `_random_samples` uniformly when not given.
- `ops.FractionalMaxPool(pooling_ratio, ...)(x)` and `ops.FractionalAvgPool(...)(x)` (NHWC, TensorFlow's op):
  rows and columns cut into `floor(in / ratio)` pieces of k or k + 1 (`k = in // out`), their boundaries the
  row/col pooling sequences returned beside y (int64, `out + 1` entries from 0 to `in`); `pseudo_random` uses
  TensorFlow's `ceil(alpha * (i + u)) - 1` boundaries, otherwise a random shuffle of the piece lengths;
  `overlapping` lets each window include the next boundary. Max follows the CPU kernel's NaN rule (the maximum of
  the window's elements after its last NaN, NaN when the last element is NaN); integer averages truncate.

Randomness: the sequences come from a key. `deterministic=False` needs `seed = seed2 = 0` (MindSpore's rule) and
draws from msx's global PRNG state (`set_seed`), fresh on each call -- MindSpore 2.10's CPU kernel answers the same
sequence on every call there, a kept difference; `deterministic=True` derives the key from (seed, seed2), so the
same seeds give the same pooling regions on every call and in every op; both zero is refused (MindSpore's kernel
fails on it). The numbers of the draw are not MindSpore's (another generator); the pooling for given sequences or
samples is, and the tests check it against MindSpore's recorded answers. Everything is jax: the same eagerly and
under `msx.jit` (the draws are traced values; the output shapes are static), y differentiable w.r.t. x.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from .api import expose
from .attr_converters import to_ints
from .functional_random import _next_key, rand
from .primitive import apply, primitive

_X_DTYPES = (jnp.float16, jnp.float32, jnp.float64, jnp.int32, jnp.int64)


def _fail(op: str, reason: str | None) -> None:
    if reason is not None:
        raise (TypeError if "dtype" in reason else ValueError)(f"{op}: {reason}")


def _sizes(op: str, what: str, v, rank: int) -> tuple[int, ...]:
    try:
        vals = to_ints(v, what)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{op}: {what} must be an int or {rank} ints, got {v!r}") from e
    vals = vals * rank if len(vals) == 1 else vals
    if len(vals) != rank or any(s < 1 for s in vals):
        raise ValueError(f"{op}: {what} must be a positive int or {rank} positive ints, got {v!r}")
    return vals


def _dtype_name(t) -> str:
    return np.dtype(t.dtype).name


# ---------------------------------------------------------------- fixed ksize (torch's intervals)
def _intervals(sample, n: int, out: int, k: int):
    """Window starts (..., out) along a dim of `n` for samples `sample` (...), computed in the samples' dtype."""
    last = jnp.full(sample.shape + (1,), n - k, jnp.int32)
    if out == 1:
        return last
    alpha = jnp.asarray(n - k, sample.dtype) / jnp.asarray(out - 1, sample.dtype)
    i = jnp.arange(out - 1, dtype=sample.dtype)
    seq = (jnp.floor((i + sample[..., None]) * alpha).astype(jnp.int32)
           - jnp.floor(sample * alpha).astype(jnp.int32)[..., None])
    return jnp.concatenate([seq, last], -1)


def _first_max(win):
    """(value, position) of the first maximum along the last axis; NaN never wins (MindSpore's `>` rule)."""
    if jnp.issubdtype(win.dtype, jnp.floating):
        win = jnp.where(jnp.isnan(win), jnp.asarray(-jnp.inf, win.dtype), win)
    k = jnp.argmax(win, axis=-1)
    return jnp.take_along_axis(win, k[..., None], -1)[..., 0], k


def fixed_ksize_pool(x, samples, ksize: tuple[int, ...], output_shape: tuple[int, ...]):
    """(values, flat index int64) of `x` (N, C, *S) max-pooled in `ksize` windows at the samples' intervals."""
    rank = len(ksize)
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    order = (1, 0) if rank == 2 else (0, 1, 2)  # which sample each dim reads (2-d: W takes u[0], H u[1])
    flat = jnp.zeros((), jnp.int32)
    for d in range(rank):
        starts = _intervals(samples[..., order[d]], spatial[d], output_shape[d], ksize[d])  # (N, C, O_d)
        coords = starts[..., :, None] + jnp.arange(ksize[d], dtype=jnp.int32)  # (N, C, O_d, K_d)
        shape = [n, c] + [1] * (2 * rank)
        shape[2 + d], shape[2 + rank + d] = output_shape[d], ksize[d]
        flat = flat + (coords * int(np.prod(spatial[d + 1:]))).reshape(shape)
    flat = jnp.broadcast_to(flat, (n, c) + tuple(output_shape) + tuple(ksize))
    flat = flat.reshape((n, c) + tuple(output_shape) + (-1,))
    win = jnp.take_along_axis(x.reshape(n, c, -1), flat.reshape(n, c, -1), axis=2).reshape(flat.shape)
    values, k = _first_max(win)
    index = jnp.take_along_axis(flat, k[..., None], -1)[..., 0]
    return values, index.astype(jnp.int64)


def _fixed_check(op: str, rank: int):
    layout = "(N, C, H, W)" if rank == 2 else "(N, C, D, H, W)"

    def check(x, samples, *, ksize, output_shape) -> str | None:
        if len(x.shape) != rank + 2:
            return f"input_x must be {rank + 2}-d {layout}, got shape {tuple(x.shape)}"
        if x.dtype not in _X_DTYPES:
            return f"input_x dtype must be float16, float32, float64, int32 or int64, got {_dtype_name(x)}"
        if not jnp.issubdtype(samples.dtype, jnp.floating):
            return f"random_samples dtype must be float16, float32 or float64, got {_dtype_name(samples)}"
        if tuple(samples.shape) != (x.shape[0], x.shape[1], rank):
            return (f"random_samples must have shape (N, C, {rank}) = {(x.shape[0], x.shape[1], rank)}, got "
                    f"{tuple(samples.shape)}")
        for name, n, k, o in zip("DHW"[3 - rank:], x.shape[2:], ksize, output_shape):
            if k + o - 1 > n:
                return (f"ksize {name} ({k}) + output_shape {name} ({o}) - 1 exceeds the input's {name} ({n}): "
                        f"input shape {tuple(x.shape)}, ksize {tuple(ksize)}, output_shape {tuple(output_shape)}")
        return None
    return check


_FIXED2_CHECK = _fixed_check("FractionalMaxPoolWithFixedKsize", 2)
_FIXED3_CHECK = _fixed_check("FractionalMaxPool3DWithFixedKsize", 3)


@primitive("FractionalMaxPoolWithFixedKsize", attrs=("ksize", "output_shape"), category="reduce",
           check=_FIXED2_CHECK, multiple_results=True)
def fractional_max_pool_fixed_2d(x, samples, *, ksize, output_shape):
    """(y, argmax int64) over NCHW, y of shape (N, C, *output_shape)."""
    _fail("FractionalMaxPoolWithFixedKsize", _FIXED2_CHECK(x, samples, ksize=ksize, output_shape=output_shape))
    return fixed_ksize_pool(x, samples, ksize, output_shape)


@primitive("FractionalMaxPool3DWithFixedKsize", attrs=("ksize", "output_shape"), category="reduce",
           check=_FIXED3_CHECK, multiple_results=True)
def fractional_max_pool_fixed_3d(x, samples, *, ksize, output_shape):
    """(y, argmax int64) over NCDHW, y of shape (N, C, *output_shape)."""
    _fail("FractionalMaxPool3DWithFixedKsize", _FIXED3_CHECK(x, samples, ksize=ksize, output_shape=output_shape))
    return fixed_ksize_pool(x, samples, ksize, output_shape)


def _layout(op: str, v, allowed: tuple[str, ...]) -> None:
    if v not in allowed:
        raise ValueError(f"{op}: data_format must be one of {list(allowed)}, got {v!r}"
                         + (" (msx computes NCDHW; MindSpore 2.10's CPU kernel mis-reads NDHWC: it checks "
                            "dim 1 against the samples' channels)" if v == "NDHWC" else ""))


@expose(cls="FractionalMaxPoolWithFixedKsize", init=("ksize", "output_shape", "data_format"),
        prim="FractionalMaxPoolWithFixedKsize")
def _fixed_2d_cls(input_x, random_samples, *, ksize, output_shape, data_format="NCHW"):
    op = "FractionalMaxPoolWithFixedKsize"
    _layout(op, data_format, ("NCHW",))
    attrs = {"ksize": _sizes(op, "ksize", ksize, 2), "output_shape": _sizes(op, "output_shape", output_shape, 2)}
    return apply(fractional_max_pool_fixed_2d, (input_x, random_samples), attrs)


@expose(cls="FractionalMaxPool3DWithFixedKsize", init=("ksize", "output_shape", "data_format"),
        prim="FractionalMaxPool3DWithFixedKsize")
def _fixed_3d_cls(x, random_samples, *, ksize, output_shape, data_format="NCDHW"):
    """A 4-d x (C, D, H, W) pools each channel as its own sample: random_samples then has shape (C, 1, 3)."""
    op = "FractionalMaxPool3DWithFixedKsize"
    _layout(op, data_format, ("NCDHW",))
    attrs = {"ksize": _sizes(op, "ksize", ksize, 3), "output_shape": _sizes(op, "output_shape", output_shape, 3)}
    if x.ndim == 4:
        y, argmax = apply(fractional_max_pool_fixed_3d, (x.expand_dims(1), random_samples), attrs)
        return y.squeeze(1), argmax.squeeze(1)
    return apply(fractional_max_pool_fixed_3d, (x, random_samples), attrs)


def _ratio_size(op: str, x, rank: int, output_size, output_ratio) -> tuple[int, ...]:
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op}: output_size and output_ratio can not both be None")
    if output_size is not None:
        return _sizes(op, "output_size", output_size, rank)
    ratios = (output_ratio,) * rank if isinstance(output_ratio, (int, float)) else tuple(output_ratio)
    if isinstance(output_ratio, int) or len(ratios) != rank or not all(isinstance(r, float) and 0 < r < 1
                                                                         for r in ratios):
        raise ValueError(f"{op}: output_ratio must be a float or {rank} floats in (0, 1), got {output_ratio!r}")
    return tuple(int(n * r) for n, r in zip(x.shape[-rank:], ratios))


def _samples(x, n: int, c: int, rank: int, given):
    if given is not None:
        return given
    return rand(n, c, rank, dtype=x.dtype if x.dtype.is_floating else mstype.float32)


def _check_bool(op: str, what: str, v) -> None:
    if not isinstance(v, bool):
        raise TypeError(f"{op}: {what} must be a bool, got {v!r}")


@expose(ops="fractional_max_pool2d", prim="FractionalMaxPoolWithFixedKsize")
def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Tensor | None = None):
    """(N, C, H, W) or (C, H, W) -> y, or (y, argmax) with `return_indices`; `_random_samples` (N, C, 2) in [0, 1)
    fixes the windows (drawn uniformly when None); `output_size` wins over `output_ratio`."""
    op = "fractional_max_pool2d"
    _check_bool(op, "return_indices", return_indices)
    size = _ratio_size(op, input, 2, output_size, output_ratio)
    x = input.expand_dims(0) if input.ndim == 3 else input
    if x.ndim != 4:
        raise ValueError(f"{op}: input must be 3-d or 4-d, got shape {tuple(input.shape)}")
    samples = _samples(x, x.shape[0], x.shape[1], 2, _random_samples)
    y, argmax = _fixed_2d_cls(x, samples, ksize=kernel_size, output_shape=size)
    if input.ndim == 3:
        y, argmax = y.squeeze(0), argmax.squeeze(0)
    return (y, argmax) if return_indices else y


@expose(ops="fractional_max_pool3d", prim="FractionalMaxPool3DWithFixedKsize")
def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Tensor | None = None):
    """(N, C, D, H, W) or (C, D, H, W) -> y, or (y, argmax) with `return_indices`; `_random_samples` (N, C, 3)
    ((1, C, 3) for 4-d input) must have the input's dtype, as MindSpore requires."""
    op = "fractional_max_pool3d"
    _check_bool(op, "return_indices", return_indices)
    if input.ndim not in (4, 5):
        raise ValueError(f"{op}: input must be 4-d or 5-d, got shape {tuple(input.shape)}")
    samples = _samples(input, 1 if input.ndim == 4 else input.shape[0], input.shape[-4], 3, _random_samples)
    if input.ndim == 4:
        samples = samples.transpose(1, 0, 2)
    size = _ratio_size(op, input, 3, output_size, output_ratio)
    if input.dtype != samples.dtype:
        raise TypeError(f"{op}: input and _random_samples must have the same dtype, got {input.dtype} and "
                        f"{samples.dtype}")
    y, argmax = _fixed_3d_cls(input, samples, ksize=kernel_size, output_shape=size)
    return (y, argmax) if return_indices else y


# ---------------------------------------------------------------- TensorFlow's FractionalMaxPool / AvgPool
def pooling_sequence(key, n: int, out: int, pseudo_random: bool):
    """Boundaries (out + 1,) int64 from 0 to n: pieces of k = n // out or k + 1, TensorFlow's two rules."""
    k, extra = divmod(n, out)
    if extra == 0:
        return jnp.arange(out + 1, dtype=jnp.int64) * k
    if pseudo_random:
        alpha = n / out
        max_u = min((k + 2) / alpha - 1, (n + 1 - k) / alpha - (out - 1))
        u = jax.random.uniform(jax.random.wrap_key_data(key), (), jnp.float64) * max_u
        inner = jnp.ceil(alpha * (jnp.arange(1, out, dtype=jnp.float64) + u)).astype(jnp.int64) - 1
        return jnp.concatenate([jnp.zeros((1,), jnp.int64), inner, jnp.full((1,), n, jnp.int64)])
    diff = jax.random.permutation(jax.random.wrap_key_data(key),
                                  jnp.asarray([k + 1] * extra + [k] * (out - extra), jnp.int64))
    return jnp.concatenate([jnp.zeros((1,), jnp.int64), jnp.cumsum(diff)])


def _axis_windows(seq, n: int, overlapping: bool):
    """(coords (O, K), valid (O, K)) of the windows between consecutive boundaries `seq` along a dim of `n`."""
    out = seq.shape[0] - 1
    width = n // out + 1 + int(overlapping)
    start = seq[:-1].astype(jnp.int32)
    end = jnp.minimum(seq[1:].astype(jnp.int32) - (0 if overlapping else 1), n - 1)
    coords = start[:, None] + jnp.arange(width, dtype=jnp.int32)
    return jnp.clip(coords, 0, n - 1), coords <= end[:, None]


def sequence_pool(x, rows, cols, overlapping: bool, mode: str):
    """Pool NHWC `x` over the windows the boundaries `rows`, `cols` cut ('max' with the CPU kernel's NaN rule, or
    'avg', truncating for integers)."""
    rc, rv = _axis_windows(rows, x.shape[1], overlapping)
    cc, cv = _axis_windows(cols, x.shape[2], overlapping)
    win = x[:, rc[:, None, :, None], cc[None, :, None, :], :]  # (N, OH, OW, KH, KW, C)
    n, oh, ow, kh, kw, c = win.shape
    win = win.reshape(n, oh, ow, kh * kw, c)
    valid = (rv[:, None, :, None] & cv[None, :, None, :]).reshape(1, oh, ow, kh * kw, 1)
    if mode == "avg":
        total = jnp.sum(jnp.where(valid, win, jnp.zeros((), x.dtype)), axis=3, dtype=x.dtype)
        count = jnp.sum(valid, axis=3).astype(x.dtype)
        return jax.lax.div(total, count) if jnp.issubdtype(x.dtype, jnp.integer) else total / count
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.max(jnp.where(valid, win, jnp.iinfo(x.dtype).min), axis=3)
    pos = jnp.arange(kh * kw).reshape(1, 1, 1, -1, 1)
    last_nan = jnp.max(jnp.where(valid & jnp.isnan(win), pos, -1), axis=3, keepdims=True)
    take = valid & (pos > last_nan)  # the kernel's running max restarts after a NaN
    best = jnp.max(jnp.where(take, win, jnp.asarray(-jnp.inf, x.dtype)), axis=3)
    return jnp.where(jnp.any(take, axis=3), best, jnp.asarray(jnp.nan, x.dtype))


def _tf_check(x, key=None, *, pooling_ratio, **_) -> str | None:
    if len(x.shape) != 4:
        return f"x must be 4-d (N, H, W, C), got shape {tuple(x.shape)}"
    if x.dtype not in (jnp.float32, jnp.float64, jnp.int32, jnp.int64):
        return f"x dtype must be float32, float64, int32 or int64, got {_dtype_name(x)}"
    for axis, name in ((1, "height"), (2, "width")):
        if int(np.floor(x.shape[axis] / pooling_ratio[axis])) < 1:
            return (f"the output {name} floor({x.shape[axis]} / {pooling_ratio[axis]}) is 0 for input shape "
                    f"{tuple(x.shape)}")
    return None


def _tf_pool(mode: str):
    def impl(key, x, *, pooling_ratio, pseudo_random, overlapping):
        _fail("Fractional" + mode.capitalize() + "Pool", _tf_check(x, pooling_ratio=pooling_ratio))
        outs = [int(np.floor(x.shape[a] / pooling_ratio[a])) for a in (1, 2)]
        keys = jax.random.split(jax.random.wrap_key_data(key), 2)
        rows, cols = (pooling_sequence(jax.random.key_data(k), x.shape[a], o, pseudo_random)
                      for k, a, o in zip(keys, (1, 2), outs))
        return sequence_pool(x, rows, cols, overlapping, mode), rows, cols
    impl.__doc__ = (f"(y, row_pooling_sequence, col_pooling_sequence): NHWC {mode} pooling over the windows the "
                    f"key's sequences cut.")
    return impl


_TF_ATTRS = ("pooling_ratio", "pseudo_random", "overlapping")
fractional_max_pool = primitive("FractionalMaxPool", attrs=_TF_ATTRS, category="reduce", multiple_results=True,
                                check=lambda key, x, **a: _tf_check(x, **a))(_tf_pool("max"))
fractional_avg_pool = primitive("FractionalAvgPool", attrs=_TF_ATTRS, category="reduce", multiple_results=True,
                                check=lambda key, x, **a: _tf_check(x, **a))(_tf_pool("avg"))


def _tf_key(op: str, x, pooling_ratio, deterministic, seed, seed2):
    """The key the sequences are drawn with: from (seed, seed2) when deterministic, else from the global state --
    which is not advanced when the ratio divides both dims (then no sequence is random)."""
    _check_bool(op, "deterministic", deterministic)
    for what, v in (("seed", seed), ("seed2", seed2)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"{op}: {what} must be an int, got {v!r}")
    if not deterministic:
        if seed or seed2:
            raise ValueError(f"{op}: both seed and seed2 must be 0 if deterministic is False, got seed={seed}, "
                             f"seed2={seed2}")
        if len(x.shape) == 4 and all(x.shape[a] % max(int(np.floor(x.shape[a] / pooling_ratio[a])), 1) == 0
                                     for a in (1, 2)):
            return Tensor(np.zeros((2,), np.uint32))
        return _next_key()
    if not (seed or seed2):
        raise ValueError(f"{op}: deterministic=True needs a nonzero seed or seed2 (they fix the pooling region; "
                         f"MindSpore 2.10's CPU kernel fails on both 0)")
    with jax.ensure_compile_time_eval():  # a constant of the graph, also while one is traced
        key = jax.random.fold_in(jax.random.key(seed % 2 ** 63), seed2 % 2 ** 32)
        return Tensor(np.asarray(jax.random.key_data(key)))


def _tf_attrs(op: str, pooling_ratio, pseudo_random, overlapping) -> dict:
    if not isinstance(pooling_ratio, list) or not all(isinstance(r, float) for r in pooling_ratio):
        raise TypeError(f"{op}: pooling_ratio must be a list of 4 floats, got {pooling_ratio!r}")
    if len(pooling_ratio) != 4:
        raise ValueError(f"{op}: pooling_ratio must have 4 elements, got {len(pooling_ratio)}")
    if pooling_ratio[0] != 1.0 or pooling_ratio[3] != 1.0:
        raise ValueError(f"{op}: pooling_ratio's first and last elements (batch, channels) must be 1.0, got "
                         f"{pooling_ratio}")
    if pooling_ratio[1] < 1.0 or pooling_ratio[2] < 1.0:
        raise ValueError(f"{op}: pooling_ratio's height and width elements must be >= 1.0, got {pooling_ratio}")
    _check_bool(op, "pseudo_random", pseudo_random)
    _check_bool(op, "overlapping", overlapping)
    return {"pooling_ratio": tuple(pooling_ratio), "pseudo_random": pseudo_random, "overlapping": overlapping}


_TF_INIT = ("pooling_ratio", "pseudo_random", "overlapping", "deterministic", "seed", "seed2")


@expose(cls="FractionalMaxPool", init=_TF_INIT, prim="FractionalMaxPool")
def _fractional_max_pool_cls(x, *, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False,
                             seed=0, seed2=0):
    attrs = _tf_attrs("FractionalMaxPool", pooling_ratio, pseudo_random, overlapping)
    key = _tf_key("FractionalMaxPool", x, pooling_ratio, deterministic, seed, seed2)
    return apply(fractional_max_pool, (key, x), attrs)


@expose(cls="FractionalAvgPool", init=_TF_INIT, prim="FractionalAvgPool")
def _fractional_avg_pool_cls(x, *, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False,
                             seed=0, seed2=0):
    attrs = _tf_attrs("FractionalAvgPool", pooling_ratio, pseudo_random, overlapping)
    key = _tf_key("FractionalAvgPool", x, pooling_ratio, deterministic, seed, seed2)
    return apply(fractional_avg_pool, (key, x), attrs)


__all__ = ["fixed_ksize_pool", "fractional_max_pool2d", "fractional_max_pool3d", "pooling_sequence",
           "sequence_pool"]
