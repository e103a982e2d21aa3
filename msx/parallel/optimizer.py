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

A rank that drives several devices (DATA_PARALLEL over `ranks x local` devices, `spmd.RanksLayout`) cuts its
rows again over them: the data-parallel group is every device of every rank, each buffer a `NamedSharding`'d
array over the rank's devices (`spmd.local_sharding`), kept so by a compiled step's layout (`spmd.CUT_STATE`),
and in PyNative each update's operands are placed on those devices (`ShardPlan.local`/`common`).

`parallel_optimizer_config` takes MindSpore's keys: `optimizer_weight_shard_size` (`parts`, in devices; -1, the
default, is the whole group; one below a rank's device count is all of them; a size that does not divide the
group, or exceeds it (with a warning), falls back to the whole group, as in MindSpore),
`parallel_optimizer_threshold` (KB, default 64: smaller parameters stay whole), `optimizer_level` (`level1`
only: weights and state) and `gradient_accumulation_shard` (False only: there is no gradient accumulation). A
parameter whose axis 0 does not divide by `parts` stays whole. An optimizer whose rule is not elementwise
(Lamb's trust ratio is a norm of the whole tensor) or that defines its own `construct` runs unsharded, with a
warning naming it.

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
import jax.numpy as jnp

from ..errors import ContextError
from ..ops.comm_ops import AllGather, rank_slice
from ..ops.primitive import apply
from ..recording import recording
from ..tensor import Tensor
from . import context, spmd, zero


@dataclass
class ShardPlan:
    """Which of an optimizer's parameters are sharded (positions in `optimizer.parameters`): their rows cut over
    `parts` ranks (processes), and each rank's rows over its first `devices` local devices."""

    parts: int
    sharded: frozenset = field(default_factory=frozenset)
    devices: int = 1

    def _eager(self, tensor) -> bool:
        """A PyNative step of a rank driving several devices: its operands must be placed on them by hand."""
        if self.devices <= 1:
            return False
        return recording.recorder is None and not isinstance(tensor._data, jax.core.Tracer)

    def _place(self, tensor, split: bool):
        return Tensor._from(jax.device_put(tensor._data, spmd.local_sharding(self.devices, split)))

    def local(self, i: int, tensor):
        """This rank's rows of a parameter-shaped tensor (the tensor itself when parameter `i` is whole); in a
        PyNative step over several local devices, placed like the state buffers (cut over them or copied)."""
        if i in self.sharded and self.parts > 1:
            tensor = apply(rank_slice, (tensor,), {"parts": self.parts})
        return self._place(tensor, i in self.sharded) if self._eager(tensor) else tensor

    def common(self, tensor):
        """An operand every parameter's update shares (lr, step): in a PyNative step over several local devices,
        copied onto them."""
        return self._place(tensor, False) if self._eager(tensor) else tensor

    def write(self, i: int, param, new) -> None:
        """Store `new` (this rank's rows when sharded) into the whole parameter: every rank's rows gathered."""
        if i in self.sharded and self.parts > 1:
            new = AllGather()(new)[:param.shape[0]]  # groups of `parts` ranks hold the same rows: take the first
        if self._eager(new):  # back where the parameter lives (the forward pass reads it there)
            new = Tensor._from(jax.device_put(new._data, param._data.sharding))
        param._rebind(new)


def plan_for(optimizer) -> ShardPlan | None:
    """The shard plan of a new optimizer under the current auto-parallel context (None: nothing is sharded by
    rank). Every optimizer is registered for the global-view layout (msx.parallel.zero), which shards at compile
    time whatever the context says then."""
    zero.register(optimizer)
    if not context.get_auto_parallel_context("enable_parallel_optimizer"):
        return None
    if context.get_parallel_mode() == "stand_alone":
        return None  # MindSpore: the parallel optimizer acts in the parallel modes only
    if context.get_parallel_mode() in context.GLOBAL_VIEW_MODES:
        return None  # laid out by the global-view step (msx.parallel.zero), not cut by rank here
    level = context.get_auto_parallel_context("parallel_optimizer_config").get("optimizer_level", "level1")
    if level != "level1":
        raise ContextError(f"enable_parallel_optimizer: optimizer_level={level!r} is not supported by msx in "
                                   f"{context.get_parallel_mode()} (per-rank programs); it is in semi_auto_parallel "
                                   f"and auto_parallel (docs/parallel.md)")
    layout = spmd.layout()
    devices = layout.per_process if isinstance(layout, spmd.RanksLayout) else 1
    group = jax.process_count() * devices
    config = context.get_auto_parallel_context("parallel_optimizer_config")
    parts = config.get("optimizer_weight_shard_size", -1)
    if parts > group:  # e.g. a cluster's script run on a laptop: still correct, sharded over what there is
        warnings.warn(f"enable_parallel_optimizer: optimizer_weight_shard_size={parts} exceeds the data-parallel "
                      f"group of {group} device(s); {type(optimizer).__name__} shards over the whole group", stacklevel=3)
    if parts == -1 or group % parts:
        parts = group
    if parts < devices:  # the smallest unit msx cuts over is a rank's local devices
        parts = devices
    if parts % devices:
        parts = group
    if parts == 1:
        return None
    if not optimizer.updates_elementwise():
        warnings.warn(f"enable_parallel_optimizer: {type(optimizer).__name__}'s update is not elementwise (or is its "
                      f"own construct), so its state is not sharded; it runs whole on every rank", stacklevel=3)
        return None
    threshold = config.get("parallel_optimizer_threshold", context.DEFAULT_THRESHOLD_KB) * 1024
    sharded = frozenset(i for i, p in enumerate(optimizer.parameters)
                        if p.ndim and p.shape[0] % parts == 0 and p._data.nbytes >= threshold
                        and getattr(p, "parallel_optimizer", True))
    return ShardPlan(parts // devices, sharded, devices) if sharded else None


def local_zeros(plan: ShardPlan | None, i: int, param) -> Any:
    """The initial (zero) array of a state buffer of parameter `i`: this rank's rows when it is sharded, cut over
    the rank's local devices (copied onto them when whole) when it drives several."""
    if plan is None:
        return jnp.zeros_like(param._data)
    sharded = i in plan.sharded
    rows = param.shape[0] // plan.parts if sharded and param.ndim else None
    zeros = jnp.zeros((rows, *param.shape[1:]), param._data.dtype) if rows else jnp.zeros_like(param._data)
    if plan.devices == 1:
        return zeros
    return jax.device_put(zeros, spmd.local_sharding(plan.devices, sharded))


def mark(buffer, plan: ShardPlan | None, i: int, param) -> None:
    """Remember on a state buffer how it holds its whole (for checkpoints, and for the layout of a compiled
    step, which keeps it cut over the rank's local devices): (ranks its rows are cut over, the whole shape,
    the placement of a rank driving several devices or None)."""
    if plan is None or (i not in plan.sharded and plan.devices == 1):
        return
    sharded = i in plan.sharded
    buffer._optimizer_shard = (plan.parts if sharded else 1, tuple(param.shape),
                               spmd.local_sharding(plan.devices, sharded) if plan.devices > 1 else None)
    if sharded and plan.devices > 1:
        spmd.CUT_STATE.add(buffer.name)


def full_array(tensor) -> Any:
    """The whole array of a Parameter: a sharded optimizer buffer's rows gathered (a collective: every rank
    must ask, in the same order), anything else as it is (the rows cut over local devices read as one)."""
    shard = getattr(tensor, "__dict__", {}).get("_optimizer_shard")
    if shard is None or shard[0] == 1:
        return tensor._data
    return AllGather()(tensor)._data[:shard[1][0]]


def local_rows(param, value) -> Any:
    """The rows of a full checkpoint array a sharded optimizer buffer of this rank holds (else `value`), placed
    as the buffer is on a rank driving several devices."""
    shard = getattr(param, "__dict__", {}).get("_optimizer_shard")
    if shard is None:
        return value
    parts, whole, placement = shard
    if parts > 1 and tuple(value.shape) == whole and whole != tuple(param.shape):
        rows = whole[0] // parts
        start = (jax.process_index() % parts) * rows
        value = value[start:start + rows]
    return jax.device_put(value, placement) if placement is not None and value.shape == param.shape else value
