"""Representative calls of the `ops.operations` class ops msx added for issue 32, shared by
`record_class_ops.py` (MindSpore 2.10, CPU) and tests/test_compat_ops.py (msx). `fn(ops, T)`: `ops` is
`mindspore.ops` or `msx.ops`, `T` makes that framework's Tensor."""
import numpy as np

rng = np.random.default_rng(7)
X4 = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
X5 = rng.standard_normal((1, 2, 4, 4, 4)).astype(np.float32)
W3 = rng.standard_normal((4, 2, 2, 2, 2)).astype(np.float32)
WT = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
DOUT = rng.standard_normal((2, 4, 3, 3)).astype(np.float32)
G = rng.standard_normal(3).astype(np.float32)
BETA = rng.standard_normal(3).astype(np.float32)
M2 = rng.standard_normal((2, 3)).astype(np.float32)
LX = rng.standard_normal((2, 4)).astype(np.float32)
LH = rng.standard_normal((2, 3)).astype(np.float32)
LW = rng.standard_normal((7, 12)).astype(np.float32) * 0.3
LB = rng.standard_normal(12).astype(np.float32) * 0.1

BOXES_A = np.array([[0, 0, 4, 4], [2, 2, 6, 8], [1, 0, 3, 3]], np.float32)
BOXES_G = np.array([[1, 1, 5, 5], [0, 0, 2, 2]], np.float32)
_W27 = rng.standard_normal((2, 3, 3, 3, 3)).astype(np.float32)
_WDW = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)


def rng3():
    return _W27


def rng_dw():
    return _WDW


CASES = {
    "OneHot": lambda o, T: o.OneHot()(T(np.array([0, 2, 1], np.int32)), 3, T(np.float32(2.0)), T(np.float32(-1.0))),
    "BiasAdd": lambda o, T: o.BiasAdd()(T(X4), T(G)),
    "BatchNorm": lambda o, T: o.BatchNorm()(T(X4), T(G), T(BETA), T(G * 0.1), T(np.abs(G) + 0.5))[0],
    "AvgPool_valid": lambda o, T: o.AvgPool(2, 2)(T(X4)),
    "AvgPool_same": lambda o, T: o.AvgPool(3, 2, "SAME")(T(X4)),
    "Conv3D": lambda o, T: o.Conv3D(4, 2)(T(X5), T(W3)),
    "Conv2DBackpropInput": lambda o, T: o.Conv2DBackpropInput(4, 3, stride=2)(T(DOUT), T(WT), (2, 3, 7, 7)),
    "Conv2DTranspose_same": lambda o, T: o.Conv2DTranspose(4, 3, pad_mode="same", stride=2)(T(DOUT), T(WT),
                                                                                             (2, 3, 6, 6)),
    "LayerNorm": lambda o, T: o.LayerNorm(1, 1)(T(M2), T(G), T(BETA)),
    "Pad": lambda o, T: o.Pad(((1, 0), (0, 2)))(T(M2)),
    "MirrorPad": lambda o, T: o.MirrorPad()(T(M2), T(np.array([[1, 1], [2, 1]], np.int64))),
    "CountNonZero": lambda o, T: o.CountNonZero()(T(np.array([[0, 1], [2, 0]], np.float32))),
    "AdaptiveAvgPool2D": lambda o, T: o.AdaptiveAvgPool2D((3, 2))(T(X4)),
    "RmsNorm": lambda o, T: o.RmsNorm()(T(M2), T(G)),
    "ResizeNearestNeighbor": lambda o, T: o.ResizeNearestNeighbor((3, 4))(T(X4)),
    "BasicLSTMCell": lambda o, T: o.BasicLSTMCell()(T(LX), T(LH), T(LH * 0.5), T(LW), T(LB)),
    "DType": lambda o, T: str(o.DType()(T(M2))),
    "topk": lambda o, T: o.topk(T(M2), 2),
    "MaxPool3D_same": lambda o, T: o.MaxPool3D(2, 2, "SAME")(T(X5[:, :, :3])),
    "MaxPool3D_pad": lambda o, T: o.MaxPool3D(2, 1, "PAD", pad_list=1)(T(X5)),
    "AvgPool3D": lambda o, T: o.AvgPool3D(2, 2)(T(X5)),
    "AvgPool3D_pad": lambda o, T: o.AvgPool3D(3, 1, "pad", pad=1, count_include_pad=False)(T(X5)),
    "AdaptiveAvgPool3D": lambda o, T: o.AdaptiveAvgPool3D((2, 3, 1))(T(X5)),
    "Conv3DTranspose": lambda o, T: o.Conv3DTranspose(2, 3, 2, stride=2)(T(X5[:, :, :2]), T(W3[:2, :3].copy())),
    "Conv3DTranspose_pad": lambda o, T: o.Conv3DTranspose(2, 3, 3, pad_mode="pad", pad=1)(
        T(X5[:, :, :2]), T(rng3())),
    "PadV3": lambda o, T: o.PadV3()(T(M2), T(np.array([1, 2, 0, 1], np.int64)), T(np.float32(0.5))),
    "PadV3_reflect": lambda o, T: o.PadV3("reflect")(T(X4), T(np.array([1, 1, 2, 0], np.int64))),
    "EqualCount": lambda o, T: o.EqualCount()(T(np.array([1, 2, 3], np.int32)), T(np.array([1, 0, 3], np.int32))),
    "TypeAs": lambda o, T: o.operations.TypeAs()(T(M2), T(np.array([1], np.int32))),
    "DepthwiseConv2dNative": lambda o, T: o.DepthwiseConv2dNative(1, 3)(T(X4), T(rng_dw()[:1].copy())),
    "InTopK": lambda o, T: o.InTopK(2)(T(M2), T(np.array([0, 2], np.int32))),
    "EmbeddingLookup": lambda o, T: o.EmbeddingLookup()(T(WT[0, :, :, 0].copy()), T(np.array([[1, 5], [3, 4]], np.int32)), 2),
    "IOU": lambda o, T: o.IOU()(T(BOXES_A), T(BOXES_G)),
    "LRN": lambda o, T: o.operations.LRN(2, 1.0, 0.5, 0.75)(T(X4)),
    "SpaceToBatchND": lambda o, T: o.SpaceToBatchND([2, 2], [[0, 0], [1, 1]])(T(X4)),
    "BatchToSpaceND": lambda o, T: o.BatchToSpaceND([2, 1], [[0, 1], [1, 0]])(T(X4[:, :, :3].copy())),
    "CheckValid": lambda o, T: o.CheckValid()(T(np.array([[0, 0, 5, 5], [2, 3, 20, 9], [-1, 0, 3, 3], [0, 0, 15, 9],
                                                          [0, 0, 15, 10], [1, 1, 16, 2]], np.float32)),
                                              T(np.array([10, 16, 1], np.float32))),
    "IOF": lambda o, T: o.IOU("iof")(T(BOXES_A), T(BOXES_G)),
}
