"""MindSpore's functional `recompute(block, *args)`: run a Cell (or a Cell's method) so that its activations are
rematerialised in the backward pass instead of kept (`jax.checkpoint`); values and gradients are unchanged."""
from __future__ import annotations

from typing import Any, Callable

from ..nn.cell import Cell
from ..nn.cell_config import recompute_context


class _Recomputed(Cell):
    """`block` called with recompute: its owner Cell's Parameters are the ones differentiated."""

    def __init__(self, owner: Cell, block: Callable) -> None:
        super().__init__(auto_prefix=False)
        self.owner = owner
        object.__setattr__(self, "_block", block)
        self.recompute()

    def construct(self, *args, **kwargs):
        return self._block(*args, **kwargs)


def recompute(block: Callable, *args: Any, use_reentrant: bool = True, output_recompute: bool = False,
              early_stop: bool = True, context_fn=None, **kwargs: Any):
    """`block(*args, **kwargs)` with its forward recomputed in the backward pass. `block` is a Cell or a bound
    method of one (its Parameters must be known to differentiate them; a plain function's closed-over
    Parameters would not be)."""
    owner = block if isinstance(block, Cell) else getattr(block, "__self__", None)
    if not isinstance(owner, Cell):
        raise TypeError(f"recompute: block must be a Cell or a method of a Cell (so its Parameters are known), "
                        f"got {type(block).__name__}")
    context_fn = recompute_context("recompute", context_fn, use_reentrant, output_recompute)
    wrapper = _wrapper(owner, block)
    if wrapper.__dict__.get("_recompute_context_fn") is not context_fn:
        object.__setattr__(wrapper, "_recompute_context_fn", context_fn)
    return wrapper(*args, **kwargs)


def _wrapper(owner: Cell, block: Callable) -> _Recomputed:
    """One `_Recomputed` per (Cell, method), kept on the Cell: a compiled step that calls `recompute(self.block,
    x)` sees the same wrapper Cell on every call (a new one would be a new Cell to guard, and recompile)."""
    func = getattr(block, "__func__", block)
    cache = owner.__dict__.get("_recompute_wrappers")
    if cache is None:
        cache = {}
        object.__setattr__(owner, "_recompute_wrappers", cache)
    wrapper = cache.get(func)
    if wrapper is None:
        wrapper = cache[func] = _Recomputed(owner, block)
    return wrapper
