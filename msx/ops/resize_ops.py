"""MindSpore's resize/upsample class ops (`ops.operations`), one primitive each, with MindSpore 2.10's CPU formulas.

- `ResizeBilinearV2(align_corners, half_pixel_centers)(image, size)`, `ResizeNearestNeighborV2(...)(image, size)`,
  `ResizeBicubic(...)(images, size)`: NCHW, TensorFlow's kernels (source coordinate `out * scale`, or
  `(out + 0.5) * scale - 0.5` with half-pixel centres; `scale = (in - 1) / (out - 1)` with aligned corners, else
  `in / out`). Bicubic reads its weights from TensorFlow's 1024-entry table (a = -0.75, border taps repeated; with
  half-pixel centres a = -0.5, taps outside dropped and the rest renormalised).
- `ResizeArea(align_corners)(images, size)`: NHWC, every output pixel the area-weighted mean of the input cells it
  covers; float32 whatever the input dtype.
- `ResizeLinear1D(coordinate_transformation_mode)(x, size)`: (N, C, W), 'align_corners' or 'half_pixel'.
- `UpsampleNearest3D()(x, output_size, scales)`, `UpsampleTrilinear3D(align_corners)(x, output_size, scales)`:
  NCDHW, torch's formulas; `scales` gives output = floor(input * scale) and samples at `out / scale`.
- `CropAndResize(method, extrapolation_value)(x, boxes, box_index, crop_size)`: NHWC crops of normalised boxes
  [y1, x1, y2, x2], sampled bilinearly (or nearest) at `crop_size` points, `extrapolation_value` outside.
- `ScaleAndTranslate(kernel_type, antialias)(images, size, scale, translation)`: NHWC, TensorFlow's separable
  kernels (lanczos1/3/5, gaussian, box, triangle, keyscubic, mitchellcubic).

A `size` (or `crop_size`, `output_size`) fixes the result's shape, so it is an attribute: a tuple, or an integer
Tensor whose value is known when a graph is built (a graph input is refused by name). Every op is pure jax, the
same eagerly and under `msx.jit`, and differentiable as in MindSpore: w.r.t. the image (also `ResizeArea`'s,
which MindSpore cannot differentiate) and `CropAndResize`'s `boxes`; `ScaleAndTranslate`'s `scale` and
`translation` get zero gradients, as MindSpore's.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..errors import OpError, OpTypeError
from ..tensor import Tensor
from .api import Api, Attr, expose
from .attr_converters import AttrError, _int
from .nn_layer_ops import _linear_weights as _torch_linear_weights
from .primitive import apply, known_value, primitive

_F32 = np.float32
# jax's errors for a traced value read as a number
_CONCRETE_ERRORS = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                    jax.errors.TracerIntegerConversionError)


# ---------------------------------------------------------------- arguments
def _fail(reason: str | None) -> None:
    if reason is not None:
        raise (TypeError if "dtype" in reason else ValueError)(reason)


def _known_list(op: str, what: str, t: Tensor):
    """The values of Tensor `t` when they are known now (eagerly, or a constant while a graph is built)."""
    known = known_value(t)
    if not isinstance(known, jax.ShapeDtypeStruct):
        try:
            return np.asarray(known).tolist()
        except _CONCRETE_ERRORS:
            pass
    raise OpError(f"{op}: {what} must be known when the graph is built (a tuple, or a constant Tensor): it is "
                  f"the result's shape; got a graph value {t.dtype}{tuple(t.shape)}")


def _ints_attr(op: str, what: str, n: int, optional: bool = False):
    """Converter of a shape-giving argument: a tuple/list of `n` positive ints, or a 1-D integer Tensor (numpy
    array) whose value is known now (a constant while a graph is built)."""

    def convert(v):
        if v is None and optional:
            return None
        if isinstance(v, Tensor):
            if v.dtype.is_floating or v.dtype == mstype.bool_:
                raise OpTypeError(f"{op}: {what} must be ints, got a {v.dtype} Tensor")
            if len(v.shape) != 1:
                raise OpError(f"{op}: {what} must be a 1-D Tensor of {n} ints, got shape {tuple(v.shape)}")
            v = _known_list(op, what, v)
        elif isinstance(v, np.ndarray):
            if v.ndim != 1 or not np.issubdtype(v.dtype, np.integer):
                raise OpTypeError(f"{op}: {what} must be a 1-D array of ints, got {v.dtype}{v.shape}")
            v = v.tolist()
        if not isinstance(v, (tuple, list)):
            raise OpTypeError(f"{op}: {what} must be a tuple of {n} ints or a 1-D int Tensor, got "
                              f"{type(v).__name__} ({v!r})")
        try:
            vals = tuple(_int(s, what) for s in v)
        except AttrError as exc:
            raise exc.named(op) from None
        if len(vals) != n or min(vals) <= 0:
            raise OpError(f"{op}: {what} must hold {n} positive ints, got {tuple(vals)}")
        return vals

    return convert


def _floats_attr(op: str, what: str, n: int):
    def convert(v):
        if v is None:
            return None
        if isinstance(v, Tensor):
            v = _known_list(op, what, v)
        if not isinstance(v, (tuple, list)) or any(isinstance(s, (bool, str)) or not isinstance(
                s, (int, float, np.integer, np.floating)) for s in v):
            raise OpTypeError(f"{op}: {what} must be a tuple of {n} floats, got {type(v).__name__} ({v!r})")
        vals = tuple(float(s) for s in v)
        if len(vals) != n or min(vals) <= 0:
            raise OpError(f"{op}: {what} must hold {n} positive numbers, got {vals}")
        return vals

    return convert


def _bool_attr(op: str, what: str):
    def convert(v):
        if not isinstance(v, (bool, np.bool_)):
            raise OpTypeError(f"{op}: {what} must be a bool, got {type(v).__name__} ({v!r})")
        return bool(v)

    return convert


def _str_attr(op: str, what: str, choices: tuple[str, ...]):
    def convert(v):
        if not isinstance(v, str):
            raise OpTypeError(f"{op}: {what} must be a str, got {type(v).__name__} ({v!r})")
        if v not in choices:
            raise OpError(f"{op}: {what} must be one of {choices}, got {v!r}")
        return v

    return convert


def _float_attr(op: str, what: str):
    def convert(v):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise OpTypeError(f"{op}: {what} must be a float, got {type(v).__name__} ({v!r})")
        return float(v)

    return convert


_FLOATS = ("float16", "float32", "float64")


def _image_check(rank: int, layout: str, dtypes: tuple[str, ...] | None = _FLOATS):
    def check(x, *_, **attrs) -> str | None:
        if len(x.shape) != rank:
            return f"the input must be {rank}-D {layout}, got shape {tuple(x.shape)}"
        name = np.dtype(x.dtype).name
        if dtypes is None:
            if not (jnp.issubdtype(x.dtype, jnp.number) and not jnp.issubdtype(x.dtype, jnp.complexfloating)):
                return f"the input dtype must be a real number type, got {name}"
        elif name not in dtypes:
            return f"the input dtype must be one of {dtypes}, got {name}"
        if attrs.get("align_corners") and attrs.get("half_pixel_centers"):
            return "half_pixel_centers must be False when align_corners is True"
        return None

    return check


# ---------------------------------------------------------------- per-axis taps (numpy, at trace time)
def _tf_scale(n_in: int, n_out: int, align_corners: bool):
    """TensorFlow's CalculateResizeScale, in float32."""
    if align_corners and n_out > 1:
        return _F32(n_in - 1) / _F32(n_out - 1)
    return _F32(n_in) / _F32(n_out)


def _resample(x, axis: int, idx, w=None):
    """Sum over taps j of x[..., idx[:, j], ...] * w[:, j] along `axis` (idx, w: (n_out, taps))."""
    if w is None:
        return jnp.take(x, idx[:, 0], axis=axis)
    shape = [1] * x.ndim
    shape[axis] = idx.shape[0]
    acc = None
    for j in range(idx.shape[1]):
        term = jnp.take(x, idx[:, j], axis=axis) * jnp.asarray(w[:, j].reshape(shape), x.dtype)
        acc = term if acc is None else acc + term
    return acc


def _compute_dtype(dtype):
    return jnp.float64 if dtype == jnp.float64 else jnp.float32


def _bilinear_taps(n_in, n_out, align_corners, half_pixel):
    s = _tf_scale(n_in, n_out, align_corners)
    o = np.arange(n_out, dtype=_F32)
    src = ((o + _F32(0.5)) * s - _F32(0.5)) if half_pixel else o * s
    f = np.floor(src)
    lo = np.maximum(f.astype(np.int64), 0)
    hi = np.minimum(np.ceil(src).astype(np.int64), n_in - 1)
    lerp = (src - f).astype(np.float64)
    return np.stack([lo, hi], 1), np.stack([1 - lerp, lerp], 1)


def _nearest_taps(n_in, n_out, align_corners, half_pixel):
    s = _tf_scale(n_in, n_out, align_corners)
    o = np.arange(n_out, dtype=_F32)
    src = ((o + _F32(0.5)) * s) if half_pixel else o * s
    idx = (np.sign(src) * np.floor(np.abs(src) + _F32(0.5))) if align_corners else np.floor(src)
    idx = np.minimum(idx.astype(np.int64), n_in - 1)
    if half_pixel:
        idx = np.maximum(idx, 0)
    return idx[:, None], None


def _cubic_table(a: float):
    x = np.arange(1025, dtype=np.float64) / 1024
    x = x.astype(_F32)
    a = _F32(a)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = x + _F32(1)
    far = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return near.astype(_F32), far.astype(_F32)


def _bicubic_taps(n_in, n_out, align_corners, half_pixel):
    s = _tf_scale(n_in, n_out, align_corners)
    o = np.arange(n_out, dtype=_F32)
    src = ((o + _F32(0.5)) * s - _F32(0.5)) if half_pixel else o * s
    base = np.floor(src).astype(np.int64)
    delta = (src - base).astype(_F32)
    off = np.rint(delta * _F32(1024)).astype(np.int64)  # lrintf: round half to even
    near, far = _cubic_table(-0.5 if half_pixel else -0.75)
    w = np.stack([far[off], near[off], near[1024 - off], far[1024 - off]], 1).astype(np.float64)
    taps = base[:, None] + np.arange(-1, 3)[None, :]
    idx = np.clip(taps, 0, n_in - 1)
    if half_pixel:
        w = np.where(idx == taps, w, 0.0)
        total = w.sum(1, keepdims=True)
        w = np.where(np.abs(total) >= 1000 * np.finfo(np.float32).tiny, w / np.where(total == 0, 1, total), w)
    return idx, w


def _resize_2d(x, size, taps_fn, align_corners, half_pixel, axes=(2, 3)):
    """Resample `axes` of `x` to `size` with the per-axis taps `taps_fn` gives; weighted taps are summed in
    float32 (float64 for float64), unweighted ones (nearest: weights None) gather in the input's dtype."""
    y = x
    for axis, n_out in zip(axes, size):
        idx, w = taps_fn(x.shape[axis], n_out, align_corners, half_pixel)
        if w is not None:
            y = y.astype(_compute_dtype(x.dtype))
        y = _resample(y, axis, idx, w)
    return y.astype(x.dtype)


def _size_and_flags(op: str):
    """The call's `size` and the constructor's two flags of the three NCHW resize ops."""
    return (Attr("size", convert=_ints_attr(op, "size", 2)),
            Attr("align_corners", False, _bool_attr(op, "align_corners")),
            Attr("half_pixel_centers", False, _bool_attr(op, "half_pixel_centers")))


# ---------------------------------------------------------------- ResizeBilinearV2 / NearestNeighborV2 / Bicubic
_bilinear_check = _image_check(4, "(batch, channels, height, width)")


@primitive("ResizeBilinearV2", attrs=("size", "align_corners", "half_pixel_centers"), category="shape",
           check=_bilinear_check,
           api=Api(cls="ResizeBilinearV2", args=("image",),
                   attrs=_size_and_flags("ResizeBilinearV2"),
                   init=("align_corners", "half_pixel_centers")))
def resize_bilinear_v2(image, *, size, align_corners=False, half_pixel_centers=False):
    """(N, C, H, W) -> (N, C, *size), bilinear (TensorFlow's ResizeBilinear)."""
    _fail(_bilinear_check(image, align_corners=align_corners, half_pixel_centers=half_pixel_centers))
    return _resize_2d(image, size, _bilinear_taps, align_corners, half_pixel_centers)


_nearest_check = _image_check(4, "(batch, channels, height, width)", _FLOATS + ("uint8",))


@primitive("ResizeNearestNeighborV2", attrs=("size", "align_corners", "half_pixel_centers"), category="shape",
           check=_nearest_check,
           api=Api(cls="ResizeNearestNeighborV2", args=("image",),
                   attrs=_size_and_flags("ResizeNearestNeighborV2"),
                   init=("align_corners", "half_pixel_centers")))
def resize_nearest_neighbor_v2(image, *, size, align_corners=False, half_pixel_centers=False):
    """(N, C, H, W) -> (N, C, *size), nearest neighbour (TensorFlow's ResizeNearestNeighbor)."""
    _fail(_nearest_check(image, align_corners=align_corners, half_pixel_centers=half_pixel_centers))
    return _resize_2d(image, size, _nearest_taps, align_corners, half_pixel_centers)


@primitive("ResizeBicubic", attrs=("size", "align_corners", "half_pixel_centers"), category="shape",
           check=_bilinear_check,
           api=Api(cls="ResizeBicubic", args=("images",),
                   attrs=_size_and_flags("ResizeBicubic"),
                   init=("align_corners", "half_pixel_centers")))
def resize_bicubic(images, *, size, align_corners=False, half_pixel_centers=False):
    """(N, C, H, W) -> (N, C, *size), bicubic (TensorFlow's ResizeBicubic and its weight table)."""
    _fail(_bilinear_check(images, align_corners=align_corners, half_pixel_centers=half_pixel_centers))
    return _resize_2d(images, size, _bicubic_taps, align_corners, half_pixel_centers)


# ---------------------------------------------------------------- ResizeArea (NHWC, float32 result)
def _area_taps(n_in, n_out, align_corners, _half_pixel=False):
    s = _tf_scale(n_in, n_out, align_corners)
    o = np.arange(n_out, dtype=_F32)
    lo_f, hi_f = o * s, (o + 1) * s
    start = np.floor(lo_f).astype(np.int64)
    end = np.ceil(hi_f).astype(np.int64)
    k = int((end - start).max())
    cells = start[:, None] + np.arange(k)[None, :]
    overlap = np.minimum(cells + 1, hi_f[:, None]) - np.maximum(cells, lo_f[:, None])
    w = np.where(cells < end[:, None], np.maximum(overlap, 0), 0).astype(np.float64) / float(s)
    return np.clip(cells, 0, n_in - 1), w


_area_check = _image_check(4, "(batch, height, width, channels)", None)


@primitive("ResizeArea", attrs=("size", "align_corners"), category="shape", check=_area_check,
           api=Api(cls="ResizeArea", args=("images",),
                   attrs=(Attr("size", convert=_ints_attr("ResizeArea", "size", 2)),
                          Attr("align_corners", False, _bool_attr("ResizeArea", "align_corners"))),
                   init=("align_corners",)))
def resize_area(images, *, size, align_corners=False):
    """(N, H, W, C) -> (N, *size, C) float32, area interpolation (TensorFlow's ResizeArea)."""
    _fail(_area_check(images))
    y = images.astype(jnp.float32)
    for axis, n_out in zip((1, 2), size):
        idx, w = _area_taps(images.shape[axis], n_out, align_corners)
        y = _resample(y, axis, idx, w)
    return y


# ---------------------------------------------------------------- ResizeLinear1D
_LINEAR1D_MODES = ("align_corners", "half_pixel")
_linear1d_check = _image_check(3, "(batch, channels, width)")


def _linear_taps(n_in, n_out, align_corners, scale=None):
    """torch's linear source rule (the one `ops.interpolate` uses), as (n_out, 2) taps."""
    lo, hi, frac = _torch_linear_weights(n_in, n_out, align_corners, scale)
    frac = frac.astype(np.float64)
    return np.stack([lo, hi], 1), np.stack([1 - frac, frac], 1)


def _linear1d_taps(n_in, n_out, mode):
    if n_out == 1:  # MindSpore samples the first element in both modes
        return np.zeros((1, 2), np.int64), np.array([[1.0, 0.0]])
    return _linear_taps(n_in, n_out, mode == "align_corners")


@primitive("ResizeLinear1D", attrs=("size", "coordinate_transformation_mode"), category="shape",
           check=_linear1d_check,
           api=Api(cls="ResizeLinear1D", args=("x",),
                   attrs=(Attr("size", convert=_ints_attr("ResizeLinear1D", "size", 1)),
                          Attr("coordinate_transformation_mode", "align_corners",
                               _str_attr("ResizeLinear1D", "coordinate_transformation_mode", _LINEAR1D_MODES))),
                   init=("coordinate_transformation_mode",)))
def resize_linear_1d(x, *, size, coordinate_transformation_mode="align_corners"):
    """(N, C, W) -> (N, C, size[0]), linear."""
    _fail(_linear1d_check(x))
    idx, w = _linear1d_taps(x.shape[2], size[0], coordinate_transformation_mode)
    return _resample(x.astype(_compute_dtype(x.dtype)), 2, idx, w).astype(x.dtype)


# ---------------------------------------------------------------- UpsampleNearest3D / UpsampleTrilinear3D
def _upsample_sizes(x, output_size, scales):
    if (output_size is None) == (scales is None):
        raise ValueError("give exactly one of output_size and scales")
    if output_size is not None:
        return tuple(output_size), (None,) * 3
    sizes = tuple(int(np.floor(_F32(d) * _F32(s))) for d, s in zip(x.shape[2:], scales))
    if min(sizes) <= 0:
        raise ValueError(f"scales {tuple(scales)} give an empty output {sizes}")
    return sizes, tuple(scales)


def _torch_scale(n_in, n_out, scale):
    return _F32(1.0) / _F32(scale) if scale else _F32(n_in) / _F32(n_out)


_nearest3d_check = _image_check(5, "(N, C, D, H, W)", _FLOATS + ("uint8",))


@primitive("UpsampleNearest3D", attrs=("output_size", "scales"), category="shape", check=_nearest3d_check,
           api=Api(cls="UpsampleNearest3D", args=("x",),
                   attrs=(Attr("output_size", None, _ints_attr("UpsampleNearest3D", "output_size", 3, True)),
                          Attr("scales", None, _floats_attr("UpsampleNearest3D", "scales", 3)))))
def upsample_nearest_3d(x, *, output_size=None, scales=None):
    """(N, C, D, H, W) -> (N, C, *output_size), nearest (source index floor(out * in / out_size))."""
    _fail(_nearest3d_check(x))
    sizes, scales = _upsample_sizes(x, output_size, scales)
    y = x
    for axis, n_out, scale in zip((2, 3, 4), sizes, scales):
        n_in = x.shape[axis]
        src = np.floor(np.arange(n_out, dtype=_F32) * _torch_scale(n_in, n_out, scale))
        y = _resample(y, axis, np.minimum(src.astype(np.int64), n_in - 1)[:, None])
    return y


_trilinear_check = _image_check(5, "(N, C, D, H, W)")


@primitive("UpsampleTrilinear3D", attrs=("output_size", "scales", "align_corners"), category="shape",
           check=_trilinear_check,
           api=Api(cls="UpsampleTrilinear3D", args=("x",),
                   attrs=(Attr("output_size", None, _ints_attr("UpsampleTrilinear3D", "output_size", 3, True)),
                          Attr("scales", None, _floats_attr("UpsampleTrilinear3D", "scales", 3)),
                          Attr("align_corners", False, _bool_attr("UpsampleTrilinear3D", "align_corners"))),
                   init=("align_corners",)))
def upsample_trilinear_3d(x, *, output_size=None, scales=None, align_corners=False):
    """(N, C, D, H, W) -> (N, C, *output_size), trilinear (torch's source coordinates)."""
    _fail(_trilinear_check(x))
    sizes, scales = _upsample_sizes(x, output_size, scales)
    y = x.astype(_compute_dtype(x.dtype))
    for axis, n_out, scale in zip((2, 3, 4), sizes, scales):
        idx, w = _linear_taps(x.shape[axis], n_out, align_corners, scale)
        y = _resample(y, axis, idx, w)
    return y.astype(x.dtype)


# ---------------------------------------------------------------- CropAndResize (NHWC crops, float32 result)
_CROP_METHODS = ("bilinear", "nearest", "bilinear_v2")


def _crop_check(x, boxes, box_index, **_) -> str | None:
    reason = _image_check(4, "(batch, image_height, image_width, depth)", None)(x)
    if reason is not None:
        return reason
    if len(boxes.shape) != 2 or boxes.shape[1] != 4:
        return f"boxes must be 2-D (num_boxes, 4), got shape {tuple(boxes.shape)}"
    if not jnp.issubdtype(boxes.dtype, jnp.floating):
        return f"boxes dtype must be float, got {np.dtype(boxes.dtype).name}"
    if len(box_index.shape) != 1 or box_index.shape[0] != boxes.shape[0]:
        return (f"box_index must be 1-D with one entry per box ({boxes.shape[0]}), got shape "
                f"{tuple(box_index.shape)}")
    if not jnp.issubdtype(box_index.dtype, jnp.integer):
        return f"box_index dtype must be int32, got {np.dtype(box_index.dtype).name}"
    return None


def _crop_values(x, boxes, box_index, **_) -> str | None:
    if isinstance(box_index, jax.ShapeDtypeStruct) or getattr(box_index, "size", 0) == 0:
        return None
    bi = np.asarray(box_index)
    bad = bi[(bi < 0) | (bi >= x.shape[0])]
    if bad.size:
        return f"box_index values must be in [0, {x.shape[0]}) (the batch), got {int(bad[0])}"
    return None


def _crop_coords(lo, hi, n_in, n_out):
    """Sample positions (num_boxes, n_out) along one axis, TensorFlow's CropAndResize rule."""
    if n_out > 1:
        step = (hi - lo) * (n_in - 1) / (n_out - 1)
        return lo[:, None] * (n_in - 1) + jnp.arange(n_out, dtype=lo.dtype)[None, :] * step[:, None]
    return (0.5 * (lo + hi) * (n_in - 1))[:, None]


@primitive("CropAndResize", attrs=("crop_size", "method", "extrapolation_value"), category="other",
           check=_crop_check, values=_crop_values,
           api=(Api(cls="CropAndResize", args=("x", "boxes", "box_index"),
                    attrs=(Attr("crop_size", convert=_ints_attr("CropAndResize", "crop_size", 2)),
                           Attr("method", "bilinear", _str_attr("CropAndResize", "method", _CROP_METHODS)),
                           Attr("extrapolation_value", 0.0, _float_attr("CropAndResize", "extrapolation_value"))),
                    init=("method", "extrapolation_value")),
                Api("crop_and_resize", args=("image", "boxes", "box_indices"),
                    attrs=(Attr("crop_size", convert=_ints_attr("crop_and_resize", "crop_size", 2)),
                           Attr("method", "bilinear", _str_attr("crop_and_resize", "method", _CROP_METHODS)),
                           Attr("extrapolation_value", 0.0,
                                _float_attr("crop_and_resize", "extrapolation_value"))))))
def crop_and_resize(x, boxes, box_index, *, crop_size, method="bilinear", extrapolation_value=0.0):
    """(B, H, W, D) image, (K, 4) boxes [y1, x1, y2, x2] in [0, 1], (K,) image of each box -> (K, *crop_size, D)
    float32."""
    _fail(_crop_check(x, boxes, box_index))
    _, h, w, _ = x.shape
    img = x.astype(jnp.float32)
    b = boxes.astype(jnp.float32)
    ys = _crop_coords(b[:, 0], b[:, 2], h, crop_size[0])  # (K, ch)
    xs = _crop_coords(b[:, 1], b[:, 3], w, crop_size[1])  # (K, cw)
    inside = ((ys >= 0) & (ys <= h - 1))[:, :, None] & ((xs >= 0) & (xs <= w - 1))[:, None, :]

    def one(i, yy, xx):
        im = img[i]
        if method == "nearest":
            iy = jnp.clip(_round_half_away(yy), 0, h - 1).astype(jnp.int32)
            ix = jnp.clip(_round_half_away(xx), 0, w - 1).astype(jnp.int32)
            return im[iy][:, ix]
        y0 = jnp.floor(yy)
        x0 = jnp.floor(xx)
        ty, tx = jnp.clip(y0, 0, h - 1).astype(jnp.int32), jnp.clip(x0, 0, w - 1).astype(jnp.int32)
        by = jnp.clip(jnp.ceil(yy), 0, h - 1).astype(jnp.int32)
        rx = jnp.clip(jnp.ceil(xx), 0, w - 1).astype(jnp.int32)
        ly, lx = (yy - y0)[:, None, None], (xx - x0)[None, :, None]
        top_rows, bottom_rows = im[ty], im[by]
        top = top_rows[:, tx] + (top_rows[:, rx] - top_rows[:, tx]) * lx
        bottom = bottom_rows[:, tx] + (bottom_rows[:, rx] - bottom_rows[:, tx]) * lx
        return top + (bottom - top) * ly

    if method == "bilinear_v2":
        return jax.vmap(lambda i, box: _bilinear_v2_one(img[i], box, crop_size))(box_index.astype(jnp.int32), b)
    out = jax.vmap(one)(box_index.astype(jnp.int32), ys, xs)
    return jnp.where(inside[..., None], out, jnp.float32(extrapolation_value))


def _round_half_away(v):
    """C's roundf (half away from zero), exactly: jnp.round rounds half to even."""
    f = jnp.floor(v)
    return jnp.where(v - f >= 0.5, f + 1, f)


def _v2_axis(lo, hi, n_in, n_out):
    """MindSpore's 'bilinear_v2' sampling along one axis of one box: the box's pixel span [int(lo * n),
    int(hi * n)] resampled with half-pixel centres; (top index, bottom index, lerp), each (n_out,)."""
    start = jnp.trunc(lo * n_in).astype(jnp.int32)
    span = jnp.maximum(jnp.trunc(hi * n_in).astype(jnp.int32) - start + 1, 1)
    point = (jnp.arange(n_out, dtype=jnp.float32) + 0.5) * (span.astype(jnp.float32) / n_out) - 0.5
    top = jnp.clip(jnp.floor(point).astype(jnp.int32), 0, span - 1)
    bottom = jnp.clip(jnp.ceil(point).astype(jnp.int32), 0, span - 1)
    lerp = point - top.astype(jnp.float32)
    # MindSpore reads past the image's last row/column there; msx repeats the edge instead
    return (jnp.clip(start + top, 0, n_in - 1), jnp.clip(start + bottom, 0, n_in - 1), lerp)


def _bilinear_v2_one(im, box, crop_size):
    h, w = im.shape[:2]
    ty, by, ly = _v2_axis(box[0], box[2], h, crop_size[0])
    lx_i, rx_i, lx = _v2_axis(box[1], box[3], w, crop_size[1])
    ly, lx = ly[:, None, None], lx[None, :, None]
    top, bottom = im[ty], im[by]
    return (top[:, lx_i] * (1 - ly) * (1 - lx) + bottom[:, rx_i] * ly * lx + top[:, rx_i] * (1 - ly) * lx
            + bottom[:, lx_i] * ly * (1 - lx))


# ---------------------------------------------------------------- ScaleAndTranslate (NHWC, float32 result)
def _lanczos(radius: float):
    def k(x):
        xp = x * np.pi
        safe = jnp.where(x <= 1e-3, 1.0, xp)
        v = radius * jnp.sin(safe) * jnp.sin(safe / radius) / (safe * safe)
        return jnp.where(x > radius, 0.0, jnp.where(x <= 1e-3, 1.0, v))
    return k, float(radius)


def _gaussian(x):
    sigma = 0.5
    return jnp.where(x >= 1.5, 0.0, jnp.exp(-x * x / (2.0 * sigma * sigma)))


def _box(x):
    return jnp.where(x < 0.5, 1.0, jnp.where(x == 0.5, 0.5, 0.0))


def _triangle(x):
    return jnp.where(x < 1.0, 1.0 - x, 0.0)


def _keys_cubic(x):
    return jnp.where(x >= 2.0, 0.0, jnp.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0,
                                                  ((1.5 * x - 2.5) * x) * x + 1.0))


def _mitchell_cubic(x):
    return jnp.where(x >= 2.0, 0.0, jnp.where(x >= 1.0, (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0,
                                                  (((7.0 / 6.0) * x - 2.0) * x) * x + 8.0 / 9.0))


_KERNELS = {"lanczos1": _lanczos(1), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5), "gaussian": (_gaussian, 1.5),
            "box": (_box, 1.0), "triangle": (_triangle, 1.0), "keyscubic": (_keys_cubic, 2.0),
            "mitchellcubic": (_mitchell_cubic, 2.0)}


def _span_weights(n_in: int, n_out: int, scale, translate, kernel_type: str, antialias: bool):
    """(n_out, n_in) weights of TensorFlow's ScaleAndTranslate spans along one axis (scale, translate: traced
    float32 scalars): each output samples at (x + 0.5) / scale - translate / scale, the kernel stretched by
    1 / scale when antialiasing a downscale, over the input cells of its span, renormalised."""
    kernel, radius = _KERNELS[kernel_type]
    inv_scale = 1.0 / scale
    kernel_scale = jnp.maximum(inv_scale, 1.0) if antialias else jnp.float32(1.0)
    sample = (jnp.arange(n_out, dtype=jnp.float32) + 0.5) * inv_scale - inv_scale * translate
    start = jnp.clip(jnp.ceil(sample - radius * kernel_scale - 0.5), 0, n_in - 1)
    end = jnp.clip(jnp.floor(sample + radius * kernel_scale - 0.5), 0, n_in - 1) + 1
    src = jnp.arange(n_in, dtype=jnp.float32)[None, :]
    in_span = (src >= start[:, None]) & (src < end[:, None])
    w = jnp.where(in_span, kernel(jnp.abs((src + 0.5 - sample[:, None]) / kernel_scale)), 0.0).astype(jnp.float32)
    total = w.sum(1, keepdims=True)
    w = jnp.where(jnp.abs(total) >= 1000 * np.finfo(np.float32).tiny, w / jnp.where(total == 0, 1, total), w)
    outside = (sample < 0) | (sample > n_in)
    return jnp.where(outside[:, None], 0.0, w)


def _sat_check(images, scale, translation, **_) -> str | None:
    reason = _image_check(4, "(batch, image_height, image_width, channel)", None)(images)
    if reason is not None:
        return reason
    for what, t in (("scale", scale), ("translation", translation)):
        if tuple(t.shape) != (2,):
            return f"{what} must have shape (2,), got {tuple(t.shape)}"
        if not jnp.issubdtype(t.dtype, jnp.floating):
            return f"{what} dtype must be float32, got {np.dtype(t.dtype).name}"
    return None


@primitive("ScaleAndTranslate", attrs=("size", "kernel_type", "antialias"), category="other", check=_sat_check)
def scale_and_translate(images, scale, translation, *, size, kernel_type="lanczos3", antialias=True):
    """(B, H, W, C) -> (B, *size, C) float32: each axis resampled at (out + 0.5 - translation) / scale with the
    `kernel_type` filter (TensorFlow's ScaleAndTranslate)."""
    _fail(_sat_check(images, scale, translation))
    # MindSpore's gradient reaches the image only (scale and translation get zeros): so does msx's
    sc = jax.lax.stop_gradient(scale.astype(jnp.float32))
    tr = jax.lax.stop_gradient(translation.astype(jnp.float32))
    wy = _span_weights(images.shape[1], size[0], sc[0], tr[0], kernel_type, antialias)
    wx = _span_weights(images.shape[2], size[1], sc[1], tr[1], kernel_type, antialias)
    hi = jax.lax.Precision.HIGHEST
    y = jnp.einsum("xw,bhwc->bhxc", wx, images.astype(jnp.float32), precision=hi)
    return jnp.einsum("yh,bhxc->byxc", wy, y, precision=hi)


_sat_size = _ints_attr("ScaleAndTranslate", "size", 2)
_sat_kernel = _str_attr("ScaleAndTranslate", "kernel_type", tuple(_KERNELS))
_sat_antialias = _bool_attr("ScaleAndTranslate", "antialias")


@expose(cls="ScaleAndTranslate", init=("kernel_type", "antialias"), prim="ScaleAndTranslate")
def scale_and_translate_call(images, size, scale, translation, kernel_type: str = "lanczos3", antialias: bool = True):
    """`ops.ScaleAndTranslate(kernel_type, antialias)(images, size, scale, translation)`: `size` shapes the result
    (a tuple or a constant int Tensor); `scale` and `translation` are (2,) float Tensors (row, column)."""
    attrs = {"size": _sat_size(size), "kernel_type": _sat_kernel(kernel_type), "antialias": _sat_antialias(antialias)}
    return apply(scale_and_translate, (images, scale, translation), attrs)


__all__: list[str] = []
