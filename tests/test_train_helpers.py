"""msx.train additions: build_train_network (amp levels, loss-scale managers), dataset helpers, data_sink,
async checkpoint loading, rearrange_inputs, and the coverage of MindSpore's train / nn names."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import msx
from msx import Tensor, amp, nn, train
from msx.dataset import NumpySlicesDataset

NAMES = json.load(open(os.path.join(os.path.dirname(__file__), "golden_nn", "mindspore_names.json")))


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    return x, (x @ np.array([[1.0], [-1.0], [0.5]], np.float32)).astype(np.float32)


def test_build_train_network_levels():
    x, y = _data()
    for level, kwargs, cls in [("O0", {}, nn.TrainOneStepCell), ("O2", {}, nn.TrainOneStepWithLossScaleCell),
                               ("O0", {"loss_scale_manager": train.FixedLossScaleManager(4.0, False)},
                                nn.TrainOneStepCell)]:
        net = nn.Dense(3, 1)
        step = amp.build_train_network(net, nn.SGD(net.trainable_params(), 0.05), nn.MSELoss(), level=level, **kwargs)
        assert isinstance(step, cls)
        first = step(Tensor(x), Tensor(y))
        first = first[0] if isinstance(first, tuple) else first
        for _ in range(30):
            last = step(Tensor(x), Tensor(y))
        last = last[0] if isinstance(last, tuple) else last
        assert float(last) < float(first)
    assert train.build_train_network is amp.build_train_network
    with pytest.raises(ValueError, match="boost"):
        amp.build_train_network(nn.Dense(3, 1), nn.SGD(nn.Dense(3, 1).trainable_params()), boost_level="O1")


def test_dataset_helper_and_data_sink():
    x, y = _data()
    ds = NumpySlicesDataset((x, y), shuffle=False).batch(4)
    helper = train.DatasetHelper(ds, dataset_sink_mode=True, sink_size=-1, epoch_num=2)
    batches = list(helper)
    assert len(batches) == 4 and batches[2][0].shape == (4, 3)
    np.testing.assert_array_equal(batches[2][0].asnumpy(), x[:4])
    net = nn.WithLossCell(nn.Dense(3, 1), nn.MSELoss())
    fed = train.connect_network_with_dataset(net, train.DatasetHelper(ds))
    np.testing.assert_allclose(float(fed()), float(net(Tensor(x[:4]), Tensor(y[:4]))), rtol=1e-6)
    seen = []
    sunk = train.data_sink(lambda a, b: seen.append(a.shape[0]) or a.shape[0], ds, sink_size=2)
    assert sunk() == 4 and seen == [4, 4]


def test_load_checkpoint_async(tmp_path):
    net = nn.Dense(3, 2)
    path = str(tmp_path / "n.ckpt")
    msx.save_checkpoint(net, path)
    other = nn.Dense(3, 2)
    params = train.load_checkpoint_async(path, other).result(timeout=60)
    assert set(params) >= {"weight", "bias"}
    np.testing.assert_array_equal(other.weight.asnumpy(), net.weight.asnumpy())
    assert train.async_ckpt_thread_status() is False


def test_rearrange_inputs():
    class Picky(train.Metric):
        def clear(self):
            self.got = None

        @train.rearrange_inputs
        def update(self, *inputs):
            self.got = inputs

        def eval(self):  # noqa: A003
            return self.got

    m = Picky().set_indexes([2, 0])
    m.update("a", "b", "c")
    assert m.got == ("c", "a")


@pytest.mark.parametrize("module,attr,goal", [("nn", nn, 0.75), ("train", train, 0.63)])
def test_coverage_of_mindspore_names(module, attr, goal):
    names = NAMES[module]
    have = [n for n in names if hasattr(attr, n)]
    assert len(have) / len(names) >= goal, sorted(set(names) - set(have))
