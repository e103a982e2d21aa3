"""`msx.nn.loss`: MindSpore's loss Cells, at MindSpore's module path (`mindspore.nn.loss.loss.LossBase`)."""
from .loss import *  # noqa: F401,F403
from .loss import __all__  # noqa: F401  (so `from msx.nn.loss import *` takes the Cells, not the `loss` module)
from .multilabel_margin import MultilabelMarginLoss  # noqa: F401,E402
from .ctc import CTCLoss  # noqa: F401,E402
from .sampled_softmax import SampledSoftmaxLoss  # noqa: F401,E402
__all__ = [*__all__, "MultilabelMarginLoss", "CTCLoss", "SampledSoftmaxLoss"]
