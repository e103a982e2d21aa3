"""The parallel optimizer in global view (SEMI_AUTO/AUTO_PARALLEL): ZeRO levels 1-3 as shardings of what a
compiled step keeps between steps.

In the global-view program (`spmd.GlobalLayout`, one jit over the strategy mesh) nothing needs rewriting to
shard the optimizer: each optimizer state buffer (level1 and level2) and, with level3, each weight is laid out
with its axis 0 cut over the data-parallel devices (`NamedSharding`, in and out of the step, so it stays cut
between steps), and XLA's partitioner inserts the all-gather where a cut weight is used and reduce-scatters
its gradient into the cut update (level2's sharded gradients are that reduce-scatter: a gradient lives only
inside the step). A layout never changes what is computed, so every level gives the unsharded results; what
it changes is the memory each device keeps (`memory_analysis()` of the compiled step, docs/parallel.md).

MindSpore's keys: `optimizer_weight_shard_size` (-1: every device of a pipeline stage; else a divisor of them,
the first strategy-mesh axes of that size), `parallel_optimizer_threshold` (KB: smaller tensors stay whole),
`optimizer_level`. A tensor whose axis 0 does not divide stays whole, as does one a `parameter_plan` lays out.
Optimizers register themselves when built (`register`), so the layout is read from the context at each
compile, also when `AutoParallel.hsdp` sets it after the optimizer was made.
"""
from __future__ import annotations

import math
import weakref

from . import context

_OPTIMIZERS: "weakref.WeakSet" = weakref.WeakSet()


def register(optimizer) -> None:
    """Remember an optimizer, so a global-view step can lay out its state (and level3 its weights)."""
    _OPTIMIZERS.add(optimizer)


def optimizers() -> list:
    """The optimizers alive now (`register`)."""
    return list(_OPTIMIZERS)


def level() -> str | None:
    """The optimizer level in force in global view, or None when the parallel optimizer is off."""
    if not context.get_auto_parallel_context("enable_parallel_optimizer"):
        return None
    if context.get_parallel_mode() not in context.GLOBAL_VIEW_MODES:
        return None
    return context.get_auto_parallel_context("parallel_optimizer_config").get("optimizer_level", "level1")


def dp_axes(axes: dict[str, int], parts: int) -> tuple[str, ...]:
    """The first strategy-mesh axes whose sizes multiply to `parts` (all of them when none do)."""
    names, size = [], 1
    for name, n in axes.items():
        if size == parts:
            break
        names.append(name)
        size *= n
    return tuple(names) if size == parts else tuple(axes)


def specs(axes: dict[str, int]) -> dict[str, tuple]:
    """{Parameter name: spec} of the state buffers (and, level3, weights) a global-view step keeps cut over the
    data-parallel axes `axes` (one pipeline stage's strategy axes)."""
    lvl = level()
    devices = math.prod(axes.values()) if axes else 1
    if lvl is None or devices == 1:
        return {}
    config = context.get_auto_parallel_context("parallel_optimizer_config")
    parts = config.get("optimizer_weight_shard_size", -1)
    if parts == -1 or parts > devices or devices % parts:
        parts = devices
    if parts == 1:
        return {}
    cut = dp_axes(axes, parts)
    parts = math.prod(axes[a] for a in cut)
    threshold = config.get("parallel_optimizer_threshold", context.DEFAULT_THRESHOLD_KB) * 1024
    out: dict[str, tuple] = {}
    for opt in list(_OPTIMIZERS):
        weights = list(opt.parameters)
        mine = {id(p) for p in weights}
        tensors = [p for p in opt.get_parameters() if id(p) not in mine]
        if lvl == "level3":
            tensors += weights
        for p in tensors:
            owner = p.__dict__.get("_state_of", p)  # a state buffer follows its weight's `parallel_optimizer`
            if p.ndim and p.shape[0] % parts == 0 and p._data.nbytes >= threshold \
                    and getattr(owner, "parallel_optimizer", True):
                out[p.name] = (cut,) + ((),) * (p.ndim - 1)
    return out
