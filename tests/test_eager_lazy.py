"""Forward replay (`msx.eager.lazy`): compiled eager ops are deferred, and a repeated op sequence runs as one
compiled executable with the per-op results; reading a value (or anything that is not deferred) runs it."""
from __future__ import annotations

import subprocess
import sys
import threading

import jax
import numpy as np
import pytest

import msx
from msx import nn, ops
from msx.eager import dispatch, lazy
from msx.tensor import Parameter, Tensor

from tolerance import assert_same_float32

RNG = np.random.default_rng(7)
A = RNG.normal(size=(3, 4)).astype(np.float32)
W = RNG.normal(size=(4, 2)).astype(np.float32)
I = np.arange(12, dtype=np.float32).reshape(3, 4)  # integers: a chain of `+ 1` is exact
WARM = 1  # runs before every op of a sequence has its executable (and then defers)


def pending(t) -> bool:
    return type(t._placeholder) is dispatch.Pending


def chain(x, w):
    y = ops.sin(x) * 2.0 + x
    z = ops.matmul(y, w)
    return ops.exp(z * 0.1).sum(axis=1) - 1


def numpy_chain(x, w):
    y = np.sin(x) * 2.0 + x
    return np.exp((y @ w) * 0.1).sum(axis=1) - 1


@pytest.fixture(autouse=True)
def fresh():
    msx.eager.clear_cache()
    yield
    lazy.set_enabled(True)


def _info():
    return msx.eager.cache_info()


def test_replayed_results_equal_the_per_op_results_and_compile_on_the_nth_sighting():
    x, w = Tensor(A), Tensor(W)
    lazy.set_enabled(False)
    per_op = [chain(x, w).asnumpy() for _ in range(WARM + 1)][-1]
    lazy.set_enabled(True)
    assert_same_float32(per_op, numpy_chain(A, W))
    results = []
    for i in range(lazy.REPLAY_AFTER + 4):  # the ops are compiled (above): each chain defers, from the first
        out = chain(x, w)
        assert pending(out)
        results.append(out.asnumpy())
        # sightings 1..REPLAY_AFTER run op by op, the next compiles the segment
        assert _info()["forward_compiles"] == (1 if i >= lazy.REPLAY_AFTER else 0), i
    assert _info()["forward_replays"] == 4
    for r in results:  # fused and op by op: bitwise here (XLA CPU), but XLA may fuse a matmul's epilogue
        assert_same_float32(r, per_op)


def test_one_off_sequences_never_compile_a_segment():
    x = Tensor(A)
    for _ in range(WARM):  # warm the ops, then use them in sequences that never repeat
        (x + 1).asnumpy(), (x * 2.0).asnumpy()
    y = x
    for n in range(1, 9):
        for _ in range(n):
            y = y + 1
        y = y * 2.0
        y.asnumpy()  # a segment of another length each time
    assert _info()["forward_compiles"] == 0
    expected = A.copy()
    for n in range(1, 9):
        expected = (expected + n) * 2
    assert_same_float32(y.asnumpy(), expected)


def test_pending_shape_dtype_without_running_and_sync_points():
    x = Tensor(A)
    for _ in range(WARM):
        (x + 1).asnumpy()
    y = x + 1
    assert pending(y)
    assert y.shape == (3, 4) and y.dtype == msx.float32 and y.ndim == 2 and y.size == 12
    assert pending(y)
    np.testing.assert_array_equal(y.asnumpy(), A + 1)
    assert not pending(y)
    for read in (lambda t: str(t), lambda t: float(t.sum()), lambda t: bool(t[0, 0] > -100),
                 lambda t: np.asarray(t), lambda t: t.tolist()):
        t = x + 1
        assert pending(t)
        read(t)
        np.testing.assert_array_equal(t.asnumpy(), A + 1)


def test_a_pending_tensor_into_jit_set_data_and_in_place_ops():
    x = Tensor(A)
    for _ in range(WARM):
        (x + 1).asnumpy(), (x * 3.0).asnumpy()

    @msx.jit
    def double(t):
        return t * 2

    y = x + 1
    assert pending(y)
    np.testing.assert_allclose(double(y).asnumpy(), (A + 1) * 2)
    for _ in range(3):  # a pending argument and a plain one share the entry: no second capture
        np.testing.assert_allclose(double(x + 1).asnumpy(), (A + 1) * 2)
        np.testing.assert_allclose(double(Tensor(A)).asnumpy(), A * 2)
    assert double.cache_info()["compiles"] == 1
    p = Parameter(Tensor(np.zeros((3, 4), np.float32)), name="p")
    q = p * 3.0  # an op on a Parameter defers; the Parameter itself never does
    assert pending(q) and not pending(p)
    p.set_data(x + 1)
    assert not pending(p)
    np.testing.assert_array_equal(p.asnumpy(), A + 1)
    np.testing.assert_array_equal(q.asnumpy(), np.zeros((3, 4)))  # the value p had when the op ran
    z = x + 1
    z += 1
    np.testing.assert_array_equal(z.asnumpy(), (A + 1) + 1)
    r = x + 1
    r.assign_value(Tensor(np.full((3, 4), 5, np.float32)))  # written while pending: the write wins
    (x + 1).asnumpy()
    np.testing.assert_array_equal(r.asnumpy(), np.full((3, 4), 5))


def test_with_the_tape_and_a_training_loop():
    msx.set_seed(0)
    net = nn.Dense(4, 2)
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    grad_fn = msx.value_and_grad(lambda a: (net(a) ** 2).mean(), None, opt.parameters)
    x = Tensor(A)
    w0, b0 = (p.asnumpy() for p in net.trainable_params())

    def ref_step(w, b, a):
        def loss(w, b):
            return ((a @ w.T + b) ** 2).mean()
        gw, gb = jax.grad(loss, (0, 1))(w, b)
        return w - 0.1 * gw, b - 0.1 * gb

    w, b = w0, b0
    for _ in range(12):
        a = x * 0.5 + 0.25  # pending outside the tape, read by the differentiated function
        loss, grads = grad_fn(a)
        opt(grads)
        w, b = ref_step(w, b, A * 0.5 + 0.25)
    assert_same_float32(net.weight.asnumpy(), np.asarray(w))
    assert_same_float32(net.bias.asnumpy(), np.asarray(b))


def test_forced_from_another_thread():
    x = Tensor(I)
    for _ in range(WARM):
        (x + 1).asnumpy()
    made = []

    def producer():
        y = x
        for _ in range(50):
            y = y + 1
        made.append(y)

    th = threading.Thread(target=producer)
    th.start()
    th.join()
    assert pending(made[0])
    np.testing.assert_array_equal(made[0].asnumpy(), I + 50)  # its segment belongs to the finished thread
    # two threads deferring and reading each other's results at once
    results, errors = {}, []

    def worker(k):
        try:
            y = x
            for i in range(200):
                y = y + 1
                if i % 37 == 0:
                    results[k, i] = y
            other = results.get((1 - k, 0))
            if other is not None:
                other.asnumpy()
            results[k] = y
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in (0, 1):
        np.testing.assert_array_equal(results[k].asnumpy(), I + 200)
        np.testing.assert_array_equal(results[k, 37].asnumpy(), I + 38)


def test_live_arrays_do_not_grow():
    x = Tensor(np.ones(4, np.float32))
    for _ in range(WARM):
        (x + 1).asnumpy()

    def step(t):
        for _ in range(5):
            t = t * 0.5 + 1
        return t

    for _ in range(10):
        step(x).asnumpy()
    before = len(jax.live_arrays())
    for _ in range(1000):
        y = step(x)
        y.asnumpy()
    assert len(jax.live_arrays()) <= before + 1
    assert _info()["forward_compiles"] == 1
    assert_same_float32(y.asnumpy(), np.full(4, 1.96875))


def test_an_op_error_is_raised_at_its_own_call():
    x = Tensor(A)
    for _ in range(WARM):
        (x + 1).asnumpy()
    y = x + 1
    assert pending(y)
    with pytest.raises(msx.errors.OpError, match=r"Add: .*float32\(3, 4\), float32\(5,\)") as info:
        y + Tensor(np.ones(5, np.float32))
    assert info.value.loc is not None and "test_eager_lazy.py" in str(info.value.loc)
    np.testing.assert_array_equal(y.asnumpy(), A + 1)


def test_a_failing_fused_run_falls_back_to_per_op(monkeypatch):
    def broken(nodes, outs, quick=False):
        def run(*ext):
            raise RuntimeError("boom")
        return run

    monkeypatch.setattr(lazy, "_compile", broken)
    x, w = Tensor(A), Tensor(W)
    out = [chain(x, w).asnumpy() for _ in range(WARM + lazy.REPLAY_AFTER + 3)]
    assert _info()["forward_compiles"] == 1 and _info()["forward_replays"] == 0
    for r in out:
        assert_same_float32(r, numpy_chain(A, W))


def test_the_off_switch():
    x = Tensor(A)
    lazy.set_enabled(False)
    for _ in range(WARM + 2):
        y = x + 1
        assert not pending(y)
    lazy.set_enabled(True)
    assert pending(x + 1)
    code = ("import numpy as np, msx; from msx.eager import dispatch, lazy; x = msx.Tensor(np.ones(2, np.float32))\n"
            "ys = [x + 1 for _ in range(6)]\n"
            "print(lazy.enabled(), type(ys[-1]._placeholder) is dispatch.Pending)")
    env_off = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                             env={**__import__("os").environ, "MSX_FORWARD_REPLAY": "0", "JAX_PLATFORMS": "cpu"})
    assert env_off.stdout.split() == ["False", "False"], env_off.stderr


def test_read_inside_a_jax_trace_stays_concrete():
    x = Tensor(I)
    for _ in range(WARM):
        (x + 1).asnumpy()
    for _ in range(lazy.REPLAY_AFTER + 2):  # op by op, then the compiled segment: both inside jax.jit's trace
        y = x + 1
        y2 = y + 1
        assert pending(y2)
        out = jax.jit(lambda a: a + y2._data)(np.ones((3, 4), np.float32))
        assert type(y2._data) is type(x._data)  # a concrete array, not the trace's tracer
        np.testing.assert_array_equal(np.asarray(out), I + 3)
        np.testing.assert_array_equal(y2.asnumpy(), I + 2)
    assert _info()["forward_compiles"] == 1


def test_a_pending_tensor_is_a_tensor_to_its_users():
    x = Tensor(I)
    for _ in range(WARM):
        (x + 1).asnumpy()
    y = x + 1
    assert pending(y) and isinstance(y, Tensor) and type(y).__name__ == "Tensor"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        y.nope
    assert pending(y)
    leaves = jax.tree_util.tree_leaves(y)  # a pytree like any Tensor: flattening reads (and runs) it
    np.testing.assert_array_equal(np.asarray(leaves[0]), I + 1)
    assert type(y) is Tensor and not pending(y)


def test_indexing_a_pending_tensor_is_deferred_and_its_tensor_indices_still_checked():
    """GetItem has a range rule (its Tensor indices) but reads no value of the indexed input: `y[1]`, `y[:, -1]`
    of a pending `y` stay pending, and an out-of-range Tensor index still raises at its own call."""
    y = ops.sin(Tensor(A)) + 1.0
    assert pending(y)
    row, col = y[1], y[:, -1]
    assert pending(row) and pending(col)
    np.testing.assert_allclose(row.asnumpy(), np.sin(A[1]) + 1.0, rtol=1e-6)
    np.testing.assert_allclose(col.asnumpy(), np.sin(A[:, -1]) + 1.0, rtol=1e-6)
    z = ops.sin(Tensor(A)) + 2.0
    for bad in (Tensor(np.array([3], np.int32)), ops.zeros((1,), msx.int32) + 5):
        with pytest.raises(msx.errors.OpIndexError, match="GetItem: index . is out of range"):
            z[bad]
