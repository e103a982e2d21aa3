"""Semantics of issue 14 that real programs rely on, written once for any MindSpore-like framework.

Every function takes the framework's top-level module (`mindspore` or `msx`) and returns plain JSON-able
data, so tests/golden_sem/record.py can run them on MindSpore 2.10 and tests/test_semantics_ms.py on msx
(eagerly and, where it applies, under every jit capture mode) and compare. Cases never read the framework's
internals: only the public API a user calls.
"""
from __future__ import annotations

import numpy as np

# ---------------------------------------------------------------- scalar promotion: tensor (op) scalar
PROMO_DTYPES = ["bool_", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
PROMO_SCALARS = {
    "True": lambda: True, "2": lambda: 2, "256": lambda: 256, "0.7": lambda: 0.7,
    "np.bool_(True)": lambda: np.bool_(True), "np.int32(256)": lambda: np.int32(256), "np.int64(3)": lambda: np.int64(3),
    "np.float16(0.7)": lambda: np.float16(0.7), "np.float32(0.7)": lambda: np.float32(0.7),
    "np.float64(0.7)": lambda: np.float64(0.7),
}
# (name, fn(tensor, scalar)); a numpy scalar on the left is numpy's business (it converts the Tensor), so
# reflected cases use Python scalars only
PROMO_OPS = {
    "t+s": (lambda t, s: t + s, None),
    "t*s": (lambda t, s: t * s, None),
    "s-t": (lambda t, s: s - t, (bool, int, float)),
}


def promo_tensor(ms, dtype: str):
    data = np.array([True, False]) if dtype == "bool_" else np.array([1, 0])
    return ms.Tensor(data, getattr(ms, dtype))


def to_json(ms, t) -> dict:
    """A result as {"dtype": MindSpore's name, "values": nested list} (bfloat16 read as float32)."""
    name = str(t.dtype)
    if name.lower() == "bfloat16":
        t = t.astype(ms.float32)
    return {"dtype": name, "values": t.asnumpy().tolist()}


# ---------------------------------------------------------------- float -> int casts
CAST_VALUES = [float("nan"), float("inf"), -float("inf"), 1e10, -1e10, 3e9, -3e9, 300.7, -300.7, 2.7, -2.7,
               127.5, 128.0, -129.0, 255.9, 256.0, -1.0, 0.0]
CAST_SOURCES = ["float16", "float32", "float64"]
CAST_TARGETS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool_"]


def cast_input(ms, src: str):
    with np.errstate(over="ignore"):
        return ms.Tensor(np.array(CAST_VALUES, np.float32).astype(src))


# ---------------------------------------------------------------- gradients w.r.t. integer inputs
def _i(ms, v, dt="int32"):
    return ms.Tensor(np.array(v), getattr(ms, dt))


def _f(ms, v, dt="float32"):
    return ms.Tensor(np.array(v, np.float32), getattr(ms, dt))


# id -> fn(ms) returning (function, args, grad_position); results are grads (Tensor or tuple)
INT_GRADS = {
    "mul_int_int": lambda ms: (lambda a, b: a * b * 7, (_i(ms, 1), _i(ms, 3)), (0, 1)),
    "int_times_int64_vector": lambda ms: (lambda a: a * a, (_i(ms, [3, 4], "int64"),), 0),
    "uint8_square": lambda ms: (lambda a: a * a + 1, (_i(ms, [3, 4], "uint8"),), 0),
    "int_plus_float_tensor": lambda ms: (lambda a, x: (x * a).sum(), (_i(ms, 2), _f(ms, [[1, 2, 3], [4, 5, 6]])), (0, 1)),
    "int_mul_int_float_pair": lambda ms: (lambda a, b: a * b + b, (_i(ms, 2), _f(ms, 1.5)), (0, 1)),
    "int_used_as_index": lambda ms: (lambda x, i: x[i].sum(), (_f(ms, [[1, 2, 3], [4, 5, 6]]), _i(ms, 1)), (0, 1)),
    "int_label_of_loss": lambda ms: (
        lambda x, lab: ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(x, lab),
        (_f(ms, [[1, 2, 3], [4, 5, 6]]), _i(ms, [0, 2])), (0, 1)),
    "int_compared": lambda ms: (lambda a, x: (x * (a > 1)).sum(), (_i(ms, 2), _f(ms, [1.0, 2.0])), (0, 1)),
    "int_sub_neg": lambda ms: (lambda a, b: a - b * 3, (_i(ms, [5, -2]), _i(ms, [1, 1])), (0, 1)),
    # MindSpore truncates the float cotangent where the int becomes float: msx refuses these (GradError)
    "int_times_float_scalar": lambda ms: (lambda a: a * 2.5, (_i(ms, 3),), 0),
    "int_cast_then_sqrt": lambda ms: (lambda a: ms.ops.sqrt(a.astype(ms.float32)), (_i(ms, 4),), 0),
    "int_true_div": lambda ms: (lambda a: a / 3, (_i(ms, 3),), 0),
}
# the cases whose MindSpore answer depends on where it truncates a non-integral cotangent: msx raises
INT_GRADS_REFUSED = {"int_times_float_scalar", "int_cast_then_sqrt", "int_true_div", "int_mul_int_float_pair"}


def int_grad_case(ms, name: str):
    fn, args, pos = INT_GRADS[name](ms)
    grads = ms.grad(fn, pos)(*args)
    grads = grads if isinstance(grads, tuple) else (grads,)
    return [to_json(ms, g) for g in grads]


def int_value_and_grad(ms):
    """value_and_grad keeps the integer value (int32 21) beside the integer grads."""
    value, grads = ms.value_and_grad(lambda a, b: a * b * 7, (0, 1))(_i(ms, 1), _i(ms, 3))
    return [to_json(ms, value)] + [to_json(ms, g) for g in grads]


def int_grad_operation(ms):
    grads = ms.ops.GradOperation(get_all=True)(lambda a, b: a * b * 7)(_i(ms, 1), _i(ms, 3))
    return [to_json(ms, g) for g in grads]


# ---------------------------------------------------------------- Cell.bprop
def bprop_cells(ms):
    nn = ms.nn

    class Times2(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return (dout * 7,)

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Times2()

        def construct(self, x):
            return self.inner(x * 3) + x

    class Pair(nn.Cell):
        def construct(self, x, y):
            return x * y

        def bprop(self, x, y, out, dout):
            return dout * y * 10, dout * x * 100

    class WithWeight(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.array([1.0, 1.0], np.float32)), name="w")

        def construct(self, x):
            return x * self.w

        def bprop(self, x, out, dout):
            return (dout * 5,)

    class WeightOutside(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.array([2.0, 3.0], np.float32)), name="w2")
            self.inner = Times2()

        def construct(self, x):
            return self.inner(x * self.w)

    return Times2, Outer, Pair, WithWeight, WeightOutside


def bprop_x(ms):
    return ms.Tensor(np.array([1.0, 2.0], np.float32))


def bprop_y(ms):
    return ms.Tensor(np.array([3.0, 4.0], np.float32))


def _flat(ms, tree) -> list:
    if isinstance(tree, (tuple, list)):
        return [leaf for t in tree for leaf in _flat(ms, t)]
    return [to_json(ms, tree)]


# id -> fn(ms, grad_fn_transform) -> results; `wrap(f)` is identity eagerly, msx.jit(f, ...) under capture
BPROP = {
    "grad": lambda ms, wrap, C: _flat(ms, wrap(ms.grad(C[0]()))(bprop_x(ms))),
    "value_and_grad": lambda ms, wrap, C: _flat(ms, wrap(ms.value_and_grad(C[0]()))(bprop_x(ms))),
    "GradOperation": lambda ms, wrap, C: _flat(ms, wrap(ms.ops.GradOperation()(C[0]()))(bprop_x(ms))),
    "nested": lambda ms, wrap, C: _flat(ms, wrap(ms.grad(C[1]()))(bprop_x(ms))),
    "two_inputs": lambda ms, wrap, C: _flat(ms, wrap(ms.grad(C[2](), (0, 1)))(bprop_x(ms), bprop_y(ms))),
    "weights_of_bprop_cell": lambda ms, wrap, C: _bprop_weights(ms, wrap, C[3]()),
    "weights_outside": lambda ms, wrap, C: _bprop_weights(ms, wrap, C[4]()),
}


def _bprop_weights(ms, wrap, net):
    return _flat(ms, wrap(ms.grad(net, 0, net.trainable_params()))(bprop_x(ms)))


# ---------------------------------------------------------------- mixed precision
def amp_net(ms):
    nn = ms.nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3)
            self.bn = nn.BatchNorm1d(3)
            self.fc2 = nn.Dense(3, 2)
            self.relu = nn.ReLU()
            self.f64, self.i32 = ms.float64, ms.int32

        def construct(self, x):
            a = self.fc(x)
            c = self.relu(self.bn(a))
            return self.fc2(c), c, x > 0, x.astype(self.f64) * 2, x.astype(self.i32)

    globals()["Net"] = Net  # MindSpore's O1 rewrites the construct and re-imports the class from this module
    return Net


def amp_levels(ms) -> dict:
    x = ms.Tensor(np.random.default_rng(0).random((2, 4)).astype(np.float32))
    out = {}
    for level in ["O0", "O1", "O2", "O3"]:
        net = ms.amp.auto_mixed_precision(amp_net(ms)(), level)
        out[level] = [str(o.dtype) for o in net(x)]
    return out


def amp_lists(ms) -> dict:
    return {"white": sorted(c.__name__ for c in ms.amp.get_white_list()),
            "black": sorted(c.__name__ for c in ms.amp.get_black_list())}
