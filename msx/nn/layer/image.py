"""Image layers (MindSpore's `nn.layer.image`): `PixelShuffle`, `PixelUnshuffle`, `CentralCrop`,
`ImageGradients`, `PSNR`."""
from __future__ import annotations

import math

from ... import dtype as mstype
from ...ops import functional as F
from ...ops import functional_layers as X
from ...tensor import Tensor
from ..cell import Cell
from ._utils import check_input


class PixelShuffle(Cell):
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r)."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        if upscale_factor < 1:
            raise ValueError(f"PixelShuffle: upscale_factor must be >= 1, got {upscale_factor}")
        self.upscale_factor = int(upscale_factor)

    def construct(self, x: Tensor) -> Tensor:
        return X.pixel_shuffle(x, self.upscale_factor)


class PixelUnshuffle(Cell):
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W)."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        if downscale_factor < 1:
            raise ValueError(f"PixelUnshuffle: downscale_factor must be >= 1, got {downscale_factor}")
        self.downscale_factor = int(downscale_factor)

    def construct(self, x: Tensor) -> Tensor:
        return X.pixel_unshuffle(x, self.downscale_factor)


class CentralCrop(Cell):
    """Crop the central `central_fraction` of the H and W dims of (C, H, W) or (N, C, H, W) images."""

    def __init__(self, central_fraction: float) -> None:
        super().__init__()
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"CentralCrop: central_fraction must be in (0, 1], got {central_fraction}")
        self.central_fraction = float(central_fraction)

    def construct(self, image: Tensor) -> Tensor:
        check_input(image.ndim in (3, 4), "CentralCrop", image, "expected (C, H, W) or (N, C, H, W)")
        h, w = image.shape[-2], image.shape[-1]
        top, left = int((h - h * self.central_fraction) / 2), int((w - w * self.central_fraction) / 2)
        return image[..., top:h - top, left:w - left]


class ImageGradients(Cell):
    """(dy, dx) of (N, C, H, W) images: forward differences, zero in the last row / column."""

    def construct(self, images: Tensor):
        check_input(images.ndim == 4, "ImageGradients", images, "expected (N, C, H, W)")
        dy = F.pad(images[:, :, 1:, :] - images[:, :, :-1, :], (0, 0, 0, 1))
        dx = F.pad(images[:, :, :, 1:] - images[:, :, :, :-1], (0, 1, 0, 0))
        return dy, dx


class PSNR(Cell):
    """Peak signal-to-noise ratio per image of (N, C, H, W) batches, `10 log10(max_val^2 / mse)`."""

    def __init__(self, max_val: float = 1.0) -> None:
        super().__init__()
        if max_val <= 0:
            raise ValueError(f"PSNR: max_val must be > 0, got {max_val}")
        self.max_val = float(max_val)

    def construct(self, img1: Tensor, img2: Tensor) -> Tensor:
        mse = F.mean(F.square(F.cast(img1, mstype.float32) - F.cast(img2, mstype.float32)), (1, 2, 3))
        return 10.0 * F.log(self.max_val ** 2 / mse) / math.log(10.0)
