"""`mindspore.train.train_thor`: MindSpore's THOR second-order optimiser conversion (`ConvertNetUtils`,
`ConvertModelUtils`). THOR rewrites a network into Ascend-specific layers (`DenseThor`, `Conv2dThor`) and a
`Model` into one that runs its second-order updates; msx has neither, so both classes exist (imports of
model-zoo code work) and their conversion methods raise an `MsxError` that says what to use instead."""
from __future__ import annotations

from ..errors import MsxError

_ADVICE = ("THOR (MindSpore's second-order optimiser) is not available in msx; train with a first-order optimiser "
           "(nn.Momentum, nn.Adam, ...) and the network as it is")


class ConvertNetUtils:
    """Converts a network's layers to THOR layers in MindSpore; not available in msx."""

    def convert_to_thor_net(self, net):
        raise MsxError(f"ConvertNetUtils.convert_to_thor_net: {_ADVICE}")


class ConvertModelUtils:
    """Converts a `Model` to a THOR model in MindSpore; not available in msx."""

    @staticmethod
    def convert_to_thor_model(model, network=None, loss_fn=None, optimizer=None, metrics=None, amp_level="O0",
                              loss_scale_manager=None, keep_batchnorm_fp32=False):
        raise MsxError(f"ConvertModelUtils.convert_to_thor_model: {_ADVICE}")


__all__ = ["ConvertModelUtils", "ConvertNetUtils"]
