"""MindSpore's functional transforms `vmap`, `vjp`, `jvp`, `jacrev`, `jacfwd`, on jax's.

The msx function is run on jax values wrapped as Tensors, so every op inside is an ordinary msx op. State
writes (BatchNorm moving statistics, the RNG state of dropout) cannot leave a jax transform with a
value, so a function that writes state is refused with a clear error (and its writes are undone).
Inside a `jit` capture, `vmap` records one `Vmap` node over the mapped function's subgraph (captured at one
example's shapes, the way `grad` records a `Grad` node), so per-sample gradients compile into the graph as
MindSpore's GRAPH_MODE compiles them; `vjp` is a `Grad` node with the cotangent as its sensitivity, `jacrev`
and `jacfwd` a `Vmap` of that over the output's basis (reverse mode for both: the same values), and `jvp` the
transpose of the vjp (a `Grad` of the linear map u -> vjp(u) . v), so nothing leaves the graph.
"""
from __future__ import annotations

from typing import Any, Callable

import jax
import numpy as np
from jax._src.api_util import flatten_axes

from . import tensor as tensor_mod
from .autograd import vjp_call
from .capture.builder import GraphBuilder, current_builder
from .errors import GradError
from .ir.control import VMAP
from .ops import functional as F
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
        return _arrays(_refusing_writes(fn, _tensors(arrays), name))

    return pure


def _refusing_writes(fn: Callable, tensors: tuple, name: str):
    """`fn(*tensors)`, its state writes undone and refused: they cannot leave the jax transform `name`."""
    log: list = []
    tensor_mod._WRITE_LOGS.append(log)
    try:
        out = fn(*tensors)
    finally:
        tensor_mod._WRITE_LOGS.pop()
        for obj, old in reversed(log):
            obj._data = old
    if log:
        raise GradError(f"{name}: the function writes state ({type(log[0][0]).__name__} "
                        f"{getattr(log[0][0], 'name', '')!s}); state writes cannot leave {name}")
    return out


def _eager_only(name: str) -> None:
    if recording.recorder is not None:
        raise GradError(f"{name} is not supported inside a jit capture yet; call it outside the jitted function")


def _position_tuple(grad_position) -> tuple[tuple[int, ...], bool]:
    if isinstance(grad_position, int):
        return (grad_position,), True
    return tuple(grad_position), False


def _axes(axes):
    """MindSpore's in_axes/out_axes spelling as jax's: a list is a tuple of per-argument entries."""
    return tuple(_axes(a) for a in axes) if isinstance(axes, (list, tuple)) else axes


def vmap(fn: Callable, in_axes=0, out_axes=0) -> Callable:
    """Vectorise `fn` over a batch axis of its inputs (`in_axes`) into `out_axes` of its outputs."""
    in_axes, out_axes = _axes(in_axes), _axes(out_axes)

    def batched(*args):
        outer = current_builder()
        if outer is not None:
            return _captured_vmap(outer, fn, args, in_axes, out_axes)
        _eager_only("vmap")
        return _tensors(jax.vmap(_pure(fn, "vmap"), in_axes=in_axes, out_axes=out_axes)(*_arrays(args)))

    return batched


def _leaves(tree) -> list:
    return jax.tree_util.tree_leaves(tree, is_leaf=lambda t: isinstance(t, Tensor))


def _captured_vmap(outer: GraphBuilder, fn: Callable, args: tuple, in_axes, out_axes):
    """Inside a capture: `fn` runs under jax.vmap on one example's Tensors while a body builder records it;
    the outer graph gets one `Vmap` node whose outputs are the batched results."""
    arrays = _arrays(args)
    leaves, tree = jax.tree_util.tree_flatten(arrays)
    axes = [None if a is None else a % max(jax.numpy.ndim(x), 1)
            for x, a in zip(leaves, flatten_axes("vmap in_axes", tree, in_axes))]
    sizes = {jax.numpy.shape(x)[a] for x, a in zip(leaves, axes) if a is not None}
    if len(sizes) != 1:
        raise GradError(f"vmap: in_axes {in_axes!r} must map at least one input, and every mapped axis must have "
                        f"one size; got sizes {sorted(sizes)}")
    name = getattr(fn, "__name__", type(fn).__name__)
    body = GraphBuilder(f"{name}_vmap_body", outer)
    out_tree: list = []

    def pure(*xs):
        tensors = _tensors(xs)
        with body.active():
            for i, t in enumerate(_leaves(tensors)):
                body.add_input(t, f"arg{i}")
            converter = recording.converter  # source capture: the user's function is captured from its source
            out = _refusing_writes(fn if converter is None else (lambda *a: converter(fn, a, {})), tensors, "vmap")
            body.set_outputs(_leaves(out))
        out = _arrays(out)
        out_tree[:] = [jax.tree_util.tree_structure(out)]
        return out

    results = _tensors(jax.vmap(pure, in_axes=in_axes, out_axes=out_axes)(*arrays))
    sub = body.finish()
    flat_out = _leaves(results)
    axes_out = [None if a is None else a % t.ndim
                for t, a in zip(flat_out, flatten_axes("vmap out_axes", out_tree[0], out_axes))]
    free = [value for value, _ in body.free]
    node = VMAP.make(sub.graph, [outer.operand(x) for x in _leaves(args)] + free,
                     in_axes=tuple(axes) + (None,) * len(free), out_axes=tuple(axes_out), axis_size=sizes.pop())
    outer.add_node(node, flat_out)
    return results


def vjp(fn: Callable, *inputs, weights=None, has_aux: bool = False):
    """(outputs, vjp_fn): `vjp_fn(v)` gives the input gradients of `sum(outputs * v)`, as a tuple."""
    if weights is not None:
        raise GradError("vjp: weights are not supported; differentiate Parameters with msx.grad(weights=...)")
    if current_builder() is not None:
        return _captured_vjp(fn, inputs, has_aux)
    _eager_only("vjp")
    out, pullback, *aux = jax.vjp(_pure(fn, "vjp"), *_arrays(inputs), has_aux=has_aux)

    def vjp_fn(*v):
        cot = _arrays(v[0] if len(v) == 1 else v)
        return tuple(_tensors(pullback(cot)))

    return (_tensors(out), vjp_fn, _tensors(aux[0])) if has_aux else (_tensors(out), vjp_fn)


def _differentiated(out, has_aux: bool, name: str) -> Tensor:
    """The one Tensor a capture-time transform differentiates (the first output when has_aux): they build on
    `grad`, whose sensitivity is one Tensor."""
    out = out[0] if has_aux else out
    if not isinstance(out, Tensor):
        raise GradError(f"{name} inside jit: the function must return one Tensor{' (then its aux)' * has_aux}, "
                        f"got {type(out).__name__}; call {name} outside the jitted function for other outputs")
    return out


def _single_output(fn: Callable, has_aux: bool, name: str) -> Callable:
    return lambda *args: _differentiated(fn(*args), has_aux, name)


def _pullback(f: Callable, inputs: tuple, positions: tuple[int, ...]) -> Callable:
    """cotangent -> the gradients of `sum(f(*inputs) * cotangent)` at `positions` (a `Grad` node each call)."""
    def pull(cot: Tensor) -> tuple:
        return vjp_call(f, tuple(inputs), {}, positions, None, False, sens=cot)[1]
    return pull


def _captured_vjp(fn: Callable, inputs: tuple, has_aux: bool):
    out = fn(*inputs)
    positions = tuple(i for i, x in enumerate(inputs) if isinstance(x, Tensor))
    pull = _pullback(_single_output(fn, has_aux, "vjp"), inputs, positions)

    def vjp_fn(*v):
        return tuple(pull(v[0] if len(v) == 1 else v))

    return (out[0], vjp_fn, *out[1:2]) if has_aux else (out, vjp_fn)


def jvp(fn: Callable, inputs, v, has_aux: bool = False):
    """(outputs, the directional derivative of the outputs along `v`)."""
    single = isinstance(inputs, Tensor)
    primals = (inputs,) if single else tuple(inputs)
    tangents = (v,) if isinstance(v, Tensor) else tuple(v)
    if current_builder() is not None:
        return _captured_jvp(fn, primals, tangents, has_aux)
    _eager_only("jvp")
    result = jax.jvp(_pure(fn, "jvp"), _arrays(primals), _arrays(tangents), has_aux=has_aux)
    return tuple(_tensors(r) for r in result)


def _captured_jvp(fn: Callable, primals: tuple, tangents: tuple, has_aux: bool):
    """J v as the gradient of the linear map u -> <vjp(u), v> (any u: it is linear), a Grad over a Grad."""
    out = fn(*primals)
    value = _differentiated(out, has_aux, "jvp")
    pull = _pullback(_single_output(fn, has_aux, "jvp"), primals, tuple(range(len(primals))))

    def along_v(u):
        return sum((g * t).sum() for g, t in zip(pull(u), tangents))

    tangent = vjp_call(along_v, (F.zeros_like(value),), {}, (0,), None, False)[1][0]
    return (value, tangent, *out[1:2]) if has_aux else (value, tangent)


def _captured_jacobian(fn: Callable, args: tuple, positions: tuple[int, ...], single: bool, has_aux: bool,
                       kind: str):
    """Each input's Jacobian as a Vmap of the pullback over the basis of the output (one row per entry)."""
    out = fn(*args)
    value, f = _differentiated(out, has_aux, kind), _single_output(fn, has_aux, kind)
    n = int(np.prod(value.shape))
    basis = F.eye(n, n, value.dtype).reshape((n, *value.shape))
    rows = vmap(_pullback(f, args, positions))(basis)
    jac = tuple(r.reshape((*value.shape, *args[p].shape)) for r, p in zip(rows, positions))
    result = jac[0] if single else jac
    return (result, out[1]) if has_aux else result


def _jacobian(kind: str, jax_fn: Callable, fn: Callable, grad_position, has_aux: bool) -> Callable:
    positions, single = _position_tuple(grad_position)

    def jac(*args):
        if current_builder() is not None:
            return _captured_jacobian(fn, args, positions, single, has_aux, kind)
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
