"""The communication class ops and `reshard` in ONE process of 8 host devices (run by tests/test_comm_class_ops.py
under XLA_FLAGS=--xla_force_host_platform_device_count=8); prints one JSON object.

A rank is a process, so here the job is one rank: the collectives keep their one-rank meaning on a process that
drives 8 devices, eagerly and jitted. `reshard` in SEMI_AUTO_PARALLEL over the 8 devices becomes a sharding
constraint of the compiled program (its StableHLO names the layout's device grid) with unchanged values."""
import json
import warnings

import jax
import numpy as np

import msx as ms
from msx import ops
from msx.communication import init

warnings.simplefilter("ignore")
init()
res = {"devices": len(jax.devices())}
x = ms.Tensor(np.arange(32, dtype=np.float32).reshape(8, 4))


def one_rank(a):
    parts = [ops.AlltoAll(1, 0, 1)(a), ops.AllGatherV()(a.reshape(-1), [32]).reshape(8, 4),
             ops.ReduceScatterV("max")(a.reshape(-1), [32]).reshape(8, 4), ops.CollectiveGather(0)(a),
             ops.CollectiveScatter(0)(a), ops.Reduce(0)(a), ops.AlltoAllVC()(a.reshape(-1), [32]).reshape(8, 4),
             ops.NeighborExchangeV2([-1] * 8, [0, 0, 0, 0], [-1] * 8, [0, 0, 0, 0], "NCHW")(a.reshape(1, 1, 8, 4))
             .reshape(8, 4)]
    ops.Barrier()()
    return ops.stack(parts)


res["one_rank"] = one_rank(x).asnumpy().tolist()
res["jit_one_rank"] = ms.jit(one_rank)(x).asnumpy().tolist()
layout = ms.Layout((4, 2), ("dp", "mp"))
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=8)


def resharded(a):
    return ms.reshard(a * 2, layout("dp", "mp")) + 1


def moved(a):
    r = ops.Reshard((layout("dp", "mp"),), (layout(("dp", "mp"), "None"),), ((4, 2),))
    return r(a) * 3


for name, fn in (("reshard", resharded), ("Reshard", moved)):
    jitted = ms.jit(fn)
    res[name] = jitted(x).asnumpy().tolist()
    res[f"{name}_eager"] = fn(x).asnumpy().tolist()
    hlo = jitted.lower(x).as_text()
    res[f"{name}_shardings"] = [line.split("<@mesh, ")[1].split(">")[0] for line in hlo.splitlines()
                                 if "sdy.sharding_constraint" in line]
try:
    ms.jit(lambda a: ops.reshard(a, layout("dp", "mp", "None")))(x)
    res["bad_layout"] = "no error"
except Exception as exc:  # noqa: BLE001
    res["bad_layout"] = f"{type(exc).__name__}: {exc}"
res["move_to"] = [x.move_to("CPU").device, ops.move_to(x, "CPU").asnumpy().tolist() == x.asnumpy().tolist()]
print(json.dumps(res))
