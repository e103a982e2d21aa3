"""Several devices in one process: DATA_PARALLEL, SEMI_AUTO_PARALLEL (`.shard`) and AUTO_PARALLEL.

jax fixes its device count when it starts, so the 8-device runs happen in one subprocess
(`tests/sharding/eight_devices.py` under `XLA_FLAGS=--xla_force_host_platform_device_count=8`) that saves
every run's parameters, StableHLO and errors; the tests compare them with the one-device (STAND_ALONE) run
of the same script. The rest runs here, on this process's devices.
"""
import inspect
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import msx as ms
from msx import nn, ops
from msx.errors import ContextError, OpError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tests", "sharding", "eight_devices.py")
MODES = ("pynative", "ast", "bytecode", "trace")


@pytest.fixture(scope="module")
def eight(tmp_path_factory):
    out = tmp_path_factory.mktemp("eight")
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=ROOT,
               XLA_FLAGS="--xla_force_host_platform_device_count=8")
    for key in ("RANK_SIZE", "RANK_ID", "MS_SCHED_HOST", "MSX_CLUSTER_PID"):
        env.pop(key, None)
    proc = subprocess.run([sys.executable, SCRIPT, str(out)], env=env, capture_output=True, text=True, timeout=900,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return dict(np.load(out / "results.npz")), json.loads((out / "errors.json").read_text()), out


def _params(results, key):
    return {k.split("/", 1)[1]: v for k, v in results.items()
            if k.startswith(key + "/") and not k.split("/", 1)[1].startswith("_")}


def _same(results, key, ref):
    got, want = _params(results, key), _params(results, ref)
    assert got.keys() == want.keys() and want
    for name, w in want.items():
        assert not np.allclose(w, 0)
        np.testing.assert_allclose(got[name], w, rtol=1e-5, atol=1e-5, err_msg=f"{key} {name}")


@pytest.mark.parametrize("how", MODES)
def test_data_parallel_on_8_local_devices_equals_one_device(eight, how):
    results, _, _ = eight
    assert int(results["dp_device_num"]) == 8
    _same(results, f"dp_{how}", f"ref_{how}")
    _same(results, f"ref_{how}", "ref_pynative")  # and every mode trains alike
    if how != "pynative":
        hlo = str(results[f"dp_{how}/_hlo"])
        assert int(results[f"dp_{how}/_compiles"]) == 1
        assert "mhlo.num_partitions = 8" in hlo  # one SPMD program over the 8 devices
        # the batch (16 rows) cut over the 8 local devices, the Parameters replicated over them
        assert 'tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"local"}, {}]>}' in hlo
        assert 'tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>' in hlo


def test_jitted_train_one_step_cell_on_8_local_devices(eight):
    results, _, _ = eight
    _same(results, "dp_train_one_step", "ref_ast")


@pytest.mark.parametrize("how", MODES)
def test_semi_auto_parallel_strategies_equal_one_device(eight, how):
    results, _, _ = eight
    _same(results, f"semi_auto_parallel_{how}", f"semiref_{how}")
    if how != "pynative":
        hlo = str(results[f"semi_auto_parallel_{how}/_hlo"])
        assert int(results[f"semi_auto_parallel_{how}/_compiles"]) == 1
        assert "mhlo.num_partitions = 8" in hlo
        assert 'sdy.mesh @mesh = <["s0"=2, "s1"=2, "s2"=2]>' in hlo
        # MatMul().shard(((2, 1), (1, 4))): x cut in 2 on s0, w in 4 on (s1, s2)
        assert 'sdy.sharding_constraint %' in hlo and '<@mesh, [{"s0"}, {}]> : tensor<16x8xf32>' in hlo
        assert '<@mesh, [{}, {"s1", "s2"}]> : tensor<8x8xf32>' in hlo
        # Cell.shard's parameter_plan={"self.fc1.weight": (4, 1)}: the Parameter enters cut in 4 on dim 0
        assert 'tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"s0", "s1"}, {}]>' in hlo
        # Cell.shard's out_strategy ((2, 4),) on fc1's output
        assert '<@mesh, [{"s0"}, {"s1", "s2"}]> : tensor<16x8xf32>' in hlo


def test_strategies_are_shard_nodes_in_the_printed_graph(eight):
    results, _, _ = eight
    graph = str(results["semi_graph"])
    assert "Shard[strategy=(2, 1), spec=(('s0',), ())]" in graph
    assert "Shard[strategy=(1, 4), spec=((), ('s1', 's2'))](%w)" in graph
    assert "Shard[strategy=(8, 1), spec=(('s0', 's1', 's2'), ())](%x)" in graph  # Cell.shard's in_strategy
    assert "in_strategy=((2, 1), (1, 4)), out_strategy=None" in str(results["semi_repr"])


def test_export_of_a_semi_auto_network_runs_on_one_device(eight, tmp_path):
    """MINDIR, MSXIR and STABLEHLO files of a network captured in SEMI_AUTO_PARALLEL over 8 devices load and run
    in a process with one device, equal to the 8-device program's output."""
    results, _, out = eight
    np.save(tmp_path / "x.npy", results["semi_export_x"])
    script = f"""if True:
        import jax, numpy as np, msx
        from msx import nn
        from msx.export import load_stablehlo
        assert len(jax.devices()) == 1
        x = np.load({str(tmp_path / "x.npy")!r})
        outs = {{}}
        for fmt in ("mindir", "msxir"):
            graph = msx.load({str(out)!r} + "/semi_export." + fmt)
            assert "Shard" not in graph.primitives_used(), fmt
            outs[fmt] = nn.GraphCell(graph)(msx.Tensor(x)).asnumpy()
        hlo = load_stablehlo({str(out)!r} + "/semi_export.stablehlo")
        assert hlo.nr_devices == 1 and "sharding_constraint" not in hlo.mlir_module()
        outs["stablehlo"] = np.asarray(hlo.call(x))
        np.savez({str(tmp_path / "outs.npz")!r}, **outs)
    """
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=ROOT)
    env.pop("XLA_FLAGS", None)
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    outs = np.load(tmp_path / "outs.npz")
    assert sorted(outs.files) == ["mindir", "msxir", "stablehlo"]
    for fmt in outs.files:
        np.testing.assert_allclose(outs[fmt], results["semi_export_out"], rtol=1e-5, atol=1e-5, err_msg=fmt)


@pytest.mark.parametrize("how", MODES)
def test_auto_parallel_propagates_from_the_inputs_and_equals_one_device(eight, how):
    results, _, _ = eight
    _same(results, f"auto_parallel_{how}", f"ref_{how}")
    if how != "pynative":
        hlo = str(results[f"auto_parallel_{how}/_hlo"])
        assert "mhlo.num_partitions = 8" in hlo and "sdy.sharding_constraint" not in hlo
        assert 'tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"s0", "s1", "s2"}, {}]>}' in hlo


@pytest.mark.parametrize("how", MODES)
def test_bad_strategies_name_the_op_strategy_shape_and_line(eight, how):
    results, errors, _ = eight
    src = open(SCRIPT).read().splitlines()
    for name, words in (("not_dividing", "MatMul: in_strategy[1] = (4, 1) requires shape[0] % 4 == 0, but got "
                                         "shape (6, 8)"),
                        ("over_device_num", "MatMul: in_strategy[0] = (16, 1) cuts the tensor into 16 slices, which "
                                            "must divide device_num=8")):
        err = errors[f"{name}/{how}"]
        assert err is not None and err["type"] == "OpError" and words in err["text"]
        assert "ops.MatMul().shard(" in src[err["line"] - 1] and "^^^" in err["text"]  # the user's line, underlined
        assert err["text"].startswith("[capture" if how != "pynative" else "[run]")
    np.testing.assert_array_equal(results["ok_with_many_slices"], np.full((16, 8), 6, np.float32))


# ----------------------------------------------------------------- in this process
def test_signatures_match_mindspore():
    def params(f):
        return [(p.name, p.default) for p in inspect.signature(f).parameters.values()]

    empty = inspect.Parameter.empty
    assert params(ms.shard) == [("fn", empty), ("in_strategy", empty), ("out_strategy", None),
                                ("parameter_plan", None)]
    assert params(nn.Cell.shard)[1:] == [("in_strategy", empty), ("out_strategy", None), ("parameter_plan", None)]
    assert params(ops.PrimitiveOp.shard) == [("self", empty), ("in_strategy", None), ("out_strategy", None)]


def test_strategies_are_ignored_outside_the_global_view_modes():
    ms.reset_auto_parallel_context()
    mm = ops.MatMul().shard(((16, 1), (1, 1)))  # could never run on this process's devices
    assert mm.shard() is mm
    a, b = ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones((3, 2), np.float32))
    np.testing.assert_array_equal(mm(a, b).asnumpy(), np.full((2, 2), 3, np.float32))
    np.testing.assert_array_equal(ms.jit(lambda x, y: mm(x, y))(a, b).asnumpy(), np.full((2, 2), 3, np.float32))
    assert "Shard" not in str(ms.jit(lambda x, y: mm(x, y)).capture(a, b))


def test_semi_auto_on_one_device_checks_strategies_against_device_num():
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=1)
    try:
        a = ms.Tensor(np.ones((4, 4), np.float32))
        with pytest.raises(OpError, match=r"Mul: in_strategy\[0\] = \(2, 1\) cuts the tensor into 2 slices, which "
                                          r"must divide device_num=1"):
            ops.Mul().shard(((2, 1), (1, 1)))(a, a)
        with pytest.raises(OpError, match=r"in_strategy has 1 strategies but the op has 2 tensor inputs"):
            ops.Mul().shard(((1, 1),))(a, a)
        with pytest.raises(OpError, match=r"has 1 dimension\(s\) but the input has shape \(4, 4\)"):
            ms.shard(lambda x: x * 2, in_strategy=((1,),))(a)
        np.testing.assert_array_equal(ms.shard(lambda x: x * 2, ((1, 1),), ((1, 1),))(a).asnumpy(), 2 * np.ones((4, 4)))
    finally:
        ms.reset_auto_parallel_context()


def test_bad_strategy_values_and_plans():
    with pytest.raises(TypeError, match="tuple of ints >= 1"):
        ops.MatMul().shard(((2, 0), (1, 1)))
    with pytest.raises(TypeError, match="Layout"):
        ops.MatMul().shard((("dp", "mp"), (1, 1)))
    with pytest.raises(TypeError, match="in_strategy must be a tuple"):
        ms.shard(lambda x: x, 2)
    ms.set_auto_parallel_context(parallel_mode="auto_parallel", device_num=1)
    try:
        dense = nn.Dense(2, 2).shard(((1, 1),), parameter_plan={"self.nothing.weight": (1, 1)})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from msx.parallel.sharding import planned

            assert planned() == {}
        assert any("'self.nothing.weight', which is no Parameter of Dense" in str(w.message) for w in caught)
        dense.shard(((1, 1),), parameter_plan={"weight": (1, 1)})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the first plan still names nothing
            assert planned() == {"weight": (1, 1)}
    finally:
        ms.reset_auto_parallel_context()
    with pytest.raises(ContextError, match="device_num=3 but the job has 1 rank"):
        ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=3)
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"


# ----------------------------------------------------------------- two msrun ranks of two devices each
def test_two_ranks_of_two_devices_each_train_like_one_device(tmp_path):
    import socket

    script = os.path.join(ROOT, "tests", "sharding", "ranks_x_devices.py")
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=ROOT)
    for key in ("RANK_SIZE", "RANK_ID", "MS_SCHED_HOST", "MSX_CLUSTER_PID", "XLA_FLAGS"):
        env.pop(key, None)
    (tmp_path / "ref").mkdir()
    subprocess.run([sys.executable, script, str(tmp_path / "ref")], env=env, check=True, capture_output=True,
                   timeout=600, cwd=ROOT)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.run([sys.executable, "-m", "msx.run", "--worker_num=2", "--local_worker_num=2",
                           f"--master_port={port}", f"--log_dir={tmp_path / 'log'}", "--join=True", script,
                           str(tmp_path)], env=dict(env, XLA_FLAGS="--xla_force_host_platform_device_count=2"),
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for mode in ("ast", "bytecode", "trace"):
        want = dict(np.load(tmp_path / "ref" / f"{mode}_rank0.npz"))
        assert int(want["_device_num"]) == 1 and "num_partitions = 1" in str(want["_hlo"])
        for r in (0, 1):
            got = dict(np.load(tmp_path / f"{mode}_rank{r}.npz"))
            assert int(got["_device_num"]) == 4
            hlo = str(got["_hlo"])
            # one program over the 2 x 2 mesh: each rank's 8 rows (its own value, unsplit over the ranks) cut over
            # its 2 devices, psum over the ranks
            assert "mhlo.num_partitions = 4" in hlo and "all_reduce" in hlo
            assert 'tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"local"}, {}]>}' in hlo, hlo[:3000]
            for name, w in want.items():
                if not name.startswith("_"):
                    np.testing.assert_allclose(got[name], w, rtol=1e-5, atol=1e-5, err_msg=f"{mode} rank {r} {name}")
