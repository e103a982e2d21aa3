"""`ops.SpaceToBatch`, `ops.BatchToSpace`, `ops.BatchToSpaceNDV2` (msx/ops/array_classes.py). MindSpore 2.10's CPU
build has no kernel for them ("Unsupported op ... on CPU"), so the reference is TensorFlow's documented rule
written out as loops here: input batch (i_0 * b_1 + i_1) * N + n holds the block offset (i_0, i_1) of sample n."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import ops

_RNG = np.random.default_rng(2)


def _batch_to_space_ref(x: np.ndarray, block, crops) -> np.ndarray:
    m = len(block)
    nb, spatial = x.shape[0], x.shape[x.ndim - m:]
    n = nb // int(np.prod(block))
    out = np.zeros((n,) + x.shape[1:x.ndim - m] + tuple(s * b for s, b in zip(spatial, block)), x.dtype)
    for ib in range(nb):
        offs, sample = np.unravel_index(ib // n, block), ib % n
        for pos in np.ndindex(*spatial):
            target = tuple(p * b + o for p, b, o in zip(pos, block, offs))
            out[(sample, Ellipsis) + target] = x[(ib, Ellipsis) + pos]
    return out[(slice(None), Ellipsis) + tuple(slice(lo, s - hi) for s, (lo, hi) in zip(out.shape[-m:], crops))]


def test_space_to_batch_then_back():
    x = _RNG.standard_normal((2, 3, 3, 5)).astype(np.float32)
    pads = [[1, 0], [0, 1]]
    y = ops.SpaceToBatch(2, pads)(msx.Tensor(x))
    assert y.shape == (8, 3, 2, 3)
    padded = np.pad(x, ((0, 0), (0, 0), (1, 0), (0, 1)))
    np.testing.assert_array_equal(_batch_to_space_ref(y.asnumpy(), (2, 2), ((0, 0), (0, 0))), padded)
    back = ops.BatchToSpace(2, pads)(y)
    np.testing.assert_array_equal(back.asnumpy(), x)


def test_batch_to_space_against_the_rule_eager_and_jit():
    x = _RNG.standard_normal((9, 2, 2, 3)).astype(np.float32)
    op = ops.BatchToSpace(3, [[1, 2], [0, 1]])
    want = _batch_to_space_ref(x, (3, 3), ((1, 2), (0, 1)))
    np.testing.assert_array_equal(op(msx.Tensor(x)).asnumpy(), want)
    np.testing.assert_array_equal(msx.jit(op)(msx.Tensor(x)).asnumpy(), want)


@pytest.mark.parametrize("shape, block, crops", [((4, 1, 1, 1), (2, 2), ((0, 0), (0, 0))),
                                                 ((6, 5), (3,), ((1, 1),)),
                                                 ((8, 2, 3, 2, 2), (2, 1, 4), ((0, 1), (1, 0), (2, 3)))])
def test_batch_to_space_nd_v2(shape, block, crops):
    x = _RNG.standard_normal(shape).astype(np.float32)
    got = ops.BatchToSpaceNDV2()(msx.Tensor(x), msx.Tensor(np.array(block, np.int32)), crops)
    np.testing.assert_array_equal(got.asnumpy(), _batch_to_space_ref(x, block, crops))
    if len(shape) == 4:  # the 2-d block over NCHW is BatchToSpaceND (checked against MindSpore)
        np.testing.assert_array_equal(got.asnumpy(), ops.BatchToSpaceND(list(block), crops)(msx.Tensor(x)).asnumpy())


def test_batch_to_space_nd_v2_under_jit_needs_constants():
    x = msx.Tensor(_RNG.standard_normal((4, 1, 2, 2)).astype(np.float32))
    blk = msx.Tensor(np.array([2, 2], np.int32))
    f = msx.jit(lambda x: ops.BatchToSpaceNDV2()(x, msx.Tensor(np.array([2, 2], np.int32)), [[0, 0], [0, 1]]))
    np.testing.assert_array_equal(f(x).asnumpy(), ops.BatchToSpaceNDV2()(x, blk, [[0, 0], [0, 1]]).asnumpy())
    g = msx.jit(lambda x, b: ops.BatchToSpaceNDV2()(x, b, [[0, 0], [0, 0]]))
    with pytest.raises(msx.errors.OpError, match="BatchToSpaceNDV2: the result's shape depends on .*block_shape"):
        g(x, blk)


def test_errors_name_the_op():
    x = msx.Tensor(np.zeros((4, 1, 2, 2), np.float32))
    with pytest.raises(ValueError, match="BatchToSpace: block_size must be >= 2"):
        ops.BatchToSpace(1, [[0, 0], [0, 0]])
    with pytest.raises(TypeError, match="SpaceToBatch: block_size must be an int"):
        ops.SpaceToBatch(2.0, [[0, 0], [0, 0]])
    with pytest.raises(ValueError, match="SpaceToBatch: paddings elements must be non-negative"):
        ops.SpaceToBatch(2, [[0, -1], [0, 0]])
    with pytest.raises(ValueError, match=r"BatchToSpace: crops must be \(2, 2\) ints"):
        ops.BatchToSpace(2, [[0, 0]])
    with pytest.raises(ValueError, match="BatchToSpace: input_x must be 4-d"):
        ops.BatchToSpace(2, [[0, 0], [0, 0]])(x.reshape(4, 4))
    with pytest.raises(ValueError, match="BatchToSpaceNDV2: the batch 4 is not divisible"):
        ops.BatchToSpaceNDV2()(x, msx.Tensor(np.array([3], np.int32)), [[0, 0]])
    with pytest.raises(ValueError, match="BatchToSpaceNDV2: crops"):
        ops.BatchToSpaceNDV2()(x, msx.Tensor(np.array([2, 2], np.int32)), [[0, 0]])
