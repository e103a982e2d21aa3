"""mint's torch-kernel names and the transposed 2-d convolution, where MindSpore 2.10's CPU build has no kernel:
`mint.conv_tbc`, `mint.addr_`, `ops.conv_transpose2d`, `mint.nn.upsample_bilinear2d_op` against torch's answers and
gradients (recorded by tests/golden_ops/record_torch_refs.py into torch_refs.npz), `mint.batch_norm_stats` /
`batch_norm_elemt` / `batch_norm_gather_stats_with_counts` and `ops.operations.InstanceNorm` against numpy's
formulas (torch has those kernels on CUDA only, MindSpore on Ascend/GPU only), `mint.equal_ext_op` as
torch.equal; each eagerly and under msx.jit, and bad input named in words."""
from __future__ import annotations

import os

import numpy as np
import pytest

import msx
from msx import Tensor, mint, ops
from msx.errors import OpError
from msx.ops import operations as P

REFS = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_ops", "torch_refs.npz"),
               allow_pickle=False)


def ref(case: str, name: str) -> np.ndarray:
    return REFS[f"{case}/{name}"]


def close(got, want, tol=1e-6):
    got = got.asnumpy() if isinstance(got, Tensor) else np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def grads(fn, args, w_out):
    return msx.grad(lambda *a: (fn(*a) * Tensor(w_out)).sum(), grad_position=tuple(range(len(args))))(*args)


# ---------------------------------------------------------------- conv_tbc, conv_transpose2d, upsample_bilinear2d_op
@pytest.mark.parametrize("pad", [0, 2])
def test_conv_tbc_matches_torch_values_and_gradients(pad):
    case = f"conv_tbc_pad{pad}"
    args = [Tensor(ref(case, k)) for k in ("x", "w", "b")]
    fn = lambda x, w, b: mint.conv_tbc(x, w, b, pad)  # noqa: E731
    close(fn(*args), ref(case, "y"))
    close(msx.jit(fn)(*args), ref(case, "y"))
    for g, k in zip(grads(fn, args, ref(case, "w_out")), ("gx", "gw", "gb")):
        close(g, ref(case, k))


@pytest.mark.parametrize("name,kw", [("plain", {}), ("stride_pad", dict(stride=2, padding=1, output_padding=1)),
                                     ("groups_dilation", dict(stride=(1, 2), padding=(0, 1), groups=2,
                                                              dilation=(2, 1)))])
def test_conv_transpose2d_matches_torch(name, kw):
    case = f"conv_transpose2d_{name}"
    args = [Tensor(ref(case, k)) for k in ("x", "w", "b")]
    fn = lambda x, w, b: ops.conv_transpose2d(x, w, b, **kw)  # noqa: E731
    close(fn(*args), ref(case, "y"))
    close(msx.jit(fn)(*args), ref(case, "y"))
    for g, k in zip(grads(fn, args, ref(case, "w_out")), ("gx", "gw", "gb")):
        close(g, ref(case, k))
    assert ops.conv_transpose2d is mint.nn.functional.conv_transpose2d  # one function, as in MindSpore


def test_conv_transpose2d_unbatched_and_bad_input():
    x, w = ref("conv_transpose2d_plain", "x"), ref("conv_transpose2d_plain", "w")
    close(ops.conv_transpose2d(Tensor(x[0]), Tensor(w)), ops.conv_transpose2d(Tensor(x), Tensor(w)).asnumpy()[0])
    with pytest.raises(OpError, match="conv_transpose2d: the input's channel dim 3 != weight's dim 0"):
        ops.conv_transpose2d(Tensor(x[:, :3]), Tensor(w))
    with pytest.raises(ValueError, match="conv_transpose2d: stride must be an int >= 1"):
        ops.conv_transpose2d(Tensor(x), Tensor(w), stride=0)


@pytest.mark.parametrize("name,size,scales,align", [("size", (5, 7), None, False), ("align", (4, 6), None, True),
                                                    ("scales", None, (1.5, 2.0), False)])
def test_upsample_bilinear2d_op_matches_torch(name, size, scales, align):
    case = f"upsample_bilinear2d_{name}"
    op = mint.nn.upsample_bilinear2d_op
    fn = lambda x: op(x, size, scales, align)  # noqa: E731
    x = Tensor(ref(case, "x"))
    close(fn(x), ref(case, "y"))
    close(msx.jit(fn)(x), ref(case, "y"))
    close(grads(fn, [x], ref(case, "w_out"))[0], ref(case, "gx"))


def test_upsample_ops_refuse_bad_arguments():
    x = Tensor(ref("upsample_bilinear2d_size", "x"))
    with pytest.raises(OpError, match="UpsampleBilinear2D: give exactly one of output_size and scales"):
        mint.nn.upsample_bilinear2d_op(x, (4, 4), (2.0, 2.0))
    with pytest.raises(ValueError, match=r"the input must be 4-D \(N, C, H, W\), got shape \(2, 3, 4\)"):
        mint.nn.upsample_nearest2d_op(x[0], (4, 4))
    with pytest.raises(OpError, match="output_size must hold 2 positive ints"):
        mint.nn.upsample_nearest2d_op(x, (4, 4, 4))


def test_conv_tbc_refuses_mismatched_channels():
    with pytest.raises(OpError, match=r"conv_tbc: channels disagree .* input Float32\(5, 2, 3\), weight "
                                      r"Float32\(2, 4, 4\)"):
        mint.conv_tbc(ops.ones((5, 2, 3)), ops.ones((2, 4, 4)), ops.zeros(4))


# ---------------------------------------------------------------- addr_, equal_ext_op
def test_addr_writes_into_input_like_torch():
    a = Tensor(ref("addr_", "a"))
    out = mint.addr_(a, Tensor(ref("addr_", "v1")), Tensor(ref("addr_", "v2")), beta=0.5, alpha=2.0)
    assert out is a
    close(a, ref("addr_", "y"), 1e-6)

    def step(a, v1, v2):
        mint.addr_(a, v1, v2, beta=0.5, alpha=2.0)
        return a + 0
    close(msx.jit(step)(Tensor(ref("addr_", "a")), Tensor(ref("addr_", "v1")), Tensor(ref("addr_", "v2"))),
          ref("addr_", "y"))
    with pytest.raises(OpError, match=r"addr_: input must be \(len\(vec1\), len\(vec2\)\)"):
        mint.addr_(a, Tensor(ref("addr_", "v2")), Tensor(ref("addr_", "v2")))


def test_equal_ext_op_is_torch_equal():
    x = Tensor(np.array([[1, 2], [3, 4]], np.int32))
    eq = mint.equal_ext_op
    assert repr(eq) == "Prim[EqualExt]"
    for other, want in ((x, True), (Tensor(np.array([[1, 2], [3, 5]], np.int32)), False),
                        (Tensor(np.array([1, 2], np.int32)), False),  # other shape: False, as torch.equal
                        (Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)), True)):
        got = eq(x, other)
        assert got.dtype == msx.bool_ and got.shape == () and bool(got.asnumpy()) is want
    assert bool(msx.jit(lambda a, b: eq(a, b))(x, x).asnumpy()) is True
    assert bool(msx.jit(lambda a, b: eq(a, b))(x, x + 1).asnumpy()) is False


# ---------------------------------------------------------------- batch-norm pieces (numpy formulas)
_RNG = np.random.default_rng(3)
_X = _RNG.standard_normal((3, 4, 2, 5)).astype(np.float32)


def _np_stats(x):
    axes = (0,) + tuple(range(2, x.ndim))
    x64 = x.astype(np.float64)
    return x64.mean(axes), 1 / np.sqrt(x64.var(axes) + 1e-5)


def test_batch_norm_stats_and_elemt_follow_the_formulas():
    mean, invstd = _np_stats(_X)
    for fn in (mint.batch_norm_stats, msx.jit(mint.batch_norm_stats)):
        m, i = fn(Tensor(_X), 1e-5)
        np.testing.assert_allclose(m.asnumpy(), mean, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(i.asnumpy(), invstd, rtol=1e-5)
    w, b = _RNG.uniform(0.5, 1.5, 4).astype(np.float32), _RNG.standard_normal(4).astype(np.float32)
    want = (_X - mean[:, None, None]) * (invstd * w)[:, None, None] + b[:, None, None]
    args = [Tensor(a) for a in (_X, w, b, mean.astype(np.float32), invstd.astype(np.float32))]
    for fn in (mint.batch_norm_elemt, msx.jit(mint.batch_norm_elemt)):
        np.testing.assert_allclose(fn(*args).asnumpy(), want, rtol=1e-5, atol=1e-5)
    plain = mint.batch_norm_elemt(args[0], None, None, args[3], args[4])  # weight/bias default to 1 / 0
    np.testing.assert_allclose(plain.asnumpy(), (_X - mean[:, None, None]) * invstd[:, None, None], rtol=1e-5,
                               atol=1e-5)
    with pytest.raises(OpError, match=r"batch_norm_elemt: weight must have shape \(4,\)"):
        mint.batch_norm_elemt(args[0], Tensor(w[:3]), None, args[3], args[4])


def test_batch_norm_gather_stats_with_counts_merges_rows_and_moves_running_stats():
    means = _RNG.standard_normal((3, 4)).astype(np.float32)
    invstds = _RNG.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
    counts = np.array([6.0, 10.0, 4.0], np.float32)
    n = counts[:, None].astype(np.float64)
    g_mean = (means * n).sum(0) / n.sum()
    var = ((1 / invstds.astype(np.float64) ** 2 - 1e-5 + (means - g_mean) ** 2) * n).sum(0) / n.sum()
    rm0, rv0 = _RNG.standard_normal(4).astype(np.float32), _RNG.uniform(0.5, 2.0, 4).astype(np.float32)
    rm, rv = msx.Parameter(Tensor(rm0), name="rm"), msx.Parameter(Tensor(rv0), name="rv")
    m, i = mint.batch_norm_gather_stats_with_counts(Tensor(_X), Tensor(means), Tensor(invstds), rm, rv, 0.3, 1e-5,
                                                    Tensor(counts))
    np.testing.assert_allclose(m.asnumpy(), g_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(i.asnumpy(), 1 / np.sqrt(var + 1e-5), rtol=1e-5)
    np.testing.assert_allclose(rm.asnumpy(), 0.7 * rm0 + 0.3 * g_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rv.asnumpy(), 0.7 * rv0 + 0.3 * var * 20 / 19, rtol=1e-5)
    jitted = msx.jit(lambda x, a, b, c: mint.batch_norm_gather_stats_with_counts(x, a, b, counts=c))
    np.testing.assert_allclose(jitted(Tensor(_X), Tensor(means), Tensor(invstds), Tensor(counts))[0].asnumpy(),
                               g_mean, rtol=1e-5, atol=1e-6)
    with pytest.raises(OpError, match=r"mean and invstd must be \(D, C\) and counts \(D,\)"):
        mint.batch_norm_gather_stats_with_counts(Tensor(_X), Tensor(means), Tensor(invstds), counts=Tensor(counts[:2]))


def test_instance_norm_gives_gpu_kernels_results():
    gamma = _RNG.uniform(0.5, 1.5, 4).astype(np.float32)
    beta = _RNG.standard_normal(4).astype(np.float32)
    x64 = _X.astype(np.float64).reshape(3, 4, -1)
    mean, var = x64.mean(-1), x64.var(-1)
    want_y = ((x64 - mean[..., None]) / np.sqrt(var[..., None] + 1e-5) * gamma[:, None] + beta[:, None])
    running = msx.Parameter(Tensor(np.zeros(4, np.float32)), name="mean")
    op = P.InstanceNorm(epsilon=1e-5, momentum=0.1)
    for fn in (op, msx.jit(lambda *a: op(*a))):
        y, save_mean, save_rstd = fn(Tensor(_X), Tensor(gamma), Tensor(beta), running, ops.ones(4))
        np.testing.assert_allclose(y.asnumpy(), want_y.reshape(_X.shape), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(save_mean.asnumpy(), mean.reshape(-1), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(save_rstd.asnumpy(), 1 / np.sqrt(var.reshape(-1) + 1e-5), rtol=1e-5)
    np.testing.assert_array_equal(running.asnumpy(), np.zeros(4, np.float32))  # the kernel leaves it as it was
    with pytest.raises(ValueError, match=r"InstanceNorm: momentum must be in \[0, 1\]"):
        P.InstanceNorm(momentum=1.5)
    with pytest.raises(OpError, match=r"InstanceNorm: gamma must have shape \(4,\)"):
        op(Tensor(_X), ops.ones(3), Tensor(beta), running, ops.ones(4))
