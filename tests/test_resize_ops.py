"""Resize/upsample class ops (msx/ops/resize_ops.py) beyond their golden cases (tests/golden_ops/case_resize.py):
bad input named by the op, shape-giving Tensors under every jit capture mode, gradients (the image, and
CropAndResize's boxes against MindSpore 2.10's recorded answer), float16."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import Tensor, ops
from msx.errors import OpError, OpIndexError, OpTypeError

# primitives whose gradients this file checks (their golden cases give float32, too coarse for the harness's
# float64 finite differences; tests/test_ops.py's coverage test counts them)
FD_CHECKED_GRADS = {"CropAndResize", "ResizeArea", "ScaleAndTranslate"}
MODES = ("ast", "bytecode", "trace")
_RNG = np.random.default_rng(3)
X = Tensor(_RNG.standard_normal((1, 2, 3, 4)).astype(np.float32))
NHWC = Tensor(_RNG.standard_normal((2, 4, 5, 2)).astype(np.float32))
X3 = Tensor(_RNG.standard_normal((1, 1, 2, 3, 4)).astype(np.float32))
BOXES = Tensor(np.array([[0.1, 0.2, 0.8, 0.9], [0.9, 0.7, 0.2, 0.1]], np.float32))
BOX_INDEX = Tensor(np.array([0, 1], np.int32))


# ------------------------------------------------------------------ bad input: an msx error naming the op
@pytest.mark.parametrize("call,err,words", [
    (lambda: ops.ResizeBilinearV2()(Tensor(np.zeros((2, 3, 4), np.float32)), (3, 3)), OpError,
     ["ResizeBilinearV2", "4-D", "(2, 3, 4)"]),
    (lambda: ops.ResizeBilinearV2()(Tensor(np.zeros((1, 2, 3, 4), np.int32)), (3, 3)), OpTypeError,
     ["ResizeBilinearV2", "dtype", "int32"]),
    (lambda: ops.ResizeBilinearV2()(X, (3,)), OpError, ["ResizeBilinearV2", "size", "2 positive ints"]),
    (lambda: ops.ResizeBicubic()(X, (3, 0)), OpError, ["ResizeBicubic", "size", "(3, 0)"]),
    (lambda: ops.ResizeNearestNeighborV2()(X, Tensor(np.array([3.0, 4.0], np.float32))), OpTypeError,
     ["ResizeNearestNeighborV2", "size", "ints"]),
    (lambda: ops.ResizeNearestNeighborV2()(X, Tensor(np.array([[3, 4]], np.int32))), OpError,
     ["ResizeNearestNeighborV2", "1-D"]),
    (lambda: ops.ResizeNearestNeighborV2()(Tensor(np.zeros((1, 1, 2, 2), np.int64)), (3, 3)), OpTypeError,
     ["ResizeNearestNeighborV2", "dtype", "int64"]),
    (lambda: ops.ResizeBilinearV2(True, True)(X, (3, 3)), OpError,
     ["ResizeBilinearV2", "half_pixel_centers", "align_corners"]),
    (lambda: ops.ResizeBicubic(align_corners=1)(X, (3, 3)), OpTypeError, ["ResizeBicubic", "align_corners", "bool"]),
    (lambda: ops.ResizeArea()(X[0], Tensor(np.array([2, 2], np.int32))), OpError, ["ResizeArea", "4-D"]),
    (lambda: ops.ResizeArea()(Tensor(np.zeros((1, 2, 2, 1), np.complex64)), (2, 2)), OpTypeError,
     ["ResizeArea", "dtype", "complex64"]),
    (lambda: ops.ResizeLinear1D("asymmetric")(Tensor(np.zeros((1, 2, 3), np.float32)), (3,)), OpError,
     ["ResizeLinear1D", "coordinate_transformation_mode", "asymmetric"]),
    (lambda: ops.ResizeLinear1D()(X, (3,)), OpError, ["ResizeLinear1D", "3-D"]),
    (lambda: ops.UpsampleNearest3D()(X3), OpError, ["UpsampleNearest3D", "exactly one of output_size and scales"]),
    (lambda: ops.UpsampleTrilinear3D()(X3, (2, 2, 2), (1.0, 1.0, 1.0)), OpError,
     ["UpsampleTrilinear3D", "exactly one"]),
    (lambda: ops.UpsampleTrilinear3D()(X3, (2, 2)), OpError, ["UpsampleTrilinear3D", "output_size", "3 positive"]),
    (lambda: ops.UpsampleNearest3D()(X3, None, (1.0, -2.0, 1.0)), OpError, ["UpsampleNearest3D", "scales"]),
    (lambda: ops.UpsampleNearest3D()(X, (2, 2, 2)), OpError, ["UpsampleNearest3D", "5-D"]),
    (lambda: ops.CropAndResize()(NHWC, Tensor(np.zeros((2, 3), np.float32)), BOX_INDEX, (2, 2)), OpError,
     ["CropAndResize", "boxes", "(2, 3)"]),
    (lambda: ops.CropAndResize()(NHWC, BOXES, Tensor(np.array([0, 2], np.int32)), (2, 2)), OpIndexError,
     ["CropAndResize", "box_index", "[0, 2)"]),
    (lambda: ops.CropAndResize()(NHWC, BOXES, Tensor(np.array([0], np.int32)), (2, 2)), OpError,
     ["CropAndResize", "box_index", "one entry per box"]),
    (lambda: ops.CropAndResize("bicubic")(NHWC, BOXES, BOX_INDEX, (2, 2)), OpError, ["CropAndResize", "method"]),
    (lambda: ops.CropAndResize(extrapolation_value="0")(NHWC, BOXES, BOX_INDEX, (2, 2)), OpTypeError,
     ["CropAndResize", "extrapolation_value"]),
    (lambda: ops.ScaleAndTranslate("cubic")(NHWC, (2, 2), Tensor(np.ones(2, np.float32)),
                                            Tensor(np.zeros(2, np.float32))), OpError,
     ["ScaleAndTranslate", "kernel_type", "cubic"]),
    (lambda: ops.ScaleAndTranslate()(NHWC, (2, 2), Tensor(np.ones(3, np.float32)), Tensor(np.zeros(2, np.float32))),
     OpError, ["ScaleAndTranslate", "scale", "(2,)"]),
])
def test_bad_input_names_the_op(call, err, words):
    with pytest.raises(err) as info:
        call()
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def _resize_with_size_input(x, size):
    return ops.ResizeBilinearV2()(x, size)


def _resize_with_constant_size(x):
    return ops.ResizeBicubic(half_pixel_centers=True)(x, Tensor(np.array([5, 6], np.int32)))


@pytest.mark.parametrize("mode", MODES)
def test_a_size_that_is_a_graph_input_is_refused_by_name(mode):
    with pytest.raises(OpError, match="ResizeBilinearV2: size must be known when the graph is built"):
        msx.jit(_resize_with_size_input, capture_mode=mode)(X, Tensor(np.array([3, 5], np.int32)))


@pytest.mark.parametrize("mode", MODES)
def test_a_constant_size_tensor_works_under_jit(mode):
    want = _resize_with_constant_size(X).asnumpy()
    got = msx.jit(_resize_with_constant_size, capture_mode=mode)(X).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


# ------------------------------------------------------------------ every op, eager == jit in every capture mode
def _all_ops(x, nhwc, x3, boxes, box_index, scale):
    return (ops.ResizeBilinearV2(align_corners=True)(x, (5, 7)),
            ops.ResizeNearestNeighborV2(half_pixel_centers=True)(x, (2, 7)),
            ops.ResizeBicubic()(x, (4, 3)),
            ops.ResizeArea()(nhwc, (3, 7)),
            ops.ResizeLinear1D("half_pixel")(x[0], (6,)),
            ops.UpsampleNearest3D()(x3, None, (1.5, 2.0, 1.3)),
            ops.UpsampleTrilinear3D(True)(x3, (3, 4, 5)),
            ops.CropAndResize("bilinear", -1.0)(nhwc, boxes, box_index, (3, 4)),
            ops.ScaleAndTranslate("keyscubic")(nhwc, (3, 6), scale, Tensor(np.array([0.2, -0.3], np.float32))))


@pytest.mark.parametrize("mode", MODES)
def test_jit_equals_eager_in_every_capture_mode(mode):
    args = (X, NHWC, X3, BOXES, BOX_INDEX, Tensor(np.array([0.8, 1.3], np.float32)))
    eager = _all_ops(*args)
    jitted = msx.jit(_all_ops, capture_mode=mode)
    for _ in range(2):  # the capture call and a compiled call
        for g, e in zip(jitted(*args), eager):
            assert g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ gradients
def _finite_difference(f, x: np.ndarray, eps: float) -> np.ndarray:
    want = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        want[i] = (f(up) - f(down)) / (2 * eps)
    return want


_W = _RNG.standard_normal((2, 3, 4, 2)).astype(np.float32)


@pytest.mark.parametrize("name,op", [
    ("CropAndResize", lambda t: ops.CropAndResize()(t, BOXES, BOX_INDEX, (3, 4))),
    ("CropAndResize nearest", lambda t: ops.CropAndResize("nearest")(t, BOXES, BOX_INDEX, (3, 4))),
    ("ResizeArea", lambda t: ops.ResizeArea(True)(t, (3, 4))),
    ("ScaleAndTranslate", lambda t: ops.ScaleAndTranslate("lanczos3")(
        t, (3, 4), Tensor(np.array([0.7, 0.9], np.float32)), Tensor(np.array([0.1, 0.2], np.float32)))),
])
def test_float32_result_ops_have_the_gradient_of_their_linear_map(name, op):
    """These are linear in the image (and give float32), so central differences with a step of 1 are exact."""
    x = NHWC.asnumpy()
    w = Tensor(_W)

    def loss(t):
        return (op(t) * w).sum()

    got = msx.grad(loss)(NHWC).asnumpy()
    want = _finite_difference(lambda a: float(loss(Tensor(a)).asnumpy()), x, 1.0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _crop_sum(boxes):
    return ops.CropAndResize()(_CROP_IMAGE, boxes, Tensor(np.array([0], np.int32)), (2, 3)).sum()


_CROP_IMAGE = Tensor(np.random.default_rng(1).standard_normal((1, 3, 4, 2)).astype(np.float32))


_MS_BOXES_GRAD = np.array([[-1.641366, -4.544931, 0.46210146, 5.470422]], np.float32)  # MindSpore 2.10 CPU


def test_crop_and_resize_gradient_wrt_boxes_is_mindspores():
    """d sum(CropAndResize(image, boxes)) / d boxes, also under jit; MindSpore 2.10 CPU's answer was recorded for
    this image and box (its CropAndResizeGradBoxes)."""
    boxes = Tensor(np.array([[0.1, 0.2, 0.8, 0.9]], np.float32))
    got = msx.grad(_crop_sum)(boxes).asnumpy()
    np.testing.assert_allclose(got, _MS_BOXES_GRAD, rtol=1e-5, atol=1e-5)
    fd = _finite_difference(lambda b: float(_crop_sum(Tensor(b.astype(np.float32))).asnumpy()),
                            boxes.asnumpy().astype(np.float64), 1e-3)
    np.testing.assert_allclose(got, fd, rtol=2e-3, atol=2e-3)
    for mode in MODES:
        jit_grad = msx.jit(msx.grad(_crop_sum), capture_mode=mode)(boxes).asnumpy()
        np.testing.assert_allclose(jit_grad, got, rtol=1e-6, atol=1e-6)


def test_scale_and_translate_gives_scale_and_translation_zero_gradients_as_mindspore():
    """MindSpore 2.10's ScaleAndTranslate gradient reaches the image only: (0, 0) for scale and translation."""
    image = Tensor(_RNG.standard_normal((1, 4, 5, 1)).astype(np.float32))

    def loss(scale, translation):
        return (ops.ScaleAndTranslate("keyscubic", False)(image, (5, 6), scale, translation) ** 2).sum()

    scale, translation = Tensor(np.array([1.2, 1.1], np.float32)), Tensor(np.array([0.3, -0.2], np.float32))
    for grad in (msx.grad(loss, grad_position=(0, 1)), msx.jit(msx.grad(loss, grad_position=(0, 1)))):
        gs, gt = grad(scale, translation)
        assert gs.asnumpy().tolist() == [0.0, 0.0] and gt.asnumpy().tolist() == [0.0, 0.0]


# ------------------------------------------------------------------ dtypes
@pytest.mark.parametrize("op", [ops.ResizeBilinearV2(), ops.ResizeBicubic(True), ops.ResizeNearestNeighborV2()])
def test_float16_keeps_its_dtype_and_computes_in_float32(op):
    half = Tensor(X.asnumpy().astype(np.float16))
    got = op(half, (5, 6))
    assert got.dtype == msx.float16
    want = op(Tensor(half.asnumpy().astype(np.float32)), (5, 6)).asnumpy()
    np.testing.assert_allclose(got.asnumpy().astype(np.float32), want, rtol=2e-3, atol=2e-3)


def test_integer_images_give_float32_where_mindspore_does():
    img = Tensor(np.arange(2 * 3 * 4 * 1, dtype=np.uint8).reshape(2, 3, 4, 1))
    assert ops.ResizeArea()(img, (2, 2)).dtype == msx.float32
    assert ops.CropAndResize()(img, BOXES, BOX_INDEX, (2, 2)).dtype == msx.float32
    assert ops.ScaleAndTranslate()(img, (2, 2), Tensor(np.ones(2, np.float32)),
                                   Tensor(np.zeros(2, np.float32))).dtype == msx.float32
    u8 = Tensor(np.arange(8, dtype=np.uint8).reshape(1, 1, 2, 4))
    out = ops.ResizeNearestNeighborV2()(u8, (4, 8))
    assert out.dtype == msx.uint8 and out.asnumpy()[0, 0, 0].tolist() == [0, 0, 1, 1, 2, 2, 3, 3]


def test_resize_nearest_neighbor_v1_honours_align_corners_as_v2():
    """MindSpore 2.10 CPU: ResizeNearestNeighbor(size, align_corners=True) == ResizeNearestNeighborV2(True)."""
    for size in ((3, 7), (8, 10), (1, 1), (7, 2)):
        v1 = ops.ResizeNearestNeighbor(size, align_corners=True)(X).asnumpy()
        np.testing.assert_array_equal(v1, ops.ResizeNearestNeighborV2(align_corners=True)(X, size).asnumpy())
    with pytest.raises(ValueError, match="half_pixel_centers"):
        ops.ResizeNearestNeighbor((3, 3), half_pixel_centers=True)
