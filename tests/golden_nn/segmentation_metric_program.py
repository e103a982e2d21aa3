"""Segmentation metrics and OcclusionSensitivity on fixed data. Recorded with MindSpore 2.10 as
`.venv-ms/bin/python tests/golden_nn/segmentation_metric_program.py > tests/golden_nn/data/segmentation_metrics.json`;
`tests/test_segmentation_metrics.py` runs `results(msx)` in-process and compares."""
import json
import sys

import numpy as np

# fixed masks (written out, not drawn: both numpy versions read the same numbers)
X = [[3, 0, 1, 1, 0], [1, 3, 0, 1, 1], [1, 0, 2, 1, 0], [0, 1, 1, 1, 0], [2, 1, 0, 0, 1]]
Y = [[0, 2, 1, 1, 0], [1, 2, 1, 0, 1], [0, 0, 1, 1, 1], [0, 1, 1, 0, 0], [1, 1, 0, 1, 1]]
V = [[[0, 1, 1], [1, 1, 0], [0, 1, 0]], [[1, 1, 0], [0, 1, 1], [1, 0, 0]], [[0, 0, 1], [1, 1, 1], [0, 1, 1]]]
W = [[[1, 1, 0], [1, 0, 0], [0, 1, 1]], [[1, 0, 0], [0, 1, 1], [1, 1, 0]], [[0, 1, 1], [1, 0, 1], [0, 0, 1]]]
PRED = [[[[1, 0], [0, 1]], [[0, 1], [1, 0]], [[0, 0], [0, 0]]],
        [[[0, 0], [1, 1]], [[1, 0], [0, 0]], [[0, 1], [0, 0]]]]       # (2, 3, 2, 2) one-hot
TRUE = [[[[1, 0], [1, 1]], [[0, 1], [0, 0]], [[0, 0], [0, 0]]],
        [[[0, 1], [1, 0]], [[1, 0], [0, 1]], [[0, 0], [0, 0]]]]
CLS_PRED = [[1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1]]                 # (4, 3): a classification batch
CLS_TRUE = [[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 1]]


def _ev(metric, *inputs):
    metric.clear()
    metric.update(*inputs)
    value = metric.eval()
    return np.asarray(value, np.float64).tolist()


def results(ms, metrics) -> dict:
    out = {}
    x, y, v, w = (np.array(a) for a in (X, Y, V, W))
    for dm in ("euclidean", "chessboard", "taxicab"):
        out[f"hd_{dm}"] = _ev(metrics.HausdorffDistance(distance_metric=dm), x, y, 1)
        out[f"msd_{dm}"] = _ev(metrics.MeanSurfaceDistance(distance_metric=dm), x, y, 1)
        out[f"msd_sym_{dm}"] = _ev(metrics.MeanSurfaceDistance(symmetric=True, distance_metric=dm), x, y, 1)
        out[f"rmsd_{dm}"] = _ev(metrics.RootMeanSquareDistance(distance_metric=dm), x, y, 1)
        out[f"rmsd_sym_{dm}"] = _ev(metrics.RootMeanSquareDistance(symmetric=True, distance_metric=dm), x, y, 1)
    far_a, far_b = np.zeros((7, 7), np.int32), np.zeros((7, 7), np.int32)
    far_a[1:3, 1:3] = 1
    far_b[4:7, 3:6] = 1
    for dm in ("euclidean", "chessboard", "taxicab"):
        out[f"hd_far_{dm}"] = _ev(metrics.HausdorffDistance(distance_metric=dm), far_a, far_b, 1)
        out[f"hd_far_nocrop_{dm}"] = _ev(metrics.HausdorffDistance(distance_metric=dm, crop=False), far_a, far_b, 1)
        out[f"msd_far_sym_{dm}"] = _ev(metrics.MeanSurfaceDistance(symmetric=True, distance_metric=dm), far_a,
                                       far_b, 1)
        out[f"rmsd_far_{dm}"] = _ev(metrics.RootMeanSquareDistance(distance_metric=dm), far_a, far_b, 1)
    out["hd_doc"] = _ev(metrics.HausdorffDistance(), ms.Tensor(np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]])),
                        ms.Tensor(np.array([[0, 2, 1], [1, 2, 1], [0, 0, 1]])), 0)
    out["hd_label0"] = _ev(metrics.HausdorffDistance(), x, y, 0)
    out["hd_directed"] = _ev(metrics.HausdorffDistance(directed=True), x, y, 1)
    out["hd_nocrop"] = _ev(metrics.HausdorffDistance(crop=False), x, y, 2)
    out["hd_p50"] = _ev(metrics.HausdorffDistance(percentile=50.0), x, y, 1)
    out["hd_3d"] = _ev(metrics.HausdorffDistance(), v, w, 1)
    out["hd_label_missing_in_pred"] = _ev(metrics.HausdorffDistance(), np.zeros((4, 4)), np.eye(4), 1)
    out["msd_3d"] = _ev(metrics.MeanSurfaceDistance(symmetric=True), v, w, 1)
    out["rmsd_3d"] = _ev(metrics.RootMeanSquareDistance(symmetric=True), v, w, 1)
    out["msd_bool"] = _ev(metrics.MeanSurfaceDistance(), x == 1, y == 1, 1)
    pred, true = np.array(PRED, np.float32), np.array(TRUE, np.float32)
    for name in ("sensitivity", "specificity", "precision", "npv", "miss_rate", "fall_out", "fdr", "for",
                 "prevalence_threshold", "threat_score", "accuracy", "balanced_accuracy", "f1_score", "mcc",
                 "fowlkes_mallows_index", "informedness", "markedness"):
        out[f"cmm_{name}"] = _ev(metrics.ConfusionMatrixMetric(metric_name=name), ms.Tensor(pred), ms.Tensor(true))
        out[f"cmm_{name}_per_sample"] = _ev(metrics.ConfusionMatrixMetric(metric_name=name, calculation_method=True),
                                            pred, true)
    for dec in ("mean", "sum"):
        out[f"cmm_decrease_{dec}"] = _ev(metrics.ConfusionMatrixMetric(metric_name="f1", calculation_method=True,
                                                                      decrease=dec), pred, true)
    out["cmm_no_skip"] = _ev(metrics.ConfusionMatrixMetric(skip_channel=False, metric_name="tpr"), pred, true)
    out["cmm_classification"] = _ev(metrics.ConfusionMatrixMetric(metric_name="precision"),
                                    np.array(CLS_PRED), np.array(CLS_TRUE))
    two = metrics.ConfusionMatrixMetric(metric_name="f1", calculation_method=True)
    two.clear()
    two.update(pred, true)
    two.update(true, pred)
    out["cmm_two_batches"] = np.asarray(two.eval(), np.float64).tolist()

    class Dense(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Tensor(np.array([[0.1, 0.8, 0.1, 0.1], [1, 1, 1, 1]], np.float32).T)

        def construct(self, t):
            return ms.ops.matmul(t.reshape(t.shape[0], -1), self.w)

    class Conv(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Tensor(np.arange(32, dtype=np.float32).reshape(16, 2) / 32)

        def construct(self, t):
            return ms.ops.matmul(t.reshape(t.shape[0], -1), self.w)

    data = np.array([[0.1, 0.2, 0.3, 0.4]], np.float32)
    out["occlusion_doc"] = _ev(metrics.OcclusionSensitivity(), Dense(), data, np.array(1, np.int32))
    img = (np.arange(16, dtype=np.float32).reshape(1, 4, 4) / 16)
    out["occlusion_2d"] = _ev(metrics.OcclusionSensitivity(margin=1, n_batch=3), Conv(), img, np.array(1, np.int32))
    out["occlusion_box"] = _ev(metrics.OcclusionSensitivity(pad_val=0.5, b_box=[1, 2, 0, -1]), Conv(), img, np.array(0, np.int32))
    return out


if __name__ == "__main__":
    import mindspore
    import mindspore.train

    print(json.dumps(results(mindspore, mindspore.train), indent=1))
