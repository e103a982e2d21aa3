"""The class op `ops.RNNTLoss(blank_label=0)(acts, labels, input_lengths, label_lengths)` -> (costs, grads):
the RNN-Transducer loss (Graves 2012) of MindSpore 2.10 (an Ascend kernel, warp-transducer's algorithm).

`acts` (B, T, U, V) are joint-network logits (log_softmax is taken over V inside), `labels` (B, U - 1) int32,
`input_lengths` / `label_lengths` (B,) int32 the valid T_b and U_b - 1 of each sample. With
`lp = log_softmax(acts)`, the forward variable is `alpha[t, u] = logaddexp(alpha[t-1, u] + lp[t-1, u, blank],
alpha[t, u-1] + lp[t, u-1, labels[u-1]])`, `costs[b] = -(alpha[T_b-1, U_b-1] + lp[T_b-1, U_b-1, blank])`
(dtype of acts), and `grads` is d costs[b] / d acts[b] (zero outside each sample's valid lattice), which
MindSpore's bprop scales by the incoming gradient of `costs`; here the same derivative is jax's, so both the
returned `grads` and `msx.grad` of the costs agree. No MindSpore CPU kernel exists: tests check numpy's dynamic
programme and finite differences (tests/test_spectral_taylor_ops.py).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtype as mstype
from ..errors import OpError
from .api import SURFACE, PrimitiveOp
from .primitive import apply, known_value, primitive


def _costs(acts, labels, input_lengths, label_lengths, blank: int):
    """(B,) negative log-likelihoods, computed in float32 (or float64) whatever the acts' dtype."""
    wide = jnp.float64 if acts.dtype == jnp.float64 else jnp.float32
    lp = jax.nn.log_softmax(acts.astype(wide), axis=-1)  # (B, T, U, V)
    b, t_max, u_max, _ = acts.shape
    blank_lp = lp[..., blank]  # (B, T, U)
    idx = jnp.broadcast_to(labels[:, None, :, None].astype(jnp.int32), (b, t_max, u_max - 1, 1))
    label_lp = jnp.take_along_axis(lp[:, :, :u_max - 1, :], idx, axis=-1)[..., 0]  # (B, T, U-1)

    def along_u(first, emit):
        """alpha[t, :] from alpha[t, 0] = first and emissions emit[u-1] (label at (t, u-1))."""
        def step(prev, e):
            cur = prev + e
            return cur, cur
        _, rest = lax.scan(step, first, jnp.moveaxis(emit, -1, 0))
        return jnp.concatenate([first[None], rest], axis=0)  # (U, B)

    def along_t(prev_row, t):
        # from below: alpha[t-1, u] + blank[t-1, u]; then across u (sequential logaddexp)
        down = prev_row + jnp.moveaxis(blank_lp[:, t - 1, :], -1, 0)  # (U, B)

        def step(left, pair):
            d, e = pair
            cur = jnp.logaddexp(d, left + e)
            return cur, cur
        _, rest = lax.scan(step, down[0], (down[1:], jnp.moveaxis(label_lp[:, t, :], -1, 0)))
        row = jnp.concatenate([down[:1], rest], axis=0)
        return row, row

    first_row = along_u(jnp.zeros((b,), wide), label_lp[:, 0, :])
    if t_max > 1:
        _, rows = lax.scan(along_t, first_row, jnp.arange(1, t_max))
        alpha = jnp.concatenate([first_row[None], rows], axis=0)  # (T, U, B)
    else:
        alpha = first_row[None]
    t_last = jnp.clip(input_lengths.astype(jnp.int32) - 1, 0, t_max - 1)
    u_last = jnp.clip(label_lengths.astype(jnp.int32), 0, u_max - 1)
    batch = jnp.arange(b)
    final = alpha[t_last, u_last, batch] + blank_lp[batch, t_last, u_last]
    return -final


@primitive("RNNTLoss", attrs=("blank_label",), category="reduce", multiple_results=True,
           internal="run by the class op ops.RNNTLoss, which checks the shapes, dtypes and lengths")
def rnnt_loss_(acts, labels, input_lengths, label_lengths, *, blank_label=0):
    """(costs (B,), grads = d costs / d acts (B, T, U, V)), both in the acts' dtype."""
    def total(a):
        c = _costs(a, labels, input_lengths, label_lengths, blank_label)
        return jnp.sum(c), c

    grads, costs = jax.grad(total, has_aux=True)(acts)
    return costs.astype(acts.dtype), grads.astype(acts.dtype)


class RNNTLoss(PrimitiveOp):
    """`ops.RNNTLoss(blank_label=0)(acts, labels, input_lengths, label_lengths)` -> (costs, grads)."""

    name = "RNNTLoss"

    def __init__(self, blank_label: int = 0) -> None:
        super().__init__()
        if isinstance(blank_label, bool) or not isinstance(blank_label, int):
            raise TypeError(f"RNNTLoss: blank_label must be an int, got {type(blank_label).__name__}")
        self.blank_label = blank_label
        self.attrs["blank_label"] = blank_label

    def __call__(self, acts, labels, input_lengths, label_lengths):
        got = (f"acts {acts.dtype}{tuple(acts.shape)}, labels {labels.dtype}{tuple(labels.shape)}, input_lengths "
               f"{input_lengths.dtype}{tuple(input_lengths.shape)}, label_lengths "
               f"{label_lengths.dtype}{tuple(label_lengths.shape)}")
        if acts.ndim != 4 or labels.ndim != 2 or input_lengths.ndim != 1 or label_lengths.ndim != 1:
            raise OpError(f"RNNTLoss: acts must be 4-D (B, T, U, V), labels 2-D (B, U - 1), the lengths 1-D (B,); "
                          f"got {got}")
        b, t, u, v = acts.shape
        if labels.shape != (b, u - 1) or input_lengths.shape[0] != b or label_lengths.shape[0] != b:
            raise OpError(f"RNNTLoss: labels must be ({b}, {u - 1}) and the lengths ({b},); got {got}")
        if acts.dtype not in (mstype.float16, mstype.float32):
            raise OpError(f"RNNTLoss: acts must be float16 or float32; got {got}")
        if any(x.dtype != mstype.int32 for x in (labels, input_lengths, label_lengths)):
            raise OpError(f"RNNTLoss: labels, input_lengths and label_lengths must be int32; got {got}")
        if not 0 <= self.blank_label < v:
            raise OpError(f"RNNTLoss: blank_label {self.blank_label} is not a class of V = {v}")
        self._check_values(labels, input_lengths, label_lengths, t, u, v)
        return apply(rnnt_loss_, (acts, labels, input_lengths, label_lengths), {"blank_label": self.blank_label})

    @staticmethod
    def _check_values(labels, input_lengths, label_lengths, t: int, u: int, v: int) -> None:
        """Out-of-range lengths, or labels within a sample's label length, when their values are known now
        (eagerly, or constants); padding past a sample's label length is never read."""
        arrays = []
        for tensor in (labels, input_lengths, label_lengths):
            known = known_value(tensor)
            if isinstance(known, jax.ShapeDtypeStruct):
                return
            try:
                arrays.append(np.asarray(known))
            except (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError):
                return
        lab, t_len, u_len = arrays
        if t_len.size and (t_len.min() < 1 or t_len.max() > t):
            raise OpError(f"RNNTLoss: input_lengths must lie in [1, {t}], got {t_len.tolist()}")
        if u_len.size and (u_len.min() < 0 or u_len.max() > u - 1):
            raise OpError(f"RNNTLoss: label_lengths must lie in [0, {u - 1}], got {u_len.tolist()}")
        used = np.arange(u - 1)[None, :] < u_len[:, None]
        if np.any(used & ((lab < 0) | (lab >= v))):
            raise OpError(f"RNNTLoss: labels must be classes in [0, {v - 1}], got {lab.tolist()}")


SURFACE.add("cls", "RNNTLoss", RNNTLoss)
