"""A MindSpore data-parallel training script, MindSpore's code but for the import (run by msrun in the tests).

`python train_dp.py MODES OUT_DIR`: MODES is a comma list of `pynative`, `jit:<capture_mode>` and
`train_one_step` (a jitted `nn.TrainOneStepCell`); for each,
a fresh MLP (same seed) trains 3 steps and every rank saves its parameters to OUT_DIR/<mode>_rank<r>.npz.
Without msrun it is a one-process run on the whole batch (the reference).
`MSX_TEST_DIE_RANK=r` makes rank r fail after joining the cluster (the fail-fast test).
"""
import os
import sys

import numpy as np

import msx as ms
from msx import nn
from msx.communication import get_group_size, get_rank, init

modes, out_dir = sys.argv[1].split(","), sys.argv[2]
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
init()
rank, size = get_rank(), get_group_size()
if os.environ.get("MSX_TEST_DIE_RANK") == str(rank):
    print(f"rank {rank}: dying on purpose", flush=True)
    sys.exit(3)

# collectives on rank-dependent values, eagerly and in a compiled graph (saved for the test to check with numpy)
from msx import ops  # noqa: E402
from msx.communication import comm_func  # noqa: E402

mine = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) * (rank + 1) - rank)
collectives = {}
for op in ("sum", "max", "min", "prod"):
    collectives[f"eager_{op}"] = ops.AllReduce(op)(mine).asnumpy()
    collectives[f"jit_{op}"] = ms.jit(lambda t, op=op: ops.AllReduce(op)(t * 1.0))(mine).asnumpy()
collectives["eager_gather"] = comm_func.all_gather_into_tensor(mine).asnumpy()
collectives["jit_gather"] = ms.jit(lambda t: ops.AllGather()(t + 0.0))(mine).asnumpy()
collectives["eager_scatter"] = comm_func.reduce_scatter_tensor(mine).asnumpy()
collectives["jit_scatter"] = ms.jit(lambda t: ops.ReduceScatter()(t * 1.0))(mine).asnumpy()
collectives["eager_broadcast"] = comm_func.broadcast(mine, src=size - 1).asnumpy()
collectives["jit_broadcast"] = ms.jit(lambda t: ops.Broadcast(size - 1)((t * 1.0,))[0])(mine).asnumpy()
np.savez(os.path.join(out_dir, f"collectives_rank{rank}.npz"), **collectives)

rng = np.random.default_rng(0)
x_all = rng.normal(size=(16, 4)).astype(np.float32)
y_all = rng.normal(size=(16, 2)).astype(np.float32)
ds = ms.dataset.NumpySlicesDataset({"x": x_all, "y": y_all}, shuffle=False, num_shards=size, shard_id=rank)
ds = ds.batch(16 // size)

for mode in modes:
    ms.set_seed(0)  # every rank starts from the same parameters
    net = nn.SequentialCell(nn.Dense(4, 8), nn.Tanh(), nn.Dense(8, 2))
    loss_fn = nn.MSELoss()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, optimizer.parameters)
    grad_reducer = nn.DistributedGradReducer(optimizer.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(grad_reducer(grads))
        return loss

    if mode == "train_one_step":  # the reducer is inserted by TrainOneStepCell in DATA_PARALLEL
        train_step = ms.jit(nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer))
    elif mode.startswith("jit"):
        train_step = ms.jit(train_step, capture_mode=mode.partition(":")[2])
    for _ in range(3):
        for x, y in ds.create_tuple_iterator():
            loss = train_step(x, y)
            print(f"rank {rank} {mode}: loss {float(loss.asnumpy()):.6f}", flush=True)
    saved = {p.name: p.asnumpy() for p in net.trainable_params()}
    if mode != "pynative":  # the step ran compiled, as one program whose StableHLO reduces over the ranks
        saved["_xla_compiles"] = np.array(train_step.cache_info()["xla_compiles"])
        saved["_hlo_all_reduce"] = np.array("all_reduce" in train_step.lower(x, y).as_text())
    np.savez(os.path.join(out_dir, f"{mode.replace(':', '_')}_rank{rank}.npz"), **saved)
