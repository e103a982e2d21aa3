"""Scaling out past two ranks and the optimizer parallel, on real msrun jobs (CPU worker processes, gloo).

Four ranks train like one process on the whole batch (PyNative, jit, TrainOneStepCell) and run every
collective against numpy; the parallel optimizer (ZeRO-1, and ZeRO-2: the gradients reduce-scattered) over two
and four ranks keeps only this rank's rows of the Adam (and Lamb) state, trains exactly like the unsharded
one-process run, and its per-rank checkpoints hold full tensors that load on one device.
"""
import numpy as np
import pytest

import msx as ms
from msx import nn
from msx.errors import ContextError

import jobs

# +l2: optimizer_level level2 (gradients reduce-scattered); +lamb: Lamb (its norms summed over the ranks)
ZERO_MODES_2 = ("zero-1:pynative", "zero-1:jit:ast", "zero-1:jit:bytecode", "zero-1:jit:trace",
                "zero-1+l2:pynative", "zero-1+l2:jit:ast", "zero-1+l2:train_one_step", "zero-1+lamb:pynative",
                "zero-1+lamb+l2:jit:ast")
MODES_4 = ("pynative", "jit:ast", "zero2:train_one_step", "zero-1:jit:ast", "zero2+l2:jit:ast")
# rows of this rank's moment1 buffers for Dense(4, 8) weight/bias and Dense(8, 2) weight/bias
ROWS = {1: [8, 8, 2, 2], 2: [4, 4, 1, 1], 4: [2, 2, 2, 2]}  # with 4 parts the (2, 8) weight and (2,) bias stay whole


def _name(mode: str) -> str:
    return mode.replace(":", "_")


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref")
    jobs.one_process(out, "pynative,adam:pynative,lamb:pynative")
    return out


def _job(tmp_path_factory, name: str, ranks: int, modes):
    out = tmp_path_factory.mktemp(name)
    proc, _ = jobs.msrun(out / "log", f"--worker_num={ranks}", f"--local_worker_num={ranks}",
                         script_args=(",".join(modes), str(out)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    return _job(tmp_path_factory, "zero2", 2, ZERO_MODES_2)


@pytest.fixture(scope="module")
def four_ranks(tmp_path_factory):
    return _job(tmp_path_factory, "dp4", 4, MODES_4)


def _check_ranks(out, mode, size, reference_file):
    want = dict(np.load(reference_file))
    ranks = [dict(np.load(out / f"{_name(mode)}_rank{r}.npz")) for r in range(size)]
    for name, value in want.items():
        if name.startswith("_"):
            continue
        assert not np.allclose(value, 0)
        for r in ranks:
            np.testing.assert_array_equal(r[name], ranks[0][name])  # the ranks never drift apart
        np.testing.assert_allclose(ranks[0][name], value, rtol=1e-5, atol=1e-5, err_msg=f"{mode} {name}")
    if "pynative" not in mode:
        for r in ranks:  # one SPMD program, compiled once, that reduces the gradients over the ranks
            assert int(r["_xla_compiles"]) == 1 and bool(r["_hlo_reduce_scatter" if "+l2" in mode else
                                                            "_hlo_all_reduce"])
    return ranks


@pytest.mark.parametrize("mode", ("pynative", "jit:ast"))
def test_four_ranks_train_like_one_process_on_the_whole_batch(four_ranks, reference, mode):
    _check_ranks(four_ranks, mode, 4, reference / "pynative_rank0.npz")


def test_collectives_over_four_ranks_eager_and_jitted_equal_numpy(four_ranks):
    rows = [np.arange(12, dtype=np.float32).reshape(4, 3) * (r + 1) - r for r in range(4)]
    want = {"sum": np.sum(rows, 0), "max": np.max(rows, 0), "min": np.min(rows, 0), "prod": np.prod(rows, 0),
            "gather": np.concatenate(rows, 0), "broadcast": rows[3]}
    for r in range(4):
        got = np.load(four_ranks / f"collectives_rank{r}.npz")
        for kind, value in {**want, "scatter": np.sum(rows, 0)[r:r + 1]}.items():
            for how in ("eager", "jit"):
                np.testing.assert_allclose(got[f"{how}_{kind}"], value, rtol=1e-6, err_msg=f"{how} {kind} rank {r}")
        total = np.sum(rows, 0)
        more = {"eager_ops_all_reduce": total, "jit_ops_all_reduce": total, "ops_broadcast": rows[3],
                "ops_all_gather_into_tensor": want["gather"], "ops_all_gather": want["gather"],
                "ops_reduce_scatter_tensor": total[r:r + 1], "ops_reduce_scatter": total * (r + 1),
                "cf_reduce": total if r == 0 else rows[r], "cf_gather_into_tensor": want["gather"] if r == 0 else
                np.zeros(1), "cf_scatter_tensor": rows[3][r:r + 1], "ranks": [r, 0, 1, 2, 3]}
        for kind, value in more.items():
            np.testing.assert_allclose(got[kind], value, rtol=1e-6, err_msg=f"{kind} rank {r}")


def _check_zero(out, mode, size, parts, reference):
    kind = "lamb" if "+lamb" in mode else "adam"
    ranks = _check_ranks(out, mode, size, reference / f"{kind}_pynative_rank0.npz")
    assert list(np.load(reference / f"{kind}_pynative_rank0.npz")["_moment1_rows"]) == ROWS[1]
    for r in ranks:
        assert list(r["_moment1_rows"]) == ROWS[parts]  # each rank holds only its rows of the state
        # level2: the reducer hands each rank only its rows of the reduced gradients (level1: all of them)
        assert list(r["_reduced_rows"]) == (ROWS[parts] if "+l2" in mode else ROWS[1])
        if "pynative" not in mode:
            assert bool(r["_hlo_all_gather"])  # the updated rows are gathered inside the compiled step
    if kind == "adam":
        jobs.check_zero_checkpoints(out, _name(mode), size, reference)


@pytest.mark.parametrize("mode", ZERO_MODES_2)
def test_parallel_optimizer_over_two_ranks_equals_the_unsharded_run(two_ranks, reference, mode):
    _check_zero(two_ranks, mode, 2, 2, reference)


@pytest.mark.parametrize("mode,parts", (("zero2:train_one_step", 2), ("zero-1:jit:ast", 4), ("zero2+l2:jit:ast", 2)))
def test_parallel_optimizer_over_four_ranks_equals_the_unsharded_run(four_ranks, reference, mode, parts):
    _check_zero(four_ranks, mode, 4, parts, reference)


def test_parallel_optimizer_config_takes_mindsporess_keys_and_refuses_what_msx_cannot_do():
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(enable_parallel_optimizer=True, parallel_optimizer_config={
        "optimizer_weight_shard_size": 2, "parallel_optimizer_threshold": 0, "optimizer_level": "level1",
        "gradient_accumulation_shard": False})
    assert ms.get_auto_parallel_context("parallel_optimizer_config")["optimizer_weight_shard_size"] == 2
    net = nn.Dense(4, 8)
    optimizer = nn.Adam(net.trainable_params())  # stand_alone, one rank: nothing to shard, the state is whole
    assert optimizer.moment1[0].shape == (8, 4)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
    with pytest.warns(UserWarning, match="exceeds the data-parallel group of 1"):  # a cluster's script on a laptop
        optimizer = nn.Adam(net.trainable_params())
    assert optimizer.moment1[0].shape == (8, 4)
    ms.set_auto_parallel_context(parallel_optimizer_config={"optimizer_level": "level2"})  # ZeRO-2: honoured
    for config, words in (({"optimizer_level": "level3"}, "not supported"), ({"bogus": 1}, "unknown keys"),
                          ({"optimizer_weight_shard_size": 0}, "-1 or an int"),
                          ({"parallel_optimizer_threshold": -1}, ">= 0"),
                          ({"gradient_accumulation_shard": True}, "accumulation")):
        with pytest.raises(ContextError, match=words):
            ms.set_auto_parallel_context(parallel_optimizer_config=config)
    with pytest.raises(ContextError, match="must be a bool"):
        ms.set_auto_parallel_context(enable_parallel_optimizer=1)
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("enable_parallel_optimizer") is False


def test_export_and_checkpoint_of_a_data_parallel_network_run_on_one_device(four_ranks, reference):
    from msx.stablehlo_file import load_stablehlo

    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 4)).astype(np.float32)  # train_dp.py's whole batch
    net = nn.SequentialCell(nn.Dense(4, 8), nn.Tanh(), nn.Dense(8, 2))
    params = dict(np.load(reference / "pynative_rank0.npz"))
    ms.load_param_into_net(net, {k: ms.Parameter(ms.Tensor(v), name=k) for k, v in params.items()}, strict_load=True)
    want = net(ms.Tensor(x)).asnumpy()  # the one-process network trained on the whole batch
    for r in range(4):
        folder = four_ranks / f"export_{r}"
        trained = np.load(four_ranks / f"jit_ast_rank{r}.npz")["_forward"]
        np.testing.assert_allclose(trained, want, rtol=1e-5, atol=1e-6)
        graph = nn.GraphCell(ms.load(str(folder / "net.msxir")))
        np.testing.assert_allclose(graph(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
        mindir = ms.load(str(folder / "net.mindir"))
        assert "AllReduce" not in str(getattr(mindir, "graph", mindir))
        exported = load_stablehlo(str(folder / "net.stablehlo"))
        np.testing.assert_allclose(np.asarray(exported.call(x)), want, rtol=1e-5, atol=1e-6)
        one = nn.SequentialCell(nn.Dense(4, 8), nn.Tanh(), nn.Dense(8, 2))
        ms.load_checkpoint(str(folder / "net.ckpt"), one, strict_load=True)
        np.testing.assert_allclose(one(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
