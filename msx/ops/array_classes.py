"""MindSpore's class ops (`ops.operations`) over arrays, each built on msx's existing ops: boxes (`IOU`,
`CheckValid`), lookups and top-k membership, block layout (`SpaceToBatchND`, `SpaceToBatch`, `BatchToSpace`,
`BatchToSpaceNDV2`), dtype and counting helpers,
`Partial`, and `HookBackward`; with their functional spellings (`ops.iou`, ...). `classes.py` re-exports
the classes. Checked by tests/test_compat_ops.py against MindSpore 2.10.
"""
from __future__ import annotations

import functools

import numpy as np

from ..tensor import Tensor
from . import functional as F
from . import nn_layer_ops as L
from .api import PrimitiveOp, expose
from .custom import Custom
from .detection_ops import static_values
from .primitive import apply


class HookBackward(PrimitiveOp):
    """`ops.HookBackward(hook_fn)(*inputs)`: the inputs unchanged; in the backward pass `hook_fn(grads)` sees
    the gradients (a tuple) and may return replacements (a Custom op with a bprop). Eagerly the hook runs on
    every backward pass; under jit it runs while the graph is captured, so its replacement is part of the
    graph and a side effect in it (a print) happens once per capture (MindSpore allows it in PyNative only)."""

    name = "HookBackward"

    def __init__(self, hook_fn, cell_id: str = "") -> None:
        super().__init__()
        if not callable(hook_fn):
            raise TypeError(f"HookBackward: hook_fn must be callable, got {type(hook_fn).__name__}")
        self.hook_fn, self.cell_id = hook_fn, cell_id
        self._op = None

    def _bprop(self, *args):
        dout = args[-1]
        grads = tuple(dout) if isinstance(dout, (tuple, list)) else (dout,)
        new = self.hook_fn(grads)
        if new is None:
            return grads
        return tuple(new) if isinstance(new, (tuple, list)) else (new,)

    def __call__(self, *inputs):
        if self._op is None or self._op[0] != len(inputs):
            if len(inputs) == 1:
                op = Custom(lambda x: x, out_shape=lambda s: s, out_dtype=lambda d: d, func_type="pyfunc",
                            bprop=self._bprop)
            else:
                op = Custom(lambda *xs: xs, out_shape=lambda *s: s, out_dtype=lambda *d: d, func_type="pyfunc",
                            bprop=self._bprop)
            self._op = (len(inputs), op)
        return self._op[1](*inputs)


class Partial(PrimitiveOp):
    """`ops.Partial()(fn, *args)`: `fn` with its first arguments fixed (MindSpore's `ops.partial`)."""

    name = "Partial"

    def __call__(self, fn, *args):
        return functools.partial(fn, *args)


class DType(PrimitiveOp):
    """`ops.DType()(x)`: the msx dtype of a Tensor (MindSpore's `ops.dtype`)."""

    name = "DType"

    def __call__(self, x):
        return x.dtype


class CountNonZero(PrimitiveOp):
    """`ops.CountNonZero(dims=None)(x)` -> int64 counts over `dims` (all when None)."""

    name = "CountNonZero"

    def __init__(self, dims=None) -> None:
        super().__init__()
        self.dims = dims

    def __call__(self, x):
        axis = () if self.dims is None else self.dims
        return F.count_nonzero(x, axis, False, "int64")


class EqualCount(PrimitiveOp):
    """`ops.EqualCount()(x, y)` -> a (1,) tensor: how many elements are equal."""

    name = "EqualCount"

    def __call__(self, x, y):
        return F.reshape(F.cast(F.sum(F.cast(F.equal(x, y), "int32")), x.dtype), (1,))


class ScalarToArray(PrimitiveOp):
    """`ops.ScalarToArray()(x)`: a Python number as a 0-d Tensor."""

    name = "ScalarToArray"

    def __call__(self, x):
        if not isinstance(x, (int, float, bool)):
            raise TypeError(f"ScalarToArray: x must be a Python number, got {type(x).__name__}")
        return Tensor(x)


class TypeAs(PrimitiveOp):
    """`ops.TypeAs()(input, other)`: `input` cast to `other`'s dtype."""

    name = "TypeAs"

    def __call__(self, input, other):
        return F.cast(input, other.dtype)


class InTopK(PrimitiveOp):
    """`ops.InTopK(k)(x1, x2)`: whether each sample's label `x2[i]` is among the `k` largest of `x1[i]`."""

    name = "InTopK"

    def __init__(self, k: int) -> None:
        super().__init__()
        self.k = int(k)

    def __call__(self, x1, x2):
        target = F.gather_elements(x1, 1, F.reshape(F.cast(x2, "int64"), (-1, 1)))
        larger = F.sum(F.cast(F.greater(x1, target), "int32"), 1)
        return F.less(larger, self.k)


class EmbeddingLookup(PrimitiveOp):
    """`ops.EmbeddingLookup()(input_params, input_indices, offset)`: rows `indices - offset`; a row outside the
    table gives zeros (MindSpore's rule for the slice of a sharded table)."""

    name = "EmbeddingLookup"

    def __call__(self, input_params, input_indices, offset):
        idx = F.sub(input_indices, offset)
        inside = F.logical_and(F.greater_equal(idx, 0), F.less(idx, input_params.shape[0]))
        rows = F.gather(input_params, F.where(inside, idx, F.zeros_like(idx)), 0)
        return F.mul(rows, F.expand_dims(F.cast(inside, rows.dtype), -1))


class IOU(PrimitiveOp):
    """`ops.IOU(mode='iou')(anchor_boxes, gt_boxes)` -> (M, N): IOU (or IOF: over the foreground, the anchor's
    area) of each gt box (rows) with each anchor box (columns); boxes are (x0, y0, x1, y1), +1 pixel areas."""

    name = "IOU"

    def __init__(self, mode: str = "iou") -> None:
        super().__init__()
        if mode not in ("iou", "iof"):
            raise ValueError(f"IOU: mode must be 'iou' or 'iof', got {mode!r}")
        self.mode = mode

    def __call__(self, anchor_boxes, gt_boxes):
        a = F.expand_dims(anchor_boxes, 0)  # (1, N, 4)
        g = F.expand_dims(gt_boxes, 1)      # (M, 1, 4)
        ax0, ay0, ax1, ay1 = F.unstack(a, -1)
        gx0, gy0, gx1, gy1 = F.unstack(g, -1)
        w = F.relu(F.add(F.sub(F.minimum(ax1, gx1), F.maximum(ax0, gx0)), 1.0))
        h = F.relu(F.add(F.sub(F.minimum(ay1, gy1), F.maximum(ay0, gy0)), 1.0))
        inter = F.mul(w, h)
        area_a = F.mul(F.add(F.sub(ax1, ax0), 1.0), F.add(F.sub(ay1, ay0), 1.0))
        area_g = F.mul(F.add(F.sub(gx1, gx0), 1.0), F.add(F.sub(gy1, gy0), 1.0))
        denom = F.sub(F.add(area_a, area_g), inter) if self.mode == "iou" else F.mul(area_g, F.ones_like(inter))
        return F.div(inter, denom)



class SpaceToBatchND(PrimitiveOp):
    """`ops.SpaceToBatchND(block_shape, paddings)(x)` on NCHW: pad H, W, then move each block offset into the
    batch (output batch (bh * bw_size + bw) * N + n)."""

    name = "SpaceToBatchND"

    def __init__(self, block_shape, paddings) -> None:
        super().__init__()
        self.block_shape = (block_shape,) * 2 if isinstance(block_shape, int) else tuple(block_shape)
        self.paddings = tuple(tuple(int(v) for v in p) for p in paddings)

    def __call__(self, input_x):
        (b0, b1), (n, c) = self.block_shape, input_x.shape[:2]
        x = apply(L.pad_v3, (input_x,), {"paddings": ((0, 0), (0, 0)) + self.paddings, "mode": "constant",
                                         "value": 0.0})
        h, w = x.shape[2], x.shape[3]
        if h % b0 or w % b1:
            raise ValueError(f"SpaceToBatchND: padded spatial shape {(h, w)} is not divisible by {(b0, b1)}")
        x = F.reshape(x, (n, c, h // b0, b0, w // b1, b1))
        return F.reshape(F.transpose(x, (3, 5, 0, 1, 2, 4)), (b0 * b1 * n, c, h // b0, w // b1))


class BatchToSpaceND(PrimitiveOp):
    """`ops.BatchToSpaceND(block_shape, crops)(x)`: the inverse of `SpaceToBatchND`, then `crops` off H, W."""

    name = "BatchToSpaceND"

    def __init__(self, block_shape, crops) -> None:
        super().__init__()
        self.block_shape = (block_shape,) * 2 if isinstance(block_shape, int) else tuple(block_shape)
        self.crops = tuple(tuple(int(v) for v in p) for p in crops)

    def __call__(self, input_x):
        (b0, b1), (nb, c, h, w) = self.block_shape, input_x.shape
        if nb % (b0 * b1):
            raise ValueError(f"BatchToSpaceND: batch {nb} is not divisible by {b0 * b1}")
        n = nb // (b0 * b1)
        x = F.reshape(input_x, (b0, b1, n, c, h, w))
        x = F.reshape(F.transpose(x, (2, 3, 4, 0, 5, 1)), (n, c, h * b0, w * b1))
        (t, b), (left, r) = self.crops
        return x[:, :, t:h * b0 - b, left:w * b1 - r]


def _pairs(op: str, what: str, v, m: int | None = 2) -> tuple[tuple[int, int], ...]:
    """`v` as (M, 2) non-negative ints (MindSpore's `crops` / `paddings`)."""
    rows = np.asarray(v.asnumpy() if isinstance(v, Tensor) else v)
    if rows.ndim != 2 or rows.shape[1] != 2 or (m is not None and rows.shape[0] != m) or \
            not np.issubdtype(rows.dtype, np.integer):
        want = f"({m}, 2)" if m is not None else "(M, 2)"
        raise ValueError(f"{op}: {what} must be {want} ints, got {v!r}")
    if (rows < 0).any():
        raise ValueError(f"{op}: {what} elements must be non-negative, got {rows.tolist()}")
    return tuple((int(a), int(b)) for a, b in rows)


def _block_size(op: str, block_size) -> int:
    if not isinstance(block_size, int) or isinstance(block_size, bool):
        raise TypeError(f"{op}: block_size must be an int, got {block_size!r}")
    if block_size < 2:
        raise ValueError(f"{op}: block_size must be >= 2, got {block_size}")
    return block_size


def _four_d(op: str, x) -> None:
    if x.ndim != 4:
        raise ValueError(f"{op}: input_x must be 4-d (N, C, H, W), got shape {tuple(x.shape)}")


class SpaceToBatch(SpaceToBatchND):
    """`ops.SpaceToBatch(block_size, paddings)(input_x)`: `SpaceToBatchND` with the block (block_size,
    block_size) on NCHW's H, W (MindSpore's deprecated spelling, no CPU kernel there)."""

    name = "SpaceToBatch"

    def __init__(self, block_size: int, paddings) -> None:
        super().__init__(_block_size(self.name, block_size), _pairs(self.name, "paddings", paddings))
        self.block_size = block_size

    def __call__(self, input_x):
        _four_d(self.name, input_x)
        return super().__call__(input_x)


class BatchToSpace(BatchToSpaceND):
    """`ops.BatchToSpace(block_size, crops)(input_x)`: `BatchToSpaceND` with the block (block_size, block_size)
    (MindSpore's deprecated spelling, no CPU kernel there)."""

    name = "BatchToSpace"

    def __init__(self, block_size: int, crops) -> None:
        super().__init__(_block_size(self.name, block_size), _pairs(self.name, "crops", crops))
        self.block_size = block_size

    def __call__(self, input_x):
        _four_d(self.name, input_x)
        return super().__call__(input_x)


class BatchToSpaceNDV2(PrimitiveOp):
    """`ops.BatchToSpaceNDV2()(input_x, block_shape, crops)`: the batch split into prod(block_shape) blocks
    interleaved into the last M dims (M = len(block_shape)), then `crops` cut off them. `block_shape` and
    `crops` set the result's shape, so they must be known when a graph is built (a constant under jit)."""

    name = "BatchToSpaceNDV2"

    def __init__(self) -> None:  # MindSpore's signature: no arguments
        super().__init__()

    def __call__(self, input_x, block_shape, crops):
        op = self.name
        block = static_values(op, "block_shape", block_shape).reshape(-1)
        if not np.issubdtype(block.dtype, np.integer) or block.size < 1 or (block < 1).any():
            raise ValueError(f"{op}: block_shape must be 1-D ints >= 1, got {block.tolist()}")
        m = block.size
        cuts = _pairs(op, "crops", static_values(op, "crops", crops), m)
        shape = tuple(input_x.shape)
        if len(shape) < m + 1:
            raise ValueError(f"{op}: input_x must have at least {m + 1} dims for {m} block dims, got {shape}")
        nb, total = shape[0], int(np.prod(block))
        if nb % total:
            raise ValueError(f"{op}: the batch {nb} is not divisible by prod(block_shape) = {total}")
        lead, spatial = shape[1:len(shape) - m], shape[len(shape) - m:]
        for s, b, (lo, hi) in zip(spatial, block, cuts):
            if lo + hi >= s * b:
                raise ValueError(f"{op}: crops {list(cuts)} remove all of a dim of {s} * {int(b)} (input {shape})")
        b = tuple(int(v) for v in block)
        x = F.reshape(input_x, b + (nb // total,) + lead + spatial)
        k = len(lead)
        perm = (m,) + tuple(range(m + 1, m + 1 + k)) + tuple(a for i in range(m) for a in (m + 1 + k + i, i))
        x = F.reshape(F.transpose(x, perm), (nb // total,) + lead + tuple(s * v for s, v in zip(spatial, b)))
        index = (slice(None),) * (1 + k) + tuple(slice(lo, s * v - hi) for s, v, (lo, hi) in zip(spatial, b, cuts))
        return x[index]


class CheckValid(PrimitiveOp):
    """`ops.CheckValid()(bboxes, img_metas)`: a box (x0, y0, x1, y1) is valid when it lies inside the image
    (height, width, ratio): x0, y0 >= 0, x1 <= width * ratio - 1, y1 <= height * ratio - 1."""

    name = "CheckValid"

    def __call__(self, bboxes, img_metas):
        x0, y0, x1, y1 = F.unstack(bboxes, -1)
        h, w, ratio = F.unstack(img_metas, -1)
        ok = F.logical_and(F.greater_equal(x0, 0.0), F.greater_equal(y0, 0.0))
        ok = F.logical_and(ok, F.less_equal(x1, F.sub(F.mul(w, ratio), 1.0)))
        return F.logical_and(ok, F.less_equal(y1, F.sub(F.mul(h, ratio), 1.0)))


# ------------------------------------------------------------------ their functional spellings (`ops.iou`, ...)

@expose(ops="iou")
def iou(anchor_boxes, gt_boxes, mode: str = "iou"):
    """`ops.iou`: `IOU(mode)(anchor_boxes, gt_boxes)`."""
    return IOU(mode)(anchor_boxes, gt_boxes)


@expose(ops="intopk")
def intopk(x1, x2, k: int):
    """`ops.intopk`: `InTopK(k)(x1, x2)`."""
    return InTopK(k)(x1, x2)


@expose(ops="scalar_to_array")
def scalar_to_array(input_x):
    return ScalarToArray()(input_x)


@expose(ops="type_as")
def type_as(input, other):
    return TypeAs()(input, other)


@expose(ops="check_valid")
def check_valid(bboxes, img_metas):
    return CheckValid()(bboxes, img_metas)


@expose(ops="batch_to_space_nd")
def batch_to_space_nd(input_x, block_shape, crops):
    return BatchToSpaceND(block_shape, crops)(input_x)


@expose(ops="space_to_batch_nd")
def space_to_batch_nd(input_x, block_size, paddings):
    return SpaceToBatchND(block_size, paddings)(input_x)


@expose(ops="msort", tensor="msort")
def msort(input):
    """The values sorted along the first dim (`ops.sort(input, 0)[0]`)."""
    return F.sort(input, 0)[0]


@expose(ops="deepcopy")
def deepcopy(input_x):
    """A new Tensor with the same values (its own buffer)."""
    return F.add(input_x, F.zeros_like(input_x))


__all__ = ["BatchToSpace", "BatchToSpaceND", "BatchToSpaceNDV2", "CheckValid", "CountNonZero", "DType",
           "EmbeddingLookup", "EqualCount", "HookBackward", "IOU", "iou", "InTopK", "Partial", "ScalarToArray",
           "SpaceToBatch", "SpaceToBatchND", "TypeAs", "batch_to_space_nd", "check_valid", "deepcopy", "intopk",
           "msort", "scalar_to_array", "space_to_batch_nd", "type_as"]
