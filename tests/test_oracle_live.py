"""The recorded MindSpore goldens are still what MindSpore answers: re-record a sample of the oracle cases
with the live MindSpore 2.10 (its own venv; CI installs it) and compare with the committed goldens.

Without MindSpore this test skips loudly; the main suite checks msx against the recorded goldens either way
(tests/test_oracle.py).
"""
import json
import os
import subprocess
import warnings

import numpy as np
import pytest

from oracle.live import ROOT, mindspore_python

GOLDENS = os.path.join(ROOT, "tests", "oracle", "goldens")
EVERY = 9  # ~75 of the 672 cases: about a minute of MindSpore


def _record(python: str, out: str, *options: str) -> tuple[dict, dict]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([python, os.path.join(ROOT, "tools", "record_goldens.py"), "--out", out, *options],
                          capture_output=True, text=True, timeout=1200, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(out + ".json") as f:
        meta = json.load(f)
    return meta, dict(np.load(out + ".npz"))


def _differences(live_meta: dict, live: dict, meta: dict, committed) -> dict[str, str]:
    """Case id -> how the live answer differs from the committed golden."""
    found = {}
    for case_id, entry in live_meta["cases"].items():
        old = meta["cases"].get(case_id)
        if old is None or ("error" in entry) != ("error" in old) or entry.get("dtypes") != old.get("dtypes"):
            found[case_id] = f"committed {old}, live {entry}"
            continue
        for key in (k for k in live if k.startswith(case_id + "/")):
            a, b = live[key], committed[key]
            if a.shape != b.shape or not np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True):
                found[case_id] = f"{key} differs"
    return found


def test_the_committed_goldens_are_what_mindspore_answers_today(tmp_path):
    python = mindspore_python()
    if python is None:
        warnings.warn("MindSpore 2.10 venv not found (set MSX_MINDSPORE_PYTHON): the live oracle did NOT run")
        pytest.skip("no MindSpore 2.10 venv: set MSX_MINDSPORE_PYTHON or make .venv-ms")
    with open(GOLDENS + ".json") as f:
        meta = json.load(f)
    committed = np.load(GOLDENS + ".npz")
    live_meta, live = _record(python, str(tmp_path / "sample"), "--every", str(EVERY))
    assert live_meta["mindspore_version"] == meta["mindspore_version"] == "2.10.0"
    assert len(live_meta["cases"]) >= 60
    differ = _differences(live_meta, live, meta, committed)
    if differ:
        # MindSpore 2.10's CPU kernels sometimes fail depending on what ran before ("The kernel AcoshExt
        # unregistered" for Tensor.erfc): a case alone, in a fresh process, is the answer to compare
        again_meta, again = _record(python, str(tmp_path / "again"), "--only", ",".join(differ))
        differ = {k: differ[k] for k in _differences(again_meta, again, meta, committed)}
    assert not differ, f"goldens differ from live MindSpore (re-run tools/record_goldens.py): {differ}"
