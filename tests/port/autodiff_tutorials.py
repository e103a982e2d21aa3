"""MindSpore 2.x's advanced autodiff and graph-mode tutorials as a MindSpore user writes them: Jacobians and
Hessians (`jacrev`, `jacfwd`, `vjp`, `jvp`, `grad` of `grad`), per-sample gradients with `vmap`, `jit_class`,
a Cell under GRAPH_MODE that assigns a Parameter attribute in `construct`, a variable bound in one branch and
read after it, `print` of a type inside `jit`, and `ops.stop_gradient`. Weights come from a seeded numpy
generator so the printed numbers are reproducible. tests/test_port_tutorials.py runs this file with only the
import lines changed to msx and compares the output with MindSpore 2.10's (recorded once)."""
import numpy as np
import mindspore
from mindspore import nn, ops, Tensor, Parameter


def show(label, value):
    if isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            show(f"{label}[{i}]", v)
        return
    if isinstance(value, Tensor):
        value = value.asnumpy()
    print(label, value.shape, value.dtype, np.round(value.astype(np.float64), 4).tolist())


rng = np.random.default_rng(0)
x = Tensor(rng.normal(size=(3,)).astype(np.float32))
w = Tensor(rng.normal(size=(2, 3)).astype(np.float32))


# ---------------------------------------------------------------- Jacobians and Hessians
def f(x):
    return ops.sin(x) * ops.exp(x)


def g(x, w):
    return ops.tanh((w * x).sum(axis=1))


show("jacrev f", mindspore.jacrev(f)(x))
show("jacfwd f", mindspore.jacfwd(f)(x))
show("jacrev g wrt (x, w)", mindspore.jacrev(g, grad_position=(0, 1))(x, w))
show("jacfwd g wrt x", mindspore.jacfwd(g)(x, w))
out, vjp_fn = mindspore.vjp(g, x, w)
show("vjp out", out)
show("vjp cotangents", vjp_fn(Tensor(np.array([1.0, -2.0], np.float32))))
primal, tangent = mindspore.jvp(f, x, Tensor(np.ones(3, np.float32)))
show("jvp primal", primal)
show("jvp tangent", tangent)


def scalar(x):
    return (ops.sin(x) * x).sum()


show("hessian", mindspore.jacfwd(mindspore.jacrev(scalar))(x))
show("grad of grad", mindspore.grad(lambda v: mindspore.grad(scalar)(v).sum())(x))

# ---------------------------------------------------------------- per-sample gradients with vmap
weights = Tensor(rng.normal(size=(4,)).astype(np.float32))
batch_x = Tensor(rng.normal(size=(5, 4)).astype(np.float32))
batch_y = Tensor(rng.normal(size=(5,)).astype(np.float32))


def sample_loss(wt, xi, yi):
    return ops.square(ops.tensor_dot(xi, wt, 1) - yi)


per_sample = mindspore.vmap(mindspore.grad(sample_loss), in_axes=(None, 0, 0))
show("per-sample grads", per_sample(weights, batch_x, batch_y))
show("jitted per-sample grads", mindspore.jit(per_sample)(weights, batch_x, batch_y))


def scaled(a):
    return ops.sin(a) * x


show("vmap along axis 1", mindspore.vmap(scaled, in_axes=1, out_axes=1)(
    Tensor(rng.normal(size=(3, 4)).astype(np.float32))))


# ---------------------------------------------------------------- jit_class
@mindspore.jit_class
class Scaler:
    def __init__(self, factor):
        self.factor = factor

    def apply(self, t):
        return t * self.factor + 1


scaler = Scaler(3.0)


@mindspore.jit
def use_scaler(t):
    return scaler.apply(t)


show("jit_class", use_scaler(x))


# ---------------------------------------------------------------- graph-mode syntax
class Accumulate(nn.Cell):
    """Assigns its Parameter in construct (MindSpore's tests/st do this)."""

    def __init__(self):
        super().__init__()
        self.total = Parameter(Tensor(np.zeros(3, np.float32)), name="total")

    def construct(self, t):
        self.total = self.total + t
        return self.total * 2


mindspore.set_context(mode=mindspore.GRAPH_MODE)
acc = Accumulate()
show("assign in construct, call 1", acc(x))
show("assign in construct, call 2", acc(x))
show("total parameter", acc.total)
mindspore.set_context(mode=mindspore.PYNATIVE_MODE)


@mindspore.jit
def branch(t):
    if t.sum() > 0:
        y = t * 2
    else:
        y = t - 1
    return y + 1


show("branch-bound variable, positive", branch(ops.abs(x)))
show("branch-bound variable, negative", branch(-ops.abs(x)))


@mindspore.jit
def typed(t):
    print("type inside jit:", type(t.shape))
    return t.shape[0] * t


show("print of a type", typed(x))


def stopped(t):
    return (ops.stop_gradient(t * t) * t).sum()


show("stop_gradient", mindspore.grad(stopped)(x))
