"""`OcclusionSensitivity` (MindSpore 2.10's `mindspore.train` name): how much a classifier's score for a label
drops when a patch of the input is covered, per input position. The network runs on batches of occluded
copies (`n_batch` at a time); the rest is numpy on the host."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...tensor import Tensor
from ..cell import Cell
from ._base import Metric, rearrange_inputs


def _box(b_box: list | None, shape: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(first, last) position per dim of the region to test (None: all); a negative last means the end."""
    if b_box is None:
        return None, None
    if len(b_box) != 2 * len(shape):
        raise ValueError(f"OcclusionSensitivity: b_box needs a lower and an upper bound for each of the "
                         f"{len(shape)} dims after the batch ({2 * len(shape)} values), got {len(b_box)}")
    low, high = np.array(b_box[::2]), np.array(b_box[1::2])
    low[low < 0] = 0
    high[high < 0] = shape[high < 0] - 1
    if np.any(high >= shape):
        raise ValueError(f"OcclusionSensitivity: b_box's upper bounds {high.tolist()} must be inside the input "
                         f"shape {shape.tolist()}")
    if np.any(low > high):
        raise ValueError(f"OcclusionSensitivity: b_box's lower bounds {low.tolist()} exceed its upper bounds "
                         f"{high.tolist()}")
    return low, high


class OcclusionSensitivity(Metric):
    """`update(model, x, label)` on one sample `x` (batch 1): for every position (inside `b_box`, when given)
    the input with the patch `[pos - margin, pos + margin)` set to `pad_val` runs through `model`; `eval` gives
    the baseline score of `label` minus each occluded score, shaped like the positions."""

    def __init__(self, pad_val: float = 0.0, margin: int | list = 2, n_batch: int = 128, b_box: list | None = None
                 ) -> None:
        if isinstance(pad_val, bool) or not isinstance(pad_val, float):
            raise TypeError(f"OcclusionSensitivity: pad_val must be a float, got {type(pad_val).__name__}")
        if isinstance(margin, bool) or not isinstance(margin, (int, list)):
            raise TypeError(f"OcclusionSensitivity: margin must be an int or a list, got {type(margin).__name__}")
        if isinstance(n_batch, bool) or not isinstance(n_batch, int) or n_batch < 1:
            raise ValueError(f"OcclusionSensitivity: n_batch must be a positive int, got {n_batch!r}")
        if b_box is not None and not isinstance(b_box, list):
            raise TypeError(f"OcclusionSensitivity: b_box must be a list, got {type(b_box).__name__}")
        self.pad_val, self.margin, self.n_batch, self.b_box = pad_val, margin, n_batch, b_box
        super().__init__()

    def clear(self) -> None:
        self._baseline = 0.0
        self._sensitivity_im: np.ndarray | int = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 3:
            raise ValueError(f"OcclusionSensitivity.update needs 3 inputs (model, input, label), got {len(inputs)}")
        model, label = inputs[0], inputs[2]
        if not isinstance(model, Cell):
            raise TypeError(f"OcclusionSensitivity.update: the model (input[0]) must be a Cell, got "
                            f"{type(model).__name__}")
        x = self._convert_data(inputs[1])
        label = label if isinstance(label, int) else self._convert_data(label)
        if x.shape[0] > 1:
            raise RuntimeError(f"OcclusionSensitivity.update: the input (input[1]) must hold one sample (batch 1), "
                               f"got shape {x.shape}")
        if not isinstance(label, int) and np.prod(label.shape) != x.shape[0]:
            raise RuntimeError(f"OcclusionSensitivity.update: one label per sample, got {np.prod(label.shape)} "
                               f"labels for {x.shape[0]} samples")
        label_idx = int(label) if isinstance(label, int) else int(np.asarray(label).reshape(-1)[0])
        shape = np.array(x.shape[1:])
        low, high = _box(self.b_box, shape)
        margins = self.margin if isinstance(self.margin, list) else [self.margin] * len(shape)
        if len(margins) != len(shape):
            raise ValueError(f"OcclusionSensitivity: margin has {len(margins)} values for {len(shape)} dims")
        self._baseline = float(model(Tensor(x)).asnumpy()[0, label_idx])
        out_shape = tuple(shape if low is None else high - low + 1)
        scores: list[np.ndarray] = []
        batch: list[np.ndarray] = []
        total = int(np.prod(out_shape))
        for i in range(total):
            pos = np.array(np.unravel_index(i, out_shape)) + (0 if low is None else low)
            start = [max(0, p - m) for p, m in zip(pos, margins)]
            stop = [min(n, p + m) for p, m, n in zip(pos, margins, shape)]
            occluded = x.copy()
            occluded[(...,) + tuple(slice(a, b) for a, b in zip(start, stop))] = self.pad_val
            batch.append(occluded)
            if len(batch) == self.n_batch or i == total - 1:
                scores.append(model(Tensor(np.concatenate(batch))).asnumpy()[:, label_idx])
                batch = []
        self._sensitivity_im = np.concatenate(scores).reshape(out_shape)
        self._is_update = True

    def eval (self) -> np.ndarray:
        if not self._is_update:
            raise RuntimeError("OcclusionSensitivity: call 'update' before 'eval'")
        return self._baseline - np.squeeze(self._sensitivity_im)


__all__ = ["OcclusionSensitivity"]
