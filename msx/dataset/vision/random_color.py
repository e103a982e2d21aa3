"""Random colour transforms: a fixed adjustment applied with a probability, or an adjustment whose strength is
drawn from a range, plus AlexNet's PCA lighting noise. Each draws from `_random.rng()` (per row in a pipeline,
seeded when eager); the adjustments are those of color.py, tone.py and filters.py."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from PIL import Image, ImageEnhance

from ...errors import DatasetError
from .. import _random
from .color import AutoContrast, Invert, Posterize, enhance
from .core import ImageTensorOperation, check_prob, hwc, is_pil
from .filters import sharpness
from .tone import equalize, solarize, threshold_range


def _degrees(op: str, degrees: Any) -> tuple[float, float]:
    if not (isinstance(degrees, (list, tuple)) and len(degrees) == 2 and all(
            isinstance(d, (int, float)) and not isinstance(d, bool) and d >= 0 for d in degrees)
            and degrees[0] <= degrees[1]):
        raise DatasetError(f"{op}: degrees must be an increasing (min, max) pair of non-negative numbers, got "
                           f"{degrees!r}")
    return float(degrees[0]), float(degrees[1])


class _WithProbability(ImageTensorOperation):
    uses_rng = True

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = check_prob(type(self).__name__, prob)

    def apply(self, img: Any) -> Any:
        raise NotImplementedError

    def __call__(self, img: Any) -> Any:
        return self.apply(img) if _random.rng().random() < self.prob else img


class RandomInvert(_WithProbability):
    """Invert with probability `prob`."""

    def apply(self, img: Any) -> Any:
        return Invert()(img)


class RandomEqualize(_WithProbability):
    """Equalize the histogram with probability `prob`."""

    def apply(self, img: Any) -> Any:
        return equalize(img, "RandomEqualize")


class RandomAutoContrast(_WithProbability):
    """AutoContrast(cutoff, ignore) with probability `prob`."""

    def __init__(self, cutoff: float = 0.0, ignore: Any = None, prob: float = 0.5) -> None:
        super().__init__(prob)
        self.op = AutoContrast(cutoff, ignore)

    def apply(self, img: Any) -> Any:
        return self.op(img)


class RandomAdjustSharpness(_WithProbability):
    """AdjustSharpness(degree) with probability `prob`."""

    def __init__(self, degree: float, prob: float = 0.5) -> None:
        super().__init__(prob)
        if isinstance(degree, bool) or not isinstance(degree, (int, float)) or degree < 0:
            raise DatasetError(f"RandomAdjustSharpness: degree must be a non-negative number, got {degree!r}")
        self.degree = float(degree)

    def apply(self, img: Any) -> Any:
        return sharpness(img, self.degree, "RandomAdjustSharpness")


class RandomColor(ImageTensorOperation):
    """Saturation scaled by a factor drawn uniformly from `degrees` (0: gray, 1: unchanged)."""

    uses_rng = True

    def __init__(self, degrees: Sequence[float] = (0.1, 1.9)) -> None:
        self.degrees = _degrees("RandomColor", degrees)

    def __call__(self, img: Any) -> Any:
        return enhance(img, ImageEnhance.Color, float(_random.rng().uniform(*self.degrees)), "RandomColor")


class RandomSharpness(ImageTensorOperation):
    """Sharpness adjusted by a factor drawn uniformly from `degrees` (0: blurred, 1: unchanged)."""

    uses_rng = True

    def __init__(self, degrees: Sequence[float] = (0.1, 1.9)) -> None:
        self.degrees = _degrees("RandomSharpness", degrees)

    def __call__(self, img: Any) -> Any:
        return sharpness(img, float(_random.rng().uniform(*self.degrees)), "RandomSharpness")


class RandomSolarize(ImageTensorOperation):
    """Solarize the pixels at or above a threshold drawn uniformly (an int) from `threshold` (min, max)."""

    uses_rng = True

    def __init__(self, threshold: Sequence[int] = (0, 255)) -> None:
        if not isinstance(threshold, (list, tuple)) or len(threshold) != 2:
            raise DatasetError(f"RandomSolarize: threshold must be a (min, max) pair, got {threshold!r}")
        self.threshold = threshold_range("RandomSolarize", threshold)

    def __call__(self, img: Any) -> Any:
        t = int(_random.rng().integers(int(self.threshold[0]), int(self.threshold[1]) + 1))
        array = hwc(img, "RandomSolarize")
        if array.dtype != np.uint8:
            raise DatasetError(f"RandomSolarize: expected a uint8 image, got dtype {array.dtype}")
        out = solarize(array, t, 255)
        return Image.fromarray(out) if is_pil(img) else out


class RandomPosterize(ImageTensorOperation):
    """Posterize to a number of bits drawn uniformly from `bits` (min, max), each in [1, 8]."""

    uses_rng = True

    def __init__(self, bits: Any = (8, 8)) -> None:
        b = (bits, bits) if isinstance(bits, int) and not isinstance(bits, bool) else bits
        if not (isinstance(b, (list, tuple)) and len(b) == 2 and all(isinstance(v, int) and 1 <= v <= 8 for v in b)
                and b[0] <= b[1]):
            raise DatasetError(f"RandomPosterize: bits must be an int or an increasing pair in [1, 8], got {bits!r}")
        self.bits = (int(b[0]), int(b[1]))

    def __call__(self, img: Any) -> Any:
        return Posterize(int(_random.rng().integers(self.bits[0], self.bits[1] + 1)))(img)


# AlexNet's PCA of ImageNet's RGB pixels (eigenvalues, eigenvectors as columns), as MindSpore uses
_EIGVAL = np.array([55.46, 4.794, 1.148])
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])


class RandomLighting(ImageTensorOperation):
    """AlexNet's lighting noise: add `eigvec @ (a * eigval)` to every RGB pixel, `a ~ N(0, alpha)` per
    component (0 leaves the image alone); uint8 results are rounded and saturated."""

    uses_rng = True

    def __init__(self, alpha: float = 0.05) -> None:
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or alpha < 0:
            raise DatasetError(f"RandomLighting: alpha must be a non-negative number, got {alpha!r}")
        self.alpha = float(alpha)

    def __call__(self, img: Any) -> Any:
        array = hwc(img, "RandomLighting", channels=(3,))
        if self.alpha == 0:
            return img
        shift = _EIGVEC @ (_random.rng().normal(0, self.alpha, 3) * _EIGVAL)
        out = array.astype(np.float64) + shift
        if array.dtype.kind in "iu":
            out = np.clip(np.rint(out), 0, 255)
        out = out.astype(array.dtype)
        return Image.fromarray(out) if is_pil(img) else out
