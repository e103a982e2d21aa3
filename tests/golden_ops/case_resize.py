"""Resize/upsample class ops (msx/ops/resize_ops.py) against MindSpore 2.10 CPU: `ResizeBilinearV2`,
`ResizeNearestNeighborV2`, `ResizeBicubic`, `ResizeArea`, `ResizeLinear1D`, `UpsampleNearest3D`,
`UpsampleTrilinear3D`, `CropAndResize`, `ScaleAndTranslate`, over their corner/half-pixel/scale options."""
import numpy as np

_RNG = np.random.default_rng(21)
_X = _RNG.standard_normal((1, 2, 3, 4)).astype(np.float32)              # NCHW
_X64 = _RNG.standard_normal((1, 1, 3, 4))                                # float64 (gradient cases)
_U8 = _RNG.integers(0, 255, (1, 2, 3, 4)).astype(np.uint8)
_NHWC = _RNG.standard_normal((2, 4, 5, 2)).astype(np.float32)
_NHWC_I = _RNG.integers(-50, 50, (1, 3, 4, 2)).astype(np.int32)
_X1 = _RNG.standard_normal((1, 2, 5)).astype(np.float32)
_X1_64 = _RNG.standard_normal((1, 2, 4))
_X3 = _RNG.standard_normal((1, 2, 2, 3, 4)).astype(np.float32)           # NCDHW
_X3_64 = _RNG.standard_normal((1, 1, 2, 2, 3))
_BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [0.9, 0.7, 0.2, 0.1], [-0.2, -0.1, 1.2, 1.3], [0.3, 0.3, 0.3, 0.3]],
                  np.float32)
_BOXES_IN = np.array([[0.1, 0.2, 0.6, 0.7], [0.0, 0.0, 0.75, 0.8], [0.5, 0.1, 0.6, 0.3]], np.float32)
_BOX_INDEX = np.array([0, 1, 1, 0], np.int32)


def _size(*s):
    return np.array(s, np.int32)


def _sat(kernel_type, antialias, size, scale, translation, image=_NHWC):
    return dict(primitive="ScaleAndTranslate", call="ops.ScaleAndTranslate",
                init=dict(kernel_type=kernel_type, antialias=antialias), inputs=[image],
                args=[_size(*size), np.array(scale, np.float32), np.array(translation, np.float32)])


CASES = [
    # ResizeBilinearV2 (image, size): size a tuple or an int32 Tensor
    dict(id="resize_bilinear_v2", primitive="ResizeBilinearV2", call="ops.ResizeBilinearV2", init={},
         inputs=[_X], args=[(5, 7)]),
    dict(id="resize_bilinear_v2_align", primitive="ResizeBilinearV2", call="ops.ResizeBilinearV2",
         init=dict(align_corners=True), inputs=[_X], args=[_size(5, 3)]),
    dict(id="resize_bilinear_v2_half_pixel", primitive="ResizeBilinearV2", call="ops.ResizeBilinearV2",
         init=dict(half_pixel_centers=True), inputs=[_X], args=[(2, 7)]),
    dict(id="resize_bilinear_v2_f64", primitive="ResizeBilinearV2", call="ops.ResizeBilinearV2",
         init=dict(align_corners=True), inputs=[_X64], args=[(4, 6)], grad=True),
    # ResizeNearestNeighborV2
    dict(id="resize_nearest_v2", primitive="ResizeNearestNeighborV2", call="ops.ResizeNearestNeighborV2", init={},
         inputs=[_X], args=[_size(5, 7)]),
    dict(id="resize_nearest_v2_align", primitive="ResizeNearestNeighborV2", call="ops.ResizeNearestNeighborV2",
         init=dict(align_corners=True), inputs=[_X], args=[_size(6, 3)]),
    dict(id="resize_nearest_v2_half_pixel", primitive="ResizeNearestNeighborV2",
         call="ops.ResizeNearestNeighborV2", init=dict(half_pixel_centers=True), inputs=[_X], args=[_size(2, 7)]),
    dict(id="resize_nearest_v2_uint8", primitive="ResizeNearestNeighborV2", call="ops.ResizeNearestNeighborV2",
         init={}, inputs=[_U8], args=[_size(4, 6)]),
    dict(id="resize_nearest_v2_f64", primitive="ResizeNearestNeighborV2", call="ops.ResizeNearestNeighborV2",
         init={}, inputs=[_X64], args=[_size(5, 7)], grad=True),
    # ResizeBicubic
    dict(id="resize_bicubic", primitive="ResizeBicubic", call="ops.ResizeBicubic", init={}, inputs=[_X],
         args=[(5, 7)]),
    dict(id="resize_bicubic_align", primitive="ResizeBicubic", call="ops.ResizeBicubic",
         init=dict(align_corners=True), inputs=[_X], args=[_size(4, 6)]),
    dict(id="resize_bicubic_half_pixel", primitive="ResizeBicubic", call="ops.ResizeBicubic",
         init=dict(half_pixel_centers=True), inputs=[_X], args=[(2, 7)]),
    dict(id="resize_bicubic_f64", primitive="ResizeBicubic", call="ops.ResizeBicubic",
         init=dict(half_pixel_centers=True), inputs=[_X64], args=[(5, 6)], grad=True),
    # ResizeArea (NHWC, float32 result)
    dict(id="resize_area", primitive="ResizeArea", call="ops.ResizeArea", init={}, inputs=[_NHWC],
         args=[_size(3, 2)]),
    dict(id="resize_area_up", primitive="ResizeArea", call="ops.ResizeArea", init={}, inputs=[_NHWC],
         args=[_size(6, 7)]),
    dict(id="resize_area_align", primitive="ResizeArea", call="ops.ResizeArea", init=dict(align_corners=True),
         inputs=[_NHWC], args=[_size(3, 7)]),
    dict(id="resize_area_int32", primitive="ResizeArea", call="ops.ResizeArea", init={}, inputs=[_NHWC_I],
         args=[_size(2, 3)]),
    # ResizeLinear1D
    dict(id="resize_linear_1d", primitive="ResizeLinear1D", call="ops.ResizeLinear1D", init={}, inputs=[_X1],
         args=[(8,)]),
    dict(id="resize_linear_1d_half_pixel", primitive="ResizeLinear1D", call="ops.ResizeLinear1D",
         init=dict(coordinate_transformation_mode="half_pixel"), inputs=[_X1], args=[np.array([3], np.int64)]),
    dict(id="resize_linear_1d_one", primitive="ResizeLinear1D", call="ops.ResizeLinear1D",
         init=dict(coordinate_transformation_mode="half_pixel"), inputs=[_X1], args=[(1,)]),
    dict(id="resize_linear_1d_f64", primitive="ResizeLinear1D", call="ops.ResizeLinear1D",
         init=dict(coordinate_transformation_mode="half_pixel"), inputs=[_X1_64], args=[(7,)], grad=True),
    # UpsampleNearest3D / UpsampleTrilinear3D (x, output_size, scales)
    dict(id="resize_upsample_nearest_3d", primitive="UpsampleNearest3D", call="ops.UpsampleNearest3D", init={},
         inputs=[_X3], args=[(3, 4, 7), None]),
    dict(id="resize_upsample_nearest_3d_scales", primitive="UpsampleNearest3D", call="ops.UpsampleNearest3D", init={},
         inputs=[_X3], kwargs=dict(scales=(1.5, 2.0, 1.3))),
    dict(id="resize_upsample_nearest_3d_f64", primitive="UpsampleNearest3D", call="ops.UpsampleNearest3D", init={},
         inputs=[_X3_64], args=[(3, 3, 5)], grad=True),
    dict(id="resize_upsample_trilinear_3d", primitive="UpsampleTrilinear3D", call="ops.UpsampleTrilinear3D", init={},
         inputs=[_X3], args=[(3, 4, 7), None]),
    dict(id="resize_upsample_trilinear_3d_align", primitive="UpsampleTrilinear3D", call="ops.UpsampleTrilinear3D",
         init=dict(align_corners=True), inputs=[_X3], args=[(3, 2, 6)]),
    dict(id="resize_upsample_trilinear_3d_scales", primitive="UpsampleTrilinear3D", call="ops.UpsampleTrilinear3D",
         init={}, inputs=[_X3], args=[None, (1.5, 2.0, 0.6)]),
    dict(id="resize_upsample_trilinear_3d_f64", primitive="UpsampleTrilinear3D", call="ops.UpsampleTrilinear3D",
         init={}, inputs=[_X3_64], args=[(3, 3, 5)], grad=True),
    # CropAndResize (x, boxes, box_index, crop_size): flipped and out-of-image boxes, a point box
    dict(id="crop_and_resize", primitive="CropAndResize", call="ops.CropAndResize", init={},
         inputs=[_NHWC, _BOXES, _BOX_INDEX], args=[(3, 4)]),
    dict(id="crop_and_resize_extrapolate", primitive="CropAndResize", call="ops.CropAndResize",
         init=dict(extrapolation_value=-1.5), inputs=[_NHWC, _BOXES, _BOX_INDEX], args=[(1, 3)]),
    dict(id="crop_and_resize_nearest", primitive="CropAndResize", call="ops.CropAndResize",
         init=dict(method="nearest"), inputs=[_NHWC, _BOXES, _BOX_INDEX], args=[(3, 4)]),
    dict(id="crop_and_resize_bilinear_v2", primitive="CropAndResize", call="ops.CropAndResize",
         init=dict(method="bilinear_v2"), inputs=[_NHWC, _BOXES_IN, _BOX_INDEX[:3]], args=[(3, 4)]),
    dict(id="crop_and_resize_int32", primitive="CropAndResize", call="ops.CropAndResize", init={},
         inputs=[_NHWC_I, _BOXES[:2], np.zeros(2, np.int32)], args=[(2, 3)]),
    # ScaleAndTranslate (images, size, scale, translation)
    dict(id="resize_scale_and_translate", **_sat("lanczos3", True, (6, 8), (1.5, 1.6), (0.0, 0.0))),
    dict(id="resize_scale_and_translate_down", **_sat("lanczos5", True, (3, 2), (0.7, 0.4), (0.3, -0.5))),
    dict(id="resize_scale_and_translate_gaussian", **_sat("gaussian", False, (3, 2), (0.7, 0.4), (0.3, -0.5))),
    dict(id="resize_scale_and_translate_box", **_sat("box", True, (4, 5), (1.0, 1.0), (1.0, 1.0))),
    dict(id="resize_scale_and_translate_keyscubic", **_sat("keyscubic", True, (5, 3), (1.2, 0.6), (-0.4, 0.2))),
    dict(id="resize_scale_and_translate_mitchell", **_sat("mitchellcubic", False, (6, 7), (1.5, 1.4), (0.5, 0.0))),
    dict(id="resize_scale_and_translate_triangle", **_sat("triangle", True, (2, 3), (0.5, 0.6), (0.0, 0.0))),
    dict(id="resize_scale_and_translate_lanczos1", **_sat("lanczos1", False, (4, 6), (1.0, 1.3), (0.2, 0.7))),
]
