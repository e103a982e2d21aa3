"""capture_mode="bytecode": capture against eager (differential), graph breaks, fullgraph errors, explain.

Guards (when a cached graph may be reused) are tested in test_bytecode_guards.py;
the shared conformance table runs in test_bytecode_conformance.py.
"""
import contextlib
import random
import sys

import numpy as np
import pytest

import msx
from msx import nn, ops
from msx.capture.bytecode.vm import VM, bind_arguments, new_frame

RNG = np.random.default_rng(0)


def _t(*shape, shift=0.0):
    return msx.Tensor((RNG.normal(size=shape) + shift).astype(np.float32))


def _np(x):
    return np.asarray(x.asnumpy()) if isinstance(x, msx.Tensor) else np.asarray(x)


def _same(eager, compiled, tol=1e-5):
    if isinstance(eager, (tuple, list)):
        assert type(eager) is type(compiled) and len(eager) == len(compiled), (eager, compiled)
        for e, c in zip(eager, compiled):
            _same(e, c, tol)
    elif isinstance(eager, dict):
        assert eager.keys() == compiled.keys()
        for k in eager:
            _same(eager[k], compiled[k], tol)
    elif isinstance(eager, msx.Tensor):
        assert isinstance(compiled, msx.Tensor), compiled
        np.testing.assert_allclose(_np(compiled), _np(eager), rtol=tol, atol=tol)
    elif type(eager) is float:  # a value read from a tensor (`float(x.sum())`): float32 rounding, like tensors
        assert type(compiled) is float and np.isclose(compiled, eager, rtol=tol, atol=tol), (eager, compiled)
    else:
        assert eager == compiled, (eager, compiled)


def _bc(fn, **kw):
    return msx.jit(fn, capture_mode="bytecode", **kw)


def _line_of(fn, text):
    """The line number of the first line of `fn`'s source containing `text`."""
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


# ---------------------------------------------------------------- whole functions
SCALE = 1.5


def test_python_values_loops_containers_and_closures_match_eager_in_one_graph():
    def helper(v, k=2):
        return v * k

    def f(x, ys, n, table):
        acc = [helper(y) + i for i, y in enumerate(ys)]
        total = sum(acc) * SCALE
        for _ in range(n):
            total = total - 0.5
        scaled = {k: x * v for k, v in table.items()}
        first, *rest = acc
        return total + scaled["a"], tuple(r.mean() for r in rest), len(rest), first.shape

    jf = _bc(f)
    for _ in range(3):
        args = (_t(2, 3), [_t(2, 3), _t(2, 3), _t(2, 3)], 2, {"a": 2.0, "b": 3.0})
        _same(f(*args), jf(*args))
    assert (jf.captures, jf.compiles, jf.hits) == (1, 1, 2)
    report = jf.explain(*args)
    assert report.graph_count == 1 and report.break_count == 0


class _Block(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Dense(n, n)
        self.scale = 0.5

    def construct(self, x):
        return ops.relu(self.fc(x)) * self.scale + x


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.stem = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU()])
        self.blocks = nn.CellList([_Block(8), _Block(8)])
        self.head = nn.Dense(8, 3)

    def construct(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = block(h)
        return self.head(h)


def test_cells_sequential_celllist_and_user_blocks_are_inlined_into_one_graph():
    msx.set_seed(1)
    net = _Net()
    jnet = _bc(net)
    for _ in range(2):
        x = _t(5, 4)
        _same(net(x), jnet(x))
    report = jnet.explain(x)
    assert report.graph_count == 1 and report.break_count == 0
    assert {n.op for n in report.graphs[0].nodes} >= {"Dense", "ReLU", "Mul", "Add"}
    assert len(report.graphs[0].params) == 8   # Parameters are graph parameters, not constants


def test_stage_api_capture_lower_compile():
    def f(x, y):
        return ops.exp(x) * y, x.sum()

    x, y = _t(2, 3), _t(2, 3)
    jf = _bc(f)
    graph = jf.capture(x, y)
    assert [n.op for n in graph.nodes] == ["Exp", "Mul", "ReduceSum"]
    _same(f(x, y), jf.lower(x, y).compile()(x, y))

    def g(x):
        return x * float(x.sum())

    with pytest.raises(msx.errors.CaptureFallback, match=r"graph break.*explain"):
        _bc(g).capture(x)


def test_training_step_with_an_optimizer_matches_eager_in_one_graph():
    def make():
        msx.set_seed(3)
        net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2)])
        opt = nn.Adam(net.trainable_params(), learning_rate=0.05)
        grad_fn = msx.value_and_grad(lambda a, b: nn.MSELoss()(net(a), b), None, opt.parameters)

        def step(a, b):
            loss, grads = grad_fn(a, b)
            opt(grads)
            return loss

        return net, step

    (net_e, step_e), (net_j, step_j) = make(), make()
    jstep = _bc(step_j)
    for _ in range(3):
        a, b = _t(6, 4), _t(6, 2)
        _same(step_e(a, b), jstep(a, b))
    for p, q in zip(net_e.trainable_params(), net_j.trainable_params()):
        np.testing.assert_allclose(_np(q), _np(p), rtol=1e-5, atol=1e-6)
    assert jstep.compiles == 1 and jstep.explain(a, b).graph_count == 1


def test_msx_grad_of_a_jitted_function_runs_it_under_the_transform():
    def f(x):
        return (ops.sin(x) * x).sum()

    x = _t(3)
    g_eager = msx.grad(f)(x)
    g_jit = msx.grad(_bc(f))(x)
    _same(g_eager, g_jit)
    msx.set_seed(2)
    net = nn.Dense(3, 2)
    jnet = _bc(net)
    xs = _t(4, 3)
    jnet(xs)   # compiled first; differentiating w.r.t. its weights then runs it with traced Parameters
    weights = net.trainable_params()
    _same(msx.value_and_grad(lambda a: net(a).sum(), None, weights)(xs),
          msx.value_and_grad(lambda a: jnet(a).sum(), None, weights)(xs))
    assert jnet.cache_info()["entries"] == 1


def test_with_try_and_generators_are_captured_whole():
    class Scaled:
        def __enter__(self):
            return 3.0

        def __exit__(self, *exc):
            return False

    def f(x):
        with Scaled() as k:
            y = x * k
        try:
            y = y + {"a": 1.0}["b"]
        except KeyError:
            y = y - 1.0
        return sum(t * 2 for t in (y, x))

    x = _t(2, 2)
    jf = _bc(f, fullgraph=True)
    _same(f(x), jf(x))


def test_bound_methods_and_numpy_arguments():
    class Model:
        def __init__(self):
            self.k = 2.0

        def forward(self, x):
            return x * self.k

    m = Model()
    jf = _bc(m.forward)
    a = np.arange(3, dtype=np.float32)
    _same(msx.Tensor(a * 2), jf(a))                   # a numpy argument is a Tensor input, not a constant
    _same(msx.Tensor(a * 4), jf(a * 2))
    m.k = 5.0                                          # read through the bound method's self: guarded
    _same(msx.Tensor(a * 5), jf(a))
    assert jf.captures == 2 and "Model.forward.__self__.k: 2.0 -> 5.0" in jf.recompile_reasons[0]


# ---------------------------------------------------------------- graph breaks
def test_print_of_a_tensor_is_a_print_node_and_prints_on_every_call(capsys):
    def f(x):
        y = x * 2
        print("sum:", y.sum())
        return y + 1

    jf = _bc(f)
    xs = [_t(2, 2) for _ in range(3)]
    outs = [jf(x) for x in xs]
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 3
    for x, out, line in zip(xs, outs, printed):
        assert float(line.split()[-1]) == pytest.approx(float((_np(x) * 2).sum()), rel=1e-5)
        _same(x * 2 + 1, out)
    report = jf.explain(xs[0])
    capsys.readouterr()
    assert report.graph_count == 1 and report.break_count == 0   # one graph: print is its Print node
    assert [n.op for n in jf.capture(xs[0]).nodes] == ["Mul", "ReduceSum", "Print", "Add"]
    capsys.readouterr()

    def g(x):
        print("box:", [x])   # a tensor inside a container: str() of the list needs its value
        return x

    with pytest.raises(msx.errors.CaptureError, match="container holding tensors"):
        msx.jit(g, capture_mode="bytecode", fullgraph=True)(xs[0])


def test_tensor_dependent_branch_runs_the_branch_in_python_between_graphs():
    def f(x):
        y = x * 2
        if y.sum() > 0:
            y = y + 10
        else:
            y = y - 10
        return y.mean()

    jf = _bc(f)
    xs = [_t(3, shift=3.0), _t(3, shift=-3.0), _t(3, shift=3.0), _t(3, shift=-3.0)]
    for x in xs:
        _same(f(x), jf(x))
    assert jf.captures == 3 and jf.compiles == 3   # before the branch, and each path once
    brk = jf.explain(xs[0]).breaks[0]
    assert "depends on a tensor's value" in brk.reason and "ops.where" in brk.suggestion
    assert brk.loc.line == _line_of(f, "if y.sum()")


def test_numpy_on_a_tensor_value_breaks_and_matches_eager():
    def f(x):
        arr = x.asnumpy()
        k = float(np.abs(arr).max())
        return x / k, k

    jf = _bc(f)
    x = _t(2, 3)
    _same(f(x), jf(x))
    reasons = [b.reason for b in jf.explain(x).breaks]
    assert any("Tensor.asnumpy()" in r for r in reasons)


def test_break_inside_an_inlined_cell_resumes_inside_that_cell():
    class Gate(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 3)
            self.calls = 0

        def construct(self, x):
            h = self.fc(x)
            if h.sum() > 0:
                h = h * 2
            self.calls += 1
            return h

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a, self.b = Gate(), Gate()

        def construct(self, x):
            return self.b(self.a(x)) - x

    msx.set_seed(7)
    eager = Outer()
    msx.set_seed(7)
    net = Outer()
    jnet = _bc(net)
    for x in (_t(2, 3, shift=1.0), _t(2, 3, shift=-1.0), _t(2, 3, shift=1.0)):
        _same(eager(x), jnet(x))
    assert net.a.calls == eager.a.calls == 3 and net.b.calls == 3
    report = jnet.explain(x)
    assert report.break_count == 4   # a tensor `if` and an attribute write in each Gate
    assert {b.loc.func for b in report.breaks} == {"construct"}


def test_loop_with_a_break_in_its_body_reuses_one_entry_per_position():
    def f(x, n):
        losses = []
        for _ in range(n):
            x = x * 0.9
            losses.append(float(x.sum()))
        return x, losses

    jf = _bc(f)
    x = _t(2, 2, shift=1.0)
    for _ in range(3):
        _same(f(x, 5), jf(x, 5))
    assert len(jf.recompile_reasons) <= 1   # only the loop's last iteration (nothing left) differs
    captures = jf.captures
    _same(f(x, 5), jf(x, 5))
    assert jf.captures == captures


def test_python_side_effects_happen_on_every_call():
    seen = []

    class Counter(nn.Cell):
        def __init__(self):
            super().__init__()
            self.n = 0

        def construct(self, x):
            self.n += 1
            seen.append(1)
            return x * 2

    c = Counter()
    jc = _bc(c)
    for _ in range(3):
        _same(c.construct.__func__(Counter(), _t(2) * 0 + 1), jc(_t(2) * 0 + 1))
    assert c.n == 3 and len(seen) == 6


def test_the_breaking_instruction_sees_its_operands_untouched(capsys):
    def f(x):
        parts = iter(["a", "b", "c"])
        print(*parts)            # the interpreter unpacked the iterator before finding the break: undone
        return x + 1

    jf = _bc(f)
    for _ in range(2):
        _same(f(_t(2) * 0), jf(_t(2) * 0))
    assert capsys.readouterr().out == "a b c\n" * 4


_DRAWS = random.Random(0)


def test_unknown_library_call_runs_in_python_and_its_value_is_not_baked_in():
    def f(x):
        r = _DRAWS.random()   # not an msx op and not pure: a graph break, called on every call
        return x * 2, r

    jf = _bc(f)
    reference = random.Random(0)
    for _ in range(3):
        x = _t(2)
        out, r = jf(x)
        assert r == reference.random()
        _same(x * 2, out)
    assert jf.captures == 2   # the value r is only passed through: no guard on it, no recompilation


def test_glue_exception_is_handled_by_the_functions_own_try():
    def f(x):
        try:
            k = int(x.sum() > 100)
            r = 1 / k
        except ZeroDivisionError:
            r = -1.0
        return x + r

    jf = _bc(f)
    for x in (_t(2), _t(2) + 1000):
        _same(f(x), jf(x))


def test_break_inside_a_differentiated_function_runs_autodiff_in_python():
    def loss(x):
        y = (x * x).sum()
        if y > 1.0:
            y = y * 3
        return y

    def step(x):
        return msx.value_and_grad(loss)(x)

    jf = _bc(step)
    for x in (_t(3), _t(3) * 0.01):
        _same(step(x), jf(x))
    brk = jf.explain(x).breaks[0]
    assert "depends on a tensor's value" in brk.reason
    assert brk.loc.line == _line_of(loss, "if y > 1.0") and brk.inner


# ---------------------------------------------------------------- fullgraph, errors, fallbacks
def test_fullgraph_error_names_stage_reason_and_underlines_the_line():
    def f(x):
        y = x + 1
        z = float(y.mean())
        return y * z

    with pytest.raises(msx.errors.CaptureError) as info:
        _bc(f, fullgraph=True)(_t(2))
    text = str(info.value)
    assert info.value.stage == "capture: bytecode"
    assert text.startswith("[capture: bytecode] graph break: float() needs the value of a tensor")
    assert "Suggestion:" in text and "fullgraph=True" in text
    assert f'line {_line_of(f, "float(y.mean())")}, in f\n    z = float(y.mean())\n        ^^^^^^^^^^^^^^^' in text


def test_errors_of_the_program_keep_their_type_and_point_at_the_line():
    def shape_error(x):
        return ops.matmul(x, ops.ones((5, 2), msx.float32))

    def value_error(x):
        if x.shape[0] != 4:
            raise ValueError(f"expected 4 rows, got {x.shape[0]}")
        return x

    with pytest.raises(ValueError, match="MatMul") as info:
        _bc(shape_error)(_t(2, 3))
    assert info.value.stage == "capture: bytecode" and info.value.loc.line == _line_of(shape_error, "matmul")
    with pytest.raises(ValueError, match="expected 4 rows, got 3") as info:
        _bc(value_error)(_t(3, 2))
    assert info.value.loc.line == _line_of(value_error, "raise ValueError")


def test_unsupported_python_version_is_refused_with_the_version_and_ast(monkeypatch):
    import msx.capture.bytecode as bytecode

    monkeypatch.setattr(bytecode, "python_supported", lambda: False)
    with pytest.raises(ValueError, match=r"Python \d+\.\d+\.\d+.*capture_mode='ast'"):
        msx.jit(lambda x: x, capture_mode="bytecode")


def test_code_it_cannot_interpret_runs_eagerly_with_a_warning_or_fails_with_fullgraph():
    def f(x, kind):
        match kind:                      # a sequence pattern: MATCH_SEQUENCE is not interpreted
            case ("double", k):
                return x * k
            case _:
                return x

    x = _t(2)
    with pytest.warns(UserWarning, match="runs eagerly from the start of f.*MATCH_SEQUENCE"):
        out = _bc(f)(x, ("double", 2))
    _same(x * 2, out)
    with pytest.raises(msx.errors.CaptureError, match="MATCH_SEQUENCE") as info:
        _bc(f, fullgraph=True)(x, ("double", 2))
    assert info.value.stage == "capture: bytecode"


# ---------------------------------------------------------------- explain
def test_explain_reports_graphs_breaks_guards_and_recompilations():
    global SCALE

    def f(x, n):
        y = x * SCALE
        float(y.sum())
        return y + n

    jf = _bc(f)
    x = _t(2, 3)
    jf(x, 1)
    old = SCALE
    try:
        SCALE = 4.0
        report = jf.explain(x, 1)
    finally:
        SCALE = old
    text = str(report)
    assert report.graph_count == 2 and report.break_count == 1
    assert "msx.jit explain: f (capture_mode='bytecode')" in text and "2 graph(s), 1 graph break(s)" in text
    assert f"graph break at test_bytecode_capture.py:{_line_of(f, 'float(y.sum())')}" in text
    assert "reason: float() needs the value of a tensor" in text and "suggestion:" in text
    assert "arg x is a Tensor float32(2, 3)" in text
    assert f"global SCALE == 4.0   [test_bytecode_capture.py:{_line_of(f, 'x * SCALE')} `y = x * SCALE`]" in text
    assert "recompilations of f so far: 1" in text
    assert report.recompiles == [f"at the start of f: global SCALE: 1.5 -> 4.0 (guard from "
                                 f"test_bytecode_capture.py:{_line_of(f, 'x * SCALE')} `y = x * SCALE`)"]
    assert report.result[0] is not None


def test_explain_works_in_trace_mode_too():  # (issue 29: explain() in every mode; tests/test_explain_modes.py)
    report = msx.jit(lambda x: x * 2, capture_mode="trace").explain(_t(2))
    assert report.graph_count == 1 and report.break_count == 0 and "capture_mode='trace'" in str(report)


# ---------------------------------------------------------------- the Python glue interpreter
def test_glue_interpreter_runs_python_like_cpython():
    base = 10

    def f(a, b=2, *rest, k=1, **kw):
        out = [i * a for i in range(b)] + [base]
        d = {key: v for key, v in kw.items()}
        s = f"{a!r:>4}|{b}"
        first, *middle, last = range(5)
        try:
            missing = {}["x"]
        except KeyError as err:
            missing = str(err)
        finally:
            out.append(len(rest))

        def inner(m):
            nonlocal a
            a += m
            return a

        inner(k)
        with contextlib.suppress(ZeroDivisionError):
            out.append(1 / 0)
        total = 0
        while b > 0:
            b -= 1
            if b == 1:
                continue
            total += b
        return out, d, s, first, middle, last, missing, a, total, tuple(x * 2 for x in rest), not a, -a

    for args, kw in [((1,), {}), ((2, 3, 7, 8), {"k": 4, "z": 1})]:
        assert VM().run([new_frame(f, bind_arguments(f, args, kw))]) == f(*args, **kw)
    with pytest.raises(TypeError, match="missing 1 required argument: 'a'"):
        bind_arguments(f, (), {})
    assert sys.version_info[:2] == (3, 11) or pytest.skip("the interpreter is for CPython 3.11 bytecode")
