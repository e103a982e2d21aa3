"""Op cases that real MindSpore answers once (tools/record_goldens.py) and msx is checked against.

Plain Python and numpy only: this file is imported both by the recorder, running in the MindSpore venv,
and by tests/test_oracle.py in msx's environment. A case names a call the way a MindSpore user writes
it (`ops.sin`, `Tensor.sum`, `ops.ReduceSum(keep_dims=True)`, `mint.nn.functional.gelu`), its tensor
inputs (`In`: dtype, shape, value range; drawn from a seed and stored with the goldens) and its Python
arguments. Gradients are recorded for float inputs unless `grad=False`, of `sum(output * cotangent)`.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

NAMES = os.path.join(os.path.dirname(__file__), "..", "..", "msx", "tools", "mindspore_names.json")


@dataclass(frozen=True)
class In:
    """A tensor input: numpy dtype name, shape, values uniform in [lo, hi) (integers: [lo, hi))."""

    dtype: str = "float32"
    shape: tuple = (2, 3)
    lo: float = -2.0
    hi: float = 2.0


@dataclass(frozen=True)
class Dt:
    """A dtype argument (`ms.float32` / `msx.float32`)."""

    name: str


@dataclass(frozen=True)
class Case:
    id: str
    call: str  # "ops.sin", "Tensor.sum", "mint.sum", "mint.nn.functional.gelu", "ops.ReduceSum" (a class)
    args: tuple  # In(...) become tensors; everything else is passed as is
    kwargs: dict = field(default_factory=dict)
    init: tuple | None = None  # constructor (args, kwargs) for class-style ops; None: not a class
    grad: bool = True
    rtol: float = 1e-5
    atol: float = 1e-6
    written: bool = False  # an in-place op: the outputs are its tensor inputs after the call (what it wrote)


def _ms_names() -> dict:
    with open(NAMES) as f:
        return json.load(f)["modules"]


_M = _ms_names()
_OPS, _TENSOR, _MINT, _MINTF = (set(_M[k]) for k in ("mindspore.ops", "mindspore.Tensor", "mindspore.mint",
                                                     "mindspore.mint.nn.functional"))
CASES: list[Case] = []


def add(case: Case) -> None:
    CASES.append(case)


def views(name: str, args: tuple, kwargs: dict | None = None, cls: str | None = None, grad: bool = True,
          tensor: bool = True, mint: bool = True, tag: str = "", **tol: Any) -> None:
    """Cases for `ops.name` and, where MindSpore has them, `Tensor.name`, `mint.name` and `ops.Cls()`."""
    kwargs = kwargs or {}
    suffix = f"[{tag}]" if tag else ""
    if name in _OPS:
        add(Case(f"ops.{name}{suffix}", f"ops.{name}", args, kwargs, grad=grad, **tol))
    if tensor and name in _TENSOR:
        add(Case(f"Tensor.{name}{suffix}", f"Tensor.{name}", args, kwargs, grad=grad, **tol))
    if mint and name in _MINT:
        add(Case(f"mint.{name}{suffix}", f"mint.{name}", args, kwargs, grad=grad, **tol))
    if cls and cls in _OPS:
        add(Case(f"ops.{cls}{suffix}", f"ops.{cls}", args, {}, init=((), {}), grad=grad, **tol))


X = In()
POS = In(lo=0.1, hi=3.0)
UNIT = In(lo=-0.9, hi=0.9)
BIG = In(lo=1.1, hi=3.0)
ROW = In(shape=(3,))
I64 = In("int64", (2, 3), -5, 6)
I32 = In("int32", (2, 3), -5, 6)
BOOL = In("bool", (2, 3), 0, 2)

# ---------------------------------------------------------------- unary elementwise: (name, class, input)
UNARY = [
    ("neg", "Neg", X), ("negative", None, X), ("abs", "Abs", X), ("absolute", None, X), ("exp", "Exp", X),
    ("log", "Log", POS), ("log1p", "Log1p", POS), ("sqrt", "Sqrt", POS), ("rsqrt", "Rsqrt", POS),
    ("square", "Square", X), ("reciprocal", "Reciprocal", POS), ("sign", "Sign", X), ("floor", "Floor", X),
    ("ceil", "Ceil", X), ("round", "Round", X), ("trunc", "Trunc", X), ("frac", None, X), ("sin", "Sin", X),
    ("cos", "Cos", X), ("tan", "Tan", UNIT), ("asin", "Asin", UNIT), ("acos", "ACos", UNIT), ("atan", "Atan", X),
    ("arcsin", None, UNIT), ("arccos", None, UNIT), ("arctan", None, X), ("sinh", "Sinh", X), ("cosh", "Cosh", X),
    ("tanh", "Tanh", X), ("asinh", "Asinh", X), ("acosh", "Acosh", BIG), ("atanh", "Atanh", UNIT),
    ("arcsinh", None, X), ("arccosh", None, BIG), ("arctanh", None, UNIT), ("erf", "Erf", X), ("erfc", "Erfc", X),
    ("erfinv", "Erfinv", UNIT), ("expm1", "Expm1", X), ("exp2", None, X), ("log2", None, POS),
    ("log10", None, POS), ("lgamma", "Lgamma", POS), ("digamma", "Digamma", POS), ("i0", None, X),
    ("bessel_i0", "BesselI0", X), ("bessel_i0e", "BesselI0e", X), ("bessel_i1", "BesselI1", X),
    ("bessel_i1e", "BesselI1e", X), ("sinc", "Sinc", X), ("deg2rad", None, X), ("rad2deg", None, X),
    ("sigmoid", "Sigmoid", X), ("relu", "ReLU", X), ("relu6", "ReLU6", In(lo=-3, hi=8)), ("silu", "SiLU", X),
    ("softplus", "Softplus", X), ("selu", "SeLU", X), ("mish", "Mish", X), ("softsign", "Softsign", X),
    ("logsigmoid", None, X), ("hardswish", "HSwish", In(lo=-4, hi=4)), ("hardsigmoid", "HSigmoid", In(lo=-4, hi=4)),
    ("tanhshrink", None, X), ("fast_gelu", "FastGeLU", X), ("elu", "Elu", X), ("celu", "CeLU", X),
    ("hardshrink", "HShrink", X), ("softshrink", "SoftShrink", X), ("hardtanh", None, X), ("gelu", None, X),
    ("positive", None, X), ("sgn", None, X), ("rint", "Rint", X), ("ravel", None, X), ("t", None, X),
]
for _name, _cls, _x in UNARY:
    views(_name, (_x,), cls=_cls)
for _name in ("isnan", "isfinite", "isinf", "isneginf", "isposinf", "isreal", "signbit", "logical_not"):
    views(_name, (X,), grad=False, cls={"isnan": "IsNan", "isfinite": "IsFinite", "isinf": "IsInf",
                                        "logical_not": "LogicalNot"}.get(_name))

# integer and bool inputs: MindSpore's result dtypes
for _name in ("abs", "neg", "square", "sign", "sqrt", "reciprocal", "exp2", "sinc", "trunc"):
    views(_name, (I64,), grad=False, tag="int64", tensor=False, mint=False)
views("sqrt", (I32,), grad=False, tag="int32", tensor=False, mint=False)
views("logical_not", (I64,), grad=False, tag="int64", tensor=False, mint=False)

# ---------------------------------------------------------------- binary elementwise (broadcasting (2,3) with (3,))
BINARY = [
    ("add", "Add", X, ROW), ("sub", "Sub", X, ROW), ("mul", "Mul", X, ROW), ("div", "Div", X, In(shape=(3,), lo=0.5)),
    ("true_divide", None, X, In(shape=(3,), lo=0.5)), ("multiply", None, X, ROW), ("subtract", None, X, ROW),
    ("divide", None, X, In(shape=(3,), lo=0.5)), ("maximum", "Maximum", X, ROW), ("minimum", "Minimum", X, ROW),
    ("pow", "Pow", POS, In(shape=(3,), lo=-1, hi=2)), ("atan2", "Atan2", X, ROW), ("arctan2", None, X, ROW),
    ("hypot", "Hypot", X, ROW), ("logaddexp", None, X, ROW), ("logaddexp2", None, X, ROW),
    ("xlogy", "Xlogy", X, In(shape=(3,), lo=0.5)), ("fmax", "Fmax", X, ROW), ("fmin", None, X, ROW),
    ("copysign", None, X, ROW), ("xdivy", "Xdivy", X, In(shape=(3,), lo=0.5)),
    ("remainder", "FloorMod", X, In(shape=(3,), lo=0.5)), ("fmod", "Mod", X, In(shape=(3,), lo=0.5)),
    ("floor_divide", "FloorDiv", X, In(shape=(3,), lo=0.5)),
]
for _name, _cls, _a, _b in BINARY:
    views(_name, (_a, _b), cls=_cls, grad=_name not in ("floor_divide",))
views("add", (X, 1.5), tag="scalar", cls=None)
views("mul", (X, 2), tag="scalar", cls=None)
for _name, _cls in (("equal", "Equal"), ("not_equal", "NotEqual"), ("less", "Less"), ("less_equal", "LessEqual"),
                    ("greater", "Greater"), ("greater_equal", "GreaterEqual"), ("eq", None), ("ne", None),
                    ("lt", None), ("le", None), ("gt", None), ("ge", None),
                    ("logical_and", "LogicalAnd"), ("logical_or", "LogicalOr"), ("logical_xor", "LogicalXor")):
    views(_name, (In("int64", (2, 3), 0, 3), In("int64", (3,), 0, 3)), cls=_cls, grad=False)
for _name, _cls in (("gcd", "Gcd"), ("lcm", "Lcm"), ("bitwise_and", "BitwiseAnd"), ("bitwise_or", "BitwiseOr"),
                    ("bitwise_xor", "BitwiseXor")):
    views(_name, (In("int32", (2, 3), 1, 20), In("int32", (3,), 1, 20)), cls=_cls, grad=False)
views("bitwise_left_shift", (In("int32", (2, 3), 0, 9), In("int32", (3,), 0, 4)), grad=False)
views("bitwise_right_shift", (In("int32", (2, 3), 0, 99), In("int32", (3,), 0, 4)), grad=False)
# integer arithmetic dtypes (int/int true division is float32 in MindSpore)
for _name in ("add", "mul", "div", "floor_divide", "remainder", "pow", "maximum"):
    views(_name, (I64, In("int64", (3,), 1, 4)), grad=False, tag="int64", tensor=False, mint=False)
views("add", (I64, 1.5), grad=False, tag="int64-float", tensor=False, mint=False)
views("add", (I32, In("int64", (3,), 1, 4)), grad=False, tag="int32-int64", tensor=False, mint=False)
views("add", (In("float16", (2, 3)), ROW), grad=False, tag="f16-f32", tensor=False, mint=False)
views("where", (BOOL, X, ROW), cls="Select", tensor=False)
views("nextafter", (X, ROW), grad=False)
views("heaviside", (X, ROW), grad=False)
views("mm", (In(shape=(2, 3)), In(shape=(3, 4))))
views("matmul", (In(shape=(2, 3)), In(shape=(3, 4))))
views("matmul", (In(shape=(2, 2, 3)), In(shape=(3, 4))), tag="batched")
views("bmm", (In(shape=(2, 2, 3)), In(shape=(2, 3, 4))))
views("outer", (ROW, In(shape=(4,))))
views("ger", (ROW, In(shape=(4,))), cls="Ger")
views("inner", (X, ROW))
views("kron", (In(shape=(2, 2)), In(shape=(2, 3))))
views("cross", (In(shape=(2, 3)), In(shape=(2, 3))), {"dim": 1})
views("addmm", (In(shape=(2, 4)), In(shape=(2, 3)), In(shape=(3, 4))), {"beta": 0.5, "alpha": 2.0})
views("prelu", (In(shape=(2, 3, 2)), In(shape=(3,), lo=0.1, hi=0.5)), cls="PReLU")
views("masked_fill", (X, BOOL, 0.5), cls="MaskedFill", grad=False)
add(Case("ops.Rint[nograd]", "ops.Rint", (X,), init=((), {}), grad=False))
views("squared_difference", (X, ROW), cls="SquaredDifference")

# ---------------------------------------------------------------- reductions
R = In(shape=(2, 3, 4))
for _name, _cls in (("reduce_sum", "ReduceSum"), ("mean", "ReduceMean"), ("reduce_max", "ReduceMax"),
                    ("reduce_min", "ReduceMin")):
    add(Case(f"ops.{_name}[axis1]", f"ops.{_name}", (R, 1)))
    if _cls:
        add(Case(f"ops.{_cls}[keep]", f"ops.{_cls}", (R, (0, 2)), init=((), {"keep_dims": True})))
add(Case("ops.ReduceProd[keep]", "ops.ReduceProd", (In(shape=(2, 3, 4), lo=0.5, hi=1.5), 1),
         init=((), {"keep_dims": True})))
add(Case("ops.mean[all]", "ops.mean", (R,)))
add(Case("ops.mean[int64]", "ops.mean", (I64,), grad=False))
add(Case("ops.sum[dim-keep]", "ops.sum", (R, 2, True)))
add(Case("mint.sum[dim]", "mint.sum", (R,), {"dim": (0, 1)}))
add(Case("mint.mean[keepdim]", "mint.mean", (R,), {"dim": 1, "keepdim": True}))
add(Case("ops.prod", "ops.prod", (In(shape=(2, 3), lo=0.5, hi=1.5), 1)))
add(Case("ops.amax", "ops.amax", (R, 1, True)))
add(Case("ops.amin", "ops.amin", (R, (0, 2))))
add(Case("mint.amax", "mint.amax", (R, 1)))
add(Case("ops.all", "ops.all", (BOOL, 1), grad=False))
add(Case("ops.any", "ops.any", (BOOL,), grad=False))
add(Case("mint.all", "mint.all", (BOOL,), {"dim": 0}, grad=False))
add(Case("Tensor.mean", "Tensor.mean", (R, 1, True)))
add(Case("Tensor.amax", "Tensor.amax", (R, 2)))
add(Case("ops.argmax", "ops.argmax", (R, 1), grad=False))
add(Case("mint.argmax", "mint.argmax", (R,), {"dim": 2, "keepdim": True}, grad=False))
add(Case("ops.argmin", "ops.argmin", (R, 1), grad=False))
add(Case("Tensor.argmin", "Tensor.argmin", (R, 0), grad=False))
add(Case("ops.ArgMaxWithValue", "ops.ArgMaxWithValue", (R,), init=((), {"axis": 1}), grad=False))
add(Case("ops.ArgMinWithValue", "ops.ArgMinWithValue", (R,), init=((), {"axis": 2, "keep_dims": True}),
         grad=False))
add(Case("ops.logsumexp", "ops.logsumexp", (R, 1)))
add(Case("mint.logsumexp", "mint.logsumexp", (R, 2, True)))
add(Case("ops.nansum", "ops.nansum", (R, 1)))
add(Case("ops.cumsum", "ops.cumsum", (R, 1)))
add(Case("ops.CumSum[excl-rev]", "ops.CumSum", (R, 2), init=((), {"exclusive": True, "reverse": True})))
add(Case("ops.cumprod", "ops.cumprod", (In(shape=(2, 3), lo=0.5, hi=1.5), 1)))
add(Case("ops.CumProd[excl]", "ops.CumProd", (In(shape=(2, 3), lo=0.5, hi=1.5), 1),
         init=((), {"exclusive": True})))
add(Case("ops.cummax", "ops.cummax", (In(shape=(2, 5)), 1), grad=False))
add(Case("ops.cummin", "ops.cummin", (In(shape=(2, 5)), 1), grad=False))
add(Case("mint.cummax", "mint.cummax", (In(shape=(4, 3)), 0), grad=False))
add(Case("ops.trace", "ops.trace", (In(shape=(3, 3)),)))

# ---------------------------------------------------------------- shape ops
add(Case("ops.flip", "ops.flip", (X, (0, 1))))
add(Case("Tensor.flip", "Tensor.flip", (X, (1,))))
add(Case("ops.ReverseV2", "ops.ReverseV2", (X,), init=((), {"axis": (1,)})))
add(Case("ops.roll", "ops.roll", (X, 1, 1)))
add(Case("ops.roll[flat]", "ops.roll", (X, 2)))
add(Case("ops.Roll", "ops.Roll", (X,), init=((), {"shifts": 1, "dims": 0})))
add(Case("ops.tril", "ops.tril", (In(shape=(3, 4)),)))
add(Case("ops.triu[1]", "ops.triu", (In(shape=(3, 4)), 1)))
add(Case("mint.tril[-1]", "mint.tril", (In(shape=(3, 4)), -1)))
add(Case("ops.Triu", "ops.Triu", (In(shape=(3, 4)),), init=((), {"diagonal": -1})))
add(Case("ops.diagonal", "ops.diagonal", (In(shape=(3, 4)), 1)))
add(Case("ops.diag", "ops.diag", (ROW,)))
add(Case("ops.movedim", "ops.movedim", (R, 0, 2)))
add(Case("ops.moveaxis", "ops.moveaxis", (R, (0, 1), (2, 0))))
add(Case("ops.swapaxes", "ops.swapaxes", (R, 0, 2)))
add(Case("ops.swapdims", "ops.swapdims", (R, 1, 2)))
add(Case("mint.swapaxes", "mint.swapaxes", (R, 0, 1)))
add(Case("ops.narrow", "ops.narrow", (In(shape=(3, 5)), 1, 1, 3)))
add(Case("mint.narrow", "mint.narrow", (In(shape=(3, 5)), 0, 1, 2)))
add(Case("mint.select", "mint.select", (R, 1, 2)))
add(Case("ops.rot90", "ops.rot90", (In(shape=(2, 3)), 1, (0, 1))))
add(Case("ops.argsort", "ops.argsort", (In(shape=(2, 5)),), grad=False))
add(Case("ops.argsort[desc]", "ops.argsort", (In(shape=(2, 5)), 0, True), grad=False))
add(Case("mint.argsort", "mint.argsort", (In(shape=(2, 5)),), {"dim": 1}, grad=False))
add(Case("ops.take", "ops.take", (X, In("int64", (2, 2), 0, 6))))
add(Case("ops.gather_nd", "ops.gather_nd", (In(shape=(3, 4)), In("int64", (2, 2), 0, 3))))
add(Case("ops.scatter_nd", "ops.scatter_nd", (In("int64", (2, 1), 0, 4), In(shape=(2, 3)), (4, 3))))
add(Case("ops.tensor_scatter_add", "ops.tensor_scatter_add",
         (In(shape=(4, 3)), In("int64", (2, 1), 0, 4), In(shape=(2, 3)))))
add(Case("ops.reshape", "ops.reshape", (X, (3, 2))))
add(Case("ops.Reshape", "ops.Reshape", (X, (6,)), init=((), {})))
add(Case("ops.transpose", "ops.transpose", (R, (2, 0, 1))))
add(Case("ops.permute", "ops.permute", (R, (1, 2, 0))))
add(Case("mint.permute", "mint.permute", (R, (1, 0, 2))))
add(Case("ops.Transpose", "ops.Transpose", (R, (1, 0, 2)), init=((), {})))
add(Case("ops.squeeze", "ops.squeeze", (In(shape=(2, 1, 3)),)))
add(Case("ops.Squeeze", "ops.Squeeze", (In(shape=(2, 1, 3, 1)),), init=((), {"axis": 1})))
add(Case("ops.expand_dims", "ops.expand_dims", (X, 1)))
add(Case("ops.unsqueeze", "ops.unsqueeze", (X, -1)))
add(Case("ops.broadcast_to", "ops.broadcast_to", (ROW, (2, 3))))
add(Case("ops.BroadcastTo", "ops.BroadcastTo", (ROW,), init=(((4, 3),), {})))
add(Case("ops.tile", "ops.tile", (X, (2, 1))))
add(Case("ops.gather", "ops.gather", (In(shape=(4, 3)), In("int64", (2,), 0, 4), 0)))
add(Case("ops.Gather", "ops.Gather", (In(shape=(4, 3)), In("int64", (2, 2), 0, 3), 1), init=((), {})))
add(Case("ops.gather_elements", "ops.gather_elements", (X, 1, In("int64", (2, 2), 0, 3))))
add(Case("ops.sort", "ops.sort", (In(shape=(2, 5)),), grad=False))
add(Case("ops.Sort[desc]", "ops.Sort", (In(shape=(2, 5)),), init=((), {"axis": 0, "descending": True}), grad=False))
add(Case("ops.concat", "ops.concat", ([X, X], 1)))
add(Case("ops.stack", "ops.stack", ([X, X], 0)))
add(Case("ops.cast", "ops.cast", (X, Dt("int32")), grad=False))
add(Case("ops.Cast", "ops.Cast", (X, Dt("float16")), init=((), {}), grad=False, rtol=1e-3, atol=1e-3))
add(Case("ops.linspace", "ops.linspace", (0.0, 1.0, 5), grad=False))

# ---------------------------------------------------------------- nn functions
add(Case("ops.softmax", "ops.softmax", (R, 1)))
add(Case("ops.Softmax", "ops.Softmax", (R,), init=((), {"axis": 0})))
add(Case("ops.log_softmax", "ops.log_softmax", (R,)))
add(Case("ops.LogSoftmax", "ops.LogSoftmax", (R,), init=((), {"axis": 1})))
add(Case("ops.leaky_relu", "ops.leaky_relu", (X, 0.1)))
add(Case("ops.glu", "ops.glu", (In(shape=(2, 4)),)))
add(Case("ops.GLU", "ops.GLU", (In(shape=(4, 2)),), init=((), {"axis": 0})))
add(Case("ops.gelu[tanh]", "ops.gelu", (X,), {"approximate": "tanh"}))
add(Case("ops.elu[alpha]", "ops.elu", (X, 0.5)))
add(Case("ops.hardshrink[lambd]", "ops.hardshrink", (X, 1.0)))
add(Case("ops.threshold", "ops.threshold", (X, 0.5, -1.0)))
add(Case("ops.hardtanh[range]", "ops.hardtanh", (X, -0.5, 0.5)))
add(Case("ops.l1_loss", "ops.l1_loss", (X, X)))
add(Case("ops.mse_loss[sum]", "ops.mse_loss", (X, In()), {"reduction": "sum"}))
add(Case("ops.smooth_l1_loss", "ops.smooth_l1_loss", (X, In())))
add(Case("ops.SmoothL1Loss", "ops.SmoothL1Loss", (X, In()), init=((), {"beta": 0.5, "reduction": "mean"})))
for _name in ("relu", "sigmoid", "tanh", "silu", "softplus", "selu", "mish", "logsigmoid", "hardswish",
              "hardsigmoid", "hardshrink", "softshrink", "elu", "relu6", "gelu", "leaky_relu", "glu"):
    if _name in _MINTF:
        add(Case(f"mint.nn.functional.{_name}", f"mint.nn.functional.{_name}", (In(shape=(2, 4)),)))
add(Case("mint.nn.functional.l1_loss", "mint.nn.functional.l1_loss", (X, In())))
add(Case("mint.nn.functional.mse_loss", "mint.nn.functional.mse_loss", (X, In())))
add(Case("mint.nn.functional.smooth_l1_loss", "mint.nn.functional.smooth_l1_loss", (X, In())))

# ---------------------------------------------------------------- more ops (complex, bitwise, scatter, einsum)
CPLX = In("complex64", (2, 3))
for _name, _cls in (("angle", "Angle"), ("conj", "Conj"), ("real", "Real"), ("imag", "Imag")):
    views(_name, (CPLX,), cls=_cls, grad=False, mint=False)
views("bitwise_not", (I32,), grad=False)
views("invert", (I32,), cls="Invert", grad=False)
add(Case("ops.DivNoNan", "ops.DivNoNan", (X, In(shape=(3,), lo=0, hi=2)), init=((), {})))
add(Case("ops.DivNoNan[zero]", "ops.DivNoNan", (X, In(shape=(3,), lo=0, hi=0)), init=((), {}), grad=False))
add(Case("ops.MulNoNan", "ops.MulNoNan", (X, ROW), init=((), {})))
add(Case("ops.TruncateDiv", "ops.TruncateDiv", (I32, In("int32", (3,), 1, 4)), init=((), {}), grad=False))
add(Case("ops.TruncateMod", "ops.TruncateMod", (X, In(shape=(3,), lo=0.5)), init=((), {})))
add(Case("ops.nanmean", "ops.nanmean", (R, 1)))
add(Case("Tensor.nanmean", "Tensor.nanmean", (R,)))
add(Case("ops.cummax[grad]", "ops.cummax", (In(shape=(2, 5)), 1)))
add(Case("ops.cummin[grad]", "ops.cummin", (In(shape=(2, 5)), 0)))
add(Case("ops.masked_fill[grad]", "ops.masked_fill", (X, BOOL, 0.5)))
add(Case("ops.scatter", "ops.scatter", (In(shape=(3, 4)), 1, In("int64", (3, 2), 0, 4), In(shape=(3, 2))),
         grad=False))
add(Case("mint.scatter_add", "mint.scatter_add", (In(shape=(3, 4)), 0, In("int64", (2, 4), 0, 3),
                                                  In(shape=(2, 4)))))
add(Case("ops.tensor_scatter_elements", "ops.tensor_scatter_elements",
         (In(shape=(3, 4)), In("int64", (2, 4), 0, 3), In(shape=(2, 4))), {"axis": 0, "reduction": "add"}))
add(Case("ops.tensor_scatter_update", "ops.tensor_scatter_update",
         (In(shape=(4, 3)), In("int64", (1, 1), 0, 4), In(shape=(1, 3)))))
add(Case("ops.einsum", "ops.einsum", ("ij,jk->ik", In(shape=(2, 3)), In(shape=(3, 4)))))
add(Case("mint.einsum", "mint.einsum", ("bij->bji", In(shape=(2, 2, 3)))))
add(Case("ops.Einsum", "ops.Einsum", ([In(shape=(2, 3)), In(shape=(3,))],), init=(("ij,j->i",), {}), grad=False))

# ---------------------------------------------------------------- arithmetic and stacking helpers
views("addcdiv", (X, ROW, In(shape=(2, 3), lo=0.5)), {"value": 0.5}, cls=None)
views("addcmul", (X, ROW, X), {"value": 2.0}, cls=None, mint=False)
add(Case("ops.Addcdiv", "ops.Addcdiv", (X, X, In(lo=0.5), In(shape=(), lo=0.5)), init=((), {})))
views("lerp", (X, ROW, 0.3), cls=None, mint=False)
add(Case("ops.Lerp", "ops.Lerp", (X, ROW, In(shape=(), lo=0, hi=1)), init=((), {})))
views("logit", (In(lo=0.05, hi=0.95),), cls=None)
add(Case("ops.logit[eps]", "ops.logit", (In(lo=0.0, hi=1.0), 0.1)))
views("float_power", (POS, In(shape=(3,), lo=-1, hi=2)), cls=None, grad=False, mint=False)
views("det", (In(shape=(2, 3, 3)),), cls=None)
views("inverse", (In(shape=(3, 3), lo=1, hi=2),), mint=False, rtol=1e-4, atol=1e-5)
add(Case("ops.addn", "ops.addn", ([X, X, X],)))
add(Case("ops.AddN", "ops.AddN", ([X, In()],), init=((), {}), grad=False))
views("fliplr", (X,), cls=None)
views("flipud", (X,), cls=None)
for _name in ("hstack", "vstack", "dstack", "column_stack"):
    add(Case(f"ops.{_name}", f"ops.{_name}", ([X, X],), grad=False))
    add(Case(f"ops.{_name}[1d]", f"ops.{_name}", ([ROW, ROW],), grad=False))
add(Case("ops.chunk", "ops.chunk", (In(shape=(5, 2)), 2), grad=False))
add(Case("mint.chunk", "mint.chunk", (In(shape=(2, 7)), 3, 1), grad=False))
add(Case("ops.count_nonzero", "ops.count_nonzero", (In("int64", (3, 4), 0, 3),), grad=False))
add(Case("ops.count_nonzero[axis]", "ops.count_nonzero", (In("int64", (3, 4), 0, 3), 1, True), grad=False))
add(Case("ops.cosine_similarity", "ops.cosine_similarity", (X, In())))


def check_unique() -> None:
    ids = [c.id for c in CASES]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"duplicate case ids: {dup}")


check_unique()
from . import cases_math  # noqa: E402,F401  (math/special/linalg/fft/window/scalar ops)
from . import cases_array  # noqa: E402,F401  (array/index/scatter/random/loss/optimizer ops)
from . import cases_tensor_methods  # noqa: E402,F401  (Tensor methods)
check_unique()  # over every case module too
