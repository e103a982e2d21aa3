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
`parallel_optimizer_threshold` (KB, default 64: smaller parameters stay whole), `optimizer_level` (`level1`: the
state; `level2`: the gradients too, see below; `level3` is refused here) and `gradient_accumulation_shard` (False only: there is no gradient accumulation). A
parameter whose axis 0 does not divide by `parts` stays whole. Lamb's trust ratio reads norms of the whole
weight and update: each rank sums the squares of its rows and one `AllReduce` of that scalar completes them
(`ShardPlan.total`). An optimizer that defines its own `construct` runs unsharded, with a warning naming it.

`level2` (ZeRO-2) shards the reduced gradient as well: the optimizer marks each parameter it shards with the
number of ranks its rows are cut over (`scatter_parts`), and `nn.DistributedGradReducer` (also the one
`TrainOneStepCell` inserts) reduce-scatters those gradients instead of all-reducing them (`scatter_gradients`: one
fused `ReduceScatter` per dtype), so each rank gets only its rows of the reduced gradient, which the update takes
as they are (`ShardPlan.grad`); the new rows are all-gathered as in level1. Every element is reduced over the same
ranks, so the results are level1's; what changes is the traffic (a reduce-scatter is half an all-reduce) and the
reduced gradient a rank holds (`1 / parts` of it). A gradient not reduce-scattered (a reducer over another group,
or none) is cut by the update as in level1, so the optimizer takes either form.

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
import numpy as np

from ..errors import ContextError
from .. import dtype as mstype
from ..ops import functional as F
from ..ops.comm_ops import AllGather, AllReduce, ReduceScatter, rank_slice
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
    scatter: bool = False  # level2: the reducer hands the update this rank's rows of the gradient

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

    def grad(self, i: int, grad, param):
        """This rank's rows of parameter `i`'s gradient: level2's reducer already reduce-scattered it (it has the
        rows of a shard), else cut here as a parameter is."""
        if i in self.sharded and self.parts > 1 and tuple(grad.shape) == shard_shape(param, self.parts):
            return self._place(grad, True) if self._eager(grad) else grad
        return self.local(i, grad)

    def accepts(self, i: int, grad, param) -> bool:
        """Whether `grad` has a shape the update of parameter `i` takes: the parameter's, or (sharded) its rows'."""
        shape = tuple(grad.shape)
        return shape == tuple(param.shape) or (i in self.sharded and self.parts > 1
                                               and shape == shard_shape(param, self.parts))

    def total(self, i: int, partial):
        """A sum over the whole of parameter `i` (Lamb's squared norms) from this rank's `partial` sum over its
        rows: summed over the ranks (one `AllReduce`), divided by how many ranks hold each row."""
        if i not in self.sharded or self.parts == 1:
            return partial
        return self.common(AllReduce()(partial) / float(jax.process_count() // self.parts))  # (PyNative: placed back)

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


def shard_shape(param, parts: int) -> tuple:
    """The shape of one rank's rows of `param` cut over `parts` ranks."""
    return (param.shape[0] // parts, *param.shape[1:])


def scatter_parts(param) -> int:
    """How many ranks a level2 optimizer cuts `param`'s gradient over (1: the reducer all-reduces it whole)."""
    return getattr(param, "__dict__", {}).get("_grad_scatter", 1)


def plan_for(optimizer) -> ShardPlan | None:
    """The shard plan of a new optimizer under the current auto-parallel context (None: nothing is sharded by
    rank), its level2 marks set on the parameters (`scatter_parts`). Every optimizer is registered for the
    global-view layout (msx.parallel.zero), which shards at compile time whatever the context says then."""
    zero.register(optimizer)
    plan = _plan(optimizer)
    for i, p in enumerate(optimizer.parameters):  # the latest optimizer built over a parameter decides
        if plan is not None and plan.scatter and i in plan.sharded and plan.parts > 1:
            p._grad_scatter = plan.parts
        else:
            p.__dict__.pop("_grad_scatter", None)
    return plan


def _plan(optimizer) -> ShardPlan | None:
    if not context.get_auto_parallel_context("enable_parallel_optimizer"):
        return None
    if context.get_parallel_mode() == "stand_alone":
        return None  # MindSpore: the parallel optimizer acts in the parallel modes only
    if context.get_parallel_mode() in context.GLOBAL_VIEW_MODES:
        return None  # laid out by the global-view step (msx.parallel.zero), not cut by rank here
    level = context.get_auto_parallel_context("parallel_optimizer_config").get("optimizer_level", "level1")
    if level not in ("level1", "level2"):
        raise ContextError(f"enable_parallel_optimizer: optimizer_level={level!r} is not supported by msx in "
                           f"{context.get_parallel_mode()} (per-rank programs, which keep every weight whole); it "
                           f"is in semi_auto_parallel and auto_parallel (docs/parallel.md)")
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
    return ShardPlan(parts // devices, sharded, devices, level == "level2") if sharded else None


def scatter_gradients(grads: list, parts: list[int]) -> list:
    """Level2's reduction of gradients of one dtype: ONE `ReduceScatter` over the world, after which each rank
    holds only its rows of each reduced gradient (rows `rank % parts` of `parts` equal slices, as `rank_slice`
    cuts the state). Each rank's input is, for every destination rank j, block `j % parts` of every gradient,
    flattened and concatenated: with `parts` the group, a plain reduce-scatter of the gradients' rows; with
    fewer (`optimizer_weight_shard_size`), ranks holding the same rows get the same sums."""
    ranks = jax.process_count()
    blocks = []
    for g, k in zip(grads, parts):
        flat = F.reshape(g, (k, -1))
        blocks.append(flat if k == ranks else F.gather(flat, Tensor(np.arange(ranks) % k, mstype.int32), 0))
    mine = ReduceScatter()(F.reshape(F.concat(blocks, 1) if len(blocks) > 1 else blocks[0], (-1,)))
    out, start = [], 0
    for g, k in zip(grads, parts):
        n = int(g.size) // k
        out.append(F.reshape(mine[start:start + n], shard_shape(g, k)))
        start += n
    return out


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
