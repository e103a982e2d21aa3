"""A data-parallel job whose ranks drive several devices each (run by msrun in tests/test_sharding.py).

`python ranks_x_devices.py OUT_DIR`, each worker under
`XLA_FLAGS=--xla_force_host_platform_device_count=2`: every rank trains the MLP on its 8 rows of the 16-row
batch (cut over its 2 devices) with DistributedGradReducer, jitted in each capture mode, and saves its
parameters and the step's StableHLO to OUT_DIR/<mode>_rank<r>.npz. Without msrun (and without XLA_FLAGS) it is
the one-device run on the whole batch, the reference.
"""
import os
import sys

import numpy as np

import msx as ms
from msx import nn
from msx.communication import get_group_size, get_rank, init

out_dir = sys.argv[1]
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
init()
rank, size = get_rank(), get_group_size()
rng = np.random.default_rng(0)
x_all = ms.Tensor(rng.normal(size=(16, 4)).astype(np.float32))
y_all = ms.Tensor(rng.normal(size=(16, 2)).astype(np.float32))
rows = slice(rank * 16 // size, (rank + 1) * 16 // size)
x, y = x_all[rows], y_all[rows]
for mode in ("ast", "bytecode", "trace"):
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(4, 8), nn.Tanh(), nn.Dense(8, 2))
    loss_fn = nn.MSELoss()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, optimizer.parameters)
    grad_reducer = nn.DistributedGradReducer(optimizer.parameters)

    @ms.jit(capture_mode=mode)
    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(grad_reducer(grads))
        return loss

    for _ in range(3):
        train_step(x, y)
    saved = {p.name: p.asnumpy() for p in net.trainable_params()}
    saved["_hlo"] = np.array(train_step.lower(x, y).as_text())
    saved["_device_num"] = np.array(ms.get_auto_parallel_context("device_num"))
    np.savez(os.path.join(out_dir, f"{mode}_rank{rank}.npz"), **saved)
