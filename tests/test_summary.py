"""TensorBoard logging (issue 33.4): `SummaryRecord`, `SummaryCollector`, the summary ops; read back with tbparse and
tensorboard's EventAccumulator. Images are compared with MindSpore 2.10's own image summary
(tests/golden_summary/image.npz, made by make_image_golden.py)."""
import io
import os
import warnings

import numpy as np
import pytest

pytest.importorskip("tensorboardX")
tbparse = pytest.importorskip("tbparse")

import msx as ms  # noqa: E402
from msx import nn, ops  # noqa: E402
from msx.train.summary import SummaryError  # noqa: E402

GOLDEN = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_summary", "image.npz"))


def _images(folder):
    """{(tag, step): HWC uint8 array} through tensorboard's own reader (tbparse's needs tensorflow)."""
    from PIL import Image
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(folder), size_guidance={"images": 0})
    acc.Reload()
    return {(tag, e.step): np.asarray(Image.open(io.BytesIO(e.encoded_image_string)))
            for tag in acc.Tags()["images"] for e in acc.Images(tag)}


def test_add_value_and_record_write_every_plugin(tmp_path):
    weights = [np.linspace(-1, 1, 50).astype(np.float32) * s for s in (1, 2)]
    with ms.train.summary.SummaryRecord(str(tmp_path), file_suffix="_x") as record:
        assert ms.SummaryRecord is ms.train.SummaryRecord is ms.train.summary.SummaryRecord
        for step in (1, 2):
            record.add_value("scalar", "lr", ms.Tensor(np.float32(0.5 * step)))
            record.add_value("histogram", "w", ms.Tensor(weights[step - 1]))
            record.add_value("tensor", "t", ms.Tensor(np.arange(6, dtype=np.int32).reshape(2, 3) * step))
            record.add_value("image", "img", ms.Tensor(GOLDEN["unit_input"] if step == 1 else GOLDEN["wide_input"]))
            assert record.record(step)
        path = record.log_dir
    assert os.path.basename(path).startswith("events.out.tfevents.") and path.endswith("_x")
    reader = tbparse.SummaryReader(str(tmp_path))
    assert reader.scalars[["step", "tag", "value"]].values.tolist() == [[1, "lr", 0.5], [2, "lr", 1.0]]
    tensors = reader.tensors
    for step in (1, 2):
        np.testing.assert_array_equal(np.asarray(tensors[tensors.step == step].value.iloc[0]),
                                      np.arange(6).reshape(2, 3) * step)
        hist = reader.histograms[reader.histograms.step == step].iloc[0]
        counts, limits = np.asarray(hist["counts"]), np.asarray(hist["limits"])
        want, _ = np.histogram(weights[step - 1], bins=6)  # MindSpore's bin count: 50 // 10 + 1
        np.testing.assert_array_equal(counts[-6:], want)  # TensorBoard's buckets: an empty one left of the min
        assert counts[:-6].sum() == 0
        assert np.isclose(limits[-1], weights[step - 1].max())
    images = _images(tmp_path)
    np.testing.assert_array_equal(images[("img", 1)], GOLDEN["unit_image"])  # as MindSpore draws them
    np.testing.assert_array_equal(images[("img", 2)], GOLDEN["wide_image"])


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2)
        self.scalar, self.hist = ops.ScalarSummary(), ops.HistogramSummary()
        self.tensor, self.image = ops.TensorSummary(), ops.ImageSummary()

    def construct(self, x):
        y = self.dense(x)
        self.scalar("y_sum", y.sum())
        self.hist("y", y)
        self.tensor("x", x)
        self.image("x_img", x.reshape(1, 1, x.shape[0], 3))
        return y


X = [np.arange(12, dtype=np.float32).reshape(4, 3) / 10 * s for s in (1, 2, 3)]


@pytest.mark.parametrize("mode", ["pynative", "ast", "bytecode", "trace"])
def test_summary_ops_in_a_cell_record_eagerly_and_under_jit(tmp_path, mode):
    ms.set_seed(1)
    net = Net()
    run = net if mode == "pynative" else ms.jit(net.construct, capture_mode=mode)
    want = []
    with ms.SummaryRecord(str(tmp_path)) as record:
        for step, x in enumerate(X, 1):
            y = run(ms.Tensor(x)).asnumpy()
            want.append(y)
            record.record(step)
        record.set_mode("eval")
        run(ms.Tensor(X[0] * 7))
        record.record(9)  # eval: the ops' values are not recorded
    reader = tbparse.SummaryReader(str(tmp_path))
    scalars = reader.scalars
    assert scalars.step.tolist() == [1, 2, 3]
    np.testing.assert_allclose(scalars.value.values, [y.sum() for y in want], rtol=1e-5)
    tensors = reader.tensors
    for step, x in enumerate(X, 1):
        np.testing.assert_array_equal(np.asarray(tensors[tensors.step == step].value.iloc[0]), x)
        assert int(np.asarray(reader.histograms[reader.histograms.step == step].counts.iloc[0]).sum()) == 8
    assert sorted(step for _, step in _images(tmp_path)) == [1, 2, 3]


def test_summary_collector_in_model_train(tmp_path):
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    x, y = rng.random((32, 1, 2, 2)).astype(np.float32), rng.integers(0, 2, 32).astype(np.int32)
    net = nn.SequentialCell(nn.Flatten(), nn.Dense(4, 2))
    seen = {}

    class Losses(ms.Callback):
        def on_train_step_end(self, run_context):
            cb = run_context.original_args()
            seen[cb.cur_step_num] = float(cb.net_outputs.asnumpy())

    ds = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     nn.Momentum(net.trainable_params(), 0.1, 0.9))
    collector = ms.SummaryCollector(str(tmp_path), collect_freq=3,
                                    collect_specified_data={"histogram_regular": r"^1\.weight"})
    model.train(2, ds, callbacks=[Losses(), collector])
    reader = tbparse.SummaryReader(str(tmp_path))
    loss = reader.scalars[reader.scalars.tag == "loss/auto"]
    assert loss.step.tolist() == [1, 3, 6, 9, 12, 15]  # the first step, then every collect_freq
    np.testing.assert_allclose(loss.value.values, [seen[s] for s in loss.step], rtol=1e-6)
    assert set(reader.histograms.tag) == {"1.weight/auto"}
    assert sorted(step for tag, step in _images(tmp_path) if tag == "input_data/auto") == [1, 3, 6, 9, 12, 15]
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    nodes = {n.name: n for n in acc.Graph().node}  # the training step: forward and backward inside Grad's body
    ops_seen = {n.op for n in nodes.values()}
    assert {"Grad", "OptimizerUpdate", "Dense", "Flatten", "CrossEntropy", "Parameter", "Output"} <= ops_seen, ops_seen
    grad = next(name for name, n in nodes.items() if n.op == "Grad")
    dense = [name for name, n in nodes.items() if n.op == "Dense"]
    assert dense == [f"{grad}/body/network/1/Dense_1"], dense  # inside Grad's body, under its Cell's scope
    assert all(i.split(":")[0] in nodes for n in nodes.values() for i in n.input)  # every edge has its node


def test_misuse_is_refused_as_mindspore_refuses_it(tmp_path):
    record = ms.SummaryRecord(str(tmp_path))
    with pytest.raises(SummaryError, match="only one instance"):
        ms.SummaryRecord(str(tmp_path / "b"))
    with pytest.raises(TypeError, match="must be a Tensor"):
        record.add_value("scalar", "a", 1.0)
    with pytest.raises(ValueError, match="one element"):
        record.add_value("scalar", "a", ms.Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match="no plugin 'audio'"):
        record.add_value("audio", "a", ms.Tensor(1.0))
    with pytest.raises(SummaryError, match="MindInsight"):
        record.add_value("train_lineage", "a", None)
    with pytest.raises(TypeError, match="step"):
        record.record(1.5)
    with pytest.raises(ValueError, match="'test' is not a mode"):
        record.set_mode("test")
    with pytest.raises(ms.errors.OpError, match="ScalarSummary.*one element"):
        ops.ScalarSummary()("s", ms.Tensor(np.ones(2, np.float32)))
    with pytest.raises(ms.errors.OpTypeError, match="non-empty string"):
        ops.TensorSummary()("", ms.Tensor(np.ones(2, np.float32)))
    record.close()
    assert not record.record(1)
    with pytest.raises(SummaryError, match="closed"):
        record.__enter__()
    with pytest.raises(ValueError, match="unsupported"):
        ms.SummaryCollector(str(tmp_path), collect_specified_data={"collect_weights": True})
    with pytest.raises(ValueError, match="collect_freq"):
        ms.SummaryCollector(str(tmp_path), collect_freq=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ms.SummaryCollector(str(tmp_path), collect_specified_data={"collect_dataset_graph": True},
                            custom_lineage_data={"version": "r1"})._record.close()
    assert any("collect_dataset_graph" in str(w.message) for w in caught)
    assert any("custom_lineage_data" in str(w.message) for w in caught)


def test_max_file_size_stops_writing_and_npy_export(tmp_path):
    with ms.SummaryRecord(str(tmp_path), max_file_size=400, export_options={"tensor_format": "npy"}) as record:
        for step in range(1, 20):
            record.add_value("tensor", "t", ms.Tensor(np.full((4,), step, np.float32)))
            record.record(step)
    assert os.path.getsize(record.log_dir) <= 400
    steps = tbparse.SummaryReader(str(tmp_path)).tensors.step.tolist()
    assert 1 <= len(steps) < 19 and steps == list(range(1, len(steps) + 1))
    exported = [f for _, _, files in os.walk(tmp_path) for f in files if f.endswith(".npy")]
    assert len(exported) == 19
    np.testing.assert_array_equal(np.load(next(
        os.path.join(d, f) for d, _, files in os.walk(tmp_path) for f in files if f == "t_7.npy")), np.full(4, 7))


def test_an_eager_summary_op_delivers_on_every_call(tmp_path):
    # eager dispatch defers a compiled op's run and drops a deferred op whose results nobody reads; a summary op
    # has no results, so deferred it would deliver nothing (in CI a Cell's op did so after its first step)
    scalar = ops.ScalarSummary()
    with ms.SummaryRecord(str(tmp_path)) as record:
        for step in range(1, 6):
            scalar("v", ms.Tensor(np.float32(step)) * 2)
            record.record(step)
    scalars = tbparse.SummaryReader(str(tmp_path)).scalars
    assert scalars.step.tolist() == [1, 2, 3, 4, 5]
    np.testing.assert_allclose(scalars.value.values, [2, 4, 6, 8, 10])
