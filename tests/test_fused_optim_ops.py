"""The fused optimizer-update class ops (`msx/ops/fused_optim_ops.py`) against MindSpore 2.10's CPU answers
(`tests/golden_ops/fused_optim_ms210.json`, recorded by `tests/golden_ops/record_fused_optim.py`): the Parameters
they write, eagerly and under msx.jit in every capture mode (first and compiled calls), duplicated and
out-of-range indices, and the errors for bad input. The ops MindSpore's CPU build has no kernel for
(FusedWeightScaleApplyMomentum, LARSUpdate, LambApplyOptimizerAssign, LambApplyWeightAssign) are checked against
numpy written from the formulas of MindSpore's GPU/Ascend kernels and docs."""
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
with open(os.path.join(HERE, "golden_ops", "fused_optim_ms210.json")) as _f:
    GOLD = json.load(_f)
DATA = {k: np.array(v, np.float32) for k, v in GOLD["inputs"].items()}
MODES = ("ast", "bytecode", "trace")
_NP = {"i32": np.int32, "f32": np.float32, "f16": np.float16}
CASES = sorted(GOLD["cases"])


def _args(case, tag):
    """The call's inputs: Parameters where MindSpore had them, the rest as recorded."""
    out, params = [], set(case["params"])
    for k, spec in enumerate(case["inputs"]):
        if isinstance(spec, str):
            a = DATA[spec].copy()
        elif spec[0] == "cast16":
            a = DATA[spec[1]].astype(np.float16)
        elif spec[0] == "py":
            a = tuple(spec[1]) if isinstance(spec[1], list) else spec[1]
        else:
            a = np.array(spec[1], _NP[spec[0]])
        if k in params:
            out.append(Parameter(Tensor(a), name=f"{tag}{k}"))
        else:
            out.append(Tensor(a) if isinstance(a, np.ndarray) else a)
    if case["indices"] is not None:
        out.append(Tensor(np.array(case["indices"], np.int32)))
    return out


def _tol(case):
    f16 = any(isinstance(s, list) and s[0] == "cast16" and s[1] == "var" for s in case["inputs"])
    return (2e-3, 2e-3) if f16 else (3e-6, 3e-7)


def _check(case, args, out, what=""):
    rtol, atol = _tol(case)
    for k in case["params"]:
        np.testing.assert_allclose(args[k].asnumpy().astype(np.float64), np.array(case["after"][str(k)]), rtol=rtol,
                                   atol=atol, err_msg=f"{case['op']} parameter {k} {what}")
    assert isinstance(out, tuple) == case["tuple"]
    outs = out if isinstance(out, tuple) else (out,)
    assert len(outs) == len(case["outs"])
    for o, w in zip(outs, case["outs"]):
        assert str(o.asnumpy().dtype) == w["dtype"] and list(o.shape) == w["shape"]


def _op(case):
    return getattr(ops, case["op"])(**case["init"])


@pytest.mark.parametrize("key", CASES)
def test_fused_ops_eager_match_mindspore(key):
    case = GOLD["cases"][key]
    args = _args(case, "e")
    _check(case, args, _op(case)(*args))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("key", ["sparse_adam_dup", "lazy_adam", "ftrl_dup", "prox", "adam_no_update",
                                 "cast_adam_wd_f16", "adafactor_111", "adafactor_gn_011", "adafactor_vec"])
def test_fused_ops_under_jit_write_parameters(key, mode):
    """The capturing call gives MindSpore's step; the compiled second call the same as a second eager step."""
    case = GOLD["cases"][key]
    op = _op(case)
    jitted, eager = _args(case, "j"), _args(case, "e")
    params = set(case["params"])
    free = [k for k in range(len(jitted)) if k not in params and isinstance(jitted[k], Tensor)]

    def step(*ts):
        full = list(jitted)
        for k, t in zip(free, ts):
            full[k] = t
        return op(*full)

    f = msx.jit(step, capture_mode=mode)
    _check(case, jitted, f(*[jitted[k] for k in free]), "first jit call")
    op(*eager)
    op(*eager)
    f(*[jitted[k] for k in free])
    rtol, atol = _tol(case)
    for k in params:
        np.testing.assert_allclose(jitted[k].asnumpy(), eager[k].asnumpy(), rtol=rtol, atol=atol,
                                   err_msg=f"parameter {k} after the compiled call")


def test_outputs_are_the_updated_values():
    """MindSpore's CPU kernels never write the outputs; msx returns the values written into the Parameters."""
    case = GOLD["cases"]["lazy_adam"]
    args = _args(case, "o")
    out = _op(case)(*args)
    for k in range(3):
        np.testing.assert_array_equal(out[k].asnumpy(), args[k].asnumpy())
    case = GOLD["cases"]["adafactor_000"]
    args = _args(case, "o")
    (p,) = _op(case)(*args)
    np.testing.assert_array_equal(p.asnumpy(), args[7].asnumpy())


def test_duplicate_indices_are_merged_before_the_step():
    """FusedSparseLazyAdam at [1, 1] steps row 1 once with the summed gradient rows (MindSpore's answer)."""
    case = GOLD["cases"]["lazy_adam_dup"]
    g = DATA["grad2"].astype(np.float64).sum(0)
    m = 0.9 * DATA["m"][1] + 0.1 * g
    np.testing.assert_allclose(case["after"]["1"][1], m, rtol=1e-6)
    np.testing.assert_allclose(case["after"]["1"][0], DATA["m"][0])  # untouched rows stay (lazy)


# ---------------------------------------------------------------- out-of-range indices
def _ftrl(idx):
    v, a, li = (Parameter(Tensor(DATA[k].copy())) for k in ("var", "m", "linear"))
    op = ops.FusedSparseFtrl(lr=0.1, l1=0.01, l2=0.02, lr_power=-0.5)
    return (v, a, li), lambda i: op(v, a, li, Tensor(DATA["grad2"]), i), Tensor(np.array(idx, np.int32))


@pytest.mark.parametrize("idx", [[0, 3], [-1, 0]])
def test_out_of_range_index_is_an_error_naming_the_op(idx):
    params, call, i = _ftrl(idx)
    with pytest.raises(OpIndexError, match=r"FusedSparseFtrl: indices value -?\d is out of range \[0, 3\)"):
        call(i)
    case = GOLD["cases"]["sparse_adam"]
    args = _args(case, "r")
    args[-1] = i
    with pytest.raises(OpIndexError, match="FusedSparseAdam: indices value"):
        _op(case)(*args)
    np.testing.assert_array_equal(params[0].asnumpy(), DATA["var"])
    np.testing.assert_array_equal(args[0].asnumpy(), DATA["var"])


@pytest.mark.parametrize("mode", MODES)
def test_out_of_range_row_inside_a_compiled_graph_is_skipped(mode):
    params, call, i = _ftrl([0, 3])
    msx.jit(call, capture_mode=mode)(i)
    ok, _, ok_i = _ftrl([0])
    ops.FusedSparseFtrl(lr=0.1, l1=0.01, l2=0.02, lr_power=-0.5)(*ok, Tensor(DATA["grad2"][:1]), ok_i)
    for p, q in zip(params, ok):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-6)


# ---------------------------------------------------------------- ops without a MindSpore CPU kernel
def _mode_call(fn, mode, *args):
    return (fn if mode == "eager" else msx.jit(fn, capture_mode=mode))(*args)


@pytest.mark.parametrize("mode", ("eager",) + MODES)
def test_fused_weight_scale_apply_momentum_gpu_formula(mode):
    """MindSpore's GPU kernel: g = (var * wd + grad) * scale; acc = mom * acc + g; var -= lr * acc."""
    var, acc, g = DATA["var"], DATA["m"], DATA["grad3"]
    pv, pa = Parameter(Tensor(var.copy()), name="fv"), Parameter(Tensor(acc.copy()), name="fa")
    op = ops.FusedWeightScaleApplyMomentum()

    def step(grad):
        return op(Tensor(np.float32(0.1)), Tensor(np.float32(0.5)), pv, pa, Tensor(np.float32(0.01)), grad,
                  Tensor(np.float32(0.9)))

    out = _mode_call(step, mode, Tensor(g))
    gg = (var.astype(np.float64) * 0.1 + g) * 0.5
    want_acc = 0.9 * acc + gg
    want_var = var - 0.01 * want_acc
    np.testing.assert_allclose(pa.asnumpy(), want_acc, rtol=1e-6)
    np.testing.assert_allclose(pv.asnumpy(), want_var, rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), want_var, rtol=1e-6)


def _lars_ref(w, g, wd, lr, eps=1e-5, hyper=0.001, clip=False):
    w, g = w.astype(np.float64), g.astype(np.float64)
    wn, gn = np.sqrt((w * w).sum()), np.sqrt((g * g).sum())
    coeff = hyper * wn / (gn + wd * wn + eps)
    if clip:
        coeff = np.clip(coeff / lr, 0, 1)
    return coeff * (g + wd * w)


@pytest.mark.parametrize("mode", ("eager",) + MODES)
def test_lars_update_kernel_formula(mode):
    w, g = DATA["var"], DATA["grad3"]

    def f(wt, gt):
        sq = ops.ReduceSum()
        return (ops.LARSUpdate()(wt, gt, sq(wt * wt), sq(gt * gt), 0.1, 1.0),
                ops.LARSUpdate(1e-4, 0.01, True)(wt, gt, sq(wt * wt), sq(gt * gt), Tensor(np.float32(0.1)), 0.5))

    a, b = _mode_call(f, mode, Tensor(w), Tensor(g))
    np.testing.assert_allclose(a.asnumpy(), _lars_ref(w, g, 0.1, 1.0), rtol=1e-5)
    np.testing.assert_allclose(b.asnumpy(), _lars_ref(w, g, 0.1, 0.5, 1e-4, 0.01, True), rtol=1e-5)


def test_lars_update_docs_example():
    """The example in MindSpore's LARSUpdate docstring."""
    w = Tensor(np.array([[0.5, 0.8, 0.2], [0.6, 0.4, 0.2]], np.float32))
    g = Tensor(np.array([[0.4, 0.4, 0.5], [0.2, 0.4, 0.3]], np.float32))
    out = ops.LARSUpdate()(w, g, (w * w).sum(), (g * g).sum(), 0.0, 1.0)
    np.testing.assert_allclose(out.asnumpy(), [[0.0005265, 0.0005265, 0.00065813],
                                               [0.00026325, 0.0005265, 0.00039488]], rtol=1e-4)


@pytest.mark.parametrize("mode", ("eager",) + MODES)
def test_lamb_assign_pair_docs_formula(mode):
    """LambApplyOptimizerAssign then LambApplyWeightAssign (the pair nn.Lamb runs on Ascend): m, v written, the
    bias-corrected direction plus decay, then var -= lr * |w| / |r| * update."""
    g, v0, m0, w0 = DATA["grad3"], DATA["v"], DATA["m"], DATA["var"]
    pv, pm, pw = (Parameter(Tensor(a.copy()), name=n) for a, n in ((v0, "lv"), (m0, "lm"), (w0, "lw")))
    f32 = np.float32

    def step(grad):
        update, _, _ = ops.LambApplyOptimizerAssign()(grad, pv, pm, pw, Tensor(f32(0.9)), Tensor(f32(0.1)),
                                                         Tensor(f32(0.999)), Tensor(f32(0.001)), Tensor(f32(1e-6)),
                                                         Tensor(f32(3.0)), Tensor(f32(1.0)), Tensor(f32(0.01)))
        w_norm = ops.norm(pw)
        g_norm = ops.norm(update)
        return update, ops.LambApplyWeightAssign()(w_norm, g_norm, Tensor(f32(0.05)), update, pw)

    update, new_w = _mode_call(step, mode, Tensor(g))
    g64 = g.astype(np.float64)
    m = 0.9 * m0 + 0.1 * g64
    v = 0.999 * v0 + 0.001 * g64 * g64
    r = (m / (1 - 0.9 ** 3)) / (np.sqrt(v / (1 - 0.999 ** 3)) + 1e-6) + 0.01 * w0
    w = w0 - 0.05 * np.linalg.norm(w0) / np.linalg.norm(r) * r
    np.testing.assert_allclose(pm.asnumpy(), m, rtol=1e-5)
    np.testing.assert_allclose(pv.asnumpy(), v, rtol=1e-5)
    # 1 - 0.999 ** 3 in float32 cancels: a few 1e-5 relative (compiled pow differs from eager's by an ulp)
    np.testing.assert_allclose(update.asnumpy(), r, rtol=5e-5)
    np.testing.assert_allclose(pw.asnumpy(), w, rtol=5e-5)
    np.testing.assert_allclose(new_w.asnumpy(), w, rtol=5e-5)


def test_lamb_weight_assign_zero_norm_ratio_is_one():
    w = Parameter(Tensor(DATA["var"].copy()), name="zw")
    upd = Tensor(DATA["grad3"])
    ops.LambApplyWeightAssign()(Tensor(np.float32(0.0)), Tensor(np.float32(2.0)), Tensor(np.float32(0.1)), upd, w)
    np.testing.assert_allclose(w.asnumpy(), DATA["var"] - 0.1 * DATA["grad3"], rtol=1e-6)


# ---------------------------------------------------------------- bad input, attributes, signatures
def test_bad_inputs_raise_msx_errors_naming_op_shapes_and_dtypes():
    case = GOLD["cases"]["sparse_adam"]
    args = _args(case, "b")
    with pytest.raises(OpError, match=r"FusedSparseAdam: grad must have shape .*\(2, 2\), got \(2, 3\)"):
        _op(case)(*args[:9], Tensor(np.ones((2, 3), np.float32)), args[10])
    with pytest.raises(OpTypeError, match="FusedSparseAdam: indices must be a int32 Tensor, got int64"):
        _op(case)(*args[:10], Tensor(np.array([0, 1], np.int64)))
    half = [Parameter(Tensor(a.asnumpy().astype(np.float16))) for a in args[:3]]
    with pytest.raises(OpTypeError, match="FusedSparseAdam: var must be float32, got float16"):
        _op(case)(*half, *args[3:9], Tensor(DATA["grad2"].astype(np.float16)), args[10])
    with pytest.raises(OpTypeError, match=r"FusedSparseAdam: beta1 must be a number or a one-element"):
        _op(case)(*args[:6], Tensor(np.ones(2, np.float32)), *args[7:])
    with pytest.raises(OpError, match=r"AdamNoUpdateParam: v must have m's shape and dtype float32\(3, 2\)"):
        ops.AdamNoUpdateParam()(Tensor(DATA["m"]), Tensor(DATA["g1"]), 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8,
                                Tensor(DATA["grad3"]))
    with pytest.raises(OpTypeError, match="FusedCastAdamWeightDecay: gradient must be float16, got float32"):
        ops.FusedCastAdamWeightDecay()(Parameter(Tensor(DATA["var"])), Parameter(Tensor(DATA["m"])),
                                       Parameter(Tensor(DATA["v"])), 0.01, 0.9, 0.999, 1e-8, 0.0,
                                       Tensor(DATA["grad3"]), 1.0)
    af = GOLD["cases"]["adafactor_000"]
    a = _args(af, "b")
    a[9] = Parameter(Tensor(np.zeros((3, 2), np.float32)), name="badrow")
    with pytest.raises(OpError, match=r"FusedAdaFactor: exp_avg_sq_row must have shape \(2, 3\)"):
        _op(af)(*a)
    a = _args(af, "c")
    with pytest.raises(OpError, match="FusedAdaFactor: clip_threshold must be > 0"):
        _op(af)(a[0], 0.0, *a[2:])
    with pytest.raises(OpTypeError, match="LARSUpdate: epsilon must be a float"):
        ops.LARSUpdate(epsilon=1)(Tensor(DATA["var"]), Tensor(DATA["grad3"]), Tensor(np.float32(1)),
                                  Tensor(np.float32(1)), 0.0, 1.0)
    with pytest.raises(OpTypeError, match="FusedSparseFtrl: lr must be a float"):
        ops.FusedSparseFtrl(lr="a", l1=0.0, l2=0.0, lr_power=-0.5)(
            *_ftrl([0])[0], Tensor(DATA["grad2"][:1]), Tensor(np.array([0], np.int32)))
    np.testing.assert_array_equal(args[0].asnumpy(), DATA["var"])


@pytest.fixture
def fresh_warnings(monkeypatch):
    """Forget which (owner, argument) pairs have warned (msx.ignored_args warns once per process)."""
    from msx import ignored_args

    monkeypatch.setattr(ignored_args, "_warned", set())


def test_use_locking_warns_once_naming_the_op(fresh_warnings):
    case = GOLD["cases"]["prox"]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        _op(case)(*_args(case, "w"))
    assert not [w for w in seen if "use_locking" in str(w.message)]
    with pytest.warns(UserWarning, match="FusedSparseProximalAdagrad: use_locking=True is not honoured by msx"):
        ops.FusedSparseProximalAdagrad(use_locking=True)(*_args(case, "x"))


# MindSpore 2.10's constructors (inspect.signature in its venv)
INIT = {
    "FusedSparseAdam": "(use_locking=False, use_nesterov=False)",
    "FusedSparseLazyAdam": "(use_locking=False, use_nesterov=False)",
    "FusedSparseFtrl": "(lr, l1, l2, lr_power, use_locking=False)",
    "FusedSparseProximalAdagrad": "(use_locking=False)",
    "AdamNoUpdateParam": "(use_locking=False, use_nesterov=False)",
    "FusedCastAdamWeightDecay": "(use_locking=False)",
    "FusedAdaFactor": "(enable_scale_parameter=False, enable_first_moment=False, enable_weight_decay=False)",
    "FusedAdaFactorWithGlobalNorm": "(enable_scale_parameter=False, enable_first_moment=False, "
                                    "enable_weight_decay=False)",
    "FusedWeightScaleApplyMomentum": "()",
    "LARSUpdate": "(epsilon=1e-05, hyperpara=0.001, use_clip=False)",
    "LambApplyOptimizerAssign": "()",
    "LambApplyWeightAssign": "()",
}


@pytest.mark.parametrize("name", sorted(INIT))
def test_constructors_are_mindsporess(name):
    cls = getattr(ops, name)
    assert cls is getattr(msx.ops.operations, name)
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert "(" + ", ".join(str(p) for p in params) + ")" == INIT[name]


def test_use_locking_is_treated_alike_by_dense_sparse_and_fused_ops(fresh_warnings):
    """Apply* (apply_ops.py), SparseApply* and Fused* all type check use_locking and warn once for True: msx's
    step reads then rebinds the Parameters, nothing serialises two threads stepping the same one."""
    def momentum(**kw):
        v, a = Parameter(Tensor(DATA["var"].copy())), Parameter(Tensor(DATA["m"].copy()))
        return ops.ApplyMomentum(**kw)(v, a, 0.1, Tensor(DATA["grad3"]), 0.9)

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        momentum()
        ops.ApplyRMSProp()(Parameter(Tensor(DATA["var"].copy())), Parameter(Tensor(DATA["m"].copy())),
                           Parameter(Tensor(DATA["v"].copy())), 0.1, Tensor(DATA["grad3"]), 0.9, 0.5, 1e-6)
    assert not [w for w in seen if "use_locking" in str(w.message)]
    with pytest.warns(UserWarning, match="ApplyMomentum: use_locking=True is not honoured by msx: .*no per-variable "
                                         "lock"):
        momentum(use_locking=True)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        momentum(use_locking=True)
    assert not [w for w in seen if "use_locking" in str(w.message)]  # once per op
    p = [Parameter(Tensor(DATA[k].copy())) for k in ("var", "m", "v", "v")]
    with pytest.warns(UserWarning, match="ApplyAdamWithAmsgrad: use_locking=True is not honoured"):
        ops.ApplyAdamWithAmsgrad(use_locking=True)(*p, Tensor(np.float32(0.9)), Tensor(np.float32(0.999)),
                                                    Tensor(np.float32(0.01)), Tensor(DATA["grad3"]))
    with pytest.raises(OpTypeError, match="ApplyRMSProp: use_locking must be a bool"):
        ops.ApplyRMSProp(use_locking=1)(Parameter(Tensor(DATA["var"].copy())), Parameter(Tensor(DATA["m"].copy())),
                                        Parameter(Tensor(DATA["v"].copy())), 0.1, Tensor(DATA["grad3"]), 0.9, 0.5,
                                        1e-6)
    args = _args(GOLD["cases"]["sparse_adam"], "l")
    with pytest.warns(UserWarning, match="FusedSparseAdam: use_locking=True is not honoured"):
        ops.FusedSparseAdam(use_locking=True)(*args)
