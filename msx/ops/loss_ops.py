"""Loss functions under MindSpore's names: `ops.<loss>` functions and their class-style primitives.

Each loss is one primitive whose impl computes the per-element (or per-sample) loss and applies the
`reduction` attribute, so gradients follow from jax and every capture mode sees one op. Formulas are
MindSpore 2.10's documented ones; tests/oracle/cases_array.py checks values and gradients against it.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .api import expose
from .nn_ops import _reduce
from .primitive import apply, primitive


def _red(op: str, reduction: str, allowed=("mean", "sum", "none")) -> str:
    if reduction not in allowed:
        raise ValueError(f"{op}: reduction must be one of {allowed}, got {reduction!r}")
    return reduction


def _loss(name: str, attrs: tuple = ()):
    return primitive(name, attrs=("reduction",) + attrs, category="loss")


def _same(op: str, *ts) -> None:
    shapes = [tuple(t.shape) for t in ts]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"{op}: input shapes {shapes} cannot be broadcast together") from None


# ---------------------------------------------------------------- binary / regression losses
@_loss("BinaryCrossEntropy", ("has_weight",))
def bce(x, y, *w, reduction="mean", has_weight=False):
    """-(y log x + (1 - y) log(1 - x)), each log clamped at -100 (probabilities that hit 0 or 1 stay finite)."""
    loss = -(y * jnp.maximum(jnp.log(x), -100.0) + (1 - y) * jnp.maximum(jnp.log1p(-x), -100.0))
    return _reduce(loss * jax.lax.stop_gradient(w[0]) if has_weight else loss, reduction)  # no weight gradient


@expose(ops="binary_cross_entropy", prim="BinaryCrossEntropy")
def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    _same("binary_cross_entropy", logits, labels, *(() if weight is None else (weight,)))
    return apply(bce, (logits, labels) + (() if weight is None else (weight,)),
                 {"reduction": _red("binary_cross_entropy", reduction), "has_weight": weight is not None})


@expose(cls="BinaryCrossEntropy", init=("reduction",), prim="BinaryCrossEntropy")
def _bce_cls(input, target, weight=None, *, reduction="mean"):
    return binary_cross_entropy(input, target, weight, reduction)


@_loss("HuberLoss", ("delta",))
def huber(x, y, *, reduction="mean", delta=1.0):
    d = jnp.abs(x - y)
    return _reduce(jnp.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


@expose(ops="huber_loss", prim="HuberLoss")
def huber_loss(input, target, reduction="mean", delta=1.0):
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be > 0, got {delta}")
    _same("huber_loss", input, target)
    return apply(huber, (input, target), {"reduction": _red("huber_loss", reduction), "delta": float(delta)})


@_loss("SoftMarginLoss")
def soft_margin(x, y, *, reduction="mean"):
    return _reduce(jnp.logaddexp(0.0, -y * x), reduction)


@expose(ops="soft_margin_loss", prim="SoftMarginLoss")
def soft_margin_loss(input, target, reduction="mean"):
    _same("soft_margin_loss", input, target)
    return apply(soft_margin, (input, target), {"reduction": _red("soft_margin_loss", reduction)})


@expose(cls="SoftMarginLoss", init=("reduction",), prim="SoftMarginLoss")
def _soft_margin_cls(input, target, *, reduction="mean"):
    return soft_margin_loss(input, target, reduction)


@_loss("KLDivLoss")
def kl(logits, labels, *, reduction="mean"):
    """labels * (log(labels) - logits); 0 where labels is 0; "batchmean" divides the sum by the batch size."""
    labels = jax.lax.stop_gradient(labels)  # MindSpore's bprop: no gradient for the labels
    loss = jax.scipy.special.xlogy(labels, labels) - labels * logits
    if reduction == "batchmean":
        return jnp.sum(loss) / (logits.shape[0] if logits.ndim else 1)
    return _reduce(loss, reduction)


@expose(ops="kl_div", prim="KLDivLoss")
def kl_div(logits, labels, reduction="mean"):
    return apply(kl, (logits, labels), {"reduction": _red("kl_div", reduction, ("mean", "sum", "none", "batchmean"))})


@expose(cls="KLDivLoss", init=("reduction",), prim="KLDivLoss")
def _kl_cls(logits, labels, *, reduction="mean"):
    return kl_div(logits, labels, reduction)


@_loss("GaussianNLLLoss", ("full", "eps"))
def gaussian_nll(x, t, var, *, reduction="mean", full=False, eps=1e-6):
    var = jnp.maximum(var, eps)
    loss = 0.5 * (jnp.log(var) + (x - t) ** 2 / var)
    if full:
        loss = loss + float(0.5 * np.log(2 * np.pi))
    return _reduce(loss, reduction)


@expose(ops="gaussian_nll_loss", prim="GaussianNLLLoss")
def gaussian_nll_loss(x, target, var, full=False, eps=1e-6, reduction="mean"):
    _same("gaussian_nll_loss", x, target, var)
    return apply(gaussian_nll, (x, target, var), {"reduction": _red("gaussian_nll_loss", reduction),
                                                  "full": bool(full), "eps": float(eps)})


@_loss("SigmoidCrossEntropyWithLogits")
def sigmoid_ce(x, y, *, reduction="none"):
    y = jax.lax.stop_gradient(y)  # MindSpore's bprop: no gradient for the labels
    return _reduce(jnp.maximum(x, 0) - x * y + jnp.log1p(jnp.exp(-jnp.abs(x))), reduction)


@expose(cls="SigmoidCrossEntropyWithLogits", prim="SigmoidCrossEntropyWithLogits")
def _sigmoid_ce_cls(logits, label):
    _same("SigmoidCrossEntropyWithLogits", logits, label)
    return apply(sigmoid_ce, (logits, label), {"reduction": "none"})


# ---------------------------------------------------------------- margin and embedding losses
@_loss("HingeEmbeddingLoss", ("margin",))
def hinge_embedding(x, y, *, reduction="mean", margin=1.0):
    """x where the target is positive, max(0, margin - x) where it is negative (MindSpore reads the sign)."""
    loss = jnp.where(y > 0, x, 0.0) + jnp.where(y < 0, jnp.maximum(0.0, margin - x), 0.0)
    return _reduce(loss, reduction)


@expose(ops="hinge_embedding_loss", prim="HingeEmbeddingLoss")
def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    _same("hinge_embedding_loss", inputs, targets)
    return apply(hinge_embedding, (inputs, targets), {"reduction": _red("hinge_embedding_loss", reduction),
                                                      "margin": float(margin)})


@_loss("MarginRankingLoss", ("margin",))
def margin_ranking(x1, x2, y, *, reduction="mean", margin=0.0):
    return _reduce(jnp.maximum(0.0, -y * (x1 - x2) + margin), reduction)


@expose(ops="margin_ranking_loss", prim="MarginRankingLoss")
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    _same("margin_ranking_loss", input1, input2, target)
    return apply(margin_ranking, (input1, input2, target), {"reduction": _red("margin_ranking_loss", reduction),
                                                            "margin": float(margin)})


@_loss("CosineEmbeddingLoss", ("margin",))
def cosine_embedding(x1, x2, y, *, reduction="mean", margin=0.0):
    eps = 1e-12
    cos = jnp.sum(x1 * x2, -1) / jnp.sqrt(jnp.maximum(jnp.sum(x1 * x1, -1) * jnp.sum(x2 * x2, -1), eps))
    loss = jnp.where(y == 1, 1 - cos, 0.0) + jnp.where(y == -1, jnp.maximum(0.0, cos - margin), 0.0)
    return _reduce(loss, reduction)


@expose(ops="cosine_embedding_loss", prim="CosineEmbeddingLoss")
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    if tuple(input1.shape) != tuple(input2.shape):
        raise ValueError(f"cosine_embedding_loss: input1 {tuple(input1.shape)} and input2 {tuple(input2.shape)} "
                         f"must have the same shape")
    if not -1.0 <= margin <= 1.0:
        raise ValueError(f"cosine_embedding_loss: margin must be in [-1, 1], got {margin}")
    return apply(cosine_embedding, (input1, input2, target), {"reduction": _red("cosine_embedding_loss", reduction),
                                                              "margin": float(margin)})


@_loss("TripletMarginLoss", ("margin", "p", "eps", "swap"))
def triplet(a, pos, neg, *, reduction="mean", margin=1.0, p=2, eps=1e-6, swap=False):
    def dist(u, v):
        return jnp.sum(jnp.abs(u - v + eps) ** p, -1) ** (1.0 / p)
    d_ap, d_an = dist(a, pos), dist(a, neg)
    if swap:
        d_an = jnp.minimum(d_an, dist(pos, neg))
    return _reduce(jnp.maximum(d_ap - d_an + margin, 0.0), reduction)


@expose(ops="triplet_margin_loss", prim="TripletMarginLoss")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction="mean"):
    return apply(triplet, (anchor, positive, negative), {"reduction": _red("triplet_margin_loss", reduction),
                                                         "margin": float(margin), "p": p, "eps": float(eps),
                                                         "swap": bool(swap)})


@expose(cls="TripletMarginLoss", init=("p", "swap", "eps", "reduction"), prim="TripletMarginLoss")
def _triplet_cls(x, positive, negative, margin, *, p=2, swap=False, eps=1e-6, reduction="mean"):
    return triplet_margin_loss(x, positive, negative, float(margin.asnumpy()) if hasattr(margin, "asnumpy")
                               else margin, p, eps, swap, reduction)


@_loss("MultiMarginLoss", ("p", "margin", "has_weight"))
def multi_margin(x, target, *w, reduction="mean", p=1, margin=1.0, has_weight=False):
    """sum over j != y of max(0, margin - x[y] + x[j])^p / C, times weight[y]."""
    n_cls = x.shape[-1]
    xy = jnp.take_along_axis(x, target[:, None].astype(jnp.int32), -1)
    terms = jnp.maximum(0.0, margin - xy + x) ** p
    terms = jnp.where(jax.nn.one_hot(target, n_cls, dtype=bool), 0.0, terms)
    loss = jnp.sum(terms, -1) / n_cls
    if has_weight:  # MindSpore's bprop: no gradient for the class weights
        loss = loss * jnp.take(jax.lax.stop_gradient(w[0]), target)
    return _reduce(loss, reduction)


@expose(ops="multi_margin_loss", prim="MultiMarginLoss")
def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):
    if p not in (1, 2):
        raise ValueError(f"multi_margin_loss: p must be 1 or 2, got {p}")
    return apply(multi_margin, (input, target) + (() if weight is None else (weight,)),
                 {"reduction": _red("multi_margin_loss", reduction), "p": int(p), "margin": float(margin),
                  "has_weight": weight is not None})


@expose(cls="MultiMarginLoss", init=("p", "margin", "reduction"), prim="MultiMarginLoss")
def _multi_margin_cls(x, target, weight=None, *, p=1, margin=1.0, reduction="mean"):
    return multi_margin_loss(x, target, p, margin, weight, reduction)


@primitive("MultilabelMarginLoss", attrs=("reduction",), category="loss", multiple_results=True)
def multilabel_margin(x, target, *, reduction="mean"):
    """Per sample: sum over target classes j (the leading entries of `target` before a -1) and non-target
    classes k of max(0, 1 - (x[j] - x[k])) / C; also returns the 0/1 target mask (`is_target`)."""
    n_cls = x.shape[-1]
    t = target.astype(jnp.int32)
    valid = jnp.cumprod(t >= 0, axis=-1).astype(bool)  # entries before the first -1
    is_target = jnp.any(jax.nn.one_hot(jnp.where(valid, t, n_cls), n_cls + 1, dtype=bool)[..., :n_cls], axis=-2)
    xj = jnp.take_along_axis(x, jnp.where(valid, t, 0), -1)  # (N, C): x at each listed target
    margins = jnp.maximum(0.0, 1.0 - (xj[..., :, None] - x[..., None, :]))  # [j, k]
    keep = valid[..., :, None] & ~is_target[..., None, :]
    loss = jnp.sum(jnp.where(keep, margins, 0.0), (-2, -1)) / n_cls
    return _reduce(loss, reduction), is_target.astype(target.dtype)


@expose(ops="multilabel_margin_loss", prim="MultilabelMarginLoss")
def multilabel_margin_loss(input, target, reduction="mean"):
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"multilabel_margin_loss: input {tuple(input.shape)} and target {tuple(target.shape)} "
                         f"must have the same shape")
    return apply(multilabel_margin, (input, target), {"reduction": _red("multilabel_margin_loss", reduction)})[0]


@expose(cls="MultilabelMarginLoss", init=("reduction",), prim="MultilabelMarginLoss")
def _multilabel_margin_cls(x, target, *, reduction="mean"):
    return apply(multilabel_margin, (x, target), {"reduction": _red("MultilabelMarginLoss", reduction)})


@_loss("MultilabelSoftMarginLoss", ("has_weight",))
def multilabel_soft_margin(x, y, *w, reduction="mean", has_weight=False):
    loss = -(y * jax.nn.log_sigmoid(x) + (1 - y) * jax.nn.log_sigmoid(-x))
    if has_weight:
        loss = loss * w[0]
    return _reduce(jnp.mean(loss, -1), reduction)


@expose(ops="multilabel_soft_margin_loss", prim="MultilabelSoftMarginLoss")
def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    return apply(multilabel_soft_margin, (input, target) + (() if weight is None else (weight,)),
                 {"reduction": _red("multilabel_soft_margin_loss", reduction), "has_weight": weight is not None})


# ---------------------------------------------------------------- class-index losses
@primitive("NLLLossWithWeight", attrs=("reduction", "ignore_index"), category="loss", multiple_results=True)
def nll_with_weight(logp, target, weight, *, reduction="mean", ignore_index=-100):
    """(loss, total_weight): MindSpore's `NLLLoss` primitive over (N, C) log-probabilities."""
    t = target.astype(jnp.int32)
    valid = t != ignore_index
    safe = jnp.where(valid, t, 0)
    w = jnp.where(valid, jnp.take(jax.lax.stop_gradient(weight), safe), 0.0)  # MindSpore: no weight gradient
    loss = -jnp.take_along_axis(logp, safe[:, None], 1)[:, 0] * w
    total = jnp.sum(w)
    if reduction == "mean":
        return jnp.sum(loss) / total, total
    if reduction == "sum":
        return jnp.sum(loss), total
    return loss, total


@expose(cls="NLLLoss", init=("reduction", "ignore_index"), prim="NLLLossWithWeight")
def _nll_cls(logits, labels, weight, *, reduction="mean", ignore_index=-100):
    return apply(nll_with_weight, (logits, labels, weight), {"reduction": _red("NLLLoss", reduction),
                                                             "ignore_index": int(ignore_index)})


@primitive("SparseSoftmaxCrossEntropyWithLogits", category="loss")
def sparse_softmax_ce(logits, labels):
    """The mean over samples of -log softmax(logits)[label]."""
    logp = jax.nn.log_softmax(logits, -1)
    return -jnp.mean(jnp.take_along_axis(logp, labels.astype(jnp.int32)[:, None], -1))


@expose(cls="SparseSoftmaxCrossEntropyWithLogits", init=("is_grad",), prim="SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_ce_cls(logits, labels, *, is_grad=False):
    if is_grad:
        raise ValueError("SparseSoftmaxCrossEntropyWithLogits: is_grad=True returns MindSpore's internal backward "
                         "tensor, which msx does not expose; differentiate the is_grad=False loss instead")
    return apply(sparse_softmax_ce, (logits, labels))
