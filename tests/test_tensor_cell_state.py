"""More of MindSpore 2.10's surface (docs/toplevel_tensor_cell.md): Tensor state methods, saved-tensor hooks, Cell hooks
and flags, MultiFieldEmbeddingLookup, dtype kinds, logging and memory calls. Values are checked against
MindSpore goldens (tests/golden_surface/record.py) or, where MindSpore's CPU build has no kernel
(`Tensor.index`, `Tensor.index_copy_`: Ascend only), against numpy."""
from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pytest

import msx
from msx import Tensor, nn

HERE = os.path.join(os.path.dirname(__file__), "golden_surface")
GOLD = json.load(open(os.path.join(HERE, "surface.json")))
ARR = dict(np.load(os.path.join(HERE, "surface.npz")))

import importlib.util  # noqa: E402

_spec = importlib.util.spec_from_file_location("surface_record", os.path.join(HERE, "record.py"))
REC = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(REC)


# ------------------------------------------------------------------ Tensor state methods
def test_tensor_flags_match_mindspore():
    t = Tensor(np.ones(2, np.float32))
    got = {"const_arg": t.const_arg, "init": t.init, "init_flag": t.init_flag, "is_init": t.is_init(),
           "init_finished": t.init_finished, "is_pinned": t.is_pinned(), "is_shared": t.is_shared(),
           "symbolic_shape": t.symbolic_shape, "virtual_flag": t.virtual_flag, "delta_seed": t.delta_seed,
           "param_info": t.param_info, "parent_tensor_": t.parent_tensor_, "index_of_parent_": t.index_of_parent_,
           "flush_from_cache": t.flush_from_cache(), "data_sync": t.data_sync(), "requires_grad_": t.requires_grad_()}
    assert got == GOLD["flags"]
    assert t.set_const_arg(True) is t and t.const_arg is GOLD["const_arg_after_set"]
    assert Tensor(np.ones(2, np.float32)).const_arg is False  # the flag is the Tensor's own
    with pytest.raises(TypeError, match="const_arg"):
        t.set_const_arg(1)


def test_settable_flags_are_per_tensor():
    a, b = Tensor([1.0]), Tensor([2.0])
    a.parent_tensor_, a.index_of_parent_ = b, 0
    assert a.parent_tensor_ is b and a.index_of_parent_ == 0 and b.parent_tensor_ is None


def test_get_bytes():
    assert list(Tensor(np.array([[1, 2], [3, 300]], np.int16)).get_bytes()) == GOLD["get_bytes_int16"]
    assert list(Tensor(np.array([1.5, -2.0], np.float32)).get_bytes()) == GOLD["get_bytes_float32"]


@pytest.mark.parametrize("name,args", [("whole", ()), ("offset", (1, (3,))), ("strided", (0, (2, 2), (1, 2))),
                                       ("2d", (1, (2, 2), (3, 1)))])
def test_set_matches_mindspore(name, args):
    t = Tensor(np.zeros(2, np.float32))
    assert t.set_(Tensor(np.arange(1, 7, dtype=np.float32)), *args) is t
    np.testing.assert_array_equal(t.asnumpy(), ARR[f"set_{name}"])

    def window(src):
        return Tensor(np.zeros(2, np.float32)).set_(src, *args) * 1

    jitted = msx.jit(window)(Tensor(np.arange(1, 7, dtype=np.float32)))
    np.testing.assert_array_equal(jitted.asnumpy(), ARR[f"set_{name}"])


def test_set_errors_and_empty():
    t = Tensor([1.0, 2.0])
    assert t.set_().shape == (0,)
    with pytest.raises(RuntimeError, match="Could not set tensor of type Int64"):
        Tensor([1.0]).set_(Tensor([1, 2]))
    with pytest.raises(RuntimeError, match="invalid storage offset -1"):
        Tensor([1.0]).set_(Tensor([1.0, 2.0]), -1, (1,))
    with pytest.raises(RuntimeError, match="reaches element"):  # MindSpore reads past the storage here
        Tensor([1.0]).set_(Tensor([1.0, 2.0, 3.0]), 2, (3,), (1,))
    with pytest.raises(TypeError, match="source"):
        Tensor([1.0]).set_(1)


def test_index_and_index_copy_against_numpy():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = Tensor(x)
    rows, cols = np.array([2, 0]), np.array([1, 3])
    np.testing.assert_array_equal(t.index((Tensor(rows), Tensor(cols))).asnumpy(), x[rows, cols])
    np.testing.assert_array_equal(t.index([Tensor(rows)]).asnumpy(), x[rows])
    with pytest.raises(TypeError, match="tuple of Tensor"):
        t.index(1)
    with pytest.raises(TypeError, match="at pos 0"):
        t.index((None,))
    src = np.arange(6, dtype=np.float32).reshape(3, 2) + 100
    want = x.copy()
    want[:, [3, 0]] = src
    out = Tensor(x).index_copy_(1, Tensor([3, 0]), Tensor(src))
    np.testing.assert_array_equal(out.asnumpy(), want)
    jitted = msx.jit(lambda a, s: a.index_copy_(1, Tensor([3, 0]), s))(Tensor(x), Tensor(src))
    np.testing.assert_array_equal(jitted.asnumpy(), want)
    with pytest.raises(ValueError, match="does not fit"):
        Tensor(x).index_copy_(0, Tensor([0]), Tensor(src))


def test_memory_placement_methods():
    t = Tensor([1, 2, 3])
    p = t.pin_memory()
    assert p is not t and p.asnumpy().tolist() == [1, 2, 3]
    assert t.delete_() is t and t.asnumpy().tolist() == [0, 0, 0]  # MindSpore's documented result
    w = msx.Parameter(Tensor([1.0]), name="w")
    assert w.requires_grad_(False) is None and w.requires_grad is False


# ------------------------------------------------------------------ saved-tensor hooks
@pytest.mark.parametrize("name", REC.HOOK_FNS)
def test_saved_tensors_hooks_match_mindspore(name):
    log = []

    def pack(t):
        log.append(["pack", t.asnumpy().tolist()])
        return t + 1

    def unpack(t):
        log.append(["unpack", t.asnumpy().tolist()])
        return t

    f = REC.hooked_fn(msx, name)

    def fn(a, b):
        with msx.saved_tensors_hooks(pack, unpack):
            return f(a, b)

    x, y = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([3.0, 4.0], np.float32))
    gx, gy = msx.grad(fn, grad_position=(0, 1))(x, y)
    assert log == GOLD[f"hooks_{name}"]
    np.testing.assert_allclose(gx.asnumpy(), ARR[f"hooks_{name}_gx"], rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), ARR[f"hooks_{name}_gy"], rtol=1e-6)


def test_saved_hooks_nest_and_only_pack_under_grad():
    seen = []
    outer = msx.saved_tensors_hooks(lambda t: seen.append("outer") or t, lambda t: t)
    inner = msx.saved_tensors_hooks(lambda t: seen.append("inner") or t, lambda t: t)

    def fn(x):
        with outer, inner:
            return x * x

    msx.grad(fn)(Tensor([1.0, 2.0]))
    assert seen == ["inner", "inner"]  # the innermost pair is used (MindSpore's nesting)
    seen.clear()
    fn(Tensor([1.0]))
    assert seen == []  # no gradient taken: nothing is saved


def test_saved_hooks_bad_unpack_and_bad_hooks():
    def fn(x, y):
        with msx.saved_tensors_hooks(lambda t: t, lambda t: Tensor([1.0, 2.0, 3.0])):
            return x * y

    with pytest.raises(ValueError, match="unpack_hook gave back Tensor of shape \\(3,\\).*'Mul'"):
        msx.grad(fn, (0, 1))(Tensor([1.0, 2.0]), Tensor([3.0, 4.0]))
    with pytest.raises(TypeError, match="pack_hook must be callable"):
        msx.saved_tensors_hooks(1, lambda t: t)


def test_register_saved_tensors_hooks_decorator_and_cell():
    @msx.register_saved_tensors_hooks(lambda t: t, lambda t: t * 2)
    def f(x, y):
        return x * y

    x, y = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    gx, gy = msx.grad(f, (0, 1))(x, y)
    np.testing.assert_array_equal(gx.asnumpy(), [6.0, 8.0])
    np.testing.assert_array_equal(gy.asnumpy(), [2.0, 4.0])

    class Net(nn.Cell):
        def construct(self, a, b):
            return a * b

    net = Net()
    net.register_saved_tensors_hooks(lambda t: t, lambda t: t * 2)  # MindSpore PyNative: [6, 8], [2, 4]
    gx, gy = msx.grad(net, (0, 1))(x, y)
    np.testing.assert_array_equal(gx.asnumpy(), [6.0, 8.0])
    np.testing.assert_array_equal(gy.asnumpy(), [2.0, 4.0])


def test_saved_hooks_in_a_graph_warn():
    @msx.register_saved_tensors_hooks(lambda t: t, lambda t: t * 2)
    def f(x, y):
        return x * y

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gx, _ = msx.jit(msx.grad(f, (0, 1)), capture_mode="trace")(Tensor([1.0, 2.0]), Tensor([3.0, 4.0]))
    assert any("do not run inside a compiled graph" in str(w.message) for w in caught)
    np.testing.assert_array_equal(gx.asnumpy(), [3.0, 4.0])


# ------------------------------------------------------------------ Cell hooks and flags
@pytest.mark.parametrize("all_params", [False, True])
def test_parameter_forward_hook_matches_mindspore_jit(all_params):
    net = REC.param_hook_net(msx, all_params)
    x = Tensor(np.float32(3.0))
    step = msx.value_and_grad(net, 0, net.trainable_params())
    want = GOLD[f"param_hook_{'all' if all_params else 'list'}"]
    for run in (step, msx.jit(step)):
        value, (gx, (gw, gb)) = run(x)
        assert [float(value), float(gx), float(gw), float(gb)] == pytest.approx(want)
    assert float(net.weight) == 2.0  # the Parameter itself is untouched


def test_parameter_forward_hook_errors():
    net = nn.Dense(2, 2)
    with pytest.raises(TypeError, match="must be of type 'Parameter'"):
        net.register_parameter_forward_hook([{"params": [1], "hook": abs}])
    with pytest.raises(ValueError, match="both params and hook"):
        net.register_parameter_forward_hook([{"params": [net.weight]}])
    with pytest.raises(TypeError, match="callable function or a list"):
        net.register_parameter_forward_hook(3)


def test_cell_parallel_bookkeeping():
    net = nn.Dense(2, 3)
    assert (net.exist_names, net.exist_objs, net.parallel_parameter_merge_net_dict,
            net.parallel_parameter_name_list) == (set(), set(), {}, ())
    assert len(nn.Cell.global_cells) == 0
    assert net.set_comm_fusion(2) is net and net.weight.comm_fusion == 2
    with pytest.raises(ValueError, match=">= 0"):
        net.set_comm_fusion(-1)
    assert net.set_broadcast_flag() is net and net.get_flags() == {"broadcast_flag": True}
    assert net.set_data_parallel() is None
    with pytest.raises(AttributeError, match="pipeline_segment"):
        net.pipeline_segment
    net.pipeline_segment = 2
    assert net.pipeline_segment == 2
    with pytest.raises(TypeError):
        net.parallel_parameter_name_list = ()
    with pytest.warns(DeprecationWarning):
        net.remove_redundant_parameters()


# ------------------------------------------------------------------ MultiFieldEmbeddingLookup
def _mfe(op, **kw):
    net = nn.MultiFieldEmbeddingLookup(8, 3, 3, operator=op, **kw)
    net.embedding_table.set_data(Tensor(ARR["mfe_table"]))
    return net


@pytest.mark.parametrize("op", ["SUM", "MEAN", "MAX"])
def test_multi_field_embedding_matches_mindspore(op):
    net = _mfe(op)
    args = (Tensor(ARR["mfe_indices"]), Tensor(ARR["mfe_values"]), Tensor(ARR["mfe_fields"]))
    np.testing.assert_allclose(net(*args).asnumpy(), ARR[f"mfe_{op}"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(msx.jit(net)(*args).asnumpy(), ARR[f"mfe_{op}"], rtol=1e-6, atol=1e-6)


def test_multi_field_embedding_max_norm_and_errors():
    # against numpy: MindSpore 2.10's CPU ClipByNorm over the last axis of a 3-D lookup mixes rows
    # (ClipByNorm(axis=(2,)) of [[[3, 4], [1, 0]]] scales the second row by 1/sqrt(1 + 4**2)), so its golden
    # (`mfe_SUM_max_norm`) is not a reference; each looked-up row is renormalised to norm <= max_norm
    net = _mfe("SUM", max_norm=1.0)
    args = (Tensor(ARR["mfe_indices"]), Tensor(ARR["mfe_values"]), Tensor(ARR["mfe_fields"]))
    rows = ARR["mfe_table"][ARR["mfe_indices"]]
    rows = rows * np.minimum(1.0, 1.0 / np.linalg.norm(rows, axis=-1, keepdims=True))
    want = np.zeros((3, 3, 3), np.float32)
    for b in range(3):
        for s in range(4):
            want[b, ARR["mfe_fields"][b, s]] += ARR["mfe_values"][b, s] * rows[b, s]
    np.testing.assert_allclose(net(*args).asnumpy(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="operator"):
        nn.MultiFieldEmbeddingLookup(8, 3, 3, operator="MIN")
    with pytest.raises(ValueError, match="field_size"):
        nn.MultiFieldEmbeddingLookup(8, 3, 0)
    with pytest.raises(Exception, match="field_ids"):
        net(args[0], args[1], Tensor(ARR["mfe_fields"].astype(np.int64)))


# ------------------------------------------------------------------ dtypes, logging, memory, devices
def test_dtype_kinds_match_mindspore():
    d = msx.common.dtype
    assert {n: str(getattr(d, n)) for n in GOLD["dtype_str"]} == GOLD["dtype_str"]
    assert {n: str(getattr(d, n)()) for n in GOLD["dtype_kind_str"]} == GOLD["dtype_kind_str"]
    q = GOLD["dtype_quant"]
    assert (str(d.hifloat8), str(d.qint4x2), d.type_size_in_bytes(d.hifloat8), d.type_size_in_bytes(d.qint4x2)) == (
        q["hifloat8"], q["qint4x2"], q["hifloat8_size"], q["qint4x2_size"])
    assert d.CSRTensorType() == d.csr_tensor and d.csr_tensor != d.coo_tensor
    assert d.np_dtype_valid(True) is True and np.dtype(d.np_bfloat16).name == "bfloat16"
    assert d.isfunction(lambda: 1) and not d.isfunction(len)
    assert msx.hifloat8 is d.hifloat8 and msx.qint4x2 is d.qint4x2


def test_qint4x2_tensors_and_hifloat8_refusal():
    t = Tensor(np.array([1, -2, 7]), msx.qint4x2)
    assert t.dtype == msx.qint4x2 and str(t.dtype) == "Int4" and t.asnumpy().tolist() == [1, -2, 7]
    with pytest.raises(TypeError, match="HiFloat8 is an Ascend-only format"):
        Tensor(np.ones(2), msx.hifloat8)


def test_log_config(monkeypatch, tmp_path):
    import msx.log as log
    monkeypatch.setattr(log, "_LOGGER", [])
    monkeypatch.delenv("GLOG_v", raising=False)
    monkeypatch.delenv("GLOG_logtostderr", raising=False)
    assert msx.get_level() == "2" and msx.get_log_config() == {"GLOG_v": "2", "GLOG_logtostderr": "1"}
    monkeypatch.setattr(log, "_LOGGER", [])
    for k, v in {"GLOG_v": "1", "GLOG_logtostderr": "0", "GLOG_log_dir": str(tmp_path), "logger_maxBytes": "5242880",
                 "logger_backupCount": "10", "GLOG_stderrthreshold": "3"}.items():
        monkeypatch.setenv(k, v)
    assert msx.get_log_config() == {"GLOG_v": "1", "GLOG_logtostderr": "0", "GLOG_log_dir": str(tmp_path),
                                    "logger_maxBytes": 5242880, "logger_backupCount": 10, "GLOG_stderrthreshold": "3"}
    monkeypatch.setattr(log, "_LOGGER", [])
    monkeypatch.setenv("GLOG_v", "7")
    with pytest.raises(ValueError, match="GLOG_v"):
        msx.get_level()
    monkeypatch.setattr(log, "_LOGGER", [])


def test_memory_calls(monkeypatch):
    from msx.common import device
    assert msx.reset_max_memory_allocated() is None and msx.reset_max_memory_reserved() is None
    assert msx.reset_peak_memory_stats() is None
    monkeypatch.setattr(device, "_MEMORY_SET", [])
    with pytest.raises(TypeError, match="max_size"):
        msx.set_memory(max_size=3)
    with pytest.raises(ValueError, match="correct format"):
        msx.set_memory(init_size="abc")
    with pytest.raises(ValueError, match="optimize_level"):
        msx.set_memory(optimize_level="O3")
    msx.set_memory()
    with pytest.raises(RuntimeError, match="can not be set repeatedly"):
        msx.set_memory()
    monkeypatch.setattr(device, "_MEMORY_SET", [])
    with pytest.warns(UserWarning, match="no effect"):
        msx.set_memory("1GB")


def test_peak_since_reset(monkeypatch):
    from msx.common import device
    stats = {"bytes_in_use": 100, "peak_bytes_in_use": 500}
    monkeypatch.setattr(device, "_allocator_stats", lambda: dict(stats))
    monkeypatch.setattr(device, "_PEAK_AT_RESET", {})
    assert msx.max_memory_allocated() == 500
    msx.reset_max_memory_allocated()
    assert msx.max_memory_allocated() == 100  # below the old peak: the bytes in use now
    stats.update(bytes_in_use=50, peak_bytes_in_use=700)
    assert msx.max_memory_allocated() == 700  # a new peak after the reset is exact


def test_device_ctx():
    before = msx.get_current_device()
    with msx.DeviceCtx("CPU") as ctx:
        assert isinstance(ctx, msx.DeviceCtx) and msx.get_current_device().device_target == "CPU"
    assert msx.get_current_device() == before
    with pytest.raises(ValueError, match="name must be one of"):
        with msx.DeviceCtx("NPU"):
            pass
    with pytest.raises(ValueError, match="device_id"):
        with msx.DeviceCtx("CPU", -1):
            pass


# ------------------------------------------------------------------ no_init_parameters
def test_no_init_parameters_match_mindspore():
    msx.set_seed(1)
    with nn.no_init_parameters():
        net = nn.Dense(2, 3, weight_init="normal", bias_init="zeros")
        plain = msx.Parameter(Tensor(np.ones(2, np.float32)), name="plain")
    assert [net.weight.has_init, net.bias.has_init] == GOLD["no_init_has_init"] and not plain.has_init
    assert net.weight.shape == (3, 2) and net.weight.dtype == msx.float32 and net.weight.init is not None
    net.init_parameters_data()
    assert [net.weight.has_init, net.bias.has_init] == GOLD["no_init_has_init_after"] and net.weight.init is None
    np.testing.assert_allclose(net.weight.asnumpy(), ARR["no_init_weight"], rtol=1e-6)
    assert type(net.weight) is msx.Parameter


def test_no_init_parameters_filled_by_checkpoint_or_use(tmp_path):
    src = nn.Dense(2, 3)
    path = str(tmp_path / "dense.ckpt")
    msx.save_checkpoint(src, path)
    with nn.no_init_parameters():
        net = nn.Dense(2, 3)
    msx.load_checkpoint(path, net)
    assert not net.weight.has_init
    np.testing.assert_array_equal(net.weight.asnumpy(), src.weight.asnumpy())
    with nn.no_init_parameters():
        lazy = nn.Dense(2, 3)
    x = Tensor(np.ones((1, 2), np.float32))
    assert msx.jit(lazy)(x).shape == (1, 3) and not lazy.weight.has_init  # the first read fills it
    np.testing.assert_allclose(lazy(x).asnumpy(), msx.jit(lazy)(x).asnumpy(), rtol=1e-6)


def test_saved_hooks_warn_for_an_opaque_cell():
    class Custom(nn.Cell):
        def construct(self, x):
            return x * x

        def bprop(self, x, out, dout):
            return (2 * x * dout,)

    net = Custom()

    def fn(x):
        with msx.saved_tensors_hooks(lambda t: t, lambda t: t):
            return net(x)

    with pytest.warns(UserWarning, match="custom backward"):
        g = msx.grad(fn)(Tensor([1.0, 3.0]))
    np.testing.assert_array_equal(g.asnumpy(), [2.0, 6.0])
