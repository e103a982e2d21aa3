"""One process, 8 host devices: DATA_PARALLEL, SEMI_AUTO_PARALLEL and AUTO_PARALLEL against the one-device run.

`python eight_devices.py OUT_DIR` (tests/test_sharding.py runs it with
`XLA_FLAGS=--xla_force_host_platform_device_count=8`). Every scenario trains a
fresh network (same seed) 3 steps and saves its parameters, the StableHLO's
shardings and the compile counts to OUT_DIR/results.npz; the bad-strategy
errors go to OUT_DIR/errors.json, a SEMI_AUTO network's export to
OUT_DIR/semi_export.{mindir,msxir,stablehlo}. STAND_ALONE on this process's first device
is the one-device reference.
"""
import json
import os
import sys
import warnings

import numpy as np

import msx as ms
from msx import nn, ops
from msx.communication import init

out_dir = sys.argv[1]
assert len(__import__("jax").devices()) == 8, "run with XLA_FLAGS=--xla_force_host_platform_device_count=8"
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    init()

rng = np.random.default_rng(0)
X = ms.Tensor(rng.normal(size=(16, 4)).astype(np.float32))
Y = ms.Tensor(rng.normal(size=(16, 2)).astype(np.float32))
results: dict = {}


def save(key, net, step=None):
    for p in net.trainable_params():
        results[f"{key}/{p.name}"] = p.asnumpy()
    if step is not None:
        lowered = step.lower(X, Y)
        results[f"{key}/_hlo"] = np.array(lowered.as_text())
        results[f"{key}/_compiles"] = np.array(step.cache_info()["xla_compiles"])


def mlp():
    ms.set_seed(0)
    return nn.SequentialCell(nn.Dense(4, 8), nn.Tanh(), nn.Dense(8, 2))


def train(net, how, reducer=False, loss_fn=None):
    loss_fn = loss_fn or nn.MSELoss()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)
    red = nn.DistributedGradReducer(opt.parameters) if reducer else (lambda g: g)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(red(grads))
        return loss

    step = step if how == "pynative" else ms.jit(step, capture_mode=how)
    for _ in range(3):
        step(X, Y)
    return None if how == "pynative" else step


MODES = ("pynative", "ast", "bytecode", "trace")

# ----------------------------------------------------------------- the one-device reference
ms.reset_auto_parallel_context()
for how in MODES:
    net = mlp()
    save(f"ref_{how}", net, train(net, how))

# ----------------------------------------------------------------- DATA_PARALLEL over the 8 local devices
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
results["dp_device_num"] = np.array(ms.get_auto_parallel_context("device_num"))
for how in MODES:
    net = mlp()
    save(f"dp_{how}", net, train(net, how, reducer=True))
ms.set_seed(0)
net = mlp()
one_step = ms.jit(nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(
    net.trainable_params(), learning_rate=0.1, momentum=0.9)))
for _ in range(3):
    one_step(X, Y)
save("dp_train_one_step", net)
ms.reset_auto_parallel_context()


# ----------------------------------------------------------------- SEMI_AUTO_PARALLEL: .shard strategies
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.mm = ops.MatMul().shard(((2, 1), (1, 4)))
        self.w = ms.Parameter(ms.Tensor(np.linspace(-1, 1, 64, dtype=np.float32).reshape(8, 8)), name="w")
        self.fc2 = nn.Dense(8, 2)
        self.fc1.shard(in_strategy=((8, 1),), out_strategy=((2, 4),), parameter_plan={"self.fc1.weight": (4, 1)})

    def construct(self, x):
        h = ops.tanh(self.fc1(x))
        return self.fc2(self.mm(h, self.w))


def semi_net():
    ms.set_seed(0)
    return Net()


def sharded_loss():
    return ms.shard(nn.MSELoss(), in_strategy=((8, 1), None))


ms.reset_auto_parallel_context()
for how in MODES:  # the same network, strategies ignored: the reference
    net = semi_net()
    save(f"semiref_{how}", net, train(net, how, loss_fn=sharded_loss()))
for mode in ("semi_auto_parallel", "auto_parallel"):
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=mode, device_num=8)
    for how in MODES:
        net = semi_net() if mode == "semi_auto_parallel" else mlp()
        save(f"{mode}_{how}", net, train(net, how, loss_fn=sharded_loss() if mode == "semi_auto_parallel" else None))
    if mode == "semi_auto_parallel":
        net = semi_net()
        results["semi_graph"] = np.array(str(ms.jit(lambda x: net(x)).capture(X)))
        results["semi_repr"] = np.array(repr(ops.MatMul().shard(((2, 1), (1, 4)))))
        # export: one-device files (Shard nodes dropped), run by the test in a one-device process
        results["semi_export_x"] = X.asnumpy()
        results["semi_export_out"] = ms.jit(lambda x: net(x))(X).asnumpy()   # the 8-device program's output
        for fmt in ("MINDIR", "MSXIR", "STABLEHLO"):
            ms.export(net, X, file_name=os.path.join(out_dir, "semi_export"), file_format=fmt)

# ----------------------------------------------------------------- bad strategies: eager and jitted, each mode
ms.reset_auto_parallel_context()
ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=8)
errors: dict = {}
A = ms.Tensor(np.ones((16, 6), np.float32))
B = ms.Tensor(np.ones((6, 8), np.float32))


def not_dividing(a, b):
    return ops.MatMul().shard(((2, 1), (4, 1)))(a, b)  # shape[0] of b is 6: 4 does not divide it


def too_many(a, b):
    return ops.MatMul().shard(((4, 1), (1, 4)))(a, b)  # each input in 4 slices: valid, though 4 * 4 > 8


def over_device_num(a, b):
    return ops.MatMul().shard(((16, 1), (1, 1)))(a, b)  # 16 slices > device_num=8


for name, fn in (("not_dividing", not_dividing), ("over_device_num", over_device_num)):
    for how in MODES:
        call = fn if how == "pynative" else ms.jit(fn, capture_mode=how)
        try:
            call(A, B)
            errors[f"{name}/{how}"] = None
        except Exception as exc:  # the test checks the type and the words
            errors[f"{name}/{how}"] = {"type": type(exc).__name__, "text": str(exc),
                                       "line": getattr(getattr(exc, "loc", None), "line", None)}
results["ok_with_many_slices"] = too_many(A, ms.Tensor(np.ones((6, 8), np.float32))).asnumpy()
ms.reset_auto_parallel_context()
with open(os.path.join(out_dir, "errors.json"), "w") as f:
    json.dump(errors, f)
np.savez(os.path.join(out_dir, "results.npz"), **results)
print("done")
