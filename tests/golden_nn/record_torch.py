"""Record PyTorch's answers for tests/golden_nn/torch_cases.py (run once, and whenever those cases change):

    python tests/golden_nn/record_torch.py [case ...]      # needs torch (pip install ".[bench]")

Writes tests/golden_nn/torch_answers/<case>.npz atomically: inputs ("in.i"), the state set before the run
("state.<name>"), and the answers ("out", "grad_in.i", "grad.<name>", "after.<name>").
"""
from __future__ import annotations

import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from torch_cases import CASES, cotangent, make_input, state_value  # noqa: E402

OUT = os.path.join(HERE, "torch_answers")  # not "torch": this folder is on sys.path, and `import torch` would find it


def record(name: str) -> dict:
    spec = CASES[name]
    net = spec["build"](torch.nn)
    net.train(spec["train"])
    rng = np.random.default_rng(sum(map(ord, name)))
    inputs = [make_input(s, rng) for s in spec["inputs"]]
    arrays = {f"in.{i}": x for i, x in enumerate(inputs)}
    with torch.no_grad():
        for pname, t in list(net.named_parameters()) + list(net.named_buffers()):
            value = state_value(pname, tuple(t.shape), t.detach().numpy().dtype)
            t.copy_(torch.from_numpy(value))
            arrays[f"state.{pname}"] = value
    xs = [torch.tensor(x, requires_grad=x.dtype.kind == "f") for x in inputs]
    out = net(*xs)
    (out * torch.from_numpy(cotangent(0, tuple(out.shape)))).sum().backward()
    arrays["out"] = out.detach().numpy()
    for i, x in enumerate(xs):
        if x.requires_grad:
            arrays[f"grad_in.{i}"] = x.grad.numpy()
    for pname, p in net.named_parameters():
        if p.requires_grad:
            arrays[f"grad.{pname}"] = p.grad.numpy()
    for pname, t in list(net.named_parameters()) + list(net.named_buffers()):
        arrays[f"after.{pname}"] = t.detach().numpy()
    return arrays


def main(names: list[str]) -> None:
    os.makedirs(OUT, exist_ok=True)
    for name in names or sorted(CASES):
        arrays = record(name)
        path = os.path.join(OUT, f"{name}.npz")
        with open(path + ".tmp", "wb") as f:
            np.savez(f, torch=np.array(torch.__version__), **arrays)
        os.replace(path + ".tmp", path)
        print(f"{name}: {len(arrays)} arrays")


if __name__ == "__main__":
    main(sys.argv[1:])
