"""A Cell call with a custom backward: `Cell.bprop`, backward (pre-)hooks and `Cell.recompute`, in eager.

msx differentiates by tracing eager ops under `jax.vjp` (msx.autograd). A Cell
that changes its own backward is run here as one pure jax function of
(tensor inputs, parameter arrays), wrapped in `jax.custom_vjp` (bprop, hooks)
or `jax.checkpoint` (recompute); outside a gradient that costs one extra
Python call. The Parameters are explicit inputs so no tracer is closed over.

Capture: `custom_backward_call(cell, args, kwargs)` is the one entry point,
eagerly and while a capture records (`msx.ops.primitive.recording.recorder`
set). Recording, a Cell with `bprop` becomes ONE node: a custom primitive
(`<Cell>.bprop#<id>`, category "custom") whose inputs are the Cell's Tensor
arguments and the Parameters it reads and whose implementation is the same
`jax.custom_vjp` as eagerly, so a Grad node over it (and the compiled graph)
uses `bprop`. Its construct runs with recording off: inside the node it is
plain jax, traced again when the graph is lowered. Backward hooks under
capture are still refused by `Cell.run_construct` with a clear error.
"""
from __future__ import annotations

import contextlib
import weakref
from typing import Any

import jax
import jax.numpy as jnp

from ..eager import tape as eager_tape
from ..ops.custom.op import CUSTOM_OPS, CustomOpInfo, install
from ..ops.primitive import REGISTRY, apply, recording
from ..capture.session import not_recording
from ..errors import CaptureError
from ..ir.recompute import policy_on, recomputed
from ..tensor import Parameter, Tensor


def _leaves(out) -> list:
    return jax.tree_util.tree_leaves(out, is_leaf=lambda t: isinstance(t, Tensor))


def runs_as_jax(cell) -> bool:
    """A Cell whose construct is one jax computation differentiated by jax itself (`nn.PipelineCell` over
    several stages: its schedule is a `jax.custom_vjp`): one node, eagerly and while capturing."""
    own = getattr(type(cell), "runs_as_jax", None)
    return own is not None and own(cell)


def records_as_one_node(cell) -> bool:
    """While capturing, a Cell with `bprop` or `recompute` is one node whose implementation keeps its backward
    (the bprop, or `jax.checkpoint`), so the compiled graph differentiates it as PyNative does."""
    return callable(getattr(type(cell), "bprop", None)) or cell.__dict__.get("_recompute", False) or runs_as_jax(cell)


def checkpointed(cell, pure):
    """`pure` rematerialised in the backward pass: `jax.checkpoint` with the Cell's policy (None: save nothing
    but the inputs, MindSpore's full recompute). Inside a gradient over a graph with a per-primitive recompute
    mark, whose policy would overrule a nested checkpoint's, it is one `msx_recompute` call that keeps its
    inputs and outputs (the same meaning; msx.ir.recompute)."""
    policy = cell.__dict__.get("_recompute_policy")
    if policy is None and policy_on():
        def kept(in_arrays, param_arrays):
            n = len(in_arrays)
            return recomputed(lambda *xs: pure(list(xs[:n]), list(xs[n:])), [*in_arrays, *param_arrays], keep=True)
        return kept
    return jax.checkpoint(pure, policy=policy)


def has_custom_backward(cell) -> bool:
    hooks = cell.__dict__.get("_hooks")
    return (callable(getattr(type(cell), "bprop", None)) or cell.__dict__.get("_recompute", False)
            or (hooks is not None and bool(hooks.backward or hooks.backward_pre)) or runs_as_jax(cell))


def pure_construct(cell, args, positions, params: list, kwargs: dict, treedef_box: list):
    """`construct` as a pure function of (the Tensor arguments' arrays, the Parameters' arrays): what jax's
    custom_vjp / checkpoint differentiate; the output's structure lands in `treedef_box`."""

    def pure(in_arrays, param_arrays):
        new_args = list(args)
        for i, a in zip(positions, in_arrays):
            new_args[i] = Tensor._from(a)
        saved = [p._data for p in params]
        try:
            for p, a in zip(params, param_arrays):
                p._data = a
            with _forward_context(cell):
                out = cell.construct(*new_args, **kwargs)
            written = [p.name for p, a in zip(params, param_arrays) if p._data is not a]
            if written:  # the write would be dropped with the rematerialised (or custom-differentiated) forward
                raise CaptureError(f"{type(cell).__name__}: a Cell with recompute or bprop writes its Parameters "
                                   f"{written} in construct (e.g. BatchNorm's moving statistics in training); "
                                   f"msx cannot keep such writes; recompute a sub-Cell without them")
        finally:
            for p, a in zip(params, saved):
                p._data = a
        flat, treedef = jax.tree_util.tree_flatten(out, is_leaf=lambda t: isinstance(t, Tensor))
        treedef_box[:] = [treedef]
        return [t._data if isinstance(t, Tensor) else jnp.asarray(t) for t in flat]

    return pure


@contextlib.contextmanager
def _forward_context(cell):
    """A recomputed Cell's forward: inside the first context of its `context_fn` (MindSpore's), with every
    `Primitive.recompute(False)` mark told that the whole Cell is recomputed (`recording.recompute_cell`)."""
    if not cell.__dict__.get("_recompute", False) or callable(getattr(type(cell), "bprop", None)):
        yield
        return
    context_fn = cell.__dict__.get("_recompute_context_fn")
    forward = contextlib.nullcontext()
    if context_fn is not None:
        pair = context_fn()
        if not (isinstance(pair, tuple) and len(pair) == 2
                and all(hasattr(c, "__enter__") and hasattr(c, "__exit__") for c in pair)):
            raise TypeError(f"{type(cell).__name__}.recompute: context_fn must return a tuple of two context "
                            f"managers, got {pair!r:.80}")
        if not isinstance(pair[1], contextlib.nullcontext):
            raise ValueError(f"{type(cell).__name__}.recompute: context_fn's second context (for the "
                             f"recomputation) cannot be entered by msx: the recomputation replays the traced "
                             f"forward inside the compiled backward pass, where no Python context runs; the "
                             f"first context applies to it too. Return contextlib.nullcontext() as the second")
        forward = pair[0]
    recording.recompute_cell += 1
    try:
        with forward:
            yield
    finally:
        recording.recompute_cell -= 1


def custom_backward_call(cell, args: tuple, kwargs: dict):
    """Run `cell.construct(*args, **kwargs)` so that gradients flow through `cell.bprop`, the backward hooks,
    or a rematerialised forward (recompute), as MindSpore's PyNative mode does; while a capture records, a
    Cell with `bprop` is recorded as one node that keeps it (see the module docstring)."""
    if recording.recorder is not None and records_as_one_node(cell):
        return _recorded_call(cell, args, kwargs)
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    params: list[Parameter] = list(cell.get_parameters())
    treedef_box: list[Any] = []

    pure = pure_construct(cell, args, positions, params, kwargs, treedef_box)

    in_arrays = [args[i]._data for i in positions]
    param_arrays = [p._data for p in params]
    if callable(getattr(type(cell), "bprop", None)):
        fn = _with_bprop(cell, args, positions, pure, treedef_box)
    elif cell.__dict__.get("_hooks") is not None and (cell._hooks.backward or cell._hooks.backward_pre):
        fn = _with_hooks(cell, pure)
    elif runs_as_jax(cell):
        fn = pure
    else:
        fn = checkpointed(cell, pure)
    tape = eager_tape.STATE.tape  # eager autograd tape: one node whose backward is this custom one
    flat = fn(in_arrays, param_arrays) if tape is None else tape.record_opaque(fn, in_arrays, param_arrays)
    return jax.tree_util.tree_unflatten(treedef_box[0], [Tensor._from(a) for a in flat])


def _with_bprop(cell, args, positions, pure, treedef_box):
    """MindSpore's `bprop(*inputs, out, dout) -> input grads`; Parameters used inside get zero gradients."""

    @jax.custom_vjp
    def fn(in_arrays, param_arrays):
        return pure(in_arrays, param_arrays)

    def fwd(in_arrays, param_arrays):
        out = pure(in_arrays, param_arrays)
        return out, (in_arrays, out, [jnp.zeros_like(p) for p in param_arrays])

    def bwd(res, dout):
        in_arrays, out, zero_params = res
        new_args = list(args)
        for i, a in zip(positions, in_arrays):
            new_args[i] = Tensor._from(a)
        unflat = lambda xs: jax.tree_util.tree_unflatten(treedef_box[0], [Tensor._from(x) for x in xs])  # noqa: E731
        with not_recording():   # a bprop runs inside jax's differentiation, not in a captured program
            grads = cell.bprop(*new_args, unflat(out), unflat(dout))
        grads = grads if isinstance(grads, (tuple, list)) else (grads,)
        if len(grads) != len(args):
            raise ValueError(f"{type(cell).__name__}.bprop returned {len(grads)} gradient(s) for {len(args)} "
                             f"input(s); it must return one per construct input")
        in_grads = []
        for i, x in zip(positions, in_arrays):
            g = grads[i]
            g = g._data if isinstance(g, Tensor) else jnp.asarray(g, x.dtype)
            if g.shape != x.shape:
                raise ValueError(f"{type(cell).__name__}.bprop: gradient {i} has shape {tuple(g.shape)}, "
                                 f"input {i} has shape {tuple(x.shape)}")
            in_grads.append(g.astype(x.dtype))
        return in_grads, zero_params

    fn.defvjp(fwd, bwd)
    return fn


def _with_hooks(cell, pure):
    """`backward_pre_hook(cell, grad_output)` may replace the output grads before the Cell's backward runs;
    `backward_hook(cell, grad_input, grad_output)` may replace the input grads after it (MindSpore's order)."""

    @jax.custom_vjp
    def fn(in_arrays, param_arrays):
        return pure(in_arrays, param_arrays)

    def fwd(in_arrays, param_arrays):
        out, vjp_fn = jax.vjp(pure, in_arrays, param_arrays)
        return out, vjp_fn

    def bwd(vjp_fn, dout):
        grad_output = tuple(Tensor._from(d) for d in dout)
        for hook in list(cell._hooks.backward_pre.values()):
            new = hook(cell, grad_output)
            if new is not None:
                grad_output = _as_grad_tuple(new, grad_output, "backward_pre_hook")
        g_in, g_params = vjp_fn([g._data for g in grad_output])
        grad_input = tuple(Tensor._from(g) for g in g_in)
        for hook in list(cell._hooks.backward.values()):
            new = hook(cell, grad_input, grad_output)
            if new is not None:
                grad_input = _as_grad_tuple(new, grad_input, "backward_hook")
        return [g._data for g in grad_input], g_params

    fn.defvjp(fwd, bwd)
    return fn


def _as_grad_tuple(new, old: tuple, who: str) -> tuple:
    new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
    if len(new) != len(old):
        raise ValueError(f"a {who} returned {len(new)} gradient(s) where {len(old)} were expected")
    return tuple(Tensor(n) if not isinstance(n, Tensor) else n for n in new)


# ---------------------------------------------------------------- capture: one node per bprop / recompute Cell call
_RECORDED: dict[tuple, Any] = {}  # (id(cell), call signature) -> its primitive


def _recorded_call(cell, args: tuple, kwargs: dict):
    """Record `cell(*args)` as one custom node differentiated by `cell.bprop`, or rematerialised in the backward
    pass (recompute: `jax.checkpoint` inside the lowered graph); the eager result is returned."""
    positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
    params: list[Parameter] = list(cell.get_parameters())
    static = tuple(None if isinstance(a, Tensor) else a for a in args)
    key = (id(cell), positions, repr(static), repr(sorted(kwargs.items())), len(params))
    entry = _RECORDED.get(key)
    if entry is None or entry[0]() is not cell:
        entry = _RECORDED[key] = _cell_primitive(cell, args, kwargs, positions, params, key)
    recording.recorder.on_cell(cell)  # its state (training flag, attributes' identity) is guarded
    _, prim, treedef_box = entry
    flat = apply(prim, tuple(args[i] for i in positions) + tuple(params))
    return jax.tree_util.tree_unflatten(treedef_box[0], list(flat))


def _cell_primitive(cell, args: tuple, kwargs: dict, positions: tuple, params: list, key: tuple):
    n_in = len(positions)
    treedef_box: list[Any] = []
    bprop = callable(getattr(type(cell), "bprop", None))
    kind = "bprop" if bprop else "jax" if runs_as_jax(cell) else "recompute"
    name = f"{type(cell).__name__}.{kind}#{id(cell):x}.{len(_RECORDED)}"

    def impl(*arrays):
        live = ref()
        if live is None:
            raise RuntimeError(f"{name}: its Cell no longer exists")
        template = list(args)
        for i, a in zip(positions, arrays[:n_in]):
            template[i] = Tensor._from(a)
        with not_recording():  # inside the node: plain jax, not recorded
            pure = pure_construct(live, template, positions, params, kwargs, treedef_box)
            fn = (_with_bprop(live, tuple(template), list(positions), pure, treedef_box) if bprop
                  else pure if kind == "jax" else checkpointed(live, pure))
            return tuple(fn(list(arrays[:n_in]), list(arrays[n_in:])))

    prim = install(name, impl, CustomOpInfo(kind=f"cell_{kind}", function=type(cell).__qualname__),
                   doc=f"{type(cell).__name__}.construct, " + {
                       "bprop": "differentiated by its bprop", "jax": "one jax computation (a pipeline schedule)",
                       "recompute": "rematerialised in the backward pass (recompute)"}[kind])

    def forget(_):
        _RECORDED.pop(key, None)
        REGISTRY.pop(name, None)
        CUSTOM_OPS.pop(name, None)

    ref = weakref.ref(cell, forget)
    return ref, prim, treedef_box
