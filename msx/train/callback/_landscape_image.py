"""A loss landscape drawn as a picture for TensorBoard's Images page (MindInsight draws it in 3-D; TensorBoard
cannot, so msx writes this map beside the numbers).

The grid's loss is a colour map (dark blue = low, yellow = high, on a log scale when the losses span more than
a factor of 10), upsampled bilinearly, with 10 contour lines at evenly spaced loss levels; the training path of a
PCA landscape is drawn in white over it, its checkpoints as dots, and the convergence point in red. NaN or
infinite losses are black. Row 0 of the picture is the grid's highest y, as on a plot.
"""
from __future__ import annotations

import numpy as np

SIDE = 256
LEVELS = 10
# viridis at 0, 1/4, 1/2, 3/4, 1
_ANCHORS = np.array([[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]], np.float64) / 255


def _colours(t: np.ndarray) -> np.ndarray:
    t = np.clip(t, 0, 1) * (len(_ANCHORS) - 1)
    low = np.minimum(np.floor(t).astype(int), len(_ANCHORS) - 2)
    frac = (t - low)[..., None]
    return _ANCHORS[low] * (1 - frac) + _ANCHORS[low + 1] * frac


def render(x: np.ndarray, y: np.ndarray, z: np.ndarray, path: tuple | None = None,
           convergence: tuple | None = None, side: int = SIDE) -> np.ndarray:
    """The landscape `z[i, j]` (loss at x[j], y[i]) as a (1, 3, side, side) float32 image in [0, 1]."""
    from PIL import Image, ImageDraw  # Pillow loads when a landscape is drawn, not with `import msx`

    z = np.asarray(z, np.float64)
    finite = np.isfinite(z)
    if finite.any():
        low, high = z[finite].min(), z[finite].max()
        values = np.where(finite, z, low)
        if low > 0 and high / low > 10:
            values, low, high = np.log(values), np.log(low), np.log(high)
        t = (values - low) / (high - low) if high > low else np.zeros_like(values)
    else:
        t = np.zeros_like(z)
    up = np.asarray(Image.fromarray(t[::-1].astype(np.float32), mode="F").resize((side, side), Image.BILINEAR))
    bad = np.asarray(Image.fromarray((~finite[::-1]).astype(np.uint8) * 255).resize((side, side), Image.NEAREST)) > 0
    rgb = _colours(up)
    band = np.floor(np.clip(up, 0, 1) * LEVELS - 1e-9)
    edge = np.zeros(band.shape, bool)
    edge[:, 1:] |= band[:, 1:] != band[:, :-1]
    edge[1:, :] |= band[1:, :] != band[:-1, :]
    rgb[edge] = rgb[edge] * 0.55
    rgb[bad] = 0
    image = Image.fromarray((rgb * 255).round().astype(np.uint8))
    draw = ImageDraw.Draw(image)

    def pixel(px, py):
        span_x, span_y = (x[-1] - x[0]) or 1.0, (y[-1] - y[0]) or 1.0
        return ((px - x[0]) / span_x * (side - 1), (1 - (py - y[0]) / span_y) * (side - 1))

    if path is not None and len(path[0]):
        points = [pixel(px, py) for px, py in zip(path[0], path[1])]
        if len(points) > 1:
            draw.line(points, fill=(255, 255, 255), width=2)
        for cx, cy in points:
            draw.ellipse([cx - 3, cy - 3, cx + 3, cy + 3], outline=(255, 255, 255), fill=(255, 255, 255))
    if convergence is not None:
        cx, cy = pixel(convergence[0], convergence[1])
        draw.ellipse([cx - 4, cy - 4, cx + 4, cy + 4], outline=(255, 255, 255), fill=(230, 30, 30))
    return (np.asarray(image, np.float32) / 255).transpose(2, 0, 1)[None]
