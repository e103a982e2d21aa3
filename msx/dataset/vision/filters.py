"""Neighbourhood filters: Gaussian blur and sharpness.

GaussianBlur is OpenCV's (separable kernel, borders reflected without repeating the edge pixel, sigma from the
kernel size when not given), as MindSpore's kernel is; sharpness is Pillow's `ImageEnhance.Sharpness` (the 3x3
smoothing kernel blended with the image, border pixels kept), the definition MindSpore follows.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from PIL import ImageEnhance

from ...errors import DatasetError
from .core import ImageTensorOperation, hwc, like_input, to_pil


def _odd_pair(op: str, kernel_size: Any) -> tuple[int, int]:
    if isinstance(kernel_size, int) and not isinstance(kernel_size, bool):
        ks = [kernel_size, kernel_size]
    elif isinstance(kernel_size, (list, tuple)) and len(kernel_size) in (1, 2):
        ks = [kernel_size[0], kernel_size[-1]]
    else:
        ks = None
    if ks is None or not all(isinstance(k, int) and k > 0 and k % 2 == 1 for k in ks):
        raise DatasetError(f"{op}: kernel_size must be a positive odd int or a (width, height) pair of them, "
                           f"got {kernel_size!r}")
    return int(ks[0]), int(ks[1])


def _gaussian_kernel(size: int, sigma: float) -> np.ndarray:
    if sigma <= 0:
        sigma = ((size - 1) * 0.5 - 1) * 0.3 + 0.8  # OpenCV's sigma for a kernel size
    x = np.arange(size) - (size - 1) / 2
    k = np.exp(-x * x / (2 * sigma * sigma))
    return k / k.sum()


def gaussian_blur(array: np.ndarray, ksize: tuple[int, int], sigma: tuple[float, float]) -> np.ndarray:
    """Blur an HW/HWC array; `ksize` and `sigma` are (x, y)."""
    kx, ky = _gaussian_kernel(ksize[0], sigma[0]), _gaussian_kernel(ksize[1], sigma[1])
    rx, ry = ksize[0] // 2, ksize[1] // 2
    h, w = array.shape[:2]
    if (ry and h < 2) or (rx and w < 2):
        return array.copy()
    widths = [(ry, ry), (rx, rx)] + [(0, 0)] * (array.ndim - 2)
    padded = np.pad(array.astype(np.float64), widths, mode="reflect") if max(ry, rx) < min(h, w) else \
        np.pad(array.astype(np.float64), widths, mode="symmetric")
    rows = sum(ky[i] * padded[i:i + h] for i in range(ksize[1]))
    out = sum(kx[j] * rows[:, j:j + w] for j in range(ksize[0]))
    if array.dtype.kind in "iu":
        info = np.iinfo(array.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    return out.astype(array.dtype)


class GaussianBlur(ImageTensorOperation):
    """Blur with a Gaussian kernel of `kernel_size` (odd; an int or (width, height)) and `sigma` (a number or
    (sigma_x, sigma_y); None: `0.3 * ((size - 1) * 0.5 - 1) + 0.8`, OpenCV's)."""

    def __init__(self, kernel_size: Any, sigma: Any = None) -> None:
        self.kernel_size = _odd_pair("GaussianBlur", kernel_size)
        if sigma is None:
            self.sigma = (0.0, 0.0)
        elif isinstance(sigma, (int, float)) and not isinstance(sigma, bool) and sigma > 0:
            self.sigma = (float(sigma), float(sigma))
        elif isinstance(sigma, (list, tuple)) and len(sigma) in (1, 2) and all(
                isinstance(s, (int, float)) and s > 0 for s in sigma):
            self.sigma = (float(sigma[0]), float(sigma[-1]))
        else:
            raise DatasetError(f"GaussianBlur: sigma must be a positive number or a pair of them, got {sigma!r}")

    def __call__(self, img: Any) -> Any:
        out = gaussian_blur(hwc(img, "GaussianBlur"), self.kernel_size, self.sigma)
        return like_input(to_pil(out, "GaussianBlur"), img) if not isinstance(img, np.ndarray) and \
            out.dtype == np.uint8 else out


def sharpness(img: Any, factor: float, op: str) -> Any:
    array = hwc(img, op)
    return like_input(ImageEnhance.Sharpness(img if not isinstance(img, np.ndarray) else to_pil(array, op))
                      .enhance(factor), img)


class AdjustSharpness(ImageTensorOperation):
    """Blend with a smoothed copy: 0 blurs, 1 leaves the image alone, 2 doubles the sharpness."""

    def __init__(self, sharpness_factor: float) -> None:
        if isinstance(sharpness_factor, bool) or not isinstance(sharpness_factor, (int, float)) or \
                sharpness_factor < 0:
            raise DatasetError(f"AdjustSharpness: sharpness_factor must be a non-negative number, got "
                               f"{sharpness_factor!r}")
        self.factor = float(sharpness_factor)

    def __call__(self, img: Any) -> Any:
        return sharpness(img, self.factor, "AdjustSharpness")
