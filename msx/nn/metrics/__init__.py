"""MindSpore's metrics (`mindspore.train.metrics`, also exposed in `mindspore.nn`): numpy on the host."""
from ._base import MAE, MSE, Accuracy, Loss, Metric, get_metric_fn, get_metrics, rearrange_inputs  # noqa: F401
from .classification import *  # noqa: F401,F403
from .occlusion import OcclusionSensitivity  # noqa: F401
from .segmentation import (ConfusionMatrixMetric, HausdorffDistance, MeanSurfaceDistance,  # noqa: F401
                           RootMeanSquareDistance)
from . import classification as _classification
from . import _base


def names() -> list[str]:
    """The metric names `get_metric_fn` knows."""
    return sorted(_base._BY_NAME)


_base._BY_NAME.update({"precision": _classification.Precision, "recall": _classification.Recall,
                       "f1": _classification.F1, "dice": _classification.Dice,
                       "top_1_accuracy": _classification.Top1CategoricalAccuracy,
                       "top_5_accuracy": _classification.Top5CategoricalAccuracy,
                       "perplexity": _classification.Perplexity,
                       "occlusion_sensitivity": OcclusionSensitivity, "hausdorff_distance": HausdorffDistance,
                       "mean_surface_distance": MeanSurfaceDistance,
                       "root_mean_square_distance": RootMeanSquareDistance,
                       "confusion_matrix_metric": ConfusionMatrixMetric})
