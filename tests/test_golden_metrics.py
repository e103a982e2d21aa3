"""MindSpore 2.10's metrics (Precision, Recall, F1/Fbeta, top-k, ConfusionMatrix, Dice, Perplexity, ROC/auc,
CosineSimilarity, BleuScore) against msx: the same program (tests/golden_nn/metric_program.py) run by both."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.join(os.path.dirname(__file__), "golden_nn")


def test_metrics_match_mindspore():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", ""), "JAX_PLATFORMS": "cpu"}
    out = subprocess.run([sys.executable, os.path.join(HERE, "metric_program.py"), "msx"], capture_output=True,
                         text=True, env=env, check=True).stdout.strip().splitlines()[-1]
    got, want = json.loads(out), json.load(open(os.path.join(HERE, "data", "metrics.json")))
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        if key == "ROC":
            for a, b in zip(got[key], value):
                np.testing.assert_allclose(a, b, rtol=1e-5, err_msg=key)
        else:
            np.testing.assert_allclose(np.asarray(got[key], float), np.asarray(value, float), rtol=1e-5, atol=1e-6,
                                       err_msg=key)


def test_lr_functions_and_schedules_match_mindspore():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", ""), "JAX_PLATFORMS": "cpu"}
    out = subprocess.run([sys.executable, os.path.join(HERE, "lr_program.py"), "msx"], capture_output=True,
                         text=True, env=env, check=True).stdout.strip().splitlines()[-1]
    got, want = json.loads(out), json.load(open(os.path.join(HERE, "data", "lr.json")))
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-6, err_msg=key)
