"""The one SPMD program of a multi-process job: every rank runs its own graph, collectives join them.

MindSpore's data parallelism is per rank: each rank computes on its own batch
and `AllReduce` joins the ranks. On jax's engine that is `jax.shard_map` over
a mesh with one device per process (axis `AXIS`): every input of a compiled
graph, the rank's own value, becomes one row of a global array (`to_global`),
the graph runs on its row, the collectives inside it lower to `lax.psum` over
`AXIS`, and each rank reads its row of the results back (`to_local`). Eager
collectives use the same mesh with a tiny jitted reduction.
"""
from __future__ import annotations

import contextlib
import functools
import threading
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

AXIS = "ranks"


class _State(threading.local):
    inside = False  # tracing the body of the SPMD program: collectives are lax collectives over AXIS


_state = _State()


def enabled() -> bool:
    """True when compiled graphs must run as one SPMD program (a job of more than one process)."""
    return jax.process_count() > 1


def inside() -> bool:
    return _state.inside


@contextlib.contextmanager
def _tracing_body():
    before, _state.inside = _state.inside, True
    try:
        yield
    finally:
        _state.inside = before


@functools.lru_cache(maxsize=1)
def process_mesh() -> Mesh:
    """One device per process, in rank order: the ranks of MindSpore's world group."""
    devices = [min((d for d in jax.devices() if d.process_index == p), key=lambda d: d.id)
               for p in range(jax.process_count())]
    return Mesh(np.array(devices), (AXIS,))


def _local_device():
    return process_mesh().devices[jax.process_index()]


def row_sharding() -> NamedSharding:
    return NamedSharding(process_mesh(), P(AXIS))


def global_struct(struct: jax.ShapeDtypeStruct) -> jax.ShapeDtypeStruct:
    """The global array a rank-local value of `struct` becomes: one row per rank."""
    return jax.ShapeDtypeStruct((jax.process_count(), *struct.shape), struct.dtype, sharding=row_sharding())


def to_global(x: Any) -> jax.Array:
    """This rank's array as its row of a global array over the process mesh."""
    x = jnp.asarray(x)
    row = jax.device_put(x[None], _local_device())
    return jax.make_array_from_single_device_arrays((jax.process_count(), *x.shape), row_sharding(), [row])


def to_local(x: jax.Array) -> jax.Array:
    """This rank's row of a global array (a one-device array)."""
    return x.addressable_data(0)[0]


def settled(result: Any) -> Any:
    """Wait for a collective's result. jax dispatches asynchronously, and two collectives in flight at once may
    run in a different order on different ranks (on CPU, gloo pairs them by order): one at a time keeps every
    rank's sequence of collectives the same, so no rank ever sums another rank's different tensor."""
    return jax.block_until_ready(result)


def program(fn: Callable) -> Callable:
    """`fn` (rank-local arrays in and out, any pytrees) as the SPMD program over the process mesh."""

    def body(*rows):
        with _tracing_body():
            out = fn(*jax.tree_util.tree_map(lambda r: r[0], rows))
        return jax.tree_util.tree_map(lambda o: jnp.asarray(o)[None], out)

    return jax.shard_map(body, mesh=process_mesh(), in_specs=P(AXIS), out_specs=P(AXIS), check_vma=False)


_LAX = {"sum": jax.lax.psum, "max": jax.lax.pmax, "min": jax.lax.pmin, "mean": jax.lax.pmean}
_NUMPY = {"sum": jnp.sum, "max": jnp.max, "min": jnp.min, "mean": jnp.mean, "prod": jnp.prod}


def all_reduce(x, op: str):
    """Reduce `x` over the ranks: inside the SPMD program a lax collective, otherwise an eager one."""
    if _state.inside:
        if op == "prod":
            return jnp.prod(jax.lax.all_gather(x, AXIS), axis=0)
        return _LAX[op](x, AXIS)
    if isinstance(x, jax.core.Tracer) or not enabled():
        return x  # one rank (or shape inference): the reduction over one value is the value
    return settled(to_local(_eager_reduce(op)(to_global(x))))


def all_gather(x):
    """Concatenate every rank's `x` along axis 0 (MindSpore's AllGather)."""
    if _state.inside:
        return jax.lax.all_gather(x, AXIS, tiled=True)
    if isinstance(x, jax.core.Tracer) or not enabled():
        return jnp.concatenate([x] * jax.process_count(), axis=0) if jax.process_count() > 1 else x
    return settled(to_local(_eager_gather()(to_global(x))))


def reduce_scatter(x, op: str):
    """Reduce `x` over the ranks and give rank r the r-th of `group size` equal slices along axis 0."""
    n = jax.process_count()
    if x.shape[0] % n:
        raise ValueError(f"axis 0 of shape {tuple(x.shape)} must divide by the group size {n}")
    if _state.inside and op == "sum":
        return jax.lax.psum_scatter(x, AXIS, tiled=True)
    total = all_reduce(x, op)
    rank = jax.lax.axis_index(AXIS) if _state.inside else jax.process_index()
    return jax.lax.dynamic_slice_in_dim(total, rank * (x.shape[0] // n), x.shape[0] // n, axis=0)


def broadcast(x, root: int):
    """Rank `root`'s `x` on every rank."""
    n = jax.process_count()
    if not 0 <= root < n:
        raise ValueError(f"root_rank={root} is not a rank of this group of {n}")
    if n == 1 or (isinstance(x, jax.core.Tracer) and not _state.inside):
        return x
    return jnp.reshape(all_gather(x[None]), (n, *x.shape))[root]


@functools.lru_cache(maxsize=None)
def _eager_reduce(op: str) -> Callable:
    return jax.jit(lambda rows: _NUMPY[op](rows, axis=0)[None].repeat(rows.shape[0], 0),
                   out_shardings=row_sharding())


@functools.lru_cache(maxsize=None)
def _eager_gather() -> Callable:
    return jax.jit(lambda rows: jnp.broadcast_to(rows.reshape(1, -1, *rows.shape[2:]),
                                                 (rows.shape[0], rows.shape[0] * rows.shape[1], *rows.shape[2:])),
                   out_shardings=row_sharding())
