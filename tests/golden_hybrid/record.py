"""Record MindSpore 2.10's answers for msx's Hybrid DSL, `ops.DataType`, `ops.CustomRegOp` and
`mindspore.common.RowTensorInner` (run once, and whenever kernels.py or the cases below change):

    cd $(mktemp -d) && PYTHONPATH=<dir holding decorator.py> /work/main/.venv-ms/bin/python \
        <repo>/tests/golden_hybrid/record.py

MindSpore's CPU build compiles `func_type="hybrid"` with its bundled AKG, which imports the `decorator`
package (not a dependency of the wheel): put it on PYTHONPATH. AKG writes its build files
(`akg_kernel_meta/`) into the working directory, hence the scratch directory. Writes tests/golden_hybrid/golden.json
atomically; the main suite reads only that file and never needs MindSpore.
"""
from __future__ import annotations

import json
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mindspore as ms  # noqa: E402
from mindspore import Tensor, ops  # noqa: E402
from mindspore.common import RowTensorInner  # noqa: E402
from mindspore.ops import CustomRegOp, DataType, kernel  # noqa: E402

import kernels  # noqa: E402


def _arr(x) -> dict:
    x = np.asarray(x)
    return {"dtype": str(x.dtype), "shape": list(x.shape), "data": x.ravel().tolist()}


def _error(fn) -> dict:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 -- the record is which error MindSpore raises
        message = re.sub(r" at 0x[0-9a-f]+", "", str(exc).split("\n")[0])  # no addresses: reruns give one file
        return {"type": type(exc).__name__, "message": message}
    return {"type": None, "message": ""}


def datatype() -> dict:
    return {k: list(v) for k, v in vars(DataType).items() if not k.startswith("_")}


def reg_ops() -> dict:
    info = (CustomRegOp().input(0, "a").input(1, "b").output(0, "y")
            .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default)
            .dtype_format(DataType.I32_None, DataType.I32_None, DataType.I32_None)
            .attr("alpha", "required", "float", "1.0").target("CPU").get_op_info())
    bare = CustomRegOp("MyOp").input(0, "x", "dynamic", extra=1).output(0, "y", None).get_op_info()
    return {
        "info": info, "bare": bare,
        "errors": {
            "dtype_format_count": _error(lambda: CustomRegOp().input(0, "x").dtype_format(DataType.F32_Default,
                                                                                         DataType.F32_Default)),
            "dtype_format_item": _error(lambda: CustomRegOp().input(0, "x").dtype_format(("float32",))),
            "dtype_format_str": _error(lambda: CustomRegOp().input(0, "x").dtype_format((1, "x"))),
            "input_index": _error(lambda: CustomRegOp().input("0", "x")),
            "input_name": _error(lambda: CustomRegOp().input(0, 3)),
            "attr_value": _error(lambda: CustomRegOp().attr("a", "required", "float", 1.0)),
            "target": _error(lambda: CustomRegOp().target(3)),
            "op_name_empty": _error(lambda: CustomRegOp(" ")),
            "op_name_type": _error(lambda: CustomRegOp(3)),
        },
    }


def hybrid() -> dict:
    out = {}
    for name, (fn, inputs) in kernels.CASES.items():
        xs = inputs()
        k = kernel(fn)
        direct = k(*[x.copy() for x in xs])
        op = ops.Custom(k, func_type="hybrid")
        ts = [Tensor(x) for x in xs]
        got = op(*ts)
        out[name] = {"inputs": [_arr(x) for x in xs], "pyfunc": _arr(direct), "hybrid": _arr(got.asnumpy()),
                     "inputs_after": [_arr(t.asnumpy()) for t in ts]}
    for name, (fn, inputs, shapes, dtypes) in kernels.MULTI.items():
        xs = inputs()
        k = kernel(fn)
        direct = k(*[x.copy() for x in xs])
        op = ops.Custom(k, out_shape=shapes, out_dtype=[getattr(ms, d) for d in dtypes], func_type="hybrid")
        got = op(*[Tensor(x) for x in xs])
        out[name] = {"inputs": [_arr(x) for x in xs], "pyfunc": [_arr(d) for d in direct],
                     "hybrid": [_arr(g.asnumpy()) for g in got],
                     "auto_infer_error": _error(lambda: ops.Custom(k, func_type="hybrid")(*[Tensor(x) for x in xs]))}
    f32_only = (CustomRegOp().input(0, "a").input(1, "b").output(0, "c")
                .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default).target("CPU")
                .get_op_info())
    ints = [Tensor(np.arange(3, dtype=np.int32)), Tensor(np.arange(3, dtype=np.int32))]
    out["reg_info_mismatch"] = _error(lambda: ops.Custom(kernel(kernels.int_add), func_type="hybrid",
                                                         reg_info=f32_only)(*ints))
    floats = [Tensor(np.arange(3, dtype=np.float32)), Tensor(np.ones(3, dtype=np.float32))]
    out["reg_info_match"] = _arr(ops.Custom(kernel(kernels.int_add), func_type="hybrid",
                                            reg_info=f32_only)(*floats).asnumpy())
    return out


def kernel_attrs() -> dict:
    info = CustomRegOp().input(0, "a").output(0, "y").dtype_format(DataType.F32_None, DataType.F32_None) \
        .target("CPU").get_op_info()
    k = kernel(reg_info=info, compile_attrs={"test1": True, "test2": "good", "test3": 12})(kernels.unary_mix)
    plain = kernel(kernels.row_sum)
    return {
        "decorated": {"ms_kernel_flag": k.ms_kernel_flag, "compile_attrs": k.compile_attrs, "reg_info": k.reg_info,
                      "name": k.__name__, "wrapped": k.__wrapped__ is kernels.unary_mix},
        "plain": {"compile_attrs": plain.compile_attrs, "has_reg_info": hasattr(plain, "reg_info")},
        "errors": {
            "compile_attrs_type": _error(lambda: kernel(kernels.row_sum, compile_attrs=[1])),
            "compile_attrs_key": _error(lambda: kernel(kernels.row_sum, compile_attrs={1: 2})),
            "reg_info_type": _error(lambda: kernel(kernels.row_sum, reg_info=3)),
            "custom_undecorated": _static_case("def f(a):\n    return a\n", decorate=False),
        },
    }


def _static_case(source: str, decorate: bool = True):
    namespace: dict = {}
    path = os.path.join(HERE, "_static_case.py")  # MindSpore reads the function's source from its file
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    try:
        exec(compile(source, path, "exec"), namespace)  # noqa: S102 -- our own fixed source text
        fn = next(v for k, v in namespace.items() if callable(v) and not k.startswith("__"))
        return _error(lambda: ops.Custom(kernel(fn) if decorate else fn, func_type="hybrid"))
    finally:
        os.remove(path)




def rowtensor() -> dict:
    idx, val = Tensor(np.array([0, 2], np.int32)), Tensor(np.array([[1, 2], [3, 4]], np.float32))
    r = RowTensorInner(idx, val, (3, 2))
    copy = RowTensorInner(row_tensor=r)
    pub = ms.RowTensor(idx, val, (3, 2))
    return {
        "indices": _arr(r.indices.asnumpy()), "values": _arr(r.values.asnumpy()), "dense_shape": list(r.dense_shape),
        "copy_indices": _arr(copy.indices.asnumpy()), "copy_shape": list(copy.dense_shape),
        "public_is_inner": isinstance(pub, RowTensorInner), "inner_from_public": list(
            RowTensorInner(row_tensor=pub).dense_shape),
        "public_from_inner": list(ms.RowTensor(row_tensor=r).dense_shape),
        "has_to_dense": hasattr(r, "to_dense"),
        "errors": {
            "row_tensor_type": _error(lambda: RowTensorInner(row_tensor=3)),
            "row_tensor_and_parts": _error(lambda: RowTensorInner(idx, row_tensor=r)),
        },
    }


def main() -> None:
    ms.set_context(device_target="CPU")
    golden = {"mindspore": ms.__version__, "datatype": datatype(), "reg_op": reg_ops(), "hybrid": hybrid(),
              "kernel": kernel_attrs(), "static": {k: _static_case(v) for k, v in kernels.STATIC.items()},
              "rowtensor": rowtensor()}
    path = os.path.join(HERE, "golden.json")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
    os.replace(tmp, path)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
