"""Issue 32's third round of MindSpore names (docs/api_surface.md "Third round").

- Twins: a name that is another spelling of something msx has is that very object, or gives its answers.
- Names whose MindSpore 2.10 kernels are Ascend-only (no CPU golden can be recorded): against numpy, eagerly
  and under every capture mode. (The others are in tests/golden_ops/case_ported_names.py, against MindSpore.)
- Refused names (`msx.unavailable`): every one raises `NotAvailableError` naming itself and what to use, and the
  coverage tool counts exactly those apart.
"""
from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import msx
from msx import mint, ops
from msx.errors import NotAvailableError
from msx.ops import functional as F
from msx.tools import api_coverage
from msx.unavailable import REFUSED, is_refused

R = np.random.default_rng(323)
X = R.standard_normal((2, 4)).astype(np.float32)
Y = R.standard_normal((2, 4)).astype(np.float32)
B0 = R.standard_normal((2, 2, 2)).astype(np.float32)
B1 = R.standard_normal((2, 2, 3)).astype(np.float32)
B2 = R.standard_normal((2, 3, 2)).astype(np.float32)
E = np.array([[0.1, -0.5, 0.3, 0.0], [0.9, -0.2, 0.6, -0.95]], np.float32)
MODES = ("ast", "bytecode", "trace")

# (module, name, twin): the name must be the twin object itself
SAME = [
    ("msx.common", n, f"msx.{n}") for n in
    "COOTensor CSRTensor Generator Int JitConfig QuantDtype RowTensor SparseTensor TensorType default_generator "
    "list_ load_mindir number save_mindir set_recursion_limit string swap_tensors tensor_type tuple_ type_none "
    "uint".split()] + [
    ("msx.amp", "jit", "msx.jit"), ("msx.amp", "jit_class", "msx.jit_class"), ("msx.amp", "mutable", "msx.mutable"),
    ("msx.amp", "constexpr", "msx.common.constexpr"), ("msx.ops", "shape_", "msx.ops.functional.shape_"),
    ("msx.mint.nn", "cross_entropy", "msx.mint.nn.functional.cross_entropy"),
    ("msx.mint.nn", "nllloss", "msx.mint.nn.functional.nll_loss"),
    ("msx.mint.nn", "kl_div_ext", "msx.mint.nn.functional.kl_div"),
    ("msx.mint.nn", "mse_loss_ext", "msx.mint.nn.functional.mse_loss"),
    ("msx.train", "ConvertNetUtils", "msx.train.train_thor.ConvertNetUtils"),
    ("msx", "ConvertModelUtils", "msx.train.train_thor.ConvertModelUtils"),
] + [(m, "absolute_import", "__future__.absolute_import") for m in (
    "msx.nn", "msx.amp", "msx.common", "msx.common.dtype", "msx.common.initializer", "msx.parallel",
    "msx.parallel.nn", "msx.mint.distributed", "msx.experimental.optim", "msx.ops")]


def _resolve(path: str):
    head, _, name = path.rpartition(".")
    return getattr(importlib.import_module(head), name)


@pytest.mark.parametrize("module,name,twin", SAME, ids=[f"{m}.{n}" for m, n, _ in SAME])
def test_twin_is_the_same_object(module, name, twin):
    assert getattr(importlib.import_module(module), name) is _resolve(twin)


# (call of the new spelling, call of its twin): the same answers, eagerly
SPELLINGS = [
    (lambda x, y: ops.isnan_ext(x / y), lambda x, y: ops.isnan(x / y)),
    (lambda x, y: F.argmax_ext(x, 1, True), lambda x, y: mint.argmax(x, 1, True)),
    (lambda x, y: ops.einsum_ext("ij,ij->i", x, y), lambda x, y: ops.einsum("ij,ij->i", x, y)),
    (lambda x, y: ops.diff_ext(x, dim=0), lambda x, y: mint.diff(x, dim=0)),
    (lambda x, y: ops.mse_loss_ext(x, y), lambda x, y: ops.mse_loss(x, y)),
    (lambda x, y: ops.adaptive_avg_pool2d_ext(x.reshape(1, 2, 2, 2), 1),
     lambda x, y: ops.adaptive_avg_pool2d(x.reshape(1, 2, 2, 2), 1)),
    (lambda x, y: ops.accumulate_n([x, y, x]), lambda x, y: ops.addn([x, y, x])),
    (lambda x, y: ops.AccumulateNV2()([x, y]), lambda x, y: ops.addn([x, y])),
    (lambda x, y: ops.shape_(x), lambda x, y: ops.Shape()(x)),
]


@pytest.mark.parametrize("i", range(len(SPELLINGS)))
def test_spelling_gives_its_twins_answers(i):
    new, old = SPELLINGS[i]
    a, b = new(msx.Tensor(X), msx.Tensor(Y)), old(msx.Tensor(X), msx.Tensor(Y))
    if isinstance(a, tuple):
        assert a == b
    else:
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


# (name, msx call, numpy reference): MindSpore 2.10's kernels for these are Ascend-only
NUMPY = [
    ("swiglu", lambda x: ops.swiglu(x), lambda a: a[:, :2] * _sigmoid(a[:, :2]) * a[:, 2:]),
    ("swiglu_dim0", lambda x: ops.swiglu(x, 0), lambda a: a[:1] * _sigmoid(a[:1]) * a[1:]),
    ("argmax_ext", lambda x: F.argmax_ext(x, 0), lambda a: np.argmax(a, 0)),
    ("baddbmm_ext", lambda x: ops.baddbmm_ext(msx.Tensor(B0), msx.Tensor(B1), msx.Tensor(B2), beta=0.5,
                                              alpha=2.0), lambda a: 0.5 * B0 + 2.0 * B1 @ B2),
    ("mse_loss_ext", lambda x: mint.nn.mse_loss_ext(x, msx.Tensor(Y)), lambda a: np.mean((a - Y) ** 2)),
    ("clamp_", lambda x: ops.clamp_(x, -0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5)),
    ("tanh_", lambda x: ops.tanh_(x), np.tanh),
    ("inplace_sigmoid", lambda x: ops.inplace_sigmoid(x), _sigmoid),
    ("zero_", lambda x: ops.zero_(x), np.zeros_like),
    ("put_", lambda x: ops.put_(x, msx.Tensor(np.array([0, 5], np.int64)), msx.Tensor(np.array([9.0, -9.0], np.float32))),
     lambda a: np.where(np.arange(8).reshape(2, 4) == 0, 9.0, np.where(np.arange(8).reshape(2, 4) == 5, -9.0, a))),
    ("put_accumulate", lambda x: ops.put_(x, msx.Tensor(np.array([1, 1], np.int64)),
                                          msx.Tensor(np.array([1.0, 2.0], np.float32)), True),
     lambda a: a + np.where(np.arange(8).reshape(2, 4) == 1, 3.0, 0.0)),
]


@pytest.mark.parametrize("name,fn,ref", NUMPY, ids=[n for n, _, _ in NUMPY])
def test_ascend_kernel_names_against_numpy(name, fn, ref):
    want = np.asarray(ref(X.copy()))
    t = msx.Tensor(X.copy())
    got = fn(t)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    for mode in MODES:
        out = msx.jit(fn, capture_mode=mode)(msx.Tensor(X.copy()))
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6, err_msg=mode)


@pytest.mark.parametrize("mode", ("eager",) + MODES)
def test_functional_in_place_ops_write_their_input(mode):
    """`ops.erfinv_(x)` writes x and returns it, as `x.erfinv_()` does, in every capture mode."""
    from scipy.special import erfinv

    def step(t):
        ops.erfinv_(t)
        return t * 2

    t = msx.Tensor(E.copy())
    out = step(t) if mode == "eager" else msx.jit(step, capture_mode=mode)(t)
    np.testing.assert_allclose(t.asnumpy(), erfinv(E), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), 2 * erfinv(E), rtol=1e-5, atol=1e-6)


def test_new_ops_refuse_bad_input_by_name():
    with pytest.raises(ValueError, match="Padding.*last dimension of x must be 1"):
        ops.padding(msx.Tensor(X))
    with pytest.raises(ValueError, match="HSVToRGB.*4-D"):
        ops.HSVToRGB()(msx.Tensor(X))
    with pytest.raises(TypeError, match="ViewAsReal.*complex"):
        ops.view_as_real(msx.Tensor(X))
    with pytest.raises(ValueError, match="swiglu: dimension -1 of input must be even"):
        ops.swiglu(msx.Tensor(X[:, :3]))
    with pytest.raises(ValueError, match="bidense: weight must be"):
        ops.bidense(msx.Tensor(X), msx.Tensor(Y), msx.Tensor(B0))
    with pytest.raises(RuntimeError, match="clip_by_norm: the total norm"):
        ops.clip_by_norm(msx.Tensor(np.array([np.inf, 1.0], np.float32)), 1.0, error_if_nonfinite=True)


def test_clip_by_norm_takes_a_list_together():
    xs = [msx.Tensor(np.array([3.0, 0.0], np.float32)), msx.Tensor(np.array([0.0, 4.0], np.float32))]
    out = ops.clip_by_norm(xs, 1.0)
    assert isinstance(out, list)
    np.testing.assert_allclose(np.concatenate([o.asnumpy() for o in out]), np.array([3, 0, 0, 4]) / (5 + 1e-6),
                               rtol=1e-5)
    # already within the bound: unchanged
    np.testing.assert_allclose(ops.clip_by_norm(xs[0], 10.0).asnumpy(), [3.0, 0.0])


# ---------------------------------------------------------------- refused names
def _refused_in_namespaces():
    """Every (MindSpore module, name) the coverage table counts as refused."""
    return [(row.module, n) for row in api_coverage.coverage() for n in row.refused]


REFUSED_ROWS = _refused_in_namespaces()


def test_refused_names_are_counted_apart_and_many():
    modules = {m for m, _ in REFUSED_ROWS}
    assert {"mindspore", "mindspore.ops", "mindspore.ops.operations", "mindspore.ops.functional", "mindspore.amp",
            "mindspore.train"} <= modules
    assert len(REFUSED_ROWS) > 300
    text = api_coverage.render(api_coverage.coverage())
    assert "refused" in text.splitlines()[0] and "working (present less the" in text.splitlines()[-1]


@pytest.mark.parametrize("module,name", REFUSED_ROWS, ids=[f"{m}.{n}" for m, n in REFUSED_ROWS])
def test_every_refused_name_raises_the_clear_error(module, name):
    obj = getattr(api_coverage._msx_object(module), name)
    assert is_refused(obj)
    clear = rf"{name} is not available in msx \(.+\): .+"
    if hasattr(obj, "convert_to_thor_net"):  # the THOR converters: classes whose methods refuse
        with pytest.raises(NotAvailableError, match=r"convert_to_thor_net is not available in msx \(.*THOR"):
            obj().convert_to_thor_net(None)
    elif hasattr(obj, "convert_to_thor_model"):
        with pytest.raises(NotAvailableError, match=r"convert_to_thor_model is not available in msx \(.*THOR"):
            obj.convert_to_thor_model(None, None)
    elif getattr(obj, "refuses_when_called_after_decorating", False):  # decorating works (imports); calls raise
        decorated = obj(lambda: 1)
        with pytest.raises(NotAvailableError, match=rf"{name}\(.*\) is not available in msx"):
            decorated()
    else:  # a class refuses construction, a function its call
        with pytest.raises(NotAvailableError, match=clear):
            obj()


def test_refused_functions_raise_on_call():
    for path in ("mindspore.ops.switch", "mindspore.set_ps_context", "mindspore.ops.composite.ms_next"):
        assert path in REFUSED
    with pytest.raises(NotAvailableError, match=r"mindspore.ops.switch is not available in msx \(an internal"):
        ops.switch(True, 1, 2)
    with pytest.raises(NotAvailableError, match="set_ps_context is not available in msx .*parameter-server"):
        msx.set_ps_context(enable_ps=True)


def test_refused_decorators_keep_modules_importable():
    @ops.op_info_register({"op_name": "X"})
    def _x_tbe():
        return None

    class MyOp(ops.PrimitiveWithInfer):
        @ops.prim_attr_register
        def __init__(self, k):
            pass

    with pytest.raises(NotAvailableError, match="op_info_register"):
        _x_tbe()
    with pytest.raises(NotAvailableError, match="prim_attr_register|PrimitiveWithInfer"):
        MyOp(3)


# ---------------------------------------------------------------- nn Cells against MindSpore 2.10
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "api_names_round3")
sys.path.insert(0, GOLDEN_DIR)
from round3_cases import CASES as CELL_CASES, LABELS, LOGITS, SPD, X2, X3, X4  # noqa: E402
import round3_record as cell_record  # noqa: E402

with open(os.path.join(GOLDEN_DIR, "goldens.json")) as _f:
    CELL_GOLDENS = json.load(_f)["cases"]


def _decode(e: dict) -> np.ndarray:
    return np.asarray(e["values"], np.float64).reshape(e["shape"])


@pytest.mark.parametrize("case_id", sorted(CELL_GOLDENS))
def test_cell_matches_mindspore(case_id):
    want = CELL_GOLDENS[case_id]
    got = cell_record.run(msx, case_id)
    assert len(got["outputs"]) == len(want["outputs"])
    for g, w in zip(got["outputs"], want["outputs"]):
        assert g["shape"] == w["shape"]
        np.testing.assert_allclose(_decode(g), _decode(w), rtol=1e-4, atol=1e-5)
    assert set(got["params"]) == set(want["params"])
    for k in want["params"]:  # a training step's moving statistics, as MindSpore wrote them
        np.testing.assert_allclose(_decode(got["params"][k]), _decode(want["params"][k]), rtol=1e-4, atol=1e-5,
                                   err_msg=k)


@pytest.mark.parametrize("case_id", sorted(c for c in CELL_CASES if c not in ("jvp", "vjp")))
def test_cell_jit_equals_eager(case_id):
    build, inputs, train = CELL_CASES[case_id]
    nets = []
    for _ in range(2):
        net = build(msx)
        cell_record.fill(net)
        net.set_train(train)
        nets.append(net)
    xs = [msx.Tensor(a) for a in inputs]
    eager = cell_record.flat(nets[0](*xs))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # compiled, never a silent eager fallback
        jitted = cell_record.flat(msx.jit(nets[1].construct)(*xs))
    for e, j in zip(eager, jitted):
        np.testing.assert_allclose(j, e, rtol=1e-5, atol=1e-6)
    for (n0, p0), (_, p1) in zip(nets[0].parameters_and_names(), nets[1].parameters_and_names()):
        np.testing.assert_allclose(p1.asnumpy(), p0.asnumpy(), rtol=1e-5, atol=1e-6, err_msg=n0)


def _log_softmax(a, axis):
    m = a - a.max(axis, keepdims=True)
    return m - np.log(np.exp(m).sum(axis, keepdims=True))


def _multilabel_margin(x, y):
    out = []
    for xi, yi in zip(x, y):
        labels = list(yi[:list(yi).index(-1)] if -1 in list(yi) else yi)
        others = [i for i in range(len(xi)) if i not in labels]
        out.append(sum(max(0.0, 1 - (xi[j] - xi[i])) for j in labels for i in others) / len(xi))
    return np.asarray(out)


def _extract_patches(x, k, s):
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.zeros((n, k * k * c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            win = x[:, :, i * s:i * s + k, j * s:j * s + k]          # (n, c, k, k)
            out[:, :, i, j] = win.transpose(0, 2, 3, 1).reshape(n, -1)  # ordered (row, column, channel)
    return out


# Cells whose MindSpore 2.10 CPU kernels are missing (LogSoftmaxExt, DetTriangle/CholeskyTrsm for SPD matrices,
# MultilabelMarginLoss, ExtractImagePatches): against numpy
NUMPY_CHECKED_PRIMITIVES = {"ExtractImagePatches"}  # primitives whose values only this file checks (test_ops counts)
CELL_NUMPY = [
    ("log_softmax_ext_none_2d", lambda: msx.nn.LogSoftmaxExt()(msx.Tensor(X2)), lambda: _log_softmax(X2, 1)),
    ("log_softmax_ext_none_3d", lambda: msx.nn.LogSoftmaxExt()(msx.Tensor(X3)), lambda: _log_softmax(X3, 0)),
    ("log_softmax_ext_dim", lambda: msx.nn.LogSoftmaxExt(-1)(msx.Tensor(X3)), lambda: _log_softmax(X3, -1)),
    ("mat_det", lambda: msx.nn.MatDet()(msx.Tensor(SPD)), lambda: np.linalg.det(SPD)),
    ("mat_inverse", lambda: msx.nn.MatInverse()(msx.Tensor(SPD)), lambda: np.linalg.inv(SPD)),
    ("multilabel_margin_loss", lambda: msx.nn.MultilabelMarginLoss()(msx.Tensor(LOGITS), msx.Tensor(LABELS)),
     lambda: _multilabel_margin(LOGITS, LABELS).mean()),
    ("multilabel_margin_loss_none", lambda: msx.nn.MultilabelMarginLoss("none")(msx.Tensor(LOGITS),
                                                                                msx.Tensor(LABELS)),
     lambda: _multilabel_margin(LOGITS, LABELS)),
    ("unfold_valid", lambda: msx.nn.Unfold([1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1])(msx.Tensor(X4)),
     lambda: _extract_patches(X4, 2, 2)),
    ("unfold_stride1", lambda: msx.nn.Unfold([1, 3, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "valid")(msx.Tensor(X4)),
     lambda: _extract_patches(X4, 3, 1)),
    ("extract_image_patches", lambda: ops.ExtractImagePatches([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1],
                                                               "VALID")(msx.Tensor(X4)),
     lambda: _extract_patches(X4, 2, 1)),
]


@pytest.mark.parametrize("name,fn,ref", CELL_NUMPY, ids=[n for n, _, _ in CELL_NUMPY])
def test_cells_without_mindspore_cpu_kernels_against_numpy(name, fn, ref):
    np.testing.assert_allclose(fn().asnumpy(), ref(), rtol=1e-4, atol=1e-5)


def test_unfold_same_padding_and_rates():
    x = msx.Tensor(X4)
    same = msx.nn.Unfold([1, 3, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "same")(x)
    assert same.shape == (2, 27, 2, 2)
    dilated = msx.nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 2, 2, 1], "valid")(x)
    assert dilated.shape == (2, 12, 2, 2)  # the taps of a 2x2 window dilated by 2: rows/columns 0 and 2
    np.testing.assert_allclose(dilated.asnumpy()[:, :3, 0, 0], X4[:, :, 0, 0])
    np.testing.assert_allclose(dilated.asnumpy()[:, 9:, 0, 0], X4[:, :, 2, 2])
    with pytest.raises(ValueError, match="ExtractImagePatches: ksizes must be"):
        msx.nn.Unfold([1, 0, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1])(x)
    with pytest.raises(ValueError, match="ExtractImagePatches: padding must be 'same' or 'valid'"):
        msx.nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "full")(x)


def test_sync_batchnorm_process_groups_warns_once():
    with pytest.warns(UserWarning, match="SyncBatchNorm: process_groups=.*not honoured"):
        msx.nn.SyncBatchNorm(3, process_groups=[[0, 1]])


# ---------------------------------------------------------------- experimental.optim against MindSpore 2.10
from round3_cases import GRADS, OPTIMIZERS, B0 as OPT_B0, W0 as OPT_W0, run_optimizer  # noqa: E402

with open(os.path.join(GOLDEN_DIR, "goldens.json")) as _f:
    OPTIM_GOLDENS = json.load(_f)["optimizers"]


@pytest.mark.parametrize("case_id", sorted(OPTIMIZERS))
def test_optimizer_steps_match_mindspore(case_id):
    got = run_optimizer(msx, case_id)
    for step, (g, w) in enumerate(zip(got, OPTIM_GOLDENS[case_id])):
        for a, e in zip(g, w):
            np.testing.assert_allclose(a, _decode(e), rtol=1e-5, atol=1e-6, err_msg=f"step {step + 1}")


@pytest.mark.parametrize("case_id", ["nadam", "radam_short_window", "rprop_clip", "asgd_average"])
def test_optimizer_jit_equals_eager(case_id):
    name, kwargs = OPTIMIZERS[case_id]
    w, b = msx.Parameter(msx.Tensor(OPT_W0), name="w"), msx.Parameter(msx.Tensor(OPT_B0), name="b")
    opt = getattr(msx.experimental.optim, name)([w, b], **kwargs)
    step = msx.jit(lambda gw, gb: opt((gw, gb)))
    for (gw, gb), want in zip(GRADS, run_optimizer(msx, case_id)):
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)  # compiled, never a silent eager fallback
            step(msx.Tensor(gw), msx.Tensor(gb))
        np.testing.assert_allclose(w.asnumpy(), want[0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b.asnumpy(), want[1], rtol=1e-5, atol=1e-6)


def test_optimizers_refuse_bad_hyperparameters():
    p = [msx.Parameter(msx.Tensor(OPT_W0), name="w")]
    with pytest.raises(ValueError, match="NAdam: lr must be > 0.0"):
        msx.experimental.optim.NAdam(p, lr=0.0)
    with pytest.raises(ValueError, match=r"Rprop: etas\[0\] must be in \(0, 1\)"):
        msx.experimental.optim.Rprop(p, etas=(1.5, 1.2))
    with pytest.raises(TypeError, match="ASGD: lambd must be a float"):
        msx.experimental.optim.ASGD(p, lambd=1)


def test_max_unpool_refuses_an_index_outside_the_plane():
    x = msx.Tensor(np.ones((1, 1, 2, 2), np.float32))
    bad = msx.Tensor(np.array([[[[0, 3], [10, 99]]]], np.int64))
    with pytest.raises(msx.errors.OpIndexError, match=r"max_unpool2d: indices must lie in \[0, 16\)"):
        ops.max_unpool2d(x, bad, 2)
    with pytest.raises(ValueError, match="MaxUnpool2D: data_format must be one of"):
        ops.MaxUnpool2D(2, data_format="NCDHW")(x, bad)
    # mint's layer and function are the same implementation
    good = msx.Tensor(np.array([[[[0, 3], [9, 15]]]], np.int64))
    np.testing.assert_array_equal(mint.nn.MaxUnpool2d(2)(x, good).asnumpy(),
                                  mint.nn.functional.max_unpool2d(x, good, 2).asnumpy())
    np.testing.assert_array_equal(ops.max_unpool2d(x, good, 2).asnumpy(), msx.nn.MaxUnpool2d(2)(x, good).asnumpy())
