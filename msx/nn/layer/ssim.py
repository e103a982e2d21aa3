"""MindSpore's structural-similarity layers `nn.SSIM` and `nn.MSSSIM` on (N, C, H, W) image batches.

Each channel is filtered on its own by one Gaussian window (`filter_size` square, `filter_sigma`), with no
padding ("valid"), as MindSpore does; the SSIM map is averaged over space, then over channels. Integer
images are scaled to [0, 1] by their dtype's maximum (and `max_val` with them), float images are used as
they are. MS-SSIM takes `len(power_factors)` scales, halving the images by 2x2 average pooling in between.
"""
from __future__ import annotations

import numpy as np

from ... import dtype as mstype
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ._utils import check_input


def _window(size: int, sigma: float) -> np.ndarray:
    """The normalised Gaussian window, as a (1, 1, size, size) convolution weight."""
    offsets = np.arange(-size // 2 + 1, size // 2 + 1, dtype=np.float32)
    g = np.exp(-(offsets[:, None] ** 2 + offsets[None, :] ** 2) / (2 * sigma ** 2)).astype(np.float32)
    return (g / g.sum())[None, None]


def _dtype_max(dtype) -> float:
    """The largest value of an integer dtype (the images are scaled by it); 1.0 for floats."""
    np_dtype = np.dtype(mstype.to_np(dtype))
    return float(np.iinfo(np_dtype).max) if np.issubdtype(np_dtype, np.integer) else 1.0


def _to_float(x, dtype_max: float):
    x = F.cast(x, mstype.float32) if isinstance(x, Tensor) else float(x)
    return x * (1.0 / dtype_max) if dtype_max > 1.0 else x


def _check_number(layer: str, name: str, value, *, positive: bool = True, types=(int, float)) -> None:
    if isinstance(value, bool) or not isinstance(value, types):
        raise TypeError(f"{layer}: {name} must be {' or '.join(t.__name__ for t in types)}, got "
                        f"{type(value).__name__}")
    if positive and value <= 0:
        raise ValueError(f"{layer}: {name} must be > 0, got {value}")


class _Similarity(Cell):
    """What SSIM and MS-SSIM share: the arguments, the window, and one scale's per-channel SSIM and
    contrast-structure terms."""

    def __init__(self, max_val, filter_size, filter_sigma, k1, k2) -> None:
        super().__init__()
        name = type(self).__name__
        _check_number(name, "max_val", max_val)
        if isinstance(filter_size, bool) or not isinstance(filter_size, int) or filter_size < 1:
            raise ValueError(f"{name}: filter_size must be an int >= 1, got {filter_size!r}")
        _check_number(name, "filter_sigma", filter_sigma, types=(float,))
        _check_number(name, "k1", k1, positive=False, types=(float,))
        _check_number(name, "k2", k2, positive=False, types=(float,))
        self.max_val, self.filter_size, self.filter_sigma, self.k1, self.k2 = max_val, filter_size, filter_sigma, k1, k2
        self.window = Tensor(_window(filter_size, filter_sigma))

    def _prepare(self, img1: Tensor, img2: Tensor, allowed: tuple) -> tuple:
        name = type(self).__name__
        check_input(img1.ndim == 4, name, img1, f"img1 must be 4-D (N, C, H, W), got shape {img1.shape}")
        check_input(img1.dtype in allowed, name, img1,
                    f"img1's dtype must be one of {[str(d) for d in allowed]}, got {img1.dtype}")
        check_input(img1.shape == img2.shape and img1.dtype == img2.dtype, name, img2,
                    f"img1 and img2 must have one shape and dtype, got {img1.dtype}{img1.shape} and "
                    f"{img2.dtype}{img2.shape}")
        dtype_max = _dtype_max(img1.dtype)
        max_val = _to_float(self.max_val, dtype_max)
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        return _to_float(img1, dtype_max), _to_float(img2, dtype_max), c1, c2

    def _scale(self, img1: Tensor, img2: Tensor, c1: float, c2: float) -> tuple[Tensor, Tensor]:
        """(SSIM, contrast-structure) per image and channel, (N, C), at this scale."""
        n, c, h, w = img1.shape
        check_input(h >= self.filter_size and w >= self.filter_size, type(self).__name__, img1,
                    f"the images ({h}x{w} at this scale) must be at least filter_size={self.filter_size} on each "
                    f"side")

        def blur(x):
            return F.conv2d(F.reshape(x, (n * c, 1, h, w)), self.window)

        mu1, mu2 = blur(img1), blur(img2)
        mu1_sq, mu2_sq, mu12 = mu1 * mu1, mu2 * mu2, mu1 * mu2
        sigma1_sq = blur(img1 * img1) - mu1_sq
        sigma2_sq = blur(img2 * img2) - mu2_sq
        sigma12 = blur(img1 * img2) - mu12
        v1, v2 = 2 * sigma12 + c2, sigma1_sq + sigma2_sq + c2
        ssim = ((2 * mu12 + c1) * v1) / ((mu1_sq + mu2_sq + c1) * v2)
        cs = v1 / v2
        return (F.reshape(F.mean(ssim, (1, 2, 3)), (n, c)), F.reshape(F.mean(cs, (1, 2, 3)), (n, c)))


class SSIM(_Similarity):
    """The structural similarity of two float16/float32 image batches, per image: (N,)."""

    def __init__(self, max_val: float = 1.0, filter_size: int = 11, filter_sigma: float = 1.5, k1: float = 0.01,
                 k2: float = 0.03) -> None:
        super().__init__(max_val, filter_size, filter_sigma, k1, k2)

    def construct(self, img1: Tensor, img2: Tensor) -> Tensor:
        img1, img2, c1, c2 = self._prepare(img1, img2, (mstype.float32, mstype.float16))
        ssim, _ = self._scale(img1, img2, c1, c2)
        return F.mean(ssim, -1)


class MSSSIM(_Similarity):
    """Multi-scale SSIM per image, (N,): the contrast-structure terms of the first scales and the SSIM of the
    last, each clipped at 0 and raised to its `power_factors` weight, multiplied."""

    def __init__(self, max_val: float = 1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333),
                 filter_size: int = 11, filter_sigma: float = 1.5, k1: float = 0.01, k2: float = 0.03) -> None:
        super().__init__(max_val, filter_size, filter_sigma, k1, k2)
        if not isinstance(power_factors, (tuple, list)) or not power_factors:
            raise TypeError(f"MSSSIM: power_factors must be a non-empty tuple or list, got {power_factors!r}")
        self.power_factors = tuple(float(p) for p in power_factors)
        self.weights = Tensor(np.array(self.power_factors, np.float32))

    def construct(self, img1: Tensor, img2: Tensor) -> Tensor:
        img1, img2, c1, c2 = self._prepare(img1, img2, (mstype.float64, mstype.float32, mstype.float16,
                                                        mstype.uint8))
        terms = []
        for level in range(len(self.power_factors)):
            ssim, cs = self._scale(img1, img2, c1, c2)
            terms.append(F.relu(ssim if level == len(self.power_factors) - 1 else cs))
            if level < len(self.power_factors) - 1:
                img1, img2 = F.avg_pool2d(img1, 2, 2), F.avg_pool2d(img2, 2, 2)
        weighted = F.pow(F.stack(terms, -1), self.weights)
        return F.mean(F.prod(weighted, -1), -1)


__all__ = ["SSIM", "MSSSIM"]
