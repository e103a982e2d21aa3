"""MindSpore's functional transforms `vmap`, `vjp`, `jvp`, `jacrev`, `jacfwd`, on jax's.

The msx function is run on jax values wrapped as Tensors, so every op inside is an ordinary msx op. State
writes (BatchNorm moving statistics, the RNG state of dropout) cannot leave a jax transform with a
value, so a function that writes state is refused with a clear error (and its writes are undone). These
transforms run eagerly; inside a `jit` capture they raise, naming the transform, instead of being
silently left out of the graph.
"""
from __future__ import annotations

from typing import Any, Callable

import jax

from . import tensor as tensor_mod
from .errors import GradError
from .ops.primitive import recording
from .tensor import Tensor


def _arrays(tree) -> Any:
    return jax.tree_util.tree_map(lambda t: t._data if isinstance(t, Tensor) else t, tree,
                                  is_leaf=lambda t: isinstance(t, Tensor))


def _tensors(tree) -> Any:
    return jax.tree_util.tree_map(Tensor._from, tree)


def _pure(fn: Callable, name: str) -> Callable:
    """`fn` over jax arrays: inputs wrapped as Tensors, outputs unwrapped; state writes refused."""
    def pure(*arrays):
        log: list = []
        tensor_mod._WRITE_LOGS.append(log)
        try:
            out = fn(*_tensors(arrays))
        finally:
            tensor_mod._WRITE_LOGS.pop()
            for obj, old in reversed(log):
                obj._data = old
        if log:
            raise GradError(f"{name}: the function writes state ({type(log[0][0]).__name__} "
                            f"{getattr(log[0][0], 'name', '')!s}); state writes cannot leave {name}")
        return _arrays(out)

    return pure


def _eager_only(name: str) -> None:
    if recording.recorder is not None:
        raise GradError(f"{name} is not supported inside a jit capture yet; call it outside the jitted function")


def _position_tuple(grad_position) -> tuple[tuple[int, ...], bool]:
    if isinstance(grad_position, int):
        return (grad_position,), True
    return tuple(grad_position), False


def vmap(fn: Callable, in_axes=0, out_axes=0) -> Callable:
    """Vectorise `fn` over a batch axis of its inputs (`in_axes`) into `out_axes` of its outputs."""
    def batched(*args):
        _eager_only("vmap")
        return _tensors(jax.vmap(_pure(fn, "vmap"), in_axes=in_axes, out_axes=out_axes)(*_arrays(args)))

    return batched


def vjp(fn: Callable, *inputs, weights=None, has_aux: bool = False):
    """(outputs, vjp_fn): `vjp_fn(v)` gives the input gradients of `sum(outputs * v)`, as a tuple."""
    _eager_only("vjp")
    if weights is not None:
        raise GradError("vjp: weights are not supported; differentiate Parameters with msx.grad(weights=...)")
    out, pullback, *aux = jax.vjp(_pure(fn, "vjp"), *_arrays(inputs), has_aux=has_aux)

    def vjp_fn(*v):
        cot = _arrays(v[0] if len(v) == 1 else v)
        return tuple(_tensors(pullback(cot)))

    return (_tensors(out), vjp_fn, _tensors(aux[0])) if has_aux else (_tensors(out), vjp_fn)


def jvp(fn: Callable, inputs, v, has_aux: bool = False):
    """(outputs, the directional derivative of the outputs along `v`)."""
    _eager_only("jvp")
    single = isinstance(inputs, Tensor)
    primals = (inputs,) if single else tuple(inputs)
    tangents = (v,) if isinstance(v, Tensor) else tuple(v)
    result = jax.jvp(_pure(fn, "jvp"), _arrays(primals), _arrays(tangents), has_aux=has_aux)
    return tuple(_tensors(r) for r in result)


def _jacobian(kind: str, jax_fn: Callable, fn: Callable, grad_position, has_aux: bool) -> Callable:
    positions, single = _position_tuple(grad_position)

    def jac(*args):
        _eager_only(kind)
        arrays = list(_arrays(args))

        def of_positions(*xs):
            full = list(arrays)
            for p, x in zip(positions, xs):
                full[p] = x
            return _pure(fn, kind)(*full)

        out = jax_fn(of_positions, argnums=tuple(range(len(positions))), has_aux=has_aux)(
            *[arrays[p] for p in positions])
        jac_part, aux = (out if has_aux else (out, None))
        result = _tensors(jac_part[0] if single else tuple(jac_part))
        return (result, _tensors(aux)) if has_aux else result

    return jac


def jacrev(fn: Callable, grad_position=0, has_aux: bool = False) -> Callable:
    """The Jacobian of `fn` with respect to the inputs at `grad_position`, by reverse mode."""
    return _jacobian("jacrev", jax.jacrev, fn, grad_position, has_aux)


def jacfwd(fn: Callable, grad_position=0, has_aux: bool = False) -> Callable:
    """The Jacobian of `fn` with respect to the inputs at `grad_position`, by forward mode."""
    return _jacobian("jacfwd", jax.jacfwd, fn, grad_position, has_aux)
