"""MindSpore arguments msx accepts but cannot honour warn once, naming what msx does instead; their defaults
stay silent (docs/api_surface.md, "Arguments msx does not honour")."""
from __future__ import annotations

import fnmatch
import warnings

import numpy as np
import pytest

import msx
from msx import ignored_args, mint, nn, ops


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
    ("ops.uniform: seed", lambda v: ops.uniform((2,), msx.Tensor(0.0), msx.Tensor(1.0), seed=v), 3, None),
    ("ops.Gamma: seed", lambda v: ops.Gamma(seed=v)((2,), msx.Tensor(1.0), msx.Tensor(1.0)), 3, 0),
    ("ops.Dropout: Seed0", lambda v: ops.Dropout(0.5, Seed0=v), 1, 0),
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


def test_an_argument_that_would_change_the_answer_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"Conv2D: data_format='NHWC' is not supported by msx .*data_format='NCHW'"):
        ops.Conv2D(4, 3, data_format="NHWC")
    with pytest.raises(ValueError, match="MaxPool3D: data_format='NDHWC'"):
        ops.MaxPool3D(data_format="NDHWC")
    ops.Conv2D(4, 3, data_format="NCHW")  # MindSpore's default says nothing


_X = np.array([[1.0, 5.0, -3.0], [7.0, 2.0, 0.5]], np.float32)
_MASK = np.array([[True, False, True], [False, False, True]])


def test_tensor_max_min_honour_initial_and_where_as_numpy():
    t = msx.Tensor(_X)
    for ours, want in [(t.max(axis=1, initial=3.0), np.max(_X, axis=1, initial=3.0)),
                       (t.min(initial=0.0), np.min(_X, initial=0.0)),
                       (t.max(axis=1, initial=-10.0, where=msx.Tensor(_MASK)),
                        np.max(_X, axis=1, initial=-10.0, where=_MASK)),
                       (t.min(axis=0, keepdims=True, initial=100.0, where=msx.Tensor(_MASK)),
                        np.min(_X, axis=0, keepdims=True, initial=100.0, where=_MASK))]:
        np.testing.assert_array_equal(ours.asnumpy(), want)
    with pytest.raises(ValueError, match="where= needs initial="):
        t.max(where=msx.Tensor(_MASK))


def test_softplus_honours_threshold():
    for beta, threshold in [(1, 1.0), (2, 3.0)]:
        want = np.where(beta * _X > threshold, _X, np.log1p(np.exp(beta * _X)) / beta)
        np.testing.assert_allclose(ops.softplus(msx.Tensor(_X), beta, threshold).asnumpy(), want, rtol=1e-5)


@pytest.mark.parametrize("mode", ["eager", "ast", "trace"])
def test_mint_inplace_writes_the_result_into_the_input(mode):
    relu6, hardtanh = mint.nn.ReLU6(inplace=True), mint.nn.functional.hardtanh

    def step(a, b):
        relu6(a)
        hardtanh(b, inplace=True)
        return a + b

    run = step if mode == "eager" else msx.jit(step, capture_mode=mode)
    a, b = msx.Tensor(_X.copy()), msx.Tensor(_X.copy())
    out = run(a, b)
    np.testing.assert_array_equal(a.asnumpy(), np.clip(_X, 0, 6))
    np.testing.assert_array_equal(b.asnumpy(), np.clip(_X, -1, 1))
    np.testing.assert_array_equal(out.asnumpy(), np.clip(_X, 0, 6) + np.clip(_X, -1, 1))
    kept = msx.Tensor(_X.copy())
    mint.nn.ReLU6()(kept)  # inplace=False (the default) leaves the input alone
    np.testing.assert_array_equal(kept.asnumpy(), _X)


def test_every_accepted_argument_is_read_or_its_reason_listed():
    """`msx.tools.unread_args`: a parameter of a MindSpore-facing function that its body never names is a silent
    drop unless READ_ELSEWHERE says why it needs no reading; a listed entry that matches nothing is stale."""
    from msx.tools import unread_args

    found = unread_args.unread()
    unlisted = sorted(k for k in found if unread_args.reason(k) is None)
    assert not unlisted, "read these, warn (ignored_args.not_honoured) or refuse, or list why:\n" + "\n".join(
        f"{found[k]}: {k}" for k in unlisted)
    stale = [p for p in unread_args.READ_ELSEWHERE if not any(fnmatch.fnmatchcase(k, p) for k in found)]
    assert not stale, f"listed but no longer unread: {stale}"


def test_the_unread_argument_scan_sees_a_dropped_argument(tmp_path):
    from msx.tools import unread_args

    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "thing.py").write_text(
        "def add(x, y, use_locking=False):\n    return x + y\n\n"
        "def warned(x, seed=None):\n    not_honoured('warned', 'seed', seed, None, '')\n    return x\n\n"
        "class Op:\n    def __init__(self, mode=1):\n        self.k = 1\n\n"
        "    def _private(self, z):\n        return 0\n")
    assert sorted(unread_args.unread(tmp_path)) == ["ops.thing:Op.__init__(mode)", "ops.thing:add(use_locking)"]
