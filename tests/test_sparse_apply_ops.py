"""The sparse optimizer-update class ops (`msx/ops/sparse_apply_ops.py`) and the sparse-tensor class ops
(`msx/ops/sparse_ops.py`) against MindSpore 2.10's CPU answers (`tests/golden_ops/sparse_apply_ms210.json`,
recorded by `tests/golden_ops/record_sparse_apply.py`): the Parameters they write and what they return,
eagerly and under msx.jit in every capture mode (first and compiled calls), duplicated and out-of-range
indices, and the errors for bad input."""
from __future__ import annotations

import inspect
import json
import os
import warnings

import numpy as np
import pytest

import msx
from msx import Parameter, Tensor, ops
from msx.errors import OpError, OpIndexError, OpTypeError

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "golden_ops", "sparse_apply_ms210.json")) as _f:
    GOLD = json.load(_f)
DATA = {k: np.array(v, np.float32) for k, v in GOLD["inputs"].items()}
MODES = ("ast", "bytecode", "trace")
_NP = {"i64": np.int64, "i32": np.int32, "f32": np.float32}


def _arg(spec):
    if isinstance(spec, str):
        return Tensor(DATA[spec])
    kind, value = spec
    if kind == "py":
        return tuple(value) if isinstance(value, list) else value
    return Tensor(np.array(value, _NP[kind]))


def _params(case, tag):
    return [Parameter(Tensor(DATA[n].copy()), name=f"{tag}{i}") for i, n in enumerate(case["inputs"][:case["n_params"]])]


def _rest(case):
    rest = [_arg(s) for s in case["inputs"][case["n_params"]:]]
    if case["indices"] is not None:
        rest.append(Tensor(np.array(case["indices"], np.int32)))
    return rest


def _close(got, want, what):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=2e-6, atol=2e-7,
                               err_msg=what)


def _check_against_gold(case, params, out):
    start = 0 if case["deterministic"] else 1  # MindSpore's answer for var races between threads there
    assert isinstance(out, tuple) == case["tuple"]
    outs = out if isinstance(out, tuple) else (out,)
    assert len(outs) == len(case["outs"])
    for k in range(start, len(params)):
        _close(params[k].asnumpy(), case["params"][k], f"parameter {k}")
    for k in range(start, len(outs)):
        _close(outs[k].asnumpy(), case["outs"][k]["value"], f"output {k}")
        assert str(outs[k].asnumpy().dtype) == case["outs"][k]["dtype"]


APPLY = sorted(GOLD["apply"])


@pytest.mark.parametrize("key", APPLY)
def test_update_ops_eager_match_mindspore(key):
    case = GOLD["apply"][key]
    params = _params(case, "e")
    out = getattr(ops, case["op"])(**case["init"])(*params, *_rest(case))
    _check_against_gold(case, params, out)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("key", APPLY)
def test_update_ops_under_jit_write_parameters(key, mode):
    """The first (capturing) call gives MindSpore's step; the second (compiled) call the same as a second eager
    step."""
    case = GOLD["apply"][key]
    op = getattr(ops, case["op"])(**case["init"])
    eager, jitted = _params(case, "e"), _params(case, "j")
    rest = _rest(case)

    def step(*args):
        return op(*jitted, *args)

    f = msx.jit(step, capture_mode=mode)
    out = f(*rest)
    _check_against_gold(case, jitted, out)
    op(*eager, *rest)
    op(*eager, *rest)
    f(*rest)
    start = 0 if case["deterministic"] else 1
    for k in range(start, len(eager)):
        _close(jitted[k].asnumpy(), eager[k].asnumpy(), f"parameter {k} after the compiled call")


def test_duplicate_indices_adagrad_sums_rows_others_step_in_order():
    """SparseApplyAdagrad adds the gradient rows of a repeated index first (MindSpore's kernel merges them);
    SparseApplyAdagradV2 steps the row once per index (the accum MindSpore gives: both squares added)."""
    g = DATA["grad2"]
    v, a = Parameter(Tensor(DATA["var"].copy())), Parameter(Tensor(DATA["accum"].copy()))
    ops.SparseApplyAdagrad(lr=0.1)(v, a, Tensor(g), Tensor(np.array([1, 1], np.int32)))
    _close(a.asnumpy()[1], DATA["accum"][1] + (g[0] + g[1]) ** 2, "merged accum")
    v2, a2 = Parameter(Tensor(DATA["var"].copy())), Parameter(Tensor(DATA["accum"].copy()))
    ops.SparseApplyAdagradV2(lr=0.1, epsilon=1e-6)(v2, a2, Tensor(g), Tensor(np.array([1, 1], np.int32)))
    acc, var = DATA["accum"][1].astype(np.float64), DATA["var"][1].astype(np.float64)
    for row in g:
        acc = acc + row * row
        var = var - 0.1 * row / (np.sqrt(acc) + 1e-6)
    _close(a2.asnumpy()[1], acc, "accum")
    _close(v2.asnumpy()[1], var, "var (stepped in index order)")


# ---------------------------------------------------------------- ops without a MindSpore CPU kernel
def _ref_ftrl_v2(var, accum, linear, grad, idx, lr, l1, l2, shrink, p):
    var, accum, linear = (x.astype(np.float64).copy() for x in (var, accum, linear))
    for g, r in zip(grad.astype(np.float64), idx):
        gs = g + 2 * shrink * var[r]
        new = accum[r] + g * g
        linear[r] += gs - (new ** -p - accum[r] ** -p) / lr * var[r]
        quad = new ** -p / lr + 2 * l2
        var[r] = np.where(np.abs(linear[r]) > l1, (np.sign(linear[r]) * l1 - linear[r]) / quad, 0)
        accum[r] = new
    return var, accum, linear


def _ref_prox(var, accum, grad, idx, lr, l1, l2):
    var, accum = var.astype(np.float64).copy(), accum.astype(np.float64).copy()
    for g, r in zip(grad.astype(np.float64), idx):
        accum[r] += g * g
        lr_t = lr / np.sqrt(accum[r])
        prox = var[r] - lr_t * g
        var[r] = np.sign(prox) / (1 + lr_t * l2) * np.maximum(np.abs(prox) - lr_t * l1, 0)
    return var, accum


def _ref_adadelta(var, accum, upd, grad, idx, lr, rho, eps):
    var, accum, upd = (x.astype(np.float64).copy() for x in (var, accum, upd))
    for g, r in zip(grad.astype(np.float64), idx):
        accum[r] = rho * accum[r] + (1 - rho) * g * g
        u = np.sqrt(upd[r] + eps) * g / np.sqrt(accum[r] + eps)
        upd[r] = rho * upd[r] + (1 - rho) * u * u
        var[r] = var[r] - lr * u
    return var, accum, upd


def _formula_cases():
    v, a, lin, g2, g3 = (DATA[k] for k in ("var", "accum", "linear", "grad2", "grad3"))
    ud = np.abs(lin)
    return {
        "ftrl_v2": (lambda: ops.SparseApplyFtrlV2(lr=0.1, l1=0.01, l2=0.02, l2_shrinkage=0.03, lr_power=-0.5),
                    (v, a, lin), (g2,), [1, 1],
                    lambda idx: _ref_ftrl_v2(v, a, lin, g2, idx, 0.1, 0.01, 0.02, 0.03, -0.5)),
        "proximal_adagrad": (lambda: ops.SparseApplyProximalAdagrad(), (v, a), (0.1, 0.01, 0.02, g2), [2, 2],
                             lambda idx: _ref_prox(v, a, g2, idx, 0.1, 0.01, 0.02)),
        "adadelta": (lambda: ops.SparseApplyAdadelta(epsilon=1e-6), (v, a, ud), (0.1, 0.9, g3), [0, 2, 2],
                     lambda idx: _ref_adadelta(v, a, ud, g3, idx, 0.1, 0.9, 1e-6)),
    }


@pytest.mark.parametrize("mode", ("eager",) + MODES)
@pytest.mark.parametrize("name", ["ftrl_v2", "proximal_adagrad", "adadelta"])
def test_ops_without_cpu_kernel_follow_the_documented_formula(name, mode):
    make, slots, rest, idx, ref = _formula_cases()[name]
    op = make()
    params = [Parameter(Tensor(s.copy()), name=f"{name}{k}") for k, s in enumerate(slots)]
    args = [Tensor(r) if isinstance(r, np.ndarray) else r for r in rest] + [Tensor(np.array(idx, np.int32))]

    def step(*a):
        return op(*params, *a)

    out = (step if mode == "eager" else msx.jit(step, capture_mode=mode))(*args)
    want = ref(idx)
    assert isinstance(out, tuple) and len(out) == len(slots)
    for k, w in enumerate(want):
        _close(params[k].asnumpy(), w, f"{name} slot {k}")
        _close(out[k].asnumpy(), w, f"{name} output {k}")


# ---------------------------------------------------------------- out-of-range indices
def _ftrl_call(idx):
    v, a, li = (Parameter(Tensor(DATA[k].copy())) for k in ("var", "accum", "linear"))
    op = ops.SparseApplyFtrl(lr=0.1, l1=0.01, l2=0.02, lr_power=-0.5)
    return (v, a, li), lambda i: op(v, a, li, Tensor(DATA["grad2"]), i), Tensor(np.array(idx, np.int32))


@pytest.mark.parametrize("idx", [[0, 3], [-1, 0]])
def test_out_of_range_index_is_an_error_naming_the_op(idx):
    _, call, i = _ftrl_call(idx)
    with pytest.raises(OpIndexError, match=r"SparseApplyFtrl: indices value -?\d is out of range \[0, 3\)"):
        call(i)
    v, a = Parameter(Tensor(DATA["var"].copy())), Parameter(Tensor(DATA["accum"].copy()))
    with pytest.raises(OpIndexError, match="SparseApplyAdagradV2: indices value"):
        ops.SparseApplyAdagradV2(lr=0.1, epsilon=1e-6)(v, a, Tensor(DATA["grad2"]), i)
    with pytest.raises(OpIndexError, match="SparseApplyRMSProp: indices value"):
        ops.SparseApplyRMSProp(0.9, 0.5, 1e-6)(v, a, Parameter(Tensor(DATA["linear"].copy())), 0.1,
                                               Tensor(DATA["grad3"]), Tensor(np.array(idx + [1], np.int32)))
    np.testing.assert_array_equal(v.asnumpy(), DATA["var"])  # nothing written


@pytest.mark.parametrize("mode", MODES)
def test_out_of_range_row_inside_a_compiled_graph_is_skipped(mode):
    """Inside a compiled graph the index values are known only when it runs: the row is left alone (what
    MindSpore's SparseApplyFtrl kernel does too, after logging an error)."""
    params, call, i = _ftrl_call([0, 3])
    msx.jit(call, capture_mode=mode)(i)
    ok_params, _, ok_i = _ftrl_call([0])
    op = ops.SparseApplyFtrl(lr=0.1, l1=0.01, l2=0.02, lr_power=-0.5)
    op(*ok_params, Tensor(DATA["grad2"][:1]), ok_i)
    for p, q in zip(params, ok_params):
        _close(p.asnumpy(), q.asnumpy(), "row 0 stepped, row 3 skipped")


@pytest.mark.parametrize("mode", ("eager",) + MODES)
def test_adagrad_skips_out_of_range_like_mindspore(mode):
    case = GOLD["apply"]["adagrad_0_3"]
    params = _params(case, "s")
    op = ops.SparseApplyAdagrad(lr=0.1)

    def step(g, i):
        return op(*params, g, i)

    out = (step if mode == "eager" else msx.jit(step, capture_mode=mode))(*_rest(case))
    _check_against_gold(case, params, out)


# ---------------------------------------------------------------- bad input, attributes, signatures
def test_bad_inputs_raise_msx_errors_naming_op_shapes_and_dtypes():
    v, a = Parameter(Tensor(DATA["var"].copy())), Parameter(Tensor(DATA["accum"].copy()))
    g, i = Tensor(DATA["grad2"]), Tensor(np.array([0, 1], np.int32))
    op = ops.SparseApplyAdagradV2(lr=0.1, epsilon=1e-6)
    with pytest.raises(OpError, match=r"SparseApplyAdagradV2: grad must have shape .*\(2, 2\), got \(2, 3\).*"
                                      r"var=float32\(3, 2\)"):
        op(v, a, Tensor(np.ones((2, 3), np.float32)), i)
    with pytest.raises(OpError, match=r"SparseApplyAdagradV2: accum must have var's shape and dtype float32\(3, 2\)"):
        op(v, Parameter(Tensor(np.ones((2, 2), np.float32))), g, i)
    with pytest.raises(OpTypeError, match="SparseApplyAdagradV2: indices must be a int32 Tensor, got int64"):
        op(v, a, g, Tensor(np.array([0, 1], np.int64)))
    with pytest.raises(OpTypeError, match="SparseApplyAdagradV2: var must be float16 or float32, got int32"):
        op(Parameter(Tensor(np.ones((3, 2), np.int32))), Parameter(Tensor(np.ones((3, 2), np.int32))), g, i)
    with pytest.raises(OpTypeError, match="SparseApplyAdagradV2: var must be a Parameter or Tensor, got ndarray"):
        op(DATA["var"], a, g, i)
    with pytest.raises(OpTypeError, match="SparseApplyAdagrad: lr must be a float"):
        ops.SparseApplyAdagrad(lr="0.1")(v, a, g, i)
    with pytest.raises(OpError, match="SparseApplyRMSProp: grad must have var's shape"):
        ops.SparseApplyRMSProp(0.9, 0.5, 1e-6)(v, a, Parameter(Tensor(DATA["linear"].copy())), 0.1, g, i)
    with pytest.raises(OpError, match="SparseApplyRMSProp: needs 0 <= rho <= 1"):
        ops.SparseApplyRMSProp(1.5, 0.5, 1e-6)(v, a, Parameter(Tensor(DATA["linear"].copy())), 0.1,
                                               Tensor(DATA["grad3"]), Tensor(np.array([0, 1, 2], np.int32)))
    with pytest.raises(OpTypeError, match=r"ApplyAdagradDA: global_step must be an int .*got float32\(\)"):
        ops.ApplyAdagradDA()(v, a, Parameter(Tensor(DATA["linear"].copy())), Tensor(DATA["grad3"]), 0.1, 0.0, 0.0,
                             Tensor(np.float32(1)))
    with pytest.raises(OpError, match=r"ApplyFtrl: grad must have var's shape \(3, 2\), got \(2, 2\)"):
        ops.ApplyFtrl()(v, a, Parameter(Tensor(DATA["linear"].copy())), g, 0.1, 0.0, 0.0, -0.5)
    np.testing.assert_array_equal(v.asnumpy(), DATA["var"])


def test_use_locking_warns_once_and_is_type_checked():
    v, a = Parameter(Tensor(DATA["var"].copy())), Parameter(Tensor(DATA["accum"].copy()))
    g, i = Tensor(DATA["grad2"]), Tensor(np.array([0, 1], np.int32))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ops.SparseApplyAdagrad(lr=0.1)(v, a, g, i)
    assert not [w for w in seen if "use_locking" in str(w.message)]
    with pytest.warns(UserWarning, match="SparseApplyProximalAdagrad: use_locking=True is not honoured by msx"):
        ops.SparseApplyProximalAdagrad(use_locking=True)(v, a, 0.1, 0.0, 0.0, g, i)
    with pytest.raises(OpTypeError, match="ApplyFtrl: use_locking must be a bool"):
        ops.ApplyFtrl(use_locking=1)(v, a, Parameter(Tensor(DATA["linear"].copy())), Tensor(DATA["grad3"]), 0.1,
                                     0.0, 0.0, -0.5)


# MindSpore 2.10's constructors (inspect.signature in its venv)
INIT = {
    "SparseApplyAdagrad": "(lr, update_slots=True, use_locking=False)",
    "SparseApplyAdagradV2": "(lr, epsilon, use_locking=False, update_slots=True)",
    "SparseApplyFtrl": "(lr, l1, l2, lr_power, use_locking=False)",
    "SparseApplyFtrlV2": "(lr, l1, l2, l2_shrinkage, lr_power, use_locking=False)",
    "SparseApplyProximalAdagrad": "(use_locking=False)",
    "SparseApplyRMSProp": "(rho, momentum, epsilon, use_locking=False)",
    "SparseApplyAdadelta": "(epsilon, use_locking=False)",
    "ApplyAdagradDA": "(use_locking=False)",
    "ApplyFtrl": "(use_locking=False)",
    "SparseToDense": "()",
    "SparseTensorDenseAdd": "()",
    "SparseTensorDenseMatmul": "(adjoint_st=False, adjoint_dt=False)",
    "SparseSlice": "()",
}


@pytest.mark.parametrize("name", sorted(INIT))
def test_constructors_are_mindsporess(name):
    cls = getattr(ops, name)
    assert cls is getattr(msx.ops.operations, name)
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert "(" + ", ".join(str(p) for p in params) + ")" == INIT[name]


# ---------------------------------------------------------------- sparse-tensor ops
SPARSE = sorted(GOLD["sparse"])


def _sparse_call(case):
    return getattr(ops, case["op"])(**case["init"]), [_arg(a) for a in case["args"]]


def _check_sparse(case, out):
    assert isinstance(out, tuple) == case["tuple"]
    outs = out if isinstance(out, tuple) else (out,)
    for o, w in zip(outs, case["outs"]):
        got = o.asnumpy()
        assert str(got.dtype) == w["dtype"] and list(got.shape) == w["shape"]
        np.testing.assert_allclose(got.reshape(-1), np.array(w["value"], got.dtype).reshape(-1), rtol=1e-6)


@pytest.mark.parametrize("key", SPARSE)
def test_sparse_tensor_ops_eager_match_mindspore(key):
    case = GOLD["sparse"][key]
    op, args = _sparse_call(case)
    if "error" in case:
        assert case["error"].startswith("ValueError")
        with pytest.raises(OpIndexError, match=f"{case['op']}: .* out of bounds of the shape"):
            op(*args)
        return
    _check_sparse(case, op(*args))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("key", [k for k in SPARSE if "error" not in GOLD["sparse"][k]])
def test_sparse_tensor_ops_under_jit(key, mode):
    case = GOLD["sparse"][key]
    op, args = _sparse_call(case)
    tensors = [k for k, a in enumerate(args) if isinstance(a, Tensor)]
    if case["op"] == "SparseTensorDenseAdd":
        tensors.remove(2)  # x1_shape: a constant of the graph, as in MindSpore

    def call(*ts):
        full = list(args)
        for k, t in zip(tensors, ts):
            full[k] = t
        return op(*full)

    f = msx.jit(call, capture_mode=mode)
    if case["op"] == "SparseSlice":  # a data-dependent result: refused by name, or run on the values
        try:
            out = f(*[args[k] for k in tensors])
        except OpError as exc:
            assert "SparseSlice: the result's shape depends on the input values" in str(exc)
            return
        assert mode in ("bytecode", "trace")  # these read the values and guard the graph on them
        _check_sparse(case, out)
    for _ in range(2):
        _check_sparse(case, f(*[args[k] for k in tensors]))


def test_sparse_tensor_ops_bad_input():
    i, v = Tensor(np.array([[0, 1], [1, 2]], np.int64)), Tensor(np.array([1.0, 2.0], np.float32))
    with pytest.raises(OpTypeError, match="SparseToDense: indices must be int32 or int64, got float32"):
        ops.SparseToDense()(Tensor(np.array([[0.0, 1.0]], np.float32)), v[:1], (3, 4))
    with pytest.raises(OpError, match=r"SparseToDense: indices has 2 columns but the shape \(12,\) has 1 dims"):
        ops.SparseToDense()(i, v, (12,))
    with pytest.raises(OpError, match=r"SparseToDense: indices must be 2-D \(n, ndim\) and values 1-D \(n,\)"):
        ops.SparseToDense()(i, Tensor(np.ones(3, np.float32)), (3, 4))
    with pytest.raises(OpTypeError, match="SparseTensorDenseAdd: x1_shape must be a 1-D int32/int64 Tensor"):
        ops.SparseTensorDenseAdd()(i, v, (3, 4), Tensor(np.zeros((3, 4), np.float32)))
    with pytest.raises(OpError, match=r"SparseTensorDenseAdd: x1_shape \(3, 4\) must be x2's shape \(4, 4\)"):
        ops.SparseTensorDenseAdd()(i, v, Tensor(np.array([3, 4], np.int64)), Tensor(np.zeros((4, 4), np.float32)))
    with pytest.raises(OpError, match=r"SparseTensorDenseMatmul: the contracted dims differ"):
        ops.SparseTensorDenseMatmul()(i, v, (3, 4), Tensor(np.zeros((3, 2), np.float32)))
    with pytest.raises(OpTypeError, match="SparseTensorDenseMatmul: dense must be a 2-D Tensor of values' dtype"):
        ops.SparseTensorDenseMatmul()(i, v, (3, 4), Tensor(np.zeros((4, 2), np.float64)))
    with pytest.raises(OpTypeError, match="SparseSlice: start must be a 1-D int64 Tensor, got int32"):
        ops.SparseSlice()(i, v, Tensor(np.array([3, 4], np.int64)), Tensor(np.array([0, 0], np.int32)),
                          Tensor(np.array([1, 1], np.int64)))


def _fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[k] += eps
        down[k] -= eps
        g[k] = (f(up) - f(down)) / (2 * eps)
    return g


@pytest.mark.parametrize("op", ["SparseToDense", "SparseTensorDenseAdd", "SparseTensorDenseMatmul"])
def test_sparse_tensor_ops_gradients_match_finite_differences(op):
    """d sum(op(values, dense) * w) against central differences in float64; a duplicated position of
    SparseToDense passes the gradient to its last value only (the one it keeps)."""
    rng = np.random.default_rng(1)
    idx = Tensor(np.array([[0, 1], [0, 1], [2, 0], [1, 2]], np.int64))
    vals = rng.standard_normal(4)
    dense = rng.standard_normal((3, 3))
    if op == "SparseToDense":
        def fn(v, d):
            return ops.SparseToDense()(idx, v, (3, 3)) * d
    elif op == "SparseTensorDenseAdd":
        def fn(v, d):
            return ops.SparseTensorDenseAdd()(idx, v, Tensor(np.array([3, 3], np.int64)), d) * d
    else:
        def fn(v, d):
            return ops.SparseTensorDenseMatmul(adjoint_st=True)(idx, v, (3, 3), d)
    w = rng.standard_normal((3, 3))

    def loss(v, d):
        return (fn(v, d) * Tensor(w)).sum()

    got = msx.grad(loss, grad_position=(0, 1))(Tensor(vals), Tensor(dense))
    num = (_fd_grad(lambda v: float(loss(Tensor(v), Tensor(dense)).asnumpy()), vals),
           _fd_grad(lambda d: float(loss(Tensor(vals), Tensor(d)).asnumpy()), dense))
    for g, n in zip(got, num):
        np.testing.assert_allclose(g.asnumpy(), n, rtol=1e-6, atol=1e-8)
    if op == "SparseToDense":
        assert got[0].asnumpy()[0] == 0  # the first of the two values at (0, 1) is overwritten


def test_the_nn_sparse_cells_equal_mindspore():
    """`nn.SparseToDense` and `nn.SparseTensorDenseMatmul` (msx/nn/layer/sparse.py), MindSpore 2.10's answers."""
    import msx as ms

    idx = ms.Tensor(np.array([[0, 1], [1, 2]], np.int64))
    dense = ms.nn.SparseToDense()(ms.COOTensor(idx, ms.Tensor(np.array([1, 2], np.int32)), (3, 4)))
    np.testing.assert_array_equal(dense.asnumpy(), [[0, 1, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]])
    vals = ms.Tensor(np.array([1.5, -2.0], np.float32))
    mm = ms.nn.SparseTensorDenseMatmul()(idx, vals, (3, 4), ms.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3)))
    np.testing.assert_allclose(mm.asnumpy(), [[4.5, 6.0, 7.5], [-12.0, -14.0, -16.0], [0.0, 0.0, 0.0]])
    adj = ms.jit(ms.nn.SparseTensorDenseMatmul(adjoint_st=True, adjoint_dt=True))(
        idx, vals, (3, 4), ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))
    np.testing.assert_allclose(adj.asnumpy(), [[0.0, 0.0], [0.0, 4.5], [-2.0, -8.0], [0.0, 0.0]])
    with pytest.raises(TypeError, match="COOTensor"):
        ms.nn.SparseToDense()(idx)
