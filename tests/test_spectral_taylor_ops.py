"""`ops.jet`, `ops.derivative`, `ops.linearize` (msx/taylor.py) against MindSpore 2.10's answers recorded by
tests/golden_ops/record_taylor.py (the functions are defined there once, over either framework's ops), eagerly
and under msx.jit (nested jvp there); their checks of bad input; a primitive without a jax jet rule; and
`ops.FFTWithSize` / `ops.stft` inputs MindSpore refuses (the values are golden cases in case_spectral.py); float64
finite-difference gradients of the new primitives whose gradients no golden or torch reference checks."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import msx
from msx import Tensor, mint, ops
from msx.errors import OpError
from msx.ops import operations as P

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_ops")
sys.path.insert(0, HERE)
import record_taylor  # noqa: E402

GOLDEN = np.load(os.path.join(HERE, "taylor_ms210.npz"), allow_pickle=False)
CASES = record_taylor.cases(ops, Tensor)


def _flat(result) -> list[np.ndarray]:
    if isinstance(result, (tuple, list)):
        return [a for r in result for a in _flat(r)]
    return [result.asnumpy()]


def _check(cid: str, got: list[np.ndarray]) -> None:
    want = [GOLDEN[k] for k in sorted((k for k in GOLDEN.files if k.startswith(cid + "/")),
                                      key=lambda k: int(k.rsplit("out", 1)[1]))]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("cid", sorted(CASES))
def test_matches_mindspore_eagerly(cid):
    _check(cid, _flat(CASES[cid]()))


@pytest.mark.parametrize("cid", ["jet_exp_sin", "jet_two_inputs", "derivative_exp_sin_3", "derivative_two_outputs",
                                 "linearize_matmul"])
def test_matches_mindspore_under_jit(cid):
    _check(cid, _flat(msx.jit(lambda: CASES[cid]())()))


def test_jit_of_jet_on_graph_inputs_matches_eager():
    f = record_taylor.functions(ops)["exp_sin"]
    x = Tensor(record_taylor.X)
    series = Tensor(record_taylor.SERIES)
    eager = ops.jet(f, x, series)
    jitted = msx.jit(lambda a, s: ops.jet(f, a, s))(x, series)
    for g, e in zip(jitted, eager):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)


def test_linearize_jvp_fn_under_jit_and_a_function_of_several_outputs():
    m1, m2 = Tensor(record_taylor.M1), Tensor(record_taylor.M2)
    v = (Tensor(record_taylor.V1), Tensor(record_taylor.V2))

    def step(a, b, va, vb):
        out, jvp_fn = ops.linearize(ops.matmul, (a, b))
        return out, jvp_fn([va, vb])
    _check("linearize_matmul", _flat(msx.jit(step)(m1, m2, *v)))
    _, jvp_fn = ops.linearize(lambda x: (ops.sin(x), x * x), Tensor(record_taylor.X))
    tangents = jvp_fn(Tensor(record_taylor.Y))
    np.testing.assert_allclose(tangents[0].asnumpy(), np.cos(record_taylor.X) * record_taylor.Y, rtol=1e-6)
    np.testing.assert_allclose(tangents[1].asnumpy(), 2 * record_taylor.X * record_taylor.Y, rtol=1e-6)


def test_a_primitive_without_a_jet_rule_takes_the_nested_jvp_route():
    x = Tensor(np.array([0.3, -1.2, 2.0], np.float32))
    _, third = ops.derivative(lambda t: ops.cumsum(ops.sin(t), 0), x, 3)  # jax's jet has no cumsum rule
    np.testing.assert_allclose(third.asnumpy(), np.cumsum(-np.cos(x.asnumpy())), rtol=1e-5, atol=1e-6)


def test_taylor_apis_refuse_bad_input():
    x = Tensor(record_taylor.X)
    with pytest.raises(TypeError, match="jet: primals and series must both be Tensors or both tuples"):
        ops.jet(ops.sin, x, (x,))
    with pytest.raises(ValueError, match=r"jet: each series must be \(n, \*primal.shape\)"):
        ops.jet(ops.sin, x, Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(TypeError, match="jet: each series must have its primal's dtype"):
        ops.jet(ops.sin, x, Tensor(np.ones((1, 2, 2), np.float64)))
    with pytest.raises(ValueError, match="derivative: order must be at least 1"):
        ops.derivative(ops.sin, x, 0)
    with pytest.raises(TypeError, match="linearize: inputs must be a Tensor or a tuple/list of Tensors"):
        ops.linearize(ops.sin, 1.0)
    _, jvp_fn = ops.linearize(ops.sin, x)
    with pytest.raises(msx.errors.GradError, match="linearize: each vector must have its input's shape"):
        jvp_fn(Tensor(np.ones(3, np.float32)))
    assert ops.functional.jet is ops.jet and ops.functional.linearize is ops.linearize


def test_fft_with_size_and_stft_refuse_what_mindspore_refuses():
    real = Tensor(np.ones((2, 8), np.float32))
    with pytest.raises(OpError, match="FFTWithSize: in fft mode the input must be complex64 or complex128"):
        ops.FFTWithSize(1, False, False)(real)
    with pytest.raises(OpError, match="signal_sizes \\(7,\\): its last entry must be 10 or 11"):
        ops.FFTWithSize(1, True, True, signal_sizes=(7,))(Tensor(np.ones((2, 6), np.complex64)))
    with pytest.raises(ValueError, match="FFTWithSize: signal_ndim must be 1, 2 or 3"):
        ops.FFTWithSize(4, False, False)(real)
    with pytest.raises(OpError, match="STFT: the signal length 6 is shorter than n_fft=8"):
        ops.stft(Tensor(np.ones((1, 6), np.float32)), 8, center=False)
    with pytest.raises(OpError, match=r"STFT: window must be 1-D of win_length=8, got shape \(6,\)"):
        ops.stft(real, 8, window=ops.ones(6), center=False)


# ---------------------------------------------------------------- finite-difference gradients (float64)
_G = np.random.default_rng(12)
_X4 = _G.standard_normal((2, 3, 2, 3))
_VEC = _G.uniform(0.5, 1.5, 3)


def _real_parts(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [p for o in outs for p in ((ops.real(o), ops.imag(o)) if o.dtype in (msx.complex64, msx.complex128)
                                      else (o,))]


FD_CASES = {
    "FFTWithSize": lambda x: ops.FFTWithSize(2, False, True, norm="ortho")(x),
    "BatchNormStats": lambda x: mint.batch_norm_stats(x, 1e-5),
    "BatchNormElemt": lambda x: mint.batch_norm_elemt(x, Tensor(_VEC), Tensor(_VEC - 1), Tensor(_VEC * 0.1),
                                                      Tensor(_VEC)),
    "BatchNormGatherStatsWithCounts": lambda m: mint.batch_norm_gather_stats_with_counts(
        Tensor(_X4), m, Tensor(np.abs(_X4[:, :, 0, 0]) + 0.5), counts=Tensor(np.array([3.0, 5.0]))),
    "InstanceNorm": lambda x: P.InstanceNorm()(ops.cast(x, msx.float32), Tensor(_VEC.astype(np.float32)),
                                               ops.zeros(3), ops.zeros(3), ops.ones(3)),
    "UpsampleNearest2D": lambda x: mint.nn.upsample_nearest2d_op(x, (3, 5)),
}
FD_INPUTS = {"BatchNormGatherStatsWithCounts": _X4[:, :, 1, 1]}
FD_CHECKED_GRADS = set(FD_CASES)


@pytest.mark.parametrize("name", sorted(FD_CASES))
def test_gradient_matches_finite_differences(name):
    fn = FD_CASES[name]
    x = np.asarray(FD_INPUTS.get(name, _X4), np.float64)
    parts = _real_parts(fn(Tensor(x)))
    weights = [Tensor(np.random.default_rng(i).standard_normal(p.shape).astype(p.asnumpy().dtype))
               for i, p in enumerate(parts)]

    def loss(t):
        return sum((p * w).sum() for p, w in zip(_real_parts(fn(t)), weights))

    got = msx.grad(loss)(Tensor(x)).asnumpy()
    single = name == "InstanceNorm"  # MindSpore's InstanceNorm computes in float32: a coarser difference
    eps = 1e-3 if single else 1e-6
    want = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        want[i] = (float(loss(Tensor(up)).asnumpy()) - float(loss(Tensor(down)).asnumpy())) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=2e-3 if single else 1e-5, atol=2e-3 if single else 1e-6)
