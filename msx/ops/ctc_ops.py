"""CTC loss (`ops.ctc_loss`, `ops.CTCLossV2`; `nn.CTCLoss` is its Cell): MindSpore 2.10's CTCLossV2.

The forward algorithm runs in log space (a `lax.scan` over time, batched over samples of different input and
target lengths); it returns the per-sample negative log-likelihood and `log_alpha` (N, T, 2S+1), -inf where a
state is unreachable or past the sample's input length, as MindSpore's kernel does. Its gradient is
MindSpore's CTCLossV2Grad (torch's too): `exp(log_probs) - occupancy`, the gradient of the loss with respect
to the logits under a log_softmax — what training needs; it sums to zero over classes at every frame. The
`log_alpha` output carries no gradient (MindSpore's bprop ignores it too). One difference: with
`zero_infinity=True` an impossible alignment's loss is 0, as MindSpore documents and torch does (MindSpore
2.10's CPU kernel zeroes only its gradient and still answers inf).
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..tensor import Tensor
from . import bounds
from .api import Api, Attr, expose
from .index_ops import eager_only
from .primitive import apply, primitive

_NEG_INF = -jnp.inf


def _lse(*xs):
    """Elementwise log(sum(exp(x))) of a few arrays; -inf (not NaN) where every term is -inf."""
    top = functools.reduce(jnp.maximum, xs)
    safe = jnp.where(jnp.isfinite(top), top, 0.0)
    total = sum(jnp.exp(x - safe) for x in xs)
    return jnp.where(jnp.isfinite(top), safe + jnp.log(jnp.where(total > 0, total, 1.0)), _NEG_INF)


def _shift(a, k: int):
    """a[..., s - k] at s (-inf where s < k)."""
    return jnp.concatenate([jnp.full(a.shape[:-1] + (k,), _NEG_INF, a.dtype), a[..., :-k]], axis=-1)


def _lattice(log_probs, targets, target_lengths, blank: int, merge_repeated: bool = True):
    """The extended labels (blank, l1, blank, l2, ..., blank), which states may skip the blank before them,
    which states exist for each sample (s < 2 * target_length + 1), the emissions (T, N, L), and which states
    may stay for another frame. `merge_repeated=False` (TensorFlow's ctc_merge_repeated): a label lasts one
    frame and may follow an equal label without a blank between them."""
    n, s = targets.shape
    labels = jnp.full((n, 2 * s + 1), blank, targets.dtype).at[:, 1::2].set(targets)
    if merge_repeated:
        skip = jnp.zeros(labels.shape, bool).at[:, 3::2].set(targets[:, 1:] != targets[:, :-1])
        stay = jnp.ones(labels.shape, bool)
    else:
        skip = jnp.zeros(labels.shape, bool).at[:, 3::2].set(True)
        stay = jnp.zeros(labels.shape, bool).at[:, 0::2].set(True)
    valid = jnp.arange(2 * s + 1)[None, :] < (2 * target_lengths[:, None] + 1)
    emit = jnp.take_along_axis(log_probs, jnp.broadcast_to(labels[None], (log_probs.shape[0],) + labels.shape), 2)
    return labels, skip, valid, emit, stay


def _alpha(log_probs, targets, input_lengths, target_lengths, blank: int, merge_repeated: bool = True):
    labels, skip, valid, emit, stay = _lattice(log_probs, targets, target_lengths, blank, merge_repeated)
    t_max = log_probs.shape[0]
    first = jnp.full(labels.shape, _NEG_INF, log_probs.dtype)
    first = first.at[:, 0].set(emit[0, :, 0]).at[:, 1].set(jnp.where(target_lengths > 0, emit[0, :, 1], _NEG_INF))
    first = jnp.where(valid & (input_lengths[:, None] > 0), first, _NEG_INF)

    def step(prev, t):
        here = _lse(jnp.where(stay, prev, _NEG_INF), _shift(prev, 1),
                    jnp.where(skip, _shift(prev, 2), _NEG_INF)) + emit[t]
        here = jnp.where(valid & (t < input_lengths[:, None]), here, _NEG_INF)
        return here, here

    _, rest = lax.scan(step, first, jnp.arange(1, t_max))
    alphas = jnp.concatenate([first[None], rest], axis=0)  # (T, N, L)
    last = jnp.take_along_axis(alphas, jnp.clip(input_lengths - 1, 0, t_max - 1)[None, :, None], 0)[0]
    end = 2 * target_lengths
    nll = -_lse(jnp.take_along_axis(last, end[:, None], 1)[:, 0],
                jnp.where(target_lengths > 0, jnp.take_along_axis(last, jnp.maximum(end - 1, 0)[:, None], 1)[:, 0],
                          _NEG_INF))
    return nll, alphas, (labels, skip, valid, emit, stay)


def _beta(lattice, input_lengths, target_lengths, t_max: int):
    labels, skip, valid, emit, stay = lattice
    end = 2 * target_lengths
    states = jnp.arange(labels.shape[1])[None, :]
    is_end = (states == end[:, None]) | ((states == end[:, None] - 1) & (target_lengths[:, None] > 0))
    skip_next = jnp.concatenate([skip[:, 2:], jnp.zeros((skip.shape[0], 2), bool)], axis=1)  # may s + 2 skip to s?

    def back(a, k: int):  # a[..., s + k] at s
        return jnp.concatenate([a[..., k:], jnp.full(a.shape[:-1] + (k,), _NEG_INF, a.dtype)], axis=-1)

    def step(nxt, t):
        rec = _lse(jnp.where(stay, nxt, _NEG_INF), back(nxt, 1), jnp.where(skip_next, back(nxt, 2), _NEG_INF)) \
            + emit[t]
        start = jnp.where(is_end, emit[t], _NEG_INF)
        here = jnp.where((t == input_lengths - 1)[:, None], start,
                         jnp.where((t < input_lengths - 1)[:, None], rec, _NEG_INF))
        here = jnp.where(valid, here, _NEG_INF)
        return here, here

    init = jnp.full(labels.shape, _NEG_INF, emit.dtype)
    _, betas = lax.scan(step, init, jnp.arange(t_max - 1, -1, -1))
    return betas[::-1]


@functools.partial(jax.custom_vjp, nondiff_argnums=(4, 5))
def _ctc(log_probs, targets, input_lengths, target_lengths, blank: int, zero_infinity: bool):
    nll, alphas, _ = _alpha(log_probs, targets, input_lengths, target_lengths, blank)
    return nll, alphas


def _ctc_fwd(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    nll, alphas, lattice = _alpha(log_probs, targets, input_lengths, target_lengths, blank)
    return (nll, alphas), (log_probs, targets, input_lengths, target_lengths, nll, alphas, lattice)


def _ctc_bwd(blank, zero_infinity, res, cts):
    log_probs, _, input_lengths, target_lengths, nll, alphas, lattice = res
    grad = _logit_grad(log_probs, input_lengths, target_lengths, nll, alphas, lattice, zero_infinity)
    return grad * cts[0][None, :, None], None, None, None


def _logit_grad(log_probs, input_lengths, target_lengths, nll, alphas, lattice, zero_infinity: bool):
    """d nll / d logits (T, N, C) where log_probs = log_softmax(logits): exp(log_probs) - state occupancy."""
    labels, _, _, emit, _ = lattice
    t_max, _, classes = log_probs.shape
    betas = _beta(lattice, input_lengths, target_lengths, t_max)
    occupancy_s = jnp.exp(alphas + betas - emit + nll[None, :, None])  # (T, N, L): P(state s at t | labels)
    occupancy_s = jnp.where(jnp.isneginf(alphas) | jnp.isneginf(betas), 0.0, occupancy_s)
    occupancy = jnp.einsum("tns,nsc->tnc", occupancy_s, jax.nn.one_hot(labels, classes, dtype=log_probs.dtype))
    # an impossible alignment (infinite loss): NaN within its input length, as MindSpore's; zero_infinity: 0
    grad = jnp.where(jnp.isinf(nll)[None, :, None], 0.0 if zero_infinity else jnp.nan,
                     jnp.exp(log_probs) - occupancy)
    return jnp.where((jnp.arange(t_max)[:, None] < input_lengths[None, :])[..., None], grad, 0.0)


_ctc.defvjp(_ctc_fwd, _ctc_bwd)


@primitive("CTCLossV2", attrs=("blank", "reduction", "zero_infinity"), category="loss", multiple_results=True)
def ctc_loss_v2(log_probs, targets, input_lengths, target_lengths, *, blank=0, reduction="none",
                zero_infinity=False):
    """(loss, log_alpha): the loss reduced by `reduction` ('mean' divides each sample's loss by its target
    length, at least 1, then averages); `zero_infinity` turns an impossible alignment's infinite loss, and
    its gradient, into 0."""
    targets, input_lengths, target_lengths = (a.astype(jnp.int32) for a in (targets, input_lengths, target_lengths))
    nll, alphas = _ctc(log_probs, targets, input_lengths, target_lengths, int(blank), bool(zero_infinity))
    if zero_infinity:
        nll = jnp.where(jnp.isinf(nll), 0.0, nll).astype(nll.dtype)
    log_alpha = jnp.transpose(alphas, (1, 0, 2))
    if reduction == "mean":
        return jnp.mean(nll / jnp.maximum(target_lengths, 1).astype(nll.dtype)), log_alpha
    return (jnp.sum(nll) if reduction == "sum" else nll), log_alpha


def _check(op: str, log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{op}: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")
    if not isinstance(zero_infinity, bool):
        raise TypeError(f"{op}: zero_infinity must be a bool, got {type(zero_infinity).__name__}")
    lengths = [t if isinstance(t, Tensor) else Tensor(np.asarray(t, np.int32)) for t in (input_lengths, target_lengths)]
    if not isinstance(log_probs, Tensor) or log_probs.ndim != 3 or not jnp.issubdtype(log_probs._data.dtype,
                                                                                      jnp.floating):
        raise TypeError(f"{op}: log_probs must be a float Tensor of shape (T, N, C), got "
                        f"{getattr(log_probs, 'shape', type(log_probs).__name__)}")
    t_max, n, c = log_probs.shape
    if not isinstance(targets, Tensor) or targets.ndim != 2 or targets.shape[0] != n:
        raise ValueError(f"{op}: targets must be a Tensor of shape (N, S) with N = {n}, got "
                         f"{getattr(targets, 'shape', type(targets).__name__)}")
    for name, t in zip(("input_lengths", "target_lengths"), lengths):
        if tuple(t.shape) != (n,):
            raise ValueError(f"{op}: {name} must have shape ({n},), got {tuple(t.shape)}")
    if not 0 <= int(blank) < c:
        raise ValueError(f"{op}: blank must be in [0, {c}), got {blank}")
    try:  # eager (concrete) lengths are checked as MindSpore's kernel checks them; traced ones cannot be
        il, tl = (np.asarray(t._data) for t in lengths)
    except jax.errors.ConcretizationTypeError:
        return lengths
    if (il > t_max).any() or (il < tl).any() or (tl > targets.shape[1]).any() or (tl < 0).any():
        raise ValueError(f"{op}: each input length must be in [target length, T = {t_max}] and each target length "
                         f"in [0, S = {targets.shape[1]}]; got input_lengths {il.tolist()}, target_lengths "
                         f"{tl.tolist()}")
    return lengths


@expose(ops="ctc_loss", prim="CTCLossV2")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """MindSpore's `ops.ctc_loss`: (neg_log_likelihood, log_alpha) of log_probs (T, N, C) against targets (N, S)."""
    il, tl = _check("ctc_loss", log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)
    return apply(ctc_loss_v2, (log_probs, targets, il, tl),
                 {"blank": int(blank), "reduction": reduction, "zero_infinity": zero_infinity})


@expose(cls="CTCLossV2", init=("blank", "reduction", "zero_infinity"), prim="CTCLossV2")
def _ctc_loss_v2_cls(log_probs, targets, input_lengths, target_lengths, *, blank=0, reduction="none",
                     zero_infinity=False):
    return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)


# ---------------------------------------------------------------- CTCLoss (TensorFlow's ctc_loss) and its decoder
def _dense_labels(labels_indices, labels_values, n: int, collapse: bool):
    """Sparse labels ((M, 2) [batch, position] indices, (M,) values) as dense targets (N, M) and their lengths;
    `collapse`: runs of equal labels become one label first."""
    m = labels_values.shape[0]
    rows = jnp.clip(labels_indices[:, 0].astype(jnp.int32), 0, max(n - 1, 0))
    cols = jnp.clip(labels_indices[:, 1].astype(jnp.int32), 0, max(m - 1, 0))
    targets = jnp.zeros((n, m), jnp.int32).at[rows, cols].set(labels_values.astype(jnp.int32))
    lengths = jnp.zeros((n,), jnp.int32).at[rows].add(1)
    if collapse and m > 1:
        inside = jnp.arange(m)[None, :] < lengths[:, None]
        keep = inside & jnp.concatenate([jnp.ones((n, 1), bool), targets[:, 1:] != targets[:, :-1]], axis=1)
        place = jnp.where(keep, jnp.cumsum(keep, axis=1) - 1, m)  # m: dropped
        targets = jnp.zeros((n, m + 1), jnp.int32).at[jnp.arange(n)[:, None], place].set(targets)[:, :m]
        lengths = keep.sum(axis=1).astype(jnp.int32)
    return targets, lengths


@functools.partial(jax.custom_vjp, nondiff_argnums=(4, 5))
def _ctc_tf(x, targets, seq, lengths, merge_repeated: bool, ignore_longer: bool):
    return _ctc_tf_fwd(x, targets, seq, lengths, merge_repeated, ignore_longer)[0]


def _ctc_tf_fwd(x, targets, seq, lengths, merge_repeated, ignore_longer):
    log_probs = jax.nn.log_softmax(x.astype(jnp.promote_types(x.dtype, jnp.float32)), axis=-1)
    blank = x.shape[-1] - 1
    nll, alphas, lattice = _alpha(log_probs, targets, seq, lengths, blank, merge_repeated)
    grad = _logit_grad(log_probs, seq, lengths, nll, alphas, lattice, False)
    if ignore_longer:  # a label sequence longer than its input: gradient 0 (the loss stays inf, as MindSpore's)
        grad = jnp.where((seq < lengths)[None, :, None], 0.0, grad)
    out = (nll.astype(x.dtype), grad.astype(x.dtype))
    return out, grad


def _ctc_tf_bwd(merge_repeated, ignore_longer, grad, cts):
    return (grad * cts[0][None, :, None]).astype(cts[1].dtype), None, None, None


_ctc_tf.defvjp(_ctc_tf_fwd, _ctc_tf_bwd)


def _ctc_loss_check(x, labels_indices, labels_values, sequence_length, **_) -> str | None:
    if len(x.shape) != 3:
        return f"x must be 3-d (max_time, batch_size, num_classes), got shape {tuple(x.shape)}"
    if x.dtype not in (jnp.float16, jnp.float32, jnp.float64):
        return f"x must be float16, float32 or float64, got {x.dtype}"
    if len(labels_indices.shape) != 2 or labels_indices.shape[1] != 2:
        return f"labels_indices must have shape (M, 2) ([batch, position] rows), got {tuple(labels_indices.shape)}"
    if tuple(labels_values.shape) != (labels_indices.shape[0],):
        return f"labels_values must have shape ({labels_indices.shape[0]},) (one per labels_indices row), got " \
               f"{tuple(labels_values.shape)}"
    if tuple(sequence_length.shape) != (x.shape[1],):
        return f"sequence_length must have shape ({x.shape[1]},) (one per sample), got {tuple(sequence_length.shape)}"
    for what, t in (("labels_indices", labels_indices), ("labels_values", labels_values),
                    ("sequence_length", sequence_length)):
        if not jnp.issubdtype(t.dtype, jnp.integer):
            return f"{what} must be an integer tensor, got {t.dtype}"
    return None


def _ctc_loss_values(x, labels_indices, labels_values, sequence_length, **attrs) -> str | None:
    if _ctc_loss_check(x, labels_indices, labels_values, sequence_length) is not None:
        return None  # the shape rule explains it
    t_max, n, c = x.shape
    idx, vals, seq = (bounds.concrete(a) for a in (labels_indices, labels_values, sequence_length))
    if idx is not None and idx.size and ((idx[:, 0] < 0).any() or (idx[:, 0] >= n).any() or (idx[:, 1] < 0).any()):
        return f"labels_indices rows must be in [0, {n}) and positions >= 0, got {idx.tolist()}"
    if vals is not None and vals.size and ((vals < 0).any() or (vals >= c - 1).any()):
        return f"labels_values must be in [0, {c - 1}) (class {c - 1} is the blank), got {vals.tolist()}"
    if seq is not None and ((seq < 0).any() or (seq > t_max).any()):
        return f"sequence_length must be in [0, {t_max}], got {seq.tolist()}"
    if idx is not None and seq is not None and not attrs.get("ignore_longer_outputs_than_inputs"):
        lengths = np.bincount(idx[:, 0], minlength=n)[:n] if idx.size else np.zeros(n, int)
        if (seq < lengths).any():
            return f"each sequence_length must be at least its label length (or ignore_longer_outputs_than_inputs" \
                   f"=True); got sequence_length {seq.tolist()}, label lengths {lengths.tolist()}"
    return None


@primitive("CTCLoss", attrs=("preprocess_collapse_repeated", "ctc_merge_repeated",
                             "ignore_longer_outputs_than_inputs"), category="loss", multiple_results=True,
           check=_ctc_loss_check, values=_ctc_loss_values,
           api=Api(cls="CTCLoss", args=("x", "labels_indices", "labels_values", "sequence_length"),
                   attrs=(Attr("preprocess_collapse_repeated", False, bool), Attr("ctc_merge_repeated", True, bool),
                          Attr("ignore_longer_outputs_than_inputs", False, bool)),
                   init=("preprocess_collapse_repeated", "ctc_merge_repeated", "ignore_longer_outputs_than_inputs")))
def ctc_loss_tf(x, labels_indices, labels_values, sequence_length, *, preprocess_collapse_repeated=False,
                ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False):
    """(loss (N,), gradient (T, N, C)): the CTC loss of the logits `x` (softmax taken here, the last class is
    the blank) against sparse labels, and its gradient with respect to `x`, as TensorFlow's ctc_loss. The loss
    differentiates to that gradient; the gradient output carries none."""
    if _ctc_loss_check(x, labels_indices, labels_values, sequence_length) is not None:
        raise ValueError(_ctc_loss_check(x, labels_indices, labels_values, sequence_length))
    targets, lengths = _dense_labels(labels_indices, labels_values, x.shape[1], bool(preprocess_collapse_repeated))
    return _ctc_tf(x, targets, sequence_length.astype(jnp.int32), lengths, bool(ctc_merge_repeated),
                   bool(ignore_longer_outputs_than_inputs))


def _greedy_check(inputs, sequence_length, **_) -> str | None:
    if len(inputs.shape) != 3:
        return f"inputs must be 3-d (max_time, batch_size, num_classes), got shape {tuple(inputs.shape)}"
    if inputs.dtype not in (jnp.float32, jnp.float64):
        return f"inputs must be float32 or float64, got {inputs.dtype}"
    if tuple(sequence_length.shape) != (inputs.shape[1],):
        return f"sequence_length must have shape ({inputs.shape[1]},), got {tuple(sequence_length.shape)}"
    if sequence_length.dtype != jnp.int32:
        return f"sequence_length must be int32, got {sequence_length.dtype}"
    return None


def _greedy_values(inputs, sequence_length, **_) -> str | None:
    if _greedy_check(inputs, sequence_length) is not None:
        return None
    seq = bounds.concrete(sequence_length)
    if seq is not None and ((seq <= 0).any() or (seq > inputs.shape[0]).any()):
        return f"sequence_length must be in [1, {inputs.shape[0]}], got {seq.tolist()}"
    return None


@primitive("CTCGreedyDecoder", attrs=("merge_repeated",), category="shape", multiple_results=True,
           differentiable=False, check=_greedy_check, values=_greedy_values,
           api=(Api(cls="CTCGreedyDecoder", args=("inputs", "sequence_length"),
                    attrs=(Attr("merge_repeated", True, bool),), init=("merge_repeated",)),
                Api("ctc_greedy_decoder", args=("inputs", "sequence_length"),
                    attrs=(Attr("merge_repeated", True, bool),))))
def ctc_greedy_decoder(inputs, sequence_length, *, merge_repeated=True):
    """(decoded_indices (K, 2) int64, decoded_values (K,) int64, decoded_shape (2,) int64 = [N, longest],
    log_probability (N, 1)): the best class of each frame within the sample's length, repeats merged when
    `merge_repeated`, the blank (last class) dropped; log_probability is minus the sum of those frames' maxima.
    Eager only: K depends on the values."""
    eager_only("CTCGreedyDecoder", inputs, sequence_length)
    reason = _greedy_check(inputs, sequence_length)
    if reason is not None:
        raise ValueError(reason)
    t_max, n, c = inputs.shape
    inside = jnp.arange(t_max)[:, None] < sequence_length[None, :]
    log_prob = -jnp.sum(jnp.where(inside, jnp.max(inputs, axis=-1), 0.0), axis=0)[:, None]
    best = np.asarray(jnp.argmax(inputs, axis=-1))
    seq = np.asarray(sequence_length)
    indices, values, longest = [], [], 0
    for b in range(n):
        prev, k = -1, 0
        for t in range(int(seq[b])):
            cls = int(best[t, b])
            if cls != c - 1 and not (merge_repeated and cls == prev):
                indices.append((b, k))
                values.append(cls)
                k += 1
            prev = cls
        longest = max(longest, k)
    return (jnp.asarray(np.asarray(indices, np.int64).reshape(-1, 2)), jnp.asarray(np.asarray(values, np.int64)),
            jnp.asarray(np.asarray([n, longest], np.int64)), log_prob.astype(inputs.dtype))
