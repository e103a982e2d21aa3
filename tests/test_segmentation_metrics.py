"""HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance, ConfusionMatrixMetric and OcclusionSensitivity
against MindSpore 2.10's answers: `tests/golden_nn/segmentation_metric_program.py` run by MindSpore (recorded:
data/segmentation_metrics.json) and here, in-process, by msx."""
import json
import os
import sys
import warnings

import numpy as np
import pytest

import msx
from msx import train

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_nn")
sys.path.insert(0, HERE)
from segmentation_metric_program import results  # noqa: E402

with open(os.path.join(HERE, "data", "segmentation_metrics.json")) as f:
    GOLDEN = json.load(f)


@pytest.fixture(scope="module")
def got():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return results(msx, train)


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_equals_mindspore(got, key):
    want = np.asarray(GOLDEN[key], np.float64)
    have = np.asarray(got[key], np.float64)
    assert have.shape == want.shape
    np.testing.assert_allclose(have, want, rtol=1e-6, atol=1e-7, equal_nan=True)


def test_every_namespace_and_the_factory_name_them():
    for ns in (msx, msx.nn, msx.train, msx.train.metrics):
        assert ns.HausdorffDistance is train.HausdorffDistance and ns.OcclusionSensitivity is train.OcclusionSensitivity
    assert isinstance(msx.train.get_metric_fn("confusion_matrix_metric"), train.ConfusionMatrixMetric)
    assert isinstance(msx.nn.get_metric_fn("root_mean_square_distance"), train.RootMeanSquareDistance)


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="distance_metric"):
        train.HausdorffDistance(distance_metric="cosine")
    with pytest.raises(TypeError, match="percentile must be a float"):
        train.HausdorffDistance(percentile=50)
    with pytest.raises(ValueError, match=r"\[0, 100\]"):
        train.HausdorffDistance(percentile=150.0)
    with pytest.raises(TypeError, match="symmetric"):
        train.MeanSurfaceDistance(symmetric=1)
    with pytest.raises(ValueError, match="'dice_loss' is not a confusion-matrix metric"):
        train.ConfusionMatrixMetric(metric_name="dice_loss")
    with pytest.raises(ValueError, match="decrease"):
        train.ConfusionMatrixMetric(decrease="median")
    with pytest.raises(ValueError, match="n_batch"):
        train.OcclusionSensitivity(n_batch=0)


def test_bad_inputs_say_what_is_wrong():
    m = train.MeanSurfaceDistance()
    with pytest.raises(RuntimeError, match="update"):
        m.eval()
    with pytest.raises(ValueError, match="needs 3 inputs"):
        m.update(np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"\(2, 2\) and \(3, 3\)"):
        m.update(np.ones((2, 2)), np.ones((3, 3)), 1)
    with pytest.raises(ValueError, match="label index 5"):
        m.update(np.ones((2, 2)), np.ones((2, 2)), 5)
    with pytest.raises(TypeError, match="int or a float"):
        m.update(np.ones((2, 2)), np.ones((2, 2)), "1")
    c = train.ConfusionMatrixMetric()
    with pytest.raises(ValueError, match="binarized"):
        c.update(np.ones((2, 3)), np.full((2, 3), 0.5))
    with pytest.raises(ValueError, match="at least 2 dims"):
        c.update(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="one shape"):
        c.update(np.ones((2, 3)), np.ones((2, 4)))


def test_mean_batch_reduces_over_the_batch_where_mindspore_fails():
    from segmentation_metric_program import PRED, TRUE

    m = train.ConfusionMatrixMetric(metric_name="tpr", calculation_method=True, decrease="mean_batch")
    with pytest.raises(ValueError, match="leaves"):  # one score per class: eval cannot average that per batch
        m.update(np.array(PRED), np.array(TRUE))


def test_occlusion_checks_its_inputs():
    class Net(msx.nn.Cell):
        def construct(self, x):
            return x.reshape(x.shape[0], -1)

    m = train.OcclusionSensitivity(b_box=[0, 5, 0, 1])
    with pytest.raises(ValueError, match="upper bounds"):
        m.update(Net(), np.ones((1, 3, 3), np.float32), 0)
    with pytest.raises(RuntimeError, match="one sample"):
        train.OcclusionSensitivity().update(Net(), np.ones((2, 3, 3), np.float32), 0)
    with pytest.raises(TypeError, match="must be a Cell"):
        train.OcclusionSensitivity().update(lambda x: x, np.ones((1, 3), np.float32), 0)
    out = train.OcclusionSensitivity(margin=[0, 1]).update(Net(), np.ones((1, 2, 3), np.float32), 4)
    assert out is None
