"""MindSpore's local-norm monitor: `dump_local_norm`, `dump_local_norm_path`, `dump_device_local_norm`
(`AutoParallel.print_local_norm`, `.dump_local_norm(file_path)`, `.enable_device_local_norm`).

MindSpore 2.10 computes, in the backward pass of a global-view (semi_auto / auto_parallel) step, for every
Parameter the norm `sqrt(ReduceSum(Square(grad)))` of the gradient slice a device holds (in the gradient's
dtype), where its mirror operator meets the gradient (`mindspore/ops/_grad_experimental/grad_comm_ops.py`,
the bprops of `_MirrorOperator`, `_MirrorMiniStepOperator`, `_MicroStepAllGather`, `AllGather`). It prints
`dump local norm: <name> <norm>` (`ops.Print`), or with a path writes it by `ops.TensorDump` to
`<path>/rank_<rank>/local_norm__<name>`, i.e. `local_norm__<name>_<dtype>_<id>.npy`. `dump_device_local_norm`
adds each squared norm into one float32 sum per device (the device's norm over all its gradients).

msx does the same inside the compiled step: one `LocalNorm` node after each gradient computation
(`msx.autograd.vjp_call`) takes the trainable Parameters' gradients; when the global-view step is lowered
(`msx.parallel.spmd.GlobalLayout.lower`), each gradient's per-device norms are a `jax.shard_map` over the
strategy mesh, each device reducing the block of the gradient laid out as its Parameter is (its slice of the
Parameter), and each device's host callback prints or writes its own (a rank is a device's position in the
strategy mesh, MindSpore's rank order; the process holding the device writes its files). Two differences, both because XLA's partitioner, not msx,
inserts the gradient's reduction: the norm is of the device's slice of the step's (reduced) gradient, where
MindSpore's mirror operator sees the device's own partial gradient before its AllReduce (the partial sums
are inside XLA's fused program, not values of it); and the device norm is printed (`dump device local norm:
<norm>`) or written (`rank_<rank>/device_local_norm_float32_<id>.npy`) each step, where MindSpore adds the
squares into its private `_squared_device_local_norm` Parameter for a wrapper (MindFormers) to read and reset.
"""
from __future__ import annotations

import io
import itertools
import os
import threading
import warnings
from typing import Iterator, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P

from .. import dtype as mstype
from ..atomic import write_atomic
from ..communication.management import GlobalComm, get_rank
from ..errors import ContextError
from ..ops.debug_ops import dump_path
from ..ops.primitive import apply, primitive
from ..tensor import Tensor
from . import context, sharding

_ids: dict[str, Iterator[int]] = {}
_ids_lock = threading.Lock()


def _settings() -> tuple[bool, str, bool] | None:
    per_param = context.get_auto_parallel_context("dump_local_norm")
    device = context.get_auto_parallel_context("dump_device_local_norm")
    if not (per_param or device) or context.get_parallel_mode() not in context.GLOBAL_VIEW_MODES:
        return None   # MindSpore: mirror operators, and so the norms, exist in semi_auto/auto_parallel only
    return per_param, context.get_auto_parallel_context("dump_local_norm_path"), device


def observe(params: Sequence, grads: tuple) -> tuple:
    """`grads` (those of `params`) unchanged; with a local-norm key set in global view, a `LocalNorm` node over
    the trainable Parameters' floating gradients prints or dumps their norms when the step runs."""
    settings = _settings()
    if settings is None:
        return grads
    chosen = [(p.name, g) for p, g in zip(params, grads)
              if getattr(p, "requires_grad", False) and isinstance(g, Tensor)
              and jnp.issubdtype(mstype.to_np(g.dtype), jnp.inexact)]
    if chosen:
        _say_reduced_once()
        per_param, path, device = settings
        apply(local_norms, tuple(g for _, g in chosen),
              {"names": tuple(n for n, _ in chosen), "per_param": per_param, "path": path, "device": device})
    return grads


_said: list[bool] = []


def _say_reduced_once() -> None:
    """The one difference from MindSpore a user can see in the numbers, said once per process."""
    if not _said:
        _said.append(True)
        warnings.warn("dump_local_norm: msx's local norm is of each device's slice of the reduced gradient; "
                      "MindSpore's is of the device's partial gradient before its AllReduce, so with data-parallel "
                      "devices the values differ (docs/parallel.md, 'Local norms')", UserWarning, stacklevel=3)


def _norms(x):
    """(norm in x's dtype, float32 square) of one block: MindSpore's `Sqrt(ReduceSum(Square(x)))`."""
    square = jnp.sum(jnp.square(x))
    return jnp.sqrt(square), square.astype(jnp.float32)


def _per_device(g, name: str):
    """(norms, squares) of `g`, one per device, shaped as the lowering mesh (one device: shape (1,)): the block
    each device holds."""
    mesh = sharding.lowering_mesh()
    if mesh is None:   # not a global-view lowering (PyNative): this process's one device
        norm, square = _norms(g)
        return norm.reshape(1), square.reshape(1)
    if jax.sharding.get_abstract_mesh().manual_axes:   # (a pipeline stage's body; msx puts the node after it)
        raise ContextError(f"dump_local_norm: the gradient of {name} is taken inside a manual shard_map (a "
                           f"pipeline stage's body); take the step's gradient outside the PipelineCell")
    laid = sharding.lowering_parameters().get(name)
    spec = laid.spec if laid is not None else P()
    ones = (1,) * len(mesh.axis_names)

    def block(x):
        norm, square = _norms(x)
        return norm.reshape(ones), square.reshape(ones)

    out = P(*mesh.axis_names)
    return jax.shard_map(block, mesh=mesh, in_specs=(spec,), out_specs=(out, out), check_vma=False)(g)


@primitive("LocalNorm", attrs=("names", "per_param", "path", "device"), multiple_results=True,
           differentiable=False, internal="the local-norm monitor vjp_call adds (msx.parallel.local_norm.observe)")
def local_norms(*grads, names, per_param, path, device):
    """Print or write each gradient's per-device norm (and the device's norm over them) when the step runs."""
    pairs = [_per_device(g, n) for g, n in zip(grads, names)]
    norms = [n for n, _ in pairs]
    device_norm = jnp.sqrt(sum(s for _, s in pairs))
    dtypes = tuple(np.dtype(g.dtype).name for g in grads)
    mesh = sharding.lowering_mesh()

    def emit(ranks, device_norm, *norms):
        _emit(names, dtypes, tagged, per_param, path, device, np.ravel(ranks), np.ravel(device_norm),
              [np.ravel(n) for n in norms])

    if mesh is None:   # one device: an ordered callback, in program order
        tagged = False
        ranks = jnp.full((1,), get_rank() if GlobalComm.INITED else 0, jnp.int32)
        jax.debug.callback(emit, ranks, device_norm, *norms, ordered=True)
        return ()
    # over the mesh: each device's callback gets its own rank (its position in the mesh, MindSpore's rank order)
    # and values, on the process that holds it, so each process writes its own ranks' files (as MindSpore's
    # ranks do); jax refuses ordered effects over several devices, but one device's calls keep their order
    tagged = mesh.devices.size > 1
    laid = jax.sharding.NamedSharding(mesh, P(*mesh.axis_names))
    ranks = jnp.arange(mesh.devices.size, dtype=jnp.int32).reshape(mesh.devices.shape)
    ranks, device_norm, norms = jax.lax.with_sharding_constraint((ranks, device_norm, norms), laid)
    jax.debug.callback(emit, ranks, device_norm, *norms, partitioned=True)
    return ()


def _emit(names, dtypes, tagged, per_param, path, device, ranks, device_norm, norms) -> None:
    for i, rank in enumerate(int(r) for r in ranks):
        prefix = f"[rank {rank}] " if tagged else ""
        if per_param:
            for name, dtype, norm in zip(names, dtypes, norms):
                if path:
                    _write(path, rank, f"local_norm__{name}", dtype, norm[i])
                else:   # MindSpore's ops.Print("dump local norm: ", name, norm), as msx's Print joins it
                    print(f"{prefix}dump local norm:  {name} {norm[i]}", flush=True)
        if device:
            if path:
                _write(path, rank, "device_local_norm", "float32", device_norm[i])
            else:
                print(f"{prefix}dump device local norm: {device_norm[i]}", flush=True)


def _write(path: str, rank: int, stem: str, dtype: str, value) -> None:
    """`<path>/rank_<rank>/<stem>_<dtype>_<id>.npy` (TensorDump's name; `id` counts the rank's dumps), written
    atomically in numpy's format without pickle; bfloat16 is stored as float32, as TensorDump does."""
    folder = os.path.join(path, f"rank_{rank}")
    with _ids_lock:
        index = next(_ids.setdefault(os.path.abspath(folder), itertools.count()))
    os.makedirs(folder, exist_ok=True)
    array = np.asarray(value)
    if dtype == "bfloat16":
        array = array.astype(np.float32)
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    write_atomic(dump_path(os.path.join(folder, stem), dtype, index), [buf.getvalue()])
