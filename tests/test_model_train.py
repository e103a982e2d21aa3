"""msx.train: Model.train/fit/eval/predict against eager and numpy references, callbacks, checkpoints, metrics."""
import io
import os
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import msx as ms
from msx import dataset as ds
from msx import nn, ops
from msx.train import (MAE, MSE, Accuracy, Callback, CheckpointConfig, EarlyStopping, History, Loss, LossMonitor,
                       Model, ModelCheckpoint, ProgressBar, TimeMonitor)
from tolerance import assert_same_float32


class MLP(nn.Cell):
    """Every test uses these shapes (64 -> 32 -> 10, batches of 32): eager ops compiled once serve all."""

    def __init__(self, hidden=32, dtype=ms.float32):
        super().__init__()
        self.fc1 = nn.Dense(64, hidden, dtype=dtype)
        self.fc2 = nn.Dense(hidden, 10, dtype=dtype)

    def construct(self, x):
        return self.fc2(ops.relu(self.fc1(x)))


@pytest.fixture(scope="module")
def digits():
    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    return train_test_split(x, d.target.astype(np.int32), test_size=0.2, random_state=0)


def _datasets(digits, batch=32):
    x_train, x_test, y_train, y_test = digits
    train = ds.NumpySlicesDataset({"image": x_train, "label": y_train}).batch(batch, drop_remainder=True)
    test = ds.NumpySlicesDataset({"image": x_test, "label": y_test}, shuffle=False).batch(120)
    return train, test


def _numpy_logits(net, x):
    w1, b1, w2, b2 = (p.asnumpy().astype(np.float64) for p in net.trainable_params())
    return np.maximum(x @ w1.T + b1, 0) @ w2.T + b2


@pytest.fixture(scope="module")
def trained(digits):
    """One MLP fitted on digits (shared by the tests that only read it)."""
    ms.set_seed(0)
    train, test = _datasets(digits)
    net = MLP()
    model = Model(net, nn.CrossEntropyLoss(), nn.Adam(net.trainable_params(), learning_rate=1e-2),
                  metrics={"accuracy", "loss"})
    history = History()
    model.fit(5, train, test, callbacks=[history], progress_bar=False)
    return model, net, history, test


# ---------------------------------------------------------------- training and evaluation
def test_fit_learns_digits_and_eval_matches_a_numpy_reference(trained, digits):
    model, net, history, test = trained
    losses = history.history["net_output"]
    assert history.epoch == list(range(1, 6)) and len(losses) == 5
    assert losses[-1] < 0.25 * losses[0] and all(b < a for a, b in zip(losses, losses[1:]))
    result = model.eval(test, progress_bar=False)
    assert result["accuracy"] >= 0.94  # 0.947-0.967 over set_seed(0..3) from MindSpore's initial weights
    _, x_test, _, y_test = digits
    logits = _numpy_logits(net, x_test)
    assert result["accuracy"] == pytest.approx(float((logits.argmax(1) == y_test).mean()))
    shifted = logits - logits.max(1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    per_batch = [-log_probs[i:i + 120][np.arange(len(y_test[i:i + 120])), y_test[i:i + 120]].mean()
                 for i in range(0, len(y_test), 120)]
    assert result["loss"] == pytest.approx(float(np.mean(per_batch)), rel=1e-4)
    assert history.history["accuracy"][-1] == pytest.approx(result["accuracy"])
    assert history.history["eval_loss"][-1] == pytest.approx(result["loss"])


def test_the_training_step_is_compiled_once_and_reused(trained):
    model = trained[0]
    step = model._train_step
    assert step.compiled
    info = step.jitted.cache_info()
    assert info["compiles"] == 1 and info["hits"] >= 5 * 44 - 1 and info["recompile_reasons"] == []


def test_predict_matches_the_eager_network(trained, digits):
    model, net, _, _ = trained
    x = ms.Tensor(digits[1][:5])
    np.testing.assert_allclose(model.predict(x).asnumpy(), net(x).asnumpy(), rtol=1e-5, atol=1e-5)


def test_model_train_equals_an_eager_value_and_grad_loop(digits):
    """Differential: the compiled Model step against msx eager and against jax + optax."""
    x_train, _, y_train, _ = digits
    x, y = x_train[:96], y_train[:96]
    ms.set_seed(3)
    net_a, net_b = MLP(), MLP()
    for pa, pb in zip(net_a.trainable_params(), net_b.trainable_params()):
        pb.set_data(pa.asnumpy())
    init = [p.asnumpy() for p in net_a.trainable_params()]
    model = Model(net_a, nn.CrossEntropyLoss(), nn.SGD(net_a.trainable_params(), learning_rate=0.1))
    model.train(2, ds.NumpySlicesDataset((x, y), shuffle=False).batch(32), progress_bar=False)

    loss_fn, opt = nn.CrossEntropyLoss(), nn.SGD(net_b.trainable_params(), learning_rate=0.1)
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net_b(a), b), None, opt.parameters)
    for _ in range(2):
        for i in range(0, 96, 32):
            _, grads = grad_fn(ms.Tensor(x[i:i + 32]), ms.Tensor(y[i:i + 32]))
            opt(grads)
    for pa, pb in zip(net_a.trainable_params(), net_b.trainable_params()):
        np.testing.assert_allclose(pa.asnumpy(), pb.asnumpy(), rtol=1e-5, atol=1e-6)

    def ref_loss(params, a, b):
        w1, b1, w2, b2 = params
        logits = jnp.maximum(a @ w1.T + b1, 0) @ w2.T + b2
        return optax.softmax_cross_entropy_with_integer_labels(logits, b).mean()

    params, tx = [jnp.asarray(p) for p in init], optax.sgd(0.1)
    state = tx.init(params)
    ref_grad = jax.jit(jax.grad(ref_loss))
    for _ in range(2):
        for i in range(0, 96, 32):
            updates, state = tx.update(ref_grad(params, x[i:i + 32], y[i:i + 32]), state)
            params = optax.apply_updates(params, updates)
    for pa, ref in zip(net_a.trainable_params(), params):
        np.testing.assert_allclose(pa.asnumpy(), np.asarray(ref), rtol=1e-4, atol=1e-5)


def test_a_step_that_cannot_be_compiled_falls_back_to_eager_once_with_a_notice(small):
    """float64 data on the simulated Ascend (no float64 kernels): the backend refuses the step, eager runs it."""
    data, _ = small
    x, y = (np.concatenate(c) for c in zip(*data.create_tuple_iterator(output_numpy=True)))
    data64 = ds.NumpySlicesDataset((x.astype(np.float64), y), shuffle=False).batch(32)
    ms.set_seed(1)
    net, ref = MLP(dtype=ms.float64), MLP(dtype=ms.float64)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        q.set_data(p.asnumpy())
    model = Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params(), learning_rate=0.1))
    ms.set_context(device_target="Ascend")
    try:
        with pytest.warns(RuntimeWarning, match="(?s)training step could not be compiled.*float64") as record:
            model.train(2, data64, progress_bar=False)
    finally:
        ms.set_context(device_target="CPU")
    assert len([w for w in record if "could not be compiled" in str(w.message)]) == 1
    assert not model._train_step.compiled
    # the failed compile attempt wrote nothing: the result equals a purely eager run
    loss_fn, opt = nn.CrossEntropyLoss(), nn.SGD(ref.trainable_params(), learning_rate=0.1)
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(ref(a), b), None, opt.parameters)
    for _ in range(2):
        for i in range(0, 96, 32):
            opt(grad_fn(ms.Tensor(x[i:i + 32].astype(np.float64)), ms.Tensor(y[i:i + 32]))[1])
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- callbacks
class Recorder(Callback):
    def __init__(self):
        self.calls = []

    def _log(self, hook, ctx):
        cb = ctx.original_args()
        self.calls.append((hook, cb.cur_epoch_num, cb.cur_step_num))

    def on_train_begin(self, ctx):
        self._log("train_begin", ctx)

    def on_train_epoch_begin(self, ctx):
        self._log("epoch_begin", ctx)

    def on_train_step_begin(self, ctx):
        self._log("step_begin", ctx)

    def on_train_step_end(self, ctx):
        cb = ctx.original_args()
        assert isinstance(cb.net_outputs, ms.Tensor) and cb.net_outputs.shape == ()
        assert cb.batch_num == 3 and cb.epoch_num == 2 and cb.batch_size == 32
        assert isinstance(cb.network, MLP) and isinstance(cb.optimizer, nn.SGD)
        self._log("step_end", ctx)

    def on_train_epoch_end(self, ctx):
        assert isinstance(ctx.original_args().train_loss, float)
        self._log("epoch_end", ctx)

    def on_train_end(self, ctx):
        self._log("train_end", ctx)


class OldStyle(Callback):
    """A MindSpore 1.x callback: the old hook names still run."""

    def __init__(self):
        self.steps = 0

    def step_end(self, run_context):
        self.steps += 1


@pytest.fixture(scope="module")
def small_model():
    """A 96-row dataset (3 batches of 32) and one Model on it, compiled once for all the callback tests."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(96, 64)).astype(np.float32)
    y = rng.integers(0, 10, 96).astype(np.int32)
    ms.set_seed(0)
    net = MLP()
    model = Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params(), learning_rate=0.1),
                  metrics={"accuracy"})
    state = [(p, p.asnumpy().copy()) for p in model.train_network.get_parameters()]
    return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(32), model, net, state


@pytest.fixture
def small(small_model):
    """(dataset, make): `make()` gives the shared Model and its network with their initial weights and state."""
    data, model, net, state = small_model

    def make():
        for p, value in state:
            p.set_data(value)
        return model, net

    make()
    return data, make


def test_callbacks_are_called_in_order_with_the_run_state(small):
    data, make = small
    model, _ = make()
    rec, old = Recorder(), OldStyle()
    model.train(2, data, callbacks=[rec, old], progress_bar=False)
    expected = [("train_begin", 0, 0)]
    for epoch in (1, 2):
        expected.append(("epoch_begin", epoch, (epoch - 1) * 3))
        for step in range(1, 4):
            global_step = (epoch - 1) * 3 + step  # counted before step_begin, as in MindSpore
            expected += [("step_begin", epoch, global_step), ("step_end", epoch, global_step)]
        expected.append(("epoch_end", epoch, epoch * 3))
    expected.append(("train_end", 2, 6))
    assert rec.calls == expected
    assert old.steps == 6


def test_request_stop_ends_training_after_the_step(small):
    data, make = small
    model, _ = make()

    class StopAtFour(Recorder):
        def on_train_step_end(self, ctx):
            super().on_train_step_end(ctx)
            if ctx.original_args().cur_step_num == 4:
                ctx.request_stop()

    rec = StopAtFour()
    model.train(2, data, callbacks=rec, progress_bar=False)
    assert [c for c in rec.calls if c[0] == "step_end"][-1] == ("step_end", 2, 4)
    assert rec.calls[-2:] == [("epoch_end", 2, 4), ("train_end", 2, 4)]


def test_loss_and_time_monitors_print_mindspore_lines(small, capsys):
    data, make = small
    model, _ = make()
    model.train(1, data, callbacks=[LossMonitor(2), TimeMonitor()], progress_bar=False)
    out = capsys.readouterr().out.splitlines()
    loss_lines = [line for line in out if line.startswith("epoch:")]
    assert len(loss_lines) == 1 and loss_lines[0].startswith("epoch: 1 step: 2, loss is ")
    float(loss_lines[0].rsplit(" ", 1)[1])
    assert any(line.startswith("Train epoch time: ") and "per step time: " in line for line in out)
    with pytest.raises(ValueError, match="per_print_times"):
        LossMonitor(-1)


def test_time_monitor_data_time_counts_the_host_time_between_steps(small, capsys):
    """MindSpore's `TimeMonitor(data_time=True)`: the mean time per step spent fetching the batch (here a map
    that sleeps 30 ms per batch: at least that much, however loaded the machine)."""
    data, make = small
    model, _ = make()

    def slow(x, y):
        time.sleep(0.03)
        return x, y

    model.train(1, data.map(slow, ["x", "y"]), callbacks=[TimeMonitor(data_time=True)], progress_bar=False)
    line = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Train epoch time: ")][0]
    assert float(line.rsplit("(data time: ", 1)[1].split(" ms)")[0]) >= 25.0
    with pytest.raises(TypeError, match="data_time must be a bool"):
        TimeMonitor(data_time=1)


def test_loss_monitor_stops_training_on_a_nan_loss(small):
    data, make = small
    model, net = make()
    net.fc1.weight.set_data(np.full(net.fc1.weight.shape, np.nan, np.float32))
    with pytest.raises(ValueError, match="epoch: 1 step: 1. Invalid loss nan, terminating training"):
        model.train(1, data, callbacks=LossMonitor(), progress_bar=False)


def test_progress_bar_shows_epoch_loss_and_throughput(small, capsys):
    data, make = small
    model, _ = make()
    stream = io.StringIO()
    model.train(2, data, callbacks=ProgressBar(file=stream, refresh_seconds=0), progress_bar=True)
    text = stream.getvalue()
    assert "epoch 1/2" in text and "epoch 2/2" in text and "3/3" in text
    assert "loss=" in text and "samples/s=" in text
    model.train(1, data)  # default: no terminal, no notebook -> no bar
    model.train(1, data, callbacks=ProgressBar(file=stream), progress_bar=False)
    assert "epoch 1/1" not in stream.getvalue() and "epoch" not in capsys.readouterr().err


def test_early_stopping_on_the_training_loss_and_on_validation(small):
    data, make = small
    model, _ = make()
    stop = EarlyStopping(monitor="loss", min_delta=100.0, patience=1)
    history = History()
    model.train(10, data, callbacks=[stop, history], progress_bar=False)
    assert history.epoch == [1, 2] and stop.stopped_epoch == 2 and stop.best_epoch == 1

    model, _ = make()
    stop, history = EarlyStopping(monitor="eval_loss", patience=0, min_delta=0.02), History()
    model.fit(5, data, data, callbacks=[history, stop], progress_bar=False)
    values, best, stopped = history.history["eval_loss"], np.inf, 0  # the rule, replayed on what was seen
    for epoch, value in enumerate(values, 1):
        if value < best - 0.02:
            best, best_epoch = value, epoch
        else:
            stopped = epoch
            break
    assert stop.stopped_epoch == stopped and stop.best_epoch == best_epoch and stop.best == best
    assert history.epoch == list(range(1, (stopped or 5) + 1))
    with pytest.raises(ValueError, match="monitor 'top5' is not among the validation results"):
        make()[0].fit(1, data, data, callbacks=EarlyStopping("top5"), progress_bar=False)


def test_restore_best_weights_puts_back_the_best_epoch(small):
    data, make = small
    model, net = make()
    snapshots = []

    class Snap(Callback):
        def on_train_epoch_end(self, ctx):
            snapshots.append([p.asnumpy().copy() for p in net.trainable_params()])

    # SGD with a huge lr makes the loss blow up after the first epoch: epoch 1 is the best
    model._optimizer.learning_rate.set_data(ms.Tensor(5.0))
    stop = EarlyStopping(monitor="loss", patience=1, restore_best_weights=True)
    model.train(4, data, callbacks=[Snap(), stop], progress_bar=False)
    assert stop.stopped_epoch > 0
    best = snapshots[stop.best_epoch - 1]
    for p, b in zip(net.trainable_params(), best):
        np.testing.assert_array_equal(p.asnumpy(), b)


def test_model_checkpoint_writes_keeps_the_last_n_and_reloads(small, tmp_path):
    data, make = small
    model, net = make()
    config = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=2, append_info=["epoch_num"])
    ckpt = ModelCheckpoint(prefix="mlp", directory=tmp_path, config=config)
    model.train(2, data, callbacks=ckpt, progress_bar=False)
    # saved at global steps 2, 4, 6 (= epoch 1 step 2, epoch 2 steps 1 and 3); the last 2 are kept
    assert sorted(os.listdir(tmp_path)) == ["mlp-2_1.ckpt", "mlp-2_3.ckpt"]
    assert ckpt.latest_ckpt_file_name == str(tmp_path / "mlp-2_3.ckpt")
    params = ms.load_checkpoint(ckpt.latest_ckpt_file_name)
    assert int(params["epoch_num"].asnumpy()) == 2
    assert "moment1.fc1.weight" not in params and "global_step" in params  # SGD state travels along
    fresh = MLP()
    not_loaded, _ = ms.load_param_into_net(fresh, params)
    assert not_loaded == []
    x = ms.Tensor(np.ones((32, 64), np.float32))
    assert_same_float32(fresh(x).asnumpy(), net(x).asnumpy())   # one call may run an op plainly, the other compiled
    # a second run with the same prefix does not overwrite the first
    ckpt2 = ModelCheckpoint(prefix="mlp", directory=tmp_path, config=CheckpointConfig(save_checkpoint_steps=3))
    model.train(1, data, callbacks=ckpt2, progress_bar=False)
    assert os.path.basename(ckpt2.latest_ckpt_file_name) == "mlp_1-1_3.ckpt"
    assert len(os.listdir(tmp_path)) == 3 and not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_model_checkpoint_keeps_the_best_by_a_validation_metric(small, tmp_path):
    data, make = small
    model, net = make()
    accuracies = []

    class Seen(Callback):
        def on_train_epoch_end(self, ctx):
            accuracies.append(ctx.original_args().eval_results["eval_loss"])

    config = CheckpointConfig(keep_checkpoint_max=2, monitor="eval_loss", mode="min")
    ckpt = ModelCheckpoint(prefix="best", directory=tmp_path, config=config)
    model.fit(4, data, data, callbacks=[Seen(), ckpt], progress_bar=False)
    order = np.argsort(accuracies)[:2]
    assert sorted(os.listdir(tmp_path)) == sorted(f"best-{i + 1}_3.ckpt" for i in order)
    assert ckpt.best_ckpt_file_name == str(tmp_path / f"best-{order[0] + 1}_3.ckpt")
    with pytest.raises(ValueError, match="can't both be 0"):
        CheckpointConfig(save_checkpoint_steps=0)


# ---------------------------------------------------------------- metrics against numpy
def test_metrics_match_numpy():
    rng = np.random.default_rng(0)
    scores, labels = rng.normal(size=(20, 5)), rng.integers(0, 5, 20)
    acc = Accuracy()
    acc.update(ms.Tensor(scores[:8]), ms.Tensor(labels[:8]))
    acc.update(scores[8:], np.eye(5)[labels[8:]])  # numpy, one-hot
    assert acc.eval() == pytest.approx((scores.argmax(1) == labels).mean())
    multi = Accuracy("multilabel")
    pred, truth = rng.random((6, 3)), rng.integers(0, 2, (6, 3))
    assert multi(pred, truth) == pytest.approx(np.all(np.round(pred) == truth, axis=1).mean())
    loss = Loss()
    loss.update(ms.Tensor(2.0))
    loss.update(np.array([1.0, 3.0, 5.0]))
    assert loss.eval() == pytest.approx(2.5)
    y_pred, y = rng.normal(size=(7, 2)), rng.normal(size=(7, 2))
    assert MAE()(y_pred, y) == pytest.approx(np.abs(y - y_pred).sum() / 7)
    assert MSE()(y_pred, y) == pytest.approx(((y - y_pred) ** 2).sum() / 7)
    with pytest.raises(RuntimeError, match="number of samples is 0"):
        Accuracy().eval()
    with pytest.raises(ValueError, match="same number of samples"):
        Accuracy().update(scores[:3], labels[:4])


def test_bad_model_arguments_are_explained(small):
    data, make = small
    net = MLP()
    with pytest.raises(ValueError, match="needs an optimizer"):
        Model(net, nn.CrossEntropyLoss()).train(1, data, progress_bar=False)
    with pytest.raises(ValueError, match="at least 2 columns"):
        make()[0].train(1, data.map(lambda a, b: a, input_columns=["x", "y"], output_columns=["x"]),
                        progress_bar=False)
    with pytest.raises(ValueError, match="needs metrics"):
        Model(net, nn.CrossEntropyLoss()).eval(data)
    with pytest.raises(TypeError, match="unknown keyword"):
        Model(net, boost_level="O1")
    with pytest.raises(TypeError, match="msx Dataset"):
        make()[0].train(1, [(1, 2)], progress_bar=False)
    with pytest.raises(TypeError, match="Callback instances"):
        make()[0].train(1, data, callbacks=[print], progress_bar=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make()[0].train(1, data, progress_bar=False)  # a clean run warns about nothing


def test_a_loss_gone_non_finite_is_said_not_silent():
    """Out-of-range class indices make the jitted step's loss NaN (eagerly they raise; a compiled graph
    cannot): train warns once, naming the first such step, instead of letting the weights stop in silence."""
    net = nn.Dense(4, 3)
    x = np.ones((8, 4), np.float32)
    good = ds.NumpySlicesDataset({"x": x, "y": np.zeros(8, np.int32)}, shuffle=False).batch(4)
    model = ms.train.Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params(), 0.1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        model.train(1, good)                                   # finite losses: nothing said
    labels = np.array([0, 1, 2, 0, 7, 1, 9, 2], np.int32)      # 7 and 9 are not classes of 3
    bad = ds.NumpySlicesDataset({"x": x, "y": labels}, shuffle=False).batch(4)
    with pytest.warns(RuntimeWarning, match=r"from step 2 \(epoch 1; 1 of the epoch's 2 steps\)") as record:
        model.train(2, bad)
    assert len([w for w in record if "Model.train: the loss" in str(w.message)]) == 1   # once per train


class _Steps(Callback):
    """The inputs each step got, and what the callbacks are told of an epoch (MindSpore's cb_params)."""

    def __init__(self):
        self.first_rows, self.epochs = [], []

    def on_train_step_begin(self, run_context):
        self.first_rows.append(float(run_context.original_args().train_dataset_element[0].asnumpy()[0, 0]))

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        self.epochs.append((cb.cur_epoch_num, cb.cur_step_num, cb.batch_num))


def _sink_run(monkeypatch, target, **kwargs):
    monkeypatch.setattr("msx.train.model.get_context", lambda key: target if key == "device_target" else None)
    x = np.arange(10 * 64, dtype=np.float32).reshape(10, 64) / 640
    data = ds.NumpySlicesDataset((x, np.zeros(10, np.int32)), shuffle=False).batch(2)  # 5 batches
    net = MLP()
    steps = _Steps()
    Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params(), 0.0)).train(
        3, data, callbacks=[steps], progress_bar=False, **kwargs)
    return [round(r * 640 / 64) for r in steps.first_rows], steps.epochs


def test_sink_size_on_a_sinking_target_makes_an_epoch_sink_size_steps_reading_on(monkeypatch):
    rows, epochs = _sink_run(monkeypatch, "GPU", dataset_sink_mode=True, sink_size=3)
    assert rows == [0, 2, 4, 6, 8, 0, 2, 4, 6]  # the dataset is read on across epochs, as MindSpore's sink does
    assert epochs == [(1, 3, 3), (2, 6, 3), (3, 9, 3)]


def test_sink_size_on_the_cpu_target_trains_whole_epochs_as_mindspore_does(monkeypatch):
    rows, epochs = _sink_run(monkeypatch, "CPU", dataset_sink_mode=True, sink_size=3)
    assert rows == [0, 2, 4, 6, 8] * 3  # MindSpore 2.10 does not sink on CPU; its callbacks see batch_num=3
    assert epochs == [(1, 5, 3), (2, 10, 3), (3, 15, 3)]
    rows, epochs = _sink_run(monkeypatch, "GPU", dataset_sink_mode=False, sink_size=3)
    assert len(rows) == 15 and epochs[-1] == (3, 15, 5)  # sink_size means nothing without dataset_sink_mode


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-2, ValueError), (1.5, TypeError)])
def test_a_bad_sink_size_is_refused_as_mindspore_refuses_it(bad, error):
    net = MLP()
    data = ds.NumpySlicesDataset((np.zeros((4, 64), np.float32), np.zeros(4, np.int32)), shuffle=False).batch(2)
    with pytest.raises(error, match="sink_size"):
        Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params(), 0.1)).fit(1, data, sink_size=bad)
