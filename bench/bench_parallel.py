"""DATA_PARALLEL step time: msx (MindSpore's code) against the same step written by hand in jax (docs/parallel.md).

Run: `python bench/bench_parallel.py [--ranks 2] [--steps 200]`. It launches `msrun` with `--ranks` CPU worker
processes (one device each, gloo collectives); `--devices 8` instead runs one process driving 8 host devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=8`), the batch cut over them (64 rows each). Every worker times,
alternating in rounds, three steps of an MLP (64 -> 256 -> 256 -> 10, 64 rows per rank, Momentum):

- `msx`: the MindSpore-style step, `ms.jit` over `value_and_grad`, `nn.DistributedGradReducer`, `nn.Momentum`;
- `jax`: the same step by hand: `jax.jit` over global arrays with `NamedSharding` over the processes' mesh
  (the batch split by rank, the parameters replicated), XLA inserting the gradients' all-reduce, each step
  building its global batch from the rank's local rows with `jax.make_array_from_single_device_arrays`;
- `msx, no reducer`: the msx step without `DistributedGradReducer` (wrong training, each rank alone: it prices the
  reducer).

Each round runs `--steps` steps of each and records the median; the reported number is the median over rounds.
The machine's load average is printed with the result, since a loaded machine moves the numbers.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES, ROWS, LR, MOMENTUM = (64, 256, 256, 10), 64, 0.05, 0.9
ALL_REDUCES: dict[str, int] = {}  # all-reduces in each step's program (msx: its StableHLO; jax: XLA's compiled HLO)


def _timed(step, steps: int) -> float:
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _msx_step(x, y, reduce: bool):
    import msx as ms
    from msx import nn

    ms.set_seed(0)
    layers = []
    for a, b in zip(SIZES[:-1], SIZES[1:]):
        layers += [nn.Dense(a, b), nn.ReLU()]
    net = nn.SequentialCell(layers[:-1])
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=LR, momentum=MOMENTUM)
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, optimizer.parameters)
    reducer = nn.DistributedGradReducer(optimizer.parameters)

    @ms.jit
    def train_step(a, b):
        loss, grads = grad_fn(a, b)
        optimizer(reducer(grads) if reduce else grads)
        return loss

    xt, yt = ms.Tensor(x), ms.Tensor(y)
    if reduce:
        ALL_REDUCES["msx"] = train_step.lower(xt, yt).as_text().count("stablehlo.all_reduce")
    return lambda: train_step(xt, yt).asnumpy()


def _jax_step(x, y):
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    one_process = jax.process_count() == 1  # --devices: the batch cut over this process's devices
    devices = jax.devices() if one_process else [min((d for d in jax.devices() if d.process_index == p),
                                                     key=lambda d: d.id) for p in range(jax.process_count())]
    mesh = Mesh(np.array(devices), ("ranks",))
    rows, replicated = NamedSharding(mesh, P("ranks")), NamedSharding(mesh, P())
    local = devices[jax.process_index()]
    if one_process:  # like msx's Tensors: the batch already on the first device, cut over all of them each step
        x, y = jnp.asarray(x), jnp.asarray(y)
    rng = np.random.default_rng(0)
    params = [(rng.normal(size=(a, b)).astype(np.float32) / np.sqrt(a), np.zeros(b, np.float32))
              for a, b in zip(SIZES[:-1], SIZES[1:])]
    params = jax.device_put(params, replicated)
    moments = jax.tree_util.tree_map(jnp.zeros_like, params)

    def loss_fn(ps, a, b):
        for i, (w, bias) in enumerate(ps):
            a = a @ w + bias
            a = jax.nn.relu(a) if i < len(ps) - 1 else a
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(a), b[:, None], axis=1))

    @functools.partial(jax.jit, donate_argnums=(0, 1))  # like msx, which donates the updated Parameters
    def step(ps, ms_, a, b):
        loss, grads = jax.value_and_grad(loss_fn)(ps, a, b)  # the mean over the global batch: XLA all-reduces
        ms_ = jax.tree_util.tree_map(lambda m, g: MOMENTUM * m + g, ms_, grads)
        ps = jax.tree_util.tree_map(lambda p, m: p - LR * m, ps, ms_)
        return ps, ms_, loss

    def global_rows(a):
        if one_process:
            return jax.device_put(a, rows)
        shard = jax.device_put(a, local)
        return jax.make_array_from_single_device_arrays((a.shape[0] * jax.process_count(), *a.shape[1:]), rows,
                                                        [shard])

    state = {"p": params, "m": moments}
    hlo = step.lower(params, moments, global_rows(x), global_rows(y)).compile().as_text()
    ALL_REDUCES["jax"] = hlo.count(" all-reduce(") + hlo.count(" all-reduce-start(")
    ALL_REDUCES["jax, operands"] = sum(line.split(" all-reduce")[0].count("[") for line in hlo.splitlines()
                                       if " all-reduce(" in line or " all-reduce-start(" in line)
    ALL_REDUCES["jax, other collectives"] = sum(hlo.count(f" {op}(") + hlo.count(f" {op}-start(") for op in (
        "all-gather", "reduce-scatter", "collective-permute", "all-to-all"))

    def run():
        state["p"], state["m"], loss = step(state["p"], state["m"], global_rows(x), global_rows(y))
        return np.asarray(loss.addressable_data(0))

    return run


def worker(out: str, steps: int, rounds: int) -> None:
    import warnings

    import jax
    import numpy as np

    import msx as ms
    from msx.communication import get_rank, init

    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # --devices: a one-process group, no launcher (init says so)
        init()
    rng = np.random.default_rng(get_rank())
    rows = ROWS * jax.local_device_count()  # a rank's batch: ROWS for each of its devices
    x = rng.normal(size=(rows, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], rows).astype(np.int32)
    steps_by_name = {"msx": _msx_step(x, y, True), "jax": _jax_step(x, y),
                     "msx, no reducer": _msx_step(x, y, False)}
    for step in steps_by_name.values():  # compile and warm up
        for _ in range(5):
            step()
    medians: dict[str, list[float]] = {name: [] for name in steps_by_name}
    for _ in range(rounds):
        for name, step in steps_by_name.items():
            medians[name].append(_timed(step, steps))
    if get_rank() == 0:
        with open(out, "w") as f:
            json.dump({"medians": {name: statistics.median(v) for name, v in medians.items()},
                       "mins": {name: min(v) for name, v in medians.items()}, "all_reduces": ALL_REDUCES}, f)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--devices", type=int, default=1,
                        help="instead of msrun ranks: one process driving this many host devices")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.steps, args.rounds)
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = os.path.join(tempfile.mkdtemp(), "result.json")
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=ROOT)
    env.pop("XLA_FLAGS", None)
    load_before = os.getloadavg()[0]
    worker_args = [__file__, f"--worker={out}", f"--steps={args.steps}", f"--rounds={args.rounds}"]
    if args.devices > 1:  # one process driving several host devices, no launcher
        env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={args.devices}"
        subprocess.run([sys.executable, *worker_args], env=env, check=True, cwd=ROOT)
        what = f"1 process of {args.devices} host devices, {ROWS} rows per device"
    else:
        subprocess.run([sys.executable, "-m", "msx.run", f"--worker_num={args.ranks}",
                        f"--local_worker_num={args.ranks}", f"--master_port={port}",
                        f"--log_dir={os.path.dirname(out)}", "--join=True", *worker_args], env=env, check=True,
                       cwd=ROOT)
        what = f"{args.ranks} ranks (CPU processes), {ROWS} rows per rank"
    with open(out) as f:
        saved = json.load(f)
    result = saved["medians"]
    print(f"\n{what}, MLP {SIZES}, {os.cpu_count()} CPU cores, load average {load_before:.1f} before / "
          f"{os.getloadavg()[0]:.1f} after; medians of {args.rounds} rounds of {args.steps} steps "
          f"(min of the rounds' medians in brackets)")
    for name, seconds in result.items():
        print(f"  {name:<16} {seconds * 1e3:8.3f} ms/step  ({saved['mins'][name] * 1e3:.3f})")
    print(f"  msx / jax by hand: {result['msx'] / result['jax']:.3f}x "
          f"({saved['mins']['msx'] / saved['mins']['jax']:.3f}x); the reducer costs "
          f"{(result['msx'] - result['msx, no reducer']) * 1e3:.3f} ms/step")
    counts = saved["all_reduces"]
    if args.devices > 1:  # msx's StableHLO is global view here: XLA's partitioner inserts its all-reduces
        print(f"  all-reduces in jax's compiled step: {counts['jax']} of {counts['jax, operands']} operands")
        return
    print(f"  all-reduces per step: msx {counts['msx']} (one buffer), jax by hand {counts['jax']} of "
          f"{counts['jax, operands']} operands (and {counts['jax, other collectives']} other collectives)")


if __name__ == "__main__":
    main()
