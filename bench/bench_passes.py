"""Pass pipelines: compile time and step time of jit_level="O0" vs "O1" on training steps.

Run: `python bench/bench_passes.py` (add `--quick` for fewer repetitions). Prints a
markdown table of medians, O0 and O1 measured alternately; the ratio is O1 / O0
(lower is better for O1). The MLP and CNN steps are bench.py's; the third step
writes its activation (swish) and loss (MSE) with elementwise ops, which is
what O1's fusion groups. Per step:

- passes only: `msx.passes.optimise` on the captured graph (the pipeline, with the verifier);
- capture + passes + XLA compile: a fresh `jit(...).lower(x, y).compile()`;
- train step: one call of the compiled step.

`--engine [--baseline REV]` instead times the rewrite passes (`simplify`,
`constant_fold`, a user `PatternToPatternPass`, and the whole O1 pipeline) on
the same captured graphs, against the implementation of `msx/passes/` at git
revision REV (default `main`), loaded into this process beside the current one
and measured alternately with it; the ratio is current / REV (lower is better).
"""
from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

import jax
import numpy as np

import msx
from bench import _block, _fmt, batch, cnn_net, mlp_net, msx_step, paired
from msx import nn, ops


def swish_mse_step():
    """A step whose activation and loss are chains of elementwise ops."""
    msx.set_seed(0)
    fc1, fc2 = nn.Dense(784, 256), nn.Dense(256, 10)
    params = fc1.trainable_params() + fc2.trainable_params()
    opt = nn.Adam(params, learning_rate=1e-3)

    def loss_fn(x, target):
        h = fc1(x)
        h = h * ops.sigmoid(1.702 * h)
        err = fc2(h) - target
        return (err * err).mean()

    grad_fn = msx.value_and_grad(loss_fn, None, opt.parameters)

    def step(x, target):
        loss, grads = grad_fn(x, target)
        opt(grads)
        return loss

    return step


def _all_ops(graph) -> list[str]:
    return [n.op for n in graph.nodes] + [n.op for sub in graph.subgraphs() for n in sub.nodes]


def _jit(make_step, level: str):
    return msx.jit(make_step(), capture_mode="trace", jit_level=level)


def rows_for(name: str, make_step, xm, ym, number: int, repeats: int) -> list[tuple]:
    graph = _jit(make_step, "O0").capture(xm, ym)
    a, b = paired(lambda: msx.passes.optimise(graph, "O0"), lambda: msx.passes.optimise(graph, "O1"), 20, repeats)
    rows = [(f"{name}: passes only ({len(_all_ops(graph))} nodes)", a, b)]
    a, b = paired(lambda: _jit(make_step, "O0").lower(xm, ym).compile(),
                  lambda: _jit(make_step, "O1").lower(xm, ym).compile(), 1, max(3, repeats // 2))
    rows.append((f"{name}: capture + passes + XLA compile", a, b))
    o0, o1 = _jit(make_step, "O0"), _jit(make_step, "O1")
    fused = _all_ops(o1.lower(xm, ym).graph).count("Fused")
    a, b = paired(lambda: _block(o0(xm, ym)), lambda: _block(o1(xm, ym)), number, repeats)
    rows.append((f"{name}: train step ({fused} fused groups at O1)", a, b))
    return rows


def load_passes(rev: str):
    """`msx/passes/` as it was at git revision `rev`, imported as the package `msx._passes_<rev>`."""
    root = Path(__file__).resolve().parent.parent
    names = subprocess.run(["git", "ls-tree", "--name-only", rev, "msx/passes/"], cwd=root, check=True,
                           capture_output=True, text=True).stdout.split()
    folder = Path(tempfile.mkdtemp(prefix="msx_passes_")) / "passes"
    folder.mkdir()
    for name in names:
        text = subprocess.run(["git", "show", f"{rev}:{name}"], cwd=root, check=True, capture_output=True,
                              text=True).stdout
        (folder / Path(name).name).write_text(text)
    package = "msx._passes_" + "".join(c if c.isalnum() else "_" for c in rev)
    spec = importlib.util.spec_from_file_location(package, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    spec.loader.exec_module(module)
    return module


def _add_neg(passes):
    """The seed's Add + Neg -> Sub user pass, written against a `msx.passes` package."""
    class AddNegFusion(passes.PatternToPatternPass):
        def define_src_pattern(self, src):
            src.add_var("x").add_var("y")
            src.add_cnode("neg", "Neg", ["y"])
            src.add_cnode("add", "Add", ["x", "neg"])

        def define_dst_pattern(self, dst):
            dst.add_cnode("sub", "Sub", ["x", "y"])

    return AddNegFusion()


def _rewrites(passes) -> dict:
    """name -> a Graph -> Graph callable, for the rewrite passes of a `msx.passes` package."""
    simplify = importlib.import_module(passes.__name__ + ".simplify").AlgebraicSimplification()
    fold = importlib.import_module(passes.__name__ + ".fold").ConstantFolding()
    pattern = _add_neg(passes)
    return {"simplify": simplify, "constant_fold": fold, "user pattern (Add+Neg)": pattern,
            "whole O1 pipeline": lambda g: passes.optimise(g, "O1")}


def identities_fn(x, w):
    """A step full of what the rewrites remove: identities, double negations, constant arithmetic."""
    h = ops.matmul(x, w)
    for _ in range(8):
        h = -(-(h * 1.0 + 0.0)) + ops.neg(ops.full((1,), 2.0) * 3.0)
    return h.sum()


def engine_rows(rev: str, repeats: int) -> list[tuple]:
    old, new = _rewrites(load_passes(rev)), _rewrites(msx.passes)
    x, y = batch("mlp", 128)
    xm, ym = msx.Tensor(x), msx.Tensor(y)
    cx, cy = batch("cnn", 32)
    graphs = [("MLP", _jit(lambda: msx_step(mlp_net(), False), "O0").capture(xm, ym)),
              ("CNN", _jit(lambda: msx_step(cnn_net(), False), "O0").capture(msx.Tensor(cx), msx.Tensor(cy))),
              ("identities", msx.jit(identities_fn, capture_mode="trace").capture(
                  msx.Tensor(np.ones((4, 8), np.float32)), msx.Tensor(np.ones((8, 8), np.float32))))]
    rows = []
    for gname, graph in graphs:
        for pname in new:
            a, b = paired(lambda: new[pname](graph), lambda: old[pname](graph), 20, repeats)
            rows.append((f"{gname} ({len(_all_ops(graph))} nodes): {pname}", b, a))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (noisier)")
    parser.add_argument("--engine", action="store_true", help="time the rewrite passes against --baseline")
    parser.add_argument("--baseline", default="main", help="git revision of msx/passes/ to compare with")
    args = parser.parse_args()
    repeats = 3 if args.quick else 9
    if args.engine:
        rows = engine_rows(args.baseline, repeats)
        print(f"jax {jax.__version__}, {jax.devices()[0].platform}, medians of {repeats} alternating runs\n")
        print(f"| rewrite pass | {args.baseline} | current | current / {args.baseline} |")
        print("|---|---|---|---|")
        for name, a, b in rows:
            print(f"| {name} | {_fmt(a)} | {_fmt(b)} | {b / a:.2f}x |")
        return
    x, y = batch("mlp", 128)
    xm, ym = msx.Tensor(x), msx.Tensor(y)
    rows = rows_for("MLP 784-512-512-10 b128", lambda: msx_step(mlp_net(), False), xm, ym, 10, repeats)
    target = msx.Tensor(np.eye(10, dtype=np.float32)[y])
    rows += rows_for("MLP 784-256-10 swish + MSE b128", swish_mse_step, xm, target, 10, repeats)
    x, y = batch("cnn", 32)
    rows += rows_for("CNN conv32-conv64-pool-128-10 b32", lambda: msx_step(cnn_net(), False), msx.Tensor(x),
                     msx.Tensor(y), 5, repeats)
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}, medians of {repeats} alternating runs\n")
    print("| benchmark | O0 | O1 | O1 / O0 |")
    print("|---|---|---|---|")
    for name, a, b in rows:
        print(f"| {name} | {_fmt(a)} | {_fmt(b)} | {b / a:.2f}x |")


if __name__ == "__main__":
    main()
