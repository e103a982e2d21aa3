"""Detection, argmax-pooling and CTC class ops beyond the goldens (tests/golden_ops/case_detection.py): the
documented rule of NonMaxSuppressionV3 (no MindSpore CPU kernel), eager-only refusals under jit in every
capture mode, gradients, and bad input named in msx errors."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import Tensor, ops
from msx.errors import MsxError

MODES = ("ast", "bytecode", "trace")
_BOXES = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [5, 5, 0, 0], [21, 21, 31, 31],
                   [3, 3, 3, 8]], np.float32)
_SCORES = np.array([0.5, 0.8, 0.7, 0.95, 0.3, 0.99], np.float32)


def _nms_v3(boxes, scores, k, iou_t, score_t):
    def iou(a, b):
        a = np.r_[np.minimum(a[:2], a[2:]), np.maximum(a[:2], a[2:])]
        b = np.r_[np.minimum(b[:2], b[2:]), np.maximum(b[:2], b[2:])]
        area = lambda c: (c[2] - c[0]) * (c[3] - c[1])
        if area(a) <= 0 or area(b) <= 0:
            return 0.0
        wh = np.maximum(np.minimum(a[2:], b[2:]) - np.maximum(a[:2], b[:2]), 0)
        inter = wh[0] * wh[1]
        return inter / (area(a) + area(b) - inter)
    kept = []
    for i in sorted(range(len(scores)), key=lambda i: -scores[i]):
        if scores[i] > score_t and all(iou(boxes[i], boxes[j]) <= iou_t for j in kept):
            kept.append(i)
    return np.asarray(kept[:k], np.int32)


@pytest.mark.parametrize("k,iou_t,score_t", [(10, 0.3, 0.0), (2, 0.3, 0.0), (10, 0.7, 0.6), (10, 0.0, 0.0)])
def test_non_max_suppression_v3_follows_its_documented_rule(k, iou_t, score_t):
    got = ops.NonMaxSuppressionV3()(Tensor(_BOXES), Tensor(_SCORES), Tensor(np.array(k, np.int32)),
                                    Tensor(np.array(iou_t, np.float32)), Tensor(np.array(score_t, np.float32)))
    want = _nms_v3(_BOXES, _SCORES, k, iou_t, score_t)
    assert got.dtype == msx.int32
    np.testing.assert_array_equal(got.asnumpy(), want)


def _v3(b, s):
    return ops.NonMaxSuppressionV3()(b, s, Tensor(np.array(3, np.int32)), Tensor(np.array(0.3, np.float32)),
                                     Tensor(np.array(0.0, np.float32)))


def _greedy(x, seq):
    return ops.CTCGreedyDecoder()(x, seq)[1]


def _overlaps(o, s):
    return ops.NonMaxSuppressionWithOverlaps()(o, s, Tensor(np.array(2, np.int32)),
                                               Tensor(np.array(0.5, np.float32)), Tensor(np.array(0.0, np.float32)))


def _adaptive(x, size):
    return ops.AdaptiveMaxPool3D()(x, size)[0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn,name,inputs", [
    (_v3, "NonMaxSuppressionV3", (_BOXES, _SCORES)),
    (_greedy, "CTCGreedyDecoder", (np.zeros((3, 2, 4), np.float32), np.array([3, 2], np.int32))),
    (_overlaps, "NonMaxSuppressionWithOverlaps", (np.eye(3, dtype=np.float32), np.ones(3, np.float32))),
    (_adaptive, "AdaptiveMaxPool3D", (np.zeros((1, 1, 2, 2, 2), np.float32), np.array([1, 1, 1], np.int32))),
])
def test_value_dependent_shapes_are_refused_under_jit_by_name(mode, fn, name, inputs):
    jitted = msx.jit(fn, capture_mode=mode)
    with pytest.raises(MsxError, match=f"{name}: the result's shape depends on the input values"):
        jitted(*[Tensor(a) for a in inputs])


@pytest.mark.parametrize("mode", MODES)
def test_static_shape_ops_run_under_every_capture_mode(mode):
    rng = np.random.default_rng(3)
    x = Tensor(rng.standard_normal((1, 2, 5, 6)).astype(np.float32))
    boxes = Tensor(np.c_[_BOXES, _SCORES].astype(np.float32))
    rois = Tensor(np.array([[0, 0.5, 0.5, 4.2, 3.7], [0, 1, 0, 5, 4]], np.float32))
    x5 = Tensor(rng.standard_normal((1, 1, 3, 4, 4)).astype(np.float32))

    def f(x, boxes, rois, x5):
        a, ia = ops.MaxPoolWithArgmax(2, 2, "same")(x)
        b, ib = ops.MaxPoolWithArgmaxV2(2, 1, 1, ceil_mode=True)(x)
        c, ic = ops.MaxPool3DWithArgmax(2, 1, 0)(x5)
        _, _, keep = ops.NMSWithMask(0.3)(boxes)
        r = ops.ROIAlign(2, 2, 1.0)(x, rois)
        return a, ia, b, ib, c, ic, keep, r

    eager = f(x, boxes, rois, x5)
    for _ in range(2):  # the capture call and a compiled call
        got = msx.jit(f, capture_mode=mode)(x, boxes, rois, x5)
        for g, e in zip(got, eager):
            assert g.dtype == e.dtype
            np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-6, atol=1e-6)


_LOGITS = np.random.default_rng(5).standard_normal((5, 2, 4))
_IDX = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], np.int64)
_VAL = np.array([1, 1, 2, 0, 2], np.int32)
_SEQ = np.array([5, 4], np.int32)


@pytest.mark.parametrize("init", [{}, dict(ctc_merge_repeated=False), dict(preprocess_collapse_repeated=True)])
def test_ctc_loss_gradient_is_its_gradient_output_and_finite_differences(init):
    op = ops.CTCLoss(**init)
    w = np.array([0.7, -1.3])

    def loss(x):
        return (op(x, Tensor(_IDX), Tensor(_VAL), Tensor(_SEQ))[0] * Tensor(w)).sum()

    x = Tensor(_LOGITS)
    got = msx.grad(loss)(x).asnumpy()
    _, g_out = op(x, Tensor(_IDX), Tensor(_VAL), Tensor(_SEQ))
    np.testing.assert_allclose(got, g_out.asnumpy() * w[None, :, None], rtol=1e-6, atol=1e-9)
    eps, want = 1e-6, np.zeros_like(_LOGITS)
    for i in np.ndindex(_LOGITS.shape):
        up, down = _LOGITS.copy(), _LOGITS.copy()
        up[i] += eps
        down[i] -= eps
        want[i] = (loss(Tensor(up)).asnumpy() - loss(Tensor(down)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_ctc_loss_gradient_under_jit():
    op = ops.CTCLoss()
    x = Tensor(_LOGITS.astype(np.float32))
    step = msx.jit(msx.grad(lambda x: op(x, Tensor(_IDX), Tensor(_VAL), Tensor(_SEQ))[0].sum()))
    np.testing.assert_allclose(step(x).asnumpy(), op(x, Tensor(_IDX), Tensor(_VAL), Tensor(_SEQ))[1].asnumpy(),
                               rtol=1e-5, atol=1e-6)


def test_ctc_loss_longer_labels_than_inputs():
    """MindSpore 2.10 CPU: an error, or with ignore_longer_outputs_than_inputs an inf loss and a zero gradient."""
    seq = Tensor(np.array([2, 4], np.int32))
    with pytest.raises(MsxError, match="CTCLoss.*label length"):
        ops.CTCLoss()(Tensor(_LOGITS), Tensor(_IDX), Tensor(_VAL), seq)
    loss, grad = ops.CTCLoss(ignore_longer_outputs_than_inputs=True)(Tensor(_LOGITS), Tensor(_IDX), Tensor(_VAL),
                                                                        seq)
    assert np.isinf(loss.asnumpy()[0]) and np.isfinite(loss.asnumpy()[1])
    assert not grad.asnumpy()[:, 0].any() and grad.asnumpy()[:, 1].any()


def test_max_pool_argmax_gradient_goes_to_the_argmax():
    x = Tensor(np.random.default_rng(2).standard_normal((1, 2, 4, 4)).astype(np.float32))
    _, idx = ops.MaxPoolWithArgmaxV2(2, 2)(x)
    g = msx.grad(lambda x: ops.MaxPoolWithArgmaxV2(2, 2)(x)[0].sum())(x).asnumpy().reshape(1, 2, -1)
    want = np.zeros_like(g)
    np.put_along_axis(want, idx.asnumpy().reshape(1, 2, -1), 1.0, axis=2)
    np.testing.assert_array_equal(g, want)


def test_roi_align_gradient_matches_finite_differences():
    """ROIAlign is linear in the features: central differences of any step are exact (up to float32 rounding)."""
    feat = np.random.default_rng(4).standard_normal((1, 1, 5, 5)).astype(np.float32)
    rois = Tensor(np.array([[0, 0.5, 0.5, 3.2, 2.7]], np.float32))
    op = ops.ROIAlign(2, 2, 1.0)
    loss = lambda f: (op(f, rois) * Tensor(np.array([1.0, -2.0, 0.5, 3.0]).reshape(1, 1, 2, 2))).sum()
    got = msx.grad(loss)(Tensor(feat)).asnumpy()
    want = np.zeros_like(feat)
    for i in np.ndindex(feat.shape):
        up, down = feat.copy(), feat.copy()
        up[i] += 1.0
        down[i] -= 1.0
        want[i] = (loss(Tensor(up)).asnumpy() - loss(Tensor(down)).asnumpy()) / 2.0
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("call,match", [
    (lambda: ops.NMSWithMask()(Tensor(np.zeros((3, 4), np.float32))), r"NMSWithMask: bboxes must have shape"),
    (lambda: ops.NMSWithMask(1.5)(Tensor(np.zeros((2, 5), np.float32))), r"NMSWithMask.*iou_threshold"),
    (lambda: ops.ROIAlign(2, 2, 1.0)(Tensor(np.zeros((1, 1, 4, 4), np.float32)), Tensor(np.zeros((2, 4),
                                                                                              np.float32))),
     r"ROIAlign: rois must have shape \(R, 5\).*float32\(2, 4\)"),
    (lambda: ops.ROIAlign(2, 2, 1.0, sample_num=0)(Tensor(np.zeros((1, 1, 4, 4), np.float32)),
                                                   Tensor(np.zeros((1, 5), np.float32))), r"ROIAlign: sample_num=0"),
    (lambda: ops.MaxPoolWithArgmax(2, 2)(Tensor(np.zeros((2, 4, 4), np.float32))),
     r"MaxPoolWithArgmax: x must be 4-d"),
    (lambda: ops.MaxPoolWithArgmax(2, 2, data_format="NHWC")(Tensor(np.zeros((1, 1, 4, 4), np.float32))), r"MaxPoolWithArgmax: data_format='NHWC'"),
    (lambda: ops.MaxPoolWithArgmax(2, 2, "full")(Tensor(np.zeros((1, 1, 4, 4), np.float32))), r"MaxPoolWithArgmax: pad_mode"),
    (lambda: ops.MaxPoolWithArgmax(8)(Tensor(np.zeros((1, 1, 4, 4), np.float32))), r"MaxPoolWithArgmax: kernel"),
    (lambda: ops.MaxPoolWithArgmaxV2(2, argmax_type=msx.float32)(Tensor(np.zeros((1, 1, 4, 4), np.float32))),
     r"argmax_type"),
    (lambda: ops.MaxPoolWithArgmaxV2(2, pads=2)(Tensor(np.zeros((1, 1, 4, 4), np.float32))),
     r"MaxPoolWithArgmaxV2: pads"),
    (lambda: ops.MaxPool3DWithArgmax(2, 1, 0, data_format="NDHWC")(Tensor(np.zeros((1, 1, 2, 2, 2), np.float32))),
     r"MaxPool3DWithArgmax: data_format"),
    (lambda: ops.MaxPool3DWithArgmax(2, 1, 0)(Tensor(np.zeros((1, 1, 4, 4), np.int32))),
     r"MaxPool3DWithArgmax: x must be 5-d"),
    (lambda: ops.AdaptiveMaxPool3D()(Tensor(np.zeros((1, 1, 2, 2, 2), np.float32)), Tensor(np.array([1, 1]))),
     r"AdaptiveMaxPool3D: output_size must hold 3"),
    (lambda: ops.CTCLoss()(Tensor(_LOGITS), Tensor(_IDX[:, :1]), Tensor(_VAL), Tensor(_SEQ)),
     r"CTCLoss: labels_indices must have shape \(M, 2\)"),
    (lambda: ops.CTCLoss()(Tensor(_LOGITS), Tensor(_IDX), Tensor(_VAL + 2), Tensor(_SEQ)),
     r"CTCLoss: labels_values must be in \[0, 3\)"),
    (lambda: ops.CTCGreedyDecoder()(Tensor(_LOGITS.astype(np.float32)), Tensor(np.array([5, 9], np.int32))),
     r"CTCGreedyDecoder: sequence_length must be in \[1, 5\]"),
    (lambda: ops.CTCGreedyDecoder()(Tensor(_LOGITS.astype(np.float32)), Tensor(_SEQ.astype(np.int64))),
     r"CTCGreedyDecoder: sequence_length must be int32"),
    (lambda: _v3(Tensor(_BOXES), Tensor(_SCORES[:3])), r"NonMaxSuppressionV3: scores must have shape \(6,\)"),
    (lambda: ops.NonMaxSuppressionV3()(Tensor(_BOXES), Tensor(_SCORES), Tensor(np.array(-1, np.int32)),
                                       Tensor(np.array(0.5, np.float32)), Tensor(np.array(0.0, np.float32))),
     r"NonMaxSuppressionV3: max_output_size must not be negative"),
    (lambda: _overlaps(Tensor(np.zeros((3, 2), np.float32)), Tensor(np.ones(3, np.float32))),
     r"NonMaxSuppressionWithOverlaps: overlaps must be a square"),
    (lambda: ops.CombinedNonMaxSuppression()(Tensor(np.zeros((1, 3, 2, 4), np.float32)),
                                             Tensor(np.zeros((1, 3, 3), np.float32)), Tensor(np.array(2, np.int32)),
                                             Tensor(np.array(3, np.int32)), Tensor(np.array(0.5, np.float32)),
                                             Tensor(np.array(0.1, np.float32))),
     r"CombinedNonMaxSuppression: boxes' q \(2\) must be 1 or num_classes \(3\)"),
])
def test_bad_input_is_named(call, match):
    with pytest.raises((MsxError, ValueError, TypeError), match=match) as info:
        call()
    assert "jax" not in type(info.value).__module__


def test_signatures_are_mindspores():
    import inspect
    assert list(inspect.signature(ops.ROIAlign.__init__).parameters)[1:] == [
        "pooled_height", "pooled_width", "spatial_scale", "sample_num", "roi_end_mode"]
    assert list(inspect.signature(ops.MaxPool3DWithArgmax.__init__).parameters)[1:] == [
        "ksize", "strides", "pads", "dilation", "ceil_mode", "data_format", "argmax_type"]
    assert list(inspect.signature(ops.CTCLoss.__init__).parameters)[1:] == [
        "preprocess_collapse_repeated", "ctc_merge_repeated", "ignore_longer_outputs_than_inputs"]
    assert ops.operations.CombinedNonMaxSuppression is ops.CombinedNonMaxSuppression


_X = np.random.default_rng(8).standard_normal((1, 2, 4, 5))
_X5D = np.random.default_rng(9).standard_normal((1, 1, 3, 4, 4))


@pytest.mark.parametrize("fn,x", [
    (lambda x: ops.MaxPoolWithArgmax(2, 2, "same")(x)[0], _X),
    (lambda x: ops.MaxPoolWithArgmaxV2(2, 1, 1, (1, 2))(x)[0], _X),
    (lambda x: ops.MaxPool3DWithArgmax(2, (1, 2, 2), 1, ceil_mode=True)(x)[0], _X5D),
    (lambda x: ops.AdaptiveMaxPool3D()(x, Tensor(np.array([2, 3, 2], np.int32)))[0], _X5D),
], ids=["MaxPoolWithArgmax", "MaxPoolWithArgmaxV2", "MaxPool3DWithArgmax", "AdaptiveMaxPool3D"])
def test_pooling_gradients_match_finite_differences(fn, x):
    w = Tensor(np.random.default_rng(1).standard_normal(fn(Tensor(x)).shape))

    def loss(t):
        return (fn(t) * w).sum()

    got = msx.grad(loss)(Tensor(x)).asnumpy()
    want = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += 1e-6
        down[i] -= 1e-6
        want[i] = (loss(Tensor(up)).asnumpy() - loss(Tensor(down)).asnumpy()) / 2e-6
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# gradients checked here by finite differences (tests/test_ops.py counts them)
FD_CHECKED_GRADS = {"MaxPoolWithArgmax", "MaxPoolWithArgmaxV2", "MaxPool3DWithArgmax", "AdaptiveMaxPool3D", "CTCLoss",
                    "ROIAlign"}
