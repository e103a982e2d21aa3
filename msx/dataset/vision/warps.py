"""Warps: affine (rotation, translation, scale, shear) and perspective transforms, fixed or random.

On numpy images the output pixel (x, y) samples the input at the inverse-mapped point, as OpenCV's
`warpAffine`/`warpPerspective` (which MindSpore calls) do: nearest rounds the point, bilinear/bicubic
interpolate with the fill value outside the image at the point rounded to 1/32 pixel (OpenCV's tables); OpenCV's
fixed-point weights can still make a pixel differ by a grey level. The affine matrix is torchvision's/MindSpore's
(rotation about the centre `((w - 1) / 2, (h - 1) / 2)`, shear in degrees, translations as fractions of the
image size). RandomPerspective takes PIL images and uses Pillow's `Image.transform`, as MindSpore's does.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from PIL import Image

from ...errors import DatasetError
from .. import _random
from .core import ImageTensorOperation, Inter, check_inter, check_prob, hwc, is_pil
from .geometry import fill_arg


def _sample(array: np.ndarray, sx: np.ndarray, sy: np.ndarray, inter: Inter, fill: Any) -> np.ndarray:
    """array sampled at the float source coordinates (sx, sy) (each HxW), `fill` outside."""
    h, w = array.shape[:2]
    src = array.astype(np.float64)
    if src.ndim == 2:
        src = src[:, :, None]
    fill_px = np.broadcast_to(np.asarray(fill, np.float64), (src.shape[2],))

    def taps(ix: np.ndarray, iy: np.ndarray) -> np.ndarray:
        inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        got = src[np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)]
        return np.where(inside[..., None], got, fill_px)

    if inter != Inter.NEAREST:  # OpenCV's remap tables hold the point to 1/32 pixel
        sx, sy = np.round(sx * 32) / 32, np.round(sy * 32) / 32
    if inter == Inter.NEAREST:
        out = taps(np.floor(sx + 0.5).astype(int), np.floor(sy + 0.5).astype(int))
    elif inter == Inter.BICUBIC:
        x0, y0 = np.floor(sx).astype(int), np.floor(sy).astype(int)
        fx, fy = sx - x0, sy - y0
        a = -0.75

        def cubic(t):
            t = np.abs(t)
            return np.where(t <= 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                            np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0))
        out = sum(cubic(fy - j)[..., None] * cubic(fx - i)[..., None] * taps(x0 + i, y0 + j)
                  for j in range(-1, 3) for i in range(-1, 3))
    else:
        x0, y0 = np.floor(sx).astype(int), np.floor(sy).astype(int)
        fx, fy = (sx - x0)[..., None], (sy - y0)[..., None]
        out = ((1 - fy) * ((1 - fx) * taps(x0, y0) + fx * taps(x0 + 1, y0))
               + fy * ((1 - fx) * taps(x0, y0 + 1) + fx * taps(x0 + 1, y0 + 1)))
    if array.dtype.kind in "iu":
        info = np.iinfo(array.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    out = out.astype(array.dtype)
    return out[:, :, 0] if array.ndim == 2 else out


def affine_matrix(h: int, w: int, degrees: float, translate: Sequence[float], scale: float,
                  shear: Sequence[float]) -> np.ndarray:
    """The forward 3x3 matrix: rotate/scale/shear about the centre, then translate (in pixels)."""
    rot, sx, sy = math.radians(degrees), math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    cx, cy = (w - 1) * 0.5, (h - 1) * 0.5
    rss = np.array([[a * scale, b * scale, 0], [c * scale, d * scale, 0], [0, 0, 1]])
    centre = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1]], np.float64)
    uncentre = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], np.float64)
    move = np.array([[1, 0, translate[0]], [0, 1, translate[1]], [0, 0, 1]], np.float64)
    return move @ centre @ rss @ uncentre


def warp(array: np.ndarray, forward: np.ndarray, inter: Inter, fill: Any) -> np.ndarray:
    """Apply the forward 3x3 (affine or projective) matrix; output the input's size."""
    h, w = array.shape[:2]
    inv = np.linalg.inv(forward)
    if np.array_equal(forward[2], [0.0, 0.0, 1.0]):
        return _sample(array, *_affine_source(inv, h, w, inter), inter, fill)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    z = inv[2, 0] * xs + inv[2, 1] * ys + inv[2, 2]
    z = np.where(z == 0, np.finfo(np.float64).eps, z)
    sx = (inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]) / z
    sy = (inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]) / z
    return _sample(array, sx, sy, inter, fill)


def _affine_source(inv: np.ndarray, h: int, w: int, inter: Inter) -> tuple[np.ndarray, np.ndarray]:
    """The source point of every output pixel as OpenCV's warpAffine (MindSpore's kernel) computes it: in
    fixed point, 1/1024 pixel per step (AB_BITS = 10) summed per row and column, then cut to whole pixels
    (nearest) or to its remap table's 1/32 pixel. A point exactly between two pixels (a 45-degree turn's
    diagonal) then falls where OpenCV's falls, not wherever the last bit of a float64 product lands."""
    scale = 1024
    xs, ys = np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64)
    half = scale // 2 if inter == Inter.NEAREST else scale // 32 // 2
    fx = np.rint(inv[0, 0] * xs * scale)[None, :] + np.rint((inv[0, 1] * ys + inv[0, 2]) * scale)[:, None] + half
    fy = np.rint(inv[1, 0] * xs * scale)[None, :] + np.rint((inv[1, 1] * ys + inv[1, 2]) * scale)[:, None] + half
    if inter == Inter.NEAREST:  # whole pixels; _sample's floor(x + 0.5) keeps them
        return np.floor(fx / scale), np.floor(fy / scale)
    return np.floor(fx / 32) / 32, np.floor(fy / 32) / 32  # 1/32 pixel: _sample's rounding to 1/32 keeps it


_WARP_INTER = (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC)


def warp_inter(op: str, value: Any) -> Inter:
    inter = check_inter(op, value)
    if inter not in _WARP_INTER:
        raise DatasetError(f"{op}: interpolation must be Inter.NEAREST, BILINEAR or BICUBIC, got {inter!r}")
    return inter


def affine(img: Any, degrees: float, translate: Sequence[float], scale: float, shear: Sequence[float],
            inter: Inter, fill: Any, op: str) -> Any:
    array = hwc(img, op)
    h, w = array.shape[:2]
    forward = affine_matrix(h, w, degrees, (translate[0] * w, translate[1] * h), scale, shear)
    out = warp(array, forward, inter, fill)
    return Image.fromarray(out) if is_pil(img) else out


def _number(op: str, name: str, value: Any, low: float = -math.inf, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise DatasetError(f"{op}: {name} must be a number in [{low}, {high}], got {value!r}")
    return float(value)


def _shear_pair(op: str, shear: Any) -> tuple[float, float]:
    if isinstance(shear, (int, float)) and not isinstance(shear, bool):
        return float(shear), 0.0
    if isinstance(shear, (list, tuple)) and len(shear) in (1, 2):
        return _number(op, "shear", shear[0], -180, 180), _number(op, "shear", shear[-1] if len(shear) == 2 else 0,
                                                                   -180, 180)
    raise DatasetError(f"{op}: shear must be a number or an (x, y) pair, got {shear!r}")


class Affine(ImageTensorOperation):
    """Rotate by `degrees` (clockwise on screen for positive values, as MindSpore), translate by `translate`
    (fractions of width and height, in [-1, 1]), scale by `scale` and shear by `shear` degrees (a number: x
    only; or (x, y)), about the image centre; new pixels get `fill_value`."""

    def __init__(self, degrees: float, translate: Sequence[float], scale: float, shear: Any,
                 resample: Inter = Inter.NEAREST, fill_value: Any = 0) -> None:
        op = "Affine"
        self.degrees = _number(op, "degrees", degrees, -180, 180)
        if not (isinstance(translate, (list, tuple)) and len(translate) == 2):
            raise DatasetError(f"Affine: translate must be a (x, y) pair of fractions, got {translate!r}")
        self.translate = (_number(op, "translate", translate[0], -1, 1), _number(op, "translate", translate[1], -1, 1))
        self.scale = _number(op, "scale", scale, 0)
        if self.scale == 0:
            raise DatasetError("Affine: scale must be positive, got 0")
        self.shear = _shear_pair(op, shear)
        self.resample = warp_inter(op, resample)
        self.fill_value = fill_arg(op, fill_value)

    def __call__(self, img: Any) -> Any:
        return affine(img, self.degrees, self.translate, self.scale, self.shear, self.resample, self.fill_value,
                       "Affine")


def _range_pair(op: str, name: str, value: Any, symmetric_ok: bool, low: float, high: float) -> tuple[float, float]:
    if symmetric_ok and isinstance(value, (int, float)) and not isinstance(value, bool):
        if value < 0:
            raise DatasetError(f"{op}: a single {name} value must be >= 0, got {value!r}")
        return -float(value), float(value)
    if isinstance(value, (list, tuple)) and len(value) == 2:
        a, b = _number(op, name, value[0], low, high), _number(op, name, value[1], low, high)
        if a > b:
            raise DatasetError(f"{op}: {name} must be an increasing (min, max) pair, got {value!r}")
        return a, b
    raise DatasetError(f"{op}: {name} must be a number or a (min, max) pair, got {value!r}")


class RandomAffine(ImageTensorOperation):
    """Affine with parameters drawn uniformly: `degrees` (d: [-d, d]; or (min, max)); `translate` (tx, ty)
    maximum fractions, or (min_x, max_x, min_y, max_y); `scale` (min, max); `shear` (s: x in [-s, s];
    (min_x, max_x); or (min_x, max_x, min_y, max_y)). None leaves that part out."""

    uses_rng = True

    def __init__(self, degrees: Any, translate: Any = None, scale: Any = None, shear: Any = None,
                 resample: Inter = Inter.NEAREST, fill_value: Any = 0) -> None:
        op = "RandomAffine"
        self.degrees = _range_pair(op, "degrees", degrees, True, -360, 360)
        if translate is None:
            self.translate = ((0.0, 0.0), (0.0, 0.0))
        elif isinstance(translate, (list, tuple)) and len(translate) in (2, 4):
            t = [_number(op, "translate", v, -1, 1) for v in translate]
            self.translate = ((-t[0], t[0]), (-t[1], t[1])) if len(t) == 2 else ((t[0], t[1]), (t[2], t[3]))
        else:
            raise DatasetError(f"RandomAffine: translate must hold 2 or 4 fractions, got {translate!r}")
        self.scale = (1.0, 1.0) if scale is None else _range_pair(op, "scale", scale, False, 0, math.inf)
        if shear is None:
            self.shear = ((0.0, 0.0), (0.0, 0.0))
        elif isinstance(shear, (int, float)) and not isinstance(shear, bool):
            self.shear = (_range_pair(op, "shear", shear, True, -180, 180), (0.0, 0.0))
        elif isinstance(shear, (list, tuple)) and len(shear) in (2, 4):
            s = [_number(op, "shear", v, -180, 180) for v in shear]
            self.shear = ((s[0], s[1]), (0.0, 0.0)) if len(s) == 2 else ((s[0], s[1]), (s[2], s[3]))
        else:
            raise DatasetError(f"RandomAffine: shear must be a number or hold 2 or 4 values, got {shear!r}")
        self.resample = warp_inter(op, resample)
        self.fill_value = fill_arg(op, fill_value)

    def __call__(self, img: Any) -> Any:
        rng = _random.rng()
        degrees = float(rng.uniform(*self.degrees))
        translate = (float(rng.uniform(*self.translate[0])), float(rng.uniform(*self.translate[1])))
        scale = float(rng.uniform(*self.scale))
        shear = (float(rng.uniform(*self.shear[0])), float(rng.uniform(*self.shear[1])))
        return affine(img, degrees, translate, scale, shear, self.resample, self.fill_value, "RandomAffine")


def perspective_matrix(start: Sequence[Sequence[float]], end: Sequence[Sequence[float]]) -> np.ndarray:
    """The 3x3 homography taking the 4 `start` points to the 4 `end` points."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(start, end):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs += [u, v]
    try:
        coeffs = np.linalg.solve(np.asarray(rows, np.float64), np.asarray(rhs, np.float64))
    except np.linalg.LinAlgError:
        raise DatasetError(f"Perspective: the points {start} -> {end} do not define a perspective transform") \
            from None
    return np.append(coeffs, 1.0).reshape(3, 3)


def _points(op: str, name: str, points: Any) -> list[tuple[float, float]]:
    if not (isinstance(points, (list, tuple)) and len(points) == 4 and all(
            isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(v, (int, float)) for v in p)
            for p in points)):
        raise DatasetError(f"{op}: {name} must be 4 (x, y) points, got {points!r}")
    return [(float(p[0]), float(p[1])) for p in points]


class Perspective(ImageTensorOperation):
    """The perspective transform that moves the 4 `start_points` (top-left, top-right, bottom-right,
    bottom-left; (x, y)) to `end_points`; pixels from outside the image are 0."""

    def __init__(self, start_points: Any, end_points: Any, interpolation: Inter = Inter.BILINEAR) -> None:
        self.start_points = _points("Perspective", "start_points", start_points)
        self.end_points = _points("Perspective", "end_points", end_points)
        self.interpolation = warp_inter("Perspective", interpolation)
        self._matrix = perspective_matrix(self.start_points, self.end_points)

    def __call__(self, img: Any) -> Any:
        if is_pil(img):
            coeffs = perspective_matrix(self.end_points, self.start_points).reshape(-1)[:8]
            return img.transform(img.size, Image.Transform.PERSPECTIVE, tuple(coeffs),
                                 _PIL_WARP[self.interpolation])
        out = warp(hwc(img, "Perspective"), self._matrix, self.interpolation, 0)
        return out


_PIL_WARP = {Inter.NEAREST: Image.Resampling.NEAREST, Inter.BILINEAR: Image.Resampling.BILINEAR,
             Inter.BICUBIC: Image.Resampling.BICUBIC}


class RandomPerspective(ImageTensorOperation):
    """With probability `prob`, move each corner of a PIL image inwards by a random amount up to
    `distortion_scale` of half the size (torchvision's rule, as MindSpore's Python op)."""

    uses_rng = True

    def __init__(self, distortion_scale: float = 0.5, prob: float = 0.5,
                 interpolation: Inter = Inter.BICUBIC) -> None:
        self.distortion_scale = _number("RandomPerspective", "distortion_scale", distortion_scale, 0, 1)
        self.prob = check_prob("RandomPerspective", prob)
        self.interpolation = warp_inter("RandomPerspective", interpolation)

    def __call__(self, img: Any) -> Any:
        if not is_pil(img):
            raise DatasetError(f"RandomPerspective: expected a PIL image (as MindSpore's), got "
                               f"{type(img).__name__}; put vision.ToPIL() before it")
        rng = _random.rng()
        if rng.random() >= self.prob:
            return img
        w, h = img.size
        dx, dy = int(self.distortion_scale * w / 2), int(self.distortion_scale * h / 2)

        def draw(limit: int) -> int:
            return int(rng.integers(0, limit + 1))
        start = [(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)]
        end = [(draw(dx), draw(dy)), (w - 1 - draw(dx), draw(dy)), (w - 1 - draw(dx), h - 1 - draw(dy)),
               (draw(dx), h - 1 - draw(dy))]
        coeffs = perspective_matrix(end, start).reshape(-1)[:8]
        return img.transform(img.size, Image.Transform.PERSPECTIVE, tuple(coeffs), _PIL_WARP[self.interpolation])


