"""`msx.mint.nn`: torch-style layer names and arguments over `msx.nn`."""
from __future__ import absolute_import  # noqa: F401  (MindSpore's mint.nn exports it too)

from ... import nn as _nn
from ...nn import (Flatten, Linear, ReLU, Sigmoid, Tanh,  # noqa: F401
                   L1Loss, MSELoss, BCEWithLogitsLoss, CrossEntropyLoss)
from . import functional  # noqa: F401
from ...nn.layer.ext_layers import DropoutExt as Dropout  # noqa: F401


class GELU(_nn.GELU):
    """torch-style: exact GELU unless `approximate="tanh"`."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__(approximate=approximate)


class Softmax(_nn.Softmax):
    """torch-style: `Softmax(dim=None)` (None means the last axis)."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__(axis=-1 if dim is None else dim)
from .layers import *  # noqa: F401,F403,E402  (torch-style names over nn: pools, pads, activations, losses)
from .conv_norm import *  # noqa: F401,F403,E402  (convolutions, batch/layer/group norm, Embedding)
from .fold import *  # noqa: F401,F403,E402  (Unfold, Fold, UpsamplingNearest2d/Bilinear2d, MaxUnpool2d)
# functions mindspore.mint.nn exports by these names (the same functions as mint.nn.functional's)
cross_entropy, nllloss, kl_div_ext, mse_loss_ext = (functional.cross_entropy, functional.nll_loss,  # noqa: E402
                                                    functional.kl_div, functional.mse_loss)
from ...ops.mint_prim_ops import upsample_bilinear2d_op, upsample_nearest2d_op  # noqa: F401,E402  (Prim instances)
