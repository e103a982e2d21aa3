"""The eager autograd tape: `grad`/`value_and_grad` in PyNative without tracing the function under jax.

While a differentiated function runs, every primitive application whose inputs
depend on a differentiated array (a leaf) records a node: the primitive, its
attributes and its inputs. Backward walks the nodes in reverse; each node's VJP
is one cached compiled executable per (primitive, attributes, static inputs,
differentiated positions), built as `jax.vjp` of the primitive's impl inside
`jax.jit` — so once warm no jax tracing happens per step. The forward inside
that VJP is recomputed rather than kept: the tape keeps only the node inputs
(which XLA trims to what the VJP reads), and drops everything after backward.

Leaves are identified by their arrays: each leaf array is replaced by a fresh
alias object for the call (the same buffer), as the jax path replaces it by a
tracer, so a Tensor made before the call from the same array stays a constant.

While saved-tensor hooks are active (`saved_hooks`), a recorded node hands the inputs its VJP reads to
`pack_hook` and keeps what it returns instead (`Tape._pack`); the walk unpacks them when it reaches the node
(`_unpack`), node by node (no replay).

What the tape cannot follow raises `Fallback`; `msx.autograd` then undoes the
call's state writes and runs the function again on the jax-vjp path (and keeps
using that path for that function): a nested `grad`, a jax value that is not a
concrete array (a jax transform around the call), a compiled graph run inside
the function (`msx.jit`, `nn.GraphCell`: their executables are opaque to it).
"""
from __future__ import annotations

import threading
import weakref
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax._src.array import ArrayImpl
from jax._src.interpreters import partial_eval as pe

from .. import tensor as tensor_mod
from . import dispatch, saved_hooks, tensor_hooks


class Fallback(BaseException):
    """The tape cannot follow this call; the caller differentiates it with `jax.vjp` instead.

    A BaseException so that no `except Exception` in user or library code on the way swallows it."""


class _State(threading.local):
    tape: "Tape | None" = None


STATE = _State()
saved_hooks.TAPE_STATE[:] = [STATE]
_BWD: dict[tuple, Callable] = {}
_add = jax.jit(jnp.add)
_ones_like = jax.jit(jnp.ones_like)


def active() -> bool:
    return STATE.tape is not None


def escape(what: str) -> None:
    """Called where computation leaves the primitive registry (a compiled graph runs): the tape cannot see it."""
    if STATE.tape is not None:
        raise Fallback(what)


def _on_jax_array(array) -> None:
    tape = STATE.tape
    if tape is not None and (id(array) in tape.slot_of or isinstance(array, jax.core.Tracer)):
        # jax code read a Tensor (jnp.sin(t) flattens it inside jnp's own jit): only the jax path sees that
        raise Fallback("jax code read a Tensor")


tensor_mod.JAX_ARRAY_HOOK[:] = [_on_jax_array]


def alias(x: jax.Array) -> jax.Array:
    """A new array object on the same buffer (no copy), so that identity tells a leaf from other uses."""
    if type(x) is ArrayImpl and not x.is_deleted():
        return ArrayImpl(x.aval, x.sharding, x._arrays, committed=x.committed, _skip_checks=True)
    return jnp.array(x, copy=True)


def _inexact(x) -> bool:
    if not isinstance(x, jax.Array):
        return False
    dtype = x.dtype
    known = _INEXACT.get(dtype)
    if known is None:
        known = _INEXACT[dtype] = bool(jnp.issubdtype(dtype, jnp.inexact))
    return known


_INEXACT: dict = {}


class _Node:
    __slots__ = ("prim", "attrs", "key", "inputs", "diff", "in_slots", "out_slots", "pullback", "sig", "packed")


class Tape:
    """Nodes in call order; slots number the tracked arrays (leaves first)."""

    def __init__(self) -> None:
        self.slot_of: dict[int, int] = {}
        self.keep: list = []  # every tracked array stays alive while the tape does, so ids stay unique
        self.nodes: list[_Node] = []
        self.hooked: dict[int, dict] = {}  # slot -> the hook table of the Tensor that held it (`hook`)
        self.packed = False  # a node keeps saved-tensor hooks' packed values (`saved_hooks`): walk node by node

    def hook(self, array, table: dict) -> None:
        """`Tensor.register_hook` on a Tensor holding `array` while this tape records: its hooks run on the
        slot's summed cotangent, even after the Tensor itself is gone (a local of the differentiated function)."""
        slot = self.slot_of.get(id(array), -1)
        if slot >= 0:
            self.hooked[slot] = table

    def leaf(self, array) -> int:
        slot = len(self.keep)
        self.slot_of[id(array)] = slot
        self.keep.append(array)
        return slot

    def record(self, prim, arrays: list, attrs: dict, result) -> None:
        """Note `prim(*arrays)` -> `result` (its Tensor or Tensors) when an input is tracked."""
        slot_of = self.slot_of
        in_slots = [slot_of.get(id(a), -1) for a in arrays]
        entry = dispatch.LAST.entry  # (fn, key, sig) when the forward just ran compiled: no second key computation
        if entry is None:
            for a in arrays:
                if isinstance(a, jax.core.Tracer):
                    raise Fallback(f"{prim.name} got a jax tracer")
        if max(in_slots, default=-1) < 0:
            return
        tensors = list(result) if prim.multiple_results else [result]
        out_slots = []
        for t in tensors:
            if not _inexact(t._data):
                out_slots.append(-1)
                continue
            if id(t._data) in slot_of:  # an input passed through (jit forwards it): the output is its own value
                t._data = alias(t._data)
            out_slots.append(self.leaf(t._data))
        if max(out_slots, default=-1) < 0:
            return
        diff = tuple(i for i, s in enumerate(in_slots) if s >= 0)
        node = _Node()
        node.prim, node.attrs, node.inputs, node.diff = prim, attrs, arrays, diff
        node.in_slots = [in_slots[i] for i in diff]
        node.out_slots = out_slots
        if entry is not None:
            node.key, node.sig = entry[1], entry[2]
        else:
            node.key, _, _, node.sig = dispatch.compiled(prim, arrays, attrs)
        node.pullback = None
        node.packed = None
        if saved_hooks.STATE.stack:
            self._pack(node, saved_hooks.current())
        self.nodes.append(node)

    def _pack(self, node: _Node, hooks: tuple) -> None:
        """Hand the inputs this node's backward reads to the active `pack_hook` and keep what it returns in
        their place (`saved_hooks`); `_vjp` unpacks them."""
        pack, unpack = hooks
        saved = _saved_inputs(node)
        if not saved:
            return
        inputs = list(node.inputs)
        packed = {}
        STATE.tape = None  # the hooks' own ops are not part of the differentiated function
        try:
            for i in saved:
                packed[i] = (unpack, pack(tensor_mod.Tensor._from(inputs[i])), inputs[i].shape, inputs[i].dtype)
                inputs[i] = None
        finally:
            STATE.tape = self
        node.inputs, node.packed = inputs, packed
        self.packed = True

    def record_opaque(self, fn: Callable, *args):
        """`fn(*args)` (pytrees of arrays) as one node whose VJP is `jax.vjp` of `fn`, run op by op: a Cell
        with a custom backward (`bprop`, backward hooks, recompute) keeps it, exactly as on the jax path."""
        flat, tree = jax.tree_util.tree_flatten(args)
        log: list = []
        tensor_mod._WRITE_LOGS.append(log)
        STATE.tape = None
        try:
            out, pullback = jax.vjp(lambda *xs: fn(*jax.tree_util.tree_unflatten(tree, xs)), *flat)
        finally:
            STATE.tape = self
            tensor_mod._WRITE_LOGS.pop()
        if log:  # state written under jax.vjp holds tracers: only the jax path can carry it out
            for obj, old in reversed(log):
                obj._data = old
            raise Fallback("state written inside a Cell with a custom backward")
        in_slots = [self.slot_of.get(id(a), -1) for a in flat]
        outs, out_tree = jax.tree_util.tree_flatten(out)
        outs = [alias(o) if id(o) in self.slot_of else o for o in outs]  # a passed-through input: its own value
        out = jax.tree_util.tree_unflatten(out_tree, outs)
        node = _Node()
        node.prim, node.attrs, node.key, node.inputs, node.sig = None, None, None, None, None
        node.diff = tuple(i for i, s in enumerate(in_slots) if s >= 0)
        node.in_slots = [in_slots[i] for i in node.diff]
        node.out_slots = [self.leaf(o) if _inexact(o) else -1 for o in outs]

        def run_pullback(cts):
            full = [c if c is not None else _zero_cotangent(o) for c, o in zip(cts, outs)]
            grads = pullback(jax.tree_util.tree_unflatten(out_tree, full))
            return [grads[i] for i in node.diff]

        node.pullback = run_pullback
        node.packed = None
        if saved_hooks.STATE.stack and node.diff:
            saved_hooks.warn_opaque("a Cell with a custom backward (bprop, backward hooks, recompute)")
        if node.diff:
            self.nodes.append(node)
        return out

    def record_graph(self, fn: Callable, run: Callable, inputs: tuple):
        """A compiled graph's call `run(inputs)` as one node: its forward is that executable, its backward one
        cached compiled VJP of `fn` (the jax function the executable was compiled from). `inputs` and the
        result are `(inputs, ro_params, rw_params)` and `(outputs, updates, extras)`: outputs and updates
        carry gradients, extras (guard values) do not. A graph jax cannot differentiate (a `While` loop) is
        found before it runs: `Fallback`, as for any op the tape cannot follow."""
        flat, tree = jax.tree_util.tree_flatten(inputs)
        in_slots = [self.slot_of.get(id(a), -1) for a in flat]
        if any(isinstance(a, jax.core.Tracer) for a in flat):
            raise Fallback("a compiled graph got a jax tracer")
        if max(in_slots, default=-1) < 0:
            return run(inputs)
        diff = tuple(i for i, s in enumerate(in_slots) if s >= 0)
        bwd = _graph_vjp(fn, tree, diff, flat)
        # the VJP reads every input again: a donated read-write Parameter gets a copy to consume
        outs, updates, extras = run((inputs[0], inputs[1], [jnp.copy(x) for x in inputs[2]]) if inputs[2] else inputs)
        results = [alias(o) if id(o) in self.slot_of else o for o in list(outs) + list(updates)]
        node = _Node()
        node.prim, node.attrs, node.key, node.inputs, node.sig = None, None, None, None, None
        node.diff, node.in_slots = diff, [in_slots[i] for i in diff]
        node.out_slots = [self.leaf(o) if _inexact(o) else -1 for o in results]
        node.pullback = lambda cts: bwd(flat, list(cts))
        node.packed = None
        if saved_hooks.STATE.stack:
            saved_hooks.warn_opaque("a compiled graph (msx.jit, nn.GraphCell)")
        self.nodes.append(node)
        n = len(outs)
        return type(outs)(results[:n]), type(updates)(results[n:]), extras

    def backward(self, seeds: list[tuple[Any, Any]], leaves: list[int]) -> list:
        """Cotangents of `leaves` (slots) given (output array, cotangent) seeds; None where none flows. A seed's
        cotangent None means ones (the gradient of the output itself; made inside a replay, no dispatch of its own).

        A tape whose whole node sequence was seen `REPLAY_AFTER` times before runs as one compiled
        executable (`_replay`); otherwise node by node."""
        seed_slots = [self.slot_of.get(id(array), -1) for array, _ in seeds]
        hooked = {s: t for s, t in self.hooked.items() if t}  # Tensors with backward hooks: Python runs in the walk
        seq = None if hooked or self.packed else _sequence(self.nodes, seed_slots, seeds, leaves)
        if seq is not None:
            fn = _REPLAYS.get(seq)
            if fn is None and (_first_backward(self.nodes) or _seen_enough(seq)):
                fn = _REPLAYS[seq] = jax.jit(_replayer(self.nodes, seed_slots, seq[2], leaves))
                dispatch._STATS["replay_compiles"] += 1
            if fn is not None:
                dispatch._STATS["replays"] += 1
                grads = fn([_dynamic(n) for n in self.nodes], [ct for _, ct in seeds])
                self.nodes.clear()
                return grads
        cts = [(_ones_like(a) if ct is None else ct) if s >= 0 else None for (a, ct), s in zip(seeds, seed_slots)]
        grads = _walk(self.nodes, seed_slots, cts, leaves, _vjp, hooked)
        self.nodes.clear()
        return grads


def _walk(nodes: list, seed_slots: list, seed_cts: list, leaves: list, vjp: Callable, hooked: dict | None = None
          ) -> list:
    """The reverse walk: each node's input cotangents from `vjp(node, output cotangents)`, summed per slot.
    A slot a hooked Tensor held (`hooked`: slot -> hook table) has its summed cotangent passed through the hooks
    when it is complete: when the node that made it is reached, or at the end for a leaf."""
    cts: dict[int, Any] = {}
    for slot, ct in zip(seed_slots, seed_cts):
        if slot >= 0:
            cts[slot] = _add(cts[slot], ct) if slot in cts else ct
    for node in reversed(nodes):
        outs = [cts.pop(s, None) if s >= 0 else None for s in node.out_slots]
        if hooked:
            outs = [_hooked(hooked, s, c) for s, c in zip(node.out_slots, outs)]
        if all(c is None for c in outs):
            continue
        grads = vjp(node, outs)
        for slot, g in zip(node.in_slots, grads):
            cts[slot] = _add(cts[slot], g) if slot in cts else g
    if hooked:
        return [_hooked(hooked, s, cts.get(s)) for s in leaves]
    return [cts.get(s) for s in leaves]


def _hooked(hooked: dict, slot: int, ct):
    table = hooked.get(slot)
    return ct if table is None or ct is None else tensor_hooks.run(list(table.values()), ct)


REPLAY_AFTER = 4  # sightings of a tape's node sequence walked node by node before it is one executable
_REPLAYS: dict[tuple, Callable] = {}
_REPLAY_SEEN: dict[tuple, int] = {}
_IN_REPLAY: set = set()  # VJP keys of the nodes a first-sighting replay compiled


def _sequence(nodes: list, seed_slots: list, seeds: list, leaves: list) -> tuple | None:
    """The replay key of a tape: every node's (compiled key, input signature, differentiated positions, slots),
    the seeds' slots and avals and the leaves; None when a node has no compiled VJP (a custom backward, an
    uncompilable primitive)."""
    parts = []
    for n in nodes:
        if n.key is None or dispatch._CACHE.get(n.key) is None:
            return None
        parts.append((n.key, n.sig, n.diff, tuple(n.in_slots), tuple(n.out_slots)))
    avals = []
    for array, ct in seeds:  # a seed of ones is keyed by its output's aval (ones are made inside the replay)
        if type(ct if ct is not None else array) is not ArrayImpl:
            return None
        avals.append((ct is None, (ct if ct is not None else array).aval))
    return tuple(parts), tuple(seed_slots), tuple(avals), tuple(leaves)


def clear_replays() -> None:
    _REPLAYS.clear()
    _REPLAY_SEEN.clear()
    _IN_REPLAY.clear()


def _first_backward(nodes: list) -> bool:
    """Compile this tape's whole backward now, on its first sighting? When at least two of its nodes have no
    compiled VJP yet, walking it node by node would compile each of them; one executable of the whole walk
    is one compile (measured on ResNet-18's first eager step: 37 XLA compiles walked, 4 replayed)."""
    if not dispatch.FUSE_FIRST[0]:
        return False
    new = {k for k in (n.key + (n.diff,) for n in nodes) if k not in _BWD and k not in _IN_REPLAY}
    if len(new) < 2:
        return False
    # a node replayed once counts as seen: tapes of other sequences with the same nodes (another length, a
    # branch) walk them, compiling each VJP once, rather than compiling a whole backward per variant
    _IN_REPLAY.update(n.key + (n.diff,) for n in nodes)
    return True


def _seen_enough(seq: tuple) -> bool:
    seen = _REPLAY_SEEN.get(seq, 0)
    if seen >= REPLAY_AFTER:
        _REPLAY_SEEN.pop(seq, None)  # another thread's tape may have just popped it
        return True
    _REPLAY_SEEN[seq] = seen + 1
    return False


def _dynamic(node: _Node) -> list:
    return [x for x, k in zip(node.inputs, node.key[2]) if k is None]


def _replayer(nodes: list, seed_slots: list, seed_avals: tuple, leaves: list) -> Callable:
    """The whole backward of tapes like `nodes` as one jax function of (each node's dynamic inputs, the seed
    cotangents, None for ones): the same walk and the same per-node VJPs as `_walk`, traced once."""
    vjps = [_make_vjp(n.prim, dict(n.attrs), n.diff, n.key[2]) for n in nodes]
    index = {id(n): i for i, n in enumerate(nodes)}
    shape = [_ReplayNode(n.in_slots, n.out_slots, index[id(n)]) for n in nodes]

    def replay(dynamics: list, seed_cts: list) -> list:
        seed_cts = [jnp.ones(aval.shape, aval.dtype) if ones else ct for ct, (ones, aval) in zip(seed_cts, seed_avals)]
        return _walk(shape, seed_slots, seed_cts, leaves, lambda node, outs: vjps[node.i](dynamics[node.i], outs))

    return replay


class _ReplayNode:
    __slots__ = ("in_slots", "out_slots", "i")

    def __init__(self, in_slots: list, out_slots: list, i: int) -> None:
        self.in_slots, self.out_slots, self.i = list(in_slots), list(out_slots), i


def _vjp(node: _Node, outs: list) -> tuple:
    """The node's input cotangents: its cached compiled VJP, or the VJP run op by op for uncompilable prims."""
    if node.pullback is not None:
        return node.pullback(outs)
    if node.packed:
        _unpack(node)
    if node.key is None or dispatch._CACHE.get(node.key) is None:
        return _make_vjp(node.prim, node.attrs, node.diff, None)(node.inputs, outs)
    key = node.key + (node.diff,)
    dynamic = [x for x, k in zip(node.inputs, node.key[2]) if k is None]
    fn = _BWD.get(key)
    if fn is None:
        kinds = node.key[2]
        fn = _BWD[key] = jax.jit(_make_vjp(node.prim, node.attrs, node.diff, kinds))
    return fn(dynamic, outs)


_SAVED: dict[tuple, tuple] = {}  # (compiled key, diff) -> the input positions the node's VJP reads


def _saved_inputs(node: _Node) -> tuple:
    """The positions of the array inputs whose values `node`'s VJP reads (what MindSpore's bprop saves): found
    once per compiled key from the VJP's jaxpr, by dead-code elimination; every array input where the VJP
    cannot be traced alone."""
    arrays = tuple(i for i, x in enumerate(node.inputs) if isinstance(x, jax.Array))
    kinds = node.key[2] if node.key is not None and dispatch._CACHE.get(node.key) is not None else None
    if kinds is None:
        return arrays
    key = node.key + (node.diff,)
    found = _SAVED.get(key)
    if found is None:
        found = _SAVED[key] = _read_by_vjp(node, kinds, arrays)
    return found


def _read_by_vjp(node: _Node, kinds: tuple, arrays: tuple) -> tuple:
    positions = [i for i, k in enumerate(kinds) if k is None]
    dynamic = [node.inputs[i] for i in positions]
    try:
        out_avals = jax.eval_shape(lambda *xs: node.prim.impl(*_with(node, kinds, xs), **node.attrs), *dynamic)
        flat_out = jax.tree_util.tree_leaves(out_avals)
        outs = [jax.ShapeDtypeStruct(o.shape, o.dtype) if s >= 0 else None for o, s in zip(flat_out, node.out_slots)]
        closed = jax.make_jaxpr(_make_vjp(node.prim, node.attrs, node.diff, kinds))(dynamic, outs)
        _, used = pe.dce_jaxpr(closed.jaxpr, [True] * len(closed.jaxpr.outvars))
    except Exception:  # noqa: BLE001  (a VJP jax cannot trace alone: every array input counts as saved)
        return arrays
    counts = [len(jax.tree_util.tree_leaves(x)) for x in dynamic]
    read, at = set(), 0
    for pos, n in zip(positions, counts):
        if any(used[at:at + n]):
            read.add(pos)
        at += n
    return tuple(i for i in arrays if i in read)


def _with(node: _Node, kinds: tuple, xs: tuple) -> list:
    it = iter(xs)
    return [dispatch.thaw(k) if k is not None else next(it) for k in kinds]


def _unpack(node: _Node) -> None:
    """Give back the node's packed inputs through their `unpack_hook`, checked against what was packed."""
    inputs = list(node.inputs)
    for i, (unpack, packed, shape, dtype) in node.packed.items():
        out = unpack(packed)
        data = out._data if isinstance(out, tensor_mod.Tensor) else out
        if not isinstance(data, jax.Array) or data.shape != shape or data.dtype != dtype:
            got = f"{type(out).__name__} of shape {getattr(data, 'shape', None)} dtype {getattr(data, 'dtype', None)}"
            raise ValueError(f"saved_tensors_hooks: unpack_hook gave back {got} for input {i} of "
                             f"'{node.prim.name}', which saved a Tensor of shape {tuple(shape)} dtype {dtype}")
        inputs[i] = data
    node.inputs, node.packed = inputs, None


def _make_vjp(prim, attrs: dict, diff: tuple, kinds: tuple | None) -> Callable:
    impl = prim.impl
    static = {} if kinds is None else {i: dispatch.thaw(k) for i, k in enumerate(kinds) if k is not None}

    def vjp(dynamic, outs):
        if kinds is None:
            args = list(dynamic)
        else:
            it = iter(dynamic)
            args = [static[i] if i in static else next(it) for i in range(len(kinds))]

        def f(*xs):
            a = list(args)
            for i, x in zip(diff, xs):
                a[i] = x
            return impl(*a, **attrs)

        out, pullback = jax.vjp(f, *[args[i] for i in diff])
        flat, tree = jax.tree_util.tree_flatten(out)
        cts = [c if c is not None else _zero_cotangent(o) for c, o in zip(outs, flat)]
        return pullback(jax.tree_util.tree_unflatten(tree, cts))

    return vjp


_GRAPH_VJPS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # graph fn -> {diff: compiled VJP}


def _graph_vjp(fn: Callable, tree, diff: tuple, flat: list) -> Callable:
    """The compiled VJP of graph function `fn` in the inputs at `diff`; its first build checks that jax can
    differentiate the graph (else `Fallback`, before the graph runs)."""
    table = _GRAPH_VJPS.setdefault(fn, {})
    bwd = table.get(diff)
    if bwd is not None:
        return bwd

    def forward(*xs):
        outs, updates, _ = fn(*jax.tree_util.tree_unflatten(tree, list(xs)))
        return list(outs) + list(updates)

    def vjp(flat_in, cts):
        def f(*xs):
            args = list(flat_in)
            for i, x in zip(diff, xs):
                args[i] = x
            return forward(*args)

        out, pullback = jax.vjp(f, *[flat_in[i] for i in diff])
        return pullback([c if c is not None else _zero_cotangent(o) for c, o in zip(cts, out)])

    try:
        n_out = len(jax.eval_shape(forward, *flat))
        jax.eval_shape(vjp, flat, [None] * n_out)
    except Exception as exc:  # reverse-mode of a while loop, a graph op jax has no derivative for
        raise Fallback(f"jax cannot differentiate the compiled graph: {exc}") from None
    bwd = table[diff] = jax.jit(vjp)
    return bwd


def _zero_cotangent(x):
    if jnp.issubdtype(x.dtype, jnp.inexact):
        return jnp.zeros(x.shape, x.dtype)
    return np.zeros(x.shape, jax.dtypes.float0)
