"""A MindSpore data-parallel training script, MindSpore's code but for the import (run by msrun in the tests).

`python train_dp.py MODES OUT_DIR`: MODES is a comma list of `pynative`, `jit:<capture_mode>` and `train_one_step`
(a jitted `nn.TrainOneStepCell`), each training with Momentum; `adam:<mode>` trains with Adam, `rmsprop:<mode>` with RMSProp; `zero<N>:<mode>`
trains with Adam and the parallel optimizer (`optimizer_weight_shard_size=N`, -1 for the group; `zero<N>+rmsprop` RMSProp: every device of
every rank, with `XLA_FLAGS=--xla_force_host_platform_device_count=K` K per rank), saves a checkpoint of the network
and optimizer to OUT_DIR/ckpt_<rank>/<mode>.ckpt (MindSpore's one directory per rank) and records the shape of this
rank's `moment1` buffers. For each mode a fresh MLP (same seed) trains 3 steps and every rank saves its parameters
to OUT_DIR/<mode>_rank<r>.npz. Without msrun it is a one-process run on the whole batch (the reference).
`MSX_TEST_DIE_RANK=r` makes rank r fail after joining the cluster (the fail-fast test)."""
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

rows = max(2, size)  # ReduceScatter needs axis 0 to divide by the group size
mine = ms.Tensor(np.arange(rows * 3, dtype=np.float32).reshape(rows, 3) * (rank + 1) - rank)
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
# mindspore.ops' collectives write into the tensor given (in place), eagerly and in a compiled graph
out = ms.Tensor(np.zeros((rows * size, 3), np.float32))
ops.all_gather_into_tensor(out, mine)
collectives["ops_all_gather_into_tensor"] = out.asnumpy()
for how in ("eager", "jit"):
    def reduce_in_place(t):
        t = t * 1.0
        ops.all_reduce(t)
        return t
    step = ms.jit(reduce_in_place) if how == "jit" else reduce_in_place
    collectives[f"{how}_ops_all_reduce"] = step(mine).asnumpy()
out = ms.Tensor(np.zeros((rows // size, 3), np.float32))
ops.reduce_scatter_tensor(out, mine)
collectives["ops_reduce_scatter_tensor"] = out.asnumpy()
out = ms.Tensor(mine.asnumpy())
ops.broadcast(out, src=size - 1)
collectives["ops_broadcast"] = out.asnumpy()
parts = [ms.Tensor(np.zeros((rows, 3), np.float32)) for _ in range(size)]
ops.all_gather(parts, mine)
collectives["ops_all_gather"] = np.concatenate([t.asnumpy() for t in parts])
out = ms.Tensor(np.zeros((rows, 3), np.float32))
ops.reduce_scatter(out, [mine * float(i + 1) for i in range(size)])
collectives["ops_reduce_scatter"] = out.asnumpy()
ops.barrier()
comm_func.barrier()
collectives["cf_gather_into_tensor"] = comm_func.gather_into_tensor(mine, dst=0).asnumpy()
collectives["cf_reduce"] = comm_func.reduce(mine, dst=0).asnumpy()
collectives["cf_scatter_tensor"] = comm_func.scatter_tensor(mine, src=size - 1).asnumpy()
collectives["ranks"] = np.array([ops.get_rank(), *ops.get_process_group_ranks()])
np.savez(os.path.join(out_dir, f"collectives_rank{rank}.npz"), **collectives)

rng = np.random.default_rng(0)
x_all = rng.normal(size=(16, 4)).astype(np.float32)
y_all = rng.normal(size=(16, 2)).astype(np.float32)
ds = ms.dataset.NumpySlicesDataset({"x": x_all, "y": y_all}, shuffle=False, num_shards=size, shard_id=rank)
ds = ds.batch(16 // size)

for mode in modes:
    kind, _, step_mode = mode.partition(":") if mode.startswith(("adam", "zero", "rmsprop", "lamb")) else (
        "momentum", "", mode)
    kind, level2 = kind.removesuffix("+l2"), kind.endswith("+l2")  # zero<N>+l2: optimizer_level level2
    kind, lamb = kind.removesuffix("+lamb"), kind.endswith("lamb")  # zero<N>+lamb: Lamb (norms over the ranks)
    kind, rmsprop = kind.removesuffix("+rmsprop"), kind.endswith("rmsprop")  # zero<N>+rmsprop: RMSProp, sharded
    # (each mode builds its own net and step; the closures below use this iteration's)
    if kind.startswith("zero"):
        ms.set_auto_parallel_context(enable_parallel_optimizer=True, parallel_optimizer_config={
            "optimizer_weight_shard_size": int(kind[4:]), "parallel_optimizer_threshold": 0,
            "optimizer_level": "level2" if level2 else "level1"})
    ms.set_seed(0)  # every rank starts from the same parameters
    net = nn.SequentialCell(nn.Dense(4, 8), nn.Tanh(), nn.Dense(8, 2))
    loss_fn = nn.MSELoss()
    optimizer = (nn.RMSProp(net.trainable_params(), learning_rate=0.05, momentum=0.5) if rmsprop else
                 nn.Lamb(net.trainable_params(), learning_rate=0.05, weight_decay=0.01) if lamb else
                 nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9) if kind == "momentum" else
                 nn.Adam(net.trainable_params(), learning_rate=0.05))
    ms.set_auto_parallel_context(enable_parallel_optimizer=False, parallel_optimizer_config={})
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, optimizer.parameters)
    grad_reducer = nn.DistributedGradReducer(optimizer.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(grad_reducer(grads))
        return loss

    if step_mode == "train_one_step":  # the reducer is inserted by TrainOneStepCell in DATA_PARALLEL
        train_step = ms.jit(nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer))
    elif step_mode.startswith("jit"):
        train_step = ms.jit(train_step, capture_mode=step_mode.partition(":")[2])
    for _ in range(3):
        for x, y in ds.create_tuple_iterator():
            loss = train_step(x, y)
            print(f"rank {rank} {mode}: loss {float(loss.asnumpy()):.6f}", flush=True)
    saved = {p.name: p.asnumpy() for p in net.trainable_params()}
    if kind.startswith("zero"):  # the reduced gradients a rank holds: level2 only its rows of the sharded ones
        saved["_reduced_rows"] = np.array([g.shape[0] for g in grad_reducer(grad_fn(x, y)[1])])
    state = getattr(optimizer, optimizer._state_prefixes[0])  # Adam's moment1, RMSProp's mean_square
    if kind != "momentum":  # with zero<N> the state is sharded, and the checkpoint holds it whole
        saved["_moment1_rows"] = np.array([b.shape[0] for b in state])
        # ... and, a rank driving several devices, the rows each of them holds
        saved["_moment1_device_rows"] = np.array([b._data.addressable_shards[0].data.shape[0] for b in state])
        os.makedirs(os.path.join(out_dir, f"ckpt_{rank}"), exist_ok=True)
        ms.save_checkpoint(optimizer, os.path.join(out_dir, f"ckpt_{rank}", mode.replace(":", "_")))
    if step_mode != "pynative":  # the step ran compiled, as one program whose StableHLO reduces over the ranks
        saved["_xla_compiles"] = np.array(train_step.cache_info()["xla_compiles"])
        hlo = train_step.lower(x, y).as_text()
        saved["_hlo_all_reduce"] = np.array("all_reduce" in hlo)
        saved["_hlo_all_gather"] = np.array("all_gather" in hlo)
        saved["_hlo_reduce_scatter"] = np.array("reduce_scatter" in hlo)  # level2's gradient reduction
        # the first layer's weight state (the rank's rows of it) enters the program cut over its local devices
        rows = state[0].shape[0] if kind != "momentum" else 0
        saved["_hlo_cut_state"] = np.array(hlo.count(f'<{rows}x4xf32> {{sdy.sharding = #sdy.sharding<@mesh, '
                                                     f'[{{"local"}}'))
        if size > 1:  # the updated Parameters kept their global array: the next step converts none of them
            from msx.parallel import spmd
            saved["_params_kept_global"] = np.array(all(id(p._data) in spmd._GLOBALS for p in optimizer.parameters))
    if mode == "jit:ast":  # a data-parallel network exported on every rank: a graph that runs on one device
        saved["_forward"] = net(ms.Tensor(x_all)).asnumpy()
        os.makedirs(os.path.join(out_dir, f"export_{rank}"), exist_ok=True)
        for file_format in ("MSXIR", "MINDIR", "STABLEHLO"):
            ms.export(net, ms.Tensor(x_all), file_name=os.path.join(out_dir, f"export_{rank}", "net"),
                      file_format=file_format)
        ms.save_checkpoint(net, os.path.join(out_dir, f"export_{rank}", "net"))
    np.savez(os.path.join(out_dir, f"{mode.replace(':', '_')}_rank{rank}.npz"), **saved)
