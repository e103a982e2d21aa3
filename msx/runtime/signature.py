"""The signature of a jitted call: the cache key of its arguments plus their Tensor leaves.

The key holds the pytree structure, each Tensor's shape and dtype, each Parameter argument's identity (a
Parameter is state, not an input: the graph reads and writes it like one it found itself), each static
Python value (floats by their bits, so `-0.0` is not `0.0`), each Cell argument's
identity and training flag, and which Tensor arguments are the same object.
Everything else a capture read (globals, attributes, Cells reached) is guarded
by the entry's own checks (`msx.runtime.python_guards`).
"""
from __future__ import annotations

import jax
import numpy as np

from ..cell_protocol import CellProtocol
from ..tensor import Parameter, PendingTensor, Tensor


def is_leaf(x) -> bool:
    """A leaf of a call's argument tree: a Tensor, or a Cell (keyed by identity and training flag)."""
    return isinstance(x, (Tensor, CellProtocol))


def _leaf_key(x):
    if isinstance(x, Parameter):  # state, bound by identity like a Parameter the function reads itself
        return "param", id(x)
    if isinstance(x, Tensor):
        return x._data.shape, x._data.dtype
    if is_leaf(x):  # a Cell: identity and training flag
        return "cell", id(x), x.training
    if type(x) is float:  # by bits: -0.0 and 0.0 compare equal but divide differently; nan equals itself
        return float, x.hex()
    try:
        hash(x)
        return type(x), x
    except TypeError:
        return "id", id(x)


class Signature:
    """The cache key of one call plus its Tensor leaves.

    The common call — only Tensor positional arguments — skips pytree flattening.
    """

    __slots__ = ("key", "tensors", "args", "kwargs")

    def __init__(self, args: tuple, kwargs: dict, cell) -> None:
        training = cell.training if cell is not None else None
        if not kwargs and all(type(a) is Tensor or type(a) is PendingTensor for a in args):  # (reading a pending
            # result's `_data` below runs its deferred ops: msx.eager.lazy)
            self.args, self.kwargs, self.tensors = args, kwargs, list(args)
            self.key = (len(args), tuple((a._data.shape, a._data.dtype) for a in args), training, _aliasing(args))
            return
        leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=is_leaf)
        if any(isinstance(x, (np.ndarray, jax.Array)) for x in leaves):
            leaves = [Tensor(x) if isinstance(x, (np.ndarray, jax.Array)) else x for x in leaves]
            args, kwargs = jax.tree_util.tree_unflatten(treedef, leaves)
        self.args, self.kwargs = args, kwargs
        self.tensors = [x for x in leaves if isinstance(x, Tensor) and not isinstance(x, Parameter)]
        self.key = (treedef, tuple(_leaf_key(x) for x in leaves), training, _aliasing(self.tensors))

    def has_tracer(self) -> bool:
        return any(isinstance(t._data, jax.core.Tracer) for t in self.tensors)


def _aliasing(tensors) -> tuple | None:
    """Which Tensor arguments are the same object (a graph traced with f(x, x) must not serve f(a, b))."""
    ids = [id(t) for t in tensors]
    if len(set(ids)) == len(ids):
        return None
    return tuple(ids.index(i) for i in ids)


def _full_key(sig: Signature) -> tuple:
    leaves, treedef = jax.tree_util.tree_flatten((sig.args, sig.kwargs), is_leaf=is_leaf)
    return treedef, tuple(_leaf_key(x) for x in leaves), sig.key[2], sig.key[3]


def describe_change(old_sig: Signature, new_sig: Signature) -> str:
    """Why `new_sig` missed the cache entry made for `old_sig`, in words."""
    old, new = _full_key(old_sig), _full_key(new_sig)
    if old[0] != new[0]:
        return f"argument structure changed: {old[0]} -> {new[0]}"
    if old[3] != new[3]:
        return f"argument aliasing changed: {old[3]} -> {new[3]} (the same Tensor passed in several places)"
    if old[2] != new[2]:
        return f"training flag: {old[2]} -> {new[2]}"
    paths = [jax.tree_util.keystr(p) for p, _ in
             jax.tree_util.tree_flatten_with_path((new_sig.args, new_sig.kwargs), is_leaf=is_leaf)[0]]
    reasons = []
    for path, a, b in zip(paths, old[1], new[1]):
        if a == b:
            continue
        where = _readable_path(path)
        if isinstance(a[0], tuple) and isinstance(b[0], tuple):
            if a[0] != b[0]:
                reasons.append(f"{where}: shape {a[0]} -> {b[0]}")
            if a[1] != b[1]:
                reasons.append(f"{where}: dtype {np.dtype(a[1]).name} -> {np.dtype(b[1]).name}")
        elif a[0] == "cell" and b[0] == "cell" and a[1] == b[1]:
            reasons.append(f"{where}: training flag {a[2]} -> {b[2]}")
        else:
            reasons.append(f"{where}: {_show(a)} -> {_show(b)}")
    return "; ".join(reasons) or "new signature"


def _readable_path(path: str) -> str:
    # "[0][1]" (args, position 1) -> "arg 1"; "[1]['lr']" -> "kwarg 'lr'"
    if path.startswith("[0]["):
        rest = path[4:]
        idx, _, tail = rest.partition("]")
        return f"arg {idx}{tail}"
    if path.startswith("[1]["):
        return f"kwarg {path[4:].split(']')[0]}{path[4:].partition(']')[2]}"
    return path


def _show(k) -> str:
    if isinstance(k[0], tuple):
        return f"Tensor{k[0]} {np.dtype(k[1]).name}"
    if k[0] is float:
        return repr(float.fromhex(k[1]))
    if k[0] == "id":
        return f"object id {k[1]}"
    if k[0] == "cell":
        return f"Cell id {k[1]}"
    if k[0] == "param":
        return f"Parameter id {k[1]}"
    return repr(k[1])


__all__ = ["Signature", "is_leaf", "describe_change"]
