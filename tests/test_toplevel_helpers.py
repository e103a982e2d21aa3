"""MindSpore 2.10 top-level names added for issue 22 (device/runtime helpers, Generator, JitConfig, type kinds,
interop, checkpoint conversions, BackupAndRestore, merge_sliced_parameter). Expected values are MindSpore
2.10's answers (recorded by running the same calls in the MindSpore venv) or numpy's."""
import os
import signal  # noqa: F401

import numpy as np
import pytest

import msx as ms
from msx import nn


def test_train_names_are_the_train_objects():
    for name in ("BleuScore", "ConfusionMatrix", "F1", "Precision", "LossScaleManager", "DatasetHelper",
                 "build_train_network", "data_sink", "BackupAndRestore", "ckpt_to_safetensors"):
        assert getattr(ms, name) is getattr(ms.train, name)


def test_device_helpers():
    ms.set_device("CPU")
    info = ms.get_current_device()
    assert tuple(info) == ("CPU", 0) and info.device_target == "CPU"  # MindSpore: DeviceInfo('CPU', 0)
    with pytest.raises(Exception):
        ms.set_device("NPU")
    ms.set_deterministic(True)
    assert ms.get_context("deterministic") == "ON"  # as MindSpore
    ms.set_recursion_limit(500)
    assert ms.get_context("max_call_depth") == 500
    ms.set_recursion_limit()
    with pytest.raises(ValueError):
        ms.set_recursion_limit(0)


def test_memory_counts_live_tensors():
    ms.synchronize()
    before = ms.memory_allocated()
    keep = ms.Tensor(np.ones((256, 256), np.float32))  # 256 KiB
    assert ms.memory_allocated() - before >= 256 * 256 * 4
    stats = ms.memory_stats()
    assert set(stats) >= {"total_reserved_memory", "total_allocated_memory", "max_allocated_memory"}
    assert "total_allocated_memory" in ms.memory_summary()
    if ms.get_context("device_target") == "CPU":
        with pytest.raises(RuntimeError, match="peak"):
            ms.max_memory_allocated()
    ms.empty_cache()
    del keep


def test_run_check(capsys):
    ms.run_check()
    out = capsys.readouterr().out
    assert "The result of multiplication calculation is correct" in out and "[CPU]" in out


def test_generator():
    g = ms.Generator()
    assert g.initial_seed() == 0 and g.get_state().shape == (2,)  # a jax key (MindSpore's state differs in form)
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    s0 = g.get_state()
    g.seed()
    g.set_state(s0)
    np.testing.assert_array_equal(g.get_state().asnumpy(), s0.asnumpy())
    ms.default_generator.manual_seed(7)
    assert ms.default_generator.initial_seed() == 7 == ms.initial_seed()
    state = ms.default_generator.get_state()
    a = ms.ops.uniform((3,), ms.Tensor(0.0), ms.Tensor(1.0)).asnumpy() if hasattr(ms.ops, "uniform") else None
    ms.default_generator.set_state(state)
    if a is not None:
        np.testing.assert_array_equal(ms.ops.uniform((3,), ms.Tensor(0.0), ms.Tensor(1.0)).asnumpy(), a)


def test_a_generator_of_ones_own_drives_the_ops_generator_argument():
    """MindSpore's `generator=`: draws come from that Generator (reseeding it repeats them) and leave the global
    state alone; jit moves its state as eager does, in every capture mode."""
    from msx import mint

    g = ms.Generator().manual_seed(7)
    first, second = mint.rand(3, generator=g).asnumpy(), mint.rand(3, generator=g).asnumpy()
    assert not np.array_equal(first, second)
    g.manual_seed(7)
    t = ms.Tensor(np.zeros(3, np.float32))
    t.uniform_(generator=g)
    np.testing.assert_array_equal(t.asnumpy(), first)
    ms.set_seed(1)
    plain = mint.rand(3).asnumpy()
    ms.set_seed(1)
    mint.randn(4, generator=g)
    mint.randperm(5, generator=g)
    np.testing.assert_array_equal(mint.rand(3).asnumpy(), plain)   # the global stream did not move
    for mode in ("ast", "bytecode", "trace"):
        g.manual_seed(7)
        step = ms.jit(lambda: mint.rand(3, generator=g), capture_mode=mode)
        np.testing.assert_array_equal(step().asnumpy(), first)
        np.testing.assert_array_equal(step().asnumpy(), second)
    with pytest.raises(TypeError, match="mint.rand: generator must be an msx.Generator, got int"):
        mint.rand(2, generator=3)


def test_jit_config():
    cfg = ms.JitConfig(jit_level="O1")
    assert cfg.jit_config_dict == {"jit_level": "O1", "exc_mode": "auto", "jit_syntax_level": "",
                                   "debug_level": "RELEASE", "infer_boost": "off", "backend": "ms_backend"}
    for bad in ({"jit_level": "O3"}, {"exc_mode": "x"}, {"debug_level": "x"}):
        with pytest.raises(ValueError):
            ms.JitConfig(**bad)
    net = nn.Dense(2, 2)
    net.set_jit_config(ms.JitConfig())  # jit_level "" -> jit's default
    x = ms.Tensor(np.ones((1, 2), np.float32))
    np.testing.assert_allclose(net.compile_and_run(x).asnumpy(), net(x).asnumpy(), rtol=1e-6)


def test_recompute_same_values_and_grads():
    net = nn.Dense(3, 2)
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))

    def loss(x):
        return ms.recompute(net, x).sum()

    def plain(x):
        return net(x).sum()

    g1 = ms.grad(loss, grad_position=0, weights=net.trainable_params())(x)
    g2 = ms.grad(plain, grad_position=0, weights=net.trainable_params())(x)
    for a, b in zip(g1[1] + (g1[0],), g2[1] + (g2[0],)):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="Cell"):
        ms.recompute(lambda t: t, x)


def test_type_kinds():
    # MindSpore 2.10: isinstance(int32, Int) True, isinstance(uint8, Int) False, Int(16) prints Int16
    assert isinstance(ms.int32, ms.Int) and not isinstance(ms.uint8, ms.Int) and isinstance(ms.uint8, ms.uint)
    assert ms.Int(16) == ms.int16 and ms.common.dtype.Float(16) == ms.float16
    assert not isinstance(ms.int32, ms.TensorType)
    assert [repr(k) for k in (ms.number, ms.string, ms.list_, ms.tuple_, ms.type_none, ms.tensor_type)] == \
        ["Number", "String", "List", "Tuple", "None", "Tensor"]
    t = ms.TensorType(ms.float32)
    assert t == ms.TensorType(ms.float32) and t != ms.tensor_type and t.element_type() == ms.float32
    assert ms.list_ == ms.common.dtype.List()
    assert ms.QuantDtype.INT4.value == 3 and ms.QuantDtype.UINT1.value == 100 and len(ms.QuantDtype) == 32


def test_interop():
    a = ms.Tensor(np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(ms.from_dlpack(ms.to_dlpack(a)).asnumpy(), np.arange(4))
    np.testing.assert_array_equal(ms.from_dlpack(np.arange(3)).asnumpy(), np.arange(3))
    with pytest.raises(TypeError):
        ms.from_dlpack(3)
    buf = np.arange(5, dtype=np.int32).tobytes()
    np.testing.assert_array_equal(ms.frombuffer(buf, ms.int32, count=3, offset=4).asnumpy(), [1, 2, 3])
    x, y = ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0, 5.0])
    ms.swap_tensors(x, y)  # MindSpore: [3. 4. 5.] [1. 2.]
    np.testing.assert_array_equal(x.asnumpy(), [3, 4, 5])
    np.testing.assert_array_equal(y.asnumpy(), [1, 2])


def test_checkpoint_conversions(tmp_path):
    net = nn.Dense(2, 3)
    ms.save_checkpoint(net, str(tmp_path / "a.ckpt"))
    ms.ckpt_to_safetensors(str(tmp_path / "a.ckpt"), str(tmp_path / "st"), name_map={"weight": "w"})
    from safetensors.numpy import load_file

    loaded = load_file(str(tmp_path / "st" / "a.safetensors"))
    assert set(loaded) == {"w", "bias"}
    np.testing.assert_array_equal(loaded["w"], net.weight.asnumpy())
    ms.safetensors_to_ckpt(str(tmp_path / "st"), str(tmp_path / "back"))
    back = ms.load_checkpoint(str(tmp_path / "back" / "a.ckpt"))
    np.testing.assert_array_equal(back["bias"].asnumpy(), net.bias.asnumpy())
    with pytest.raises(ValueError):
        ms.ckpt_to_safetensors(str(tmp_path / "nothing"))


def test_merge_sliced_parameter():
    a = ms.Parameter(ms.Tensor(np.ones((2, 3), np.float32)), "w")
    b = ms.Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), "w")
    m = ms.merge_sliced_parameter([a, b])  # MindSpore: w (4, 3) True [1 1 0 0]
    assert m.name == "w" and m.shape == (4, 3) and m.requires_grad
    np.testing.assert_array_equal(m.asnumpy()[:, 0], [1, 1, 0, 0])
    with pytest.raises(ValueError, match="same name"):
        ms.merge_sliced_parameter([a, ms.Parameter(ms.Tensor(np.ones((2, 3), np.float32)), "v")])


def test_mindir_proto_roundtrip(tmp_path):
    class Net(nn.Cell):
        def construct(self, x):
            return x * 2

    x = ms.Tensor(np.ones((2,), np.float32))
    ms.export(Net(), x, file_name=str(tmp_path / "net"), file_format="MINDIR")
    model = ms.load_mindir(str(tmp_path / "net.mindir"))
    ms.save_mindir(model, str(tmp_path / "copy"))
    assert ms.load_mindir(str(tmp_path / "copy.mindir")) == model
    with pytest.raises(TypeError):
        ms.save_mindir("x", str(tmp_path / "y"))


def test_backup_and_restore(tmp_path):
    from msx.dataset import NumpySlicesDataset

    def make():
        ms.set_seed(1)
        net = nn.Dense(2, 1)
        model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
        return net, model

    data = NumpySlicesDataset({"x": np.ones((4, 2), np.float32), "y": np.zeros((4, 1), np.float32)},
                              shuffle=False).batch(2)
    net, model = make()
    cb = ms.BackupAndRestore(str(tmp_path), delete_checkpoint=False)
    model.train(2, data, callbacks=cb)
    assert os.path.exists(cb.backup_file)
    net2, model2 = make()  # a restarted run starts from the backup
    ms.Model  # noqa: B018
    cb2 = ms.BackupAndRestore(str(tmp_path))
    cb2.on_train_begin(ms.train.RunContext(ms.train.callback.CallbackParams(train_network=net2)))
    np.testing.assert_array_equal(net2.weight.asnumpy(), net.weight.asnumpy())
    model2.train(1, data, callbacks=cb2)
    assert not os.path.exists(cb2.backup_file)


def test_absolute_import_is_the_future_feature():
    import __future__

    assert ms.absolute_import is __future__.absolute_import is ms.train.absolute_import


def test_cell_state_attributes():
    # MindSpore 2.10 on a fresh nn.Dense: bprop_debug False, compile_cache set(), compile_phase None,
    # compiled False, param_prefix '', parameter_layout_dict {}, phase_cache {}
    net = nn.Dense(2, 2)
    assert (net.bprop_debug, net.compile_cache, net.compile_phase, net.compiled, net.param_prefix,
            net.parameter_layout_dict, net.phase_cache) == (False, set(), None, False, "", {}, {})
    assert isinstance(net.create_time, int) and net.create_time > 0
    net.compile(ms.Tensor(np.ones((1, 2), np.float32)))
    assert net.compiled and net.phase_cache["predict"] == net.compile_phase and net.compile_phase in net.compile_cache
    assert nn.Dense(2, 2).phase_cache == {}  # per instance
    assert nn.Cell.compiled is False and dict(nn.Cell.phase_cache) == {}


def test_tensor_self_methods():
    # MindSpore 2.10 answers: t.type() == 'Float32'; bfloat16/byte/short/double dtypes; set_dtype casts in place;
    # value() is t; has_init False; is_meta False; device 'CPU'; is_signed True for float, False for uint8
    t = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert t.type() == "Float32" and t.type(ms.int32).dtype == ms.int32
    assert [t.bfloat16().dtype, t.byte().dtype, t.short().dtype, t.double().dtype] == \
        [ms.bfloat16, ms.uint8, ms.int16, ms.float64]
    np.testing.assert_array_equal(t.mT.asnumpy(), t.asnumpy().T)
    np.testing.assert_array_equal(t.H.asnumpy(), t.asnumpy().T)
    c = ms.Tensor(np.array([[1 + 2j, 3j], [1, 2 - 1j]], np.complex64))
    np.testing.assert_array_equal(c.mH.asnumpy(), c.asnumpy().conj().T)
    b = ms.Tensor(np.ones((4, 2, 3), np.float32))
    assert b.mT.shape == (4, 3, 2)
    with pytest.raises(ValueError):
        b.H  # noqa: B018
    assert t.is_signed() and not ms.Tensor(np.array([1], np.uint8)).is_signed()
    assert t.ndimension() == 2 and t.nelement() == 6 and t.device == "CPU" and not t.is_meta and not t.has_init
    assert t.value() is t and t.init_data() is t
    np.testing.assert_array_equal(t.data.asnumpy(), t.asnumpy())
    full = t.new_full((2,), 3)
    assert full.dtype == ms.float32 and full.asnumpy().tolist() == [3, 3]
    assert t.new_ones(2, dtype=ms.int32).asnumpy().tolist() == [1, 1]
    assert t.new_zeros(1, 2).shape == (1, 2) and t.new_empty((3,)).shape == (3,)
    x = ms.Tensor([1.0, 2.0])
    assert x.set_dtype(ms.float16) is x and x.dtype == ms.float16
    np.testing.assert_array_equal(ms.Tensor.from_dlpack(t.to_dlpack()).asnumpy(), t.asnumpy())


def test_top_level_names_of_mindrecord_and_parallel_are_those_objects():
    """MindSpore's top level names mindrecord's readers/converters and mindspore.parallel's checkpoint and
    strategy functions; msx loads them on first use (import time) and they are the same objects."""
    import msx.mindrecord
    import msx.parallel

    for name in ("FileReader", "MindPage", "SUCCESS", "FAILED", "Cifar10ToMR", "CsvToMR", "MnistToMR"):
        assert getattr(msx, name) is getattr(msx.mindrecord, name), name
    for name in ("Layout", "load_distributed_checkpoint", "transform_checkpoints", "unified_safetensors",
                 "set_algo_parameters", "sync_pipeline_shared_parameters"):
        assert getattr(msx, name) is getattr(msx.parallel, name), name
    assert "FileReader" in dir(msx)
