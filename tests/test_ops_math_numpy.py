"""The math / linalg / fft / window / scalar ops: the parts the MindSpore goldens cannot settle.

tests/test_oracle.py compares every case of tests/oracle/cases_math.py with MindSpore 2.10 eagerly; here the
same goldens are checked under `msx.jit` in each capture mode, and the ops MindSpore's CPU build cannot run
(`MatrixExp`, `LerpScalar`, the Cholesky and LU families on random inputs, ...) are checked against numpy/scipy.
"""
import numpy as np
import pytest
import scipy.linalg as sl

import msx
from msx import ops
from oracle import cases_math
from oracle.cases import CASES
from oracle.msx_side import ARRAYS, GOLDEN, MSX, stored_inputs
from oracle.runner import build_args, callable_for

T = msx.Tensor
RNG = np.random.default_rng(22)
MINE = [c for c in CASES[[c.id for c in CASES].index("ops.igamma"):] if c.id not in cases_math.SCALAR_CASES]
TENSOR_CASES = [c for c in MINE if "error" not in GOLDEN["cases"].get(c.id, {"error": ""}) and
                any(hasattr(a, "dtype") for a in c.args)]


def _spd(n=3, batch=()):
    a = RNG.uniform(-1, 1, batch + (n, n)).astype(np.float32)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=np.float32)


# ---------------------------------------------------------------- the goldens under every capture mode
@pytest.mark.parametrize("mode", ["trace", "ast", "bytecode"])
def test_goldens_hold_under_jit(mode):
    """Each MindSpore-checked case gives MindSpore's values and dtypes inside `msx.jit(capture_mode=mode)`."""
    bad = []
    offset = {"trace": 0, "ast": 5, "bytecode": 10}[mode]  # a different sample per mode (a compile each: keep it small)
    for case in TENSOR_CASES[offset::16]:
        fn = callable_for(MSX, case)
        inputs = stored_inputs(case.id)
        args = build_args(MSX, case, inputs)
        tensor_pos = [i for i, a in enumerate(args) if isinstance(a, T)]

        def program(*tensors, _args=args, _pos=tensor_pos, _fn=fn):
            full = list(_args)
            for p, t in zip(_pos, tensors):
                full[p] = t
            return _fn(*full)

        out = msx.jit(program, capture_mode=mode)(*[args[p] for p in tensor_pos])
        outs = out if isinstance(out, (tuple, list)) else (out,)
        entry = GOLDEN["cases"][case.id]
        if [str(o.dtype) for o in outs] != entry["dtypes"]:
            bad.append(f"{case.id}: dtypes {[str(o.dtype) for o in outs]} != {entry['dtypes']}")
            continue
        for i, o in enumerate(outs):
            want = ARRAYS[f"{case.id}/out{i}"]
            if not np.allclose(o.asnumpy(), want, rtol=max(case.rtol, 1e-5), atol=max(case.atol, 1e-5),
                               equal_nan=True):
                bad.append(f"{case.id}: output {i} differs from MindSpore's under jit")
    assert not bad, "\n".join(bad)


def test_every_new_case_has_a_mindspore_answer_or_a_numpy_test():
    """A case MindSpore's CPU build rejects must be one this file checks against numpy instead."""
    rejected = {c.id for c in MINE if "error" in GOLDEN["cases"][c.id]}
    numpy_checked = {"ops.matrix_exp", "ops.MatrixExp", "ops.LerpScalar", "ops.quantile", "ops.quantile[all]",
                     "ops.quantile[q-tensor]", "ops.nanquantile", "ops.Quantile", "ops.EuclideanNorm"}
    mindspore_refuses = {"ops.diff[n2-axis0]"}  # MindSpore 2.10 takes only n=1; msx computes any n (numpy's diff)
    assert rejected <= numpy_checked | mindspore_refuses, sorted(rejected - numpy_checked - mindspore_refuses)


# ---------------------------------------------------------------- what MindSpore's CPU build cannot run
def test_matrix_exp_against_scipy():
    a = RNG.uniform(-0.5, 0.5, (2, 3, 3)).astype(np.float32)
    np.testing.assert_allclose(ops.matrix_exp(T(a)).asnumpy(), np.stack([sl.expm(m) for m in a]), rtol=1e-5,
                               atol=1e-6)
    assert ops.MatrixExp()(T(a[0])).shape == (3, 3)


def test_quantile_family_and_euclidean_norm_against_numpy():
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    np.testing.assert_allclose(ops.quantile(T(x), 0.3, 1).asnumpy(), np.quantile(x, 0.3, axis=1), rtol=1e-5)
    np.testing.assert_allclose(ops.quantile(T(x), 0.75).asnumpy(), np.quantile(x, 0.75), rtol=1e-5)
    q = np.array([0.1, 0.9], np.float32)
    np.testing.assert_allclose(ops.quantile(T(x), T(q), 0, True).asnumpy(), np.quantile(x, q, axis=0, keepdims=True),
                               rtol=1e-5)
    xn = x.copy()
    xn[0, 1] = np.nan
    np.testing.assert_allclose(ops.nanquantile(T(xn), 0.5, 1).asnumpy(), np.nanquantile(xn, 0.5, axis=1), rtol=1e-5)
    assert np.isnan(ops.quantile(T(xn), 0.5, 1).asnumpy()[0])
    np.testing.assert_allclose(ops.Quantile(dim=1, ignore_nan=True)(T(xn), T(q)).asnumpy(),
                               np.nanquantile(xn, q, axis=1), rtol=1e-5)
    np.testing.assert_allclose(ops.EuclideanNorm(keep_dims=True)(T(x), (1,)).asnumpy(),
                               np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-5)


def test_lerp_scalar():
    x, e = RNG.standard_normal((2, 3)).astype(np.float32), RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(ops.LerpScalar()(T(x), T(e), 0.25).asnumpy(), x + 0.25 * (e - x), rtol=1e-6)


def test_cholesky_family_against_numpy():
    a = _spd(3, (2,))
    low = np.linalg.cholesky(a)
    np.testing.assert_allclose(ops.cholesky(T(a)).asnumpy(), low, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ops.Cholesky(upper=True)(T(a)).asnumpy(), np.swapaxes(low, -1, -2), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(ops.cholesky_inverse(T(low[0])).asnumpy(), np.linalg.inv(a[0]), rtol=1e-4, atol=1e-5)
    up = low[0].T.copy()
    np.testing.assert_allclose(ops.CholeskyInverse(upper=True)(T(up)).asnumpy(), np.linalg.inv(a[0]), rtol=1e-4,
                               atol=1e-5)
    b = RNG.standard_normal((3, 2)).astype(np.float32)
    np.testing.assert_allclose(ops.cholesky_solve(T(b), T(low[0])).asnumpy(), np.linalg.solve(a[0], b), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(ops.CholeskySolve(upper=True)(T(b), T(up)).asnumpy(), np.linalg.solve(a[0], b),
                               rtol=1e-4, atol=1e-5)
    g = msx.grad(lambda x: ops.cholesky(x).sum())(T(a[0]))
    assert np.all(np.isfinite(g.asnumpy()))


def test_lu_unpack_and_lu_solve_against_scipy():
    a = RNG.standard_normal((4, 4)).astype(np.float32)
    lu, piv = sl.lu_factor(a)
    pivots = T((piv + 1).astype(np.int32))  # MindSpore/LAPACK pivots are 1-based
    p, l_, u = ops.lu_unpack(T(lu.astype(np.float32)), pivots)
    np.testing.assert_allclose(p.asnumpy() @ l_.asnumpy() @ u.asnumpy(), a, rtol=1e-4, atol=1e-5)
    b = RNG.standard_normal((4, 2)).astype(np.float32)
    np.testing.assert_allclose(ops.lu_solve(T(b), T(lu.astype(np.float32)), pivots).asnumpy(),
                               np.linalg.solve(a, b), rtol=1e-3, atol=1e-4)
    p2, _, _ = ops.LuUnpack()(T(lu.astype(np.float32)), pivots)
    np.testing.assert_array_equal(p2.asnumpy(), p.asnumpy())


def test_householder_pieces_and_eig():
    a = RNG.standard_normal((4, 3)).astype(np.float32)
    h, tau = ops.geqrf(T(a))
    q = ops.orgqr(h, tau).asnumpy()
    r = np.triu(h.asnumpy())[:3]
    np.testing.assert_allclose(q @ r, a, rtol=1e-4, atol=1e-5)
    c = RNG.standard_normal((4, 2)).astype(np.float32)
    full_q = np.linalg.qr(a, mode="complete")[0]
    got = ops.ormqr(h, tau, T(c), transpose=True).asnumpy()
    np.testing.assert_allclose(np.abs(got[:3]), np.abs((full_q.T @ c)[:3]), rtol=1e-4, atol=1e-5)
    m = RNG.standard_normal((3, 3)).astype(np.float32)
    w, v = ops.eig(T(m))
    np.testing.assert_allclose(m @ v.asnumpy(), v.asnumpy() * w.asnumpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.sort_complex(ops.Eig()(T(m))[0].asnumpy()), np.sort_complex(np.linalg.eigvals(m)),
                               rtol=1e-4, atol=1e-5)
    s, u, vv = ops.svd(T(a))
    np.testing.assert_allclose((u.asnumpy() * s.asnumpy()) @ vv.asnumpy().T, a, rtol=1e-4, atol=1e-5)


def test_clear_errors():
    with pytest.raises(ValueError, match="mode"):
        ops.qr(T(np.eye(2, dtype=np.float32)), "raw")
    with pytest.raises(ValueError, match="norm"):
        ops.fft(T(np.ones(4, np.float32)), norm="bad")
    with pytest.raises(ValueError, match="window_length"):
        ops.hann_window(-1)
    with pytest.raises(ValueError, match="supported"):
        ops.scalar_cast(1.5, msx.int32)
    with pytest.raises(ValueError, match="divisible"):
        ops.tuple_div((3,), (2,))


# ---------------------------------------------------------------- gradients MindSpore's goldens cannot give
def _spd_of(x):
    """A symmetric positive-definite matrix built differentiably from any square x."""
    return ops.matmul(x, ops.swapaxes(x, -1, -2)) + 3.0 * ops.eye(x.shape[-1], dtype=x.dtype)


def _cplx(x):
    return ops.Complex()(x, 0.5 * x)


# primitive -> (function of float64 tensors, input shapes); each output enters the loss (real and imaginary parts)
GRAD_CHECKS = {
    "Adjoint": (ops.adjoint, [(2, 3)]),
    "ConjugateTranspose": (lambda x: ops.ConjugateTranspose()(x, (1, 0)), [(2, 3)]),
    "Complex": (lambda x, y: ops.Complex()(x, y), [(3,), (3,)]),
    "Polar": (ops.polar, [(3,), (3,)]),
    "Cholesky": (lambda x: ops.cholesky(_spd_of(x)), [(3, 3)]),
    "CholeskyInverse": (lambda x: ops.cholesky_inverse(ops.cholesky(_spd_of(x))), [(3, 3)]),
    "CholeskySolve": (lambda b, x: ops.cholesky_solve(b, ops.cholesky(_spd_of(x))), [(3, 2), (3, 3)]),
    "LogDet": (lambda x: ops.logdet(_spd_of(x)), [(3, 3)]),
    "LogMatrixDeterminant": (lambda x: ops.slogdet(_spd_of(x))[1], [(3, 3)]),
    "Lstsq": (ops.lstsq, [(4, 2), (4, 3)]),
    "LuSolve": (lambda b, lu: ops.lu_solve(b, lu + 3.0 * ops.eye(3, dtype=lu.dtype), T(np.array([1, 2, 3], np.int32))),
                [(3, 2), (3, 3)]),
    "MatrixExp": (ops.matrix_exp, [(3, 3)]),
    "MatrixTriangularSolve": (lambda a, b: ops.MatrixTriangularSolve()(a + 3.0 * ops.eye(3, dtype=a.dtype), b),
                              [(3, 3), (3, 2)]),
    "Pinv": (ops.pinv, [(3, 2)]),
    "Qr": (lambda x: ops.qr(x)[1], [(3, 3)]),
    "Svd": (lambda x: ops.svd(x, compute_uv=False), [(3, 2)]),
    "LerpScalar": (lambda x, e: ops.LerpScalar()(x, e, 0.3), [(3,), (3,)]),
    "FFTShift": (ops.fftshift, [(2, 3)]),
    "Quantile": (lambda x: ops.quantile(x, 0.3, 1), [(2, 4)]),
    "AMinMax": (lambda x: ops.aminmax(x, axis=1), [(2, 3)]),
    "Median": (lambda x: ops.median(x, 1)[0], [(2, 3)]),
}
for _name, _fn in (("FFT", ops.fft), ("IFFT", ops.ifft), ("RFFT", ops.rfft), ("IHFFT", ops.ihfft)):
    GRAD_CHECKS[_name] = (_fn, [(2, 4)])
for _name, _fn in (("FFT2", ops.fft2), ("IFFT2", ops.ifft2), ("RFFT2", ops.rfft2), ("IHFFT2", ops.ihfft2),
                   ("FFTN", ops.fftn), ("IFFTN", ops.ifftn), ("RFFTN", ops.rfftn), ("IHFFTN", ops.ihfftn)):
    GRAD_CHECKS[_name] = (_fn, [(2, 3)])
for _name, _fn in (("IRFFT", ops.irfft), ("HFFT", ops.hfft)):
    GRAD_CHECKS[_name] = ((lambda f: lambda x: f(_cplx(x)))(_fn), [(2, 3)])
for _name, _fn in (("IRFFT2", ops.irfft2), ("IRFFTN", ops.irfftn), ("HFFT2", ops.hfft2), ("HFFTN", ops.hfftn)):
    GRAD_CHECKS[_name] = ((lambda f: lambda x: f(_cplx(x)))(_fn), [(2, 3)])


def test_grad_checks_name_the_unchecked_primitives():
    assert set(GRAD_CHECKS) == cases_math.GRADS_CHECKED_HERE


@pytest.mark.parametrize("name", sorted(GRAD_CHECKS))
def test_gradient_equals_finite_difference(name):
    fn, shapes = GRAD_CHECKS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    xs = [rng.uniform(-1, 1, s) for s in shapes]
    weights = {}

    def loss(*ts):
        outs = fn(*ts)
        total = 0.0
        for i, o in enumerate(outs if isinstance(outs, (tuple, list)) else (outs,)):
            if i not in weights:
                weights[i] = [T(rng.uniform(0.5, 1.5, o.shape)) for _ in range(2)]
            w_re, w_im = weights[i]
            total = total + ops.sum(ops.real(o) * w_re) + (ops.sum(ops.imag(o) * w_im) if "Complex" in str(o.dtype) else 0.0)
        return total

    loss(*[T(x) for x in xs])  # fix the weights
    grads = msx.grad(loss, grad_position=tuple(range(len(xs))))(*[T(x) for x in xs])
    compiled = msx.jit(loss, capture_mode="trace")  # one compile for the many finite-difference evaluations
    eps = 1e-6
    for k, x in enumerate(xs):
        numeric = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            hi, lo = [v.copy() for v in xs], [v.copy() for v in xs]
            hi[k][idx] += eps
            lo[k][idx] -= eps
            numeric[idx] = (float(compiled(*[T(v) for v in hi]).asnumpy()) -
                            float(compiled(*[T(v) for v in lo]).asnumpy())) / (2 * eps)
        np.testing.assert_allclose(grads[k].asnumpy(), numeric, rtol=1e-4, atol=1e-6, err_msg=f"{name} d/d input {k}")


def test_graph_syntax_helpers_follow_python():
    """MindSpore 2.10 cannot run these in PyNative ("has no attr __infer__"): they mean Python's operators."""
    assert ops.bool_and(True, False) is False and ops.bool_or(True, False) is True and ops.bool_eq(False, False)
    assert ops.scalar_ne(2, 3) and not ops.scalar_ne(2, 2.0)
    assert ops.string_eq("a", "a") and ops.string_concat("ab", "c") == "abc"
    x = object()
    assert ops.is_(x, x) and ops.is_not(x, None)
    d = {"a": 1}
    assert ops.in_dict("a", d) and ops.not_in_dict("b", d) and ops.dict_getitem(d, "a") == 1
    assert ops.dict_setitem(d, "b", 2) == {"a": 1, "b": 2} and d == {"a": 1}
    assert ops.make_dict(("a", "b"), (1, 2)) == {"a": 1, "b": 2}
    assert ops.make_slice(1, None, 2) == slice(1, None, 2)
    np.testing.assert_array_equal(ops.tensor_range(T(np.array(0)), 5, 2).asnumpy(), [0, 2, 4])
    assert ops.tensor_range(0, 5, 2).dtype == msx.int64
