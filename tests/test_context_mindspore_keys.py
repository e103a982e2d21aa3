"""set_context accepts MindSpore 2.x's keys: honoured where they mean something here, noted once otherwise."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import msx
from msx import context
from msx.errors import ContextError


@pytest.fixture(autouse=True)
def restore_context():
    saved, noted = dict(context._context), set(context._noted)
    yield
    context._context.clear()
    context._context.update(saved)
    context._noted.clear()
    context._noted.update(noted)


def test_max_call_depth_is_stored_for_capture():
    assert msx.get_context("max_call_depth") == 1000  # MindSpore's default
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # honoured keys do not warn
        msx.set_context(max_call_depth=5000)
    assert msx.get_context("max_call_depth") == 5000


def _countdown(x, n):
    return x if n == 0 else _countdown(x + 1, n - 1)


@pytest.mark.parametrize("mode", ["ast", "bytecode"])
def test_max_call_depth_limits_how_deep_a_capture_follows_calls(mode):
    x = msx.Tensor(np.zeros(2, np.float32))
    msx.set_context(max_call_depth=8)
    deep = msx.jit(lambda t: _countdown(t, 12), capture_mode=mode, fullgraph=True)
    with pytest.raises(msx.errors.CaptureError, match="deeper than 8 levels"):
        deep(x)
    shallow = msx.jit(lambda t: _countdown(t, 5), capture_mode=mode, fullgraph=True)
    np.testing.assert_array_equal(shallow(x).asnumpy(), [5.0, 5.0])
    msx.set_context(max_call_depth=1000)  # MindSpore's default: msx's own limit, 64
    np.testing.assert_array_equal(msx.jit(lambda t: _countdown(t, 40), capture_mode=mode)(x).asnumpy(), [40.0, 40.0])


def test_jit_config_and_graph_kernel_set_jit_level():
    msx.set_context(jit_config={"jit_level": "O1"})
    assert msx.get_context("jit_level") == "O1"
    msx.set_context(jit_level="O0")
    msx.set_context(enable_graph_kernel=True)
    assert msx.get_context("jit_level") == "O1"


def test_no_effect_keys_are_noted_once():
    context._noted.discard("mempool_block_size")
    with pytest.warns(UserWarning, match="mempool_block_size.*no effect"):
        msx.set_context(mempool_block_size="2GB", mode=msx.PYNATIVE_MODE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        msx.set_context(mempool_block_size="4GB")
    assert msx.get_context("mempool_block_size") == "4GB"


@pytest.mark.parametrize("key,value", [("max_call_depth", "deep"), ("max_call_depth", 0), ("inter_op_parallel_num", 1.5),
                                       ("jit_config", {"jit_level": "O9"}), ("jit_config", {"bogus": 1})])
def test_bad_values_rejected_and_nothing_changes(key, value):
    before = msx.get_context("jit_level")
    with pytest.raises(ContextError, match=key if key != "jit_config" else "jit_"):
        msx.set_context(jit_level="O1", **{key: value})
    assert msx.get_context("jit_level") == before


def test_unknown_key_still_rejected():
    with pytest.raises(ContextError, match="max_call_depht"):
        msx.set_context(max_call_depht=10)


def test_device_id_on_cpu_is_accepted():
    msx.set_context(device_target="CPU", device_id=0)
    assert msx.get_context("device_id") == 0
    assert float(msx.ops.add(msx.Tensor(1.0), 1.0)) == 2.0
