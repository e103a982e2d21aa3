"""The generated hot call (`msx.runtime.hot_call`): each shape of code it generates equals eager execution.

A hot call is generated per entry with the argument count, the Parameters read and written and the checks
the entry needs unrolled, so each variant below (no argument, one, two, three; a tuple result; Parameters
written with donation; a Python-state guard; a Parameter reshaped) is run past its first hits, where the
generated function serves it (in bytecode mode, after the entry's own guards), and compared with the same
program run eagerly."""
import numpy as np
import pytest

import msx
from msx import nn, ops
from tolerance import assert_same_float32

T = msx.Tensor
MODES = ["ast", "trace", "bytecode"]
GAIN = 2.0


def _inputs(k: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    return [T(rng.standard_normal((2, 3)).astype(np.float32)) for _ in range(k)]


class Accumulate(nn.Cell):
    """Writes two Parameters each call: the graph donates their buffers."""

    def __init__(self) -> None:
        super().__init__()
        self.total = msx.Parameter(T(np.zeros((2, 3), np.float32)), name="total")
        self.count = msx.Parameter(T(np.zeros((), np.float32)), name="count")

    def construct(self, x):
        ops.assign(self.total, self.total + x)
        ops.assign(self.count, self.count + 1.0)
        return self.total * 1.0


PROGRAMS = {
    "no argument": (lambda: ops.ones((2, 2), msx.float32) * 3.0, 0),
    "one argument": (lambda x: ops.relu(x) + 1.0, 1),
    "two arguments, a tuple result": (lambda x, y: (x * y, x - y), 2),
    "three arguments": (lambda x, y, z: x * y + z, 3),
    "a global read": (lambda x: x * GAIN, 1),
}


def _flat(out) -> list:
    return [o.asnumpy() for o in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_each_generated_shape_equals_eager_past_its_first_hits(mode, name):
    fn, k = PROGRAMS[name]
    jf = msx.jit(fn, capture_mode=mode)
    for step in range(5):
        args = _inputs(k, step)
        for ours, theirs in zip(_flat(jf(*args)), _flat(fn(*args))):
            assert_same_float32(ours, theirs)
    hot = jf.entries.hot if mode != "bytecode" else jf.entries.root.entries[0]._hot  # (bytecode: after its guards)
    assert hot is not None and hasattr(hot, "source_text")
    assert jf.cache_info()["hits"] >= 3


@pytest.mark.parametrize("mode", ["ast", "trace"])
def test_a_global_changed_after_hot_calls_is_seen(mode):
    global GAIN
    fn = PROGRAMS["a global read"][0]
    jf = msx.jit(fn, capture_mode=mode)
    x = _inputs(1, 0)[0]
    for _ in range(3):
        jf(x)
    try:
        GAIN = -5.0
        assert_same_float32(jf(x).asnumpy(), x.asnumpy() * -5.0)
    finally:
        GAIN = 2.0


@pytest.mark.parametrize("mode", MODES)
def test_written_parameters_are_updated_by_hot_calls_and_held_tensors_survive(mode):
    ours, theirs = Accumulate(), Accumulate()
    jf = msx.jit(ours, capture_mode=mode)
    held = [ours.total.value()]
    for step in range(6):
        (x,) = _inputs(1, step)
        assert_same_float32(jf(x).asnumpy(), theirs(x).asnumpy())
        held.append(ours.total.value())
    assert_same_float32(ours.total.asnumpy(), theirs.total.asnumpy())
    assert float(ours.count.asnumpy()) == 6.0
    for t in held:  # every tensor the user took from the Parameter is still readable
        t.asnumpy()
    assert jf.cache_info()["hits"] >= 4


class Scale(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.w = msx.Parameter(T(np.full((3,), 2.0, np.float32)), name="w")

    def construct(self, x):
        return x * self.w


@pytest.mark.parametrize("mode", MODES)
def test_a_parameter_reshaped_after_hot_calls_recompiles_and_equals_eager(mode):
    """The generated call refuses the new shape in the executable's C++ check; the checked path drops the stale
    entry (in bytecode mode also the runner's last hit) and compiles again."""
    net = Scale()
    jf = msx.jit(net, capture_mode=mode)
    x = _inputs(1, 0)[0]
    for _ in range(4):
        assert_same_float32(jf(x).asnumpy(), x.asnumpy() * 2.0)
    net.w.set_data(T(np.full((2, 1), -3.0, np.float32)))
    for _ in range(3):
        assert_same_float32(jf(x).asnumpy(), net(x).asnumpy())
    assert jf(x).shape == (2, 3)
