"""Data-parallel training of an MLP on scikit-learn's digits: MindSpore's code, `import msx as ms`.

    msrun --worker_num=4 --local_worker_num=4 --master_port=8118 --log_dir=msrun_log --join=True \\
        examples/train_digits_dp.py OUT_DIR

Each rank reads its shard of the data (`num_shards=get_group_size(), shard_id=get_rank()`) in batches of
GLOBAL_BATCH / ranks rows, the jitted step averages the gradients over the ranks (`DistributedGradReducer`),
and every rank ends with the same parameters. Run without msrun it is one process on the whole batch of
GLOBAL_BATCH rows: the same training, so the same accuracy. Every rank saves OUT_DIR/digits_rank<r>.npz (its
parameters, its test accuracy and its per-device batch) and rank 0 a checkpoint, OUT_DIR/digits.ckpt.
"""
import os
import sys

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import msx as ms
from msx import nn
from msx.communication import get_group_size, get_rank, init

GLOBAL_BATCH, EPOCHS = 64, 4

ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
init()
rank, size = get_rank(), get_group_size()
ms.set_seed(0)  # the same initial parameters and the same global shuffling on every rank

digits = load_digits()
x_train, x_test, y_train, y_test = train_test_split((digits.data / 16.0).astype(np.float32),
                                                    digits.target.astype(np.int32), test_size=0.2, random_state=0)
dataset = ms.dataset.NumpySlicesDataset({"x": x_train, "y": y_train}, shuffle=True, num_shards=size, shard_id=rank)
dataset = dataset.batch(GLOBAL_BATCH // size, drop_remainder=True)  # the per-device batch

net = nn.SequentialCell(nn.Dense(64, 128), nn.ReLU(), nn.Dense(128, 10))
loss_fn = nn.CrossEntropyLoss()
optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, optimizer.parameters)
grad_reducer = nn.DistributedGradReducer(optimizer.parameters)


@ms.jit
def train_step(x, y):
    loss, grads = grad_fn(x, y)
    optimizer(grad_reducer(grads))
    return loss


for epoch in range(EPOCHS):
    losses = [float(train_step(x, y).asnumpy()) for x, y in dataset.create_tuple_iterator(num_epochs=1)]
    print(f"rank {rank}/{size} epoch {epoch}: loss {np.mean(losses):.4f} ({len(losses)} steps of "
          f"{GLOBAL_BATCH // size} rows)", flush=True)

accuracy = float((net(ms.Tensor(x_test)).argmax(axis=1).asnumpy() == y_test).mean())
print(f"rank {rank}: test accuracy {accuracy:.4f}", flush=True)
out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
np.savez(os.path.join(out_dir, f"digits_rank{rank}.npz"), accuracy=accuracy, per_device_batch=GLOBAL_BATCH // size,
         **{p.name: p.asnumpy() for p in net.trainable_params()})
if rank == 0:
    ms.save_checkpoint(net, os.path.join(out_dir, "digits.ckpt"))
