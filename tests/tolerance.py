"""The float contract between two runs of the same float32 program.

A compiled graph and the eager run of the same ops agree to float32 rounding, not bit for bit: XLA's CPU
code generation fuses and reassociates differently per machine (vector width, FMA), so an element can
move by a few ulps. The contract is therefore a relative tolerance of ~100 float32 ulps plus an absolute
one for values near zero, where a relative bound says nothing. Tests that compare two executions of the
same float32 computation use `assert_same_float32`; tests against exact references keep their own bounds.
"""
import numpy as np

RTOL = 1e-5
ATOL = 1e-6


def assert_same_float32(actual, desired, rtol: float = RTOL, atol: float = ATOL, err_msg: str = "") -> None:
    """Assert two float32 results of the same computation agree within float32 rounding."""
    np.testing.assert_allclose(np.asarray(actual), np.asarray(desired), rtol=rtol, atol=atol, err_msg=err_msg)
