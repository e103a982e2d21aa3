"""Augmentation policies: AutoAugment (Cubuk et al.'s learned ImageNet / CIFAR-10 / SVHN policies), RandAugment,
TrivialAugmentWide, and the two policy containers UniformAugment and RandomSelectSubpolicy.

The policy tables, magnitude ranges and sign rule are torchvision's, which MindSpore's C++ kernels follow;
each operation is the msx transform of the same name (shear/translate/rotate are `Affine` warps about the image
centre with `interpolation` and `fill_value`). Draws come from `_random.rng()`, so MindSpore's own choices are
not reproduced, only the rules.
"""
from __future__ import annotations

import enum
import math
from typing import Any, Callable, Sequence

import numpy as np
from PIL import Image, ImageEnhance

from ...errors import DatasetError
from .. import _random
from .color import AutoContrast, Invert, Posterize, enhance
from .core import ImageTensorOperation, Inter, check_prob, hwc, is_pil
from .filters import sharpness
from .geometry import fill_arg
from .tone import equalize, solarize
from .warps import affine, warp_inter


class AutoAugmentPolicy(str, enum.Enum):
    """The dataset AutoAugment's policy was learned on."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


_P = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)), (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)), (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)), (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)), (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)), (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)), (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)), (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)), (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)), (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None))],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)), (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)), (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)), (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)), (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)), (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)), (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)), (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)), (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)), (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)), (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)), (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)), (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None))],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)), (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)), (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)), (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)), (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)), (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)), (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)), (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)), (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)), (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)), (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None))],
}


def _signed(op: str) -> bool:
    return op in ("ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color", "Contrast",
                  "Sharpness")


def apply_op(img: Any, op: str, magnitude: float, inter: Inter, fill: Any) -> Any:
    """One policy operation on a uint8 image (numpy HWC or PIL)."""
    if op == "Identity":
        return img
    if op in ("ShearX", "ShearY"):
        shear = math.degrees(math.atan(magnitude))
        return affine(img, 0.0, (0.0, 0.0), 1.0, (shear, 0.0) if op == "ShearX" else (0.0, shear), inter, fill, op)
    if op in ("TranslateX", "TranslateY"):
        h, w = hwc(img, op).shape[:2]
        move = (int(magnitude) / w, 0.0) if op == "TranslateX" else (0.0, int(magnitude) / h)
        return affine(img, 0.0, move, 1.0, (0.0, 0.0), inter, fill, op)
    if op == "Rotate":
        return affine(img, magnitude, (0.0, 0.0), 1.0, (0.0, 0.0), inter, fill, op)
    enhancers = {"Brightness": ImageEnhance.Brightness, "Color": ImageEnhance.Color,
                 "Contrast": ImageEnhance.Contrast}
    if op in enhancers:
        return enhance(img, enhancers[op], 1.0 + magnitude, op)
    if op == "Sharpness":
        return sharpness(img, 1.0 + magnitude, op)
    if op == "Posterize":
        return Posterize(int(magnitude))(img)
    if op == "Solarize":
        array = hwc(img, op)
        out = solarize(array, magnitude, 255)
        return Image.fromarray(out) if is_pil(img) else out
    if op == "AutoContrast":
        return AutoContrast()(img)
    if op == "Equalize":
        return equalize(img, op)
    if op == "Invert":
        return Invert()(img)
    raise DatasetError(f"augmentation policy: unknown operation {op!r}")


def _check_uint8_rgb(img: Any, op: str) -> None:
    array = hwc(img, op, channels=(1, 3))
    if array.dtype != np.uint8:
        raise DatasetError(f"{op}: expected a uint8 image, got dtype {array.dtype}")


def _magnitudes(num_bins: int, h: int, w: int, wide: bool) -> dict[str, np.ndarray]:
    """torchvision's magnitude tables: RandAugment/AutoAugment ranges, or TrivialAugmentWide's wider ones."""
    b = num_bins
    if wide:
        return {"Identity": np.zeros(b), "ShearX": np.linspace(0, 0.99, b), "ShearY": np.linspace(0, 0.99, b),
                "TranslateX": np.linspace(0, 32.0, b), "TranslateY": np.linspace(0, 32.0, b),
                "Rotate": np.linspace(0, 135.0, b), "Brightness": np.linspace(0, 0.99, b),
                "Color": np.linspace(0, 0.99, b), "Contrast": np.linspace(0, 0.99, b),
                "Sharpness": np.linspace(0, 0.99, b),
                "Posterize": 8 - np.round(np.arange(b) / ((b - 1) / 6)), "Solarize": np.linspace(255.0, 0.0, b),
                "AutoContrast": np.zeros(b), "Equalize": np.zeros(b)}
    return {"Identity": np.zeros(b), "ShearX": np.linspace(0, 0.3, b), "ShearY": np.linspace(0, 0.3, b),
            "TranslateX": np.linspace(0, 150.0 / 331.0 * w, b), "TranslateY": np.linspace(0, 150.0 / 331.0 * h, b),
            "Rotate": np.linspace(0, 30.0, b), "Brightness": np.linspace(0, 0.9, b), "Color": np.linspace(0, 0.9, b),
            "Contrast": np.linspace(0, 0.9, b), "Sharpness": np.linspace(0, 0.9, b),
            "Posterize": 8 - np.round(np.arange(b) / ((b - 1) / 4)), "Solarize": np.linspace(255.0, 0.0, b),
            "AutoContrast": np.zeros(b), "Equalize": np.zeros(b), "Invert": np.zeros(b)}


def _bins(op: str, name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise DatasetError(f"{op}: {name} must be an int >= {low}, got {value!r}")
    return value


class _Policy(ImageTensorOperation):
    uses_rng = True

    def _common(self, interpolation: Inter, fill_value: Any) -> None:
        op = type(self).__name__
        self.interpolation = warp_inter(op, interpolation)
        self.fill_value = fill_arg(op, fill_value)

    def _apply(self, img: Any, op: str, magnitude: float, rng: np.random.Generator) -> Any:
        if _signed(op) and rng.random() < 0.5:
            magnitude = -magnitude
        return apply_op(img, op, float(magnitude), self.interpolation, self.fill_value)


class AutoAugment(_Policy):
    """Apply one of the 25 learned sub-policies of `policy`, chosen uniformly: each of its two operations with
    its probability and magnitude (of 10 bins)."""

    def __init__(self, policy: AutoAugmentPolicy = AutoAugmentPolicy.IMAGENET, interpolation: Inter = Inter.NEAREST,
                 fill_value: Any = 0) -> None:
        try:
            self.policy = AutoAugmentPolicy(policy)
        except ValueError:
            raise DatasetError(f"AutoAugment: policy must be a vision.AutoAugmentPolicy, got {policy!r}") from None
        self._common(interpolation, fill_value)

    def __call__(self, img: Any) -> Any:
        _check_uint8_rgb(img, "AutoAugment")
        h, w = hwc(img, "AutoAugment").shape[:2]
        table = _magnitudes(10, h, w, wide=False)
        rng = _random.rng()
        for op, prob, bin_ in _P[self.policy][int(rng.integers(0, len(_P[self.policy])))]:
            if rng.random() < prob:
                img = self._apply(img, op, table[op][bin_] if bin_ is not None else 0.0, rng)
        return img


class RandAugment(_Policy):
    """Apply `num_ops` operations chosen uniformly (with repetition) among 14, all at `magnitude` of
    `num_magnitude_bins` bins (Cubuk et al. 2020)."""

    def __init__(self, num_ops: int = 2, magnitude: int = 9, num_magnitude_bins: int = 31,
                 interpolation: Inter = Inter.NEAREST, fill_value: Any = 0) -> None:
        self.num_ops = _bins("RandAugment", "num_ops", num_ops, 0)
        self.num_magnitude_bins = _bins("RandAugment", "num_magnitude_bins", num_magnitude_bins, 2)
        if isinstance(magnitude, bool) or not isinstance(magnitude, int) or not 0 <= magnitude < num_magnitude_bins:
            raise DatasetError(f"RandAugment: magnitude must be an int in [0, {num_magnitude_bins}), got "
                               f"{magnitude!r}")
        self.magnitude = magnitude
        self._common(interpolation, fill_value)

    def __call__(self, img: Any) -> Any:
        _check_uint8_rgb(img, "RandAugment")
        h, w = hwc(img, "RandAugment").shape[:2]
        table = _magnitudes(self.num_magnitude_bins, h, w, wide=False)
        ops = [k for k in table if k != "Invert"]
        rng = _random.rng()
        for _ in range(self.num_ops):
            op = ops[int(rng.integers(0, len(ops)))]
            img = self._apply(img, op, table[op][self.magnitude], rng)
        return img


class TrivialAugmentWide(_Policy):
    """Apply one operation chosen uniformly among 14, at a magnitude bin chosen uniformly (Müller & Hutter,
    the wide ranges)."""

    def __init__(self, num_magnitude_bins: int = 31, interpolation: Inter = Inter.NEAREST,
                 fill_value: Any = 0) -> None:
        self.num_magnitude_bins = _bins("TrivialAugmentWide", "num_magnitude_bins", num_magnitude_bins, 2)
        self._common(interpolation, fill_value)

    def __call__(self, img: Any) -> Any:
        _check_uint8_rgb(img, "TrivialAugmentWide")
        h, w = hwc(img, "TrivialAugmentWide").shape[:2]
        table = _magnitudes(self.num_magnitude_bins, h, w, wide=True)
        rng = _random.rng()
        op = list(table)[int(rng.integers(0, len(table)))]
        return self._apply(img, op, table[op][int(rng.integers(0, self.num_magnitude_bins))], rng)


def _transform_list(op: str, transforms: Any) -> list[Callable]:
    if not isinstance(transforms, (list, tuple)) or not transforms or not all(callable(t) for t in transforms):
        raise DatasetError(f"{op}: transforms must be a non-empty list of transforms, got {transforms!r}")
    return list(transforms)


class UniformAugment(ImageTensorOperation):
    """Apply `num_ops` of `transforms`, chosen uniformly without repetition, in a random order."""

    uses_rng = True

    def __init__(self, transforms: Sequence[Callable], num_ops: int = 2) -> None:
        self.transforms = _transform_list("UniformAugment", transforms)
        if isinstance(num_ops, bool) or not isinstance(num_ops, int) or not 1 <= num_ops <= len(self.transforms):
            raise DatasetError(f"UniformAugment: num_ops must be an int in [1, {len(self.transforms)}] (the number "
                               f"of transforms), got {num_ops!r}")
        self.num_ops = num_ops

    def __call__(self, img: Any) -> Any:
        for i in _random.rng().permutation(len(self.transforms))[:self.num_ops]:
            img = self.transforms[int(i)](img)
        return img


class RandomSelectSubpolicy(ImageTensorOperation):
    """Choose one sub-policy of `policy` uniformly — a list of (transform, probability) — and apply each of its
    transforms with its probability, in order."""

    uses_rng = True

    def __init__(self, policy: Sequence[Sequence[tuple[Callable, float]]]) -> None:
        if not isinstance(policy, (list, tuple)) or not policy:
            raise DatasetError(f"RandomSelectSubpolicy: policy must be a non-empty list of sub-policies, got "
                               f"{policy!r}")
        checked = []
        for sub in policy:
            if not isinstance(sub, (list, tuple)) or not sub or not all(
                    isinstance(p, (list, tuple)) and len(p) == 2 and callable(p[0]) for p in sub):
                raise DatasetError(f"RandomSelectSubpolicy: each sub-policy must be a non-empty list of "
                                   f"(transform, prob) pairs, got {sub!r}")
            checked.append([(t, check_prob("RandomSelectSubpolicy", p)) for t, p in sub])
        self.policy = checked

    def __call__(self, img: Any) -> Any:
        rng = _random.rng()
        for transform, prob in self.policy[int(rng.integers(0, len(self.policy)))]:
            if rng.random() < prob:
                img = transform(img)
        return img
