"""Two ops of MindSpore's sequence and classification models: `ops.NoRepeatNGram` (beam search's n-gram ban) and
`ops.ConfusionMatrix` (TensorFlow's `confusion_matrix`). Both have static result shapes and run under `msx.jit`.

- `NoRepeatNGram(ngram_size)(state_seq, log_probs)`: for each sequence (batch, beam) of `state_seq`, every
  earlier n-gram whose first n-1 tokens equal the sequence's last n-1 tokens bans its n-th token: that entry
  of `log_probs` becomes -max of its dtype (MindSpore 2.10's CPU kernel; `ngram_size=1` bans every token of
  the sequence);
- `ConfusionMatrix(num_classes, dtype)(labels, predictions, weights=None)`: entry (i, j) sums the weights (1
  without them) of the samples with label i predicted as j, in `dtype` (MindSpore has no CPU kernel for it; the
  tests check TensorFlow's documented rule with numpy).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..errors import OpError, OpTypeError
from ..tensor import Tensor
from .api import expose
from .apply_prim import known_value
from .attr_converters import to_dtype
from .primitive import apply, primitive


def _concrete(t):
    v = known_value(t)
    return None if isinstance(v, (jax.ShapeDtypeStruct, jax.core.Tracer)) else np.asarray(v)


# ---------------------------------------------------------------- NoRepeatNGram
def _ngram_check(state_seq, log_probs, *, ngram_size) -> str | None:
    if len(state_seq.shape) != 3 or len(log_probs.shape) != 3:
        return f"state_seq and log_probs must be 3-D (batch_size, beam_width, ...), got shapes " \
               f"{tuple(state_seq.shape)} and {tuple(log_probs.shape)}"
    if tuple(state_seq.shape[:2]) != tuple(log_probs.shape[:2]):
        return f"state_seq and log_probs must agree on (batch_size, beam_width), got {tuple(state_seq.shape[:2])} " \
               f"and {tuple(log_probs.shape[:2])}"
    if np.dtype(state_seq.dtype) != np.int32:
        return f"state_seq must be int32, got {state_seq.dtype}"
    if np.dtype(log_probs.dtype) not in (np.float16, np.float32, np.float64):
        return f"log_probs must be float16, float32 or float64, got {log_probs.dtype}"
    if ngram_size >= state_seq.shape[-1]:
        return f"ngram_size ({ngram_size}) must be less than the length of state_seq ({state_seq.shape[-1]})"
    return None


@primitive("NoRepeatNGram", attrs=("ngram_size",), category="elementwise", check=_ngram_check,
           differentiable=False)
def no_repeat_ngram(state_seq, log_probs, *, ngram_size=1):
    """log_probs with -max at each token that would repeat an n-gram of its sequence."""
    m, n, vocab = state_seq.shape[-1], ngram_size, log_probs.shape[-1]
    tail = state_seq[..., m - n + 1:]  # the last n-1 tokens
    banned = jnp.zeros(log_probs.shape, bool)
    for j in range(m - n + 1):
        match = jnp.all(state_seq[..., j:j + n - 1] == tail, axis=-1) if n > 1 else jnp.ones(state_seq.shape[:2], bool)
        token = state_seq[..., j + n - 1]
        banned |= match[..., None] & (jnp.arange(vocab) == token[..., None])
    return jnp.where(banned, -jnp.finfo(log_probs.dtype).max, log_probs)


@expose(cls="NoRepeatNGram", init=("ngram_size",), prim="NoRepeatNGram")
def _no_repeat_ngram_cls(state_seq, log_probs, *, ngram_size=1):
    op = "NoRepeatNGram"
    if not isinstance(ngram_size, (int, np.integer)) or isinstance(ngram_size, bool):
        raise OpTypeError(f"{op}: ngram_size must be an int, got {type(ngram_size).__name__}")
    if ngram_size <= 0:
        raise OpError(f"{op}: ngram_size must be greater than 0, got {ngram_size}")
    for what, t in (("state_seq", state_seq), ("log_probs", log_probs)):
        if not isinstance(t, Tensor):
            raise OpTypeError(f"{op}: {what} must be a Tensor, got {type(t).__name__}")
    reason = _ngram_check(state_seq._data, log_probs._data, ngram_size=ngram_size)
    if reason is not None:
        raise OpError(f"{op}: {reason}")
    seq = _concrete(state_seq)
    if seq is not None:  # MindSpore checks the ids it bans
        vocab, m = log_probs.shape[-1], seq.shape[-1]
        for j in range(m - ngram_size + 1):
            match = (seq[..., j:j + ngram_size - 1] == seq[..., m - ngram_size + 1:]).all(-1)
            token = seq[..., j + ngram_size - 1][match]
            if ((token < 0) | (token >= vocab)).any():
                raise OpError(f"{op}: the id {token[(token < 0) | (token >= vocab)][0]} of state_seq it bans must "
                              f"lie in [0, {vocab}) (the vocabulary of log_probs)")
    return apply(no_repeat_ngram, (state_seq, log_probs), {"ngram_size": int(ngram_size)})


# ---------------------------------------------------------------- ConfusionMatrix
def _cm_check(labels, predictions, *weights, num_classes, dtype) -> str | None:
    if len(labels.shape) != 1 or tuple(labels.shape) != tuple(predictions.shape):
        return f"labels and predictions must be 1-D of one length, got {tuple(labels.shape)} and " \
               f"{tuple(predictions.shape)}"
    for what, t in (("labels", labels), ("predictions", predictions)):
        if not jnp.issubdtype(t.dtype, jnp.integer):
            return f"{what} must be an integer Tensor, got {t.dtype}"
    if weights and tuple(weights[0].shape) != tuple(labels.shape):
        return f"weights must have the shape of labels {tuple(labels.shape)}, got {tuple(weights[0].shape)}"
    return None


@primitive("ConfusionMatrix", attrs=("num_classes", "dtype"), category="reduce", check=_cm_check,
           differentiable=False)
def confusion_matrix(labels, predictions, *weights, num_classes, dtype=mstype.int32):
    """(num_classes, num_classes) counts (or weight sums) of (label, prediction) pairs, in `dtype`."""
    dt = mstype.to_np(dtype)
    w = weights[0].astype(dt) if weights else jnp.ones(labels.shape, dt)
    return jnp.zeros((num_classes, num_classes), dt).at[labels, predictions].add(w, mode="drop")


@expose(cls="ConfusionMatrix", init=("num_classes", "dtype"), prim="ConfusionMatrix")
def _confusion_matrix_cls(labels, predictions, weights=None, *, num_classes, dtype="int32"):
    op = "ConfusionMatrix"
    if not isinstance(num_classes, (int, np.integer)) or isinstance(num_classes, bool):
        raise OpTypeError(f"{op}: num_classes must be an int, got {type(num_classes).__name__}")
    if num_classes <= 0:
        raise OpError(f"{op}: num_classes must be greater than 0, got {num_classes}")
    if not isinstance(dtype, str):
        raise OpTypeError(f"{op}: dtype must be a str, got {type(dtype).__name__}")
    inputs = (labels, predictions) + (() if weights is None else (weights,))
    for what, t in zip(("labels", "predictions", "weights"), inputs):
        if not isinstance(t, Tensor):
            raise OpTypeError(f"{op}: {what} must be a Tensor, got {type(t).__name__}")
        v = _concrete(t) if what != "weights" else None
        if v is not None and v.size and ((v < 0) | (v >= num_classes)).any():
            raise OpError(f"{op}: {what} must lie in [0, {num_classes}), got values from {v.min()} to {v.max()}")
    reason = _cm_check(*(t._data for t in inputs), num_classes=num_classes, dtype=dtype)
    if reason is not None:
        raise OpError(f"{op}: {reason}")
    return apply(confusion_matrix, inputs, {"num_classes": int(num_classes), "dtype": to_dtype(dtype)})
