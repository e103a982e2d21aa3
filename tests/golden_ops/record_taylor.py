"""Record MindSpore 2.10's answers for `ops.jet`, `ops.derivative` and `ops.linearize` (msx/taylor.py;
`tests/test_spectral_taylor_ops.py`), run with MindSpore's venv from the repository root:

    /work/main/.venv-ms/bin/python tests/golden_ops/record_taylor.py

The functions these APIs take are written once here over an `ops` module (MindSpore's or msx's), so the test
runs the same code in msx. Writes `taylor_ms210.npz` (plain arrays: `<case>/out<i>`).
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "taylor_ms210.npz")
X = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
Y = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
XI = np.array([1, 2, 3], np.int32)
SERIES = np.stack([np.ones_like(X), np.zeros_like(X), np.zeros_like(X)])
SERIES2 = np.stack([np.full_like(X, 0.5), np.ones_like(X)])
M1 = np.array([[1, 2, 3], [3, 4, 5]], np.float32)
M2 = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
V1, V2 = np.ones_like(M1), np.array([[1, 1], [1, 1], [0, 0]], np.float32)


OPS = None  # the ops module the functions below run on (set by `functions`)


def exp_sin(x):
    return OPS.exp(OPS.sin(x))


def sin_mix(x):
    return OPS.sin(x) * x - OPS.cos(x * x)


def log1p_mul(x, y):
    return OPS.log(1 + x * x) * OPS.cos(y)


def matmul(x, y):
    return OPS.matmul(x, y)


def two_out(x):
    return OPS.sin(x), x * x * x


def functions(ops):
    """The functions, over `ops` (MindSpore compiles them from their source, so they are plain defs)."""
    global OPS
    OPS = ops
    return {"exp_sin": exp_sin, "sin_mix": sin_mix, "log1p_mul": log1p_mul, "matmul": matmul, "two_out": two_out}


def cases(ops, T):
    f = functions(ops)
    return {
        "jet_exp_sin": lambda: ops.jet(f["exp_sin"], T(X), T(SERIES)),
        "jet_sin_mix_two_terms": lambda: ops.jet(f["sin_mix"], T(X), T(SERIES2)),
        "jet_two_inputs": lambda: ops.jet(f["log1p_mul"], (T(X), T(Y)), (T(SERIES), T(SERIES2[:1].repeat(3, 0)))),
        "jet_int_primal": lambda: ops.jet(f["sin_mix"], T(XI), T(np.array([[1, 1, 1], [0, 1, 2]], np.int32))),
        "derivative_exp_sin_3": lambda: ops.derivative(f["exp_sin"], T(X), 3),
        "derivative_sin_mix_1": lambda: ops.derivative(f["sin_mix"], T(X), 1),
        "derivative_two_inputs_2": lambda: ops.derivative(f["log1p_mul"], (T(X), T(Y)), 2),
        "derivative_two_outputs": lambda: ops.derivative(f["two_out"], T(X), 2),
        "linearize_matmul": lambda: _linearized(ops.linearize(f["matmul"], (T(M1), T(M2))), (T(V1), T(V2))),
        "linearize_exp_sin": lambda: _linearized(ops.linearize(f["exp_sin"], T(X)), T(Y)),
    }


def _linearized(result, v):
    out, jvp_fn = result
    return out, jvp_fn(v)


def flatten(result) -> list[np.ndarray]:
    if isinstance(result, (tuple, list)):
        return [a for r in result for a in flatten(r)]
    return [result.asnumpy()]


def main() -> None:
    import mindspore as ms
    from mindspore import Tensor, ops

    ms.set_context(mode=ms.PYNATIVE_MODE)
    saved = {}
    for cid, run in cases(ops, Tensor).items():
        try:
            result = flatten(run())
        except Exception as e:  # noqa: BLE001  (an op MindSpore's Taylor pass has no rule for: say so)
            print(f"NOT RECORDED {cid}: {type(e).__name__}: {str(e).strip().splitlines()[0][:150]}")
            continue
        for i, a in enumerate(result):
            saved[f"{cid}/out{i}"] = a
        print(cid, [saved[k].shape for k in saved if k.startswith(cid + "/")])
    np.savez(OUT, **saved)


if __name__ == "__main__":
    main()
