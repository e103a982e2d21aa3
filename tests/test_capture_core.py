"""The shared capture core: the session context (writes undone, hooks restored) and one class per guard kind
whose generated check agrees with its slow check and whose words name the change."""
import sys

import numpy as np
import pytest

import msx
from msx.capture.session import capture_session, swapped_parameters, write_log
from msx.ops.primitive import recording
from msx.runtime.guards import GUARD_KINDS, Snapshot, compile_check, make_guard
from msx.runtime.list_iterator import ListIterator
from msx.runtime.value_sources import EnvArgs, Item


def _param(value):
    return msx.Parameter(msx.Tensor(np.array(value, np.float32)), name="p")


# ---------------------------------------------------------------- session
def test_a_capture_session_undoes_writes_and_restores_the_converter_and_recursion_limit():
    p, limit = _param([1.0]), sys.getrecursionlimit()
    hook = object()
    with capture_session(hook) as log:
        assert recording.converter is hook and sys.getrecursionlimit() >= 8000
        p.set_data(msx.Tensor(np.array([5.0], np.float32)))
        p.set_data(msx.Tensor(np.array([6.0], np.float32)))
        assert len(log) == 2
    assert recording.converter is None and sys.getrecursionlimit() == limit
    np.testing.assert_array_equal(p.asnumpy(), [1.0])   # the value from before the first write


def test_write_log_on_error_undoes_only_a_failed_block():
    p = _param([1.0])
    with write_log("on_error"):
        p.set_data(msx.Tensor(np.array([2.0], np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), [2.0])
    with pytest.raises(RuntimeError), write_log("on_error"):
        p.set_data(msx.Tensor(np.array([3.0], np.float32)))
        raise RuntimeError("boom")
    np.testing.assert_array_equal(p.asnumpy(), [2.0])


def test_swapped_parameters_hold_other_arrays_only_inside_the_block():
    p, q = _param([1.0]), _param([2.0])
    with pytest.raises(ValueError), swapped_parameters([p, q], [np.array([7.0]), np.array([8.0])]):
        assert p.asnumpy()[0] == 7.0 and q.asnumpy()[0] == 8.0
        raise ValueError
    assert p.asnumpy()[0] == 1.0 and q.asnumpy()[0] == 2.0


# ---------------------------------------------------------------- guard kinds
_T = msx.Tensor(np.ones((2, 3), np.float32))
_P = _param([1.0])
_SNAP = [1, 2.0]
_ARR = np.array([1.0, np.nan])
_OTHER = object()
# kind -> (expected, extra, a value that holds, a value that does not, words the failure must contain)
CASES = {
    "tensor": (None, (msx.Tensor, (2, 3), _T._data.dtype), _T, msx.Tensor(np.ones((2, 4), np.float32)),
               "float32(2, 4)"),
    "id": (_P, (), _P, _param([1.0]), "Parameter"),
    "equals": (0.0, (), 0.0, -0.0, "-0.0"),
    "value": (_P, (_P._data,), _P, _T, "Tensor"),
    "contents": (Snapshot(_SNAP), (), [1, 2.0], [1, 3.0], "item 1: 2.0 -> 3.0"),
    "type": (int, (), 3, 3.0, "float"),
    "len": ((tuple, 2), (), (1, 2), (1, 2, 3), "len 3"),
    "keys": ((dict, ("a",)), (), {"a": 1}, {"b": 1}, "keys ['b']"),
    "array": (_ARR, (), np.array([1.0, np.nan]), np.array([1.0, 2.0]), "array"),
    "alias": (None, (), _OTHER, object(), "object"),
    "distinct": (None, (), object(), _OTHER, "object"),
    "iter_left": (2, (), ListIterator([1, 2]), ListIterator([1, 2, 3]), "3 left"),
    "iter_at_least": (2, (), ListIterator([1, 2, 3]), ListIterator([1]), "1 left"),
}


def test_every_guard_kind_has_a_case():
    assert set(CASES) == set(GUARD_KINDS)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_a_guard_kinds_generated_check_agrees_with_its_slow_check(kind):
    expected, extra, good, bad, words = CASES[kind]
    source, other = Item(EnvArgs(), 0), Item(EnvArgs(), 1)
    guard = make_guard(kind, source, expected, other=other if kind in ("alias", "distinct") else None, extra=extra)
    assert type(guard) is GUARD_KINDS[kind] and guard.kind == kind
    check = compile_check([guard], [], [])
    for value, holds in ((good, True), (bad, False)):
        env = ((value, _OTHER), {})
        assert guard.holds(value, env) is holds
        assert (check(env) == ([], [])) is holds
        assert (guard.failure(env) is None) is holds
    message = guard.failure(((bad, _OTHER), {}))
    assert "arg 0" in message and words in message, message
    assert "arg 0" in guard.describe()
