"""Record real MindSpore's answers to the oracle cases (tests/oracle/cases.py) as golden data.

Run in the MindSpore venv (PyNative mode, CPU), never in msx's environment:

    /work/.venv-ms/bin/python tools/record_goldens.py

Writes tests/oracle/goldens.npz (inputs, outputs, cotangents, gradients; plain arrays, no pickle) and
tests/oracle/goldens.json (per case: output dtypes, gradient positions, or MindSpore's error), atomically.
Re-run it whenever cases are added; tests/test_oracle.py checks that every case has a golden, and
tests/test_oracle_live.py (where MindSpore is installed: CI makes `.venv-ms`) re-records a sample with
`--out DIR/prefix --every N` and checks the committed goldens still equal what MindSpore answers.
"""
from __future__ import annotations

import json
import os
import sys
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
OUT = os.path.join(HERE, "..", "tests", "oracle", "goldens")

from oracle.cases import CASES  # noqa: E402
from oracle.runner import Framework, grad_positions, make_inputs, run_case  # noqa: E402


def mindspore_framework() -> Framework:
    import mindspore as ms
    from mindspore import mint, ops

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    return Framework(ops=ops, mint=mint, Tensor=ms.Tensor, dtype_of=lambda n: getattr(ms, n),
                     grad=lambda fn, pos: ms.grad(fn, grad_position=pos if len(pos) > 1 else pos[0]),
                     to_numpy=lambda t: t.asnumpy())


def _run_settled(fw, case, inputs, tries: int = 4):
    """`run_case`, tried again when it fails: MindSpore's CPU runtime can report an earlier case's missing
    kernel ("The kernel X unregistered") on the next few ops; a case that fails every time is rejected."""
    for attempt in range(tries):
        try:
            return run_case(fw, case, inputs)
        except Exception:
            if attempt == tries - 1:
                raise


def main() -> None:
    import argparse

    import mindspore as ms

    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=OUT, help="path prefix of the .npz/.json to write")
    parser.add_argument("--every", type=int, default=1, help="record every N-th case only (a live check)")
    parser.add_argument("--only", default="", help="comma-separated case ids to record (default: all)")
    options = parser.parse_args()
    only = set(filter(None, options.only.split(",")))
    out = options.out

    fw = mindspore_framework()
    arrays: dict[str, np.ndarray] = {}
    meta: dict[str, dict] = {}
    failed = 0
    for case in CASES[::options.every] if not only else [c for c in CASES if c.id in only]:
        inputs = make_inputs(case)
        for i, x in enumerate(inputs):
            arrays[f"{case.id}/in{i}"] = x
        entry: dict = {"call": case.call, "n_inputs": len(inputs)}
        try:
            outs, grads, ct = _run_settled(fw, case, inputs)
        except Exception as exc:  # MindSpore rejects the case: msx must reject it too
            lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip() and set(ln.strip()) != {"-"}]
            entry["error"] = f"{type(exc).__name__}: {(lines[0] if lines else '')[:300]}"
            failed += 1
            meta[case.id] = entry
            continue
        entry["dtypes"] = [d for _, d in outs]
        for i, (a, _) in enumerate(outs):
            arrays[f"{case.id}/out{i}"] = a
        if grads is not None:
            entry["grad_positions"] = list(grad_positions(case, inputs))
            arrays[f"{case.id}/ct"] = ct
            for i, g in enumerate(grads):
                arrays[f"{case.id}/grad{i}"] = g
        meta[case.id] = entry
    tmp = out + ".tmp.npz"
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, out + ".npz")
    with open(out + ".json.tmp", "w") as f:
        json.dump({"mindspore_version": ms.__version__, "cases": meta}, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(out + ".json.tmp", out + ".json")
    print(f"recorded {len(meta)} cases ({failed} rejected by MindSpore) -> {os.path.normpath(out)}.npz/.json",
          file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
        sys.exit(1)
