"""The capture modes' one table of builtin handlers (`msx/capture/handlers.py`, issue 29): a builtin's capture
rule is one function that every interpreting mode runs (a rule for some modes only says why); every builtin
a mode runs itself is, in every other mode, handled too or ruled on by the one call policy; and the modes
agree with eager (numpy is the reference) on a function that goes through the handled builtins."""
import functools

import numpy as np
import pytest

import msx
from msx.capture import handlers, policy
from msx.capture.ast_capture import interpreter
from msx.capture.bytecode import calls

RULED = set(policy.PURE_BUILTINS) | set(policy.SIDE_EFFECT_BUILTINS) | set(policy.VALUE_BUILTINS)


def test_every_handled_builtin_has_a_meaning_in_every_mode():
    coverage = handlers.coverage()
    assert {"print", "super", "setattr"} <= {f.__name__ for f, modes in coverage.items() if len(modes) == 2}
    unruled = [f"{fn.__name__} (not in {sorted(set(handlers.MODES) - set(modes))})" for fn, modes in coverage.items()
               if len(modes) < len(handlers.MODES) and fn not in RULED]
    assert not unruled, f"handled by one mode, unknown to the others and to the call policy: {unruled}"


def test_each_modes_lookup_is_its_column_of_the_table():
    for mode in handlers.MODES:
        table = handlers.handlers(mode)
        assert all(id(fn) == key for key, (fn, _) in table.items())
    assert calls.SPECIAL is handlers.handlers("bytecode")
    assert interpreter._SPECIAL is handlers.handlers("ast")


def test_each_rule_is_written_once():
    shared = handlers.shared()
    assert {"print", "super", "setattr", "len", "isinstance", "zip", "enumerate", "getattr", "sorted", "sum",
            "map", "filter", "reduce"} <= {f.__name__ for f in shared}
    own = set(handlers.coverage()) - set(shared)
    assert own == set(handlers.differences()), "a rule for some modes only says why"
    assert all(all(why for why in modes.values()) for modes in handlers.differences().values())


def test_each_mode_gives_the_rules_the_whole_context():
    from msx.capture.ast_capture.rule_context import AstContext
    from msx.capture.bytecode.recording_vm import SymbolicVM

    wanted = {n for n in vars(handlers.HandlerContext) if not n.startswith("_")} | {"EXHAUSTED"}
    for context in (AstContext, SymbolicVM):
        missing = sorted(n for n in wanted if not callable(getattr(context, n, None)) and n != "EXHAUSTED")
        assert not missing and hasattr(context, "EXHAUSTED"), f"{context.__name__} lacks {missing}"


def test_a_rule_for_one_mode_must_say_why():
    with pytest.raises(ValueError, match="must say why"):
        handlers.register_builtin(abs, lambda cx, args, kwargs: None, modes=("ast",))
    assert id(abs) not in handlers.handlers("ast")


def through_builtins(x, ys):
    total = sum(y * w for w, y in enumerate(ys, start=1))
    pairs = list(zip(ys, reversed(ys)))
    n = len(pairs) + functools.reduce(lambda a, b: a + b, [1, 2, 3])
    if isinstance(x, msx.Tensor) and hasattr(x, "shape"):
        total = total + x * n
    return total + sorted([3, 1, 2])[0] + getattr(x, "ndim")


@pytest.mark.parametrize("mode", ["ast", "bytecode", "trace"])
def test_the_modes_agree_with_eager_through_the_handled_builtins(mode):
    x = np.arange(4, dtype=np.float32)
    ys = [msx.Tensor(np.full(4, v, np.float32)) for v in (1.0, 2.0, 3.0)]
    want = sum(v * w for w, v in enumerate((1.0, 2.0, 3.0), start=1)) + x * (3 + 6) + 1 + 1
    got = msx.jit(through_builtins, capture_mode=mode)(msx.Tensor(x), ys)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)


# ---------------------------------------------------------------- the one call policy, obeyed by both modes
OUTSIDE = [0.0]


def appends_through_the_descriptor(x):
    list.append(OUTSIDE, 1.0)   # changes a list the caller can see: a side effect, refused by both modes
    return x + 1


def asks_for_input(x):
    vars()                      # an effect outside the graph: refused by both modes
    return x + 1


@pytest.mark.parametrize("fn", [appends_through_the_descriptor, asks_for_input])
@pytest.mark.parametrize("mode", ["ast", "bytecode"])
def test_both_modes_refuse_what_the_policy_refuses(fn, mode):
    with pytest.raises(msx.errors.CaptureError):
        msx.jit(fn, capture_mode=mode, fullgraph=True)(msx.Tensor(np.ones(2, np.float32)))


def test_the_policy_judges_a_call_the_same_for_every_mode():
    cx, xs = policy.PlainValues(), []
    assert policy.judge(cx, len, ([1],), {}).kind == policy.RUN
    assert policy.judge(cx, vars, (), {}).kind == policy.EFFECT
    method = policy.judge(cx, list.append, (xs, 1), {})
    assert method.kind == policy.METHOD and method.self_ is xs and method.args == (1,)
    assert policy.mutates(xs, "append") and not policy.mutates(xs, "index")
    assert policy.judge(cx, msx.save_checkpoint, (), {}).kind == policy.OUTSIDE
    assert policy.judge(cx, np.sqrt, (2.0,), {}).kind == policy.RUN


# ---------------------------------------------------------------- what the shared rules give ast capture
def returns_a_zip(x, ys):
    return zip(ys, [1, 2])


def maps_a_user_callback(x):
    def double_if_positive(v):
        if v.sum() > 0:          # a tensor condition: the callback is interpreted, so this is a Cond
            return v * 2
        return v
    return list(map(double_if_positive, [x, -x]))


@pytest.mark.parametrize("mode", ["ast", "bytecode"])
def test_a_returned_zip_is_a_tuple_and_callbacks_are_interpreted(mode):
    x = msx.Tensor(np.ones(2, np.float32))
    out = msx.jit(returns_a_zip, capture_mode=mode)(x, [x, x])
    assert type(out) is tuple and type(out[0]) is tuple and out[0][1] == 1
    jitted = msx.jit(maps_a_user_callback, capture_mode=mode, fullgraph=(mode == "ast"))
    got = jitted(x)
    np.testing.assert_allclose(got[0].asnumpy(), [2.0, 2.0])
    np.testing.assert_allclose(got[1].asnumpy(), [-1.0, -1.0])


def next_of_a_list(x):
    try:
        next([1, 2])
    except TypeError:
        return x + 1
    return x


def test_next_of_a_non_iterator_raises_as_python_does():
    x = msx.Tensor(np.zeros(2, np.float32))
    np.testing.assert_allclose(msx.jit(next_of_a_list, capture_mode="bytecode")(x).asnumpy(), [1.0, 1.0])


class Scale:
    factor = 2.0


def reads_through_getattr(x):
    return x * getattr(Scale, "factor")


def test_ast_guards_what_getattr_reads():
    x = msx.Tensor(np.ones(2, np.float32))
    jitted = msx.jit(reads_through_getattr, capture_mode="ast")
    np.testing.assert_allclose(jitted(x).asnumpy(), [2.0, 2.0])
    Scale.factor = 3.0
    try:
        np.testing.assert_allclose(jitted(x).asnumpy(), [3.0, 3.0])
    finally:
        Scale.factor = 2.0


def sorts_tensors_by_a_python_key(x):
    ranked = sorted([(2, x * 2), (1, x)], key=lambda pair: pair[0])   # keys are Python ints: known now
    return ranked[0][1] + 10 * ranked[1][1]


@pytest.mark.parametrize("mode", ["ast", "bytecode"])
def test_sorted_needs_only_the_keys_values(mode):
    x = msx.Tensor(np.ones(2, np.float32))
    got = msx.jit(sorts_tensors_by_a_python_key, capture_mode=mode, fullgraph=True)(x)
    np.testing.assert_allclose(got.asnumpy(), [21.0, 21.0])


class Doubler:
    def twice(self, v, k=1):
        return v * 2 * k


def through_wrapped_calls(x):
    n = functools.partial(len)([1, 2, 3])                      # a partial of a builtin with a rule
    bound = functools.partial(Doubler().twice, k=n)            # a partial of a bound method of user code
    return bound(x)


def test_unwrap_peels_methods_partials_and_jit_functions():
    d = Doubler()
    fn, args, kwargs = policy.unwrap(functools.partial(d.twice, 1, k=2), (), {"k": 3})
    assert fn is Doubler.twice and args == (d, 1) and kwargs == {"k": 3}
    inner = msx.jit(through_wrapped_calls)
    assert policy.unwrap(inner, (1,), {})[0] is through_wrapped_calls


@pytest.mark.parametrize("mode", ["ast", "bytecode"])
def test_wrapped_calls_are_interpreted_in_both_modes(mode):
    x = msx.Tensor(np.ones(2, np.float32))
    got = msx.jit(through_wrapped_calls, capture_mode=mode, fullgraph=True)(x)
    np.testing.assert_allclose(got.asnumpy(), [6.0, 6.0])
