"""Graphs with zero, infinite and NaN float constants give eager's answers.

XLA's CPU code generation returns garbage for `exp` of a value it can fold to a NaN constant, and its
simplifier makes such NaNs out of `x / -0.0 * -0.0`; eager dispatch passes Python floats as data and never
meets this. The differential fuzzer found it (seed 115137223): a division by a global set to -0.0, then
products with it and a Sigmoid, returned the input times 1.5 under jit instead of NaN.
"""
import math

import numpy as np
import pytest

import msx
from msx import nn, ops

MODES = ("ast", "trace", "bytecode")
SCALE = -0.0


class Chain(nn.Cell):
    def __init__(self):
        super().__init__()
        self.act = nn.Sigmoid()

    def construct(self, x):
        x = ops.tanh(x) / SCALE
        x = x * SCALE
        return self.act(x * SCALE)


def _x():
    return msx.Tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4) * 4)


def _same(got, want):
    np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())  # NaNs compare equal here


@pytest.mark.parametrize("mode", MODES)
def test_the_fuzzer_program_dividing_by_negative_zero(mode):
    net = Chain()
    _same(msx.jit(net, capture_mode=mode)(_x()), net(_x()))
    assert np.isnan(net(_x()).asnumpy()).all()


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 0.0, -0.0])
@pytest.mark.parametrize("mode", MODES)
def test_exp_of_a_product_with_a_special_constant(mode, value):
    def f(x):
        return ops.exp(x * value) + ops.exp(x + value) + ops.exp(x / value * value)

    x = _x()
    _same(msx.jit(f, capture_mode=mode)(x), f(x))
