"""One declaration per op generates its public views: names, signatures and behaviour of those views."""
import inspect
import json
import os
import re

import numpy as np
import pytest

import msx
from msx import mint, ops
from msx.ops import api
from msx.ops.api import SURFACE, Api, Attr

SIGS = json.load(open(os.path.join(os.path.dirname(__file__), "oracle", "mindspore_signatures.json")))["signatures"]
# MindSpore parameters msx does not take yet, each with the reason (everything else must match)
MISSING_PARAMS: dict[str, str] = {}  # "mindspore.ops.X": why msx's X lacks one of MindSpore's parameters


def _ours(obj) -> list[str] | None:
    try:
        target = obj.__init__ if inspect.isclass(obj) else obj
        params = [p for n, p in inspect.signature(target).parameters.items() if n != "self"]
        if [p.kind for p in params] == [inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD]:
            return None  # a name msx has only so that imports work: it takes anything and raises MsxError
        return [p.name for p in params]
    except (TypeError, ValueError):
        return None


MODULES = [(ops, "mindspore.ops"), (mint, "mindspore.mint"), (mint.nn.functional, "mindspore.mint.nn.functional"),
           (msx.nn, "mindspore.nn"), (msx, "mindspore")]
# msx defaults that are spelled differently from MindSpore's and mean the same, each with why (the test below
# calls a few both ways); a parameter MindSpore requires may have a default in msx
SAME_DEFAULT = {
    "mindspore.ops.Argmax.output_type": "None is int32, MindSpore's default",
    "mindspore.ops.Argmin.output_type": "None is int32, MindSpore's default",
    "mindspore.ops.BartlettWindow.dtype": "None is float32", "mindspore.ops.BlackmanWindow.dtype": "None is float32",
    "mindspore.ops.HammingWindow.dtype": "None is float32", "mindspore.ops.LogSpace.dtype": "None is float32",
    "mindspore.ops.logspace.dtype": "None is float32", "mindspore.ops.uniform.dtype": "None is float32",
    "mindspore.ops.tril_indices.dtype": "None is int64", "mindspore.ops.triu_indices.dtype": "None is int64",
    "mindspore.ops.reduce_max.axis": "None is every axis, as ()", "mindspore.ops.reduce_min.axis": "None is (): all",
    "mindspore.ops.reduce_mean.axis": "None is (): all", "mindspore.ops.reduce_sum.axis": "None is (): all",
    "mindspore.mint.amax.dim": "None is (): all", "mindspore.mint.amin.dim": "None is (): all",
    "mindspore.mint.topk.dim": "None is the last dim, as -1",
}


def _params(sig: str) -> list[tuple[str, str | None]]:
    """(name, default as written or None when required) of a recorded MindSpore signature."""
    inner = sig.split(" -> ")[0].strip()[1:-1]
    out = []
    for p in re.split(r",\s*(?![^()\[\]]*[\)\]])", inner):
        p = p.strip()
        if p and p not in ("*", "/"):
            out.append((p.split("=")[0].split(":")[0].strip(), p.split("=", 1)[1].strip() if "=" in p else None))
    return out


def _spelling(default: str) -> str:
    """A default's text with MindSpore's and msx's spellings of one value made equal: quotes, `mindspore.`,
    dtype case (`Float32`/`mindspore.float32`/`'float32'`), 0 vs 0.0, [] vs ()."""
    text = re.sub(r"^mindspore\.", "", default.replace('"', "'")).strip("'").lower()
    try:
        return repr(float(text))
    except ValueError:
        return "()" if text == "[]" else text


def _compared(module, ms_module):
    for key in sorted(SIGS):
        owner, name = key.rsplit(".", 1)
        if owner != ms_module or key in MISSING_PARAMS or getattr(module, name, None) is None:
            continue
        theirs = _params(SIGS[key])
        if any(p.startswith("*") for p, _ in theirs):
            continue  # MindSpore's own signature is opaque (*args)
        if _ours(getattr(module, name)) is not None:
            yield key, getattr(module, name), theirs


@pytest.mark.parametrize("module,ms_module", MODULES)
def test_signatures_start_with_mindspores_parameters(module, ms_module):
    """Every msx name MindSpore also has takes MindSpore's parameters, by name and in order (extras may follow)."""
    bad = []
    for key, obj, theirs in _compared(module, ms_module):
        ours = _ours(obj)
        if ours[:len(theirs)] != [p for p, _ in theirs]:
            bad.append(f"{key}: msx {ours} vs MindSpore {[p for p, _ in theirs]}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("module,ms_module", MODULES)
def test_defaults_are_mindspores(module, ms_module):
    """...and with MindSpore's defaults: a ported call that leaves an argument out gets MindSpore's value."""
    bad = []
    for key, obj, theirs in _compared(module, ms_module):
        target = obj.__init__ if inspect.isclass(obj) else obj
        ours = {n: p.default for n, p in inspect.signature(target).parameters.items()}
        for param, default in theirs:
            mine = ours.get(param, inspect.Parameter.empty)
            if default is None or f"{key}.{param}" in SAME_DEFAULT:
                continue  # MindSpore requires it (msx may default it), or a spelling of the same value
            if mine is inspect.Parameter.empty or _spelling(repr(mine)) != _spelling(default):
                bad.append(f"{key}({param}=...): msx {'required' if mine is inspect.Parameter.empty else repr(mine)}"
                           f" vs MindSpore {default}")
    assert not bad, "\n".join(bad)


def test_the_defaults_spelled_differently_mean_the_same():
    x = msx.Tensor(np.array([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]], np.float32))
    assert ops.Argmax()(x).dtype == ops.Argmax(output_type=msx.int32)(x).dtype == msx.int32
    assert ops.BartlettWindow()(msx.Tensor(np.int32(4))).dtype == msx.float32
    assert ops.tril_indices(3, 3).dtype == msx.int64
    np.testing.assert_array_equal(ops.reduce_sum(x).asnumpy(), ops.reduce_sum(x, ()).asnumpy())
    np.testing.assert_array_equal(mint.amax(x).asnumpy(), mint.amax(x, ()).asnumpy())
    np.testing.assert_array_equal(mint.topk(x, 1)[0].asnumpy(), mint.topk(x, 1, -1)[0].asnumpy())
    assert ops.uniform((2,), msx.Tensor(0.0), msx.Tensor(1.0)).dtype == msx.float32


def test_ops_exports_only_mindspore_surface():
    for leak in ("jnp", "apply", "np", "jax", "Sequence"):
        assert not hasattr(ops, leak) or leak in ops.__all__, leak
    assert all(hasattr(ops, n) for n in ops.__all__)
    assert {"sin", "Sin", "ReduceSum", "Tensor", "Primitive", "GradOperation"} <= set(ops.__all__)
    assert all(hasattr(mint, n) for n in mint.__all__) and all(hasattr(ops.functional, n) for n in ops.functional.__all__)
    assert ops.functional.__all__ == sorted(SURFACE["ops"])


def test_operations_composite_functional_modules_import_as_in_mindspore():
    from msx.ops import functional as F
    from msx.ops import operations as P

    assert P.Sin is ops.Sin and F.sin is ops.sin and issubclass(P.Add, ops.Primitive)


def test_generated_function_has_mindspore_signature_and_metadata():
    assert str(inspect.signature(ops.reduce_sum)) == "(x, axis=None, keep_dims=False)"
    assert ops.sin.__name__ == "sin" and "Sin" in ops.sin.__doc__
    assert str(inspect.signature(ops.round)) == "(input, *, decimals=0)"


def test_keywords_defaults_and_python_style_errors():
    x = msx.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_allclose(ops.reduce_sum(x=x, axis=1).asnumpy(), [3, 12])
    np.testing.assert_allclose(ops.reduce_sum(x, keep_dims=True).asnumpy(), [[15]])
    np.testing.assert_allclose(ops.round(x / 4, decimals=1).asnumpy(), np.round(np.arange(6).reshape(2, 3) / 4, 1),
                               rtol=1e-6)
    with pytest.raises(TypeError, match="unexpected keyword argument 'axes'"):
        ops.reduce_sum(x, axes=1)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        ops.reduce_sum(x, x=x)
    with pytest.raises(TypeError, match="missing required argument 'other'"):
        ops.add(x)
    with pytest.raises(TypeError, match="positional"):
        ops.round(x, 1)  # decimals is keyword-only, as in MindSpore
    with pytest.raises(TypeError, match="positional"):
        ops.sin(x, x)


def test_one_declaration_reaches_every_view():
    x = msx.Tensor(np.array([0.5, -1.0], np.float32))
    want = np.sin(np.array([0.5, -1.0], np.float32))
    for got in (ops.sin(x), ops.functional.sin(x), ops.Sin()(x), ops.operations.Sin()(x), x.sin(), mint.sin(x)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    assert ops.Sin in SURFACE["cls"].values() and x.sin.__func__ is ops.sin


def test_class_style_attrs_repr_and_constructor_binding():
    r = ops.ReduceMean(keep_dims=True)
    assert r.keep_dims is True and r.attrs == {"keep_dims": True} and repr(r) == "Prim[ReduceMean](keep_dims=True)"
    assert repr(ops.Sin()) == "Prim[Sin]" and isinstance(ops.Sin(), ops.Primitive)
    with pytest.raises(TypeError, match="unexpected keyword"):
        ops.ReduceMean(keepdims=True)
    s = ops.Squeeze(1)  # MindSpore's class default axis=() (all size-1 dims)
    assert s(msx.Tensor(np.zeros((2, 1, 3)))).shape == (2, 3) and ops.Squeeze()(msx.Tensor(np.zeros((1, 2, 1)))).shape == (2,)
    x = msx.Tensor(np.ones((2, 3), np.float32))
    assert ops.ReduceSum(skip_mode=True)(x).shape == (2, 3) and ops.ReduceSum()(x).shape == ()


def test_surface_refuses_duplicate_names():
    surface = api.Surface()
    surface.add("ops", "f", len)
    surface.add("ops", "f", len)  # the same object again is fine
    with pytest.raises(ValueError, match="declared twice"):
        surface.add("ops", "f", abs)


def test_build_function_from_a_declaration():
    prim = msx.ops.get_primitive("ReduceMax")
    fn = api.build_function(prim, Api("mymax", attrs=(Attr("dim", api.REQUIRED, int, to="axis"),
                                                      Attr("keepdim", False, bool, to="keepdims"))), "mymax")
    x = msx.Tensor(np.array([[1.0, 5.0], [3.0, 2.0]], np.float32))
    np.testing.assert_allclose(fn(x, 1).asnumpy(), [5, 3])
    assert fn(x, dim=0, keepdim=True).shape == (1, 2)
    with pytest.raises(TypeError, match="missing required argument 'dim'"):
        fn(x)


def test_tensor_methods_and_operators_come_from_declarations():
    x = msx.Tensor(np.array([1.0, 4.0], np.float32))
    assert (x + 1).asnumpy().tolist() == [2, 5]
    np.testing.assert_allclose((2 ** x).asnumpy(), [2, 16], rtol=1e-6)   # pow: XLA's, not exact by contract
    assert x.sqrt().asnumpy().tolist() == [1, 2] and x.subtract(x, alpha=2).asnumpy().tolist() == [-1, -4]
    assert "__add__" in SURFACE["operator"] and "sqrt" in SURFACE["tensor"]


def test_in_place_relu_rebinds_the_input():
    x = msx.Tensor(np.array([-1.0, 2.0], np.float32))
    out = ops.relu(x, inplace=True)
    assert out is x and x.asnumpy().tolist() == [0, 2]


def test_amax_initial_and_where():
    x = msx.Tensor(np.array([[1.0, 7.0], [3.0, 2.0]], np.float32))
    mask = msx.Tensor(np.array([[True, False], [True, True]]))
    np.testing.assert_allclose(ops.amax(x, 1, initial=2.5).asnumpy(), [7, 3])
    np.testing.assert_allclose(ops.amax(x, 1, where=mask, initial=0.0).asnumpy(), [1, 3])
    with pytest.raises(ValueError, match="initial"):
        ops.amax(x, where=mask)
    with pytest.raises(ValueError, match="amax"):
        ops.max(x, 0, initial=1.0)
