"""The 8-host-device job of tests/test_dist_checkpoint.py (run in a fresh process by host_devices.run_json).

examples/train_llama_parallel.py's LLaMA trains one step with dp2 x tp2 x pp2 (1F1B, ZeRO-3: every weight cut
on axis 0 over a stage's 4 devices, replicated over the 2 stages), then saves each rank's slices
(`integrated_save=False`, safetensors) and the whole tensors (`integrated_save=True`, the reference). From the
8 rank files the job re-shards to one device and to a 4-device dp4 run (ZeRO-3 with optimizer_weight_shard_size
2: axis 0 cut in 2, a strategy the dp4 step writes when it compiles), merges them with unified_safetensors, and
damages copies of them; it prints one JSON line of what it measured.
"""
import json
import os
import shutil
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import train_llama_parallel as L  # noqa: E402

import msx as ms  # noqa: E402
from msx import nn  # noqa: E402
from msx.errors import CheckpointError  # noqa: E402
from msx.parallel import strategy_file  # noqa: E402

work = tempfile.mkdtemp(prefix="msx_dckpt_")
out: dict = {}
tokens = np.random.default_rng(7).integers(0, L.VOCAB, size=(L.BATCH, L.SEQ + 1)).astype(np.int32)
batch = (ms.Tensor(tokens[:, :-1]), ms.Tensor(tokens[:, 1:]))


def arrays(path):
    return {k: v.asnumpy() for k, v in ms.load_checkpoint(path).items()}


# ---------------------------------------------------------------- 1. the 8-device run, saved per rank
ms.reset_auto_parallel_context()
ms.set_auto_parallel_context(
    parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=8, pipeline_stages=L.PP,
    pipeline_config={"pipeline_interleave": False, "pipeline_scheduler": "1f1b"}, enable_parallel_optimizer=True,
    parallel_optimizer_config={"optimizer_level": "level3", "parallel_optimizer_threshold": 0})
net, pipe = L.build(True)
optimizer = nn.AdamWeightDecay(net.trainable_params(), learning_rate=1e-2, weight_decay=0.01)
grad_fn = ms.value_and_grad(pipe, None, optimizer.parameters)
reducer = nn.PipelineGradReducer(optimizer.parameters, scale_sense=L.MICRO)


@ms.jit
def train_step(x, y):
    loss, grads = grad_fn(x, y)
    optimizer(reducer(grads))
    return loss / L.MICRO


train_step(*batch)
src, full = os.path.join(work, "src"), os.path.join(work, "full.ckpt")
ms.save_checkpoint(net, os.path.join(src, "net.safetensors"), integrated_save=False, format="safetensors")
ms.save_checkpoint(net, full)
src_strategy = os.path.join(src, "strategy.ckpt")
whole = arrays(full)
wq = net.layers[0].attention.wq
out["src_wq_sharding"] = str(wq._data.sharding.spec)
out["src_ranks"] = sorted(os.listdir(src))
out["src_rank5_wq_shape"] = list(arrays(os.path.join(src, "rank_5", "net.safetensors"))[wq.name].shape)
out["src_layout_wq"] = repr(strategy_file.read(src_strategy)[wq.name])
# each rank file holds exactly its slice of the whole tensor (its block of the strategy's layout)
layouts = strategy_file.read(src_strategy)
bad = []
for r in range(8):
    got = arrays(os.path.join(src, f"rank_{r}", "net.safetensors"))
    for name, value in whole.items():
        lay = strategy_file.layout_for(layouts, name, value.ndim)
        block, cuts = lay.block(r % lay.stage_devices), lay.cuts()
        index = tuple(slice(b * n // c, (b + 1) * n // c) for b, n, c in zip(block, value.shape, cuts))
        if not np.array_equal(got[name], value[index]):
            bad.append((r, name))
out["rank_slices_wrong"] = bad

# ---------------------------------------------------------------- 2. the reference loss: the whole tensors, one device
ms.reset_auto_parallel_context()
ref_net, _ = L.build(False)
ms.load_checkpoint(full, ref_net)
out["loss_reference"] = float(ref_net(*batch).asnumpy())
out["loss_untrained"] = float(L.build(False)[0](*batch).asnumpy())

# ---------------------------------------------------------------- 3. to one device
one = os.path.join(work, "one")
ms.parallel.transform_checkpoints(src, one, "net", src_strategy, None)
out["one_files"] = sorted(os.listdir(one)), sorted(os.listdir(os.path.join(one, "rank_0")))
one_net, _ = L.build(False)
ms.load_checkpoint(os.path.join(one, "rank_0", "net0.ckpt"), one_net)
out["loss_one_device"] = float(one_net(*batch).asnumpy())
merged = arrays(os.path.join(one, "rank_0", "net0.ckpt"))
out["one_equals_integrated"] = sorted(merged) == sorted(whole) and all(
    np.array_equal(merged[k], whole[k]) for k in whole)
out["rank_list_one_device"] = ms.parallel.rank_list_for_transform(0, src_strategy, None)

# ---------------------------------------------------------------- 4. to a dp4 run (its strategy written when it compiles)
dst_strategy = os.path.join(work, "dp4_strategy.ckpt")
ms.reset_auto_parallel_context()
ms.set_auto_parallel_context(
    parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=4, enable_parallel_optimizer=True,
    parallel_optimizer_config={"optimizer_level": "level3", "parallel_optimizer_threshold": 0,
                               "optimizer_weight_shard_size": 2},
    strategy_ckpt_save_file=dst_strategy)
dp4_net, _ = L.build(False)
dp4_opt = nn.AdamWeightDecay(dp4_net.trainable_params(), learning_rate=1e-2)   # ZeRO-3 lays out its weights


@ms.jit
def evaluate(x, y):
    return dp4_net(x, y)


out["loss_dp4_before_load"] = float(evaluate(*batch).asnumpy())
out["dp4_layout_wq"] = repr(strategy_file.read(dst_strategy)[wq.name])
dp4 = os.path.join(work, "dp4")
ms.parallel.transform_checkpoints(src, dp4, "net", src_strategy, dst_strategy)
out["dp4_ranks"] = sorted(os.listdir(dp4))
out["dp4_rank3_wq_shape"] = list(arrays(os.path.join(dp4, "rank_3", "net3.ckpt"))[wq.name].shape)
out["rank_list_dp4_rank0"] = ms.parallel.rank_list_for_transform(0, src_strategy, dst_strategy)
out["rank_list_dp4_rank3"] = ms.parallel.rank_list_for_transform(3, src_strategy, dst_strategy)
by_rank = ms.parallel.transform_checkpoint_by_rank(
    3, {r: os.path.join(src, f"rank_{r}", "net.safetensors") for r in out["rank_list_dp4_rank3"]},
    os.path.join(work, "by_rank3.ckpt"), src_strategy, dst_strategy)
a, b = arrays(os.path.join(work, "by_rank3.ckpt")), arrays(os.path.join(dp4, "rank_3", "net3.ckpt"))
out["by_rank_equals_transform"] = sorted(a) == sorted(b) and all(np.array_equal(a[k], b[k]) for k in a)
files = [os.path.join(dp4, f"rank_{r}", f"net{r}.ckpt") for r in range(4)]
ms.parallel.load_distributed_checkpoint(dp4_net, files, dst_strategy, train_strategy_filename=dst_strategy)
out["loss_dp4"] = float(evaluate(*batch).asnumpy())
out["dp4_loaded_wq_shape"] = list(dp4_net.layers[0].attention.wq.shape)

# ---------------------------------------------------------------- 5. unified_safetensors: one file of whole tensors
unified = os.path.join(work, "unified")
ms.parallel.unified_safetensors(src, src_strategy, unified)
out["unified_files"] = sorted(os.listdir(unified))
merged = arrays(os.path.join(unified, "part0.safetensors"))
out["unified_equals_integrated"] = sorted(merged) == sorted(whole) and all(
    np.array_equal(merged[k], whole[k]) for k in whole)

# ---------------------------------------------------------------- 6. a damaged or missing rank file is refused by rank
errors = {}
for case in ("truncated", "missing"):
    copy = os.path.join(work, case)
    shutil.copytree(src, copy)
    victim = os.path.join(copy, "rank_2", "net.safetensors")
    if case == "truncated":
        with open(victim, "r+b") as f:
            f.truncate(os.path.getsize(victim) - 100)
    else:
        shutil.rmtree(os.path.dirname(victim))
    try:
        ms.parallel.transform_checkpoints(copy, os.path.join(work, case + "_out"), "net", src_strategy, None)
        errors[case] = None
    except CheckpointError as exc:
        errors[case] = str(exc)
    errors[case + "_wrote"] = os.path.exists(os.path.join(work, case + "_out", "rank_0"))
out["errors"] = errors
shutil.rmtree(work)
print(json.dumps(out))
