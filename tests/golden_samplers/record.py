"""Record MindSpore 2.10's answers for the `samplers` round that the one-call golden harness cannot express:
`ops.RaggedRange` (its `Tsplits` is a dtype object), `nn.SampledSoftmaxLoss` with fixed `sampled_values`
(its deterministic part), and raw outputs of the candidate samplers (msx checks that its expected-count rule
reproduces MindSpore's counts from MindSpore's own candidates). Run from the repository root with MindSpore's venv:

    /work/main/.venv-ms/bin/python tests/golden_samplers/record.py

It writes `samplers.npz` (plain arrays, read with allow_pickle=False) beside this script.
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

RAGGED = {  # id: (starts, limits, deltas, Tsplits)
    "int32_splits64": (np.array([2, 5, 8], np.int32), np.array([3, 5, 12], np.int32), np.array([1, 1, 1], np.int32),
                       "int64"),
    "float32_mixed_steps": (np.array([0.0, 5.0, 8.0], np.float32), np.array([1.0, 1.0, 12.0], np.float32),
                            np.array([0.3, -1.5, 2.5], np.float32), "int32"),
    "int64_scalar_down": (np.array(1, np.int64), np.array(-6, np.int64), np.array(-2, np.int64), "int32"),
    "wrong_direction_f64": (np.array([5.0, 0.0], np.float64), np.array([1.0, 2.0], np.float64),
                            np.array([2.0, 0.5], np.float64), "int64"),
}
_RNG = np.random.default_rng(5)
SSL = {  # id: (num_sampled, num_classes, num_true, labels, sampled_candidates)
    "one_true": (3, 7, 1, np.array([0, 1, 2], np.int32), np.array([1, 4, 5], np.int64)),
    "two_true": (4, 9, 2, np.array([[0, 3], [1, 8], [2, 2]], np.int64), np.array([6, 3, 0, 7], np.int64)),
}
SSL_W = _RNG.standard_normal((9, 5)).astype(np.float32)
SSL_B = _RNG.standard_normal((9,)).astype(np.float32)
SSL_X = _RNG.standard_normal((3, 5)).astype(np.float32)
SSL_TRUE_COUNT = np.float32(0.3)
SSL_SAMPLED_COUNT = np.array([0.2, 0.5, 0.7, 0.9], np.float32)
TRUE_CLASSES = np.array([[1, 7], [0, 4], [3, 3]], np.int64)
SAMPLERS = {  # id: (kind, num_true, num_sampled, unique, range_max)
    "log_uniform_unique": ("log", 2, 5, True, 9),
    "log_uniform_replace": ("log", 2, 6, False, 12),
    "uniform_unique": ("uniform", 2, 6, True, 9),
    "uniform_replace": ("uniform", 2, 6, False, 9),
}


def main() -> None:
    import mindspore as ms
    from mindspore import Tensor, nn, ops

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    ms.set_seed(3)
    out = {}
    for key, (s, lim, d, tsplits) in RAGGED.items():
        splits, values = ops.RaggedRange(getattr(ms, tsplits))(Tensor(s), Tensor(lim), Tensor(d))
        out[f"ragged_{key}_splits"], out[f"ragged_{key}_values"] = splits.asnumpy(), values.asnumpy()
    for key, (num_sampled, num_classes, num_true, labels, sampled) in SSL.items():
        n = labels.shape[0]
        values = (Tensor(sampled), Tensor(np.full((n, num_true), SSL_TRUE_COUNT, np.float32)),
                  Tensor(SSL_SAMPLED_COUNT[:num_sampled]))
        loss = nn.SampledSoftmaxLoss(num_sampled, num_classes, num_true, sampled_values=values)
        out[f"ssl_{key}"] = loss(Tensor(SSL_W[:num_classes]), Tensor(SSL_B[:num_classes]), Tensor(labels),
                                 Tensor(SSL_X)).asnumpy()
    for key, (kind, num_true, num_sampled, unique, range_max) in SAMPLERS.items():
        op = (ops.LogUniformCandidateSampler(num_true, num_sampled, unique, range_max) if kind == "log" else
              ops.UniformCandidateSampler(num_true, num_sampled, unique, range_max))
        for i, r in enumerate(op(Tensor(TRUE_CLASSES))):
            out[f"sampler_{key}_{i}"] = r.asnumpy()
    np.savez(os.path.join(HERE, "samplers.npz"), **out)
    print(sorted(out))


if __name__ == "__main__":
    main()
