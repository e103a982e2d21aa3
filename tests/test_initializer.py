"""Host initializers: MindSpore's stream and seeding, the deferred `init_data()` form, and layers' `bias`
when `has_bias=False` (values against MindSpore are in test_initializer_golden.py)."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import nn
from msx.common import initializer as I
from msx.nn import init_random


def test_set_seed_seeds_numpy_and_each_random_fill_draws_one_seed_from_it():
    msx.set_seed(7)
    a = I.initializer(I.Normal(), (3, 4)).asnumpy()
    after = np.random.randint(0, 1 << 30)
    np.random.seed(7)  # what mindspore.set_seed(7) does to numpy
    seed = np.random.randint(low=1, high=1 << 63, dtype=np.int64)
    assert np.random.randint(0, 1 << 30) == after
    np.testing.assert_array_equal(a, init_random.normal(int(seed), 12, 0.0, 0.01).reshape(3, 4))


def test_constant_fills_draw_nothing():
    msx.set_seed(3)
    for init in ("zeros", "ones", 2.5, I.Identity(), I.Dirac()):
        I.initializer(init, (2, 2, 3) if isinstance(init, I.Dirac) else (2, 2))
    state = np.random.get_state()[1].copy()
    np.random.seed(3)
    np.testing.assert_array_equal(np.random.get_state()[1], state)


def test_philox_stream_is_independent_of_chunking():
    # the 4-word blocks are computed in chunks; a fill longer than a chunk is the same stream
    n = init_random._CHUNK * 4 + 6
    words = init_random.philox_u32(99, n)
    np.testing.assert_array_equal(init_random.philox_u32(99, 10), words[:10])
    np.testing.assert_array_equal(init_random.uniform(99, n, 0.0, 1.0)[-6:],
                                  (words[-6:] / 2 ** 32).astype(np.float32))


def test_init_data_deferred_form():
    msx.set_seed(1)
    t = msx.Tensor(shape=(2, 3), dtype=msx.float32, init=I.Normal())
    assert t.init_data() is t
    msx.set_seed(1)
    np.testing.assert_array_equal(I.initializer("normal", (2, 3)).init_data().asnumpy(), t.asnumpy())


def test_dtypes_follow_mindspore_casts():
    msx.set_seed(0)
    f = I.initializer(I.Normal(10.0), (6,), msx.float32).asnumpy()
    msx.set_seed(0)
    i = I.initializer(I.Normal(10.0), (6,), msx.int32).asnumpy()
    assert i.dtype == np.int32
    np.testing.assert_array_equal(i, f.astype(np.int32))  # drawn in float32, then cast (truncation)


def test_initializer_errors():
    with pytest.raises(ValueError, match="sigma must be >= 0"):
        I.initializer(I.Normal(-1.0), (2,))
    with pytest.raises(ValueError, match="2-d shape"):
        I.initializer(I.Identity(), (2, 2, 2))
    with pytest.raises(ValueError, match="divisible by groups"):
        I.initializer(I.Dirac(groups=2), (3, 2, 3))
    with pytest.raises(ValueError, match="distribution must be"):
        I.VarianceScaling(distribution="normal")


@pytest.mark.parametrize("make", [
    lambda: nn.Dense(3, 4, has_bias=False), lambda: nn.Conv1d(3, 4, 3), lambda: nn.Conv2d(3, 4, 3),
    lambda: nn.Conv3d(2, 4, 2), lambda: nn.Conv2dTranspose(3, 4, 3), lambda: nn.Conv1dTranspose(3, 4, 3),
    lambda: nn.Conv3dTranspose(2, 4, 2)])
def test_bias_is_none_without_has_bias(make):
    layer = make()
    assert layer.bias is None
    assert [name for name, _ in layer.parameters_and_names()] == ["weight"]


def test_mindspore_private_fan_helpers():
    # values printed by MindSpore 2.10's helpers of the same names (model-zoo code imports them)
    assert I._calculate_fan_in_and_fan_out((4, 3, 3, 3)) == (27, 36)
    assert I._calculate_correct_fan((4, 3, 3, 3), "fan_out") == 36
    assert I._calculate_gain("leaky_relu", 5 ** 0.5) == 0.5773502691896257


def test_threaded_fill_equals_one_thread(monkeypatch):
    n = init_random._CHUNK * 4 * 5 + 3
    monkeypatch.setattr(init_random, "_THREADS", 1)
    one = [init_random.normal(11, n, 0.0, 1.0), init_random.truncated_normal(11, n, -1.0, 2.0, 0.0, 1.0)]
    monkeypatch.setattr(init_random, "_THREADS", 3)
    three = [init_random.normal(11, n, 0.0, 1.0), init_random.truncated_normal(11, n, -1.0, 2.0, 0.0, 1.0)]
    for a, b in zip(one, three):
        np.testing.assert_array_equal(a, b)


@pytest.mark.filterwarnings("ignore:os.fork")  # the child touches no jax
def test_a_forked_child_fills_with_its_own_threads(monkeypatch):
    import os
    import signal

    monkeypatch.setattr(init_random, "_THREADS", 2)
    n = init_random._CHUNK * 4 * 4
    want = init_random.uniform(5, n, 0.0, 1.0)  # the parent's pool now exists
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: the inherited pool has no threads behind it; a hang ends by SIGALRM (read gives b"")
        signal.alarm(60)
        ok = np.array_equal(init_random.uniform(5, n, 0.0, 1.0), want)
        os.write(write, b"1" if ok else b"0")
        os._exit(0)
    os.close(write)
    assert os.read(read, 1) == b"1"
    os.waitpid(pid, 0)


@pytest.mark.parametrize("init", ["Uniform", "Normal", "TruncatedNormal", "HeUniform"])
def test_a_float32_fill_is_written_in_place_with_the_values_of_every_other_layout(init):
    """A C-contiguous float32 array is filled where it lies (no second array and copy); other dtypes and
    layouts are cast into, as MindSpore's `_assignment` does: the same seed gives the same float32 values."""
    def filled(arr):
        msx.set_seed(3)
        getattr(I, init)()(arr)
        return arr

    flat = filled(np.zeros((6, 5), np.float32))
    assert np.array_equal(filled(np.zeros((6, 5), np.float64)).astype(np.float32), flat)
    strided = filled(np.zeros((5, 6), np.float32).T)  # not C-contiguous: the copying path
    assert np.array_equal(strided, flat)
    assert np.unique(flat).size > 1


def test_a_random_fill_refuses_an_output_of_the_wrong_kind():
    with pytest.raises(ValueError, match="cannot be written into float64"):
        init_random.uniform(1, 4, 0.0, 1.0, out=np.zeros(4, np.float64))
    assert np.array_equal(init_random.uniform(1, 4, 0.0, 1.0, out=np.zeros(4, np.float32)),
                          init_random.uniform(1, 4, 0.0, 1.0))
