"""msx's initializers and layer defaults equal MindSpore 2.10's values bit for bit under `set_seed(s)`
(goldens recorded by tests/golden_init/record.py in the MindSpore venv, three seeds). Orthogonal is the
one exception: its QR runs in whichever LAPACK numpy links, so it is compared to float32 rounding."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import msx

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_init")
sys.path.insert(0, HERE)
from init_cases import case_names, run  # noqa: E402

SEEDS = (0, 1, 1234)
GOLDEN = {s: np.load(os.path.join(HERE, f"seed{s}.npz")) for s in SEEDS}
LAPACK = {"Orthogonal", "Orthogonal_3d", "name_orthogonal"}


@pytest.mark.parametrize("name", case_names(msx))
def test_initializer_equals_mindspore(name):
    for seed in SEEDS:
        golden = GOLDEN[seed]
        want = {k.split("/", 1)[1]: golden[k] for k in golden.files if k.startswith(name + "/")}
        assert want, f"no golden for {name}"
        msx.set_seed(seed)
        got = run(msx, name)
        assert sorted(got) == sorted(want), f"{name}: parameter names differ"
        for key, value in want.items():
            assert got[key].dtype == value.dtype and got[key].shape == value.shape, (name, key)
            if name in LAPACK:
                np.testing.assert_allclose(got[key], value, rtol=0, atol=2e-6, err_msg=f"{name}/{key} seed {seed}")
            else:
                np.testing.assert_array_equal(got[key], value, err_msg=f"{name}/{key} seed {seed}")


_LIVE = r"""
import sys, numpy as np
from mindspore._c_expression import _random_normal, _random_uniform, _truncated_normal
out = {}
for i, seed in enumerate((3, 2**40 + 5, 2**63 - 25)):
    u = np.empty(70001, np.float32); _random_uniform(seed, u, -0.37, 1.9); out[f"u{i}"] = u
    n = np.empty(70001, np.float32); _random_normal(seed, n, 0.3, 0.07); out[f"n{i}"] = n
    t = np.empty(70001, np.float32); _truncated_normal(seed, t, -0.5, 3.0, 0.25, 1.3); out[f"t{i}"] = t
np.savez(sys.argv[1], **out)
"""


@pytest.mark.skipif(not os.environ.get("MSX_MINDSPORE_PYTHON"), reason="set MSX_MINDSPORE_PYTHON to a MindSpore "
                    "2.10 python to compare the streams live")
def test_streams_equal_live_mindspore(tmp_path):
    import subprocess

    from msx.nn import init_random as R

    path = str(tmp_path / "live.npz")
    subprocess.run([os.environ["MSX_MINDSPORE_PYTHON"], "-c", _LIVE, path], check=True, capture_output=True,
                   cwd=str(tmp_path))
    got = np.load(path)
    for i, seed in enumerate((3, 2 ** 40 + 5, 2 ** 63 - 25)):
        np.testing.assert_array_equal(R.uniform(seed, 70001, -0.37, 1.9), got[f"u{i}"])
        np.testing.assert_array_equal(R.normal(seed, 70001, 0.3, 0.07), got[f"n{i}"])
        np.testing.assert_array_equal(R.truncated_normal(seed, 70001, -0.5, 3.0, 0.25, 1.3), got[f"t{i}"])
