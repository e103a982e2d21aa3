"""Record MindSpore 2.10's CPU answers for the embedding-cache ops (`tests/test_embedding_cache_ops.py`):
PadAndShift, SubAndFilter, UpdateCache, DynamicAssign and MapCacheIdx. Run with MindSpore's venv from the
repository root:

    /work/main/.venv-ms/bin/python tests/golden_ops/record_embedding_cache.py

The in-place ops (UpdateCache, DynamicAssign, MapCacheIdx's hashmap and step) are recorded by what their
Parameters hold afterwards; their own outputs are never written by MindSpore's CPU kernels (a [1] or dummy
tensor of stale memory) and are not recorded. CacheSwapTable has no CPU kernel (an AiCPU op): its test uses
the AiCPU kernel's unit-test data instead.
"""
from __future__ import annotations

import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "embedding_cache_ms210.json")
GOLDEN = 0.6180339


def hashmap(length: int, keys: list, step: int = -5) -> np.ndarray:
    """A MindSpore cache hashmap (rows [key, value, step, tag]; tag 0: empty) holding `keys` with cache
    slots 0, 1, ... inserted by its linear probing (tag: the probe count)."""
    h = np.zeros((length, 4), np.int32)
    for slot, key in enumerate(keys):
        e = int((GOLDEN * key - np.floor(GOLDEN * key)) * length)
        tag = 1
        while h[e, 3] != 0:
            e = (e + 1) % length
            tag += 1
        h[e] = (key, slot, step, tag)
    return h


# MindSpore's kernel writes into a buffer of input_x's size: an output longer than input_x fails ("pad_short")
PAD = {"pad": ([9, 13, -1, -1, -1, -1, -1, -1], [0, 3, 5], 1, "int32"),
       "pad_first": ([4, 5, 6, 7, 0, 0], [0, 2, 3, 6], 0, "int32"),
       "pad_i64": ([9, 13, 7, 8], [0, 1, 4], 1, "int64"),
       "pad_last": ([1, 2, 3, 4, 5, 6, 7], [0, 2, 4, 7], 2, "int32"),
       "pad_short": ([4, 5, 6, 7], [0, 2, 3, 6], 0, "int32")}
SUB = {"sub": ([1, 3, 5, 8, 9, 16], 10, 5, "int32"), "sub_i64": ([1, 3, 5, 8, 9, 16], 4, 2, "int64"),
       "sub_none": ([1, 3], 10, 5, "int32"), "sub_2d": ([[1, 3, 5], [8, 9, 16]], 10, 5, "int32"),
       "sub_neg": ([-3, 0, 2, 7], 6, -2, "int32")}
UPDATE = {"update": ([1, 5, -1, 2], 4, "float32"), "update_max": ([1, 3, 0, 2], 2, "float32"),
          "update_dup": ([1, 1, 0, 2], 4, "float32"), "update_int": ([1, 3], 4, "int32")}
MAP = {"map_hits": (16, [10, 11, 12, 13], [10, 12, 10], 3, 20, 0),
       "map_miss": (16, [10, 11, 12, 13], [10, 14, 3, 15, 25], 3, 20, 0),
       "map_offset": (16, [0, 1, 2, 3], [100, 104, 101, 130, 99], 3, 20, 100),
       "map_evict_used": (8, [1, 2, 3, 4], [5, 1, 6], 0, 10, 0)}


def main():
    import mindspore as ms
    from mindspore import Parameter, Tensor
    from mindspore.ops.operations import _embedding_cache_ops as E
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    rec = {"pad": {}, "sub": {}, "update": {}, "assign": {}, "map": {}}

    def err(exc):
        return {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0]}"}

    for cid, (x, cum, idx, dt) in PAD.items():
        try:
            out = E.PadAndShift()(Tensor(np.array(x, dt)), Tensor(np.array(cum, dt)), idx).asnumpy()
            rec["pad"][cid] = {"out": out.tolist(), "dtype": str(out.dtype)}
        except Exception as exc:  # noqa: BLE001
            rec["pad"][cid] = err(exc)
        rec["pad"][cid].update(x=x, cum=cum, idx=idx, dt=dt)
    for cid, (x, max_num, offset, dt) in SUB.items():
        res, pos = E.SubAndFilter()(Tensor(np.array(x, dt)), max_num, offset)
        rec["sub"][cid] = {"x": x, "max_num": max_num, "offset": offset, "dt": dt, "res": res.asnumpy().tolist(),
                           "idx": pos.asnumpy().tolist(), "dtype": str(res.asnumpy().dtype)}
    for cid, (idx, max_num, dt) in UPDATE.items():
        x = Parameter(Tensor(np.zeros((4, 2), dt)), name="x")
        upd = np.arange(1, 1 + 2 * len(idx)).reshape(len(idx), 2).astype(dt)
        E.UpdateCache()(x, Tensor(np.array(idx, np.int32)), Tensor(upd), max_num)
        rec["update"][cid] = {"idx": idx, "max_num": max_num, "dt": dt, "after": x.asnumpy().tolist()}
    for cid, value in {"assign": np.arange(4, dtype=np.float32).reshape(2, 2),
                       "assign_int": np.arange(4, dtype=np.int32).reshape(2, 2)}.items():
        x = Parameter(Tensor(np.zeros((2, 2), np.float32)), name="x")
        E.DynamicAssign()(x, Tensor(value))
        rec["assign"][cid] = {"value": value.tolist(), "dt": str(value.dtype), "after": x.asnumpy().tolist()}
    for cid, (length, keys, indices, step, emb_max, offset) in MAP.items():
        h0 = hashmap(length, keys)
        h = Parameter(Tensor(h0.copy()), name="h")
        s = Parameter(Tensor(np.array([step], np.int32)), name="s")
        try:
            outs = E.MapCacheIdx()(h, Tensor(np.array(indices, np.int32)), s, emb_max, offset)
            r = {"outs": [o.asnumpy().tolist() for o in outs]}
        except Exception as exc:  # noqa: BLE001
            r = err(exc)
        r.update(hashmap=h0.tolist(), indices=indices, step=step, emb_max_num=emb_max, offset=offset,
                 hashmap_after=h.asnumpy().tolist(), step_after=s.asnumpy().tolist())
        rec["map"][cid] = r
    with open(OUT, "w") as f:
        json.dump(rec, f, indent=1)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
