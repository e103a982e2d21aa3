"""msx against hand-written jax / optax / flax, side by side in one process.

Run: `python bench/bench.py` (add `--quick` for fewer repetitions). Prints a
markdown table of medians and ratios (msx / reference; lower is better).
Measurements alternate between msx and its reference so that machine noise
hits both alike; only ratios are meant to be compared across machines.
"""
from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

import msx
from msx import nn

F32 = jnp.float32


def _time(fn, number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        out = fn()
    jax.block_until_ready(out)
    return (time.perf_counter() - start) / number


def paired(msx_fn, ref_fn, number: int, repeats: int) -> tuple[float, float]:
    """Median seconds per call of each, measured alternately."""
    msx_fn(), ref_fn()  # warm up
    a, b = [], []
    for _ in range(repeats):
        a.append(_time(msx_fn, number))
        b.append(_time(ref_fn, number))
    return statistics.median(a), statistics.median(b)


def _block(x):
    return x._data if isinstance(x, msx.Tensor) else x


# ---------------------------------------------------------------- eager dispatch
def eager_dispatch(repeats: int):
    xm, xj = msx.Tensor(np.ones(4, np.float32)), jnp.ones(4, F32)

    def run_msx():
        y = xm
        for _ in range(1000):
            y = y + 1
        return y._data

    def run_jax():
        y = xj
        for _ in range(1000):
            y = y + 1
        return y

    a, b = paired(run_msx, run_jax, 1, repeats)
    return "eager `x = x + 1` (4 elems), per op", a / 1000, b / 1000, "jax.numpy eager"


# ---------------------------------------------------------------- models
def mlp_net():
    msx.set_seed(0)
    return nn.SequentialCell([nn.Dense(784, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(), nn.Dense(512, 10)])


def cnn_net():
    msx.set_seed(0)
    return nn.SequentialCell([nn.Conv2d(1, 32, 3, pad_mode="valid", has_bias=True), nn.ReLU(),
                              nn.Conv2d(32, 64, 3, pad_mode="valid", has_bias=True), nn.ReLU(),
                              nn.MaxPool2d(2, 2), nn.Flatten(), nn.Dense(64 * 12 * 12, 128), nn.ReLU(),
                              nn.Dense(128, 10)])


def params_of(net) -> list[jax.Array]:
    return [jnp.array(p._data) for p in net.trainable_params()]


def jax_forward(kind: str):
    """The same math as the msx nets, written in jax (weights in msx's (out, in) / OIHW layout)."""

    def dense(x, w, b):
        return x @ w.T + b

    def conv(x, w, b):
        y = jax.lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return y + b.reshape(1, -1, 1, 1)

    def mlp(p, x):
        h = jax.nn.relu(dense(x, p[0], p[1]))
        h = jax.nn.relu(dense(h, p[2], p[3]))
        return dense(h, p[4], p[5])

    def cnn(p, x):
        h = jax.nn.relu(conv(x, p[0], p[1]))
        h = jax.nn.relu(conv(h, p[2], p[3]))
        h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        h = jax.nn.relu(dense(h.reshape(h.shape[0], -1), p[4], p[5]))
        return dense(h, p[6], p[7])

    return mlp if kind == "mlp" else cnn


def msx_step(net, jitted: bool):
    loss_fn = nn.CrossEntropyLoss()
    opt = nn.Adam(net.trainable_params(), learning_rate=1e-3)
    grad_fn = msx.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    return msx.jit(step, capture_mode="trace") if jitted else step


def jax_step(kind: str, params, jitted: bool):
    forward = jax_forward(kind)
    tx = optax.adam(1e-3)
    state = [params, tx.init(params)]

    def loss_fn(p, x, y):
        return optax.softmax_cross_entropy_with_integer_labels(forward(p, x), y).mean()

    def update(p, s, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        u, s = tx.update(g, s, p)
        return optax.apply_updates(p, u), s, loss

    update = jax.jit(update, donate_argnums=(0, 1)) if jitted else update

    def step(x, y):
        state[0], state[1], loss = update(state[0], state[1], x, y)
        return loss

    return step


def flax_mlp_step():
    import flax.linen as fnn

    class MLP(fnn.Module):
        @fnn.compact
        def __call__(self, x):
            x = fnn.relu(fnn.Dense(512)(x))
            x = fnn.relu(fnn.Dense(512)(x))
            return fnn.Dense(10)(x)

    model, tx = MLP(), optax.adam(1e-3)
    params = model.init(jax.random.key(0), jnp.ones((1, 784), F32))
    state = [params, tx.init(params)]

    @jax.jit
    def update(p, s, x, y):
        def loss_fn(p):
            return optax.softmax_cross_entropy_with_integer_labels(model.apply(p, x), y).mean()
        loss, g = jax.value_and_grad(loss_fn)(p)
        u, s = tx.update(g, s, p)
        return optax.apply_updates(p, u), s, loss

    def step(x, y):
        state[0], state[1], loss = update(state[0], state[1], x, y)
        return loss

    return step


def batch(kind: str, n: int):
    rng = np.random.default_rng(0)
    shape = (n, 784) if kind == "mlp" else (n, 1, 28, 28)
    x = rng.normal(size=shape).astype(np.float32)
    y = rng.integers(0, 10, n)
    return x, y


def training_rows(repeats: int):
    rows = []
    x, y = batch("mlp", 128)
    xm, ym, xj, yj = msx.Tensor(x), msx.Tensor(y), jnp.asarray(x), jnp.asarray(y)
    net = mlp_net()
    eager_msx, eager_jax = msx_step(mlp_net(), False), jax_step("mlp", params_of(net), False)
    a, b = paired(lambda: _block(eager_msx(xm, ym)), lambda: eager_jax(xj, yj), 3, repeats)
    rows.append(("MLP 784-512-512-10 b128 train step, eager", a, b, "jax eager + optax"))
    eager_time = a
    jit_msx, jit_jax = msx_step(mlp_net(), True), jax_step("mlp", params_of(net), True)
    a, b = paired(lambda: _block(jit_msx(xm, ym)), lambda: jit_jax(xj, yj), 20, repeats)
    rows.append(("MLP b128 train step, jit", a, b, "jax.jit + optax"))
    flax_step = flax_mlp_step()
    a2, c = paired(lambda: _block(jit_msx(xm, ym)), lambda: flax_step(xj, yj), 20, repeats)
    rows.append(("MLP b128 train step, jit", a2, c, "flax.linen + optax, jit"))
    rows.append(("MLP b128 train step: msx eager / msx jit", eager_time, a, "(speed-up of jit)"))

    x, y = batch("cnn", 32)
    xm, ym, xj, yj = msx.Tensor(x), msx.Tensor(y), jnp.asarray(x), jnp.asarray(y)
    net = cnn_net()
    jit_msx, jit_jax = msx_step(cnn_net(), True), jax_step("cnn", params_of(net), True)
    a, b = paired(lambda: _block(jit_msx(xm, ym)), lambda: jit_jax(xj, yj), 5, repeats)
    rows.append(("CNN conv32-conv64-pool-128-10 b32 train step, jit", a, b, "jax.jit + optax"))
    return rows


def inference_rows(repeats: int):
    net = mlp_net()
    forward = jax.jit(jax_forward("mlp"))
    params = params_of(net)
    x = batch("mlp", 1)[0]
    xm, xj = msx.Tensor(x), jnp.asarray(x)
    jnet = msx.jit(net, capture_mode="trace")
    a, b = paired(lambda: _block(jnet(xm)), lambda: forward(params, xj), 200, repeats)
    rows = [("MLP batch-1 inference call, jit", a, b, "jax.jit")]

    def compile_msx():
        fresh = msx.jit(mlp_net(), capture_mode="trace")
        return fresh.lower(xm).compile()

    def compile_jax():
        return jax.jit(jax_forward("mlp")).lower(params, xj).compile()

    a, b = paired(compile_msx, compile_jax, 1, max(3, repeats // 2))
    rows.append(("MLP capture+lower+compile", a, b, "jax.jit(...).lower().compile()"))
    return rows


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (noisier)")
    repeats = 3 if parser.parse_args().quick else 9
    rows = [eager_dispatch(repeats)] + training_rows(repeats) + inference_rows(repeats)
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}, medians of {repeats} alternating runs\n")
    print("| benchmark | msx | reference | ratio | reference is |")
    print("|---|---|---|---|---|")
    for name, a, b, ref in rows:
        print(f"| {name} | {_fmt(a)} | {_fmt(b)} | {a / b:.2f}x | {ref} |")


if __name__ == "__main__":
    main()
