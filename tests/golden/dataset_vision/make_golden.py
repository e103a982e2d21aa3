"""Record MindSpore 2.10's outputs for tests/golden/dataset_vision/vision_cases.py as ms210.json.

    /work/main/.venv-ms/bin/python tests/golden/dataset_vision/make_golden.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
import vision_cases as cases  # noqa: E402
from dataset_cases import record  # noqa: E402

import mindspore.dataset as ds  # noqa: E402
import mindspore.dataset.vision as vision  # noqa: E402


def finish(result):
    """Arrays as {dtype, shape, value}; other JSON data as it is."""
    if isinstance(result, np.ndarray):
        return {"dtype": str(result.dtype), "shape": list(result.shape), "value": result.tolist()}
    if isinstance(result, (list, tuple)):
        return [finish(r) for r in result]
    if isinstance(result, (np.integer, np.floating, np.bool_)):
        return result.item()
    return result


if __name__ == "__main__":
    ds.config.set_seed(0)
    record(cases, (vision,), os.path.join(HERE, "ms210.json"), finish)
