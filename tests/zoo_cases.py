"""The mindcv model-zoo cases, shared by the golden recorder (run under real MindSpore 2.10) and
`tests/test_model_zoo.py` (run under msx through `msx.compat`): one network per family, its input, and the
weights, set from numpy on both sides so that no checkpoint has to be stored.

Only numpy is imported here; `mindspore` is whatever the caller made it (the real one, or msx's alias).
"""
from __future__ import annotations

import zlib

import numpy as np

NUM_CLASSES = 10
BATCH = 4  # BatchNorm's batch statistics over 4 samples (2 at a 1x1 map make its gradient ill-conditioned)
LR = 0.05

# family -> (how the network is built, input height/width). The networks with BatchNorm get 64x64 so that their
# last maps are 2x2: BatchNorm's batch statistics over 4 values per channel (a 1x1 map) amplify float32 rounding
# into percent-size gradient differences between any two implementations, MindSpore's own on two machines
# included; over 16 values msx and MindSpore agree to 1e-4. mobilenet_v1 stays at 32 with a float64 reference
# (`test_model_zoo_reference.py`) that pins its golden, repvgg (whose gap is not BatchNorm's) at 32. A registry
# name is `create_model(name)`, mindcv's smallest variant of the family; ("class", module, name, kwargs) builds
# the family's class with a small configuration where even the smallest registered variant is too big for a CPU
# test (ViT-B, Swin-T).
CASES: dict[str, tuple] = {
    "resnet": ("resnet18", 64),
    "mobilenet_v1": ("mobilenet_v1_025", 32),
    "mobilenet_v2": ("mobilenet_v2_035_96", 64),
    "mobilenet_v3": ("mobilenet_v3_small_075", 64),
    "efficientnet": ("efficientnet_b0", 64),
    "densenet": (("class", "mindcv.models.densenet", "DenseNet",  # densenet121's layout, fewer layers per block
                  dict(growth_rate=16, block_config=(2, 3, 4, 3), num_init_features=32)), 64),
    "regnet": ("regnet_x_200mf", 64),
    "shufflenet_v1": ("shufflenet_v1_g3_05", 64),
    "shufflenet_v2": ("shufflenet_v2_x0_5", 64),
    "squeezenet": ("squeezenet1_0", 64),
    "squeezenet1_1": ("squeezenet1_1", 64),
    "ghostnet": ("ghostnet_050", 64),
    "convnext": ("convnextv2_atto", 32),
    "vit": (("class", "mindcv.models.vit", "VisionTransformer",
             dict(image_size=32, patch_size=8, embed_dim=32, depth=2, num_heads=2)), 32),
    "swin": (("class", "mindcv.models.swintransformer", "SwinTransformer",
              dict(image_size=32, patch_size=2, embed_dim=16, depths=[2, 2], num_heads=[1, 2], window_size=4,
                   drop_path_rate=0.0)), 32),
    "pvt": ("pvt_v2_b0", 32),
    "repvgg": ("repvgg_a0", 32),
    "skresnet": ("skresnet18", 64),
    "mnasnet": ("mnasnet_050", 64),
}


def build(name: str):
    """The network of case `name` (mindcv imported lazily: the caller installs the alias first)."""
    import importlib

    from mindcv.models import create_model

    spec, _ = CASES[name]
    if isinstance(spec, str):
        return create_model(spec, num_classes=NUM_CLASSES, pretrained=False)
    _, module, cls, kwargs = spec
    return getattr(importlib.import_module(module), cls)(num_classes=NUM_CLASSES, **kwargs)


def weight(name: str, shape: tuple) -> np.ndarray:
    """A deterministic value for the parameter `name` (seeded by the name, so the order parameters are
    visited in does not matter): fan-in-scaled normals for weights, near-one scales, small shifts."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    leaf = name.rsplit(".", 1)[-1]
    if len(shape) >= 2:
        fan_in = int(np.prod(shape[1:])) or 1
        return (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)
    if leaf in ("gamma", "moving_variance", "weight") or "variance" in leaf:
        return rng.uniform(0.8, 1.2, shape).astype(np.float32)
    return (0.05 * rng.standard_normal(shape)).astype(np.float32)


def image(name: str) -> np.ndarray:
    size = CASES[name][1]
    return np.random.default_rng(7).standard_normal((BATCH, 3, size, size)).astype(np.float32)


LABELS = np.array([1, 7, 3, 0], np.int32)


def no_dropout(net) -> None:
    """Put every dropout-like cell in eval mode (the training step must be deterministic on both sides)."""
    for _, cell in net.cells_and_names():
        if type(cell).__name__ in ("Dropout", "DropPath", "DropBlock", "DropPath2d"):
            cell.set_train(False)
