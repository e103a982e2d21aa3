"""`mindspore.train.train_thor`: MindSpore's THOR second-order optimiser conversion (`ConvertNetUtils`,
`ConvertModelUtils`). THOR rewrites a network into Ascend-specific layers (`DenseThor`, `Conv2dThor`) and a
`Model` into one that runs its second-order updates; msx has neither, so both classes exist (imports of
model-zoo code work) and their conversion methods raise `NotAvailableError` saying what to use instead
(`msx.unavailable`)."""
from __future__ import annotations

from ..unavailable import mark_refused, refused_method

_WHAT = "MindSpore's THOR second-order optimiser"
_INSTEAD = "train with a first-order optimiser (nn.Momentum, nn.Adam, ...) and the network as it is"


class ConvertNetUtils:
    """Converts a network's layers to THOR layers in MindSpore; not available in msx."""

    convert_to_thor_net = refused_method("mindspore.train.ConvertNetUtils", "convert_to_thor_net", _WHAT, _INSTEAD)


class ConvertModelUtils:
    """Converts a `Model` to a THOR model in MindSpore; not available in msx."""

    convert_to_thor_model = staticmethod(refused_method("mindspore.train.ConvertModelUtils", "convert_to_thor_model",
                                                        _WHAT, _INSTEAD))


mark_refused(ConvertNetUtils, "mindspore.train.ConvertNetUtils", _WHAT, _INSTEAD)
mark_refused(ConvertModelUtils, "mindspore.train.ConvertModelUtils", _WHAT, _INSTEAD)

__all__ = ["ConvertModelUtils", "ConvertNetUtils"]
