"""What the process-wide Parameter lock costs two threads that train two different networks.

msx serialises every graph run that binds Parameters with one lock (`msx.tensor.PARAMETER_LOCK`), so a
training step and an evaluation of one network in two threads never see each other's half-written or
donated state. A lock per network would let two threads that train *different* networks dispatch at the
same time. This bench measures the most that could gain: two threads, each training its own MLP with a
jitted step, once with the real lock and once with the lock replaced by a no-op (which is what perfect
per-network locks would give two unrelated networks). The lock is held while a step is dispatched, not
while it computes (jax dispatches asynchronously), so the two should be close.

Run: `python bench/bench_threads.py` (`--quick` for fewer repetitions). Prints medians and the ratio.
"""
from __future__ import annotations

import argparse
import contextlib
import statistics
import threading
import time

import numpy as np

import msx
from msx import nn
import msx.tensor as tensor_mod
import msx.runtime.compiled as compiled_mod


def _trainer(seed: int):
    msx.set_seed(seed)
    net = nn.SequentialCell(nn.Dense(256, 256), nn.ReLU(), nn.Dense(256, 10))
    opt = nn.SGD(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    grad_fn = msx.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    @msx.jit
    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    rng = np.random.default_rng(seed)
    x = msx.Tensor(rng.standard_normal((64, 256)).astype(np.float32))
    y = msx.Tensor(rng.integers(0, 10, 64).astype(np.int32))
    step(x, y).asnumpy()  # compile
    return lambda: step(x, y), net


def _two_threads(steps: int, trainers) -> float:
    def work(run):
        out = None
        for _ in range(steps):
            out = run()
        out.asnumpy()

    threads = [threading.Thread(target=work, args=(run,)) for run, _ in trainers]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return (time.perf_counter() - start) / steps


@contextlib.contextmanager
def _no_lock():
    dummy = contextlib.nullcontext()
    saved = compiled_mod.PARAMETER_LOCK
    compiled_mod.PARAMETER_LOCK = dummy
    try:
        yield
    finally:
        compiled_mod.PARAMETER_LOCK = saved


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    repeats, steps = (5, 100) if quick else (15, 200)
    trainers = [_trainer(0), _trainer(1)]
    locked, free = [], []
    for _ in range(repeats):
        locked.append(_two_threads(steps, trainers))
        with _no_lock():
            free.append(_two_threads(steps, trainers))
    one = statistics.median(_two_threads(steps, trainers[:1]) for _ in range(repeats))
    a, b = statistics.median(locked), statistics.median(free)
    print("| two threads, two networks, jitted SGD step (256-256-10, batch 64) | time per step of both |")
    print("|---|---|")
    print(f"| one thread, one network (reference) | {one * 1e6:.0f} µs |")
    print(f"| with msx's process-wide lock | {a * 1e6:.0f} µs |")
    print(f"| with no lock (the bound for per-network locks) | {b * 1e6:.0f} µs |")
    print(f"| ratio lock / no lock | {a / b:.3f}x |")
    assert tensor_mod.PARAMETER_LOCK is compiled_mod.PARAMETER_LOCK


if __name__ == "__main__":
    main()
