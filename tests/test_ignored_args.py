"""MindSpore arguments msx accepts but cannot honour warn once, naming what msx does instead; their defaults
stay silent (docs/api_surface.md, "Arguments msx does not honour")."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import msx
from msx import ignored_args, mint, nn


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch):
    monkeypatch.setattr(ignored_args, "_warned", set())


def _messages(make) -> list[str]:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        make()
    return [str(w.message) for w in record if "not honoured" in str(w.message)]


_PARAMS = nn.Dense(2, 2).trainable_params()
CASES = [
    ("Adam", lambda v: nn.Adam(_PARAMS, use_locking=v), True, False),
    ("RMSProp", lambda v: nn.RMSProp(_PARAMS, use_locking=v), True, False),
    ("FTRL", lambda v: nn.FTRL(_PARAMS, use_locking=v), True, False),
    ("ProximalAdagrad", lambda v: nn.ProximalAdagrad(_PARAMS, use_locking=v), True, False),
    ("Profiler: hbm_ddr", lambda v: msx.Profiler(start_profile=False, hbm_ddr=v), True, False),
    ("Profiler: sync_enable", lambda v: msx.Profiler(start_profile=False, sync_enable=v), False, True),
    ("mint.rand: device", lambda v: mint.rand(2, device=v), "Ascend", None),
    ("EmbeddingLookup: sparse", lambda v: nn.EmbeddingLookup(4, 2, sparse=v), False, True),
    ("register_forward_hook: always_call",
     lambda v: nn.Dense(2, 2).register_forward_hook(lambda c, a, o: None, always_call=v), True, False),
]


@pytest.mark.parametrize("owner,make,bad,default", CASES, ids=[c[0] for c in CASES])
def test_an_argument_msx_cannot_honour_warns_once(owner, make, bad, default):
    assert _messages(lambda: make(default)) == []
    first = _messages(lambda: (make(bad), make(bad)))
    assert len(first) == 1, first
    word = owner.split(": ")[-1] if ": " in owner else "use_locking"
    assert word in first[0] and ": " in first[0].split("not honoured by msx")[1], first[0]


def test_parameter_clone_fills_the_clone_with_init():
    """MindSpore 2.10: `Parameter.clone('zeros')` is a zero Parameter with the same name (recorded in its venv)."""
    p = msx.Parameter(msx.Tensor(np.ones((2, 2), np.float32)), name="w")
    zeros, same = p.clone("zeros"), p.clone()
    assert zeros.name == same.name == "w"
    np.testing.assert_array_equal(zeros.asnumpy(), np.zeros((2, 2), np.float32))
    np.testing.assert_array_equal(same.asnumpy(), p.asnumpy())
