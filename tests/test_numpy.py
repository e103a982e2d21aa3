"""`msx.numpy` against MindSpore 2.10's `mindspore.numpy`: every recorded name eagerly (values and dtypes from
tests/golden_numpy/, made by its record.py), a sample under `msx.jit` in every capture mode (equal to eager,
captured whole), and the names that are values or index objects."""
import json
import math
import os
import sys

import numpy as np
import pytest

import msx
import msx.numpy as mnp

HERE = os.path.join(os.path.dirname(__file__), "golden_numpy")
sys.path.insert(0, HERE)
from numpy_cases import CASES, CONSTANTS, DTYPES, OTHER, to_numpy  # noqa: E402

with open(os.path.join(HERE, "numpy_ms210.json")) as _f:
    GOLDEN = json.load(_f)
ARRAYS = dict(np.load(os.path.join(HERE, "numpy_ms210.npz")))
# Where msx keeps numpy's (and MindSpore's documented) answer over MindSpore 2.10's CPU one: values from numpy,
# dtype still MindSpore's.
KEPT = {"cbrt": "MindSpore's cbrt(0) is nan; msx's is 0",
        "unique": "MindSpore's CPU unique keeps first-seen order though its docs say sorted; msx sorts"}


def _check(name, got, want):
    if "list" in want:
        assert isinstance(got, list) and len(got) == len(want["list"]), (name, got)
        for i, (g, w) in enumerate(zip(got, want["list"])):
            _check(f"{name}.{i}", g, w)
    elif "array" in want:
        ref = ARRAYS[want["array"]]
        assert isinstance(got, np.ndarray), (name, type(got))
        assert str(got.dtype) == want["dtype"], f"{name}: dtype {got.dtype}, MindSpore {want['dtype']}"
        assert got.shape == ref.shape, f"{name}: shape {got.shape}, MindSpore {ref.shape}"
        np.testing.assert_allclose(got, ref, rtol=2e-5, atol=2e-6, equal_nan=True, err_msg=name)
    else:
        assert got == want["value"], (name, got, want["value"])


def _numpy_reference(name):
    """What numpy answers for a case MindSpore cannot run on CPU (values only: numpy's dtypes are 64-bit)."""
    return to_numpy(CASES[name](np, np.asarray))


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_matches_mindspore(name):
    want = GOLDEN["cases"][name]
    got = to_numpy(CASES[name](mnp, msx.Tensor))
    if name in KEPT:
        assert str(got.dtype) == want["dtype"], name
        np.testing.assert_allclose(got, _numpy_reference(name), rtol=2e-5, atol=2e-6, err_msg=KEPT[name])
        return
    if "error" in want:  # MindSpore cannot run it on CPU: numpy's values
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(_numpy_reference(name), np.float64),
                                   rtol=2e-5, atol=2e-6, err_msg=name)
        return
    _check(name, got, want)


def test_every_mindspore_name_exists():
    from msx.tools.api_coverage import load_names

    names = load_names()["modules"]["mindspore.numpy"]
    missing = [n for n in names if not hasattr(mnp, n)]
    assert not missing and len(names) >= 264
    assert set(CASES) | set(CONSTANTS) | set(DTYPES) | set(OTHER) >= {n for n in names if not n.endswith("_module")}


def test_constants_and_dtypes():
    for name, want in GOLDEN["constants"].items():
        v = getattr(mnp, name)
        if isinstance(want, list):
            assert [str(t) for t in v] == [str(getattr(mnp, t)) for t in want]
        else:
            assert math.isnan(v) if want == "nan" else v == float(want), name
    for name, want in GOLDEN["dtypes"].items():
        assert str(getattr(mnp, name)) == want, name


def test_grids():
    np.testing.assert_array_equal(mnp.mgrid[0:2, 0:3].asnumpy(), np.mgrid[0:2, 0:3])
    got = mnp.ogrid[0:2, 0:3]
    for g, w in zip(got, np.ogrid[0:2, 0:3]):
        np.testing.assert_array_equal(g.asnumpy(), w)
    np.testing.assert_allclose(mnp.mgrid[0:1:5j].asnumpy(), np.mgrid[0:1:5j], rtol=1e-6)


def test_random_shapes_and_seed():
    msx.set_seed(3)
    a = mnp.rand(2, 3)
    msx.set_seed(3)
    assert np.array_equal(a.asnumpy(), mnp.rand((2, 3)).asnumpy()) and a.dtype == msx.float32
    r = mnp.randint(2, 5, (100,)).asnumpy()
    assert r.min() >= 2 and r.max() < 5 and mnp.randint(3, shape=(4,)).dtype == msx.int32


def test_array_likes_and_defaults():
    assert mnp.sum([1, 2, 3]).asnumpy() == 6 and mnp.array([1, 2]).dtype == msx.int32
    assert mnp.asarray([True, False]).dtype == msx.bool_ and mnp.ones(2).dtype == msx.float32
    assert mnp.zeros((2,), mnp.int64).dtype == msx.int64  # an explicit dtype is kept
    x64 = msx.Tensor(np.array([1.0, 2.0]))
    assert mnp.mean(x64).dtype == msx.float64  # a float64 input keeps float64
    assert mnp.array(msx.Tensor([1.0]), ndmin=3).shape == (1, 1, 1)


def test_bad_input_names_the_function():
    with pytest.raises(msx.errors.MsxError, match="NpTensordot"):
        mnp.tensordot(msx.Tensor(np.ones((2, 3), np.float32)), msx.Tensor(np.ones((4, 5), np.float32)), axes=1)


def test_gradient_through_a_numpy_primitive():
    x = msx.Tensor(np.array([0.5, 1.0, 2.0], np.float32))
    g = msx.grad(lambda t: mnp.sum(mnp.cumsum(t) * mnp.trapz(t)))(x)
    import jax
    import jax.numpy as jnp

    want = jax.grad(lambda t: jnp.sum(jnp.cumsum(t) * jnp.trapezoid(t)))(jnp.asarray(x.asnumpy()))
    np.testing.assert_allclose(g.asnumpy(), np.asarray(want), rtol=1e-5)


# A sample of names under jit: shapes known at compile time (not unique/argwhere/bincount/..., whose result
# size depends on the values; those run eagerly, as in MindSpore's PyNative mode).
JIT_SAMPLE = ["trapz", "split", "pad", "where", "sin", "std", "tensordot", "meshgrid", "interp", "histogram",
              "average", "arange", "mean[int]", "piecewise", "apply_along_axis", "cov"]


def _inputs_of(name):
    """The numpy arrays a case turns into Tensors, in order, keyed by content (a case makes fresh ones)."""
    seen = []

    def T(a):
        seen.append(np.asarray(a))
        return msx.Tensor(a)

    CASES[name](mnp, T)
    return seen


@pytest.mark.parametrize("mode", ["ast", "bytecode", "trace"])
@pytest.mark.parametrize("name", JIT_SAMPLE)
def test_jit_equals_eager(name, mode):
    arrays = _inputs_of(name)
    index = {(a.shape, a.dtype.str, a.tobytes()): i for i, a in enumerate(arrays)}
    case = CASES[name]

    def run(*xs):
        return case(mnp, lambda a: xs[index[(np.shape(a), np.asarray(a).dtype.str, np.asarray(a).tobytes())]])

    tensors = [msx.Tensor(a) for a in arrays]
    want = to_numpy(case(mnp, msx.Tensor))
    jf = msx.jit(run, capture_mode=mode, fullgraph=True)
    for _ in range(2):  # the capturing call and a compiled one
        got = to_numpy(jf(*tensors))
        for g, w in zip(got if isinstance(got, list) else [got], want if isinstance(want, list) else [want]):
            assert np.asarray(g).dtype == np.asarray(w).dtype, (name, mode)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=f"{name} {mode}")
    if arrays:
        ops = {n.op for n in jf.capture(*tensors).nodes}
        assert ops, f"{name}: nothing captured in {mode}"
