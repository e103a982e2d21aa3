"""Issue 32's third round of MindSpore names (docs/api_surface.md "Third round").

- Twins: a name that is another spelling of something msx has is that very object, or gives its answers.
- Names whose MindSpore 2.10 kernels are Ascend-only (no CPU golden can be recorded): against numpy, eagerly
  and under every capture mode. (The others are in tests/golden_ops/case_ported_names.py, against MindSpore.)
- Refused names (`msx.unavailable`): every one raises `NotAvailableError` naming itself and what to use, and the
  coverage tool counts exactly those apart.
"""
from __future__ import annotations

import importlib

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
