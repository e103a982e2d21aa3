"""`SummaryLandscape` and `SummaryCollector(collect_landscape=...)` (docs/summary.md, "Loss landscapes").

Checked against MindSpore 2.10 (tests/golden_summary/landscape/, made by make_landscape_golden.py: its checkpoints,
metadata layout, landscapes and error types) and against numpy: the grid's losses equal a numpy forward pass at
`w0 + a*d1 + b*d2` for directions re-derived here independently (PCA through an eigendecomposition, not an SVD).
"""
import json
import os
import shutil
import stat

import numpy as np
import pytest

pytest.importorskip("tensorboardX")

import msx as ms  # noqa: E402
from msx import nn  # noqa: E402
from msx.train.callback import _landscape_grid as grid  # noqa: E402

GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_summary", "landscape")
GOLDEN = np.load(os.path.join(GOLDEN_DIR, "golden.npz"))
with open(os.path.join(GOLDEN_DIR, "layout.json")) as _f:
    LAYOUT = json.load(_f)
NAMES = ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
CONFIG = {"landscape_size": 4, "unit": "step", "num_samples": 8,
          "create_landscape": {"train": True, "result": True}, "intervals": [[1, 2, 3], [4, 5, 6]]}
TAGS = {"landscape_[1, 3]": "landscape_1-3.npz", "landscape_[4, 6]": "landscape_4-6.npz",
        "landscape_[6]": "landscape_6.npz"}


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 3)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def _dataset():
    return ms.dataset.NumpySlicesDataset({"x": GOLDEN["x"], "y": GOLDEN["y"]}, shuffle=False).batch(4)


def _loss():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def callback_fn(metric=None):
    def make():
        net = Net()
        model = ms.Model(net, _loss(), metrics={"Loss": ms.train.Loss()})
        return model, net, _dataset(), {"Loss": metric or ms.train.Loss()}
    return make


def _numpy_loss(weights):
    """The mean over the two batches of 4 of the batch's mean cross-entropy, in float64."""
    losses = []
    for s in (slice(0, 4), slice(4, 8)):
        x, y = GOLDEN["x"][s].astype(np.float64), GOLDEN["y"][s]
        h = np.maximum(x @ weights[0].T + weights[1], 0)
        logits = h @ weights[2].T + weights[3]
        top = logits.max(1, keepdims=True)
        lse = np.log(np.exp(logits - top).sum(1)) + top[:, 0]
        losses.append(np.mean(lse - logits[np.arange(len(y)), y]))
    return float(np.mean(losses))


@pytest.fixture
def mindspore_run(tmp_path):
    """MindSpore's collector output (checkpoints + train_metadata.json) laid out in a summary dir."""
    run = tmp_path / "run"
    (run / "ckpt_dir").mkdir(parents=True)
    meta = json.loads(json.dumps(LAYOUT["train_metadata"]))
    for key, rel in meta["model_params_file_map"].items():
        shutil.copy(os.path.join(GOLDEN_DIR, "ckpt", os.path.basename(rel)), run / "ckpt_dir")
        meta["model_params_file_map"][key] = str(run / rel)
    (run / "ckpt_dir" / "train_metadata.json").write_text(json.dumps(meta))
    return run


def _checkpoint(run, step):
    params = ms.load_checkpoint(str(run / "ckpt_dir" / f"Net_{step}_step.ckpt"))
    return [np.asarray(params[n].asnumpy(), np.float64) for n in NAMES]


def test_names_and_signatures():
    import inspect

    assert ms.SummaryLandscape is ms.train.SummaryLandscape is ms.train.callback.SummaryLandscape
    assert str(inspect.signature(ms.SummaryLandscape)) == "(summary_dir: 'str') -> 'None'"
    params = list(inspect.signature(ms.SummaryLandscape.gen_landscapes_with_multi_process).parameters.values())
    assert [(p.name, p.default) for p in params[1:]] == [("callback_fn", inspect.Parameter.empty),
                                                         ("collect_landscape", None), ("device_ids", None),
                                                         ("output", None)]


def test_landscapes_equal_mindspores(mindspore_run):
    """From MindSpore's own checkpoints msx draws MindSpore's landscapes: PCA axes, grid, path, convergence
    point, and (numpy seeded as MindSpore was) the random one."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    np.random.seed(0)
    out = mindspore_run / "out"
    ms.SummaryLandscape(str(mindspore_run)).gen_landscapes_with_multi_process(callback_fn(), device_ids=[0],
                                                                              output=str(out))
    for tag, name in TAGS.items():
        got = np.load(out / name, allow_pickle=False)
        assert str(got["format"]) == "msx.landscape" and str(got["tag"]) == tag
        meta = LAYOUT["metadata"][tag]
        assert (str(got["decomposition"]), str(got["unit"]), int(got["step_per_epoch"])) == \
            (meta["decomposition"], meta["unit"], meta["step_per_epoch"])
        for key in ("x", "y", "z", "path_x", "path_y", "path_z"):
            want = GOLDEN[f"{tag}/{key}"]
            assert got[key].shape == want.shape, key
            np.testing.assert_allclose(got[key], want, rtol=1e-5, atol=1e-6, err_msg=f"{tag} {key}")
        np.testing.assert_allclose(got["convergence_point"], [GOLDEN[f"{tag}/convergence_{a}"][0] for a in "xyz"],
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(got["intervals"], GOLDEN[f"{tag}/path_intervals"] if
                                      meta["decomposition"] == "PCA" else [6])
    acc = EventAccumulator(str(out), size_guidance={"images": 0, "tensors": 0})
    acc.Reload()
    stems = {tag: name[:-4] for tag, name in TAGS.items()}
    assert sorted(acc.Tags()["images"]) == sorted(f"{s}/image" for s in stems.values())
    assert sorted(acc.Tags()["tensors"]) == sorted(f"{s}/loss" for s in stems.values())
    for tag, stem in stems.items():
        (event,) = acc.Tensors(f"{stem}/loss")
        assert event.step == 0  # MindSpore records its landscapes at step 0
        z = np.frombuffer(event.tensor_proto.tensor_content, np.float64).reshape(4, 4)
        np.testing.assert_allclose(z, GOLDEN[f"{tag}/z"], rtol=1e-5)
        (image,) = acc.Images(f"{stem}/image")
        assert (image.width, image.height) == (256, 256)


def _pca_reference(trajectory):
    """PCA directions through the eigenvectors of X X^T (not an SVD), MindSpore's centring and sign rule."""
    flat = np.stack([np.concatenate([a.ravel() for a in t]) for t in trajectory])
    x = (flat[:-1] - flat[-1]).T
    x = x - x.mean(axis=0)
    values, vectors = np.linalg.eigh(x @ x.T)
    order = np.argsort(values)[::-1][:2]
    u, s = vectors[:, order], np.sqrt(np.maximum(values[order], 0))
    u = u * np.sign(u[np.argmax(np.abs(u), axis=0), [0, 1]])
    return u[:, 0] * s[0], u[:, 1] * s[1]


def test_pca_directions_match_numpy():
    rng = np.random.default_rng(1)
    trajectory = np.cumsum(rng.standard_normal((5, 40)), axis=0)
    v, w = grid.pca_directions(trajectory)
    rv, rw = _pca_reference([[row] for row in trajectory])
    np.testing.assert_allclose(v, rv, atol=1e-8)
    np.testing.assert_allclose(w, rw, atol=1e-8)


def _unit_like(arrays, flat):
    out, at = [], 0
    for a in arrays:
        d = flat[at:at + a.size].reshape(a.shape)
        out.append(d * np.linalg.norm(a) / np.linalg.norm(d))
        at += a.size
    return out


def test_pca_grid_is_the_numpy_loss_on_the_pca_plane(mindspore_run):
    """The interval [4, 6]: directions from its checkpoints (re-derived here), per-tensor normalised; the path is
    the checkpoints' least-squares coordinates and every grid value the numpy loss at w6 + x*v + y*w."""
    ms.SummaryLandscape(str(mindspore_run)).gen_landscapes_with_multi_process(
        callback_fn(), collect_landscape={"create_landscape": {"train": True, "result": False}})
    got = np.load(mindspore_run / "landscape_4-6.npz", allow_pickle=False)
    trajectory = [_checkpoint(mindspore_run, s) for s in (4, 5, 6)]
    final = trajectory[-1]
    v_flat, w_flat = _pca_reference(trajectory)
    v, w = _unit_like(final, v_flat), _unit_like(final, w_flat)
    basis = np.stack([np.concatenate([a.ravel() for a in v]), np.concatenate([a.ravel() for a in w])], 1)
    base = np.concatenate([a.ravel() for a in final])
    coefs = np.array([np.linalg.lstsq(basis, np.concatenate([a.ravel() for a in t]) - base, rcond=None)[0]
                      for t in trajectory])
    np.testing.assert_allclose(got["path_x"], coefs[:, 0], rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(got["path_y"], coefs[:, 1], rtol=1e-4, atol=1e-7)
    span = coefs[:, 0].max() - coefs[:, 0].min()
    np.testing.assert_allclose(got["x"], np.linspace(coefs[:, 0].min() - 0.2 * span, coefs[:, 0].max() + 0.2 * span,
                                                     4), rtol=1e-4, atol=1e-7)
    for i, b in enumerate(got["y"]):
        for j, a in enumerate(got["x"]):
            want = _numpy_loss([f + a * dv + b * dw for f, dv, dw in zip(final, v, w)])
            assert got["z"][i, j] == pytest.approx(want, rel=1e-5)
    for k in range(3):
        want = _numpy_loss([f + coefs[k, 0] * dv + coefs[k, 1] * dw for f, dv, dw in zip(final, v, w)])
        assert got["path_z"][k] == pytest.approx(want, rel=1e-5)
    assert not os.path.exists(mindspore_run / "landscape_6.npz")  # result: False


def test_random_grid_is_the_numpy_loss_and_seeded(mindspore_run):
    """The random landscape: numpy's generator (seeded by msx.set_seed) draws both directions over the final
    checkpoint; each grid value is the numpy loss there; the same seed gives the same landscape, another seed
    another one."""
    only_result = {"create_landscape": {"train": False, "result": True}}

    def run(seed):
        ms.set_seed(seed)
        ms.SummaryLandscape(str(mindspore_run)).gen_landscapes_with_multi_process(callback_fn(), only_result)
        return dict(np.load(mindspore_run / "landscape_6.npz", allow_pickle=False))

    first, again, other = run(7), run(7), run(8)
    np.testing.assert_array_equal(first["z"], again["z"])
    assert not np.allclose(first["z"], other["z"])
    final = _checkpoint(mindspore_run, 6)
    rng = np.random.RandomState(7)
    total = sum(a.size for a in final)
    v = _unit_like(final, rng.normal(size=total).astype(np.float32).astype(np.float64))
    w = _unit_like(final, rng.normal(size=total).astype(np.float32).astype(np.float64))
    np.testing.assert_allclose(first["x"], np.linspace(-1, 1, 4))
    for i, b in enumerate(first["y"]):
        for j, a in enumerate(first["x"]):
            want = _numpy_loss([f + a * dv + b * dw for f, dv, dw in zip(final, v, w)])
            assert first["z"][i, j] == pytest.approx(want, rel=1e-5)
    assert list(first["convergence_point"]) == pytest.approx([first["x"][2], first["y"][2], first["z"][2, 2]])
    assert first["path_z"].shape == (0,)


def _train(summary_dir, config, epochs=3, record=None):
    net = Net()
    ms.load_param_into_net(net, {n: ms.Parameter(ms.Tensor(GOLDEN[f"init/{n}"]), name=n) for n in NAMES})
    model = ms.Model(net, _loss(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    callbacks = [ms.SummaryCollector(str(summary_dir), collect_specified_data=None if config is None else
                                     {"collect_landscape": config})]
    if record is not None:
        callbacks.append(ms.train.LambdaCallback(on_train_step_end=lambda ctx: record.append(
            [p.asnumpy().copy() for p in net.get_parameters()])))
    model.train(epochs, _dataset(), callbacks=callbacks)
    return net


def test_collector_saves_mindspores_files_at_the_intervals(tmp_path):
    weights = []
    _train(tmp_path / "run", CONFIG, record=weights)
    ckpt_dir = tmp_path / "run" / "ckpt_dir"
    assert sorted(os.listdir(ckpt_dir)) == LAYOUT["collector_files"]
    meta_path = ckpt_dir / "train_metadata.json"
    assert stat.S_IMODE(os.stat(meta_path).st_mode) == int(LAYOUT["metadata_mode"], 8)
    meta = json.loads(meta_path.read_text())
    assert {**meta, "model_params_file_map": {k: os.path.relpath(v, tmp_path / "run") for k, v in
                                              meta["model_params_file_map"].items()}} == LAYOUT["train_metadata"]
    for step in range(1, 7):
        saved = ms.load_checkpoint(str(ckpt_dir / f"Net_{step}_step.ckpt"))
        assert list(saved) == LAYOUT["ckpt_params"][str(step)]
        for name, after_step in zip(NAMES, weights[step - 1]):
            np.testing.assert_array_equal(saved[name].asnumpy(), after_step)  # the weights after that step
            mindspore = ms.load_checkpoint(os.path.join(GOLDEN_DIR, "ckpt", f"Net_{step}_step.ckpt"))[name]
            np.testing.assert_allclose(saved[name].asnumpy(), mindspore.asnumpy(), rtol=1e-5, atol=1e-6)


def test_collector_epochs_and_defaults(tmp_path):
    _train(tmp_path / "epoch", {**CONFIG, "unit": "epoch", "intervals": [[1, 3, 4]]})
    assert sorted(os.listdir(tmp_path / "epoch" / "ckpt_dir")) == ["Net_1_epoch.ckpt", "Net_3_epoch.ckpt",
                                                                   "train_metadata.json"]
    _train(tmp_path / "default", None, epochs=2)  # MindSpore's default collect_landscape: steps 1-19
    assert sorted(os.listdir(tmp_path / "default" / "ckpt_dir")) == LAYOUT["default_collector_ckpt_dir"]
    with pytest.raises(ValueError, match="does not exist 5th checkpoint"):  # the interval 1-9 is incomplete
        ms.SummaryLandscape(str(tmp_path / "default")).gen_landscapes_with_multi_process(callback_fn())
    off = ms.SummaryCollector(str(tmp_path / "off"), collect_specified_data={"collect_landscape": None})
    off._record.close()
    assert off._landscape is None and not os.path.exists(tmp_path / "off" / "ckpt_dir")


def test_collector_then_landscape_end_to_end(tmp_path):
    _train(tmp_path / "run", {**CONFIG, "create_landscape": {"train": True, "result": False}})
    landscape = ms.SummaryLandscape(str(tmp_path / "run"))
    landscape.gen_landscapes_with_multi_process(callback_fn())
    got = np.load(tmp_path / "run" / "landscape_1-3.npz", allow_pickle=False)
    np.testing.assert_allclose(got["z"], GOLDEN["landscape_[1, 3]/z"], rtol=1e-4)
    landscape.clean_ckpt()
    assert not os.path.exists(tmp_path / "run" / "ckpt_dir")


# the cases of make_landscape_golden.py (which imports MindSpore, so it is not imported here)
COLLECTOR_ERRORS = {
    "landscape_size_2": {"landscape_size": 2, "intervals": [[1, 2, 3]]},
    "landscape_size_bool": {"landscape_size": True, "intervals": [[1, 2, 3]]},
    "unit_x": {"unit": "x", "intervals": [[1, 2, 3]]},
    "short_interval": {"intervals": [[1, 2]]},
    "str_in_interval": {"intervals": [[1, 2, "a"]]},
    "unknown_key": {"intervals": [[1, 2, 3]], "foo": 1},
    "num_samples_str": {"num_samples": "8", "intervals": [[1, 2, 3]]},
    "create_unknown": {"create_landscape": {"foo": True}, "intervals": [[1, 2, 3]]},
    "create_not_bool": {"create_landscape": {"train": 1}, "intervals": [[1, 2, 3]]},
    "no_intervals": {"landscape_size": 4},
}
LANDSCAPE_ERRORS = {
    "device_id_8": {"device_ids": [8]},
    "device_id_str": {"device_ids": ["0"]},
    "create_one_key": {"device_ids": [0], "collect_landscape": {"create_landscape": {"train": True}}},
    "size_300": {"device_ids": [0], "collect_landscape": {"landscape_size": 300}},
    "unknown_key": {"device_ids": [0], "collect_landscape": {"foo": 1}},
    "without_metadata": {"device_ids": [0]},
}


def test_error_cases_are_mindspores():
    assert set(COLLECTOR_ERRORS) == set(LAYOUT["errors"]["collector"])
    assert set(LANDSCAPE_ERRORS) == set(LAYOUT["errors"]["landscape"])


@pytest.mark.parametrize("name", sorted(COLLECTOR_ERRORS))
def test_collector_refuses_as_mindspore(tmp_path, name):
    error = {"ValueError": ValueError, "TypeError": TypeError}[LAYOUT["errors"]["collector"][name]]
    with pytest.raises(error, match="SummaryCollector|type should be"):
        ms.SummaryCollector(str(tmp_path), collect_specified_data={"collect_landscape": COLLECTOR_ERRORS[name]})


@pytest.mark.parametrize("name", sorted(LANDSCAPE_ERRORS))
def test_landscape_refuses_as_mindspore(mindspore_run, tmp_path, name):
    error = {"ValueError": ValueError, "TypeError": TypeError,
             "FileNotFoundError": FileNotFoundError}[LAYOUT["errors"]["landscape"][name]]
    folder = tmp_path / "empty" if name == "without_metadata" else mindspore_run
    before = (mindspore_run / "ckpt_dir" / "train_metadata.json").read_text()
    with pytest.raises(error, match="SummaryLandscape|type should be"):
        ms.SummaryLandscape(str(folder)).gen_landscapes_with_multi_process(callback_fn(), **LANDSCAPE_ERRORS[name])
    assert (mindspore_run / "ckpt_dir" / "train_metadata.json").read_text() == before  # nothing rewritten


def test_metadata_problems_are_named(mindspore_run):
    meta_path = mindspore_run / "ckpt_dir" / "train_metadata.json"
    meta = json.loads(meta_path.read_text())
    for broken, match in (({**meta, "extra": 1}, "should be"), ({**meta, "step_per_epoch": "2"}, "step_per_epoch"),
                          ({**meta, "epoch_group": {"0": [1, 2]}}, "not be less than 3")):
        meta_path.write_text(json.dumps(broken))
        with pytest.raises((ValueError, TypeError), match=match):
            ms.SummaryLandscape(str(mindspore_run)).gen_landscapes_with_multi_process(callback_fn())
    meta_path.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        ms.SummaryLandscape(str(mindspore_run)).gen_landscapes_with_multi_process(callback_fn())


def test_collect_landscape_overrides_the_metadata(mindspore_run):
    """As in MindSpore the overrides are saved into train_metadata.json; `intervals` becomes `epoch_group`."""
    ms.SummaryLandscape(str(mindspore_run)).gen_landscapes_with_multi_process(
        callback_fn(), {"landscape_size": 3, "intervals": [[2, 4, 6]],
                        "create_landscape": {"train": True, "result": False}})
    meta = json.loads((mindspore_run / "ckpt_dir" / "train_metadata.json").read_text())
    assert meta["landscape_size"] == 3 and meta["epoch_group"] == {"0": [2, 4, 6]}
    assert np.load(mindspore_run / "landscape_2-6.npz", allow_pickle=False)["z"].shape == (3, 3)


def test_chunks_and_metrics(mindspore_run, monkeypatch):
    """Chunks of 3 points (the last one padded) give the chunk-of-all values; a metric other than Loss gets each
    point's batch losses; a missing 'Loss' metric, an optimizer and devices the host lacks are said."""
    only_result = {"create_landscape": {"train": False, "result": True}}

    def run(fn, **kwargs):
        np.random.seed(3)
        ms.SummaryLandscape(str(mindspore_run)).gen_landscapes_with_multi_process(fn, only_result, **kwargs)
        return np.load(mindspore_run / "landscape_6.npz", allow_pickle=False)["z"]

    whole = run(callback_fn())
    monkeypatch.setattr(grid, "MAX_CHUNK", 3)
    np.testing.assert_allclose(run(callback_fn()), whole, rtol=1e-6)  # another vmap size: rounding may differ

    class Doubled(ms.train.Loss):
        def eval(self):
            return 2 * super().eval()

    np.testing.assert_allclose(run(callback_fn(Doubled())), 2 * whole, rtol=1e-6)

    def no_loss_metric():
        model, net, ds, _ = callback_fn()()
        return model, net, ds, {"Accuracy": ms.train.Accuracy()}

    with pytest.raises(ValueError, match="no 'Loss' entry"):
        run(no_loss_metric)

    def with_optimizer():
        net = Net()
        model = ms.Model(net, _loss(), nn.SGD(net.trainable_params(), 0.1))
        return model, net, _dataset(), {"Loss": ms.train.Loss()}

    with pytest.warns(UserWarning, match="has an optimizer"):
        np.testing.assert_allclose(run(with_optimizer), whole, rtol=1e-6)
    with pytest.warns(UserWarning, match="jax device"):
        np.testing.assert_allclose(run(callback_fn(), device_ids=[0, 7]), whole, rtol=1e-6)


def test_loss_grid_is_the_loss_at_each_point():
    """LossGrid alone: a Dense with MSE over two batches at base + a*v + b*w, against numpy."""
    rng = np.random.default_rng(4)
    net = nn.Dense(3, 1)
    loss_fn = nn.MSELoss()
    params = list(net.get_parameters())
    base = [rng.standard_normal(p.shape).astype(np.float32) for p in params]
    v = [rng.standard_normal(p.shape).astype(np.float32) for p in params]
    w = [rng.standard_normal(p.shape).astype(np.float32) for p in params]
    batches = [(rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((5, 1)).astype(np.float32))
               for _ in range(2)]
    coefs = rng.standard_normal((7, 2))
    before = [p.asnumpy().copy() for p in params]
    got = grid.LossGrid(lambda x, y: loss_fn(net(x), y), params, base, v, w, batches)(coefs)
    for k, (a, b) in enumerate(coefs):
        weight, bias = [bb + a * dv + b * dw for bb, dv, dw in zip(base, v, w)]
        want = np.mean([np.mean((x @ weight.T + bias - y) ** 2) for x, y in batches])
        assert got[k] == pytest.approx(want, rel=1e-5)
    for p, old in zip(params, before):  # the network's own weights are untouched
        np.testing.assert_array_equal(p.asnumpy(), old)


def test_device_ids_spread_the_chunks_over_jax_devices(mindspore_run, tmp_path):
    """Two jax host devices (a subprocess with XLA's forced device count): device_ids=[0, 1] sends the chunks to
    both, and the landscape is the one-device landscape."""
    import subprocess
    import sys

    script = tmp_path / "two_devices.py"
    script.write_text(f"""
import sys, numpy as np, jax
sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))!r})
import msx as ms
from msx.train.callback import _landscape_grid as grid
from tests.test_summary_landscape import callback_fn
assert len(jax.devices()) == 2
grid.MAX_CHUNK = 5
used = []
run = grid.LossGrid.__call__
def spy(self, coefs):
    used.append(len(self._devices))
    return run(self, coefs)
grid.LossGrid.__call__ = spy
for ids, name in (([0], "one"), ([0, 1], "two")):
    np.random.seed(5)
    ms.SummaryLandscape({str(mindspore_run)!r}).gen_landscapes_with_multi_process(
        callback_fn(), {{"create_landscape": {{"train": False, "result": True}}}}, device_ids=ids,
        output={str(tmp_path)!r} + "/" + name)
print(used)
""")
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2", "JAX_PLATFORMS": "cpu"}
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "[1, 2]"
    one = np.load(tmp_path / "one" / "landscape_6.npz", allow_pickle=False)["z"]
    two = np.load(tmp_path / "two" / "landscape_6.npz", allow_pickle=False)["z"]
    np.testing.assert_allclose(two, one, rtol=1e-6)
