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
from cases import case_names, run  # noqa: E402

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
