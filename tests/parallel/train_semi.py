"""A MindSpore SEMI_AUTO/AUTO_PARALLEL training script (global view), MindSpore's code but for the import.

`python train_semi.py MODES OUT_DIR`: MODES is a comma list of `semi` (a MatMul cut on the batch, one cut on the
weight's columns, `ms.shard` on the loss), `full` (`semi` with `full_batch=True`: every rank feeds the whole batch,
and the step is captured by trace), `strategy` (`semi` with one `dataset_strategy` per input: x cut in one slice per
device, so each process feeds its slice of it, y whole on every process) and `auto` (no strategies: AUTO_PARALLEL), each a jitted step
(capture_mode='ast') training a fresh MLP (same seed) 3 steps with Momentum; every rank saves its parameters to
OUT_DIR/<mode>_rank<r>.npz and, for `semi`, whether the StableHLO carries the strategies (and, under msrun, its
local norms under OUT_DIR/norms/rank_<r>). `refused:<capture_mode>`
(`refused:pynative`) records the error a non-ast capture (a PyNative gradient) gets. Under msrun each rank feeds its slice of the batch
(full_batch=False); without msrun it is the one-process, one-device run on the whole batch (the reference)."""
import os
import sys

import jax
import numpy as np

import msx as ms
from msx import nn, ops
from msx.communication import get_group_size, get_rank, init

modes, out_dir = sys.argv[1].split(","), sys.argv[2]
init()
rank, size = get_rank(), get_group_size()
rng = np.random.default_rng(0)
X = rng.normal(size=(16, 4)).astype(np.float32)
Y = rng.normal(size=(16, 2)).astype(np.float32)
rows = slice(rank * 16 // size, (rank + 1) * 16 // size)  # this rank's slice of the global batch
X_MINE, Y_MINE = x, y = ms.Tensor(X[rows]), ms.Tensor(Y[rows])


class Net(nn.Cell):
    def __init__(self, strategies: bool) -> None:
        super().__init__()
        self.w1 = ms.Parameter(ms.Tensor(np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)), name="w1")
        self.b1 = ms.Parameter(ms.Tensor(np.full((8,), 0.1, np.float32)), name="b1")
        self.w2 = ms.Parameter(ms.Tensor(np.linspace(1, -0.5, 16, dtype=np.float32).reshape(8, 2)), name="w2")
        self.mm1, self.mm2 = ops.MatMul(), ops.MatMul()
        if strategies:
            self.mm1.shard(((2, 1), (1, 1)))  # data split: the batch over 2 devices, the weight whole
            self.mm2.shard(((1, 1), (1, 2)))  # model split: the weight's columns over 2 devices

    def construct(self, x):
        return self.mm2(ops.tanh(self.mm1(x, self.w1) + self.b1), self.w2)


def train(mode: str) -> dict:
    parallel = size > 1
    x, y = (ms.Tensor(X), ms.Tensor(Y)) if mode == "full" else (X_MINE, ms.Tensor(Y)) if mode == "strategy" else \
        (X_MINE, Y_MINE)
    if parallel:
        ms.reset_auto_parallel_context()
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.AUTO_PARALLEL if mode == "auto" else
                                     ms.ParallelMode.SEMI_AUTO_PARALLEL, full_batch=mode == "full")
        if mode == "strategy":   # x cut in one slice per device (each process feeds its devices' run), y whole
            ms.set_auto_parallel_context(dataset_strategy=((jax.device_count(), 1), (1, 1)))
        if mode == "semi":   # each process writes its own ranks' local norms (msx.parallel.local_norm)
            ms.set_auto_parallel_context(dump_local_norm=True, dump_local_norm_path=os.path.join(out_dir, "norms"))
    net = Net(strategies=mode != "auto")
    loss_fn = ms.shard(nn.MSELoss(), in_strategy=((2, 1), (2, 1))) if mode != "auto" else nn.MSELoss()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, optimizer.parameters)

    @ms.jit(capture_mode="trace" if mode == "full" else "ast")   # full_batch: the process's shapes are global
    def step(a, b):
        loss, grads = grad_fn(a, b)
        optimizer(grads)
        return loss

    losses = [float(step(x, y).asnumpy()) for _ in range(3)]
    jax.effects_barrier()   # the local norms' files are written
    out = {p.name: p.asnumpy() for p in net.trainable_params()}
    out["_losses"] = np.array(losses)
    if mode != "auto" and parallel:
        hlo = step.lower(x, y).as_text()
        out["_hlo_sharded"] = np.array("sdy.sharding_constraint" in hlo and "tensor<16x4xf32>" in hlo)
    return out


def refused(mode: str) -> str:
    """The ContextError a step gets that cannot see the global batch ("ran" if it ran)."""
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
    net, how = Net(True), mode.split(":")[1]
    try:
        if how == "pynative":
            ms.value_and_grad(lambda a, b: nn.MSELoss()(net(a), b), None, net.trainable_params())(x, y)
        else:
            ms.jit(lambda a: net(a), capture_mode=how)(x)
        return "ran"
    except ms.errors.ContextError as exc:
        return str(exc)


for mode in modes:
    if mode.startswith("refused:"):
        with open(os.path.join(out_dir, f"{mode.replace(':', '_')}_rank{rank}.txt"), "w") as f:
            f.write(refused(mode))
        continue
    np.savez(os.path.join(out_dir, f"{mode}_rank{rank}.npz"), **train(mode))
print(f"rank {rank}: done", flush=True)
