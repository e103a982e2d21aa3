"""The embedding-cache ops (`msx/ops/embedding_cache_ops.py`) against MindSpore 2.10's CPU answers
(`tests/golden_ops/embedding_cache_ms210.json`, recorded by `tests/golden_ops/record_embedding_cache.py`):
PadAndShift, SubAndFilter, UpdateCache, DynamicAssign and MapCacheIdx (its hash map entry for entry, and the
hashmap and step it writes). CacheSwapTable has no CPU kernel: it is checked against the data of MindSpore's
AiCPU kernel unit test (cache_swap_table_kernels), and under msx.jit."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import msx
from msx import Parameter, Tensor, ops
from msx.errors import MsxError, OpError, OpIndexError, OpTypeError

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "golden_ops", "embedding_cache_ms210.json")) as _f:
    GOLD = json.load(_f)
MODES = ("ast", "bytecode", "trace")


@pytest.mark.parametrize("key", sorted(GOLD["pad"]))
def test_pad_and_shift_matches_mindspore(key):
    c = GOLD["pad"][key]
    x, cum = Tensor(np.array(c["x"], c["dt"])), Tensor(np.array(c["cum"], c["dt"]))
    if "error" in c:  # MindSpore's kernel writes into a buffer of input_x's size
        with pytest.raises(OpError, match=r"PadAndShift: needs .* <= input_x's 4 elements"):
            ops.PadAndShift()(x, cum, c["idx"])
        return
    out = ops.PadAndShift()(x, cum, c["idx"])
    assert str(out.asnumpy().dtype) == c["dtype"]
    np.testing.assert_array_equal(out.asnumpy(), c["out"])


def test_pad_and_shift_bad_input():
    x, cum = Tensor(np.array([1, 2, 3, 4], np.int32)), Tensor(np.array([0, 1, 3], np.int32))
    with pytest.raises(OpIndexError, match=r"PadAndShift: shift_idx 2 is out of range \[0, 2\)"):
        ops.PadAndShift()(x, cum, 2)
    with pytest.raises(OpTypeError, match="PadAndShift: input_x must be an int32 or int64 Tensor, got float32"):
        ops.PadAndShift()(Tensor(np.ones(4, np.float32)), cum, 0)
    with pytest.raises(OpTypeError, match="PadAndShift: shift_idx must be an int"):
        ops.PadAndShift()(x, cum, 0.5)


@pytest.mark.parametrize("key", sorted(GOLD["sub"]))
def test_sub_and_filter_matches_mindspore(key):
    c = GOLD["sub"][key]
    res, idx = ops.SubAndFilter()(Tensor(np.array(c["x"], c["dt"])), c["max_num"], c["offset"])
    for got, want in ((res, c["res"]), (idx, c["idx"])):
        assert str(got.asnumpy().dtype) == c["dtype"]
        np.testing.assert_array_equal(got.asnumpy(), np.array(want, c["dtype"]))


def test_sub_and_filter_takes_scalar_tensors():
    x = Tensor(np.array([1, 3, 5, 8, 9, 16], np.int32))
    res, idx = ops.SubAndFilter()(x, Tensor(np.int32(10)), Tensor(np.int32(5)))
    np.testing.assert_array_equal(res.asnumpy(), GOLD["sub"]["sub"]["res"])
    np.testing.assert_array_equal(idx.asnumpy(), GOLD["sub"]["sub"]["idx"])


@pytest.mark.parametrize("mode", MODES)
def test_value_dependent_shapes_are_refused_inside_jit_by_name(mode):
    """PadAndShift, SubAndFilter and MapCacheIdx: the result's shape is known only from the values."""
    x = Tensor(np.array([1, 3, 5, 8, 9, 16], np.int32))
    cum = Tensor(np.array([0, 3, 5], np.int32))
    h = Parameter(Tensor(np.array(GOLD["map"]["map_miss"]["hashmap"], np.int32)), name="jh")
    s = Parameter(Tensor(np.array([3], np.int32)), name="js")
    keys = Tensor(np.array(GOLD["map"]["map_miss"]["indices"], np.int32))
    for name, fn, arg in (("SubAndFilter", lambda t: ops.SubAndFilter()(t, 10, 5), x),
                          ("PadAndShift", lambda t: ops.PadAndShift()(t, cum * 1, 1), x),
                          ("MapCacheIdx", lambda t: ops.MapCacheIdx()(h, t, s, 20, 0), keys)):
        with pytest.raises(MsxError, match=f"{name}: the result's shape depends on the input values"):
            msx.jit(fn, capture_mode=mode)(arg)


@pytest.mark.parametrize("mode", ("eager",) + MODES)
@pytest.mark.parametrize("key", sorted(GOLD["update"]))
def test_update_cache_writes_like_mindspore(key, mode):
    c = GOLD["update"][key]
    x = Parameter(Tensor(np.zeros((4, 2), c["dt"])), name="cache")
    upd = Tensor(np.arange(1, 1 + 2 * len(c["idx"])).reshape(len(c["idx"]), 2).astype(c["dt"]))

    def step(i, u):
        return ops.UpdateCache()(x, i, u, c["max_num"])

    out = (step if mode == "eager" else msx.jit(step, capture_mode=mode))(Tensor(np.array(c["idx"], np.int32)), upd)
    np.testing.assert_array_equal(x.asnumpy(), np.array(c["after"], c["dt"]))
    assert out.shape == (1,) and str(out.asnumpy().dtype) == c["dt"]


@pytest.mark.parametrize("mode", ("eager",) + MODES)
@pytest.mark.parametrize("key", sorted(GOLD["assign"]))
def test_dynamic_assign_casts_and_writes(key, mode):
    c = GOLD["assign"][key]
    x = Parameter(Tensor(np.zeros((2, 2), np.float32)), name="v")
    out = (lambda t: ops.DynamicAssign()(x, t)) if mode == "eager" else msx.jit(
        lambda t: ops.DynamicAssign()(x, t), capture_mode=mode)
    got = out(Tensor(np.array(c["value"], c["dt"])))
    np.testing.assert_array_equal(x.asnumpy(), np.array(c["after"], np.float32))
    np.testing.assert_array_equal(got.asnumpy(), np.array(c["after"], np.float32))
    with pytest.raises(OpError, match=r"DynamicAssign: value must have variable's shape \(2, 2\)"):
        ops.DynamicAssign()(x, Tensor(np.ones((3, 2), np.float32)))


# The data of MindSpore's AiCPU CacheSwapTable unit test (5 swap indices into a (10, 4) table, -1 skipped)
_TABLE = np.array([0, 0, 0, 0, 10, 5, 0, 1, 2, 1, 0, 1, 15, 7, -5, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                   3, 3, 0, 1, 21, 9, -5, 1], np.float32).reshape(10, 4)
_SWAP = np.array([-1, -1, 2, 3, -1], np.int64)
_MISS = np.array([0, 0, 0, 0, 0, 0, 0, 0, 22, 22, 22, 22, 33, 33, 33, 33, 11, 11, 11, 11], np.float32).reshape(5, 4)
_OLD = np.array([0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 1, 15, 7, -5, 2, 0, 0, 0, 0], np.float32).reshape(5, 4)
_AFTER = np.array([0, 0, 0, 0, 10, 5, 0, 1, 22, 22, 22, 22, 33, 33, 33, 33, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                   0, 0, 0, 3, 3, 0, 1, 21, 9, -5, 1], np.float32).reshape(10, 4)


@pytest.mark.parametrize("mode", ("eager",) + MODES)
def test_cache_swap_table_aicpu_unit_test_data(mode):
    table = Parameter(Tensor(_TABLE.copy()), name="table")

    def step(i, m):
        return ops.CacheSwapTable()(table, i, m)

    old = (step if mode == "eager" else msx.jit(step, capture_mode=mode))(Tensor(_SWAP), Tensor(_MISS))
    np.testing.assert_array_equal(old.asnumpy(), _OLD)
    np.testing.assert_array_equal(table.asnumpy(), _AFTER)


def test_cache_swap_table_out_of_range_is_an_error():
    table = Parameter(Tensor(_TABLE.copy()), name="table")
    with pytest.raises(OpIndexError, match=r"CacheSwapTable: swap_cache_idx value 10 is out of range \[0, 10\)"):
        ops.CacheSwapTable()(table, Tensor(np.array([1, 10], np.int32)), Tensor(_MISS[:2]))
    np.testing.assert_array_equal(table.asnumpy(), _TABLE)


@pytest.mark.parametrize("key", sorted(GOLD["map"]))
def test_map_cache_idx_matches_mindspore(key):
    c = GOLD["map"][key]
    h = Parameter(Tensor(np.array(c["hashmap"], np.int32)), name="hashmap")
    s = Parameter(Tensor(np.array([c["step"]], np.int32)), name="step")
    outs = ops.MapCacheIdx()(h, Tensor(np.array(c["indices"], np.int32)), s, c["emb_max_num"], c["offset"])
    assert len(outs) == 4
    for got, want in zip(outs, c["outs"]):
        assert got.asnumpy().dtype == np.int32
        np.testing.assert_array_equal(got.asnumpy(), np.array(want, np.int32).reshape(got.shape))
    np.testing.assert_array_equal(h.asnumpy(), c["hashmap_after"])
    np.testing.assert_array_equal(s.asnumpy(), c["step_after"])


def test_map_cache_idx_full_hashmap_and_bad_input():
    h = Parameter(Tensor(np.zeros((4, 4), np.int32)), name="h")  # empty: nothing to evict for a miss
    s = Parameter(Tensor(np.array([1], np.int32)), name="s")
    with pytest.raises(OpError, match="MapCacheIdx: the hashmap is full, no entry unused"):
        ops.MapCacheIdx()(h, Tensor(np.array([1], np.int32)), s, 10, 0)
    with pytest.raises(OpError, match=r"MapCacheIdx: hashmap must have shape \(length, 4\)"):
        ops.MapCacheIdx()(Parameter(Tensor(np.zeros((4, 3), np.int32))), Tensor(np.array([1], np.int32)), s, 10, 0)
    with pytest.raises(OpTypeError, match="MapCacheIdx: indices must have hashmap's dtype int32, got int64"):
        ops.MapCacheIdx()(h, Tensor(np.array([1], np.int64)), s, 10, 0)
