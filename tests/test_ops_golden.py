"""Ops added one declaration at a time (docs/ops.md "Adding an op"), against MindSpore 2.10's recorded answers.

For every case in `tests/golden_ops/case_*.py` (recorded by `tests/golden_ops/ops_record.py` with real MindSpore):
the msx call gives MindSpore's values and result kinds (a Python bool stays a bool), runs the primitive the
case names, and gives the same under `msx.jit`; a case marked `mindir` is also read from the file MindSpore
exported (msx runs it to MindSpore's output) and written by msx's MINDIR exporter and read back.
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import msx
from msx import nn
from msx.ops.primitive import recording

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_ops")
import sys  # noqa: E402

sys.path.insert(0, HERE)
from ops_record import call, load_cases, outputs, resolve  # noqa: E402

CASES = {c["id"]: c for c in load_cases()}


def golden(case_id: str) -> tuple[dict, dict]:
    with open(os.path.join(HERE, case_id + ".json")) as f:
        entry = json.load(f)
    arrays = np.load(os.path.join(HERE, case_id + ".npz"), allow_pickle=False)
    return entry, {k: arrays[k] for k in arrays.files}


def golden_primitives(grad: bool = False) -> set[str]:
    """The primitives these goldens check, or those whose gradients a case checks (`grad: True`)."""
    return {c["primitive"] for c in load_cases() if c.get("grad") or not grad}


class _Spy:
    def __init__(self):
        self.names: set[str] = set()

    def record(self, prim, inputs, attrs, result):
        self.names.add(prim.name)

    def on_concrete(self, t, what: str) -> None:  # a Python-valued result (bool()) reads the eager value
        pass

    def on_rebind(self, t, new) -> None:  # an op drawing a key moves the global PRNG state on
        pass

    def on_cell(self, *args, **kwargs) -> None:  # a case calling an nn layer: its Cell boundary
        pass


def _close(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_values_match_mindspore(case_id):
    case = CASES[case_id]
    entry, arrays = golden(case_id)
    for i, a in enumerate(case["inputs"]):
        np.testing.assert_array_equal(arrays[f"in{i}"], a, err_msg="goldens are stale: re-run record.py")
    fn = resolve(msx, case)
    inputs = [msx.Tensor(a) for a in case["inputs"]]
    spy = _Spy()
    recording.recorder = spy
    try:
        result = call(fn, inputs, case)
    finally:
        recording.recorder = None
    assert case["primitive"] in spy.names
    result = call(fn, inputs, case)
    got, kinds = outputs(result)
    assert kinds == entry["kinds"]
    for i, g in enumerate(got):
        _close(g, arrays[f"out{i}"])


@pytest.mark.parametrize("case_id", sorted(c for c in CASES if "tensor" in golden(c)[0]["kinds"]))
def test_jit_equals_eager(case_id):
    case = CASES[case_id]
    fn = resolve(msx, case)
    inputs = [msx.Tensor(a) for a in case["inputs"]]
    jitted = msx.jit(lambda *xs: call(fn, xs, case))
    if case.get("eager_only"):  # a data-dependent result shape: jit refuses it, naming the op
        with pytest.raises(msx.errors.OpError, match=case["primitive"]):
            jitted(*inputs)
        return
    for g, e in zip(outputs(jitted(*inputs))[0], outputs(call(fn, inputs, case))[0]):
        _close(g, e)


@pytest.mark.parametrize("case_id", sorted(c for c in CASES if CASES[c].get("grad")))
def test_gradient_matches_finite_differences(case_id):
    """d sum(op(x) * w) / dx against central differences in float64 (a case marked `grad` has smooth inputs)."""
    case = CASES[case_id]
    fn = resolve(msx, case)
    x = np.asarray(case["inputs"][0], np.float64)
    w = np.random.default_rng(0).standard_normal(np.shape(call(fn, [msx.Tensor(x)], case))).astype(np.float64)

    def loss(t):
        return (call(fn, [t], case) * msx.Tensor(w)).sum()

    got = msx.grad(loss)(msx.Tensor(x)).asnumpy()
    eps, want = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        want[i] = (loss(msx.Tensor(up)).asnumpy() - loss(msx.Tensor(down)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


MINDIR_CASES = sorted(c for c in CASES if golden(c)[0]["mindir"])


@pytest.mark.parametrize("case_id", MINDIR_CASES)
def test_reads_the_mindir_file_mindspore_exported(case_id):
    entry, arrays = golden(case_id)
    graph = msx.load(os.path.join(HERE, entry["mindir"]))
    assert CASES[case_id]["primitive"] in graph.primitives_used()
    got = nn.GraphCell(graph)(*[msx.Tensor(arrays[f"in{i}"]) for i in range(len(CASES[case_id]["inputs"]))])
    _close(got.asnumpy(), arrays["mindir_out"])


class _Net(nn.Cell):
    def __init__(self, op):
        super().__init__()
        self.op = op

    def construct(self, x):
        return self.op(x)


@pytest.mark.parametrize("case_id", MINDIR_CASES)
def test_mindir_round_trip(case_id, tmp_path):
    case = CASES[case_id]
    inputs = [msx.Tensor(a) for a in case["inputs"]]
    net = _Net(resolve(msx, case))
    msx.export(net, *inputs, file_name=str(tmp_path / "op"), file_format="MINDIR")
    back = nn.GraphCell(msx.load(str(tmp_path / "op.mindir")))
    _close(back(*inputs).asnumpy(), net(*inputs).asnumpy())
