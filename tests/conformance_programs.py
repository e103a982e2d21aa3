"""Small programs that a source-capturing `jit` must run exactly like eager execution: a reusable table.

Each `Program` builds a fresh program (a function or a Cell, so that stateful
ones start from the same Parameters) and fresh inputs per call. `expect` says
what a capture mode must do with it:

- "matches": with `fullgraph=True`, every call's results equal eager ones, and
  so do the final Parameters and, for `grad` positions, the gradients of the
  sum of the float outputs (eager `value_and_grad` vs the jitted one);
- "graph-breaks": it cannot be one graph: `fullgraph=True` raises a
  CaptureError whose location is the line marked `# <- breaks: <name>`, and
  `fullgraph=False` still gives eager's results;
- "raises": eager raises `raises`, and so does the compiled function, with
  the user's line (`# <- raises: <name>`) in the error's location.

Nothing here is specific to one capture mode: `check(program, capture_mode)`
runs a program under any of them (tests/test_ast_capture.py uses "ast").
"""
from __future__ import annotations

import functools
import re
import warnings
import zlib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import msx
from msx import mint, nn, ops


@dataclass(frozen=True)
class Program:
    name: str
    make: Callable[[], Callable]                          # a fresh program per run
    inputs: Callable[[np.random.Generator, int], tuple]   # the arguments of call k
    expect: str = "matches"                               # "matches" | "graph-breaks" | "raises"
    calls: int = 2
    grad: tuple[int, ...] | None = None                   # argument positions to differentiate
    raises: type | None = None
    match: str = ""                                       # regex the error message must contain


def _t(rng: np.random.Generator, *shape: int, shift: float = 0.0) -> msx.Tensor:
    return msx.Tensor((rng.normal(size=shape) + shift).astype(np.float32))


def _signed(rng: np.random.Generator, k: int, *shape: int) -> msx.Tensor:
    """Inputs whose sum changes sign from call to call, so both paths of a tensor `if` run."""
    return _t(rng, *shape, shift=2.0 if k % 2 == 0 else -2.0)


def _two(rng, k):
    return _t(rng, 3, 4), _t(rng, 3, 4)


def _one(rng, k):
    return (_t(rng, 3, 4),)


def _fn(f):
    return lambda: f


# ---------------------------------------------------------------- assignments and operators
def assign_unpacking(x, y):
    a, b = x * 2, y + 1
    (c, d), e = (a, b), a - b
    first, *rest = [c, d, e]
    n, m = x.shape
    return first + rest[0] * n, rest[1] - m


def augmented_assignment(x, y):
    z = x
    z += y
    z *= 2
    z -= 1
    z /= 3
    z **= 2
    k = 1
    k += 2
    return z * k


def tensor_setitem(x, y):
    z = x * 1
    z[0] = 0.0
    z[1:, 2] = y[0, 0]
    z[-1] += 1.0
    return z * y


def arithmetic_operators(x, y):
    a = (x + y) * (x - y) / (y * y + 1) - x ** 2 + (-y) % 1.5
    b = x @ y.T + abs(x).sum() // 2
    return a, b


def comparisons_and_where(x, y):
    n = x.shape[0]
    if 0 < n <= 5:
        x = x + 1
    mask = (x >= 0) & (y < 1)
    return ops.where(x > y, x, y) + ops.where(mask, x, y * 0.5) + (x != y).astype(msx.float32)


def static_boolean_logic(x, n, flag):
    if n > 0 and not flag or n == 3:
        x = x * n
    if flag or n < 0:
        x = x - 100
    return x if n is not None else -x


def ops_mint_methods_and_class_ops(x, y):
    a = ops.relu(x) + mint.add(x, y, alpha=2) + ops.ReLU()(y) + ops.Add()(x, 1.0)
    b = x.exp().sum(axis=1) + ops.reduce_sum(y, 1) + mint.mean(x, dim=1)
    return a.transpose(1, 0).reshape(-1), ops.softmax(b, axis=0), ops.concat([a, x], 1).mean()


def _scaled(t, factor=2.0, *extra, offset=0.0, **named):
    total = t * factor + offset
    for e in extra:
        total = total + e
    for key in sorted(named):
        total = total - named[key]
    return total


def user_function_calls(x, y):
    args = (x, 3.0, y)
    kwargs = {"offset": 1.0, "b": y, "a": x}
    return _scaled(x), _scaled(*args, **kwargs), _scaled(t=y, factor=0.5)


class _Block(nn.Cell):
    def __init__(self, use_bias: bool):
        super().__init__()
        self.fc = nn.Dense(4, 4, has_bias=use_bias)
        self.use_bias = use_bias
        self.scale = 0.5

    def helper(self, t):
        return ops.tanh(t) * self.scale

    def construct(self, x):
        h = self.fc(x)
        if self.use_bias:
            h = h + 1.0
        return self.helper(h)


class _TwoBlocks(nn.Cell):
    def __init__(self):
        super().__init__()
        self.first = _Block(True)
        self.second = _Block(False)

    def construct(self, x, y):
        return self.second(self.first(x)) + y


def _seeded(make):
    def build():
        msx.set_seed(11)
        return make()
    return build


# ---------------------------------------------------------------- if / elif / else
def static_if_elif_else(x, mode):
    if mode == "double":
        y = x * 2
    elif mode == "negate":
        y = -x
    else:
        y = x
    return y


def tensor_if_else(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = -x
    return y + 1


def tensor_if_elif_else(x):
    s = x.sum()
    if s > 4:
        y = x * 3
    elif s > 0:
        y = x * 2
    else:
        y = x - 1
    return y


def tensor_if_without_else(x, y):
    z = y
    if x.mean() > 0:
        z = z + x
    return z * 2


def tensor_return_inside_branch(x):
    if x.sum() > 0:
        return x * 2
    y = x + 1
    return y * 3


def tensor_returns_in_both_branches(x, y):
    if (x * y).sum() > 0:
        z = x + y
        return z, z.sum()
    else:
        return x - y, y.sum()


def _inner_branch(t):
    if t.max() > 1.0:
        return t / t.max()
    return t


def tensor_if_in_nested_function(x, y):
    return _inner_branch(x) + _inner_branch(y)


def tensor_if_with_and_not(x, y):
    out = x
    if x.sum() > 0 and y.sum() > 0:
        out = x + y
    if not (x.mean() > 1):
        out = out * 2
    if x.sum() < 0 or y.sum() < 0:
        out = out - 1
    return out


def tensor_conditional_expression(x):
    parts = [x]
    y = x * 2 if x.sum() > 0 else x - 1
    parts.append(y)
    return parts[1].sum() if y.mean() > 0 else parts[0].max()


def tensor_if_number_becomes_tensor(x):
    s = 0.0
    if x.sum() > 0:
        s = 1.0
    return x * s


class _Counter(nn.Cell):
    """Counts the calls with a positive input in a Parameter written inside a tensor branch."""

    def __init__(self):
        super().__init__()
        self.hits = msx.Parameter(msx.Tensor(np.zeros(1, np.float32)), name="hits", requires_grad=False)

    def construct(self, x):
        if x.sum() > 0:
            self.hits.set_data(self.hits + 1)
            y = x * 2
        else:
            y = x
        return y + self.hits


# ---------------------------------------------------------------- loops
def while_tensor_condition(x):
    steps = 0
    x = ops.abs(x) + 0.1
    while x.sum() < 50:
        x = x * 2
        steps += 1
    return x, steps


class _Accumulate(nn.Cell):
    """A Parameter written inside a `while` loop on a tensor: the loop carries it."""

    def __init__(self):
        super().__init__()
        self.total = msx.Parameter(msx.Tensor(np.zeros(4, np.float32)), name="total", requires_grad=False)

    def construct(self, x):
        x = ops.abs(x) + 0.1
        while x.sum() < 30:
            self.total.set_data(self.total + x[0])
            x = x * 2
        return x


def while_static_condition(x):
    i = 0
    while i < 3:
        x = x + i * x
        i += 1
    return x


def while_with_if_inside(x):
    x = ops.abs(x) + 0.1
    n = ops.zeros((), msx.int64)
    while x.sum() < 40:
        if x.max() > 2:
            x = x + 1
        else:
            x = x * 3
        n = n + 1
    return x, n


def for_range_static(x):
    acc = ops.zeros_like(x)
    for i in range(4):
        acc = acc + x * i
    return acc


def for_over_tuple_and_list(x, y):
    total = 0
    for t in (x, y):
        total = total + t.sum()
    for i, t in enumerate([x, y, x * y]):
        total = total + t.mean() * i
    for a, b in zip([x, y], [y, x]):
        total = total + (a * b).sum()
    return total


class _Stack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(4, 4), nn.Dense(4, 4), nn.Dense(4, 4)])

    def construct(self, x, y):
        for layer in self.layers:
            x = ops.relu(layer(x))
        return x + y


def for_break_continue_static(x):
    acc = x * 0
    for i in range(6):
        if i == 1:
            continue
        if i == 4:
            break
        acc = acc + x * i
    else:
        acc = acc * 100
    return acc


def for_over_tensor(xs, h):
    for row in xs:
        h = ops.tanh(h + row)
    return h


def for_over_tensor_with_if(xs):
    acc = xs[0] * 0
    for row in xs:
        if row.sum() > 0:
            acc = acc + row
        else:
            acc = acc - row * 0.5
    return acc, row


def for_over_tensor_enumerate(x):
    acc = 0
    for i, row in enumerate(x):
        acc = acc + row * i
    return acc


# ---------------------------------------------------------------- Python containers of tensors
class _ConvSum(nn.Cell):
    """Seed 002 §6.2: conv outputs collected in a Python list, then summed; gradients must survive."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, pad_mode="pad", padding=1)

    def construct(self, x):
        temp = []
        for i in range(4):
            temp.append(self.conv(x) * (i + 1))
        out = temp[0] + temp[1] + temp[2] + temp[3]
        return out.mean()


def _conv_list_weight_grads():
    msx.set_seed(5)
    net = _ConvSum()
    grad_fn = msx.value_and_grad(net, None, net.trainable_params())

    def step(x):
        loss, grads = grad_fn(x)
        return loss, grads

    return step


def dict_of_tensors(x, y):
    parts = {"a": x, "b": y * 2}
    parts["c"] = parts["a"] + parts["b"]
    total = 0
    for key, value in parts.items():
        total = total + value.sum() * len(key)
    return {"total": total, "c": parts["c"]}


def comprehensions(x, y):
    squares = [t * t for t in (x, y) if t.ndim == 2]
    scaled = {k: v * i for i, (k, v) in enumerate({"p": x, "q": y}.items())}
    pairs = [a * b for a in (x, y) for b in (1.0, 2.0)]
    return sum(squares), scaled["q"], sum(p.sum() for p in pairs)


def static_introspection(x, y):
    out = x
    if isinstance(y, msx.Tensor) and len(x) == 3 and x.shape[1] == 4 and x.dtype == msx.float32:
        out = out + y
    if x.ndim == 2 and isinstance(x.shape, tuple):
        out = out * x.shape[0]
    assert x.shape == y.shape, "shapes differ"
    return out


def printing(x):
    print("input shape", x.shape)
    y = x * 2
    print("y:", y)
    print(f"sum {y.sum()} done")
    ops.Print()("ops.Print", y.mean())
    return y


SCALE = 3.0


def globals_and_builtins(x):
    n = max(x.shape) + abs(-2) + min(1, 5) + round(2.4)
    return x * SCALE + n + float(len(x.shape))


def lambda_and_closure(x):
    k = 3.0
    times_k = lambda t: t * k  # noqa: E731
    add = lambda a, b=1.0: a + b  # noqa: E731
    return add(times_k(x)), add(x, b=times_k(x))


def _decorate(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) * 2
    return wrapper


@_decorate
def _decorated(t):
    return t + 1


def nested_def_and_decorator(x):
    def inner(t, *, power=2):
        return t ** power

    @_decorate
    def decorated_inner(t):
        return inner(t, power=3)

    return _decorated(x) + decorated_inner(x)


def nonlocal_counter(x):
    count = 0

    def bump(t):
        nonlocal count
        count += 1
        return t * count

    return bump(x) + bump(x), count


def _power(t, n):
    return t if n == 1 else t * _power(t, n - 1)


def static_recursion(x):
    return _power(x, 4)


def walrus_and_static_fstring(x):
    if (n := x.shape[0]) > 1:
        x = x * n
    label = f"{n:03d}-{x.shape}"
    return x + len(label)


class _Base(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        return self.fc(x)


class _Child(_Base):
    def construct(self, x):
        base = super().construct(x)
        return ops.relu(base) + super(_Child, self).construct(x)


class _Tools:
    @staticmethod
    def double(t):
        return t * 2

    @classmethod
    def triple(cls, t):
        return t * 3


def static_and_class_methods(x):
    return _Tools.double(x) + _Tools.triple(x) + _Tools().double(x)


# ---------------------------------------------------------------- training steps
def _mlp():
    msx.set_seed(3)
    return nn.SequentialCell([nn.Dense(6, 16), nn.ReLU(), nn.Dense(16, 3)])


def _training_step_with_cond():
    net = _mlp()
    loss_fn = nn.CrossEntropyLoss()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)

    def forward(x, y):
        loss = loss_fn(net(x), y)
        if loss > 1.0:
            loss = loss * 1.5
        return loss

    grad_fn = msx.value_and_grad(forward, None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    step.state = list(net.get_parameters())
    return step


def _training_step_with_loop_and_scan():
    net = _mlp()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)

    def forward(x):
        h = x
        for _ in range(2):
            h = h * 0.5 + 0.1
        total = 0.0
        for row in net(h):
            total = total + (row * row).sum()
        return total

    grad_fn = msx.value_and_grad(forward, None, opt.parameters)

    def step(x):
        loss, grads = grad_fn(x)
        opt(grads)
        return loss

    step.state = list(net.get_parameters())
    return step


def _train_one_step_cell():
    net = _mlp()
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    return nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), opt)


def _classification(rng, k):
    return _t(rng, 8, 6), msx.Tensor(rng.integers(0, 3, 8))


class _TrainModeNet(nn.Cell):
    """BatchNorm statistics (state) and a Dropout mask (the RNG state) in training mode."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 6)
        self.bn = nn.BatchNorm1d(6)
        self.drop = nn.Dropout(p=0.3)

    def construct(self, x):
        h = self.drop(self.bn(self.fc(x)))
        if h.mean() > 0:
            h = h * 2
        return h


# ---------------------------------------------------------------- graph breaks
def uses_try(x):
    try:  # <- breaks: uses_try
        y = x + 1
    except ValueError:
        y = x
    return y


def uses_with(x):
    with warnings.catch_warnings():  # <- breaks: uses_with
        y = x * 2
    return y


def _numbers(t):
    yield t
    yield t * 2


def calls_a_generator(x):
    return sum(_numbers(x))  # <- breaks: calls_a_generator


_CALLS = 0


def writes_a_global(x):
    global _CALLS
    _CALLS = _CALLS + 1  # <- breaks: writes_a_global
    return x


def python_value_of_a_tensor(x):
    scale = float(x.sum())  # <- breaks: python_value_of_a_tensor
    return x * (2.0 if scale > 0 else 3.0)


def numpy_value_of_a_tensor(x):
    return msx.Tensor(x.asnumpy() * 2)  # <- breaks: numpy_value_of_a_tensor


def break_on_a_tensor(x):
    for i in range(3):
        if x.sum() > i:  # <- breaks: break_on_a_tensor
            break
        x = x + 1
    return x


def assigned_in_one_branch(x):
    if x.sum() > 0:
        y = x * 2
    return y  # Python's rule: fine when the path taken assigned it (the graph checks; see test_jit_semantics)


def branch_shapes_differ(x):
    if x.sum() > 0:  # <- breaks: branch_shapes_differ
        y = x
    else:
        y = x[:2]
    return y


def list_grows_in_a_tensor_loop(x):
    outs = []
    while x.sum() < 10:  # <- breaks: list_grows_in_a_tensor_loop
        outs.append(x)
        x = x * 2
    return x, len(outs)


def _countdown(t):
    if t.sum() > 0:
        return _countdown(t - 1)  # <- breaks: recursion_on_a_tensor
    return t


def recursion_on_a_tensor(x):
    return _countdown(x)


_SEEN: list = []


def appends_to_a_global_list(x):
    _SEEN.append(x)  # <- breaks: appends_to_a_global_list
    return x * 2


def _loop_until(t):
    while t.sum() < 10:  # <- breaks: grad_through_a_data_dependent_while
        t = t * 2
    return t.sum()


def grad_through_a_data_dependent_while(x):
    return msx.grad(_loop_until)(x)


class _Chatty(nn.Cell):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def construct(self, x):
        self.calls += 1  # <- breaks: attribute_write
        return x * 2


# ---------------------------------------------------------------- errors of the program itself
def shape_error(x):
    w = ops.ones((5, 2))
    return ops.matmul(x, w)  # <- raises: shape_error


def static_type_error(x):
    return x * len(5)  # <- raises: static_type_error


def static_assert_fails(x):
    assert x.ndim == 3, "expected a batch of images"  # <- raises: static_assert_fails
    return x


def raise_on_static_check(x):
    if x.shape[0] != 4:
        raise ValueError(f"expected 4 rows, got {x.shape[0]}")  # <- raises: raise_on_static_check
    return x


def unbound_local(x):
    if x.ndim == 5:
        y = x
    return y  # <- raises: unbound_local


def static_index_error(x):
    parts = [x, x * 2]
    return parts[2]  # <- raises: static_index_error


PROGRAMS: list[Program] = [
    Program("assign_unpacking", _fn(assign_unpacking), _two),
    Program("augmented_assignment", _fn(augmented_assignment), _two),
    Program("tensor_setitem", _fn(tensor_setitem), _two, grad=(0, 1)),
    Program("arithmetic_operators", _fn(arithmetic_operators), _two),
    Program("comparisons_and_where", _fn(comparisons_and_where), _two),
    Program("static_boolean_logic", _fn(static_boolean_logic), lambda rng, k: (_t(rng, 3, 4), [2, 3][k % 2], k == 1)),
    Program("ops_mint_methods_and_class_ops", _fn(ops_mint_methods_and_class_ops), _two),
    Program("user_function_calls", _fn(user_function_calls), _two),
    Program("cells_sub_cells_and_self_attributes", _seeded(_TwoBlocks), lambda rng, k: (_t(rng, 3, 4), _t(rng, 3, 4))),
    Program("static_if_elif_else", _fn(static_if_elif_else),
            lambda rng, k: (_t(rng, 3, 4), ["double", "negate", "keep"][k % 3]), calls=3),
    Program("tensor_if_else", _fn(tensor_if_else), lambda rng, k: (_signed(rng, k, 3, 4),), calls=3, grad=(0,)),
    Program("tensor_if_elif_else", _fn(tensor_if_elif_else),
            lambda rng, k: (_t(rng, 3, 4) * 0.01 + [1.0, 0.2, -1.0][k],), calls=3, grad=(0,)),
    Program("tensor_if_without_else", _fn(tensor_if_without_else),
            lambda rng, k: (_signed(rng, k, 3, 4), _t(rng, 3, 4)), calls=3),
    Program("tensor_return_inside_branch", _fn(tensor_return_inside_branch), lambda rng, k: (_signed(rng, k, 3, 4),),
            calls=3, grad=(0,)),
    Program("tensor_returns_in_both_branches", _fn(tensor_returns_in_both_branches),
            lambda rng, k: (_signed(rng, k, 3, 4), _t(rng, 3, 4, shift=2.0)), calls=3, grad=(0, 1)),
    Program("tensor_if_in_nested_function", _fn(tensor_if_in_nested_function),
            lambda rng, k: (_t(rng, 3, 4) * 3, _t(rng, 3, 4) * 0.1), grad=(0, 1)),
    Program("tensor_if_with_and_not", _fn(tensor_if_with_and_not),
            lambda rng, k: (_signed(rng, k, 3, 4), _signed(rng, k + k // 2, 3, 4)), calls=4, grad=(0, 1)),
    Program("tensor_conditional_expression", _fn(tensor_conditional_expression),
            lambda rng, k: (_signed(rng, k, 3, 4),), calls=3, grad=(0,)),
    Program("tensor_if_number_becomes_tensor", _fn(tensor_if_number_becomes_tensor),
            lambda rng, k: (_signed(rng, k, 3, 4),), calls=3),
    Program("assigned_in_one_branch", _fn(assigned_in_one_branch), lambda rng, k: (_t(rng, 3, shift=5.0),),
            calls=2),
    Program("tensor_if_writes_a_parameter", _Counter, lambda rng, k: (_signed(rng, k, 3, 4),), calls=4),
    Program("while_tensor_condition", _fn(while_tensor_condition), lambda rng, k: (_t(rng, 3, 4) * (k + 1),), calls=3),
    Program("while_writes_a_parameter", _Accumulate, lambda rng, k: (_t(rng, 3, 4) * (k + 1),), calls=3),
    Program("while_static_condition", _fn(while_static_condition), _one, grad=(0,)),
    Program("while_with_if_inside", _fn(while_with_if_inside), lambda rng, k: (_t(rng, 3, 4) * (k + 1),), calls=3),
    Program("for_range_static", _fn(for_range_static), _one, grad=(0,)),
    Program("for_over_tuple_list_enumerate_zip", _fn(for_over_tuple_and_list), _two),
    Program("for_over_cell_list", _seeded(_Stack), lambda rng, k: (_t(rng, 3, 4), _t(rng, 3, 4))),
    Program("for_break_continue_else_static", _fn(for_break_continue_static), _one),
    Program("for_over_tensor_scan", _fn(for_over_tensor), lambda rng, k: (_t(rng, 3, 4), _t(rng, 4)), grad=(0, 1)),
    Program("for_over_tensor_with_if_inside", _fn(for_over_tensor_with_if), lambda rng, k: (_t(rng, 3, 4),),
            grad=(0,)),
    Program("for_over_tensor_enumerate", _fn(for_over_tensor_enumerate), _one),
    Program("list_of_conv_outputs_summed", _seeded(_ConvSum), lambda rng, k: (_t(rng, 2, 1, 5, 5),), grad=(0,)),
    Program("list_of_conv_outputs_keeps_weight_grads", _conv_list_weight_grads,
            lambda rng, k: (_t(rng, 2, 1, 5, 5),)),
    Program("dict_of_tensors", _fn(dict_of_tensors), _two),
    Program("comprehensions", _fn(comprehensions), _two, grad=(0, 1)),
    Program("static_introspection_and_assert", _fn(static_introspection), _two),
    Program("print_and_ops_print", _fn(printing), _one),
    Program("globals_and_builtins", _fn(globals_and_builtins), _one),
    Program("lambda_and_closure", _fn(lambda_and_closure), _one),
    Program("nested_def_and_decorator", _fn(nested_def_and_decorator), _one),
    Program("nonlocal_counter", _fn(nonlocal_counter), _one),
    Program("static_recursion", _fn(static_recursion), _one),
    Program("walrus_and_static_fstring", _fn(walrus_and_static_fstring), _one),
    Program("super_construct", _seeded(_Child), lambda rng, k: (_t(rng, 3, 4),)),
    Program("static_and_class_methods", _fn(static_and_class_methods), _one),
    Program("training_step_with_cond", _training_step_with_cond, _classification, calls=3),
    Program("training_step_with_loop_and_scan", _training_step_with_loop_and_scan,
            lambda rng, k: (_t(rng, 4, 6),), calls=3),
    Program("train_one_step_cell", _train_one_step_cell, _classification, calls=3),
    Program("train_mode_batchnorm_dropout", lambda: _seeded(_TrainModeNet)().set_train(True),
            lambda rng, k: (_t(rng, 5, 4),)),
    # graph breaks
    Program("uses_try", _fn(uses_try), _one, "graph-breaks", match="`try`"),
    Program("uses_with", _fn(uses_with), _one, "graph-breaks", match="`with`"),
    Program("calls_a_generator", _fn(calls_a_generator), _one, "graph-breaks", match="generator"),
    Program("writes_a_global", _fn(writes_a_global), _one, "graph-breaks", match="global"),
    Program("python_value_of_a_tensor", _fn(python_value_of_a_tensor), _one, "graph-breaks",
            match=r"float\(Tensor\)"),
    Program("numpy_value_of_a_tensor", _fn(numpy_value_of_a_tensor), _one, "graph-breaks", match="asnumpy"),
    Program("break_on_a_tensor", _fn(break_on_a_tensor), _one, "graph-breaks", match="break"),
    Program("branch_shapes_differ", _fn(branch_shapes_differ), lambda rng, k: (_t(rng, 3, shift=5.0),),
            "graph-breaks", match="same shape"),
    Program("recursion_on_a_tensor", _fn(recursion_on_a_tensor), lambda rng, k: (msx.Tensor([2.0]),),
            "graph-breaks", match="recursion"),
    Program("appends_to_a_global_list", _fn(appends_to_a_global_list), _one, "graph-breaks", match="list"),
    Program("grad_through_a_data_dependent_while", _fn(grad_through_a_data_dependent_while),
            lambda rng, k: (ops.abs(_t(rng, 3, 4)) + 0.5,), "graph-breaks", match="bounded loop"),
    Program("attribute_write", _Chatty, _one, "graph-breaks", match="calls"),
    Program("list_grows_in_a_tensor_loop", _fn(list_grows_in_a_tensor_loop), lambda rng, k: (ops.abs(_t(rng, 3, 4)),),
            "graph-breaks", match="changes structure"),
    # errors of the program
    Program("shape_error", _fn(shape_error), _one, "raises", raises=ValueError, match="MatMul"),
    Program("static_type_error", _fn(static_type_error), _one, "raises", raises=TypeError, match="len"),
    Program("static_assert_fails", _fn(static_assert_fails), _one, "raises", raises=AssertionError,
            match="expected a batch"),
    Program("raise_on_static_check", _fn(raise_on_static_check), _one, "raises", raises=ValueError,
            match="expected 4 rows, got 3"),
    Program("unbound_local", _fn(unbound_local), _one, "raises", raises=UnboundLocalError, match="y"),
    Program("static_index_error", _fn(static_index_error), _one, "raises", raises=IndexError,
            match="out of range"),
]


# ---------------------------------------------------------------- the runner
def marked_line(name: str, kind: str) -> int:
    """The line of this file marked `# <- {kind}: {name}`."""
    with open(__file__, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if re.search(rf"# <- {kind}: {re.escape(name)}$", line.rstrip()):
                return number
    raise LookupError(f"no line marked '# <- {kind}: {name}'")


def _leaves(value: Any) -> list:
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, dict):
        return [leaf for k in sorted(value) for leaf in _leaves(value[k])]
    return [value]


def _structure(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return tuple(_structure(v) for v in value)
    if isinstance(value, dict):
        return {k: _structure(value[k]) for k in sorted(value)}
    return "leaf"


def assert_same(eager: Any, compiled: Any, what: str, tol: float = 1e-5) -> None:
    assert _structure(eager) == _structure(compiled), f"{what}: structure {eager!r} vs {compiled!r}"
    for e, c in zip(_leaves(eager), _leaves(compiled)):
        a = np.asarray(e.asnumpy() if isinstance(e, msx.Tensor) else e)
        b = np.asarray(c.asnumpy() if isinstance(c, msx.Tensor) else c)
        np.testing.assert_allclose(b, a, rtol=tol, atol=tol, err_msg=what)


def _state(program) -> list:
    state = getattr(program, "state", None)
    if state is None and isinstance(program, nn.Cell):
        state = list(program.get_parameters())
    return state or []


def _float_sum(value):
    total = 0.0
    for leaf in _leaves(value):
        if isinstance(leaf, msx.Tensor) and leaf.dtype.is_floating:
            total = total + leaf.sum()
    return total


def _run(program_spec: Program, jit_kwargs: dict | None, arg_sets: list) -> tuple[list, list, Any]:
    msx.set_seed(1234)
    program = program_spec.make()
    run = msx.jit(program, **jit_kwargs) if jit_kwargs is not None else program
    outs = [run(*args) for args in arg_sets]
    return outs, [p.asnumpy().copy() for p in _state(program)], run


def _arg_sets(program: Program) -> list:
    rng = np.random.default_rng(zlib.crc32(program.name.encode()))
    return [program.inputs(rng, k) for k in range(program.calls)]


def check(program: Program, capture_mode: str) -> Any:
    """Run `program` eagerly and with `jit(capture_mode=...)` and assert what `program.expect` says."""
    arg_sets = _arg_sets(program)
    if program.expect == "raises":
        import pytest

        with pytest.raises(program.raises, match=program.match):
            _run(program, None, arg_sets[:1])
        for fullgraph in (False, True):
            with pytest.raises(program.raises, match=program.match) as info:
                _run(program, {"capture_mode": capture_mode, "fullgraph": fullgraph}, arg_sets[:1])
            loc = getattr(info.value, "loc", None)
            assert loc is not None and loc.line == marked_line(program.name, "raises"), loc
        return info.value
    eager_outs, eager_state, _ = _run(program, None, arg_sets)
    if program.expect == "graph-breaks":
        import pytest

        with pytest.raises(msx.errors.CaptureError, match=program.match) as info:
            _run(program, {"capture_mode": capture_mode, "fullgraph": True}, arg_sets[:1])
        assert info.value.stage.startswith("capture"), info.value.stage
        assert info.value.loc is not None and info.value.loc.line == marked_line(program.name, "breaks"), \
            str(info.value)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs, state, _ = _run(program, {"capture_mode": capture_mode, "fullgraph": False}, arg_sets)
        for k, (e, c) in enumerate(zip(eager_outs, outs)):
            assert_same(e, c, f"{program.name}, call {k} (fullgraph=False)")
        return info.value
    outs, state, run = _run(program, {"capture_mode": capture_mode, "fullgraph": True}, arg_sets)
    for k, (e, c) in enumerate(zip(eager_outs, outs)):
        assert_same(e, c, f"{program.name}, call {k}")
    for k, (e, c) in enumerate(zip(eager_state, state)):
        np.testing.assert_allclose(c, e, rtol=1e-5, atol=1e-5, err_msg=f"{program.name}: parameter {k}")
    if program.grad is not None:
        _check_grads(program, capture_mode, arg_sets)
    return run


def _check_grads(program: Program, capture_mode: str, arg_sets: list) -> None:
    def value_and_grads(jit_kwargs):
        msx.set_seed(1234)
        fn = program.make()

        def loss(*args):
            return _float_sum(fn(*args))

        grad_fn = msx.value_and_grad(loss, grad_position=program.grad)
        run = msx.jit(grad_fn, **jit_kwargs) if jit_kwargs is not None else grad_fn
        return [run(*args) for args in arg_sets]

    eager = value_and_grads(None)
    compiled = value_and_grads({"capture_mode": capture_mode, "fullgraph": True})
    for k, (e, c) in enumerate(zip(eager, compiled)):
        assert_same(e, c, f"{program.name}: value and grads, call {k}", tol=1e-4)
