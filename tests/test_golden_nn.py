"""nn layers and losses against real MindSpore 2.10 (CPU, PyNative): outputs and gradients recorded by
tests/golden_nn/record.py from the same case code (tests/golden_nn/nn_cases.py) with `mindspore` in place of
`msx`. Parameter names and shapes must match MindSpore's too (the goldens are keyed by them)."""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import msx

HERE = os.path.join(os.path.dirname(__file__), "golden_nn")
sys.path.insert(0, HERE)
from nn_cases import CASES, run_case  # noqa: E402

DATA = os.path.join(HERE, "data")
INDEX = json.load(open(os.path.join(DATA, "index.json")))
RECORDED = sorted(n for n in CASES if n not in INDEX["unsupported"])


def test_goldens_are_current():
    """Every case has a golden file or is listed as one MindSpore cannot run on CPU (re-run record.py)."""
    assert INDEX["mindspore"].startswith("2.10")
    missing = [n for n in RECORDED if not os.path.exists(os.path.join(DATA, f"{n}.npz"))]
    assert not missing, f"no golden for {missing}: run /work/.venv-ms/bin/python tests/golden_nn/record.py"
    assert len(RECORDED) >= 110


@pytest.mark.parametrize("name", RECORDED)
def test_matches_mindspore(name):
    gold = np.load(os.path.join(DATA, f"{name}.npz"))
    n_in = len(CASES[name]["inputs"])
    inputs = [gold[f"in.{i}"] for i in range(n_in)]
    params = {k[len("param."):]: gold[k] for k in gold.files if k.startswith("param.")}
    stored, results = run_case(msx, name, inputs, params)
    assert set(stored) - {f"in.{i}" for i in range(n_in)} == {f"param.{p}" for p in params}, \
        "trainable parameter names differ from MindSpore's"
    expected = {k[len("res."):]: gold[k] for k in gold.files if k.startswith("res.")}
    assert sorted(results) == sorted(expected)
    tol = CASES[name]["tol"]
    for key, want in expected.items():
        if key in CASES[name]["differs"]:
            continue
        got = results[key]
        assert got.shape == want.shape, f"{key}: shape {got.shape} != MindSpore's {want.shape}"
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=f"{name}: {key}")
