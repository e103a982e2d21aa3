"""`msx.train`: MindSpore's `Model` with callbacks and metrics (`from msx.train import Model, LossMonitor`)."""
from __future__ import absolute_import  # noqa: F401  (as mindspore.train's own module does)

from .. import amp  # noqa: F401
from ..amp import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager, build_train_network  # noqa: F401
from . import callback, dataset_helper, loss_scale_manager, metrics, serialization  # noqa: F401
from .callback import (Callback, CheckpointConfig, EarlyStopping, History, LambdaCallback,  # noqa: F401
                       LearningRateScheduler, LossMonitor, ModelCheckpoint, ProgressBar, ReduceLROnPlateau,
                       RunContext, TimeMonitor)
from .dataset_helper import DatasetHelper, connect_network_with_dataset, data_sink  # noqa: F401
from .metrics import *  # noqa: F401,F403
from .metrics import MAE, MSE, Accuracy, Loss, Metric, get_metric_fn, get_metrics, names, rearrange_inputs  # noqa: F401
from .model import Model  # noqa: F401
from . import model  # noqa: F401
from .serialization import (async_ckpt_thread_status, export, load, load_checkpoint, load_checkpoint_async,  # noqa: F401,E501
                            load_param_into_net, save_checkpoint)

__all__ = ["Model", "Callback", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig",
           "EarlyStopping", "History", "ProgressBar", "LambdaCallback", "LearningRateScheduler", "ReduceLROnPlateau",
           "Metric", "Accuracy", "Loss", "MAE", "MSE", "Precision", "Recall", "F1", "Fbeta", "TopKCategoricalAccuracy",
           "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "ConfusionMatrix", "Dice", "Perplexity", "ROC",
           "auc", "CosineSimilarity", "BleuScore", "get_metric_fn", "names", "rearrange_inputs",
           "FixedLossScaleManager", "DynamicLossScaleManager", "LossScaleManager", "build_train_network",
           "DatasetHelper", "connect_network_with_dataset", "data_sink", "save_checkpoint", "load_checkpoint",
           "load_param_into_net", "export", "load", "async_ckpt_thread_status"]
from .callback import BackupAndRestore  # noqa: E402
from .serialization import ckpt_to_safetensors, merge_sliced_parameter, safetensors_to_ckpt  # noqa: E402

__all__ += ["ConfusionMatrixMetric", "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance",
            "OcclusionSensitivity"]
__all__ += ["BackupAndRestore", "ckpt_to_safetensors", "safetensors_to_ckpt", "merge_sliced_parameter"]
from . import summary  # noqa: E402  (TensorBoard: docs/summary.md)
from .callback import SummaryCollector, SummaryLandscape  # noqa: E402
from .callback import OnRequestExit  # noqa: E402
from ..parallel.dist_checkpoint import get_ckpt_path_with_strategy  # noqa: E402
# mindspore.train names these of mindspore.parallel too (the same objects)
from ..parallel.dist_checkpoint import build_searched_strategy, load_distributed_checkpoint  # noqa: E402
from ..parallel.api import PUBLIC as _PARALLEL  # noqa: E402
restore_group_info_list = _PARALLEL["restore_group_info_list"]
__all__ += ["OnRequestExit", "get_ckpt_path_with_strategy", "build_searched_strategy", "load_distributed_checkpoint",
            "restore_group_info_list"]
from .summary import SummaryRecord  # noqa: E402
from ..mindir.split import export_split_mindir  # noqa: E402

__all__ += ["SummaryRecord", "SummaryCollector", "SummaryLandscape", "export_split_mindir"]

# MindSpore's THOR converters and Ascend services: they exist so that imports work, and refuse use (msx.unavailable)
from .train_thor import ConvertModelUtils, ConvertNetUtils  # noqa: E402
from ..refused_runtime import NAMES as _REFUSED, TRAIN as _TRAIN_REFUSED  # noqa: E402
globals().update({_n: _REFUSED[_n] for _n in _TRAIN_REFUSED})
__all__ += ["ConvertModelUtils", "ConvertNetUtils", *_TRAIN_REFUSED]
