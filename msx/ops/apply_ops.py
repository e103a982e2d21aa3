"""MindSpore's optimizer-update primitives (`ops.ApplyMomentum`, `ops.Adam`, ...): one step, written in place.

Each class-style op updates its variable and slot inputs (Parameters, or Tensors: MindSpore's PyNative
writes into both) and returns what MindSpore returns: the updated variable, or the tuple of updated
variable and slots. The update rule is one primitive per op (the TensorFlow formulas MindSpore documents);
its result arrays are written back with `Tensor._rebind`, which a jit capture records as a state write, so
a jitted training step updates the same Parameters as an eager one.

`use_locking` (where MindSpore's constructor has it) is type checked and `True` warns once per op, as the
sparse ops do (`sparse_apply_ops.NO_LOCKING`): the step reads the Parameters and then rebinds them, and nothing
serialises two threads stepping the same Parameter, so the lock MindSpore would take is not honoured.
"""
from __future__ import annotations

import jax.numpy as jnp

from ..tensor import Tensor
import inspect

from .api import SURFACE, expose
from .primitive import apply, primitive
from .sparse_apply_ops import _locking


def _sqrt(x):
    return jnp.sqrt(x)


def _momentum(var, accum, lr, grad, momentum, *, use_nesterov=False, gradient_scale=1.0):
    grad = grad * gradient_scale
    accum = accum * momentum + grad
    step = lr * grad + lr * momentum * accum if use_nesterov else lr * accum
    return var - step, accum


def _adagrad(var, accum, lr, grad, *, update_slots=True, epsilon=0.0):
    if update_slots:
        accum = accum + grad * grad
    return var - lr * grad / (_sqrt(accum) + epsilon), accum


def _adadelta(var, accum, accum_update, lr, rho, epsilon, grad):
    accum = rho * accum + (1 - rho) * grad * grad
    update = _sqrt(accum_update + epsilon) * grad / _sqrt(accum + epsilon)
    accum_update = rho * accum_update + (1 - rho) * update * update
    return var - lr * update, accum, accum_update


def _adamax(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
    m = beta1 * m + (1 - beta1) * grad
    v = jnp.maximum(beta2 * v, jnp.abs(grad))
    return var - lr / (1 - beta1_power) * m / (v + epsilon), m, v


def _add_sign(var, m, lr, alpha, sign_decay, beta, grad):
    m = beta * m + (1 - beta) * grad
    return var - lr * (alpha + sign_decay * jnp.sign(grad) * jnp.sign(m)) * grad, m


def _power_sign(var, m, lr, logbase, sign_decay, beta, grad):
    m = beta * m + (1 - beta) * grad
    return var - lr * jnp.exp(logbase * sign_decay * jnp.sign(grad) * jnp.sign(m)) * grad, m


def _centered_rmsprop(var, mg, ms, mom, grad, lr, decay, momentum, epsilon):
    mg = decay * mg + (1 - decay) * grad
    ms = decay * ms + (1 - decay) * grad * grad
    mom = momentum * mom + lr * grad / _sqrt(ms - mg * mg + epsilon)
    return var - mom, mg, ms, mom


def _rmsprop(var, ms, mom, lr, grad, decay, momentum, epsilon):
    ms = decay * ms + (1 - decay) * grad * grad
    mom = momentum * mom + lr * grad / _sqrt(ms + epsilon)
    return var - mom, ms, mom


def _gradient_descent(var, alpha, delta):
    return (var - alpha * delta,)


def _prox(prox_v, lr, l1, l2):
    return jnp.sign(prox_v) / (1 + lr * l2) * jnp.maximum(jnp.abs(prox_v) - lr * l1, 0.0)


def _proximal_gradient_descent(var, alpha, l1, l2, delta):
    return (_prox(var - alpha * delta, alpha, l1, l2),)


def _proximal_adagrad(var, accum, lr, l1, l2, grad):
    accum = accum + grad * grad
    lr_t = lr / _sqrt(accum)
    return _prox(var - lr_t * grad, lr_t, l1, l2), accum


def _keras_momentum(var, accum, lr, grad, momentum, *, use_nesterov=False):
    accum = accum * momentum - lr * grad
    return (var + accum * momentum - lr * grad if use_nesterov else var + accum), accum


def _amsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad * grad
    vhat = jnp.maximum(vhat, v)
    lr_t = lr * _sqrt(1 - beta2_power) / (1 - beta1_power)
    return var - lr_t * m / (_sqrt(vhat) + epsilon), m, v, vhat


def _adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, *, use_nesterov=False):
    m = m + (grad - m) * (1 - beta1)
    v = v + (grad * grad - v) * (1 - beta2)
    lr_t = lr * _sqrt(1 - beta2_power) / (1 - beta1_power)
    step = (m * beta1 + (1 - beta1) * grad) if use_nesterov else m
    return var - lr_t * step / (_sqrt(v) + epsilon), m, v


def _adam_weight_decay(var, m, v, lr, beta1, beta2, epsilon, decay, grad):
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad * grad
    return var - lr * (m / (_sqrt(v) + epsilon) + decay * var), m, v


def _sgd(param, grad, lr, accum, momentum, stat, *, dampening=0.0, weight_decay=0.0, nesterov=False):
    if weight_decay:
        grad = grad + weight_decay * param
    first = stat > 0
    accum = jnp.where(first, grad, momentum * accum + (1 - dampening) * grad)  # stat > 0: the first step
    step = grad + momentum * accum if nesterov else accum
    return param - lr * step, accum, jnp.zeros_like(stat)


# name: (rule, call parameters, the inputs written back (their positions), how many results are returned,
#        the constructor's attributes and defaults)
TABLE = {
    "ApplyMomentum": (_momentum, ("variable", "accumulation", "learning_rate", "gradient", "momentum"), (0, 1), 1,
                      (("use_nesterov", False), ("use_locking", False), ("gradient_scale", 1.0))),
    "ApplyAdagrad": (_adagrad, ("var", "accum", "lr", "grad"), (0, 1), 2, (("update_slots", True),)),
    "ApplyAdagradV2": (_adagrad, ("var", "accum", "lr", "grad"), (0, 1), 2, (("epsilon", None), ("update_slots", True))),
    "ApplyAdadelta": (_adadelta, ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"), (0, 1, 2), 3, ()),
    "ApplyAdaMax": (_adamax, ("var", "m", "v", "beta1_power", "lr", "beta1", "beta2", "epsilon", "grad"), (0, 1, 2), 3,
                    ()),
    "ApplyAddSign": (_add_sign, ("var", "m", "lr", "alpha", "sign_decay", "beta", "grad"), (0, 1), 2, ()),
    "ApplyPowerSign": (_power_sign, ("var", "m", "lr", "logbase", "sign_decay", "beta", "grad"), (0, 1), 2, ()),
    "ApplyCenteredRMSProp": (_centered_rmsprop, ("var", "mean_gradient", "mean_square", "moment", "grad",
                                                 "learning_rate", "decay", "momentum", "epsilon"), (0, 1, 2, 3), 1,
                             (("use_locking", False),)),
    "ApplyRMSProp": (_rmsprop, ("var", "mean_square", "moment", "learning_rate", "grad", "decay", "momentum",
                                "epsilon"), (0, 1, 2), 1, (("use_locking", False),)),
    "ApplyGradientDescent": (_gradient_descent, ("var", "alpha", "delta"), (0,), 1, ()),
    "ApplyProximalGradientDescent": (_proximal_gradient_descent, ("var", "alpha", "l1", "l2", "delta"), (0,), 1, ()),
    "ApplyProximalAdagrad": (_proximal_adagrad, ("var", "accum", "lr", "l1", "l2", "grad"), (0, 1), 2,
                             (("use_locking", False),)),
    "ApplyKerasMomentum": (_keras_momentum, ("var", "accum", "lr", "grad", "momentum"), (0, 1), 2,
                           (("use_locking", False), ("use_nesterov", False))),
    "ApplyAdamWithAmsgradV2": (_amsgrad, ("var", "m", "v", "vhat", "beta1_power", "beta2_power", "lr", "beta1",
                                          "beta2", "epsilon", "grad"), (0, 1, 2, 3), 4, (("use_locking", False),)),
    "Adam": (_adam, ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "gradient"),
             (0, 1, 2), 3, (("use_locking", False), ("use_nesterov", False))),
    "AdamWeightDecay": (_adam_weight_decay, ("var", "m", "v", "lr", "beta1", "beta2", "epsilon", "decay", "gradient"),
                        (0, 1, 2), 3, (("use_locking", False),)),
    "SGD": (_sgd, ("parameters", "gradient", "learning_rate", "accum", "momentum", "stat"), (0, 3, 5), 1,
            (("dampening", 0.0), ("weight_decay", 0.0), ("nesterov", False))),
}
_RULE_ATTRS = {"ApplyMomentum": ("use_nesterov", "gradient_scale"), "ApplyAdagrad": ("update_slots",),
               "ApplyAdagradV2": ("update_slots", "epsilon"), "ApplyKerasMomentum": ("use_nesterov",),
               "Adam": ("use_nesterov",), "SGD": ("dampening", "weight_decay", "nesterov")}
PRIMS = {}


def _register(name: str, rule, attrs: tuple):
    def impl(*arrays, **kw):
        return tuple(rule(*arrays, **kw))
    impl.__doc__ = f"MindSpore's {name} update rule: the new values of the written inputs."
    return primitive(f"{name}Update", attrs=attrs, category="state", multiple_results=True, differentiable=False,
                     internal=f"the update rule of the class op ops.{name}, which writes its results into the "
                              f"variable and slots")(impl)


def _make(name: str, spec):
    rule, params, written, n_out, init = spec
    prim = PRIMS[name] = _register(name, rule, _RULE_ATTRS.get(name, ()))
    rule_attrs = _RULE_ATTRS.get(name, ())

    def call(*args, **kw):
        if len(args) != len(params):
            raise TypeError(f"{name}() takes {len(params)} inputs ({', '.join(params)}), got {len(args)}")
        if "use_locking" in kw:
            _locking(name, kw["use_locking"])
        attrs = {k: kw[k] for k in rule_attrs}
        if name == "ApplyAdagradV2" and attrs["epsilon"] is None:
            raise TypeError("ApplyAdagradV2: epsilon is required")
        new = apply(prim, tuple(float(a) if isinstance(a, int) else a for a in args), attrs)
        outs = []
        for pos, value in zip(written, new):
            target = args[pos]
            value = value if value.dtype == target.dtype else value.astype(target.dtype)
            outs.append(target._rebind(value) if isinstance(target, Tensor) else value)
        return outs[0] if n_out == 1 else tuple(outs[:n_out])

    return call, tuple(k for k, _ in init), dict(init)


def _class(name: str, spec):
    call, init_names, defaults = _make(name, spec)
    params = [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=(inspect.Parameter.empty if d is None
                                                                             else d)) for k, d in defaults.items()]

    def fn(*args, **kw):
        return call(*args, **kw)

    fn.__signature__ = inspect.Signature([inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)] + params)
    fn.__name__ = name
    expose(cls=name, init=init_names, prim=f"{name}Update")(fn)


for _name, _spec in TABLE.items():
    _class(_name, _spec)


@expose(cls="ApplyAdamWithAmsgrad", init=("beta1", "beta2", "epsilon", "use_locking"), prim="ApplyAdamWithAmsgradV2Update")
def _amsgrad_v1(var, m, v, vhat, beta1_power, beta2_power, lr, grad, *, beta1=0.9, beta2=0.999, epsilon=1e-8,
                use_locking=False):
    _locking("ApplyAdamWithAmsgrad", use_locking)
    return SURFACE["cls"]["ApplyAdamWithAmsgradV2"]()(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2,
                                                   epsilon, grad)


@primitive("AssignAdd", attrs=("sign",), category="state", differentiable=False)
def assign_add_(variable, value, *, sign=1):
    return variable + sign * value.astype(variable.dtype)


def _assign(op: str, variable, value, sign: int):
    if not isinstance(variable, Tensor):
        raise TypeError(f"{op}: variable must be a Parameter or Tensor, got {type(variable).__name__}")
    value = value if isinstance(value, Tensor) else Tensor(value, dtype=variable.dtype)
    return variable._rebind(apply(assign_add_, (variable, value), {"sign": sign}))


@expose(ops="assign_add", cls="AssignAdd", prim="AssignAdd")
def assign_add(variable, value):
    return _assign("assign_add", variable, value, 1)


@expose(ops="assign_sub", cls="AssignSub", prim="AssignAdd")
def assign_sub(variable, value):
    return _assign("assign_sub", variable, value, -1)
