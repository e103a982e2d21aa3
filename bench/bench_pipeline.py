"""Pipeline-parallel step time: msx's `nn.PipelineCell` over 2 stages against the same pipeline written by hand
in jax (`shard_map` over `pipe` + `lax.ppermute`, GPipe, `jax.grad` for the backward) (docs/parallel.md).

Run: `python bench/bench_pipeline.py [--steps 20] [--rounds 3]` (`--memory`: each step's per-device bytes). One
process of 8 host devices (`XLA_FLAGS=--xla_force_host_platform_device_count=8`): 2 stages of 4 devices, each stage's micro-batch rows cut
over its 4 devices; the model is 4 Dense+tanh blocks of width 256 (2 per stage) with a summed squared error,
a batch of 256 rows in 4 micro-batches, plain SGD. Rows:

- `msx 1f1b`, `msx gpipe`: MindSpore's code: `set_auto_parallel_context(pipeline_stages=2, pipeline_config=...)`,
  `Cell.pipeline_stage`, `nn.PipelineCell`, `ms.value_and_grad`, `nn.SGD`, under `ms.jit`;
- `jax by hand`: the blocks' weights stacked per stage (`P("pipe")`), one `shard_map` manual over `pipe` and
  `dp` running the GPipe forward (`micro + stages - 1` time steps, `ppermute` between them), `jax.grad` of it,
  the SGD update, one `jax.jit`;
- `jax, dp auto`: the same, manual over `pipe` only: the data-parallel axis is XLA's partitioner's, as in msx
  (whose stages may hold tensor-parallel strategies, so it cannot take `dp` manual).

Each row is also built with twice the micro-batches (8 of the same 64 rows) to measure the bubble: one more
micro-batch costs `(T(8) - T(4)) / 4` (T: the fastest round's median step, the one load disturbed least), so the
step of 4 spends `1 - 4 x that / T(4)` of its time outside the micro-batches' own work (the waiting slots, and the step's fixed costs: the update, the final reductions),
printed beside the theory `(stages - 1) / (micro + stages - 1)` and the idle stage-slots of msx's schedule tables.

Rounds alternate the rows; each records the median step, the result is the median over rounds (min in brackets),
with the machine's load average, since a loaded machine moves the numbers.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIDTH, BLOCKS, BATCH, MICRO, STAGES, LR = 256, 4, 256, 4, 2, 1e-4


def _timed(step, steps: int) -> tuple[float, float]:
    """The median wall time and the median process CPU time (all threads: the 8 host devices) of one step; on a
    machine other jobs load, the CPU time is the steadier measure of the work a step does."""
    times, cpu = [], []
    for _ in range(steps):
        start, start_cpu = time.perf_counter(), time.process_time()
        step()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(times), statistics.median(cpu)


def _weights():
    import numpy as np

    rng = np.random.default_rng(0)
    return [(rng.normal(size=(WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32) for _ in range(BLOCKS)]


def _data(micro: int = MICRO):
    import numpy as np

    rng = np.random.default_rng(1)
    rows = BATCH // MICRO * micro     # micro-batches of one size: more of them is more work, not smaller pieces
    return rng.normal(size=(rows, WIDTH)).astype(np.float32), rng.normal(size=(rows, WIDTH)).astype(np.float32)


def msx_step(scheduler: str, micro: int = MICRO):
    import msx as ms
    from msx import nn, ops

    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=8,
                                 pipeline_stages=STAGES, pipeline_config={"pipeline_scheduler": scheduler})

    class Block(nn.Cell):
        def __init__(self, w):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(w), name="w")

        def construct(self, x):
            return ops.tanh(ops.matmul(x, self.w))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.blocks = nn.CellList([Block(w) for w in _weights()])

        def construct(self, x, y):
            for b in self.blocks:
                x = b(x)
            return ((x - y) ** 2).sum()

    net = Net()
    for i, b in enumerate(net.blocks):
        b.pipeline_stage = i * STAGES // BLOCKS
    opt = nn.SGD(net.trainable_params(), LR)
    grad_fn = ms.value_and_grad(nn.PipelineCell(net, micro), None, opt.parameters)

    @ms.jit
    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    x, y = (ms.Tensor(a) for a in _data(micro))
    run = lambda: step(x, y).asnumpy()   # noqa: E731
    run.memory = lambda: step.lower(x, y).compile().handle.compiled.memory_analysis()
    return run


def jax_step(micro: int = MICRO, manual_dp: bool = True):
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()[:8]).reshape(STAGES, 8 // STAGES), ("pipe", "dp"))
    per = BLOCKS // STAGES
    w = jax.device_put(np.stack(_weights()).reshape(STAGES, per, WIDTH, WIDTH), NamedSharding(mesh, P("pipe")))
    x, y = (jax.device_put(a.reshape(micro, BATCH // MICRO, WIDTH), NamedSharding(mesh, P(None, "dp")))
            for a in _data(micro))

    def stage(ws, h):
        for i in range(per):
            h = jnp.tanh(h @ ws[i])
        return h

    def loss(w, x, y):
        s, ws = jax.lax.axis_index("pipe"), w[0]
        h, total = jnp.zeros_like(x[0]), 0.0
        for t in range(micro + STAGES - 1):
            m = t - s
            inp = jnp.where(s == 0, x[jnp.clip(t, 0, micro - 1)], h)
            out = stage(ws, inp)
            valid = (m >= 0) & (m < micro)
            err = ((out - y[jnp.clip(m, 0, micro - 1)]) ** 2).sum()
            total = total + jnp.where(valid & (s == STAGES - 1), err, 0.0)
            h = jax.lax.ppermute(out, "pipe", [(k, k + 1) for k in range(STAGES - 1)])
        return jax.lax.psum(total, ("pipe", "dp") if manual_dp else "pipe")

    if manual_dp:   # each device its rows' gradient, one psum over dp for the whole step
        sharded = jax.shard_map(loss, mesh=mesh, in_specs=(P("pipe"), P(None, "dp"), P(None, "dp")), out_specs=P())
    else:           # dp left to XLA's partitioner, as msx must (a stage may hold tensor-parallel strategies)
        sharded = jax.shard_map(loss, mesh=mesh, in_specs=(P("pipe"), P(), P()), out_specs=P(),
                                axis_names=frozenset({"pipe"}), check_vma=False)

    @jax.jit
    def step(w, x, y):
        value, g = jax.value_and_grad(sharded)(w, x, y)
        return value, w - LR * g

    state = [w]

    def run():
        value, state[0] = step(state[0], x, y)
        return np.asarray(value)

    run.memory = lambda: step.lower(state[0], x, y).compile().memory_analysis()
    return run


ROWS = ("msx 1f1b", "msx gpipe", "jax by hand", "jax, dp auto")


def memory() -> None:
    """Per-device bytes of each row's compiled step (`memory_analysis()`): the arguments are the weights (and for
    msx the batch); the 4 weights of 256 KiB each are 1 MiB, a stage's 2 of them 512 KiB."""
    for name, step in (("msx 1f1b", msx_step("1f1b")), ("msx gpipe", msx_step("gpipe")),
                       ("jax by hand", jax_step())):
        m = step.memory()
        print(f"  {name:<12} argument bytes / device {m.argument_size_in_bytes:>10,}  temp {m.temp_size_in_bytes:>10,}"
              f"  output {m.output_size_in_bytes:>10,}")


def worker(steps: int, rounds: int) -> None:
    from msx.parallel.pipeline import bubble_fraction, schedule

    rows = {}
    for micro in (MICRO, 2 * MICRO):    # twice the micro-batches (of one size) measure what one more costs
        rows.update({("msx 1f1b", micro): msx_step("1f1b", micro), ("msx gpipe", micro): msx_step("gpipe", micro),
                     ("jax by hand", micro): jax_step(micro), ("jax, dp auto", micro): jax_step(micro, False)})
    first = {name: float(step()) for name, step in rows.items()}     # compile; the losses must agree
    walls: dict = {name: [] for name in rows}
    cpus: dict = {name: [] for name in rows}
    for _ in range(rounds):
        for name, step in rows.items():
            wall, cpu = _timed(step, steps)
            walls[name].append(wall)
            cpus[name].append(cpu)
    ms_ = {name: statistics.median(values) * 1e3 for name, values in walls.items()}
    cpu_ = {name: statistics.median(values) * 1e3 for name, values in cpus.items()}
    print(f"first losses ({MICRO} micro-batches): {[first[(n, MICRO)] for n in ROWS]}")
    for (name, micro), values in walls.items():
        print(f"  {name:<12} {micro} micro-batches {ms_[(name, micro)]:8.2f} ms/step  ({min(values) * 1e3:.2f}), "
              f"CPU {cpu_[(name, micro)]:.2f} ms/step")
    for name in ("msx 1f1b", "msx gpipe"):
        for ref in ("jax by hand", "jax, dp auto"):
            print(f"  {name} / {ref} ({MICRO} micro-batches): {ms_[(name, MICRO)] / ms_[(ref, MICRO)]:.2f}x wall, "
                  f"{cpu_[(name, MICRO)] / cpu_[(ref, MICRO)]:.2f}x CPU")
    theory = (STAGES - 1) / (MICRO + STAGES - 1)
    print(f"  bubble, theory (stages - 1) / (micro + stages - 1) = {theory:.3f}")
    for name in ("1f1b", "gpipe"):
        table = schedule(name, STAGES, MICRO)
        print(f"  bubble, msx {name} compiled schedule: {int((table.kind == 0).sum())} idle of {table.kind.size} "
              f"stage-slots ({bubble_fraction(STAGES, MICRO, name):.3f}), {table.kind.shape[0]} slots")
    fastest = {name: min(values) * 1e3 for name, values in walls.items()}   # the rounds least disturbed by load
    for name in ROWS:
        # the time not spent on the micro-batches' own work: 1 - MICRO x (the cost of one more micro-batch) / step
        one_more = (fastest[(name, 2 * MICRO)] - fastest[(name, MICRO)]) / MICRO
        print(f"  bubble, {name} measured (fastest rounds): 1 - {MICRO} x {one_more:.2f} / {fastest[(name, MICRO)]:.2f}"
              f" ms = {1 - MICRO * one_more / fastest[(name, MICRO)]:.3f} (waiting slots and the step's fixed costs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--memory", action="store_true", help="print each step's per-device bytes, no timing")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        memory() if args.memory else worker(args.steps, args.rounds)
        return
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=ROOT, XLA_FLAGS="--xla_force_host_platform_device_count=8")
    load = os.getloadavg()[0]
    print(f"1 process of 8 host devices, {STAGES} stages x 4 devices, {BLOCKS} blocks of {WIDTH}, batch {BATCH} in "
          f"{MICRO} micro-batches, {os.cpu_count()} CPU cores, load average {load:.1f} before")
    subprocess.run([sys.executable, __file__, "--worker", f"--steps={args.steps}", f"--rounds={args.rounds}"] +
                   (["--memory"] if args.memory else []), env=env, check=True, cwd=ROOT)
    print(f"load average {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main()
