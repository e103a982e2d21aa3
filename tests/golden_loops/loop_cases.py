"""The loop and debug-op cases, written once against MindSpore's API: `record.py` runs them on MindSpore 2.10
(`ms` = mindspore), tests/test_loop_ops.py and tests/test_debug_ops.py on msx (`ms` = msx). Each value case is
`fn(ms, x) -> Tensor or a tree of Tensors/numbers`; each gradient case `fn(ms, x) -> a scalar Tensor`."""
import numpy as np

X = np.array([1.0, 2.0, 3.0], np.float32)


def while_tensor(ms, x):
    return ms.ops.WhileLoop()(lambda v: v.sum() < 50, lambda v: v * 2, x)


def while_tuple(ms, x):
    return ms.ops.WhileLoop()(lambda c: c[0].sum() < 40, lambda c: (c[0] * 2, c[1] + 1), (x, 0))


def while_python(ms, x):
    return ms.ops.WhileLoop()(lambda v: v < 100, lambda v: v + 1, 10)


def fori_unroll(ms, x):
    return ms.ops.ForiLoop()(0, 3, lambda i, v: v * v + i, x)


def fori_loop(ms, x):
    return ms.ops.ForiLoop()(0, 3, lambda i, v: v * v + i, x, unroll=False)


def fori_tensor_bounds(ms, x):
    return ms.ops.ForiLoop()(ms.Tensor(1), ms.Tensor(4), lambda i, v: v * 2 + i, x, unroll=False)


def fori_dict(ms, x):
    return ms.ops.ForiLoop()(1, 3, lambda i, v: {"a": v["a"] * i, "b": v["b"] + v["a"]}, {"a": x, "b": x * 0},
                             unroll=False)


def fori_empty(ms, x):
    return ms.ops.ForiLoop()(3, 3, lambda i, v: v * 2, x, unroll=False)


def _cumsum(c, e):
    return c * e, c + e


def scan_unroll(ms, x):
    return ms.ops.Scan()(_cumsum, ms.Tensor(1.0, ms.float32), [x[0], x[1], x[2]])


def scan_loop(ms, x):
    return ms.ops.Scan()(_cumsum, ms.Tensor(1.0, ms.float32), [x[0], x[1], x[2]], unroll=False)


def scan_tree(ms, x):
    return ms.ops.Scan()(lambda c, e: (c + e[0] * e[1], (c, e[1] * 2)), x, [(x, x * 2), (x * 3, x)], unroll=False)


def scan_none(ms, x):
    return ms.ops.Scan()(lambda c, e: (c * 2, c), x, None, length=3, unroll=False)


VALUES = [while_tensor, while_tuple, while_python, fori_unroll, fori_loop, fori_tensor_bounds, fori_dict, fori_empty,
          scan_unroll, scan_loop, scan_tree, scan_none]


def g_fori(ms, x):
    return fori_loop(ms, x).sum()


def g_fori_unroll(ms, x):
    return fori_unroll(ms, x).sum()


def g_fori_tensor_bounds(ms, x):
    return fori_tensor_bounds(ms, x).sum()


def g_scan(ms, x):
    c, ys = scan_loop(ms, x)
    return c + ys[2]


def g_scan_tree(ms, x):
    c, ys = scan_tree(ms, x)
    return c.sum() + ys[0][0].sum() + ys[1][1].sum()


def g_while(ms, x):
    return while_tensor(ms, x).sum()


GRADS = [g_fori, g_fori_unroll, g_fori_tensor_bounds, g_scan, g_scan_tree, g_while]


# ---------------------------------------------------------------- debug ops (gradients)

def _times_ten(d):
    return d * 10


def _halve(d):
    return d / 2


def g_insert_gradient(ms, x):
    ig = ms.ops.InsertGradientOf(_halve)
    return (ig(x) * x).sum()


def g_insert_gradient_scaled(ms, x):
    ig = ms.ops.InsertGradientOf(_times_ten)
    return (ig(x * 3) * x).sum()


DEBUG_GRADS = [g_insert_gradient, g_insert_gradient_scaled]


def dump_gradient(ms, x):
    """(the gradient, what DumpGradient saved)"""
    dg = ms.ops.DumpGradient()
    return ms.grad(lambda v: (dg("gx", v * 2, "out") ** 2).sum())(x)


def _add_and_sum(a, b):
    return a + b, np.float32(a.sum())


def make_pyfunc(ms):
    return ms.ops.PyFunc(_add_and_sum, [ms.float32, ms.float32], [(3,), (3,)], [ms.float32, ms.float32], [(3,), ()])


def pyfunc(ms, x, op=None):
    return (op or make_pyfunc(ms))(x, x * 2)


def _mfn(x):
    return x * 100


def _mshape(s):
    return s


def _mdtype(d):
    return d


def _mbprop(x, out, dout):
    return (dout * 3,)
