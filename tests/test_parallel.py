"""Data parallelism on jax's multi-process runtime: msrun, msx.communication, AllReduce, DistributedGradReducer.

The multi-process tests launch real `msrun` jobs of two CPU worker processes (gloo collectives) and compare
every rank's parameters with each other and with a one-process run on the whole batch.
"""
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

import msx as ms
from msx import nn, ops
from msx.errors import CommunicationError, ContextError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tests", "parallel", "train_dp.py")
MODES = ("pynative", "jit:ast", "jit:bytecode", "jit:trace", "train_one_step")
JOB_TIMEOUT = 420  # a loaded 2-core machine; a healthy job takes ~30 s


sys.path.insert(0, os.path.join(ROOT, "tests", "parallel"))
from jobs import env as _env, free_port as _port  # noqa: E402  (a clean worker environment, a free port)


def _msrun(tmp, *flags, env=None, script_args=()):
    cmd = [sys.executable, "-m", "msx.run", *flags, f"--master_port={_port()}", f"--log_dir={tmp / 'log'}",
           "--join=True", SCRIPT, *script_args]
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env or _env(), capture_output=True, text=True, timeout=JOB_TIMEOUT, cwd=ROOT)
    return proc, time.monotonic() - start


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref")
    subprocess.run([sys.executable, SCRIPT, "pynative", str(out)], env=_env(), check=True, capture_output=True,
                   timeout=JOB_TIMEOUT, cwd=ROOT)
    return dict(np.load(out / "pynative_rank0.npz"))


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dp2")
    proc, _ = _msrun(tmp, "--worker_num=2", "--local_worker_num=2", script_args=(",".join(MODES), str(tmp)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return tmp


@pytest.mark.parametrize("mode", MODES)
def test_two_ranks_train_like_one_process_on_the_whole_batch(two_ranks, reference, mode):
    ranks = [dict(np.load(two_ranks / f"{mode.replace(':', '_')}_rank{r}.npz")) for r in (0, 1)]
    for name, want in reference.items():
        assert not np.allclose(want, 0)
        np.testing.assert_array_equal(ranks[0][name], ranks[1][name])  # the ranks never drift apart
        np.testing.assert_allclose(ranks[0][name], want, rtol=1e-5, atol=1e-5)
    if mode != "pynative":
        for r in ranks:
            assert int(r["_xla_compiles"]) == 1 and bool(r["_hlo_all_reduce"])  # compiled once, one SPMD program
            assert bool(r["_params_kept_global"])  # the Parameters stay global arrays between steps


def test_collectives_over_two_ranks_eager_and_jitted_equal_numpy(two_ranks):
    rows = [np.arange(6, dtype=np.float32).reshape(2, 3) * (r + 1) - r for r in (0, 1)]
    want = {"sum": np.sum(rows, 0), "max": np.max(rows, 0), "min": np.min(rows, 0), "prod": np.prod(rows, 0),
            "gather": np.concatenate(rows, 0), "broadcast": rows[1]}
    for r in (0, 1):
        got = np.load(two_ranks / f"collectives_rank{r}.npz")
        for kind, value in {**want, "scatter": np.sum(rows, 0)[r:r + 1]}.items():
            for how in ("eager", "jit"):
                np.testing.assert_allclose(got[f"{how}_{kind}"], value, rtol=1e-6, err_msg=f"{how} {kind} rank {r}")


def test_each_worker_has_its_log(two_ranks):
    for r in (0, 1):
        log = (two_ranks / "log" / f"worker_{r}.log").read_text()
        assert f"rank {r} jit:ast: loss" in log and f"joined the cluster: rank {r} of 2" in log


def test_a_dying_worker_fails_the_job_fast_with_its_log_tail(tmp_path, reference):
    proc, took = _msrun(tmp_path, "--worker_num=2", "--local_worker_num=2", env=_env(MSX_TEST_DIE_RANK="1"),
                        script_args=("pynative", str(tmp_path)))
    assert proc.returncode != 0
    assert "worker 1 " in proc.stderr and "dying on purpose" in proc.stderr  # the dead rank's log tail
    assert not (tmp_path / "pynative_rank0.npz").exists()  # rank 0 was stopped, not left waiting
    assert took < JOB_TIMEOUT / 2


def test_a_cluster_that_does_not_form_times_out(tmp_path):
    # this node starts rank 0 of 2; rank 1 (another node) never comes
    proc, took = _msrun(tmp_path, "--worker_num=2", "--local_worker_num=1", "--node_rank=0", "--cluster_time_out=3",
                        script_args=("pynative", str(tmp_path)))
    assert proc.returncode != 0
    assert "worker 0 had not joined the cluster" in proc.stderr and "--cluster_time_out=3" in proc.stderr
    assert took < JOB_TIMEOUT / 2


# ----------------------------------------------------------------- in this process: a one-process group
def test_msrun_refuses_layouts_that_cannot_form_a_cluster():
    from msx import run

    for argv, words in ((["--worker_num=4", "--local_worker_num=2", "x.py"], "--node_rank"),
                        (["--worker_num=2", "--local_worker_num=4", "x.py"], "exceeds"),
                        (["--worker_num=4", "--local_worker_num=2", "--node_rank=2", "x.py"], "past"),
                        (["--worker_num=0", "--local_worker_num=0", "x.py"], ">= 1")):
        with pytest.raises(SystemExit, match=words):
            run.check(run.parser().parse_args(argv))
    args = run.parser().parse_args(["--worker_num=4", "--local_worker_num=2", "--node_rank=1", "t.py", "--lr", "1"])
    assert args.task_script_args == ["--lr", "1"] and args.join is False
    own = run.parser().parse_args(["--worker_num=2", "t.py", "--worker=out.json", "--log_dir", "x"])
    assert own.task_script_args == ["--worker=out.json", "--log_dir", "x"] and own.log_dir != "x"  # the script's
    env = run.worker_env(args, 3, 1)
    assert (env["RANK_ID"], env["RANK_SIZE"], env["LOCAL_RANK"], env["MS_SCHED_PORT"]) == ("3", "4", "1", "8118")


def test_one_process_group_without_a_launcher(monkeypatch):
    from msx.communication import GlobalComm, get_group_size, get_local_rank, get_local_rank_size, get_rank, init

    monkeypatch.setattr(GlobalComm, "INITED", False)  # as in a fresh process, whatever ran earlier in this worker
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        init()
    assert any("one-process group" in str(w.message) for w in caught)
    assert GlobalComm.INITED
    assert (get_rank(), get_group_size(), get_local_rank(), get_local_rank_size()) == (0, 1, 0, 1)
    ms.communication.create_group("g", [0])  # a group of world ranks (docs/distributed.md)
    assert get_group_size("g") == 1 and get_rank("g") == 0
    with pytest.raises(CommunicationError, match="already exists"):
        ms.communication.create_group("g", [0])
    ms.communication.destroy_group("g")
    with pytest.raises(CommunicationError, match="unknown"):
        get_rank("my_group")
    with pytest.raises(CommunicationError, match="backend_name"):
        init("mpi")


def test_collectives_on_one_rank_are_the_identity_eager_and_jitted():
    from msx.communication import comm_func, init

    init()
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    for op in (ops.ReduceOp.SUM, ops.ReduceOp.MAX, ops.ReduceOp.PROD):
        np.testing.assert_array_equal(ops.AllReduce(op)(x).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(comm_func.all_gather_into_tensor(x).asnumpy(), x.asnumpy())
    for mode in ("ast", "bytecode", "trace"):
        f = ms.jit(lambda t: comm_func.all_reduce(t * 2), capture_mode=mode)
        np.testing.assert_array_equal(f(x).asnumpy(), x.asnumpy() * 2)
    assert "AllReduce" in str(ms.jit(lambda t: ops.AllReduce()(t)).capture(x))
    np.testing.assert_array_equal(comm_func.reduce_scatter_tensor(x).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ops.Broadcast(0)((x,))[0].asnumpy(), x.asnumpy())
    with pytest.raises(ValueError, match="op must be one of"):
        ops.AllReduce("avg")
    with pytest.raises(ValueError, match="root_rank=1 is not a rank of this group of 1"):
        comm_func.broadcast(x, src=1)


def test_grad_reducer_divides_by_the_degree_and_follows_gradients_mean():
    from msx.communication import init

    init()
    net = nn.Dense(3, 2)
    grads = tuple(ms.Tensor(np.full(p.shape, 4.0, np.float32)) for p in net.trainable_params())
    halved = nn.DistributedGradReducer(net.trainable_params(), mean=True, degree=2)(grads)
    assert all(np.allclose(g.asnumpy(), 2.0) for g in halved)
    ms.set_auto_parallel_context(gradients_mean=False)
    summed = nn.DistributedGradReducer(net.trainable_params(), degree=2)(grads)
    assert all(np.allclose(g.asnumpy(), 4.0) for g in summed)
    ms.reset_auto_parallel_context()
    half = ms.Tensor(np.full((2,), 3.0, np.float16))
    out = nn.DistributedGradReducer([net.bias], mean=True, degree=2)((half,))[0]
    assert out.dtype == ms.float16 and np.allclose(out.asnumpy(), 1.5)
    with pytest.raises(ValueError, match="gradients for 1 parameters"):
        nn.DistributedGradReducer([net.bias])(grads)


# MindSpore 2.10's set_auto_parallel_context keys (`mindspore.parallel._auto_parallel_context.
# _set_auto_parallel_context_func_map`) and the defaults `get_auto_parallel_context` gives for some of them
MS_CONTEXT_KEYS = (
    "all_reduce_fusion_config auto_parallel_new_interface auto_parallel_search_mode auto_pipeline comm_fusion "
    "communi_parallel_mode dataset_strategy device_num dump_device_local_norm dump_local_norm dump_local_norm_path "
    "enable_alltoall enable_parallel_optimizer force_fp32_communication full_batch global_rank grad_accumulation_step "
    "gradient_fp32_sync gradients_mean group_ckpt_save_file init_param_in_compile loss_repeated_mean "
    "optimizer_weight_shard_aggregated_save optimizer_weight_shard_size parallel_mode parallel_optimizer_config "
    "parameter_broadcast pipeline_config pipeline_result_broadcast pipeline_segments pipeline_stages search_mode "
    "sharding_propagation strategy_ckpt_config strategy_ckpt_load_file strategy_ckpt_save_file").split()
MS_DEFAULTS = {"strategy_ckpt_config": {"load_file": "", "save_file": "", "only_trainable_params": True},
               "pipeline_result_broadcast": False, "optimizer_weight_shard_size": -1,
               "optimizer_weight_shard_aggregated_save": False, "init_param_in_compile": True,
               "dump_local_norm": False, "dump_local_norm_path": "", "dump_device_local_norm": False,
               "communi_parallel_mode": "all_group_parallel", "auto_parallel_search_mode": "recursive_programming",
               "auto_parallel_new_interface": False}


def test_every_mindspore_context_key_is_known_with_its_default():
    """Each of MindSpore's keys is honoured, accepted or refused by name (docs/parallel.md), never 'unknown'."""
    from msx.parallel.context import _CHECKS

    ms.reset_auto_parallel_context()
    assert sorted(set(MS_CONTEXT_KEYS) - set(_CHECKS)) == []
    assert {k: ms.get_auto_parallel_context(k) for k in MS_DEFAULTS} == MS_DEFAULTS


def test_auto_parallel_context_keys_defaults_and_refusals():
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("parallel_mode") == ms.ParallelMode.STAND_ALONE == "stand_alone"
    assert ms.ParallelMode.MODE_LIST == ["stand_alone", "data_parallel", "hybrid_parallel", "semi_auto_parallel",
                                         "auto_parallel"]
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True, device_num=1,
                                 all_reduce_fusion_config=[2], search_mode="sharding_propagation")
    assert ms.get_auto_parallel_context("gradients_mean") is True
    assert ms.get_auto_parallel_context("parallel_mode") == "data_parallel"
    for key, value, words in (("pipeline_stages", 0, "pipeline_stages must be"), ("parallel_mode", "hybrid_parallel", "hybrid"),
                              ("parallel_optimizer_config", {"optimizer_level": "level3"}, "level3"),
                              ("full_batch", 1, "must be a bool"), ("dataset_strategy", "bogus", "must be"),
                              ("parallel_mode", "nonsense", "not valid"), ("device_num", 0, ">= 1"),
                              ("bogus", 1, "unknown key")):
        with pytest.raises(ContextError, match=words):
            ms.set_auto_parallel_context(**{key: value})
    from msx.communication import init

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        init()
    with pytest.raises(ContextError, match="device_num=4 but the job has 1 rank"):
        ms.set_auto_parallel_context(device_num=4)
    with pytest.raises(ContextError):  # all checked before any applied
        ms.set_auto_parallel_context(gradients_mean=False, pipeline_stages=0)
    assert ms.get_auto_parallel_context("gradients_mean") is True
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("gradients_mean") is False
    assert ms.get_auto_parallel_context("pipeline_stages") == 1
