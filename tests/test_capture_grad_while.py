"""A `while` on a gradient's path is refused at capture, with its line: the check follows values into every
higher-order op's subgraphs through the op's declared `operands` rule (msx/ir/control.py)."""
import numpy as np
import pytest

import msx
from msx import Tensor, ops
from msx.errors import CaptureError


def _loop(x):
    while ops.reduce_sum(x) < 10.0:
        x = x * 2.0
    return ops.reduce_sum(x)


def _loop_in_branch(x):
    if ops.reduce_sum(x) > 0.0:
        while ops.reduce_sum(x) < 10.0:
            x = x * 2.0
    return ops.reduce_sum(x)


def _loop_off_the_path(x):
    n = x * 1.0
    while ops.reduce_sum(n) < 10.0:
        n = n * 2.0
    return ops.reduce_sum(x * 3.0)   # the loop's value is not differentiated


@pytest.mark.parametrize("fn", [_loop, _loop_in_branch], ids=["while", "while_in_cond"])
def test_grad_through_a_while_is_refused_at_its_line(fn):
    g = msx.jit(msx.grad(fn), capture_mode="ast", fullgraph=True)
    with pytest.raises(CaptureError, match="while") as info:
        g(Tensor(np.ones((2,), np.float32)))
    assert info.value.loc is not None and info.value.loc.func == fn.__name__


def test_a_while_off_the_gradient_path_is_fine():
    g = msx.jit(msx.grad(_loop_off_the_path), capture_mode="ast", fullgraph=True)
    np.testing.assert_allclose(g(Tensor(np.ones((2,), np.float32))).asnumpy(), [3.0, 3.0])
