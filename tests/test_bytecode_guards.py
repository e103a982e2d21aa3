"""capture_mode="bytecode" guards: each kind of assumption, changed between calls, gives the new answer.

A cache entry assumes what its capture saw: tensor shapes and dtypes, the
values of Python scalars it used, identities of objects (Cells, functions,
Parameters), types, container lengths and keys, globals and closure values,
Cell attributes and training flags. Changing any of them must recompile (with
a reason naming the guard, the old and new value and the line that made it),
never reuse a stale graph; changing what the function never used must not.
"""
import numpy as np
import pytest

import msx
from msx import nn, ops

RNG = np.random.default_rng(1)


def _t(*shape, dtype=np.float32):
    return msx.Tensor(RNG.normal(size=shape).astype(dtype))


def _np(x):
    return np.asarray(x.asnumpy())


def _close(a, b):
    np.testing.assert_allclose(_np(a), np.asarray(b), rtol=1e-5, atol=1e-5)


def _bc(fn, **kw):
    return msx.jit(fn, capture_mode="bytecode", **kw)


def _line(fn, text):
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_tensor_shape_and_dtype():
    def f(x):
        return x * 2 + x.shape[0]

    jf = _bc(f)
    a, b, c = _t(2, 3), _t(4, 3), msx.Tensor(np.arange(6).reshape(2, 3))
    _close(jf(a), _np(a) * 2 + 2)
    _close(jf(b), _np(b) * 2 + 4)
    out = jf(c)
    assert out.dtype == msx.int64 and np.array_equal(_np(out), np.arange(6).reshape(2, 3) * 2 + 2)
    assert jf.recompile_reasons == ["at the start of f: arg x: Tensor float32(2, 3) -> Tensor float32(4, 3) "
                                    "(guard from the call's arguments)",
                                    "at the start of f: arg x: Tensor float32(4, 3) -> Tensor int64(2, 3) "
                                    "(guard from the call's arguments)"]


def test_python_scalar_arguments_guard_their_value_where_used():
    def f(x, n, mode, flag, unused):
        y = x * n
        if mode == "double":
            y = y * 2
        if flag:
            y = -y
        return y

    jf = _bc(f)
    x = _t(3)
    _close(jf(x, 2, "double", False, 0), _np(x) * 4)
    _close(jf(x, 3, "double", False, 1), _np(x) * 6)
    _close(jf(x, 3, "single", False, 2), _np(x) * 3)
    _close(jf(x, 3, "single", True, 3), -_np(x) * 3)
    _close(jf(x, 2.5, "single", True, 4), -_np(x) * 2.5)
    assert jf.captures == 5   # `unused` changed on every call without a recompilation
    reasons = jf.recompile_reasons
    assert reasons[0] == f"at the start of f: arg n: 2 -> 3 (guard from test_bytecode_guards.py:{_line(f, 'x * n')} " \
                         f"`y = x * n`)"
    assert "arg mode: 'double' -> 'single'" in reasons[1] and "arg flag: False -> True" in reasons[2]
    assert "arg n: 3 -> 2.5" in reasons[3]


SHIFT = 1.0
TABLE = np.array([1.0, 2.0, 3.0], np.float32)


def test_globals_and_global_arrays():
    def f(x):
        return x * TABLE + SHIFT

    global SHIFT
    jf = _bc(f)
    x = _t(3)
    _close(jf(x), _np(x) * TABLE + 1.0)
    old = SHIFT
    try:
        SHIFT = 5.0
        _close(jf(x), _np(x) * TABLE + 5.0)
        TABLE[0] = 10.0   # changed in place: the array guard compares values
        _close(jf(x), _np(x) * TABLE + 5.0)
    finally:
        SHIFT = old
        TABLE[0] = 1.0
    assert "global SHIFT: 1.0 -> 5.0" in jf.recompile_reasons[0]
    assert "global TABLE: array([1., 2., 3.], dtype=float32) -> array([10.,  2.,  3.]" in jf.recompile_reasons[1]


def test_closure_variables():
    scale = 2.0

    def f(x):
        return x * scale

    def set_scale(v):
        nonlocal scale
        scale = v

    jf = _bc(f)
    x = _t(3)
    _close(jf(x), _np(x) * 2)
    set_scale(-3.0)
    _close(jf(x), _np(x) * -3)
    assert "closure variable scale: 2.0 -> -3.0" in jf.recompile_reasons[0]


class _Scaled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 3)
        self.scale = 2.0
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        y = self.fc(x) * self.scale
        if self.training:
            y = y + 100
        return self.drop(y)


def test_cell_attributes_training_flag_and_sub_cell_identity():
    msx.set_seed(0)
    net = _Scaled()
    jnet = _bc(net)
    x = _t(2, 3)

    def expected():
        return (_np(x) @ _np(net.fc.weight).T + _np(net.fc.bias)) * net.scale

    _close(jnet(x), expected())
    net.scale = 0.5                                    # a plain attribute
    _close(jnet(x), expected())
    net.set_train(True)                                # the training flag (user `if` and library Dropout)
    out = _np(jnet(x))
    kept = out != 0
    assert 0 < kept.sum() < out.size                   # dropout is active in training mode
    np.testing.assert_allclose(out[kept], ((expected() + 100) * 2)[kept], rtol=1e-5, atol=1e-5)
    net.set_train(False)
    msx.set_seed(0)
    net.fc = nn.Dense(3, 3)                            # a new sub-Cell (identity)
    _close(jnet(x), expected())
    reasons = "\n".join(jnet.recompile_reasons)
    assert "self.scale: 2.0 -> 0.5" in reasons and "self.training: False -> True" in reasons
    assert "self.fc: Dense" not in reasons and "self.fc: the Dense object at" in reasons


def test_parameter_data_with_a_new_shape():
    msx.set_seed(0)
    net = nn.Dense(3, 2)
    jnet = _bc(net)
    x = _t(4, 3)
    _close(jnet(x), _np(x) @ _np(net.weight).T + _np(net.bias))
    net.weight.set_data(msx.Tensor(np.ones((5, 3), np.float32)))
    net.bias.set_data(msx.Tensor(np.zeros(5, np.float32)))
    net.out_channels = 5
    _close(jnet(x), _np(x) @ np.ones((3, 5), np.float32))


def test_container_lengths_keys_types_and_identity():
    class A:
        k = 1.0

    class B:
        k = 1.0

    def f(xs, opts, obj):
        total = 0
        for x in xs:
            total = total + x * opts["w"]
        if "b" in opts:
            total = total + opts["b"]
        return total * obj.k

    jf = _bc(f)
    x = _t(2)
    _close(jf([x, x], {"w": 2.0}, A()), _np(x) * 4)
    _close(jf([x, x, x], {"w": 2.0}, A()), _np(x) * 6)               # list length
    _close(jf([x, x, x], {"w": 2.0, "b": 1.0}, A()), _np(x) * 6 + 1)  # dict keys
    b = B()
    b.k = 3.0
    _close(jf([x, x, x], {"w": 2.0, "b": 1.0}, b), (_np(x) * 6 + 1) * 3)  # another type
    reasons = jf.recompile_reasons
    assert "len 2 -> len 3" in reasons[0]
    assert "keys ['w'] -> keys ['w', 'b']" in reasons[1]
    assert "arg obj: A -> B" in reasons[2]


def test_default_arguments_changed_or_mutated():
    def f(x, cfg={"a": 1.0}, scale=2.0, *, shift=0.0):   # noqa: B006 - the mutable default is the point
        return x * cfg["a"] * scale + shift

    jf = _bc(f)
    x = _t(2)
    _close(jf(x), _np(x) * 2)
    f.__defaults__[0]["a"] = 3.0                       # mutated in place
    _close(jf(x), _np(x) * 6)
    f.__defaults__ = ({"a": 1.0}, 5.0)                 # replaced
    _close(jf(x), _np(x) * 5)
    f.__kwdefaults__ = {"shift": 1.0}
    _close(jf(x), _np(x) * 5 + 1)
    assert "f.__defaults__[0]['a']: 1.0 -> 3.0" in jf.recompile_reasons[0]
    assert "f.__kwdefaults__['shift']: 0.0 -> 1.0" in jf.recompile_reasons[2]


def test_functions_are_guarded_by_identity():
    def double(t):
        return t * 2

    def triple(t):
        return t * 3

    ops_table = {"fn": double}

    def f(x):
        return ops_table["fn"](x)

    jf = _bc(f)
    x = _t(2)
    _close(jf(x), _np(x) * 2)
    ops_table["fn"] = triple
    _close(jf(x), _np(x) * 3)
    assert "closure variable ops_table['fn']: function " in jf.recompile_reasons[0]


def test_recompile_limit_warns_with_the_reasons_and_then_runs_eagerly():
    def f(x, n):
        return x + n

    jf = _bc(f)
    x = _t(2)
    msx.set_context(recompile_warn_limit=3)
    try:
        with pytest.warns(UserWarning, match=r"recompiled 3 times.*run eagerly[\s\S]*arg n: 0 -> 1[\s\S]*arg n: 2 -> 3"):
            for n in range(6):
                _close(jf(x, n), _np(x) + n)
    finally:
        msx.set_context(recompile_warn_limit=8)
    assert jf.captures == 3
    _close(jf(x, 1), _np(x) + 1)                       # a cached entry still runs compiled
    assert jf.captures == 3


def test_a_hit_interprets_nothing(monkeypatch):
    from msx.capture.bytecode.recording_vm import SymbolicVM

    def f(x, k):
        return x * k + ops.relu(x)

    jf = _bc(f)
    x = _t(3)
    jf(x, 2)

    def refuse(*args, **kwargs):
        raise AssertionError("interpreted on a cache hit")

    monkeypatch.setattr(SymbolicVM, "capture", refuse)
    for _ in range(3):
        _close(jf(_t(3) * 0 + x, 2), np.maximum(_np(x), 0) + _np(x) * 2)
    assert jf.hits == 3


# A builtin method bound to a class (`dict.fromkeys`) is a new object on every attribute read: it is guarded by
# its type, what it is bound to and its name, so its entry holds on the next call and hits.
BOUND_BUILTINS = {
    "dict.fromkeys": (lambda x: [x := x + k for k in dict.fromkeys([1, 2])][-1], lambda a: a + 3),
    "int.from_bytes": (lambda x: x * int.from_bytes(b"\x02\x00", "little"), lambda a: a * 2),
    "float.fromhex": (lambda x: x * float.fromhex("0x1.8p1"), lambda a: a * 3.0),
    "bytes.fromhex": (lambda x: x + bytes.fromhex("0a")[0], lambda a: a + 10),
    "str.maketrans": (lambda x: x * len(str.maketrans("ab", "cd")), lambda a: a * 2),
}


@pytest.mark.parametrize("name", sorted(BOUND_BUILTINS))
def test_builtin_methods_of_types_capture_and_hit(name):
    fn, ref = BOUND_BUILTINS[name]
    jf = _bc(fn)
    x = _t(3)
    _close(jf(x), ref(_np(x)))
    _close(jf(x), _np(fn(x)))                           # equals eager
    info = jf.cache_info()
    assert info["hits"] == 1 and info["recompile_reasons"] == [], info
    if name != "str.maketrans":                         # a staticmethod: a graph break around it, still cached
        assert info["captures"] == 1, info


PARSE = int.from_bytes


def test_a_bound_builtin_global_rebound_recompiles():
    global PARSE

    def f(x):
        return x * PARSE(b"\x02", "little")

    jf = _bc(f)
    x = _t(3)
    try:
        _close(jf(x), _np(x) * 2)
        PARSE = int.from_bytes                          # a new object, the same method: still a hit
        _close(jf(x), _np(x) * 2)
        assert jf.cache_info()["hits"] == 1
        PARSE = bool.from_bytes                         # bound to another class: recompiles, bool(2) is True
        out = jf(x)
        assert _np(out).dtype == np.float32
        _close(out, _np(x))
        assert jf.captures == 2 and "PARSE" in jf.recompile_reasons[0], jf.recompile_reasons
    finally:
        PARSE = int.from_bytes
