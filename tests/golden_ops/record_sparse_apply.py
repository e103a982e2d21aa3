"""Record MindSpore 2.10's CPU answers for the sparse optimizer-update ops and the sparse-tensor ops
(`tests/test_sparse_apply_ops.py`), run with MindSpore's venv from the repository root:

    /work/main/.venv-ms/bin/python tests/golden_ops/record_sparse_apply.py

The update ops write Parameters in place, which `ops_record.py`'s cases do not see, so this script records
both what each op returns and what its Parameters hold afterwards. A case with duplicated indices runs
three times: `deterministic: false` marks a kernel whose answer races between threads there (only its slots
are compared). Out-of-range indices are recorded for SparseApplyAdagrad only: MindSpore's CPU kernel aborts
the process for SparseApplyAdagradV2, raises a RuntimeError for SparseApplyRMSProp (msx: an OpIndexError),
and leaves the process unsound for SparseApplyFtrl (it logs an error, skips the row, and a later call in
the same process died of a corrupted heap). SparseApplyFtrlV2, SparseApplyProximalAdagrad and
SparseApplyAdadelta have no CPU kernel (the test checks them against the documented formulas).
"""
from __future__ import annotations

import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "sparse_apply_ms210.json")


def inputs():
    rng = np.random.default_rng(0)
    return {"var": rng.uniform(0.5, 1.5, (3, 2)).astype(np.float32),
            "accum": rng.uniform(0.1, 1.0, (3, 2)).astype(np.float32),
            "linear": rng.uniform(-0.5, 0.5, (3, 2)).astype(np.float32),
            "grad2": rng.uniform(-1, 1, (2, 2)).astype(np.float32),
            "grad3": rng.uniform(-1, 1, (3, 2)).astype(np.float32)}


# id: (op, init kwargs, inputs: names of `inputs()` arrays (Parameters first, `n_params` of them), or
#      ("f32", x) / ("i32", [...]) / ("py", x) values), n_params)
APPLY = {
    "adagrad": ("SparseApplyAdagrad", {"lr": 0.1}, ["var", "accum", "grad2"], 2),
    "adagrad_noslots": ("SparseApplyAdagrad", {"lr": 0.1, "update_slots": False}, ["var", "accum", "grad2"], 2),
    "adagradv2": ("SparseApplyAdagradV2", {"lr": 0.1, "epsilon": 1e-6}, ["var", "accum", "grad2"], 2),
    "adagradv2_noslots": ("SparseApplyAdagradV2", {"lr": 0.1, "epsilon": 1e-6, "update_slots": False},
                          ["var", "accum", "grad2"], 2),
    "ftrl": ("SparseApplyFtrl", {"lr": 0.1, "l1": 0.01, "l2": 0.02, "lr_power": -0.5},
             ["var", "accum", "linear", "grad2"], 3),
    "ftrl_power": ("SparseApplyFtrl", {"lr": 0.1, "l1": 0.0, "l2": 0.02, "lr_power": -0.3},
                   ["var", "accum", "linear", "grad2"], 3),
    "rmsprop": ("SparseApplyRMSProp", {"rho": 0.9, "momentum": 0.5, "epsilon": 1e-6},
                ["var", "accum", "linear", ("f32", 0.1), "grad3"], 3),
}
INDICES = {"adagrad": [[0, 2], [1, 1], [2, 0], [0, 3], [-1, 0]], "adagrad_noslots": [[0, 2], [1, 1]],
           "adagradv2": [[0, 2], [1, 1], [2, 0]], "adagradv2_noslots": [[0, 2]],
           "ftrl": [[0, 2], [1, 1]], "ftrl_power": [[2, 1], [1, 1]],
           "rmsprop": [[0, 2, 1], [1, 1, 0], [2, 1, 0]]}
DENSE = {
    "adagrad_da": ("ApplyAdagradDA", {}, ["var", "linear", "accum", "grad3", ("f32", 0.1), ("f32", 0.01),
                                           ("f32", 0.02), ("i32", 3)], 3),
    "adagrad_da_l1_0": ("ApplyAdagradDA", {}, ["var", "linear", "accum", "grad3", ("f32", 0.1), ("f32", 0.0),
                                                ("f32", 0.02), ("i32", 2)], 3),
    "ftrl_dense": ("ApplyFtrl", {}, ["var", "accum", "linear", "grad3", ("py", 0.1), ("py", 0.01), ("py", 0.02),
                                      ("py", -0.5)], 3),
    "ftrl_dense_p0": ("ApplyFtrl", {}, ["var", "accum", "linear", "grad3", ("py", 0.1), ("py", 0.0), ("py", 0.02),
                                         ("py", 0.0)], 3),
}

_I = [[0, 1], [1, 2], [2, 0]]
_DUP = [[0, 1], [0, 1], [2, 0]]
_VALS = [1.0, 2.0, 3.0]
_D34 = (np.arange(12, dtype=np.float32).reshape(3, 4) / 10).tolist()
_D32 = (np.arange(6, dtype=np.float32).reshape(3, 2) / 10).tolist()
_D23 = (np.arange(6, dtype=np.float32).reshape(2, 3) / 10).tolist()
# id: (op, init kwargs, args: ("i64"|"i32"|"f32", value) tensors or ("py", value))
SPARSE = {
    "s2d": ("SparseToDense", {}, [("i64", _I), ("f32", _VALS), ("py", (3, 4))]),
    "s2d_i32": ("SparseToDense", {}, [("i32", _I), ("f32", _VALS), ("py", (3, 4))]),
    "s2d_dup": ("SparseToDense", {}, [("i64", _DUP), ("f32", _VALS), ("py", (3, 4))]),
    "s2d_oob": ("SparseToDense", {}, [("i64", [[0, 1], [3, 2], [2, 0]]), ("f32", _VALS), ("py", (3, 4))]),
    "add": ("SparseTensorDenseAdd", {}, [("i64", _I), ("f32", _VALS), ("i64", [3, 4]), ("f32", _D34)]),
    "add_dup": ("SparseTensorDenseAdd", {}, [("i64", _DUP), ("f32", _VALS), ("i64", [3, 4]), ("f32", _D34)]),
    "add_oob": ("SparseTensorDenseAdd", {}, [("i64", [[0, 1], [0, 4], [2, 0]]), ("f32", _VALS), ("i64", [3, 4]),
                                             ("f32", _D34)]),
    "mm": ("SparseTensorDenseMatmul", {}, [("i64", _I), ("f32", _VALS), ("py", (3, 3)), ("f32", _D32)]),
    "mm_dup": ("SparseTensorDenseMatmul", {}, [("i64", _DUP), ("f32", _VALS), ("py", (3, 3)), ("f32", _D32)]),
    "mm_st": ("SparseTensorDenseMatmul", {"adjoint_st": True}, [("i64", _I), ("f32", _VALS), ("py", (3, 3)),
                                                                ("f32", _D32)]),
    "mm_dt": ("SparseTensorDenseMatmul", {"adjoint_dt": True}, [("i64", _I), ("f32", _VALS), ("py", (3, 3)),
                                                                ("f32", _D23)]),
    "mm_st_dt": ("SparseTensorDenseMatmul", {"adjoint_st": True, "adjoint_dt": True},
                 [("i64", _I), ("f32", _VALS), ("py", (3, 3)), ("f32", _D23)]),
    "mm_rect": ("SparseTensorDenseMatmul", {}, [("i64", [[0, 3], [1, 0]]), ("f32", [1.0, 2.0]), ("py", (2, 4)),
                                                ("f32", _D34[:3] + [[1.0, 2.0, 3.0, 4.0]])]),
    "mm_oob": ("SparseTensorDenseMatmul", {}, [("i64", [[0, 1], [1, 3], [2, 0]]), ("f32", _VALS), ("py", (3, 3)),
                                               ("f32", _D32)]),
    "slice": ("SparseSlice", {}, [("i64", [[0, 1], [1, 2], [2, 0], [2, 3]]), ("f32", [1., 2., 3., 4.]),
                                  ("i64", [3, 4]), ("i64", [1, 0]), ("i64", [2, 3])]),
    "slice_clip": ("SparseSlice", {}, [("i64", [[0, 1], [1, 2], [2, 0], [2, 3]]), ("f32", [1., 2., 3., 4.]),
                                       ("i64", [3, 4]), ("i64", [1, 2]), ("i64", [5, 5])]),
    "slice_unsorted": ("SparseSlice", {}, [("i64", [[2, 3], [1, 2], [2, 0], [0, 1]]), ("f32", [1., 2., 3., 4.]),
                                           ("i64", [3, 4]), ("i64", [0, 1]), ("i64", [3, 3])]),
    "slice_empty": ("SparseSlice", {}, [("i64", [[0, 1], [1, 2]]), ("f32", [1., 2.]), ("i64", [3, 4]),
                                        ("i64", [2, 0]), ("i64", [1, 4])]),
    "slice_past_end": ("SparseSlice", {}, [("i64", [[0, 1], [1, 2]]), ("f32", [1., 2.]), ("i64", [3, 4]),
                                           ("i64", [4, 0]), ("i64", [1, 4])]),
}
_NP = {"i64": np.int64, "i32": np.int32, "f32": np.float32}


def _show(out):
    outs = out if isinstance(out, tuple) else (out,)
    return {"tuple": isinstance(out, tuple),
            "outs": [{"dtype": str(np.asarray(o.asnumpy()).dtype), "shape": list(o.shape),
                      "value": np.asarray(o.asnumpy()).tolist()} for o in outs]}


def main():
    import mindspore as ms
    from mindspore import Parameter, Tensor
    from mindspore.ops import operations as P
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    data = inputs()
    rec = {"inputs": {k: v.tolist() for k, v in data.items()}, "apply": {}, "sparse": {}}

    def arg(spec):
        if isinstance(spec, str):
            return Tensor(data[spec])
        kind, value = spec
        return value if kind == "py" else Tensor(np.array(value, _NP[kind]))

    def run_update(op, init, names, n_params, idx):
        params = [Parameter(Tensor(data[n].copy()), name=f"p{i}") for i, n in enumerate(names[:n_params])]
        rest = [arg(s) for s in names[n_params:]]
        if idx is not None:
            rest.append(Tensor(np.array(idx, np.int32)))
        try:
            out = getattr(P, op)(**init)(*params, *rest)
        except Exception as exc:  # noqa: BLE001
            return {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0]}"}
        r = _show(out)
        r["params"] = [p.asnumpy().tolist() for p in params]
        return r

    for cid, (op, init, names, n_params) in APPLY.items():
        for idx in INDICES[cid]:
            key = f"{cid}_{'_'.join(str(i) for i in idx)}"
            runs = [run_update(op, init, names, n_params, idx) for _ in range(3 if len(set(idx)) < len(idx) else 1)]
            r = runs[0]
            r.update(op=op, init=init, inputs=[n if isinstance(n, str) else list(n) for n in names],
                     n_params=n_params, indices=idx, deterministic=all(x == runs[0] for x in runs))
            rec["apply"][key] = r
    for cid, (op, init, names, n_params) in DENSE.items():
        r = run_update(op, init, names, n_params, None)
        r.update(op=op, init=init, inputs=[n if isinstance(n, str) else list(n) for n in names], n_params=n_params,
                 indices=None, deterministic=True)
        rec["apply"][cid] = r
    for cid, (op, init, args) in SPARSE.items():
        try:
            r = _show(getattr(P, op)(**init)(*[arg(a) for a in args]))
        except Exception as exc:  # noqa: BLE001
            r = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0]}"}
        r.update(op=op, init=init, args=[list(a) for a in args])
        rec["sparse"][cid] = r
    with open(OUT, "w") as f:
        json.dump(rec, f, indent=1)
    print("wrote", OUT, len(rec["apply"]), "update cases,", len(rec["sparse"]), "sparse cases")


if __name__ == "__main__":
    main()
