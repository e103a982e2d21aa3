"""The optimizer-update primitive: one registry entry whose meaning is an optax transformation.

`OptimizerUpdate(lr, step, *params, *grads, *states)` returns `(*new_params,
*new_states)`. Everything it needs is an explicit input or a plain-data attr,
so a compile pipeline sees optimizer state as ordinary state inputs/outputs:
the optax state is rebuilt from the arrays on every call (`count` leaves are
`step`, the other leaves are `states` in optax's own flattening order) and
flattened back afterwards.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp

from .primitive import primitive

if TYPE_CHECKING:
    import optax

ATTRS = ("kind", "weight_decay", "loss_scale", "momentum", "dampening", "nesterov", "beta1", "beta2", "eps")
KINDS = ("sgd", "adam", "adamw")


def transformation(kind: str, lr, *, weight_decay: float = 0.0, loss_scale: float = 1.0, momentum: float = 0.0,
                   dampening: float = 0.0, nesterov: bool = False, beta1: float = 0.9, beta2: float = 0.999,
                   eps: float = 1e-8) -> optax.GradientTransformation:
    """The optax chain an msx optimizer means: grads are unscaled, L2-decayed, then fed to the optax optimizer.

    `sgd` with `dampening` scales every gradient but the first by `1 - dampening`
    before the momentum trace (MindSpore's and torch's SGD); `adamw` decays
    the weights decoupled from the gradient (optax.adamw).
    """
    import optax  # on first use: optax is 45 ms of `import msx` (issue 31)

    if kind not in KINDS:
        raise ValueError(f"OptimizerUpdate: kind must be one of {KINDS}, got {kind!r}")
    chain = []
    if loss_scale != 1.0:
        chain.append(optax.scale(1.0 / loss_scale))
    if weight_decay and kind != "adamw":
        chain.append(optax.add_decayed_weights(weight_decay))
    if kind == "sgd":
        if dampening:
            chain.append(optax.scale_by_schedule(lambda count: jnp.where(count == 0, 1.0, 1.0 - dampening)))
        chain.append(optax.sgd(lr, momentum=momentum or None, nesterov=nesterov))
    elif kind == "adam":
        chain.append(optax.adam(lr, b1=beta1, b2=beta2, eps=eps, nesterov=nesterov))
    else:
        chain.append(optax.adamw(lr, b1=beta1, b2=beta2, eps=eps, weight_decay=weight_decay, nesterov=nesterov))
    return optax.chain(*chain)


def _is_count(leaf) -> bool:
    return leaf.shape == () and jnp.issubdtype(leaf.dtype, jnp.integer)


def states_per_param(kind: str, **attrs) -> int:
    """How many state arrays (moments, traces) the transformation keeps per parameter."""
    leaves = jax.tree_util.tree_leaves(jax.eval_shape(transformation(kind, 0.0, **attrs).init,
                                                      [jax.ShapeDtypeStruct((1,), jnp.float32)]))
    return sum(not _is_count(leaf) for leaf in leaves)


def _split(arrays: tuple, k: int) -> int:
    """The number of parameters in (*params, *grads, *states); raises on a malformed input list."""
    if len(arrays) % (2 + k):
        raise ValueError(f"expected params, grads and {k} state(s) per param ({2 + k} arrays each), "
                         f"got {len(arrays)} arrays")
    n = len(arrays) // (2 + k)
    for i, (p, g) in enumerate(zip(arrays[:n], arrays[n:2 * n])):
        if p.shape != g.shape:
            raise ValueError(f"gradient {i} has shape {tuple(g.shape)} but its parameter has shape {tuple(p.shape)}")
    return n


def _dtype(x):
    return x.dtype if hasattr(x, "dtype") else jnp.result_type(x)  # an array, a tracer, a ShapeDtypeStruct; a scalar


def _shape(x) -> tuple:
    return tuple(x.shape) if hasattr(x, "shape") else ()


def _update_types(lr, step, *arrays, kind: str, **attrs) -> tuple:
    """`OptimizerUpdate`'s output shapes and dtypes without tracing optax over every parameter (a capture's
    largest single cost: 0.2-0.3 s of a CNN step's). Every new parameter and state keeps its input's shape, and
    the update is elementwise, so its dtypes follow from the input dtypes alone: the update itself is evaluated
    once per distinct combination of (parameter, gradient, states) dtypes, on shape-(1,) stand-ins."""
    k = states_per_param(kind, **attrs)
    n = _split(arrays, k)
    groups = [(arrays[i], arrays[n + i], *(arrays[2 * n + j * n + i] for j in range(k))) for i in range(n)]
    scalar = [jax.ShapeDtypeStruct(_shape(x), _dtype(x)) for x in (lr, step)]
    keys = [tuple(_dtype(x) for x in group) for group in groups]
    dtypes: dict[tuple, tuple] = {}
    for key in dict.fromkeys(keys):
        one = [jax.ShapeDtypeStruct((1,), d) for d in key]
        out = jax.eval_shape(functools.partial(optimizer_update.impl, kind=kind, **attrs), *scalar, *one)
        dtypes[key] = tuple(o.dtype for o in out)  # (new parameter, *new states)
    types = [dtypes[key] for key in keys]
    params = [jax.ShapeDtypeStruct(_shape(g[0]), t[0]) for g, t in zip(groups, types)]
    states = [jax.ShapeDtypeStruct(_shape(groups[i][2 + j]), types[i][1 + j]) for j in range(k) for i in range(n)]
    return (*params, *states)


@primitive("OptimizerUpdate", attrs=ATTRS, category="state", multiple_results=True, differentiable=False,
           internal=("one step of the SGD/Adam/AdamW update rules, applied by nn.Optimizer.construct "
                     "(msx/nn/optim/optimizer.py)"), abstract=lambda *a, **k: _update_types(*a, **k))
@functools.partial(jax.jit, static_argnames=ATTRS)
def optimizer_update(lr, step, *arrays, kind: str, weight_decay: float = 0.0, loss_scale: float = 1.0,
                     momentum: float = 0.0, dampening: float = 0.0, nesterov: bool = False, beta1: float = 0.9,
                     beta2: float = 0.999, eps: float = 1e-8):
    """One optimizer step: (lr, step, *params, *grads, *states) -> (*new params, *new states).

    `step` is the number of updates already made (optax's `count`); states
    are grouped by kind (all first moments, then all second moments).
    """
    from optax import apply_updates as optax_apply_updates  # on first use (see transformation)

    tx = transformation(kind, jnp.reshape(lr, ()), weight_decay=weight_decay, loss_scale=loss_scale,
                        momentum=momentum, dampening=dampening, nesterov=nesterov, beta1=beta1, beta2=beta2,
                        eps=eps)
    k = states_per_param(kind, weight_decay=weight_decay, loss_scale=loss_scale, momentum=momentum,
                         dampening=dampening, nesterov=nesterov, beta1=beta1, beta2=beta2, eps=eps)
    n = _split(arrays, k)
    params, grads, states = list(arrays[:n]), list(arrays[n:2 * n]), iter(arrays[2 * n:])
    shapes, treedef = jax.tree_util.tree_flatten(jax.eval_shape(tx.init, params))
    count = jnp.reshape(step, ())
    leaves = [count.astype(s.dtype) if _is_count(s) else next(states) for s in shapes]
    updates, new_state = tx.update(grads, jax.tree_util.tree_unflatten(treedef, leaves), params)
    new_params = optax_apply_updates(params, updates)
    new_states = [leaf for leaf, s in zip(jax.tree_util.tree_leaves(new_state), shapes) if not _is_count(s)]
    return (*new_params, *new_states)
