"""Autodiff: `grad`, `value_and_grad`, `GradOperation` on top of `jax.vjp`.

The function is made pure by *functionalising* the Parameters it is
differentiated against: their arrays are swapped for jax values for the call
and restored afterwards (also on error). State the function writes while being
differentiated (BatchNorm moving stats, the RNG state) is carried out of the
jax trace and written back with concrete values, so nothing leaks.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, ParamSpec, Sequence, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from . import tensor as tensor_mod
from .autograd_int import integer_input_grads
from .capture.builder import GraphBuilder, current_builder
from .capture.session import swapped_parameters, write_log
from .eager import grad as eager_grad, tensor_hooks
from .eager.tape import Fallback
from .errors import CaptureFallback, ContextError, GradError, user_loc
from .ir.control import GRAD
from .ir.gradient_path import gradient_while
from .ops.primitive import recording
from .parallel import local_norm, spmd
from .parallel.context import get_parallel_mode
from .tensor import Parameter, Tensor
from .ops.functional import zeros_like


WHILE_GRADIENT = ("ops.WhileLoop / ForiLoop: a gradient through a loop whose trip count depends on tensor values "
                  "cannot be compiled (jax differentiates no while loop); the call runs in Python, where the loop's "
                  "gradient is MindSpore's. Use ForiLoop with int bounds and unroll=False (a Scan node) for a "
                  "compiled, differentiable loop")


def _positions(grad_position) -> tuple[tuple[int, ...] | None, bool]:
    """(positions, single) from an int, a tuple of ints or None."""
    if grad_position is None:
        return None, False
    if isinstance(grad_position, int):
        return (grad_position,), True
    if isinstance(grad_position, (tuple, list)) and all(isinstance(p, int) for p in grad_position):
        return tuple(grad_position), False
    raise GradError(f"grad_position must be an int, a tuple of ints or None, got {grad_position!r}")


def _weights(weights) -> list[Parameter] | None:
    if weights is None:
        return None
    if isinstance(weights, Parameter):
        return [weights]
    weights = list(weights)
    bad = [type(w).__name__ for w in weights if not isinstance(w, Parameter)]
    if bad:
        raise GradError(f"weights must be Parameters, got {bad[0]}")
    return weights


@contextlib.contextmanager
def _functionalised(params: Sequence[Parameter], arrays: Sequence[Any]):
    """Swap `params`' arrays for `arrays` and log state writes; restore everything on exit (the state writes of
    a failed call too: no tracer may leak out)."""
    with swapped_parameters(params, arrays), write_log("on_error") as log:
        yield log


def _to_arrays(out) -> Any:
    return jax.tree_util.tree_map(lambda t: t._data if isinstance(t, Tensor) else jnp.asarray(t), out,
                                  is_leaf=lambda t: isinstance(t, Tensor))


def _to_tensors(out) -> Any:
    return jax.tree_util.tree_map(Tensor._from, out)


def _ones_cotangent(x):
    if jnp.issubdtype(x.dtype, jnp.inexact):
        return jnp.ones(x.shape, x.dtype)
    return np.zeros(x.shape, jax.dtypes.float0)


def _zeros_for(x: Tensor) -> Tensor:
    """The gradient of a frozen Parameter; inside a capture it is an op of the graph, not a stray jax value."""
    if recording.recorder is not None:
        return zeros_like(x)
    return Tensor._from(jnp.zeros(x.shape, x._data.dtype))


def vjp_call(fn: Callable, args: tuple, kwargs: dict, positions: tuple[int, ...] | None,
             params: list[Parameter] | None, has_aux: bool, sens=None):
    """Run `fn(*args)` and differentiate it; returns (value, arg grads, param grads) as Tensors.

    The whole call holds `PARAMETER_LOCK`: it reads the Parameters' arrays, swaps them for jax values while
    `fn` runs and writes state back, none of which another thread may interleave with."""
    with tensor_mod.PARAMETER_LOCK:
        value, arg_grads, param_grads = _vjp_call(fn, args, kwargs, positions, params, has_aux, sens)
    # global view with dump_local_norm / dump_device_local_norm: the gradients' norms (MindSpore's mirror bprop)
    return value, arg_grads, local_norm.observe(params or [], param_grads)


def _vjp_call(fn: Callable, args: tuple, kwargs: dict, positions: tuple[int, ...] | None,
              params: list[Parameter] | None, has_aux: bool, sens=None):
    positions = positions or ()
    params = params or []
    for i in positions:
        if i >= len(args) or not isinstance(args[i], Tensor):
            got = type(args[i]).__name__ if i < len(args) else "nothing"
            raise GradError(f"grad_position {i}: expected a Tensor argument, got {got} "
                            f"(the function was called with {len(args)} positional arguments)")
    trainable = [p for p in params if p.requires_grad]
    if recording.recorder is None and recording.converter is None and current_builder() is None \
            and spmd.global_batch():
        raise ContextError(f"{getattr(fn, '__name__', 'grad')}: PyNative gradients in a multi-process "
                           f"{get_parallel_mode()} job would differentiate each process's slice of the batch alone, "
                           f"not the global view's whole batch; wrap the step in msx.jit (capture_mode='ast')")
    if recording.recorder is None and recording.converter is None and eager_grad.usable(fn, args, positions,
                                                                                         trainable):
        try:  # PyNative: the eager tape of compiled VJPs (msx.eager); what it cannot follow takes the path below
            return eager_grad.tape_vjp_call(fn, args, kwargs, positions, params, trainable, has_aux, sens)
        except Fallback:
            eager_grad.remember_fallback(fn)
    arg_arrays = [args[i]._data for i in positions]
    param_arrays = [p._data for p in trainable]
    written_objs: list[Tensor] = []
    outer = current_builder()
    body = GraphBuilder(f"{getattr(fn, '__name__', type(fn).__name__)}_grad_body", outer) if outer else None
    if body is not None:
        body.runs_always = True  # a check on the index of a switched cell inside it may go to the root graph

    def pure(arg_arrays, param_arrays):
        new_args = list(args)
        for i, a in zip(positions, arg_arrays):
            new_args[i] = Tensor._from(a)
        with _functionalised(trainable, param_arrays) as log, (body.active() if body else contextlib.nullcontext()):
            if body is not None:
                for i in positions:
                    body.add_input(new_args[i], f"arg{i}")
                for p in trainable:
                    body.add_input(p, p.name)
            converter = recording.converter  # source capture: the user's function is captured from its source
            out = fn(*new_args, **kwargs) if converter is None else converter(fn, tuple(new_args), kwargs)
            if body is not None:
                body.set_outputs(_leaves(out))
            out = _to_arrays(out)  # before the writes are undone: an in-place write to an output is kept
            writes = _collect_writes(log)
        written_objs[:] = [obj for obj, _ in writes]
        new_state = [w for _, w in writes]
        if not has_aux:
            return out, ((), new_state)
        if not isinstance(out, (tuple, list)) or len(out) < 2:
            raise GradError("has_aux=True needs the function to return (output, aux, ...)")
        return out[0], (tuple(out[1:]), new_state)

    sens_arrays = None if sens is None else _to_arrays(sens)
    if body is not None and body.capture_values != "run":
        main, aux, new_state, (g_args, g_params) = _recorded_forward(pure, arg_arrays, param_arrays, sens_arrays,
                                                                      body.capture_values)
    else:
        main, vjp_fn, (aux, new_state) = jax.vjp(pure, arg_arrays, param_arrays, has_aux=True)
        g_args, g_params = vjp_fn(_ones_like_tree(main) if sens is None else _sens_like(main, sens_arrays))
    value = _to_tensors((main,) + aux if has_aux else main)
    arg_grads = tuple(_grad_tensor(g, args[i]) for g, i in zip(g_args, positions))
    arg_grads = integer_input_grads(fn, args, kwargs, positions, arg_grads, has_aux, sens, body is not None)
    trainable_grads = [_grad_tensor(g, p) for p, g in zip(trainable, g_params)]
    state = [Tensor._from(new) for new in new_state]
    given_out = None
    if body is not None:
        given_out = _record_grad_node(outer, body, args, positions, trainable, sens, has_aux,
                                      _leaves(value) + list(arg_grads) + trainable_grads,
                                      dict(zip(map(id, written_objs), state)))
    for obj, new in zip(written_objs, state):
        if given_out is not None and id(obj) not in given_out:
            continue  # captured: the state the body writes (Parameters, Tensors from outside it) is the Grad
            # node's outputs, written back below; a Tensor the body made itself is local to it
        # a write, not a plain assignment: an enclosing grad (nested autodiff) or capture must see it too
        obj._rebind(new)
    # hooks registered on an input or a Parameter before the call (msx.eager.tensor_hooks); under a capture
    # their ops follow the Grad node, whose outputs they read
    arg_grads = tuple(tensor_hooks.run_on_leaves([args[i] for i in positions], list(arg_grads)))
    trainable_grads = tensor_hooks.run_on_leaves(trainable, trainable_grads)
    by_id = {id(p): g for p, g in zip(trainable, trainable_grads)}
    param_grads = tuple(by_id[id(p)] if id(p) in by_id else _zeros_for(p) for p in params)
    return value, arg_grads, param_grads


def _recorded_forward(pure: Callable, arg_arrays: list, param_arrays: list, sens_arrays, mode: str) -> tuple:
    """A capture's differentiated call: the forward recorded into the body, the gradients stand-ins.

    The graph's `Grad` node computes the gradients when it runs (its lowering is `jax.vjp` of the body), so the
    capture needs of them only their types, which are the differentiated inputs' (`float0` for an integer).
    `mode` "abstract" (ast: inside `jax.eval_shape` already) records the forward on its tracers and stages the
    stand-ins; "unread" (bytecode, on the call's values) records it under `jax.eval_shape` and makes
    stand-in zeros on the host. Running `jax.vjp` instead cost a linearization of the forward (EfficientNet-B0:
    1.3 s of a 2.9 s capture) and, on values, one XLA compile per primitive (ResNet-18's step: 201, 8 s)."""
    def forward(arg_arrays, param_arrays):
        main, (aux, new_state) = pure(arg_arrays, param_arrays)
        if sens_arrays is not None:
            _sens_like(main, sens_arrays)
        return main, aux, new_state

    grads = ([_tangent_struct(a) for a in arg_arrays], [_tangent_struct(p) for p in param_arrays])
    if mode == "abstract":
        main, aux, new_state = forward(arg_arrays, param_arrays)
        return main, aux, new_state, jax.tree_util.tree_map(lambda g: _zeros(g, True), grads)
    host = lambda struct: _zeros(struct, False)  # noqa: E731
    main, aux, new_state = jax.tree_util.tree_map(host, jax.eval_shape(forward, arg_arrays, param_arrays))
    return main, aux, new_state, jax.tree_util.tree_map(host, grads)


def _tangent_struct(x) -> jax.ShapeDtypeStruct:
    dtype = x.dtype if jnp.issubdtype(x.dtype, jnp.inexact) else jax.dtypes.float0
    return jax.ShapeDtypeStruct(np.shape(x), dtype)


def _zeros(struct: jax.ShapeDtypeStruct, staged: bool):
    """A stand-in of `struct`'s type: staged in the enclosing trace, or a host array (no compile either way)."""
    if struct.dtype == jax.dtypes.float0:
        return np.zeros(struct.shape, jax.dtypes.float0)
    if staged:
        return jnp.zeros(struct.shape, struct.dtype)
    return tensor_mod.host_array(np.zeros(struct.shape, struct.dtype), owned=True)


def _sens_like(main, sens_arrays):
    """`sens` (the cotangent of the output) in the output's structure, each with its shape and dtype, as
    `jax.vjp` needs; as in MindSpore's PyNative, the leaves may come in another container (`(s,)` for `s`)."""
    leaves, want = jax.tree_util.tree_leaves(main), jax.tree_util.tree_leaves(sens_arrays)
    if len(leaves) != len(want):
        raise GradError(f"sens_param: the sensitivity must have the structure of the function's output, "
                        f"{_types_of(main)}; got {_types_of(sens_arrays)}", loc=user_loc())
    for k, (m, g) in enumerate(zip(leaves, want)):
        tangent = _tangent_struct(m)
        if tuple(np.shape(g)) != tangent.shape or np.dtype(g.dtype) != np.dtype(tangent.dtype):
            raise GradError(f"sens_param: sensitivity {k} is {np.dtype(g.dtype).name}{list(np.shape(g))} but the "
                            f"function's output {k} is {np.dtype(m.dtype).name}{list(np.shape(m))} (the "
                            f"sensitivity needs its shape and dtype)", loc=user_loc())
    return jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(main), want)


def _types_of(tree) -> str:
    return str(jax.tree_util.tree_map(lambda a: f"{np.dtype(a.dtype).name}{list(np.shape(a))}", tree)).replace("'", "")


def _leaves(tree) -> list:
    return jax.tree_util.tree_leaves(tree, is_leaf=lambda t: isinstance(t, Tensor))


def _record_grad_node(outer: GraphBuilder, body: GraphBuilder, args: tuple, positions: tuple, trainable: list,
                      sens, has_aux: bool, results: list, state_by_id: dict) -> set[int]:
    """Capture: one `Grad` node over the body subgraph, whose outputs are the eager results. Returns the ids of
    the objects whose writes it gives out (written back by the caller)."""
    sub = body.finish()
    args_in, params_in = [outer.operand(args[i]) for i in positions], [outer.operand(p) for p in trainable]
    free = [value for value, _ in body.free]
    sens_in = [outer.operand(s) for s in (_leaves(sens) if sens is not None else [])]
    states = [state_by_id[id(obj)] for obj in sub.updated]
    node = GRAD.make(sub.graph, args_in, params_in, free, sens_in, has_aux=has_aux)
    if outer.capture_values == "unread" and gradient_while(node) is not None:
        # (ast checks the whole graph when its capture ends; trace's jax.vjp meets the loop's backward itself)
        raise CaptureFallback(WHILE_GRADIENT)
    outer.add_node(node, results + states)
    return {id(obj) for obj in sub.updated}


def _collect_writes(log) -> list[tuple[Tensor, Any]]:
    """State written during the differentiated call as (object, new array); each object gets its old array back."""
    first_old: dict[int, Any] = {}
    objs: list[Tensor] = []
    for obj, old in log:
        if id(obj) not in first_old:
            first_old[id(obj)] = old
            objs.append(obj)
    writes = [(obj, obj._data) for obj in objs]
    for obj in objs:
        obj._data = first_old[id(obj)]
    return writes


def _ones_like_tree(x):
    return jax.tree_util.tree_map(_ones_cotangent, x)


def _grad_tensor(g, like: Tensor) -> Tensor:
    if getattr(g, "dtype", None) == jax.dtypes.float0:
        return _zeros_for(like)
    return Tensor._from(g)


def _pack(arg_grads: tuple, param_grads: tuple, single: bool, has_positions: bool, has_weights: bool):
    args_part = arg_grads[0] if single else arg_grads
    if has_positions and has_weights:
        return args_part, param_grads
    if has_weights:
        return param_grads
    return args_part


_P = ParamSpec("_P")
_R = TypeVar("_R")


def value_and_grad(fn: Callable[_P, _R], grad_position: Any = 0, weights: Any = None,
                   has_aux: bool = False, return_ids: bool = False,
                   sens_param: bool = False) -> Callable[_P, tuple[_R, Any]]:
    """MindSpore's `value_and_grad`: returns `f(*args) -> (value, grads)`.

    grads follow MindSpore: the input grad(s) for `grad_position` (a Tensor for an
    int, a tuple for a tuple), the weight grads (a tuple) when `grad_position=None`,
    or `(input grads, weight grads)` when both are given. With `has_aux=True`,
    `fn` returns `(loss, aux...)` and only `loss` is differentiated. `return_ids=True`
    pairs each gradient with what it is the gradient of (see `grad`). With `sens_param=True`
    the last positional argument is the output's sensitivity (its cotangent, shaped like the
    output, or like the first output with `has_aux`) instead of ones; it is not passed to `fn`.
    """
    positions, single = _positions(grad_position)
    params = _weights(weights)
    if positions is None and params is None:
        raise GradError("value_and_grad: grad_position and weights cannot both be None")
    label = _id_labeller(grad_position, params) if return_ids else None

    def value_and_grad_fn(*args, **kwargs):
        sens = None
        if sens_param:
            if not args:
                raise GradError(f"value_and_grad(sens_param=True) of {getattr(fn, '__name__', 'fn')}: the last "
                                f"positional argument must be the sensitivity, but none was given")
            *args, sens = args
        value, arg_grads, param_grads = vjp_call(fn, tuple(args), kwargs, positions, params, has_aux, sens)
        grads = _pack(arg_grads, param_grads, single, positions is not None, params is not None)
        return value, (grads if label is None else label(grads))

    value_and_grad_fn.__wrapped__ = fn
    return value_and_grad_fn


def grad(fn: Callable, grad_position=0, weights=None, has_aux: bool = False, return_ids: bool = False,
         sens_param: bool = False) -> Callable:
    """MindSpore's `grad`: like `value_and_grad` without the value (aux is returned after the grads).

    `return_ids=True` pairs each gradient with what it is the gradient of, as MindSpore does: `(position,
    grad)` for an input, `(parameter name, grad)` for a weight; `get_grad` picks one out. `sens_param=True`
    takes the output's sensitivity as the last positional argument (see `value_and_grad`)."""
    vg = value_and_grad(fn, grad_position, weights, has_aux, return_ids, sens_param)

    def grad_fn(*args, **kwargs):
        value, grads = vg(*args, **kwargs)
        return (grads, value[1:]) if has_aux else grads

    grad_fn.__wrapped__ = fn
    return grad_fn


def _id_labeller(grad_position, params: list[Parameter] | None) -> Callable:
    """A function that pairs `grad`'s results with their positions and parameter names (`return_ids`)."""
    def by_position(g):
        if isinstance(grad_position, int):
            return grad_position, g
        return tuple((i, gi) for i, gi in zip(grad_position, g))

    def by_name(g):
        return tuple((p.name, gi) for p, gi in zip(params, g))

    if params is None:
        return by_position
    if grad_position is None:
        return by_name
    return lambda g: (by_position(g[0]), by_name(g[1]))


def get_grad(gradients, identifier):
    """MindSpore's `get_grad`: the gradient of `identifier` (an input position or a Parameter) out of the
    results of `grad(..., return_ids=True)`."""
    key = identifier.name if isinstance(identifier, Parameter) else identifier
    if not isinstance(key, (int, str)) or isinstance(key, bool):
        raise GradError(f"get_grad: the identifier must be an input position (int) or a Parameter, "
                        f"got {type(identifier).__name__}")
    stack = [gradients]
    while stack:
        item = stack.pop()
        if not isinstance(item, tuple):
            continue
        if len(item) == 2 and isinstance(item[1], Tensor) and type(item[0]) is type(key) and item[0] == key:
            return item[1]
        stack.extend(reversed(item))
    raise GradError(f"get_grad: can not find the gradient for position or Parameter {identifier!r} "
                    f"(grad(..., return_ids=True) returned no gradient under that id)")


class GradOperation:
    """MindSpore's `ops.GradOperation(get_all=False, get_by_list=False, sens_param=False)`.

    `GradOperation(...)(fn[, weights])` returns a function of fn's inputs giving:
    the first input's grad; all inputs' grads (`get_all`); the weights' grads
    (`get_by_list`); or both as a pair. With `sens_param`, the last input is the
    output's sensitivity (the cotangent) instead of ones.
    """

    def __init__(self, get_all: bool = False, get_by_list: bool = False, sens_param: bool = False) -> None:
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param

    def __call__(self, fn: Callable, weights=None) -> Callable:
        if self.get_by_list and weights is None:
            raise GradError("GradOperation(get_by_list=True) needs weights: grad_op(fn, weights)")
        params = _weights(weights) if self.get_by_list else None

        def grad_fn(*args):
            sens = None
            if self.sens_param:
                if not args:
                    raise GradError("GradOperation(sens_param=True): the last input must be the sensitivity")
                *args, sens = args
                args = tuple(args)
            positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor)) if self.get_all else (0,)
            _, arg_grads, param_grads = vjp_call(fn, args, {}, positions, params, False, sens)
            if self.get_by_list and self.get_all:
                return arg_grads, param_grads
            if self.get_by_list:
                return param_grads
            return arg_grads if self.get_all else arg_grads[0]

        return grad_fn
