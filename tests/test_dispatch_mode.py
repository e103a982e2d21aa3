"""`MsDispatchMode`: eager op calls go through the innermost mode's `__ms_dispatch__`; an op its handler runs
goes to the modes outside it; compiled graphs are not intercepted (MindSpore 2.10's behaviour, checked there:
nested Inner/Outer logs [inner Mul, outer Mul, outer Sub], a handler's `func(...) * 10` gives [40, 60] for
[1, 2] + [3, 4], and `jit` logs nothing)."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import Tensor, ops


class _Log(msx.MsDispatchMode):
    def __init__(self, log, tag=None):
        self.log, self.tag = log, tag

    def __ms_dispatch__(self, func, args, kwargs=None):
        self.log.append(func.name if self.tag is None else (self.tag, func.name))
        return func(*args, **(kwargs or {}))


A, B = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])


def test_ops_are_intercepted_with_their_attributes():
    seen = []

    class Mode(msx.MsDispatchMode):
        def __ms_dispatch__(self, func, args, kwargs=None):
            seen.append((func.name, len(args), kwargs))
            return func(*args, **(kwargs or {}))

    with Mode():
        out = ops.sum(A + B, 0, True)
    assert seen == [("Add", 2, None), ("ReduceSum", 1, {"axis": 0, "keepdims": True})]
    np.testing.assert_array_equal(out.asnumpy(), [10.0])
    (A + B).asnumpy()
    assert len(seen) == 2  # outside the block: nothing


def test_nesting_and_changed_results():
    log = []
    with _Log(log, "outer"):
        with _Log(log, "inner"):
            A * B
        A - B
    assert log == [("inner", "Mul"), ("outer", "Mul"), ("outer", "Sub")]

    class Times10(msx.MsDispatchMode):
        def __ms_dispatch__(self, func, args, kwargs=None):
            return func(*args, **(kwargs or {})) * 10

    with Times10():
        np.testing.assert_array_equal((A + B).asnumpy(), [40.0, 60.0])


def test_decorator_and_jit():
    log = []

    @_Log(log)
    def double(x):
        return x * 2

    double(A)
    assert log == ["Mul"]
    log.clear()

    def graph(x):
        return x * 2 + 1

    jitted = msx.jit(graph)
    jitted(A)  # compile outside the mode
    with _Log(log):
        np.testing.assert_array_equal(jitted(A).asnumpy(), [3.0, 5.0])
    assert log == []


def test_handler_signature_is_checked():
    with pytest.raises(TypeError, match="__ms_dispatch__ must accept"):
        class Bad(msx.MsDispatchMode):  # noqa: F841
            def __ms_dispatch__(self, func):
                return func()
