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
