"""The bad-input table: every case is refused with an msx error that names the op and teaches, in every mode.

Each case is (id, function, input factory, expected error class, words the message must contain). It runs
eagerly and under `msx.jit(fn, capture_mode=...)` for ast, bytecode and trace. Every run must raise the
expected msx error class (never a raw jax/XLA/Python error, never an accepted bad input), with a message free
of jax/XLA internals, pointing at the user's line (the case's own line in this file).

Indices and labels in the table are constants inside the function, so their values are known when the graph is
captured; `test_unknown_values_under_jit` covers values that arrive as arguments (docs/errors.md: out-of-range
reads inside a compiled graph give NaN, a NaN loss, ...).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

import msx
from msx import Tensor, mint, nn, ops
from msx.errors import BackendError, MsxError, OpError, OpIndexError, OpMemoryError, OpTypeError

MODES = ("eager", "ast", "bytecode", "trace")
STAGES = {"eager": "run", "ast": "capture: ast", "bytecode": "capture: bytecode", "trace": "capture"}
INTERNALS = ("jax", "xla", "traceback", "jnp.", "lax.", "jaxlib", "abstract array", "tracer")


@dataclass(frozen=True)
class Case:
    id: str
    fn: Callable
    inputs: Callable[[], tuple]
    error: type
    words: tuple[str, ...]
    xfail: tuple[tuple[str, str], ...] = ()  # (mode, what capture-side work is missing)


def x34():
    return (Tensor(np.arange(12, dtype=np.float32).reshape(3, 4)),)


def img():
    return (Tensor(np.ones((1, 1, 3, 3), np.float32)),)


def logits():
    return (Tensor(np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)),)


def ids():
    return (Tensor(np.array([0, 1], np.int32)),)


def i32(*v):
    return Tensor(np.array(v, np.int32))


def ones1():
    return Tensor(np.ones(1, np.float32))


_DENSE, _CONV, _BN, _LN = nn.Dense(5, 2), nn.Conv2d(2, 2, 3), nn.BatchNorm2d(3), nn.LayerNorm((5,))
_EMB, _EMB1H, _MAXP, _AVGP = nn.Embedding(4, 2), nn.Embedding(4, 2, use_one_hot=True), nn.MaxPool2d(5), nn.AvgPool2d(5)
_CE, _CE_IGN, _NLL = nn.CrossEntropyLoss(), nn.CrossEntropyLoss(ignore_index=7), nn.NLLLoss()
_SCE = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
_CONV5 = nn.Conv2d(1, 1, 5, pad_mode="valid")

R, T, E, M = OpIndexError, OpTypeError, OpError, OpMemoryError
CASES = [
    # ---------------------------------------------------------------- indexing (values known: constants)
    Case("getitem_tensor_9", lambda x: x[Tensor(9)], x34, R, ("getitem", "9", "[-3, 3)")),
    Case("getitem_tensor_-4", lambda x: x[Tensor(-4)], x34, R, ("getitem", "-4", "[-3, 3)")),
    Case("getitem_tensor_list", lambda x: x[i32(0, 5)], x34, R, ("getitem", "5", "[-3, 3)")),
    Case("getitem_tensor_dim1", lambda x: x[:, Tensor(4)], x34, R, ("getitem", "4", "dim 1", "[-4, 4)")),
    Case("getitem_int", lambda x: x[9], x34, R, ("getitem", "9", "out of bounds")),
    Case("getitem_int_dim1", lambda x: x[0, 7], x34, R, ("getitem", "7", "dim 1")),
    Case("getitem_too_many", lambda x: x[0, 0, 0], x34, R, ("getitem", "too many indices")),
    Case("setitem_tensor", lambda x: _setitem(x * 1, Tensor(5)), x34, R, ("setitem", "5", "[-3, 3)")),
    Case("setitem_int", lambda x: _setitem(x * 1, 3), x34, R, ("setitem", "3", "out of bounds")),
    Case("gather", lambda x: ops.gather(x, i32(0, 7), 0), x34, R, ("gather", "7", "[0, 3)")),
    Case("gather_axis1", lambda x: ops.gather(x, i32(4), 1), x34, R, ("gather", "4", "[0, 4)", "axis 1")),
    Case("gather_negative", lambda x: ops.gather(x, i32(-1), 0), x34, R, ("gather", "-1", "[0, 3)")),
    Case("gather_class", lambda x: ops.Gather()(x, i32(3), 0), x34, R, ("gather", "3", "[0, 3)")),
    Case("index_select", lambda x: ops.index_select(x, 0, i32(0, 9)), x34, R, ("index_select", "9", "[0, 3)")),
    Case("mint_index_select", lambda x: mint.index_select(x, 1, i32(6)), x34, R, ("index_select", "6", "[0, 4)")),
    Case("tensor_index_select", lambda x: x.index_select(0, i32(3)), x34, R, ("index_select", "3", "[0, 3)")),
    Case("index_select_float", lambda x: ops.index_select(x, 0, Tensor(np.array([0.5], np.float32))), x34, T,
         ("index_select", "integer")),
    Case("gather_nd", lambda x: ops.gather_nd(x, i32([0, 7])), x34, R, ("gathernd", "7", "[0, 4)", "dim 1")),
    Case("gather_nd_row", lambda x: ops.gather_nd(x, i32([5, 0])), x34, R, ("gathernd", "5", "[0, 3)")),
    Case("gather_elements", lambda x: ops.gather_elements(x, 1, Tensor(np.full((3, 1), 9, np.int32))), x34, R,
         ("gatherd", "9", "[-4, 4)")),
    Case("take", lambda x: ops.take(x, i32(99)), x34, R, ("take", "99", "[-12, 12)")),
    Case("embedding_const", lambda i: _EMB(i32(0, 7)), ids, R, ("embedding(4, 2)", "7", "[0, 4)")),
    Case("embedding_negative", lambda i: _EMB(i32(-2)), ids, R, ("embedding(4, 2)", "-2", "[0, 4)")),
    Case("embedding_one_hot", lambda i: _EMB1H(i32(5)), ids, R, ("embedding(4, 2)", "5", "[0, 4)")),
    Case("embedding_float_ids", lambda i: _EMB(Tensor(np.array([0.0], np.float32))), ids, E,
         ("embedding(4, 2)", "integers", "float32")),
    # ---------------------------------------------------------------- losses: labels out of [0, C)
    Case("ce_loss_-3", lambda l: _CE(l, i32(-3, 1)), logits, R, ("crossentropy", "-3", "[0, 4)")),
    Case("ce_loss_5", lambda l: _CE(l, i32(5, 1)), logits, R, ("crossentropy", "5", "[0, 4)")),
    Case("ce_loss_ignore_other", lambda l: _CE_IGN(l, i32(7, 4)), logits, R, ("crossentropy", "4",
                                                                             "ignore_index=7")),
    Case("nll_loss_5", lambda l: _NLL(l, i32(1, 5)), logits, R, ("nllloss", "5", "[0, 4)")),
    Case("nll_loss_-3", lambda l: _NLL(l, i32(-3, 1)), logits, R, ("nllloss", "-3", "[0, 4)")),
    Case("ops_cross_entropy", lambda l: ops.cross_entropy(l, i32(4, 0)), logits, R, ("crossentropy", "4")),
    Case("ops_nll_loss", lambda l: ops.nll_loss(l, i32(0, 9)), logits, R, ("nllloss", "9")),
    Case("sparse_softmax_ce", lambda l: _SCE(l, i32(0, 8)), logits, R, ("crossentropy", "8", "[0, 4)")),
    Case("ce_target_shape", lambda l: _CE(l, i32(0, 1, 2)), logits, E, ("crossentropy", "target", "(3,)")),
    Case("ce_reduction", lambda l: ops.cross_entropy(l, i32(0, 1), reduction="avg"), logits, E,
         ("cross_entropy", "reduction", "'avg'")),
    # ---------------------------------------------------------------- shapes from attributes
    Case("pad_odd", lambda x: ops.pad(x, (1, 2, 3)), x34, E, ("pad", "(1, 2, 3)", "pairs")),
    Case("pad_too_many", lambda x: ops.pad(x, (1, 1, 1, 1, 1, 1)), x34, E, ("pad", "2-d", "pairs")),
    Case("pad_float", lambda x: ops.pad(x, (1.5, 1)), x34, T, ("padding", "float", "1.5")),
    Case("max_pool2d_kernel", lambda x: ops.max_pool2d(x, 5), img, E, ("maxpool", "(5, 5)", "(3, 3)")),
    Case("avg_pool2d_kernel", lambda x: ops.avg_pool2d(x, 5), img, E, ("avgpool", "(5, 5)", "(3, 3)")),
    Case("max_pool2d_padded", lambda x: ops.max_pool2d(x, 6, padding=1), img, E, ("maxpool", "(6, 6)", "(5, 5)")),
    Case("maxpool_layer", lambda x: _MAXP(x), img, E, ("maxpool", "(5, 5)", "(3, 3)")),
    Case("avgpool_layer", lambda x: _AVGP(x), img, E, ("avgpool", "(5, 5)", "(3, 3)")),
    Case("max_pool2d_rank", lambda x: ops.max_pool2d(x, 2), x34, E, ("maxpool", "4-d", "(3, 4)")),
    Case("reshape_float", lambda x: ops.reshape(x, (3.5, 4)), x34, T, ("reshape", "float", "3.5")),
    Case("reshape_str", lambda x: ops.reshape(x, "3,4"), x34, T, ("reshape", "str", "'3,4'")),
    Case("tensor_reshape_str", lambda x: x.reshape("3,4"), x34, T, ("reshape", "str", "'3,4'")),
    Case("tensor_reshape_float", lambda x: x.reshape(3.5, 4), x34, T, ("reshape", "float", "3.5")),
    Case("reshape_count", lambda x: ops.reshape(x, (5, 2)), x34, E, ("reshape", "12 elements", "(5, 2)")),
    Case("reshape_two_unknown", lambda x: ops.reshape(x, (-1, -1)), x34, E, ("reshape", "-1")),
    Case("broadcast_to_float", lambda x: ops.broadcast_to(x, (2.0, 3, 4)), x34, T, ("broadcast_to", "float")),
    Case("tile_float", lambda x: ops.tile(x, (1.5, 2)), x34, T, ("tile", "float", "1.5")),
    Case("transpose_str", lambda x: ops.transpose(x, "10"), x34, T, ("transpose", "str")),
    Case("flip_float", lambda x: ops.flip(x, (0.5,)), x34, T, ("flip", "float")),
    Case("transpose_perm", lambda x: ops.transpose(x, (0, 1, 2)), x34, E, ("transpose",)),
    # ---------------------------------------------------------------- creation: sizes and dtypes
    Case("ones_float", lambda x: ops.ones((2.5, 3)) + x, x34, T, ("ones", "float", "2.5")),
    Case("zeros_float", lambda x: ops.zeros((2.5, 3)) + x, x34, T, ("zeros", "float", "2.5")),
    Case("full_float", lambda x: ops.full((2.5, 3), 1.0) + x, x34, T, ("full", "float", "2.5")),
    Case("zeros_str", lambda x: ops.zeros("abc") + x, x34, T, ("zeros", "str", "'abc'")),
    Case("ones_negative", lambda x: ops.ones((-2, 3)) + x, x34, E, ("ones", "negative", "(-2, 3)")),
    Case("ones_huge", lambda x: ops.ones((2 ** 62,)) + x, x34, M, ("ones", "out of memory", "gib")),
    Case("zeros_overflow", lambda x: ops.zeros((2 ** 40, 2 ** 40)) + x, x34, M, ("zeros", "2**63-1")),
    Case("full_huge", lambda x: ops.full((2 ** 31, 2 ** 31), 2.0) + x, x34, M, ("full", "out of memory")),
    Case("full_str_value", lambda x: ops.full((2, 3), "a") + x, x34, T, ("full", "fill_value", "str")),
    Case("cast_bad_dtype", lambda x: ops.cast(x, "float7"), x34, T, ("float7",)),
    # raw errors before (issue 30 item 8); MindSpore 2.10 raises the builtin type named after "MS:"
    Case("uniform_negative", lambda x: ops.uniform((-2, 3), Tensor(0.0), Tensor(1.0)) + x, x34, E,  # MS: ValueError
         ("uniformreal", "negative", "(-2, 3)")),
    Case("standard_normal_negative", lambda x: ops.standard_normal((-2, 3)) + x, x34, E,  # MS: ValueError
         ("standardnormal", "negative", "(-2, 3)")),
    Case("tile_negative", lambda x: ops.tile(x, (-1, 2)), x34, E, ("tile", "dims", "negative")),  # MS: ValueError
    Case("arange_step_0", lambda x: ops.arange(0, 5, 0) + x, x34, E, ("range", "step", "0")),  # MS: ValueError
    # accepted before (issue 30 item 7); MindSpore 2.10's behaviour after "MS:"
    Case("tensor_scatter_update_oob", lambda x: ops.tensor_scatter_update(x, i32([5, 0]), ones1()),
         x34, R, ("tensorscatterupdate", "5", "[0, 3)")),  # MS: ValueError "indices out of range"
    Case("tensor_scatter_add_oob", lambda x: ops.tensor_scatter_add(x, i32([0, 9]), ones1()),
         x34, R, ("tensorscatteradd", "9", "[0, 4)")),  # MS: RuntimeError "... is out of range[3]"
    Case("scatter_nd_oob", lambda x: ops.scatter_nd(i32([5]), ones1(), (3,)) + x[0, :3],
         x34, R, ("scatternd", "5", "[0, 3)")),  # MS: RuntimeError "should be smaller than the value of shape"
    Case("conv2d_kernel_larger", lambda x: _CONV5(x), img, E,  # MS: ValueError "... must be >= kernel_size"
         ("conv2d", "(5, 5)", "(3, 3)")),
    Case("flatten_start_after_end", lambda x: ops.flatten(x, start_dim=1, end_dim=0), x34, E,  # MS: ValueError
         ("flatten", "start_dim 1", "end_dim 0")),
    Case("matmul_float_int", lambda x: ops.matmul(x, Tensor(np.ones((4, 2), np.int32))), x34, T,  # MS: TypeError
         ("matmul", "float32", "int32")),
    # MS 2.10 PyNative accepts it and returns -log p[0, t0] for every row (msx broadcast the label); refused
    Case("nll_loss_one_target", lambda l: ops.nll_loss(l, i32(1)), logits, E, ("nllloss", "(1,)", "(2, 4)")),
    # ---------------------------------------------------------------- types and dtypes
    Case("add_str", lambda x: x + "a", x34, E, ("add", "str", "'a'")),
    Case("ops_add_str", lambda x: ops.add(x, "a"), x34, E, ("add", "str")),
    Case("mul_str", lambda x: ops.mul(x, "b"), x34, E, ("mul", "str")),
    Case("matmul_str", lambda x: ops.matmul(x, "c"), x34, E, ("matmul", "str")),
    Case("one_hot_float", lambda x: ops.one_hot(Tensor(np.array([0.0, 1.0], np.float32)), 3), x34, T,
         ("onehot", "integers", "float32")),
    Case("one_hot_depth", lambda x: ops.one_hot(i32(0, 1), -1), x34, E, ("onehot", "depth", "-1")),
    # ---------------------------------------------------------------- shapes of inputs
    Case("matmul_shapes", lambda x: ops.matmul(x, x), x34, E, ("matmul", "(3, 4)")),
    Case("add_broadcast", lambda x: x + Tensor(np.ones((5,), np.float32)), x34, E, ("add", "(3, 4)", "(5,)")),
    Case("concat_shapes", lambda x: ops.concat((x, Tensor(np.ones((3, 5), np.float32))), 0), x34, E,
         ("concat", "(3, 5)")),
    Case("reduce_axis", lambda x: ops.reduce_sum(x, 5), x34, E, ("reducesum", "5")),
    Case("sum_axis", lambda x: ops.sum(x, 5), x34, E, ("reducesum", "axis 5", "rank 2")),  # MS: ValueError
    Case("mean_axis", lambda x: ops.mean(x, 5), x34, E, ("reducemean", "axis 5", "rank 2")),  # MS: ValueError
    Case("sum_axis_float", lambda x: ops.sum(x, 1.5), x34, T, ("reducesum", "axis", "1.5")),  # MS: TypeError
    Case("mean_axis_str", lambda x: ops.mean(x, "a"), x34, T, ("mean", "axis", "'a'")),  # MS: TypeError
    Case("split_axis", lambda x: ops.split(x, 2, axis=5), x34, E, ("split", "axis 5", "rank 2")),  # MS: ValueError
    Case("split_axis_float", lambda x: ops.split(x, 2, axis=1.5), x34, T, ("split", "axis", "1.5")),  # MS: TypeError
    Case("softmax_axis", lambda x: ops.softmax(x, 3), x34, E, ("softmax",)),
    # ---------------------------------------------------------------- layers
    Case("dense", lambda x: _DENSE(x), x34, E, ("dense(5 -> 2)", "(3, 4)", "in_channels 5")),
    Case("conv2d", lambda x: _CONV(x), img, E, ("conv2d", "(1, 1, 3, 3)", "in_channels 2")),
    Case("batchnorm2d", lambda x: _BN(x), img, E, ("batchnorm2d", "(1, 1, 3, 3)", "num_features 3")),
    Case("layernorm", lambda x: _LN(x), x34, E, ("layernorm", "(3, 4)", "(5,)")),
    # MindSpore 2.10: "For 'MatMul', the type of 'x2' should be same as 'x1'" / "For primitive[Conv2D], the
    # input type must be same" -- a float64 input never silently trains float32 weights in float64
    Case("dense_float64", lambda x: _DENSE(x), lambda: (Tensor(np.ones((3, 5))),), T, ("float64", "astype")),
    Case("conv2d_float64", lambda x: _CONV(x), lambda: (Tensor(np.ones((1, 2, 4, 4))),), T, ("float64",)),
    # MindSpore 2.10: "For 'CrossEntropyLoss', the 'labels' should be Int32, but got 'mindspore.float32'"
    Case("ce_float_labels", lambda x: _CE(x, Tensor(np.array([0.0, 1.0], np.float32))), logits, E,
         ("probability target", "int32")),
]


def _setitem(t, index):
    t[index] = 0.0
    return t


def _run(case: Case, mode: str):
    inputs = case.inputs()
    if mode == "eager":
        return case.fn(*inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a capture falling back to eager warns; the error is what is checked
        return msx.jit(case.fn, capture_mode=mode)(*inputs)


def _params():
    for case in CASES:
        for mode in MODES:
            reason = dict(case.xfail).get(mode)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(case, mode, id=f"{case.id}-{mode}", marks=marks)


def test_table_is_large():
    assert len(CASES) >= 70 and len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case,mode", list(_params()))
def test_bad_input(case: Case, mode: str):
    with pytest.raises(BaseException) as info:
        _run(case, mode)
    err = info.value
    assert isinstance(err, MsxError), f"raw {type(err).__module__}.{type(err).__name__}: {err}"
    assert isinstance(err, case.error), f"{type(err).__name__} is not a {case.error.__name__}: {err}"
    message = err.message.lower()
    for word in case.words:
        assert word.lower() in message, f"{word!r} missing from: {err.message}"
    for internal in INTERNALS:
        assert internal not in message, f"internal wording {internal!r} in: {err.message}"
    # the user's line: the case's own lambda (a Python frame eagerly, the interpreted line under capture)
    assert err.loc is not None, f"no user line for: {err}"
    assert err.loc.file == __file__, str(err)
    assert err.loc.line == case.fn.__code__.co_firstlineno or err.loc.func == "_setitem", str(err)
    assert "^" in str(err)
    # raised while the graph is captured, the error says so; its text names the user's file and line
    assert err.stage == STAGES[mode], f"stage {err.stage!r}, not {STAGES[mode]!r}: {err}"
    assert f'File "{__file__}", line {err.loc.line}' in str(err), str(err)


# ---------------------------------------------------------------- values only known when the graph runs
def _gather(x, i):
    return ops.gather(x, i, 0)


def _getitem(x, i):
    return x[i]


def _gather_nd(x, i):
    return ops.gather_nd(x, i)


def _ce(l, t):
    return ops.cross_entropy(l, t)


def _nll(l, t):
    return ops.nll_loss(l, t)


def _embed(i):
    return _EMB(i + 6)


UNKNOWN = [  # (fn, inputs, what a compiled graph returns: a checker of the numpy result)
    (_getitem, lambda: (x34()[0], Tensor(9)), lambda r: np.isnan(r).all() and r.shape == (4,)),
    (_getitem, lambda: (x34()[0], Tensor(-4)), lambda r: np.isnan(r).all()),
    (_gather, lambda: (x34()[0], i32(0, 7)), lambda r: (r[0] == [0, 1, 2, 3]).all() and np.isnan(r[1]).all()),
    (_gather_nd, lambda: (x34()[0], i32([0, 7])), lambda r: np.isnan(r).all()),
    (_ce, lambda: (logits()[0], i32(5, 1)), lambda r: np.isnan(r)),
    (_ce, lambda: (logits()[0], i32(-3, 1)), lambda r: np.isnan(r)),
    (_nll, lambda: (logits()[0], i32(1, 5)), lambda r: np.isnan(r)),
    (_embed, lambda: (i32(0, -6),), lambda r: np.isnan(r[0]).all() and np.isfinite(r[1]).all()),
]


@pytest.mark.parametrize("k", range(len(UNKNOWN)))
def test_unknown_values_under_jit(k):
    """Eagerly refused; inside a compiled graph (the index is an argument) the documented fill: NaN, never a
    clamped or wrapped row (docs/errors.md)."""
    fn, inputs, compiled_ok = UNKNOWN[k]
    with pytest.raises(OpIndexError):
        fn(*inputs())
    # every mode builds the same graph, so the compiled result is the backend's: all modes for the first two
    for mode in ("ast", "bytecode", "trace") if k < 2 else ("trace",):
        assert compiled_ok(msx.jit(fn, capture_mode=mode)(*inputs()).asnumpy()), mode


def test_in_range_values_still_work():
    """The checks refuse only what is out of range: in-range, negative-where-allowed and ignore_index pass."""
    x = x34()[0]
    np.testing.assert_array_equal(x[Tensor(-1)].asnumpy(), x.asnumpy()[-1])
    np.testing.assert_array_equal(ops.gather(x, i32(2, 0), 0).asnumpy(), x.asnumpy()[[2, 0]])
    np.testing.assert_array_equal(ops.index_select(x, 1, i32(3)).asnumpy(), x.asnumpy()[:, [3]])
    l, = logits()
    ref = -np.log(np.exp(l.asnumpy()[1, 2]) / np.exp(l.asnumpy()[1]).sum())
    for mode in (None, "trace"):
        fn = (lambda a, t: _CE_IGN(a, t)) if mode is None else msx.jit(lambda a, t: _CE_IGN(a, t), capture_mode=mode)
        np.testing.assert_allclose(fn(l, i32(7, 2)).asnumpy(), ref, rtol=1e-5)
    assert ops.one_hot(i32(0, 5), 3).asnumpy().tolist() == [[1, 0, 0], [0, 0, 0]]  # MindSpore: a row of off_value


def test_resource_exhausted_is_an_msx_error():
    """XLA's RESOURCE_EXHAUSTED while an op runs is an OpMemoryError naming the op and the inputs."""
    prim = msx.ops.primitive.REGISTRY["Tile"]
    original = prim.impl

    def exhausted(*args, **attrs):
        raise RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 40000000000 bytes.")

    object.__setattr__(prim, "impl", exhausted)  # a frozen dataclass: the registry entry, patched for this test
    try:
        with pytest.raises(OpMemoryError) as info:
            ops.tile(x34()[0], (2, 2))
    finally:
        object.__setattr__(prim, "impl", original)
    assert "Tile: out of memory" in info.value.message and "37.3 GiB" in info.value.message
    assert "float32(3, 4)" in info.value.message and "RESOURCE_EXHAUSTED" not in info.value.message


def test_graph_too_large_for_the_device(monkeypatch):
    """A graph that cannot fit is refused before XLA compiles it, naming the node and sizes (a 50000x50000
    matmul on a small machine); here the device is made 1 MiB small."""
    from msx.backends import xla

    monkeypatch.setattr(xla, "device_memory", lambda platform: 2 ** 20)

    def f(a):
        return ops.matmul(a, a)

    a = Tensor(np.ones((400, 400), np.float32))  # 625 KiB each: the input a and a @ a need 1.22 MiB at once
    for mode in ("ast", "bytecode", "trace"):
        with pytest.raises(BackendError) as info:
            msx.jit(f, capture_mode=mode)(a)
        assert "MatMul" in info.value.message and "out of memory" in info.value.message
        assert info.value.loc is not None and info.value.loc.func == "f"


@pytest.mark.parametrize("make", [
    lambda: ops.uniform((2 ** 40, 2 ** 30), Tensor(0.0), Tensor(1.0)),
    lambda: ops.normal((2 ** 62,)),
    lambda: ops.eye(2 ** 40, 2 ** 40),
    lambda: ops.broadcast_to(Tensor(np.ones((1,), np.float32)), (2 ** 40, 2 ** 30)),
    lambda: ops.tile(Tensor(np.ones((2, 2), np.float32)), (2 ** 31, 2 ** 31)),
], ids=["uniform", "normal", "eye", "broadcast_to", "tile"])
def test_sizes_checked_before_xla(make):
    """Any op that makes a tensor of an attribute-given shape asks `msx.sizes` first: XLA would abort."""
    with pytest.raises(OpMemoryError, match="out of memory|at most 2"):
        make()


def test_layer_checks_keep_one_graph_under_bytecode():
    """A layer's range check reads only what capture knows (`known_value`): Embedding's check on a graph input
    is no graph break, so `fullgraph=True` holds, and the compiled rows are the eager ones."""
    ids_ = i32(3, 0)
    f = msx.jit(lambda i: _EMB(i), capture_mode="bytecode", fullgraph=True)
    np.testing.assert_array_equal(f(ids_).asnumpy(), _EMB(ids_).asnumpy())


# ---------------------------------------------------------------- sizes: eager results and construction
_HUGE = [  # each asked XLA for terabytes: the process aborted (SIGABRT) on the first read, or no check at all
    ("matmul", lambda: ops.matmul(Tensor(np.ones((300000, 1), np.float32)), Tensor(np.ones((1, 300000), np.float32))),
     "MatMul", "(300000, 300000)"),
    ("one_hot", lambda: ops.one_hot(i32(1, 2), 2 ** 40, Tensor(1.0), Tensor(0.0)), "OneHot", "(2, 1099511627776)"),
    ("dense", lambda: nn.Dense(10 ** 6, 10 ** 6), "Dense(1000000 -> 1000000): weight_init", "(1000000, 1000000)"),
    ("embedding", lambda: nn.Embedding(10 ** 9, 1024), "Embedding(1000000000, 1024): embedding_table",
     "(1000000000, 1024)"),
    ("conv2d", lambda: nn.Conv2d(10 ** 5, 10 ** 5, 11), "Conv2d(in_channels=100000", "(100000, 100000, 11, 11)"),
    ("tensor_init", lambda: Tensor(shape=(2 ** 40,), dtype=msx.float32, init=nn.initializer.One()), "Tensor",
     "(1099511627776,)"),
    ("tensor_shape", lambda: Tensor(shape=(2 ** 40,), dtype=msx.float32), "Tensor", "(1099511627776,)"),
    ("initializer", lambda: msx.Parameter(nn.initializer.initializer("normal", [10 ** 6, 10 ** 6])), "initializer",
     "(1000000, 1000000)"),
]


@pytest.mark.parametrize("make,op,shape", [c[1:] for c in _HUGE], ids=[c[0] for c in _HUGE])
def test_sizes_checked_eagerly_and_at_construction(make, op, shape):
    """Refused before anything is allocated, naming the op (or layer and argument), the shape, the bytes asked
    and the bytes the device has, at the user's line (MindSpore: a MemoryError for `Tensor(init=...)` read)."""
    with pytest.raises(OpMemoryError) as info:
        make()
    message = info.value.message
    assert message.startswith(op) and shape in message and "out of memory" in message, message
    assert "GiB, more than the" in message and info.value.loc.file == __file__


def test_the_eager_size_check_is_the_compiled_one():
    """The matmul jit refuses before compiling is refused eagerly too; the same op at a size that fits runs."""
    a, b = Tensor(np.ones((300000, 1), np.float32)), Tensor(np.ones((1, 300000), np.float32))
    with pytest.raises(BackendError, match="out of memory"):
        msx.jit(lambda p, q: ops.matmul(p, q), capture_mode="ast")(a, b)
    with pytest.raises(OpMemoryError, match="out of memory"):
        ops.matmul(a, b)
    small = ops.matmul(Tensor(np.ones((3, 1), np.float32)), Tensor(np.ones((1, 3), np.float32)))
    np.testing.assert_array_equal(small.asnumpy(), np.ones((3, 3), np.float32))


@pytest.mark.parametrize("make,word", [
    (lambda: nn.Dense(None, 3), "NoneType"),  # MS: TypeError "the 'in_channels' must be int, but got 'NoneType'"
    (lambda: nn.Dense(4.5, 3), "4.5"),  # MS: TypeError (msx truncated it to 4 before)
    (lambda: nn.Dense(4, "3"), "str"),  # MS: TypeError
], ids=["none", "float", "str"])
def test_dense_channels_must_be_ints(make, word):
    with pytest.raises(OpTypeError) as info:
        make()
    assert isinstance(info.value, TypeError) and info.value.message.startswith("Dense: ")
    assert word in info.value.message and info.value.loc.file == __file__


def test_lamb_betas_are_checked():
    params = nn.Dense(2, 2).trainable_params()
    with pytest.raises(ValueError, match="Lamb: beta1"):  # MS: ValueError "'beta1' must be in range of (0.0, 1.0)"
        nn.Lamb(params, 0.1, beta1=-1.0)
    with pytest.raises(ValueError, match="Lamb: beta1 and beta2"):
        nn.Lamb(params, 0.1, beta2=1.5)
    assert nn.Lamb(params, 0.1, beta1=0.8).beta1 == 0.8


def test_a_numpy_array_into_a_cell_names_the_layer():
    """MindSpore 2.10: "For primitive[Shape], the input argument must be Tensor, but got numpy.ndarray"."""
    with pytest.raises(OpTypeError, match="(?s)'fc'.*must be a msx Tensor, got ndarray.*msx.Tensor") as info:
        _NET_FC(np.ones((3, 5), np.float32))
    assert info.value.loc is not None and info.value.loc.file == __file__


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(5, 2)

    def construct(self, x):
        return self.fc(x)


_NET_FC = _Net()


def test_float64_layers_take_float64_inputs():
    """What the float64 refusal teaches works: a layer built in float64 computes in float64."""
    out = nn.Dense(5, 2, dtype=msx.float64)(Tensor(np.ones((3, 5))))
    assert out.dtype == msx.float64
