"""The parallel optimizer in global view (msx/parallel/zero.py): ZeRO levels 1-3 over 8 host devices.

One subprocess (`XLA_FLAGS=--xla_force_host_platform_device_count=8`) trains an MLP 3 Momentum steps in
SEMI_AUTO_PARALLEL without the parallel optimizer (ZeRO-0) and with each level (level3 also through
`AutoParallel.hsdp`, and with one weight marked `parallel_optimizer=False`); the losses and parameters must equal ZeRO-0's (a layout never changes what is computed),
the state (and, level3, the weights) must stay cut over the 8 devices between steps, and the compiled step's
`memory_analysis()` must show the per-device argument bytes (parameters + optimizer state + the batch) of
level3 at about 1/8 of ZeRO-0's.
"""
import textwrap

import numpy as np
import pytest

import msx as ms
from msx.errors import ContextError
from host_devices import run_json

SCRIPT = textwrap.dedent("""
    import gc, json, os, tempfile
    import numpy as np
    import msx as ms
    from msx import nn
    from msx.parallel.auto_parallel import AutoParallel

    rng = np.random.default_rng(0)
    X = ms.Tensor(rng.normal(size=(32, 64)).astype(np.float32))
    Y = ms.Tensor(rng.normal(size=(32, 8)).astype(np.float32))

    def run(level, hsdp=False, pinned=False):
        gc.collect()  # the last run's optimizer (its weights have the same names) must not lay out this one's
        ms.reset_auto_parallel_context()
        kw = {} if level is None or hsdp else dict(
            enable_parallel_optimizer=True,
            parallel_optimizer_config={"optimizer_level": level, "parallel_optimizer_threshold": 0})
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=8, **kw)
        ms.set_seed(0)
        net = nn.SequentialCell(nn.Dense(64, 256), nn.Tanh(), nn.Dense(256, 64), nn.Tanh(), nn.Dense(64, 8))
        net[0].weight.parallel_optimizer = not pinned
        opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
        grad_fn = ms.value_and_grad(lambda x, y: nn.MSELoss()(net(x), y), None, opt.parameters)

        @ms.jit
        def step(x, y):
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss

        runner = step
        if hsdp:
            runner = AutoParallel(step)
            runner.hsdp(threshold=0, optimizer_level=level)
        losses = [float(runner(X, Y).asnumpy()) for _ in range(3)]
        memory = step.lower(X, Y).compile().handle.compiled.memory_analysis()
        cut = [str(net[0].weight._data.sharding.spec), str(opt.moments[0]._data.sharding.spec)]
        path = os.path.join(tempfile.mkdtemp(), "net.ckpt")
        ms.save_checkpoint(net, path)   # the cut weights are written whole
        saved = {k: v.asnumpy().tolist() for k, v in ms.load_checkpoint(path).items()}
        return [losses, [p.asnumpy().tolist() for p in net.trainable_params()], memory.argument_size_in_bytes, cut,
                saved, [p.name for p in net.trainable_params()]]

    out = {"zero0": run(None), "level1": run("level1"), "level2": run("level2"), "level3": run("level3"),
           "hsdp3": run("level3", hsdp=True), "pinned3": run("level3", pinned=True)}
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def eight():
    return run_json(SCRIPT)


@pytest.mark.parametrize("run", ["level1", "level2", "level3", "hsdp3", "pinned3"])
def test_every_level_trains_like_zero0(eight, run):
    (losses, params, *_), (got_losses, got_params, *_) = eight["zero0"], eight[run]
    np.testing.assert_allclose(got_losses, losses, rtol=1e-5)
    for g, w in zip(got_params, params):
        np.testing.assert_allclose(np.array(g), np.array(w), rtol=1e-5, atol=1e-6)


def test_state_and_level3_weights_stay_cut_between_steps(eight):
    cut = "P(('s0', 's1', 's2'), None)"
    assert eight["level1"][3] == ["P()", cut]          # weights whole, state cut
    assert eight["level2"][3] == ["P()", cut]
    assert eight["level3"][3] == [cut, cut] == eight["hsdp3"][3]   # weights cut too


def test_a_parameter_with_parallel_optimizer_false_stays_whole(eight):
    """MindSpore's `Parameter(parallel_optimizer=False)`: neither the weight nor its state is cut, at level3."""
    assert eight["pinned3"][3] == ["P()", "P()"]


def test_level3_keeps_about_one_eighth_per_device(eight):
    zero0, level1, level3 = eight["zero0"][2], eight["level1"][2], eight["level3"][2]
    batch = (32 * 64 + 32 * 8) * 4 // 8         # the inputs, cut over the 8 devices either way
    state = zero0 - batch                       # weights + Momentum's moments, whole on every device
    assert level1 < zero0 - 0.4 * state         # the moments (half the state) cut 8 ways
    assert level3 - batch <= state / 8 * 1.1 + 4096   # weights and moments cut 8 ways (small tensors stay whole)


def test_a_level3_checkpoint_holds_the_whole_tensors(eight):
    _, params, _, _, saved, names = eight["level3"]
    for name, value in zip(names, params):
        np.testing.assert_array_equal(np.array(saved[name]), np.array(value))


def test_level3_is_refused_in_data_parallel():
    try:
        with pytest.raises(ContextError, match="not supported by msx in data_parallel"):
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                         parallel_optimizer_config={"optimizer_level": "level3"})
    finally:
        ms.reset_auto_parallel_context()
