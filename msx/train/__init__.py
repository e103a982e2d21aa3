"""`msx.train`: MindSpore's `Model` with callbacks and metrics (`from msx.train import Model, LossMonitor`)."""
from ..amp import DynamicLossScaleManager, FixedLossScaleManager  # noqa: F401
from .callback import (Callback, CheckpointConfig, EarlyStopping, History, LossMonitor,  # noqa: F401
                       ModelCheckpoint, ProgressBar, RunContext, TimeMonitor)
from .metrics import MAE, MSE, Accuracy, Loss, Metric, get_metric_fn  # noqa: F401
from .model import Model  # noqa: F401

__all__ = ["Model", "Callback", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig",
           "EarlyStopping", "History", "ProgressBar", "Metric", "Accuracy", "Loss", "MAE", "MSE", "get_metric_fn",
           "FixedLossScaleManager", "DynamicLossScaleManager"]
