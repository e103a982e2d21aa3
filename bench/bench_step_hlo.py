"""What XLA compiles for a first jitted training step: msx's StableHLO against a hand-written jax step (issue 31).

bench_cold_start.py's EfficientNet-B0 step (`value_and_grad` + Momentum under `@msx.jit`, batch 2, 3x64x64,
eval-mode BatchNorm as the bench runs it) is lowered by msx; the same network, loss and update are written
directly with `jax.lax`/`jax.nn` and lowered by `jax.jit(...)` with the same shapes. For each: StableHLO ops by
kind, module size, XLA's compile (wall and process CPU seconds, which the 2-core machine's load inflates less)
and the compiled module's kernels by kind (loop fusions, YNNPACK fusions, ...). `--options JSON;JSON...`
compiles the hand-written step again with each set of XLA compile options and counts the output elements that
differ from the default compile's.

    python bench/bench_step_hlo.py [--options '{"xla_backend_optimization_level": 1}']
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# (expand, channels, repeats, stride, kernel), as zoo_nets.py's EfficientNetB0
CONFIG = ((1, 16, 1, 1, 3), (6, 24, 2, 2, 3), (6, 40, 2, 2, 5), (6, 80, 3, 2, 3), (6, 112, 3, 1, 5),
          (6, 192, 4, 2, 5), (6, 320, 1, 1, 3))


def hand_written(rng: np.random.Generator):
    """(step, params, velocities, statistics): EfficientNet-B0's step written with jax.lax / jax.nn."""
    params, stats, plan = [], [], []

    def conv_p(cin, cout, k, group, bias=False):
        params.append(rng.standard_normal((cout, cin // group, k, k)).astype(np.float32) * 0.1)
        if bias:
            params.append(np.zeros(cout, np.float32))

    def conv_bn(cin, cout, k, stride=1, group=1, act=True):
        conv_p(cin, cout, k, group)
        params.extend([np.ones(cout, np.float32), np.zeros(cout, np.float32)])
        stats.extend([np.zeros(cout, np.float32), np.ones(cout, np.float32)])
        return k, stride, group, act

    plan.append(conv_bn(3, 32, 3, 2))
    cin = 32
    for e, cout, r, s, k in CONFIG:
        for j in range(r):
            stride, mid = (s if j == 0 else 1), cin * e
            block = {"expand": conv_bn(cin, mid, 1) if e != 1 else None, "dw": conv_bn(mid, mid, k, stride, mid)}
            conv_p(mid, max(1, cin // 4), 1, 1, True)
            conv_p(max(1, cin // 4), mid, 1, 1, True)
            block["project"], block["skip"] = conv_bn(mid, cout, 1, act=False), stride == 1 and cin == cout
            plan.append(block)
            cin = cout
    plan.append(conv_bn(cin, 1280, 1))
    params.extend([rng.standard_normal((1000, 1280)).astype(np.float32) * 0.01, np.zeros(1000, np.float32)])

    def forward(ps, ss, x):
        pi, si = iter(ps), iter(ss)

        def conv(v, k, stride, group, bias=False):
            y = lax.conv_general_dilated(v, next(pi), (stride, stride), [(k // 2, k // 2)] * 2,
                                         feature_group_count=group, dimension_numbers=("NCHW", "OIHW", "NCHW"))
            return y + next(pi)[None, :, None, None] if bias else y

        def cb(v, spec):
            k, stride, group, act = spec
            y = conv(v, k, stride, group)
            g, b, m, var = next(pi), next(pi), next(si), next(si)
            y = (y - m[None, :, None, None]) * (g * lax.rsqrt(var + 1e-5))[None, :, None, None] + b[None, :, None, None]
            return jax.nn.relu(y) if act else y

        x = cb(x, plan[0])
        for block in plan[1:-1]:
            y = cb(cb(x, block["expand"]) if block["expand"] else x, block["dw"])
            s = jnp.mean(y, (2, 3), keepdims=True)
            s = jax.nn.sigmoid(conv(jax.nn.relu(conv(s, 1, 1, 1, True)), 1, 1, 1, True))
            y = cb(y * s, block["project"])
            x = x + y if block["skip"] else y
        x = jnp.mean(cb(x, plan[-1]), (2, 3))
        w, b = next(pi), next(pi)
        return x @ w.T + b

    def loss(ps, ss, x, y):
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(forward(ps, ss, x)), y[:, None], 1))

    def step(ps, vs, ss, x, y):
        value, grads = jax.value_and_grad(loss)(ps, ss, x, y)
        vs = [0.9 * v + g for v, g in zip(vs, grads)]
        return value, [p - 0.01 * v for p, v in zip(ps, vs)], vs

    return step, params, [np.zeros_like(p) for p in params], stats


def msx_lowered(x: np.ndarray, y: np.ndarray):
    """jax's `Lowered` of msx's jitted EfficientNet-B0 step, as bench_cold_start.py writes it."""
    import msx as ms
    from zoo_nets import momentum_train_step, networks

    ms.set_seed(0)
    net = networks(ms)["efficientnet_b0"]()
    train_step = momentum_train_step(ms, net)
    lowered = train_step.lower(ms.Tensor(x), ms.Tensor(y))
    return lowered.backend.lower(lowered.graph, lowered.config)


def stablehlo_ops(text: str) -> collections.Counter:
    return collections.Counter(re.findall(r"= (?:\"?)stablehlo\.([a-z_]+)", text))


def kernels(hlo: str) -> collections.Counter:
    """The compiled module's entry instructions by kind: a fusion by its kind and XLA's name for it (e.g.
    `fusion:kLoop:transpose_copy`, `fusion:__ynn_fusion:ynn`), another op by its name."""
    entry = hlo[hlo.index("ENTRY"):]
    kinds = collections.Counter()
    for line in entry.splitlines():
        m = re.search(r"= \S+ ([\w-]+)\(", line)
        if not m or m.group(1) in ("parameter", "bitcast", "constant", "get-tuple-element", "tuple"):
            continue
        if m.group(1) != "fusion":
            kinds[m.group(1)] += 1
            continue
        kind = re.search(r'"kind":"(\w+)"', line) or re.search(r"kind=(k\w+)", line)
        name = re.match(r"\s*(?:ROOT )?%?([a-z_]+?)(?:_fusion)?(?:\.\d+)? =", line)
        kinds[f"fusion:{kind.group(1) if kind else '?'}:{name.group(1) if name else '?'}"] += 1
    return kinds


def timed_compile(lowered, options: dict | None = None):
    wall, cpu = time.perf_counter(), time.process_time()
    compiled = lowered.compile(compiler_options=options or None)
    return compiled, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--options", default="", help="';'-separated JSON dicts of XLA compile options to try")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 3, 64, 64)).astype(np.float32), np.array([1, 7], np.int32)
    step, ps, vs, ss = hand_written(rng)
    print(f"load average {os.getloadavg()[0]:.1f}; {os.cpu_count()} CPUs")
    hand = jax.jit(step).lower(ps, vs, ss, x, y)
    done = {}
    for name, lowered in (("msx", msx_lowered(x, y)), ("jax by hand", hand)):
        text = lowered.as_text()
        ops = stablehlo_ops(text)
        compiled, wall, cpu = timed_compile(lowered)
        ks, done[name] = kernels(compiled.as_text()), compiled
        print(f"{name}: StableHLO {len(text) / 1e3:.0f} kB, {sum(ops.values())} ops: "
              + ", ".join(f"{k} {v}" for k, v in ops.most_common(12)))
        print(f"  XLA compile {wall:.2f} s wall, {cpu:.2f} s CPU; {sum(ks.values())} compiled kernels/ops: "
              + ", ".join(f"{k} {v}" for k, v in ks.most_common(10)))
    if args.options:
        ref = [np.asarray(a) for a in jax.tree.leaves(done["jax by hand"](ps, vs, ss, x, y))]
        for opts in [json.loads(o) for o in args.options.split(";")]:
            compiled, wall, cpu = timed_compile(hand, opts)
            out = [np.asarray(a) for a in jax.tree.leaves(compiled(ps, vs, ss, x, y))]
            start = time.perf_counter()
            jax.block_until_ready(compiled(ps, vs, ss, x, y))
            differ = sum(int(np.sum(a != b)) for a, b in zip(out, ref))
            print(f"{json.dumps(opts)}: compile {wall:.2f} s wall, {cpu:.2f} s CPU; one step "
                  f"{time.perf_counter() - start:.3f} s; {differ} output elements differ from the default's")


if __name__ == "__main__":
    main()
