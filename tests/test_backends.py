"""Backends: the registry, per-function selection, user backends, XLA device placement and the simulated Ascend.

References are independent of msx: numpy (float16-rounded operands, float64
accumulation) for the Cube rule, hand-computed FLOPs, bytes and liveness for
the cost and memory models, and the "cpu" backend for user backends.
"""
import math
import os
import subprocess
import sys
import textwrap

import jax
import numpy as np
import pytest

import msx
from msx import nn, ops
from msx.backends import (AscendSim, BackendBase, BuildConfig, ProfileReport, XlaBackend, get_backend, list_backends,
                          register_custom_backend)
from msx.backends.ascend_sim import DeviceOutOfMemoryError, support_table
from msx.errors import BackendError, BackendUnavailableError
from msx.ir.graph import Const
from tolerance import assert_same_float32

RNG = np.random.default_rng(0)
EPS12 = np.float32(1 + 2 ** -12)  # representable in float32, rounds to 1.0 in float16


def _t(*shape):
    return msx.Tensor(RNG.normal(size=shape).astype(np.float32))


def _jit(fn, backend, **kw):
    return msx.jit(fn, capture_mode="trace", backend=backend, **kw)


def _line_of(fn, text):
    """The absolute line number of the first source line of `fn` containing `text`."""
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _round(a, dtype=np.float16):
    return np.asarray(a, np.float32).astype(dtype).astype(np.float64)


def matmul(a, b):
    return ops.matmul(a, b)


# ---------------------------------------------------------------- user backends (the README's examples)
class CountingBackend(BackendBase):
    """Counts builds and runs and delegates the work to "cpu"."""

    def __init__(self):
        self.builds = self.runs = 0
        self.cpu = get_backend("cpu")

    def build(self, graph, config):
        self.builds += 1
        return self.cpu.build(graph, config)

    def run(self, handle, inputs):
        self.runs += 1
        return self.cpu.run(handle, inputs)


class NumpyBackend(BackendBase):
    """Interprets the Graph node by node with numpy: everything it needs is in the graph."""

    OPS = {
        "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "RealDiv": np.divide, "Neg": np.negative,
        "Exp": np.exp, "Tanh": np.tanh, "ReLU": lambda x: np.maximum(x, 0), "MatMul": np.matmul,
        "Dense": lambda x, w, b=None: x @ w.T + (0 if b is None else b),
        "ReduceSum": lambda x, axis=None, keepdims=False: np.sum(x, axis=axis, keepdims=keepdims),
        "Softmax": lambda x, axis=-1: np.exp(x - x.max(axis, keepdims=True)) / np.exp(
            x - x.max(axis, keepdims=True)).sum(axis, keepdims=True),
        "Reshape": lambda x, shape: np.reshape(x, shape),
    }

    def build(self, graph, config):
        for node in graph.nodes:
            if node.op not in self.OPS:
                raise BackendError(f"numpy backend: no implementation of {node.op}", loc=node.loc)
        return graph, config

    def run(self, handle, inputs):
        graph, config = handle
        args, ro, rw = inputs
        env = {}
        for v, x in zip(graph.inputs + graph.params, list(args) + config.merge_params(graph, ro, rw)):
            env[v.id] = np.asarray(x)

        def read(x):
            return x.value if isinstance(x, Const) else env[x.id]

        for node in graph.nodes:
            out = self.OPS[node.op](*[read(x) for x in node.inputs], **node.attrs)
            for v, o in zip(node.outputs, [out]):
                env[v.id] = np.asarray(o, dtype=np.dtype(v.abstract.dtype))
        return tuple([jax.numpy.asarray(read(x)) for x in values] for values in config.result_values(graph))


@pytest.fixture(scope="module")
def counting():
    backend = CountingBackend()
    register_custom_backend("counting", backend)
    return backend


@pytest.fixture(scope="module")
def numpy_backend():
    register_custom_backend("numpy", NumpyBackend())


# ---------------------------------------------------------------- registry
def test_listing_and_errors_for_unknown_or_absent_backends():
    assert {"cpu", "ascend"} <= set(list_backends())
    assert {"gpu", "tpu"} <= set(list_backends(include_unavailable=True)) - set(list_backends())  # CPU-only CI
    with pytest.raises(BackendUnavailableError, match=r"backend 'gpu' is not available on this machine .*"
                                                      r"available: \[.*'cpu'.*\] \(and 'ms_backend'"):
        get_backend("gpu")
    with pytest.raises(ValueError, match="backend 'tpu' is not available"):
        _jit(matmul, "tpu")  # refused when decorating, not at the first call
    with pytest.raises(BackendError, match=r"unknown backend 'npu'; available: \[.*'ascend'.*'cpu'"):
        _jit(matmul, "npu")
    with pytest.raises(TypeError, match="must be a BackendBase instance"):
        register_custom_backend("mine", object())
    with pytest.raises(ValueError, match="other than 'ms_backend'"):
        register_custom_backend("ms_backend", CountingBackend())
    assert "simulated" in repr(get_backend("ascend")) and "XLA on cpu:0" in repr(get_backend("cpu"))


def test_ms_backend_follows_device_target():
    x, one = msx.Tensor([[EPS12]]), msx.Tensor([[1.0]])
    assert get_backend("ms_backend") is get_backend("cpu") is get_backend(None)
    msx.set_context(device_target="Ascend")
    try:
        assert get_backend("ms_backend") is get_backend("ascend")
        assert float(_jit(matmul, "ms_backend")(x, one)) == 1.0  # MindSpore code on "Ascend" runs on the simulator
        msx.set_context(device_target="GPU")
        with pytest.raises(BackendUnavailableError, match=r"ms_backend \(device_target='GPU' -> 'gpu'\)"):
            get_backend(None)
    finally:
        msx.set_context(device_target="CPU")


def test_backend_options_are_validated_per_backend():
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['precision_mode'\].*\(backend 'cpu'\)"):
        _jit(matmul, "cpu", precision_mode="force_fp16")
    with pytest.raises(ValueError, match="precision_mode='fp8' is not valid; choose one of"):
        _jit(matmul, "ascend", precision_mode="fp8")
    with pytest.raises(msx.errors.ContextError, match="precision_mode='fp8' is not valid"):
        msx.set_context(ascend_config={"precision_mode": "fp8"})
    with pytest.raises(TypeError, match=r"unknown argument\(s\) \['peak'\]"):
        AscendSim(peak=1)
    with pytest.raises(ValueError, match="hbm_gb must be a positive number"):
        AscendSim(hbm_gb=-1)


# ---------------------------------------------------------------- per-function selection, user backends
def test_functions_on_different_backends_pass_tensors(counting):
    a, b, c = _t(8, 16), _t(16, 4), _t(4, 3)
    on_cpu = _jit(lambda x, y: ops.matmul(x, y) + 1.0, "cpu")
    on_ascend = _jit(matmul, "ascend")
    on_counting = _jit(lambda x: ops.relu(x) * 2.0, "counting")
    h = on_cpu(a, b)
    out = on_counting(on_ascend(h, c))
    ref_h = a.asnumpy().astype(np.float64) @ b.asnumpy() + 1
    ref = np.maximum(_round(h.asnumpy()) @ _round(c.asnumpy()), 0) * 2  # Cube: float16 operands, wide sums
    np.testing.assert_allclose(h.asnumpy(), ref_h, rtol=1e-5)
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-6, atol=1e-6)
    exact = np.maximum(h.asnumpy().astype(np.float64) @ c.asnumpy(), 0) * 2
    assert np.abs(out.asnumpy() - exact).max() > 1e-4  # the simulated rounding is visible


def test_counting_backend_builds_once_and_runs_every_call(counting):
    start_builds, start_runs = counting.builds, counting.runs
    f = _jit(lambda x: ops.exp(x).sum(), "counting")
    x = _t(3, 4)
    results = [f(x) for _ in range(3)]
    assert counting.builds - start_builds == 1 and counting.runs - start_runs == 3  # the first call runs there too
    np.testing.assert_allclose(results[0].asnumpy(), np.exp(x.asnumpy()).sum(), rtol=1e-5)
    f(_t(5, 4))
    assert counting.builds - start_builds == 2 and f.recompile_reasons == ["arg 0: shape (3, 4) -> (5, 4)"]


def test_numpy_backend_matches_cpu(numpy_backend):
    msx.set_seed(1)
    net = nn.SequentialCell([nn.Dense(6, 16), nn.ReLU(), nn.Dense(16, 5), nn.Softmax()])
    x = _t(4, 6)
    on_numpy, on_cpu = _jit(net, "numpy"), _jit(net, "cpu")
    for _ in range(2):
        np.testing.assert_allclose(on_numpy(x).asnumpy(), on_cpu(x).asnumpy(), rtol=1e-5, atol=1e-6)
    assert [n.op for n in on_numpy.lower(x).graph.nodes] == ["Dense", "ReLU", "Dense", "Softmax"]
    with pytest.raises(BackendError, match="numpy backend: no implementation of Sigmoid") as info:
        _jit(lambda x: ops.sigmoid(x), "numpy")(x)
    assert info.value.stage == "backend"


# ---------------------------------------------------------------- XLA device placement
def test_xla_backends_place_inputs_and_parameters_on_their_device():
    """Two CPU devices stand in for two accelerators (a subprocess: the device count is fixed at jax start-up)."""
    script = textwrap.dedent("""
        import numpy as np, msx
        from msx import nn, ops
        from msx.backends import XlaBackend, get_backend, register_custom_backend
        register_custom_backend("cpu1", XlaBackend("cpu", device_id=1))
        msx.set_seed(0)
        net = nn.Dense(4, 3)
        first = msx.jit(lambda x: x * 2.0, capture_mode="trace", backend="cpu")
        second = msx.jit(net, capture_mode="trace", backend="cpu1")
        x = msx.Tensor(np.ones((2, 4), np.float32))
        for _ in range(2):
            a = first(x)
            b = second(a)  # committed to device 0, moved to device 1
            assert [d.id for d in a._data.devices()] == [0] and [d.id for d in b._data.devices()] == [1]
            ref = 2 * np.ones((2, 4)) @ net.weight.asnumpy().T + net.bias.asnumpy()
            np.testing.assert_allclose(b.asnumpy(), ref, rtol=1e-5, atol=1e-6)
        assert [d.id for d in net.weight._data.devices()] == [1]
        assert repr(get_backend("cpu1")) == "<backend cpu1: XLA on cpu:1>"
        print("placed")
    """)
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "placed" in done.stdout, done.stderr[-2000:]


def test_xla_backend_for_a_missing_device_says_so():
    with pytest.raises(BackendError, match=r"this machine has no cpu device 3 \(jax sees: \['cpu'\]\)"):
        XlaBackend("cpu", device_id=3).device()


# ---------------------------------------------------------------- the simulated Ascend: precision
def test_cube_rounds_operands_to_float16():
    x, one = msx.Tensor([[EPS12]]), msx.Tensor([[1.0]])
    on_cpu = _jit(matmul, "cpu")
    on_ascend = _jit(matmul, "ascend")
    keep = _jit(matmul, "ascend", precision_mode="must_keep_origin_dtype")
    for _ in range(2):  # the first (capturing) call answers like the later ones
        assert float(on_cpu(x, one)) == 1.000244140625
        assert float(on_ascend(x, one)) == 1.0
        assert float(keep(x, one)) == 1.000244140625
    assert on_ascend(x, one).dtype == msx.float32
    weights = np.array([[EPS12, 2.0]], np.float32)
    constant = _jit(lambda a: ops.matmul(a, msx.Tensor(weights)), "ascend")  # a constant operand is rounded too
    np.testing.assert_array_equal(constant(one).asnumpy(), [[1.0, 2.0]])


def test_cube_accumulates_in_float32():
    ones = msx.Tensor(np.ones((1, 4096), np.float32))
    col = msx.Tensor(np.ones((4096, 1), np.float32))
    assert float(_jit(matmul, "ascend")(ones, col)) == 4096.0
    assert float(np.cumsum(np.ones(4096, np.float16), dtype=np.float16)[-1]) == 2048.0  # a float16 accumulator


def test_cube_rule_matches_a_numpy_reference_on_random_data():
    a, b = _t(16, 32), _t(32, 8)
    got = _jit(matmul, "ascend")(a, b).asnumpy()
    np.testing.assert_allclose(got, _round(a.asnumpy()) @ _round(b.asnumpy()), rtol=1e-6, atol=1e-6)
    assert np.abs(got - a.asnumpy().astype(np.float64) @ b.asnumpy()).max() > 1e-4


def test_dense_and_conv_are_cube_ops_too():
    msx.set_seed(2)
    net = nn.SequentialCell([nn.Conv2d(2, 3, 3, pad_mode="valid", has_bias=True), nn.Flatten(), nn.Dense(12, 4)])
    x = _t(2, 2, 4, 4)
    got = _jit(net, "ascend")(x).asnumpy()
    conv_w, conv_b, dense_w, dense_b = [p.asnumpy() for p in net.trainable_params()]
    h = jax.lax.conv_general_dilated(_round(x.asnumpy()), _round(conv_w), (1, 1), "VALID",
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
    h = np.asarray(h) + conv_b.reshape(1, -1, 1, 1)
    ref = _round(h.reshape(2, -1)) @ _round(dense_w).T + dense_b
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_precision_modes_bfloat16_and_mixed_precision():
    x9, one = msx.Tensor([[np.float32(1 + 2 ** -9)]]), msx.Tensor([[1.0]])
    assert float(_jit(matmul, "ascend")(x9, one)) == 1 + 2 ** -9      # float16 keeps 10 mantissa bits
    assert float(_jit(matmul, "ascend", precision_mode="force_bf16")(x9, one)) == 1.0  # bfloat16 keeps 7

    def f(x):
        return ops.relu(x), ops.exp(x)

    x = msx.Tensor([EPS12])
    relu_mixed, exp_mixed = _jit(f, "ascend", precision_mode="allow_mix_precision")(x)
    relu_row, exp_row = get_backend("ascend").last_report.rows
    assert (relu_row.dtype, relu_row.bytes, exp_row.dtype, exp_row.bytes) == ("float16", 4 + 2, "float32", 4 + 4)
    relu_fp16, _ = _jit(f, "ascend")(x)
    assert float(relu_mixed[0]) == 1.0                  # elementwise results stored in float16
    assert float(relu_fp16[0]) == float(EPS12)          # force_fp16 rounds Cube operands only
    # precision-sensitive ops keep float32 (float16 would be ~1e-3 off); XLA's exp and numpy's may differ by an ulp
    assert float(exp_mixed[0]) == pytest.approx(float(np.exp(EPS12)), rel=1e-6)


def test_context_ascend_config_and_the_jit_option_override():
    x, one = msx.Tensor([[EPS12]]), msx.Tensor([[1.0]])
    msx.set_context(ascend_config={"precision_mode": "must_keep_origin_dtype"})
    try:
        assert float(_jit(matmul, "ascend")(x, one)) == float(EPS12)
        assert float(_jit(matmul, "ascend", precision_mode="force_fp16")(x, one)) == 1.0
    finally:
        msx.set_context(ascend_config={})
    register_custom_backend("ascend_exact", AscendSim(precision_mode="must_keep_origin_dtype"))
    assert float(_jit(matmul, "ascend_exact")(x, one)) == float(EPS12)


def _train(backend, steps=3, **kw):
    msx.set_seed(3)
    net = nn.SequentialCell([nn.Dense(6, 16), nn.ReLU(), nn.Dense(16, 3)])
    loss_fn = nn.CrossEntropyLoss()
    opt = nn.Adam(net.trainable_params(), learning_rate=0.01)
    grad_fn = msx.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    run = _jit(step, backend, **kw)
    data = np.random.default_rng(5)
    x, y = msx.Tensor(data.normal(size=(8, 6)).astype(np.float32)), msx.Tensor(data.integers(0, 3, 8))
    losses = [float(run(x, y)) for _ in range(steps)]
    return losses, net, get_backend(backend).last_report if backend == "ascend" else None


@pytest.fixture(scope="module")
def trained():
    return {mode: _train("ascend", precision_mode=mode) for mode in ("force_fp16", "must_keep_origin_dtype")} | \
        {"cpu": _train("cpu")}


def test_training_step_on_the_simulated_ascend(trained):
    cpu_losses, cpu_net, _ = trained["cpu"]
    fp16_losses, fp16_net, _ = trained["force_fp16"]
    keep_losses, keep_net, _ = trained["must_keep_origin_dtype"]
    assert_same_float32(keep_losses, cpu_losses)
    for p, q in zip(keep_net.get_parameters(), cpu_net.get_parameters()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fp16_losses, cpu_losses, rtol=2e-3)
    assert fp16_losses != cpu_losses and fp16_losses[-1] < fp16_losses[0]


# ---------------------------------------------------------------- what the simulated Ascend refuses
def test_float64_is_refused():
    with pytest.raises(BackendError, match=r"float64 is not supported \(Ascend has no float64 kernels\): input %x "
                                           r"is f64\[2\]"):
        _jit(lambda x: x * 2.0, "ascend")(msx.Tensor(np.ones(2)))

    def widen(x):
        return x.astype(msx.float64) + 1.0

    with pytest.raises(BackendError, match=r"%0 = Cast is f64\[2\]") as info:
        _jit(widen, "ascend")(msx.Tensor(np.ones(2, np.float32)))
    assert info.value.loc.line == _line_of(widen, "astype")


def test_unsupported_ops_fall_back_to_aicpu_or_fail_under_fullgraph():
    def top(x):
        values, _ = ops.sort(x)
        return values * 2.0

    x = msx.Tensor(np.array([3.0, 1.0, 2.0], np.float32))
    jf = _jit(top, "ascend")
    np.testing.assert_array_equal(jf(x).asnumpy(), [2.0, 4.0, 6.0])
    report = get_backend("ascend").last_report
    line = _line_of(top, "ops.sort")
    assert report.aicpu_ops == [f"Sort at test_backends.py:{line}"]
    assert [(r.op, r.unit) for r in report.rows] == [("Sort", "AICPU"), ("Mul", "Vector")]
    with pytest.raises(BackendError, match=r"Sort\(f32\[3\]\) has no AI Core kernel.*fullgraph=True forbids") as info:
        _jit(top, "ascend", fullgraph=True)(x)
    assert info.value.loc.line == line
    ints = msx.Tensor(np.arange(6).reshape(2, 3))
    _jit(lambda a: ops.matmul(a, a.T), "ascend")(ints)  # the Cube takes no int64: an AICPU matmul
    assert get_backend("ascend").last_report.rows[-1].unit == "AICPU"


def test_out_of_memory_names_the_tensor_and_the_sizes():
    register_custom_backend("ascend_11k", AscendSim(hbm_gb=11 * 1024 / 2 ** 30))
    register_custom_backend("ascend_12k", AscendSim(hbm_gb=12 * 1024 / 2 ** 30))

    def chain(x):
        y = x * 2.0
        return y + 1.0

    x = msx.Tensor(np.ones((32, 32), np.float32))  # 4 KiB; x, y and the result: 12 KiB at the Add
    with pytest.raises(DeviceOutOfMemoryError) as info:
        _jit(chain, "ascend_11k")(x)
    text = str(info.value)
    assert isinstance(info.value, MemoryError) and isinstance(info.value, BackendError)
    assert ("out of device memory allocating %1 = Add(...) : f32[32,32] (4.00 KiB) while 8.00 KiB are live: "
            "12.00 KiB needed > capacity 11.00 KiB") in text
    assert "Largest live values: %x f32[32,32] (4.00 KiB), %0 f32[32,32] (4.00 KiB)" in text
    assert info.value.loc.line == _line_of(chain, "y + 1.0")
    np.testing.assert_array_equal(_jit(chain, "ascend_12k")(x).asnumpy(), np.full((32, 32), 3.0))
    report = get_backend("ascend_12k").last_report
    assert report.peak_memory_bytes == 12 * 1024 and report.peak_at.startswith("%1 = Add")


# ---------------------------------------------------------------- the cost model and the report
def test_report_numbers_are_consistent():
    spec = dict(peak_tflops=1e-3, fp32_tflops=2.5e-4, hbm_gbps=100.0, launch_us=5.0)
    register_custom_backend("ascend_slow", AscendSim(**spec))
    m, k, n = 64, 32, 16
    jf = _jit(matmul, "ascend_slow")
    jf(_t(m, k), _t(k, n))
    report = get_backend("ascend_slow").last_report
    cast_a, cast_b, mm = report.rows
    assert (cast_a.op, cast_a.unit, cast_a.bytes) == ("Cast", "Vector", m * k * (4 + 2))
    assert cast_a.time_us == pytest.approx(5.0 + m * k * 6 / 100e3)
    assert (mm.unit, mm.dtype, mm.flops) == ("Cube", "float16", 2 * m * n * k)
    assert mm.bytes == (m * k + k * n) * 2 + m * n * 4
    assert mm.time_us == pytest.approx(5.0 + 2 * m * n * k / 1e3)  # compute-bound at 1 GFLOP/s
    assert report.total_time_us == pytest.approx(sum(r.time_us for r in report.rows))
    assert report.kernels == 3 and report.total_flops == 2 * m * n * k
    assert report.time_by_unit() == pytest.approx({"Vector": cast_a.time_us + cast_b.time_us, "Cube": mm.time_us})
    keep = _jit(matmul, "ascend_slow", precision_mode="must_keep_origin_dtype")
    keep(_t(m, k), _t(k, n))
    (row,) = get_backend("ascend_slow").last_report.rows
    assert row.dtype == "float32" and row.time_us == pytest.approx(5.0 + 2 * m * n * k / 250.0)
    text = str(report)
    assert "Ascend 910 (simulated on XLA CPU)" in text and "estimates from a cost model, not measurements" in text
    assert [d["op"] for d in report.as_dicts()] == ["Cast", "Cast", "MatMul"]
    assert report.summary()["cube_flops"] == 2 * m * n * k and "simulated" in repr(report)


def test_a_fused_node_is_one_kernel():
    x, y = _t(8, 8), _t(8, 8)
    jf = _jit(lambda a, b: ops.exp(a * 2.0 + b) - 1.0, "ascend", jit_level="O1")
    np.testing.assert_allclose(jf(x, y).asnumpy(), np.exp(x.asnumpy() * 2 + y.asnumpy()) - 1, rtol=1e-5)
    (row,) = get_backend("ascend").last_report.rows
    assert row.op == "Fused(Mul+Add+Exp+Sub)" and (row.unit, row.kernels) == ("Vector", 1)
    assert row.bytes == 3 * 8 * 8 * 4  # its inputs and its output; the intermediates stay on chip


def test_conv_flops_and_training_rows(trained):
    msx.set_seed(0)
    conv = nn.Conv2d(3, 8, 3, pad_mode="valid", has_bias=False)
    _jit(conv, "ascend")(_t(2, 3, 6, 6))
    (row,) = [r for r in get_backend("ascend").last_report.rows if r.unit == "Cube"]
    assert row.flops == 2 * (2 * 8 * 4 * 4) * (3 * 3 * 3)

    report = trained["force_fp16"][2]
    assert report.runs == 3 and report.precision_mode == "force_fp16"
    dense = [r for r in report.rows if r.op == "Dense"]
    fwd = [r for r in dense if r.scope == "grad fwd"]
    bwd = [r for r in dense if r.scope == "grad bwd"]
    assert [r.flops for r in fwd] == [2 * 8 * 16 * 6, 2 * 8 * 3 * 16]
    assert [r.flops for r in bwd] == [2 * 2 * 8 * 3 * 16, 2 * 2 * 8 * 16 * 6]  # reverse order, dX and dW
    assert all(r.kernels == 2 for r in bwd) and report.rows[-2].op == "OptimizerUpdate"


def test_last_report_counts_runs_and_stablehlo_shows_the_rounding():
    jf = _jit(lambda a, b: ops.matmul(a, b) * 2.0, "ascend")
    a, b = _t(4, 4), _t(4, 4)
    jf(a, b)
    first = get_backend("ascend").last_report
    jf(a, b)
    assert isinstance(first, ProfileReport) and get_backend("ascend").last_report is first and first.runs == 2
    compiled = jf.lower(a, b).compile()
    msx.ir.verify(compiled.handle.graph)  # the rewritten graph is sound, abstracts re-inferred
    text = compiled.as_text()
    assert text.startswith("// Ascend 910 (simulated on XLA CPU), precision_mode='force_fp16'")
    assert "f16" in text and "stablehlo.convert" in text


def test_memory_of_a_gradient_keeps_the_forward_values():
    jf = _jit(msx.grad(lambda x: (x * 2.0).sum()), "ascend")
    np.testing.assert_array_equal(jf(msx.Tensor(np.ones(4, np.float32))).asnumpy(), [2.0] * 4)
    report = get_backend("ascend").last_report
    # x (16 B) + the Grad's outputs (loss 4 B, dx 16 B) + what its body keeps for backward (x*2: 16 B, sum: 4 B)
    assert report.peak_memory_bytes == 16 + 20 + 20 and report.peak_at.startswith("%0, %1 = Grad")
    assert [(r.op, r.scope) for r in report.rows] == [("Mul", "grad fwd"), ("ReduceSum", "grad fwd"),
                                                      ("ReduceSum", "grad bwd"), ("Mul", "grad bwd")]


def test_control_flow_nodes_are_costed_and_run():
    """Cond and Scan nodes built by hand (as source capture makes them): costed, checked and run by the backend."""
    from msx.ir.graph import Abstract, Graph, Node, Var

    def var(shape, dtype="float32"):
        return Var(Abstract(shape, dtype))

    c, xs = var((4,)), var((5, 4))
    bc, bx, s = var((4,)), var((4,)), var((4,))
    body = Graph("step", [bc, bx], [], [Node("Add", [bc, bx], [s])], [s, s])
    final, ys = var((4,)), var((5, 4))
    scan = Node("Scan", [c, xs], [final, ys], {"n_carry": 1, "n_xs": 1, "length": None, "reverse": False},
                subgraphs={"body": body})
    pred, tx, t_out, ex, e1, e_out = var((), "bool"), var((4,)), var((4,)), var((4,)), var((4,)), var((4,))
    then = Graph("then", [tx], [], [Node("Exp", [tx], [t_out])], [t_out])
    other = Graph("else", [ex], [], [Node("Mul", [ex, Const(2.0)], [e1]), Node("Neg", [e1], [e_out])], [e_out])
    picked = var((4,))
    cond = Node("Cond", [pred, final], [picked], subgraphs={"then": then, "else": other})
    graph = Graph("loop_then_branch", [c, xs, pred], [], [scan, cond], [picked, ys])
    msx.ir.verify(graph)
    backend = AscendSim(precision_mode="must_keep_origin_dtype")
    handle = backend.build(graph, BuildConfig())
    c0, x0 = np.ones(4, np.float32), np.arange(20, dtype=np.float32).reshape(5, 4)
    for flag in (True, False):
        (out, stacked), updates, extras = backend.run(handle, ([c0, x0, np.array(flag)], [], []))
        carry = c0 + x0.sum(0)
        assert_same_float32(out, np.exp(carry) if flag else -2 * carry)
        np.testing.assert_allclose(stacked, c0 + np.cumsum(x0, 0))
    rows = handle.report.rows
    assert [(r.op, r.scope, r.kernels, r.bytes) for r in rows] == [
        ("Add", "scan x5", 5, 5 * 3 * 16), ("Mul", "cond else", 1, 32), ("Neg", "cond else", 1, 32)]


def test_support_table_is_read_from_the_registry():
    table = support_table()
    assert set(table) == {n for n, p in msx.ops.REGISTRY.items() if not p.subgraphs}  # an op over subgraphs: none
    assert {table[n] for n in ("MatMul", "Dense", "Conv2D")} == {"Cube"}
    assert (table["ReLU"], table["ReduceSum"], table["Reshape"], table["StandardNormal"]) == \
        ("Vector", "Vector", "view", "AICPU")


def test_build_config_helpers_for_user_backends():
    from msx.ir.graph import Abstract, Graph, Var

    p = [Var(Abstract((1,), "float32"), f"p{i}") for i in range(3)]
    g = Graph("g", [], p, [], [Const(1.0), p[0]], [("p1", p[2])])
    config = BuildConfig(rw_params=(1,), extra_outputs=(p[2],))
    assert config.merge_params(g, ["r0", "r2"], ["w1"]) == ["r0", "w1", "r2"]
    assert config.result_values(g) == ([p[0]], [p[2]], [p[2]])
    assert math.isclose(AscendSim().spec.capacity_bytes, 32 * 2 ** 30)
