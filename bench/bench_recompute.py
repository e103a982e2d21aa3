"""Per-primitive recompute (`ops.Primitive.recompute()`): what a jitted training step keeps for its backward pass,
and the compiled executable's temporary memory, with and without the marks (docs/parallel.md, "Recompute").

Run: `python bench/bench_recompute.py [--seq 1024]`. The block is attention-like (MindFormers' select_recompute
marks): x -> q, k, v (Dense) -> BatchMatMul(q, k^T) -> Mul(scale) -> Softmax -> BatchMatMul(p, v) -> mean
square, batch 2, 4 heads of 32, `--seq` tokens, float32. Marked: the score matmul, the scale and the softmax,
whose (batch, heads, seq, seq) outputs are the block's largest activations. Columns:

- kept: bytes of the residuals jax's VJP of the gradient's forward keeps (the leaves of the `jax.vjp` pullback
  of the Grad node's body, lowered as msx lowers it): the program's own answer to "what does the backward keep";
- temp: the compiled step's `memory_analysis().temp_size_in_bytes` on this backend (XLA's buffer assignment,
  which its scheduler decides);
- exp: `stablehlo.exponential` ops in the step's StableHLO (the softmax's exp, once more when recomputed).
Loss and gradients of both rows are compared (they must agree to float32 rounding).
"""
from __future__ import annotations

import argparse

import jax
import numpy as np

import msx
from msx import nn, ops
from msx.ir.interpret import evaluate
from msx.ir.recompute import rematerialised

B, HEADS, DH = 2, 4, 32
D = HEADS * DH


class Attention(nn.Cell):
    def __init__(self, seq: int, mark: bool) -> None:
        super().__init__()
        self.seq = seq
        self.q, self.k, self.v = nn.Dense(D, D), nn.Dense(D, D), nn.Dense(D, D)
        self.qk, self.pv = ops.BatchMatMul(transpose_b=True), ops.BatchMatMul()
        self.scale, self.softmax = ops.Mul(), ops.Softmax(-1)
        if mark:
            for op in (self.qk, self.scale, self.softmax):
                op.recompute()

    def heads(self, t):
        return t.reshape(B, self.seq, HEADS, DH).transpose(0, 2, 1, 3)

    def construct(self, x):
        q, k, v = self.heads(self.q(x)), self.heads(self.k(x)), self.heads(self.v(x))
        p = self.softmax(self.scale(self.qk(q, k), DH ** -0.5))
        return (self.pv(p, v) ** 2).mean()


def measure(seq: int, mark: bool, x: msx.Tensor) -> dict:
    msx.set_seed(0)
    net = Attention(seq, mark)
    step = msx.value_and_grad(net, None, net.trainable_params())
    jf = msx.jit(lambda x: step(x))
    lowered = jf.lower(x)
    body = lowered.graph.nodes[0].subgraphs["body"]
    f = lambda *a: evaluate(body, list(a))[0][0]  # noqa: E731
    args = [np.zeros(v.abstract.shape, v.abstract.dtype) for v in body.inputs]
    _, pullback = jax.vjp(rematerialised(f) if mark else f, *args)
    kept = sum(np.asarray(r).nbytes for r in jax.tree_util.tree_leaves(pullback))
    temp = lowered.compile().handle.compiled.memory_analysis().temp_size_in_bytes
    loss, grads = jf(x)
    return {"kept": kept, "temp": temp, "exp": lowered.as_text().count("stablehlo.exponential"),
            "loss": loss.asnumpy(), "grads": [g.asnumpy() for g in grads]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seq", type=int, default=1024)
    seq = parser.parse_args().seq
    x = msx.Tensor(np.random.default_rng(0).standard_normal((B, seq, D)).astype(np.float32))
    rows = {mark: measure(seq, mark, x) for mark in (False, True)}
    np.testing.assert_allclose(rows[True]["loss"], rows[False]["loss"], rtol=1e-6)
    for a, b in zip(rows[True]["grads"], rows[False]["grads"]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-7)
    print(f"attention block, batch {B}, {HEADS} heads x {DH}, seq {seq}, float32, on {jax.devices()[0].platform}")
    print(f"{'':12} {'kept MiB':>9} {'temp MiB':>9} {'exp':>4}")
    for mark, r in rows.items():
        print(f"{'marked' if mark else 'unmarked':12} {r['kept'] / 2**20:9.2f} {r['temp'] / 2**20:9.2f} {r['exp']:4d}")
    print("loss and gradients equal (rtol 1e-6 / 1e-4)")


if __name__ == "__main__":
    main()
