"""MindSpore's sharding strategies (`.shard(((2, 1), (1, 4)))`) as jax shardings over one `Mesh`.

A strategy says into how many slices each dimension of a tensor is cut. msx
turns it into a `PartitionSpec` over a mesh of `device_num` devices whose axes
are the prime factors of `device_num` (8 devices: axes `s0, s1, s2` of size
2): a dimension cut in 4 takes two free axes of size 2, a dimension cut in 1
takes none and the tensor is replicated over the axes no dimension took. The
axes of one op's inputs are taken left to right while free, so
`MatMul().shard(((2, 1), (1, 4)))` puts `x` on `s0` and `w` on `s1, s2`, the
device matrix MindSpore builds for it. The specs are plain data (tuples of
axis names) kept on the graph's `Shard` nodes; only lowering makes them
`NamedSharding`s, and XLA's partitioner inserts the collectives.
"""
from __future__ import annotations

import contextlib
import functools
import math
import threading
import warnings
import weakref
from typing import Any, Sequence

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from .layout import Layout

Spec = tuple  # per dimension, the tuple of mesh axis names it is cut over


def prime_factors(n: int) -> list[int]:
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


def axis_sizes(device_num: int) -> dict[str, int]:
    """The strategy mesh's axes, `s0, s1, ...`, one per prime factor of `device_num` (largest first)."""
    return {f"s{i}": p for i, p in enumerate(sorted(prime_factors(device_num), reverse=True))}


@functools.lru_cache(maxsize=None)
def strategy_mesh(device_num: int, stages: int = 1):
    """The mesh strategies are expressed over: the first `device_num / processes` devices of each process, in rank
    order (one process: its first `device_num`), so that process r holds the r-th contiguous block of a batch cut
    over every axis. With `stages > 1` pipeline stages (msx.parallel.pipeline) its first axis is `pipe`, one
    stage per index, and the strategy axes cut each stage's `device_num / stages` devices (MindSpore's strategies
    are per stage)."""
    sizes = axis_sizes(device_num // stages)
    per = device_num // jax.process_count()
    devices = [d for p in range(jax.process_count())
               for d in sorted((d for d in jax.devices() if d.process_index == p), key=lambda d: d.id)[:per]]
    shape, names = tuple(sizes.values()) or (1,), tuple(sizes) or ("s0",)
    if stages > 1:
        shape, names = (stages, *shape), (PIPE, *names)
    return Mesh(np.array(devices).reshape(shape), names)


PIPE = "pipe"   # the pipeline stages' mesh axis


def check_strategy(strategy: Any, what: str) -> "tuple[int, ...] | Layout":
    """A strategy as a tuple of ints >= 1, or a `Layout` with its tensor map, or a TypeError saying what it must
    be."""
    if isinstance(strategy, Layout):
        strategy.tensor_map()   # a bare device matrix (no tensor map) is refused by name
        return strategy
    if not isinstance(strategy, (tuple, list)) or not all(
            isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in strategy):
        raise TypeError(f"{what} must be a tuple of ints >= 1 (one per dimension) or a mindspore.parallel.Layout "
                        f"called with a tensor map, got {strategy!r}")
    return tuple(strategy)


def cuts(strategy: "tuple[int, ...] | Layout") -> tuple[int, ...]:
    """The slices per dimension of a strategy tuple or a Layout."""
    return strategy.cuts() if isinstance(strategy, Layout) else tuple(strategy)


def layout_spec(layout: Layout, device_num: int) -> Spec:
    """A Layout's dimensions over the strategy mesh: its device-matrix axes laid in order onto the mesh's
    prime-factor axes (msx.parallel.layout's docstring); a device matrix that does not line up is refused."""
    mesh = list(axis_sizes(device_num).items())
    if layout.device_num != device_num:
        raise ValueError(f"{layout!r} has {layout.device_num} devices but device_num is {device_num}")
    owned: dict[str, tuple[str, ...]] = {}
    for alias, size in layout.axes():
        names = []
        for p in sorted(prime_factors(size), reverse=True):
            if not mesh or mesh[0][1] != p:
                raise ValueError(f"{layout!r}: the device matrix does not line up with the strategy mesh "
                                 f"{tuple(axis_sizes(device_num).values())} (msx lays each axis's prime factors, "
                                 f"largest first, onto the mesh's axes in order; issue 35)")
            names.append(mesh.pop(0)[0])
        owned[alias] = tuple(names)
    return tuple(sum((owned[a] for a in aliases), ()) for aliases in layout.tensor_map())


def specs_for(strategies: Sequence, device_num: int) -> list[Spec]:
    """The mesh axes of each strategy: a Layout's own, the tuples' by `allocate` (among themselves)."""
    plain = allocate([s for s in strategies if not isinstance(s, Layout)], device_num)[::-1]
    return [layout_spec(s, device_num) if isinstance(s, Layout) else plain.pop() for s in strategies]


def why_not(strategy: tuple, shape: Sequence[int], device_num: int) -> str | None:
    """Why `strategy` cannot cut a tensor of `shape` over `device_num` devices, or None when it can."""
    if len(strategy) != len(shape):
        return f"has {len(strategy)} dimension(s) but the input has shape {tuple(shape)} ({len(shape)} dimension(s))"
    total = math.prod(strategy)
    if total > device_num or device_num % total:
        return (f"cuts the tensor into {total} slices, which must divide device_num={device_num} "
                f"(the product of a strategy cannot exceed device_num)")
    for d, (s, n) in enumerate(zip(strategy, shape)):
        if isinstance(n, int) and n % s:
            return f"requires shape[{d}] % {s} == 0, but got shape {tuple(shape)} (shape[{d}] = {n})"
    return None


def allocate(strategies: Sequence[tuple], device_num: int) -> list[Spec]:
    """The mesh axes each dimension of each strategy is cut over (see the module docstring)."""
    sizes = axis_sizes(device_num)
    free = list(sizes)
    specs = []
    for strategy in strategies:
        spec = _take(strategy, free, sizes)
        if spec is None:  # this input's cuts do not fit the axes still free: it shares axes with an earlier one
            free = list(sizes)
            spec = _take(strategy, free, sizes)
        specs.append(spec)
    return specs


def _take(strategy: tuple, free: list, sizes: dict) -> Spec | None:
    left, spec = list(free), []
    for cut in strategy:
        names = []
        for p in prime_factors(cut):
            name = next((a for a in left if sizes[a] == p), None)
            if name is None:
                return None
            left.remove(name)
            names.append(name)
        spec.append(tuple(names))
    free[:] = left
    return tuple(spec)


def batch_spec(shape: Sequence[int], device_num: int) -> Spec:
    """`dataset_strategy="data_parallel"`: the batch (first) dimension over every axis when it divides."""
    if len(shape) and isinstance(shape[0], int) and device_num > 1 and shape[0] % device_num == 0:
        return (tuple(axis_sizes(device_num)),) + ((),) * (len(shape) - 1)
    return ((),) * len(shape)


def partition_spec(spec: Spec):
    return PartitionSpec(*[(names if len(names) > 1 else names[0]) if names else None for names in spec])


# ----------------------------------------------------------------- the mesh a graph is being lowered over
class _Lowering(threading.local):
    mesh = None
    parameters: dict = {}


_lowering = _Lowering()


@contextlib.contextmanager
def lowering_over(mesh, parameters: dict | None = None):
    """While jax traces a graph for `mesh`, `Shard` nodes become sharding constraints over it; `parameters`
    ({Parameter name: NamedSharding}) says how the step's Parameters are laid out (msx.parallel.local_norm)."""
    before = _lowering.mesh, _lowering.parameters
    _lowering.mesh, _lowering.parameters = mesh, parameters or {}
    try:
        yield
    finally:
        _lowering.mesh, _lowering.parameters = before


def lowering_mesh():
    """The mesh a graph is being lowered over now, or None (eager, one device)."""
    return _lowering.mesh


def lowering_parameters() -> dict:
    """{Parameter name: NamedSharding} of the global-view step being lowered now ({} elsewhere)."""
    return _lowering.parameters


def constrain(x, spec: Spec):
    """`x` with the sharding `spec` over the mesh being lowered; `x` itself anywhere else (eager, one device)."""
    mesh = _lowering.mesh
    if mesh is None or not hasattr(x, "shape") or len(spec) != len(x.shape):
        return x
    inner = jax.sharding.get_abstract_mesh()   # inside a pipeline's shard_map: the mesh with `pipe` manual
    if not inner.empty and inner.axis_names == mesh.axis_names:
        mesh = inner
    return jax.lax.with_sharding_constraint(x, NamedSharding(mesh, partition_spec(spec)))


# ----------------------------------------------------------------- parameter_plan: Parameters' layouts
_PLANS: list[tuple] = []  # (weak reference to the Cell, plan key, strategy), resolved when a graph lowers


def plan_parameter(cell, key: str, strategy: tuple[int, ...]) -> None:
    """Lay `cell`'s Parameter `key` out by `strategy` wherever a graph over the strategy mesh takes it."""
    _PLANS.append((weakref.ref(cell), key, strategy))


def planned() -> dict[str, tuple[int, ...]]:
    """The planned Parameters by their names now. Plans are resolved here, not when `shard` is called: a Cell's
    Parameters get their full names (`fc1.weight`) only once the Cell is an attribute of its network."""
    out: dict[str, tuple[int, ...]] = {}
    for ref, key, strategy in list(_PLANS):
        cell = ref()
        if cell is None:
            continue
        want = key[len("self."):] if key.startswith("self.") else key
        found = [p for path, p in cell.parameters_and_names() if want in (p.name, path) or p.name.endswith("." + want)]
        if not found:
            warnings.warn(f"shard: parameter_plan names {key!r}, which is no Parameter of {type(cell).__name__}; "
                          f"ignored (MindSpore's rule)", stacklevel=2)
        out.update((p.name, strategy) for p in found)
    return out


def clear_plans() -> None:
    _PLANS.clear()
