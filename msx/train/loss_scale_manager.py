"""`msx.train.loss_scale_manager`: MindSpore's loss-scale managers (implemented in `msx.amp`)."""
from ..amp import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager  # noqa: F401

__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]
