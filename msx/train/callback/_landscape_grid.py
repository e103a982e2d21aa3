"""The numbers of a loss landscape: MindSpore's directions, coordinates and grids, and the loss over the grid on jax.

The directions are MindSpore 2.10's (`mindspore.train.callback._landscape`), re-derived so that a landscape msx
draws from MindSpore's checkpoints equals the one MindSpore draws (tests/test_summary_landscape.py):

- which entries move: a checkpoint entry whose name holds "weight" or "bias" and not "moment" (BatchNorm's
  gamma/beta and every other entry keep their value);
- PCA (`create_landscape["train"]`): each checkpoint of an interval minus the last one, as the columns of a
  (parameters x checkpoints-1) matrix, each column centred on its mean, SVD, the sign of each singular vector made
  so that its largest-magnitude entry is positive, the first two scaled by their singular values;
- random (`["result"]`): two draws of `numpy.random.normal` over every entry of the final checkpoint, in
  checkpoint order (so `numpy.random.seed` / `msx.set_seed` reproduce MindSpore's directions);
- normalisation: each moving tensor's direction scaled to that tensor's norm (MindSpore's is per tensor, not per
  filter), the other entries' directions zero;
- coordinates: the trajectory's least-squares coefficients on the two directions; the PCA grid spans them
  widened by 20% each side, the random grid [-1, 1].

The loss at a point `w0 + a*d1 + b*d2` is the model's training loss there (MindSpore's train network without the
optimizer update: `loss_fn(network(*inputs), label)`, or the network's own output without a loss_fn), averaged
over the batches as `Loss` averages them. msx evaluates a chunk of points at once: one `jax.jit` of `jax.vmap`
over the (a, b) pairs, the perturbed weights built inside it, so memory holds one chunk's weights, never the grid's.
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ... import tensor as tensor_mod
from ...capture.session import swapped_parameters, write_log
from ...tensor import Tensor

_log = logging.getLogger("msx.summary")
PROZ = 0.2           # MindSpore's margin around the trajectory (and 0.2 * 5 = the random grid's half-width)
RANDOM_BOUNDARY = 5
CHUNK_BYTES = 256 << 20  # the perturbed weights (and inputs) of one chunk of grid points stay under this
MAX_CHUNK = 256


def moves(name: str) -> bool:
    """MindSpore's rule for the entries a landscape perturbs."""
    return ("weight" in name or "bias" in name) and "moment" not in name


def pca_directions(trajectory: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two principal directions (flat, over the moving entries) of `trajectory` (checkpoints x parameters,
    the final checkpoint last), as MindSpore's `_PCA(2)` computes them (an exact SVD: MindSpore's randomized SVD
    for more than 500 parameters and 4+ checkpoints reaches the same vectors up to rounding)."""
    x = (np.asarray(trajectory, np.float64)[:-1] - np.asarray(trajectory, np.float64)[-1]).T.copy()
    x -= x.mean(axis=0)
    u, s, _ = np.linalg.svd(x, full_matrices=False)
    signs = np.sign(u[np.argmax(np.abs(u), axis=0), np.arange(u.shape[1])])
    u = u * signs
    s = np.where(s == 0, 1e-19, s)
    pcs = u[:, :2] * s[:2]
    return pcs[:, 0], pcs[:, -1]


def split(flat: np.ndarray, arrays: Sequence[np.ndarray], moving: Sequence[bool] | None = None) -> list[np.ndarray]:
    """`flat` cut into `arrays`' shapes (float32); entries not `moving` get zeros and take none of `flat`."""
    out, at = [], 0
    for i, a in enumerate(arrays):
        if moving is not None and not moving[i]:
            out.append(np.zeros(a.shape, np.float32))
            continue
        out.append(np.asarray(flat[at:at + a.size], np.float32).reshape(a.shape))
        at += a.size
    return out


def normalise(arrays: Sequence[np.ndarray], direction: list[np.ndarray], moving: Sequence[bool]) -> list[np.ndarray]:
    """MindSpore's `_normalize_vector`: each moving tensor's direction scaled to the tensor's norm, others zero.
    A direction that is zero on a tensor (it never moved along the trajectory) stays zero instead of NaN."""
    out = []
    for a, d, m in zip(arrays, direction, moving):
        norm = np.linalg.norm(d)
        out.append(d * (np.linalg.norm(a) / norm) if m and norm != 0 else np.zeros_like(d))
    return out


def random_directions(arrays: Sequence[np.ndarray], moving: Sequence[bool]) -> tuple[list, list]:
    """Two normalised random directions, drawn from numpy's global generator in MindSpore's order."""
    total = sum(int(a.size) for a in arrays)
    v = split(np.random.normal(size=total), arrays)
    w = split(np.random.normal(size=total), arrays)
    return normalise(arrays, v, moving), normalise(arrays, w, moving)


def coefficients(trajectory: Sequence[Sequence[np.ndarray]], final: Sequence[np.ndarray], v: Sequence[np.ndarray],
                 w: Sequence[np.ndarray], moving: Sequence[bool]) -> np.ndarray:
    """(checkpoints, 2): each checkpoint's offset from `final` projected (least squares) on the directions."""
    pick = [i for i, m in enumerate(moving) if m]
    basis = np.stack([np.concatenate([v[i].ravel() for i in pick]), np.concatenate([w[i].ravel() for i in pick])], 1)
    base = np.concatenate([final[i].ravel() for i in pick])
    rows = [np.linalg.lstsq(basis.astype(np.float64), (np.concatenate([c[i].ravel() for i in pick]) - base)
                            .astype(np.float64), rcond=None)[0] for c in trajectory]
    return np.asarray(rows, np.float32)  # numpy's lstsq of float32 data: solved in float64, returned as float32


def pca_axes(coefs: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The PCA grid's axes: the trajectory's coefficient range widened by PROZ of it on each side."""
    axes = []
    for c in (coefs[:, 0], coefs[:, 1]):
        low, high = min(c), max(c)
        axes.append(np.linspace(low - PROZ * (high - low), high + PROZ * (high - low), size))
    return axes[0], axes[1]


def random_axes(size: int) -> tuple[np.ndarray, np.ndarray]:
    half = PROZ * RANDOM_BOUNDARY
    return np.linspace(-half, half, size), np.linspace(-half, half, size)


class LossGrid:
    """The mean training loss of `forward` over `batches` at `base + a*v + b*w` for many (a, b) at once.

    `params` are the Parameters the forward reads whose values are replaced (`base`, in their order); the forward
    runs on jax tracers with those Parameters swapped, its state writes (BatchNorm statistics, the dropout RNG)
    undone, so every point sees the same state. `metric`: None averages the batch losses as `Loss` does; another
    metric gets each point's batch losses through `clear/update/eval`. `devices`: the jax devices the chunks go
    to in turn (their dispatch is asynchronous, so several devices work at once)."""

    def __init__(self, forward: Callable[..., Any], params: Sequence[Any], base: Sequence[np.ndarray],
                 v: Sequence[np.ndarray], w: Sequence[np.ndarray], batches: Sequence[tuple[np.ndarray, ...]],
                 metric: Any = None, devices: Sequence[Any] | None = None) -> None:
        if not batches:
            raise ValueError("SummaryLandscape: the dataset gave no batch to compute the loss on")
        self._params, self._metric = list(params), metric
        self._devices = list(devices or [jax.devices()[0]])
        dtypes = [p._data.dtype for p in self._params]
        self._consts = [[jnp.asarray(a, dt) for a, dt in zip(arrays, dtypes)] for arrays in (base, v, w)]
        self._batches = [tuple(jnp.asarray(x) for x in batch) for batch in batches]
        per_point = 4 * (sum(int(np.size(a)) for a in base)
                         + max(sum(int(np.size(x)) for x in b) for b in self._batches)) * 4
        self.chunk = int(max(1, min(MAX_CHUNK, CHUNK_BYTES // max(per_point, 1))))
        params_ = self._params

        def one(coef, base, v, w, batch):
            arrays = [b + (coef[0] * dv).astype(b.dtype) + (coef[1] * dw).astype(b.dtype)
                      for b, dv, dw in zip(base, v, w)]
            with swapped_parameters(params_, arrays), write_log("always"):
                out = forward(*[Tensor._from(x) for x in batch])
            loss = _first(out)
            return jnp.mean(loss.astype(jnp.float32))

        self._run = jax.jit(jax.vmap(one, in_axes=(0, None, None, None, None)))

    def __call__(self, coefs: np.ndarray) -> np.ndarray:
        """The loss at each row (a, b) of `coefs`, float64."""
        coefs = np.asarray(coefs, np.float32).reshape(-1, 2)
        n = len(coefs)
        padded = np.zeros((-(-n // self.chunk) * self.chunk, 2), np.float32)
        padded[:n] = coefs
        placed = {}
        pending = []
        with tensor_mod.PARAMETER_LOCK:  # the Parameters are swapped while each chunk is traced
            for k in range(len(padded) // self.chunk):
                device = self._devices[k % len(self._devices)]
                if device not in placed:
                    placed[device] = jax.device_put((self._consts, self._batches), device)
                consts, batches = placed[device]
                part = jax.device_put(padded[k * self.chunk:(k + 1) * self.chunk], device)
                pending.append([self._run(part, *consts, batch) for batch in batches])
        per_batch = np.concatenate([np.stack([np.asarray(r, np.float64) for r in chunk], 1) for chunk in pending])[:n]
        if self._metric is None:
            return per_batch.mean(axis=1)
        out = np.empty(n)
        for i, losses in enumerate(per_batch):
            self._metric.clear()
            for loss in losses:
                self._metric.update(Tensor(np.float32(loss)))
            out[i] = float(self._metric.eval ())  # MindSpore's Metric.eval, spaced as in model.py
        return out


def _first(out: Any):
    """The loss: the first output of the training network (MindSpore's metrics get `outputs[0]`)."""
    while isinstance(out, (tuple, list)):
        if not out:
            raise ValueError("SummaryLandscape: the training network returned an empty tuple, not a loss")
        out = out[0]
    if not isinstance(out, Tensor):
        raise TypeError(f"SummaryLandscape: the training network must return a loss Tensor, got {type(out).__name__}")
    return out._data
