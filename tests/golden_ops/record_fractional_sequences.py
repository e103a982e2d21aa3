"""Record MindSpore 2.10's FractionalMaxPool / FractionalAvgPool answers where the pooling sequences are random
(the ratio does not divide the dims): x, y and the row/col sequences MindSpore drew, so that
tests/test_fractional_pool_ops.py can check msx's pooling for those same sequences. Run from the repository root:

    /work/main/.venv-ms/bin/python tests/golden_ops/record_fractional_sequences.py
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# (name, op, pooling_ratio, pseudo_random, overlapping, dtype)
CONFIGS = [
    ("max_random", "FractionalMaxPool", [1.0, 1.6, 1.4, 1.0], False, False, np.float32),
    ("max_pseudo_overlap", "FractionalMaxPool", [1.0, 1.5, 1.7, 1.0], True, True, np.float32),
    ("max_nan_overlap", "FractionalMaxPool", [1.0, 1.6, 1.4, 1.0], False, True, np.float64),
    ("max_int", "FractionalMaxPool", [1.0, 2.5, 1.3, 1.0], True, False, np.int64),
    ("avg_random", "FractionalAvgPool", [1.0, 1.6, 1.4, 1.0], False, False, np.float32),
    ("avg_pseudo_overlap", "FractionalAvgPool", [1.0, 1.5, 1.7, 1.0], True, True, np.float64),
    ("avg_int_overlap", "FractionalAvgPool", [1.0, 2.5, 1.3, 1.0], False, True, np.int32),
]


def inputs(name: str, dtype) -> np.ndarray:
    rng = np.random.default_rng(len(name))
    x = rng.standard_normal((2, 7, 9, 3)) * 5
    if "nan" in name:
        x[0, :3, :4, 0] = np.nan
        x[1, 2, ::2, 1] = np.nan
    return x.astype(dtype)


def main() -> None:
    import mindspore as ms
    from mindspore.ops import operations as P

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    saved = {}
    for name, op, ratio, pseudo, overlap, dtype in CONFIGS:
        x = inputs(name, dtype)
        y, rows, cols = getattr(P, op)(ratio, pseudo_random=pseudo, overlapping=overlap)(ms.Tensor(x))
        saved.update({f"{name}/x": x, f"{name}/y": y.asnumpy(), f"{name}/rows": rows.asnumpy(),
                      f"{name}/cols": cols.asnumpy()})
        print(name, rows.asnumpy().tolist(), cols.asnumpy().tolist())
    np.savez(os.path.join(HERE, "fractional_sequences.npz"), **saved)


if __name__ == "__main__":
    main()
