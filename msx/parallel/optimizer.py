"""Optimizer parallel (MindSpore's `enable_parallel_optimizer`): ZeRO-1 over the data-parallel ranks.

With `set_auto_parallel_context(enable_parallel_optimizer=True)` an optimizer
built afterwards keeps, for every parameter it can shard, only this rank's
rows of each state buffer (`moments.fc.weight` is `rows / parts` long on each
rank). A step takes the rank's rows of the (already reduced, so identical)
gradient and of the parameter, updates them and the state rows, and
all-gathers the new rows into the whole parameter, which every rank keeps for
its forward pass. The update rules are elementwise, so every element is
computed exactly as in the unsharded run: the results are equal, the state
memory is divided by `parts`.

`parallel_optimizer_config` takes MindSpore's keys: `optimizer_weight_shard_size`
(`parts`; -1, the default, is the whole group; a size that does not divide the
group, or exceeds it (with a warning), falls back to the whole group, as in MindSpore), `parallel_optimizer_threshold`
(KB, default 64: smaller parameters stay whole), `optimizer_level` (`level1`
only: weights and state) and `gradient_accumulation_shard` (False only: there
is no gradient accumulation). A parameter whose axis 0 does not divide by
`parts` stays whole. An optimizer whose rule is not elementwise (Lamb's trust
ratio is a norm of the whole tensor) or that defines its own `construct` runs
unsharded, with a warning naming it.

`save_checkpoint` gathers the sharded buffers into full tensors (every rank
must call it, as in MindSpore, where `integrated_save` all-gathers), and
`load_param_into_net` gives each rank its rows of a full tensor, so one
checkpoint loads on one device and on any number of ranks.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from . import context

@dataclass
class ShardPlan:
    """Which of an optimizer's parameters are sharded, `parts` ways (positions in `optimizer.parameters`)."""

    parts: int
    sharded: frozenset = field(default_factory=frozenset)

    def local(self, i: int, tensor):
        """This rank's rows of a parameter-shaped tensor (the tensor itself when parameter `i` is whole)."""
        if i not in self.sharded:
            return tensor
        from ..ops.comm_ops import rank_slice
        from ..ops.primitive import apply

        return apply(rank_slice, (tensor,), {"parts": self.parts})

    def write(self, i: int, param, new) -> None:
        """Store `new` (this rank's rows when sharded) into the whole parameter: every rank's rows gathered."""
        if i in self.sharded:
            from ..ops.comm_ops import AllGather

            new = AllGather()(new)[:param.shape[0]]  # groups of `parts` ranks hold the same rows: take the first
        param._rebind(new)


def _elementwise(optimizer) -> bool:
    from ..nn.optim.elementwise import Lamb, _Elementwise
    from ..nn.optim.optimizer import Optimizer

    return type(optimizer).construct in (Optimizer.construct, _Elementwise.construct) and not isinstance(
        optimizer, Lamb)


def plan_for(optimizer) -> ShardPlan | None:
    """The shard plan of a new optimizer under the current auto-parallel context (None: nothing is sharded)."""
    if not context.get_auto_parallel_context("enable_parallel_optimizer"):
        return None
    if context.get_parallel_mode() == "stand_alone":
        return None  # MindSpore: the parallel optimizer acts in the parallel modes only
    group = jax.process_count()
    config = context.get_auto_parallel_context("parallel_optimizer_config")
    parts = config.get("optimizer_weight_shard_size", -1)
    if parts > group:  # e.g. a cluster's script run on a laptop: still correct, sharded over what there is
        warnings.warn(f"enable_parallel_optimizer: optimizer_weight_shard_size={parts} exceeds the data-parallel "
                      f"group of {group} rank(s); {type(optimizer).__name__} shards over the whole group", stacklevel=3)
    if parts == -1 or group % parts:
        parts = group
    if parts == 1:
        return None
    if not _elementwise(optimizer):
        warnings.warn(f"enable_parallel_optimizer: {type(optimizer).__name__}'s update is not elementwise (or is its "
                      f"own construct), so its state is not sharded; it runs whole on every rank", stacklevel=3)
        return None
    threshold = config.get("parallel_optimizer_threshold", context.DEFAULT_THRESHOLD_KB) * 1024
    sharded = frozenset(i for i, p in enumerate(optimizer.parameters)
                        if p.ndim and p.shape[0] % parts == 0 and p._data.nbytes >= threshold)
    return ShardPlan(parts, sharded) if sharded else None


def local_zeros(plan: ShardPlan | None, i: int, param) -> Any:
    """The initial (zero) array of a state buffer of parameter `i`: this rank's rows when it is sharded."""
    import jax.numpy as jnp

    if plan is None or i not in plan.sharded:
        return jnp.zeros_like(param._data)
    return jnp.zeros((param.shape[0] // plan.parts, *param.shape[1:]), param._data.dtype)


def mark(buffer, plan: ShardPlan | None, i: int, param) -> None:
    """Remember on a state buffer that it holds rows of a sharded whole (for checkpoints)."""
    if plan is not None and i in plan.sharded:
        buffer._optimizer_shard = (plan.parts, tuple(param.shape))


def full_array(tensor) -> Any:
    """The whole array of a Parameter: a sharded optimizer buffer's rows gathered (a collective: every rank
    must ask, in the same order), anything else as it is."""
    shard = getattr(tensor, "__dict__", {}).get("_optimizer_shard")
    if shard is None:
        return tensor._data
    from ..ops.comm_ops import AllGather

    return AllGather()(tensor)._data[:shard[1][0]]


def local_rows(param, value: np.ndarray) -> np.ndarray:
    """The rows of a full checkpoint array a sharded optimizer buffer of this rank holds (else `value`)."""
    shard = getattr(param, "__dict__", {}).get("_optimizer_shard")
    if shard is None or tuple(value.shape) != shard[1] or tuple(value.shape) == tuple(param.shape):
        return value
    parts, rows = shard[0], shard[1][0] // shard[0]
    start = (jax.process_index() % parts) * rows
    return value[start:start + rows]
