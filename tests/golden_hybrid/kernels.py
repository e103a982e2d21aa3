"""Hybrid DSL functions run unchanged by MindSpore 2.10 (record.py: `ops.Custom(kernel(f), func_type="hybrid")`
compiled by AKG on its CPU build, and `kernel(f)` called on numpy) and by msx (tests/test_hybrid.py).

The functions are written undecorated so that each framework applies its own `kernel`; the intrinsics
(`output_tensor`, `allocate`, `grid`, `sqrt`, ...) are free names that `kernel` supplies when the function
runs. `CASES` names each case: (function, input builders, extra Custom keywords).
"""
# flake8: noqa: F821  (the DSL's intrinsics are supplied at run time)
from __future__ import annotations

import numpy as np


def outer_product(a, b):
    c = output_tensor(a.shape, a.dtype)
    with block_realize(c):
        for i0 in range(a.shape[0]):
            for i1 in range(b.shape[1]):
                c[i0, i1] = 0.0
                for i2 in range(a.shape[1]):
                    c[i0, i1] = c[i0, i1] + (a[i0, i2] * b[i2, i1])
    return c


def unary_mix(a):
    b = output_tensor(a.shape, a.dtype)
    for arg in grid(a.shape):
        b[arg] = sqrt(abs(a[arg])) + exp(a[arg] * 0.5) - tanh(a[arg]) + sign(a[arg])
    return b


def loops_and_temp(a):
    tmp = allocate(a.shape, a.dtype)
    out = output_tensor(a.shape, a.dtype)
    for i in parallel(a.shape[0]):
        for j in vectorize(a.shape[1]):
            tmp[i, j] = a[i, j] * a[i, j]
    for i in serial(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = log(tmp[i, j] + 1.0) + power(a[i, j], 2.0)
    return out


def relu_if(a):
    b = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > 0.0:
                b[i, j] = a[i, j]
            else:
                b[i, j] = a[i, j] * 0.1
    return b


def row_sum(a):
    s = output_tensor((a.shape[0],), a.dtype)
    for i in range(a.shape[0]):
        s[i] = 0.0
        for k in reduce(a.shape[1]):
            s[i] = s[i] + a[i, k]
    return s


def row_sum_range(a):
    s = output_tensor((a.shape[0],), a.dtype)
    for i in range(a.shape[0]):
        s[i] = 0.0
        for k in range(a.shape[1]):
            s[i] = s[i] + a[i, k]
    return s


def to_int(a):
    b = output_tensor(a.shape, "int32")
    for i in range(a.shape[0]):
        b[i] = int32(a[i] * 3.0)
    return b


def general_math(a):
    b = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        b[i] = rsqrt(abs(a[i]) + 1.0) + floor(a[i]) + ceil(a[i]) + trunc(a[i]) + sin(a[i]) + cos(a[i]) \
            + max(a[i], 0.0) + min(a[i], 0.0)
    return b


def two_outputs(a, b):
    s = output_tensor(a.shape, a.dtype)
    d = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        s[i] = a[i] + b[i]
        d[i] = a[i] - b[i]
    return s, d


def int_add(a, b):
    c = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        c[i] = a[i] + b[i] * 2
    return c


def inplace_add(a, b):
    for i in range(a.shape[0]):
        a[i] = a[i] + b[i]
    return a


def _f32(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def _pos(*shape, seed=0):
    return (np.abs(np.random.default_rng(seed).normal(size=shape)) + 0.5).astype(np.float32)


# name -> (function, input builder)
CASES = {
    "outer_product": (outer_product, lambda: [_f32(3, 4, seed=1), _f32(4, 3, seed=2)]),
    "unary_mix": (unary_mix, lambda: [_f32(3, 4, seed=3)]),
    "loops_and_temp": (loops_and_temp, lambda: [_f32(2, 5, seed=4)]),
    "relu_if": (relu_if, lambda: [_f32(3, 3, seed=5)]),
    "row_sum": (row_sum, lambda: [_f32(4, 6, seed=6)]),
    "row_sum_range": (row_sum_range, lambda: [_f32(4, 6, seed=6)]),
    "to_int": (to_int, lambda: [_f32(7, seed=7)]),
    "general_math": (general_math, lambda: [_f32(6, seed=8) * 2.0]),
    "inplace_add": (inplace_add, lambda: [_f32(4, seed=11), _f32(4, seed=12)]),
    "int_add": (int_add, lambda: [np.arange(5, dtype=np.int32), np.arange(5, dtype=np.int32) - 2]),
}
# Cases whose AKG-compiled CPU kernel does not compute what the DSL function says (the goldens show it; msx,
# like MindSpore's pyfunc run of the same function, computes what the Python says):
AKG_DIFFERS = {
    "row_sum": "each row keeps only the last term of the accumulation over `reduce`",
    "row_sum_range": "each row keeps only the last term of the accumulation over `range`",
    "two_outputs": "the outputs hold uninitialised values (nan, denormals)",
}
# several outputs: MindSpore's automatic infer reads one output's .shape, so these declare out_shape/out_dtype
MULTI = {
    "two_outputs": (two_outputs, lambda: [_f32(5, seed=9), _f32(5, seed=10)], [(5,), (5,)], ["float32", "float32"]),
}


# DSL sources that MindSpore's static check refuses at ops.Custom(..., func_type="hybrid") (each defines f)
STATIC = {
    "while": "def f(a):\n    b = output_tensor(a.shape, a.dtype)\n    i = 0\n    while i < 3:\n        i = i + 1\n"
             "    return b\n",
    "break": "def f(a):\n    b = output_tensor(a.shape, a.dtype)\n    for i in range(3):\n        break\n"
             "    return b\n",
    "undeclared": "def f(a):\n    b = output_tensor(a.shape, a.dtype)\n    b[0] = q\n    return b\n",
    "bad_call": "def f(a):\n    b = output_tensor(a.shape, a.dtype)\n    b[0] = foo(a[0])\n    return b\n",
    "unary_arity": "def f(a):\n    b = output_tensor(a.shape, a.dtype)\n    b[0] = sqrt(a[0], a[1])\n    return b\n",
    "not_returned": "def f(a):\n    b = output_tensor(a.shape, a.dtype)\n    c = output_tensor(a.shape, a.dtype)\n"
                    "    return b\n",
    "return_expr": "def f(a):\n    b = output_tensor(a.shape, a.dtype)\n    return b + 1\n",
    "loop_var_store": "def f(a):\n    b = output_tensor(a.shape, a.dtype)\n    for i in range(3):\n        i = 2\n"
                      "    return b\n",
    "redefined": "def f(a):\n    b = output_tensor(a.shape, a.dtype)\n    b = output_tensor(a.shape, a.dtype)\n"
                 "    return b\n",
    "attribute": "def f(a):\n    b = output_tensor(a.shape, a.dtype)\n    b[0] = a.size\n    return b\n",
    "cpu_unsupported": "def f(a):\n    b = output_tensor(a.shape, a.dtype)\n    b[0] = expm1(a[0])\n    return b\n",
    "out_of_scope": "def f(a):\n    b = output_tensor(a.shape, a.dtype)\n    for i in range(3):\n        t = a[i]\n"
                    "    b[0] = t\n    return b\n",
}
