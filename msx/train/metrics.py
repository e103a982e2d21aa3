"""`msx.train.metrics`: MindSpore's metrics (implemented in `msx.nn.metrics`, the lower layer, as MindSpore also
exposes them from `mindspore.nn`)."""
from ..nn.metrics import *  # noqa: F401,F403
from ..nn.metrics import MAE, MSE, Accuracy, Loss, Metric, get_metric_fn, get_metrics, names, rearrange_inputs  # noqa: F401
