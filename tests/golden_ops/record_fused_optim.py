"""Record MindSpore 2.10's CPU answers for the fused optimizer-update ops that have a CPU kernel
(`tests/test_fused_optim_ops.py`), run with MindSpore's venv from the repository root:

    /work/main/.venv-ms/bin/python tests/golden_ops/record_fused_optim.py

The ops write their Parameters in place, so each case records what the op returns and what every
Parameter holds afterwards. FusedWeightScaleApplyMomentum, LARSUpdate, LambApplyOptimizerAssign and
LambApplyWeightAssign have no CPU kernel (kernel selection fails): the test checks them against the
formulas of MindSpore's GPU/Ascend kernels instead.
"""
from __future__ import annotations

import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fused_optim_ms210.json")


def inputs():
    rng = np.random.default_rng(0)
    return {"var": rng.uniform(0.5, 1.5, (3, 2)).astype(np.float32),
            "m": rng.uniform(0.1, 1.0, (3, 2)).astype(np.float32),
            "v": rng.uniform(0.1, 1.0, (3, 2)).astype(np.float32),
            "linear": rng.uniform(-0.5, 0.5, (3, 2)).astype(np.float32),
            "grad2": rng.uniform(-1, 1, (2, 2)).astype(np.float32),
            "grad3": rng.uniform(-1, 1, (3, 2)).astype(np.float32),
            "p3": rng.uniform(0.5, 1.5, (2, 3, 2)).astype(np.float32),
            "g3": rng.uniform(-1, 1, (2, 3, 2)).astype(np.float32),
            "ea3": rng.uniform(-0.1, 0.1, (2, 3, 2)).astype(np.float32),
            "row3": rng.uniform(0.01, 0.1, (2, 3)).astype(np.float32),
            "col3": rng.uniform(0.01, 0.1, (2, 2)).astype(np.float32),
            "p1": rng.uniform(0.5, 1.5, (5,)).astype(np.float32),
            "g1": rng.uniform(-1, 1, (5,)).astype(np.float32),
            "sq1": rng.uniform(0.01, 0.1, (5,)).astype(np.float32),
            "z1": np.zeros((1,), np.float32)}


_ADAM = [("f32", 0.9), ("f32", 0.999), ("f32", 0.01), ("f32", 0.9), ("f32", 0.999), ("f32", 1e-8)]
# id: (op, init kwargs, inputs: names of `inputs()` arrays or ("f32"|"f16"|"i32"|"py", value) /
#      ("cast16", name), which of them are Parameters (positions), indices or None)
CASES = {
    "sparse_adam": ("FusedSparseAdam", {}, ["var", "m", "v"] + _ADAM + ["grad2"], (0, 1, 2), [0, 2]),
    "sparse_adam_dup": ("FusedSparseAdam", {}, ["var", "m", "v"] + _ADAM + ["grad2"], (0, 1, 2), [1, 1]),
    "sparse_adam_nesterov": ("FusedSparseAdam", {"use_nesterov": True}, ["var", "m", "v"] + _ADAM + ["grad2"],
                             (0, 1, 2), [2, 0]),
    "lazy_adam": ("FusedSparseLazyAdam", {}, ["var", "m", "v"] + _ADAM + ["grad2"], (0, 1, 2), [0, 2]),
    "lazy_adam_dup": ("FusedSparseLazyAdam", {}, ["var", "m", "v"] + _ADAM + ["grad2"], (0, 1, 2), [1, 1]),
    "lazy_adam_nesterov": ("FusedSparseLazyAdam", {"use_nesterov": True}, ["var", "m", "v"] + _ADAM + ["grad2"],
                           (0, 1, 2), [2, 0]),
    "ftrl": ("FusedSparseFtrl", {"lr": 0.1, "l1": 0.01, "l2": 0.02, "lr_power": -0.5},
             ["var", "m", "linear", "grad2"], (0, 1, 2), [0, 2]),
    "ftrl_dup": ("FusedSparseFtrl", {"lr": 0.1, "l1": 0.01, "l2": 0.02, "lr_power": -0.5},
                 ["var", "m", "linear", "grad2"], (0, 1, 2), [1, 1]),
    "ftrl_power": ("FusedSparseFtrl", {"lr": 0.1, "l1": 0.0, "l2": 0.02, "lr_power": -0.3},
                   ["var", "m", "linear", "grad2"], (0, 1, 2), [2, 1]),
    "prox": ("FusedSparseProximalAdagrad", {}, ["var", "m", ("f32", 0.1), ("f32", 0.01), ("f32", 0.02), "grad2"],
             (0, 1), [0, 2]),
    "prox_dup": ("FusedSparseProximalAdagrad", {}, ["var", "m", ("f32", 0.1), ("f32", 0.01), ("f32", 0.02),
                                                     "grad2"], (0, 1), [1, 1]),
    "adam_no_update": ("AdamNoUpdateParam", {}, ["m", "v"] + _ADAM + ["grad3"], (0, 1), None),
    "adam_no_update_nesterov": ("AdamNoUpdateParam", {"use_nesterov": True}, ["m", "v"] + _ADAM + ["grad3"], (0, 1),
                                None),
    "cast_adam_wd": ("FusedCastAdamWeightDecay", {}, ["var", "m", "v", ("py", 0.01), ("py", 0.9), ("py", 0.999),
                                                      ("py", 1e-8), ("py", 0.1), ("cast16", "grad3"), ("py", 2.0)],
                     (0, 1, 2), None),
    "cast_adam_wd_f16": ("FusedCastAdamWeightDecay", {}, [("cast16", "var"), "m", "v", ("py", 0.01), ("py", 0.9),
                                                          ("py", 0.999), ("py", 1e-8), ("py", 0.0),
                                                          ("cast16", "grad3"), ("py", 1e-12)], (0, 1, 2), None),
}
_AF = [("py", (1e-30, 1e-3)), ("py", 1.0), ("py", 0.9), ("py", 0.8), ("py", 1e-2), ("py", 0.03)]
for _flags in ((False, False, False), (True, True, True), (True, False, False), (False, True, True)):
    _init = dict(zip(("enable_scale_parameter", "enable_first_moment", "enable_weight_decay"), _flags))
    _tag = "".join("1" if f else "0" for f in _flags)
    CASES[f"adafactor_{_tag}"] = ("FusedAdaFactor", _init, _AF + ["g3", "p3", "ea3", "row3", "col3", "p3"],
                                  (7, 8, 9, 10, 11), None)
    CASES[f"adafactor_gn_{_tag}"] = ("FusedAdaFactorWithGlobalNorm", _init,
                                     _AF + ["g3", "p3", "ea3", "row3", "col3", "p3", ("py", 2.0)],
                                     (7, 8, 9, 10, 11), None)
CASES["adafactor_vec"] = ("FusedAdaFactor", {"enable_scale_parameter": True}, _AF + ["g1", "p1", "z1", "z1", "z1",
                                                                                    "sq1"], (7, 8, 9, 10, 11), None)
CASES["adafactor_clip"] = ("FusedAdaFactor", {}, [("py", (1e-30, 1e-3)), ("py", 0.05), ("py", 0.9), ("py", 0.8),
                                                   ("py", 0.0), ("py", 0.5), "g3", "p3", "ea3", "row3", "col3", "p3"],
                           (7, 8, 9, 10, 11), None)
CASES["adafactor_gn_tiny"] = ("FusedAdaFactorWithGlobalNorm", {}, _AF + ["g3", "p3", "ea3", "row3", "col3", "p3",
                                                                         ("py", 1e-31)], (7, 8, 9, 10, 11), None)
_NP = {"i32": np.int32, "f32": np.float32, "f16": np.float16}


def main():
    import mindspore as ms
    from mindspore import Parameter, Tensor
    from mindspore.ops import operations as P
    from mindspore.ops.operations import inner_ops as I
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    data = inputs()
    rec = {"inputs": {k: v.tolist() for k, v in data.items()}, "cases": {}}

    def arr(spec):
        if isinstance(spec, str):
            return data[spec].copy()
        kind, value = spec
        if kind == "cast16":
            return data[value].astype(np.float16)
        return value if kind == "py" else np.array(value, _NP[kind])

    for cid, (op, init, names, params, idx) in CASES.items():
        args = [arr(s) for s in names]
        args = [Parameter(Tensor(a), name=f"p{k}") if k in params
                else (a if isinstance(a, (float, int, tuple)) else Tensor(a)) for k, a in enumerate(args)]
        if idx is not None:
            args.append(Tensor(np.array(idx, np.int32)))
        cls = getattr(P, op, None) or getattr(I, op)
        try:
            out = cls(**init)(*args)
        except Exception as exc:  # noqa: BLE001
            rec["cases"][cid] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0]}"}
            continue
        outs = out if isinstance(out, tuple) else (out,)
        rec["cases"][cid] = {
            "op": op, "init": init, "inputs": [n if isinstance(n, str) else list(n) for n in names],
            "params": list(params), "indices": idx, "tuple": isinstance(out, tuple),
            "outs": [{"dtype": str(o.asnumpy().dtype), "shape": list(o.shape), "value": o.asnumpy().tolist()}
                     for o in outs],
            "after": {str(k): args[k].asnumpy().astype(np.float64).tolist() for k in params}}
    with open(OUT, "w") as f:
        json.dump(rec, f, indent=1)
    print("wrote", OUT, len(rec["cases"]), "cases")


if __name__ == "__main__":
    main()
