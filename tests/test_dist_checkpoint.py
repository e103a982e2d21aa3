"""Distributed checkpoints (msx.parallel.dist_checkpoint, msx.parallel.strategy_file; docs/parallel.md).

The 8-device job (dist_checkpoint_job.py, one fresh process) saves examples/train_llama_parallel.py's LLaMA
after a dp2 x tp2 x pp2 step rank by rank, re-shards it to one device and to a dp4 run, and the loaded models
give the loss of the whole tensors; the MindSpore oracle (golden_dist_checkpoint: MindSpore 2.10's
transform_checkpoints run on files msx wrote) fixes every re-sharded value."""
import json
import os
import sys

import numpy as np
import pytest

from host_devices import ROOT, run_json

import msx as ms
from msx.errors import CheckpointError, MalformedFileError
from msx.parallel import strategy_file as sf

GOLDEN = os.path.join(os.path.dirname(__file__), "golden_dist_checkpoint")
sys.path.insert(0, GOLDEN)
import dist_cases as cases  # noqa: E402


@pytest.fixture(scope="module")
def job():
    return run_json(path=os.path.join(ROOT, "tests", "dist_checkpoint_job.py"))


def test_each_rank_saves_its_own_slices_and_the_strategy(job):
    assert job["src_ranks"] == [f"rank_{r}" for r in range(8)] + ["strategy.ckpt"]
    # kept between steps cut over the 2 stages (each stage's Parameters on its own devices) and, ZeRO-3, over a
    # stage's 4 devices; the rank files and strategy hold the stage view, MindSpore's: 64 / 4 rows per rank
    assert job["src_wq_sharding"] == "P(('pipe', 's0', 's1'), None)"
    assert job["src_rank5_wq_shape"] == [16, 64]
    assert job["src_layout_wq"] == "ParamLayout(dev_matrix=(4,), tensor_map=(0, -1), stages=(0, 1))"
    assert job["rank_slices_wrong"] == []


def test_transformed_to_one_device_and_to_dp4_the_loss_is_the_same(job):
    ref = job["loss_reference"]
    assert abs(ref - job["loss_untrained"]) > 1e-2          # the step changed the weights: the check can fail
    assert abs(job["loss_one_device"] - ref) <= 1e-5 * abs(ref)
    assert abs(job["loss_dp4"] - ref) <= 1e-5 * abs(ref)
    assert abs(job["loss_dp4_before_load"] - job["loss_untrained"]) <= 1e-5 * abs(ref)
    assert job["one_equals_integrated"] and job["one_files"] == [["rank_0"], ["net0.ckpt"]]
    assert job["dp4_layout_wq"] == "ParamLayout(dev_matrix=(2, 2), tensor_map=(1, -1), stages=(0,))"
    assert job["dp4_ranks"] == ["rank_0", "rank_1", "rank_2", "rank_3"] and job["dp4_rank3_wq_shape"] == [32, 64]
    assert job["rank_list_dp4_rank0"] == [1, 0] and job["rank_list_dp4_rank3"] == [3, 2]
    assert job["rank_list_one_device"] == [3, 2, 1, 0] and job["by_rank_equals_transform"]


def test_unified_safetensors_equals_the_integrated_save(job):
    assert job["unified_files"] == ["param_name_map.json", "part0.safetensors"]
    assert job["unified_equals_integrated"]


def test_a_damaged_or_missing_rank_is_refused_by_rank_before_writing(job):
    errors = job["errors"]
    assert "the checkpoint of rank 2" in errors["truncated"] and "truncated" in errors["truncated"]
    assert "the checkpoint of rank 2 is needed for rank 0, but it is missing" in errors["missing"]
    assert not errors["truncated_wrote"] and not errors["missing_wrote"]


# ---------------------------------------------------------------- MindSpore 2.10's answers (no devices needed)
@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("dckpt"))
    src, dst = cases.make(folder)
    with open(os.path.join(GOLDEN, "mindspore.json")) as f:
        return folder, src, dst, json.load(f)


@pytest.mark.parametrize("key", ["dp4", "one"])
def test_transform_equals_mindspore(oracle, key):
    folder, src, dst, golden = oracle
    ms.parallel.transform_checkpoints(os.path.join(folder, "src"), os.path.join(folder, key), "net", src,
                                      dst if key == "dp4" else None)
    assert sorted(os.listdir(os.path.join(folder, key))) == [f"rank_{r}" for r in map(int, golden[key])]
    for rank, want in golden[key].items():
        got = ms.load_checkpoint(os.path.join(folder, key, f"rank_{rank}", f"net{rank}.ckpt"))
        assert sorted(got) == sorted(want)
        for name, entry in want.items():
            assert list(got[name].shape) == entry["shape"]
            np.testing.assert_array_equal(got[name].asnumpy().ravel(), np.array(entry["values"], np.float32))


def test_rank_lists_and_strategies_match_mindspore(oracle):
    _, src, dst, golden = oracle
    for rank, theirs in golden["rank_list"].items():
        ours = ms.parallel.rank_list_for_transform(int(rank), src, dst)
        # msx names one holder per needed slice; MindSpore (more cautious) every stage's: ours suffice, theirs hold them
        assert set(ours) <= set(theirs) and ours == sorted(ours, reverse=True)
    assert ms.parallel.rank_list_for_transform(0, src, dst) == [5, 4, 3, 2, 1, 0]   # "h" lives on stage 1 only
    assert ms.parallel.convert_checkpoints is ms.parallel.transform_checkpoints
    found = ms.parallel.build_searched_strategy(src)
    assert {n: [list(v.dev_matrix[0].dim), list(v.tensor_map[0].dim)] for n, v in found.items()} == \
        golden["build_searched_strategy"]


def test_load_distributed_checkpoint_merges_the_ranks(oracle):
    folder, src, _, _ = oracle
    files = [os.path.join(folder, "src", f"rank_{r}", "net.ckpt") for r in range(8)]
    params = ms.parallel.load_distributed_checkpoint(None, files, None, src, return_param_dict=True)
    for name in cases.SHAPES:
        np.testing.assert_array_equal(params[name].asnumpy(), cases.whole(name))
    with pytest.raises(CheckpointError, match="file .*gone of rank 5 does not exist"):   # "h"'s stage-1 holder
        ms.parallel.load_distributed_checkpoint(None, files[:5] + [files[5] + ".gone"] + files[6:], None, src,
                                                return_param_dict=True)


def test_untrusted_strategy_files_are_refused(tmp_path):
    bad = tmp_path / "s.ckpt"
    bad.write_bytes(b"\xff" * 40)
    with pytest.raises(MalformedFileError, match="not a strategy file"):
        sf.read(str(bad))
    lay = sf.ParamLayout((2, 2), (5, -1))
    sf.save(str(bad), {"w": lay})
    with pytest.raises(CheckpointError, match="parameter 'w' is not valid"):
        sf.read(str(bad))
    with pytest.raises(CheckpointError, match="no such strategy file"):
        sf.read(str(tmp_path / "none.ckpt"))
    msg = sf._classes()["ParallelStrategyMap"](current_stage=0)
    item = msg.parallel_layout_item.add(param_name="w")
    sf.ParamLayout((4,), (0,))._fill(item.parallel_layouts)
    item.parallel_layouts.opt_weight_shard_size = 2
    bad.write_bytes(msg.SerializeToString())
    with pytest.raises(CheckpointError, match="optimizer-shard layout"):
        sf.read(str(bad))


def test_a_layout_from_a_sharding_merges_consecutive_axes():
    class Mesh:   # the two attributes layout_of reads of a jax Mesh
        axis_names = ("pipe", "s0", "s1", "s2")
        devices = np.zeros((2, 2, 2, 2))
        shape = {"pipe": 2, "s0": 2, "s1": 2, "s2": 2}

    class Sharding:
        mesh, spec = Mesh, (("s0", "s1"), "s2")

    assert sf.layout_of(Sharding, 2) == sf.ParamLayout((4, 2), (1, 0), (0, 1))
    Sharding.spec = (("s0", "s2"), None)   # not consecutive: MindSpore's multi-axis form
    assert sf.layout_of(Sharding, 2) == sf.ParamLayout((2, 2, 2), ((2, 0), -1), (0, 1))
    assert sf.ParamLayout((2, 2, 2), ((2, 0), -1)).block(5) == (3, 0)   # coordinates (1, 0, 1): 1*2 + 1


LOAD_STEP = """
import json, sys
import numpy as np
import msx as ms
from msx import nn, ops
from msx.errors import ContextError
from msx.parallel import strategy_file

class Net(nn.Cell):
    def __init__(self, plan):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        if plan:
            self.fc1.shard(in_strategy=((4, 1),), parameter_plan={"self.fc1.weight": (2, 2)})
        self.fc2 = nn.Dense(8, 2)

    def construct(self, x):
        return self.fc2(ops.tanh(self.fc1(x))).sum()

def run(plan, **keys):
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=4, **keys)
    ms.set_seed(0)
    net = Net(plan)
    return float(ms.jit(lambda x: net(x))(ms.Tensor(np.arange(32, dtype=np.float32).reshape(8, 4) / 32)))

d = sys.argv[1] if len(sys.argv) > 1 else "."
out = {"planned": run(True, strategy_ckpt_save_file=d + "/a.ckpt")}
out["loaded"] = run(False, strategy_ckpt_config={"load_file": d + "/a.ckpt", "save_file": d + "/b.ckpt"})
out["plain"] = run(False, strategy_ckpt_save_file=d + "/c.ckpt")
out["inputs_cut"] = run(False, dataset_strategy=((1, 4),))
try:
    run(False, dataset_strategy=((3, 1),))
except ContextError as e:
    out["bad_input_cut"] = str(e)
try:   # one strategy, two inputs
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=4, dataset_strategy=((4, 1),))
    net = Net(False)
    ones = ms.Tensor(np.ones((8, 4), np.float32))
    ms.jit(lambda x, y: net(x) + net(y))(ones, ones * 2)
except ContextError as e:
    out["too_few_strategies"] = str(e)
read = {k: strategy_file.read(d + f"/{k}.ckpt")["fc1.weight"] for k in "abc"}
out["layouts"] = {k: [list(v.dev_matrix), list(v.tensor_map)] for k, v in read.items()}
try:
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=2, strategy_ckpt_load_file=d + "/a.ckpt")
    net = Net(False)
    ms.jit(lambda x: net(x))(ms.Tensor(np.ones((8, 4), np.float32)))
    out["refused"] = None
except ContextError as e:
    out["refused"] = str(e)
print(json.dumps(out))
"""


def test_a_loaded_strategy_file_lays_the_parameters_out(tmp_path):
    """strategy_ckpt_config's load_file (strategy_ckpt_load_file): a network with no plan of its own gets the
    saved run's cut of fc1.weight (the strategy it writes equals the loaded one, not its own replicated one), with
    the same loss; a file for 4 devices is refused by a 2-device step, naming both."""
    out = run_json(LOAD_STEP.replace('sys.argv[1] if len(sys.argv) > 1 else "."', repr(str(tmp_path))), devices=4)
    assert out["layouts"]["a"] == out["layouts"]["b"] != out["layouts"]["c"], out
    assert out["layouts"]["c"][1] == [-1, -1], out   # without the file: whole on every device
    np.testing.assert_allclose([out["loaded"], out["plain"], out["inputs_cut"]], out["planned"], rtol=1e-6)
    assert "dataset_strategy[0] (3, 1) cuts the tensor into 3 slices" in out["bad_input_cut"], out
    assert "dataset_strategy gives 1 strategies, but the step has more inputs (input 1" in out["too_few_strategies"], out
    assert "1 pipeline stage(s) of 4 device(s), this step over 1 of 2" in out["refused"], out


def test_strategy_ckpt_config_is_one_dict_over_the_two_file_keys():
    """MindSpore's spellings: strategy_ckpt_config shares its files with strategy_ckpt_load_file/_save_file, the
    old optimizer_weight_shard_size and auto_parallel_search_mode write the keys msx keeps."""
    ms.reset_auto_parallel_context()
    try:
        ms.set_auto_parallel_context(strategy_ckpt_config={"load_file": "a.ckpt", "save_file": "b.ckpt"})
        ms.set_auto_parallel_context(strategy_ckpt_save_file="c.ckpt")
        assert ms.get_auto_parallel_context("strategy_ckpt_config") == \
            {"load_file": "a.ckpt", "save_file": "c.ckpt", "only_trainable_params": True}
        assert ms.get_auto_parallel_context("strategy_ckpt_load_file") == "a.ckpt"
        with pytest.raises(ms.errors.ContextError, match="unknown keys \\['bogus'\\]"):
            ms.set_auto_parallel_context(strategy_ckpt_config={"bogus": 1})
        with pytest.raises(ms.errors.ContextError, match="only_trainable_params must be a bool"):
            ms.set_auto_parallel_context(strategy_ckpt_config={"only_trainable_params": 1})
        ms.set_auto_parallel_context(optimizer_weight_shard_size=2, auto_parallel_search_mode="sharding_propagation")
        assert ms.get_auto_parallel_context("parallel_optimizer_config")["optimizer_weight_shard_size"] == 2
        assert ms.get_auto_parallel_context("optimizer_weight_shard_size") == 2
        assert ms.get_auto_parallel_context("search_mode") == "sharding_propagation"
        with pytest.raises(ms.errors.ContextError, match="dump_local_norm must be a bool"):
            ms.set_auto_parallel_context(dump_local_norm=1)
    finally:
        ms.reset_auto_parallel_context()
