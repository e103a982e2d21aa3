"""MindSpore primitives (as named in MindIR files) onto msx primitives, one entry per op.

The table belongs to its consumer, MindIR import (ARCHITECTURE rule 11: a consumer's rules in tables the
consumer owns); an op whose MindIR form is its own name and inputs says so in its declaration instead
(`mindir=` on `@primitive`, read by `msx.mindir.op_table`).

`READERS[name](ctx, *args)` turns one MindIR primitive call into msx
primitives. `args` are the node's inputs: graph values (`ir.Var`), numpy
arrays (tensor constants) and Python values (ints, floats, bools, None,
tuples) for the arguments MindSpore 2.x passes as inputs
(PRIMITIVE_FUNCTION ops); older-style ops (PRIMITIVE) keep their arguments
in `ctx.attrs`, which `_arg` reads as a fallback, so one entry reads both.
`ctx` (made by `msx.mindir.to_graph`) offers `op(msx_name, *inputs, **attrs)`,
`static(value, what)` (a compile-time value, or an error if it is computed
at run time), `abstract(value)` and `unsupported(reason)`.

The other direction, msx nodes written as MindSpore calls, is `msx.mindir.op_writers`.

`TYPE_IDS` are MindSpore's dtype ids (`Cast`'s `dtype` argument, `Argmax`'s
`output_type`).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

TYPE_IDS = {30: "bool", 32: "int8", 33: "int16", 34: "int32", 35: "int64", 37: "uint8", 38: "uint16",
            39: "uint32", 40: "uint64", 42: "float16", 43: "float32", 44: "float64", 45: "bfloat16",
            51: "complex64", 52: "complex128"}
TYPE_ID_OF = {name: i for i, name in TYPE_IDS.items()}
FORMATS = {0: "NCHW", 1: "NHWC"}       # MindSpore's Format enum (BiasAdd, BatchNorm, AvgPool data_format)
PAD_MODES = {0: "pad", 1: "same", 2: "valid"}  # MindSpore's PadMode enum

READERS: dict[str, Callable[..., Any]] = {}


def reads(*names: str) -> Callable:
    def register(fn: Callable) -> Callable:
        for name in names:
            if name in READERS:
                raise ValueError(f"MindIR reader for {name!r} is declared twice")
            READERS[name] = fn
        return fn
    return register


# ---------------------------------------------------------------- helpers
def _arg(ctx, args: tuple, i: int, name: str, default: Any = None) -> Any:
    """Argument `i` (an input of a PRIMITIVE_FUNCTION call) or attribute `name` (a PRIMITIVE), else `default`."""
    if len(args) > i:
        return ctx.static(args[i], name)
    return ctx.attrs.get(name, default)


def _ints(value, n: int | None = None) -> tuple:
    """An int or a sequence of ints as a tuple (an int repeated `n` times)."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * (n or 1)
    return tuple(int(v) for v in value)


def _axes(value) -> int | tuple | None:
    """MindSpore's reduction axis: () or None means all axes."""
    if value is None:
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    axes = tuple(int(a) for a in value)
    return None if axes == () else axes


def _dtype(ctx, type_id) -> str:
    name = TYPE_IDS.get(ctx.static(type_id, "dtype"))
    if name is None:
        ctx.unsupported(f"MindSpore dtype id {type_id!r}")
    return name


def _rank(ctx, x) -> int:
    return len(ctx.abstract(x).shape)


def _swap_last(ctx, x):
    rank = _rank(ctx, x)
    if rank < 2:
        return x
    perm = tuple(range(rank - 2)) + (rank - 1, rank - 2)
    return ctx.op("Transpose", x, perm=perm)


def _channel_axis(ctx, x, data_format) -> int:
    fmt = FORMATS.get(data_format, data_format) if isinstance(data_format, int) else data_format
    if fmt not in ("NCHW", "NHWC", "NCDHW", "ND", None):
        ctx.unsupported(f"data_format {data_format!r}")
    rank = _rank(ctx, x)
    return rank - 1 if fmt == "NHWC" or rank < 2 else 1


def _per_channel(ctx, v, x, axis: int):
    """Reshape a per-channel vector so it broadcasts along `axis` of `x`."""
    shape = [1] * _rank(ctx, x)
    shape[axis] = -1
    return ctx.op("Reshape", v, shape=tuple(shape))


def _spatial(value, what: str, ctx) -> tuple[int, int]:
    """A 2-D window attribute: an int, (h, w), or MindSpore's 4-tuple (1, 1, h, w)."""
    t = _ints(value, 2)
    if len(t) == 4:
        return t[2], t[3]
    if len(t) == 2:
        return t
    ctx.unsupported(f"{what}={value!r}")


def _pad_mode(value) -> str:
    if isinstance(value, (int, np.integer)):
        return PAD_MODES.get(int(value), str(value))
    return str(value).lower()


# ---------------------------------------------------------------- elementwise
# Ops whose MindIR call is their own name on their inputs (Sin, Add, ReLU, ...) are declared with
# `mindir=` beside the primitive (msx.mindir.op_table); these are MindSpore's other spellings of them.
_UNARY = {"Identity": "Identity", "StopGradient": "StopGradient"}
_BINARY = {"Div": "RealDiv", "LogicalXor": "LogicalXor",
           # tensor-scalar and scalar forms MindSpore's graph compiler emits
           "Muls": "Mul", "Divs": "RealDiv", "Adds": "Add", "Subs": "Sub",
           "LessScalar": "Less", "GreaterScalar": "Greater", "LessEqualScalar": "LessEqual",
           "GreaterEqualScalar": "GreaterEqual", "EqualScalar": "Equal",
           "ScalarAdd": "Add", "ScalarSub": "Sub", "ScalarMul": "Mul", "ScalarDiv": "RealDiv",
           "ScalarLt": "Less", "ScalarGt": "Greater", "ScalarLe": "LessEqual", "ScalarGe": "GreaterEqual",
           "ScalarEq": "Equal"}


def _unary_reader(msx_name: str) -> Callable:
    return lambda ctx, x: ctx.op(msx_name, x)


def _binary_reader(msx_name: str) -> Callable:
    return lambda ctx, x, y: ctx.op(msx_name, x, y)


for _ms, _msx in _UNARY.items():
    reads(_ms)(_unary_reader(_msx))
for _ms, _msx in _BINARY.items():
    reads(_ms)(_binary_reader(_msx))


@reads("AddExt", "SubExt")
def _add_ext(ctx, x, y, alpha=1):
    alpha = ctx.static(alpha, "alpha")
    if alpha != 1:
        y = ctx.op("Mul", y, alpha)
    return ctx.op("Add" if ctx.op_name == "AddExt" else "Sub", x, y)


@reads("GeLU")
def _gelu(ctx, x):
    """MindSpore's GeLU primitive is the tanh approximation (nn.GELU(approximate=False) exports Erf ops)."""
    return ctx.op("GeLU", x, approximate="tanh")


@reads("Round")
def _round(ctx, x, decimals=0):
    if ctx.static(decimals, "decimals"):
        ctx.unsupported("Round with decimals != 0")
    return ctx.op("Round", x)


@reads("Cast")
def _cast(ctx, x, dtype=None):
    return ctx.op("Cast", x, dtype=_dtype(ctx, dtype if dtype is not None else ctx.attrs.get("dst_type")))


@reads("Select")
def _select(ctx, cond, x, y):
    return ctx.op("Select", cond, x, y)


@reads("ZerosLike", "OnesLike")
def _fill_like(ctx, x):
    return ctx.op("FillLike", x, value=0 if ctx.op_name == "ZerosLike" else 1)


@reads("ClampScalar")
def _clamp(ctx, x, lo=None, hi=None):
    return ctx.op("ClipByValue", x, min=ctx.static(lo, "min"), max=ctx.static(hi, "max"))


@reads("LeakyReLUExt")
def _leaky(ctx, x, slope=0.01):
    return ctx.op("LeakyReLU", x, alpha=float(ctx.static(slope, "negative_slope")))


# ---------------------------------------------------------------- matmul
@reads("MatMul", "BatchMatMul")
def _matmul(ctx, x, w, *rest):
    if _arg(ctx, rest, 0, "transpose_a", False):
        x = _swap_last(ctx, x)
    if _arg(ctx, rest, 1, "transpose_b", False):
        w = _swap_last(ctx, w)
    return ctx.op("MatMul", x, w)


@reads("MatMulExt", "BatchMatMulExt")
def _matmul_ext(ctx, x, w):
    return ctx.op("MatMul", x, w)


@reads("Dense")
def _dense(ctx, x, w, b=None):
    return ctx.op("Dense", x, w) if b is None else ctx.op("Dense", x, w, b)


@reads("BiasAdd")
def _bias_add(ctx, x, b, *rest):
    axis = _channel_axis(ctx, x, _arg(ctx, rest, 0, "data_format", "NCHW"))
    if axis != _rank(ctx, x) - 1:
        b = _per_channel(ctx, b, x, axis)
    return ctx.op("Add", x, b)


# ---------------------------------------------------------------- shape
@reads("Reshape")
def _reshape(ctx, x, shape=None):
    return ctx.op("Reshape", x, shape=_ints(ctx.static(shape if shape is not None else ctx.attrs.get("shape"),
                                                        "shape")))


@reads("Transpose")
def _transpose(ctx, x, perm=None):
    return ctx.op("Transpose", x, perm=_ints(ctx.static(perm if perm is not None else ctx.attrs.get("perm"),
                                                         "perm")))


@reads("ExpandDims")
def _expand_dims(ctx, x, axis=None):
    return ctx.op("ExpandDims", x, axis=int(_arg(ctx, (axis,) if axis is not None else (), 0, "axis")))


@reads("Squeeze")
def _squeeze(ctx, x, *rest):
    axis = _axes(_arg(ctx, rest, 0, "axis", ()))
    if axis is None:
        axis = tuple(i for i, d in enumerate(ctx.abstract(x).shape) if d == 1)
    return ctx.op("Squeeze", x, axis=axis)


@reads("Flatten")
def _flatten(ctx, x):
    return ctx.op("Flatten", x, start_dim=1, end_dim=-1)


@reads("Concat")
def _concat(ctx, xs, *rest):
    return ctx.op("Concat", *xs, axis=int(_arg(ctx, rest, 0, "axis", 0)))


@reads("Stack")
def _stack(ctx, *xs):
    if len(xs) == 1 and isinstance(xs[0], tuple):
        xs = xs[0]
    return ctx.op("Stack", *xs, axis=int(ctx.attrs.get("axis", 0)))


@reads("Tile")
def _tile(ctx, x, dims=None):
    return ctx.op("Tile", x, multiples=_ints(ctx.static(dims if dims is not None else ctx.attrs.get("multiples"),
                                                         "dims")))


@reads("BroadcastTo")
def _broadcast_to(ctx, x, *rest):
    return ctx.op("BroadcastTo", x, shape=_ints(_arg(ctx, rest, 0, "shape")))


@reads("Split")
def _split(ctx, x, *rest):
    axis, n = int(_arg(ctx, rest, 0, "axis", 0)), int(_arg(ctx, rest, 1, "output_num", 1))
    return tuple(ctx.op("Split", x, indices_or_sections=n, axis=axis))


@reads("Gather")
def _gather(ctx, params, indices, axis=None, *rest):
    axis = int(ctx.static(axis, "axis")) if axis is not None else 0
    return ctx.op("Gather", params, indices, axis=axis, batch_dims=int(_arg(ctx, rest, 0, "batch_dims", 0)))


@reads("GatherD")
def _gather_d(ctx, x, dim, index):
    return ctx.op("GatherD", x, index, dim=int(ctx.static(dim, "dim")))


@reads("OneHot")
def _one_hot(ctx, indices, depth, on_value, off_value, *rest):
    on, off = np.asarray(ctx.static(on_value, "on_value")), np.asarray(ctx.static(off_value, "off_value"))
    number = int if np.issubdtype(on.dtype, np.integer) else float
    return ctx.op("OneHot", indices, depth=int(ctx.static(depth, "depth")), on_value=number(on),
                  off_value=number(off), axis=int(_arg(ctx, rest, 0, "axis", -1)), dtype=on.dtype.name)


@reads("StridedSlice")
def _strided_slice(ctx, x, begin, end, strides, *rest):
    """MindSpore's StridedSlice (TensorFlow's masks) as a Python index, read by msx's GetItem."""
    begin, end, strides = (_ints(ctx.static(v, n)) for v, n in ((begin, "begin"), (end, "end"), (strides, "strides")))
    masks = [int(_arg(ctx, rest, i, name, 0)) for i, name in
             enumerate(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"))]
    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask = masks
    index = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            index.append(("ellipsis",))
        elif new_axis_mask & bit:
            index.append(("none",))
        elif shrink_mask & bit:
            index.append(("int", b))
        else:
            index.append(("slice", None if begin_mask & bit else b, None if end_mask & bit else e, s))
    return ctx.op("GetItem", x, index=tuple(index))


# ---------------------------------------------------------------- reductions
_REDUCE = {"ReduceSum": "ReduceSum", "ReduceMean": "ReduceMean", "ReduceMax": "ReduceMax", "ReduceMin": "ReduceMin",
           "ReduceProd": "ReduceProd", "ReduceAll": "ReduceAll", "ReduceAny": "ReduceAny"}


def _reduce_reader(msx_name: str) -> Callable:
    def read(ctx, x, *rest):
        axis = _axes(ctx.static(rest[0], "axis")) if rest else _axes(ctx.attrs.get("axis", ()))
        keep = bool(_arg(ctx, rest, 1, "keep_dims", False))
        if axis is None and _arg(ctx, rest, 2, "skip_mode", False):  # ReduceSum(skip_mode=True) over (): no-op
            return x
        return ctx.op(msx_name, x, axis=axis, keepdims=keep)
    return read


for _ms, _msx in _REDUCE.items():
    reads(_ms)(_reduce_reader(_msx))


@reads("Max", "Min")
def _max_all(ctx, x):
    """`Tensor.max()` / `.min()` without an axis: MindSpore 2.10's one-input Max/Min reduce every axis."""
    return ctx.op("ReduceMax" if ctx.op_name == "Max" else "ReduceMin", x, axis=None, keepdims=False)


@reads("SumExt", "MeanExt", "ProdExt")
def _sum_ext(ctx, x, dim=None, keepdim=False, dtype=None):
    name = {"SumExt": "ReduceSum", "MeanExt": "ReduceMean", "ProdExt": "ReduceProd"}[ctx.op_name]
    axis = _axes(ctx.static(dim, "dim"))
    if dtype is not None:
        x = ctx.op("Cast", x, dtype=_dtype(ctx, dtype))
    return ctx.op(name, x, axis=axis, keepdims=bool(ctx.static(keepdim, "keepdim")))


@reads("ArgMaxWithValue", "ArgMinWithValue")
def _arg_with_value(ctx, x, *rest):
    """MindSpore returns (index, value); msx's primitive returns (value, index)."""
    axis, keep = int(_arg(ctx, rest, 0, "axis", 0)), bool(_arg(ctx, rest, 1, "keep_dims", False))
    values, index = ctx.op(ctx.op_name, x, axis=axis, keepdims=keep)
    return index, values


@reads("Argmax", "Argmin")
def _argmax(ctx, x, *rest):
    axis = int(_arg(ctx, rest, 0, "axis", -1))
    out_type = _arg(ctx, rest, 1, "output_type", TYPE_ID_OF["int32"])
    idx = ctx.op(ctx.op_name, x, axis=axis, keepdims=False)
    dtype = _dtype(ctx, out_type) if isinstance(out_type, (int, np.integer)) else "int32"
    return idx if dtype == "int64" else ctx.op("Cast", idx, dtype=dtype)


@reads("CumSum")
def _cumsum(ctx, x, axis, *rest):
    if _arg(ctx, rest, 0, "exclusive", False) or _arg(ctx, rest, 1, "reverse", False):
        ctx.unsupported("CumSum with exclusive or reverse")
    return ctx.op("CumSum", x, axis=int(ctx.static(axis, "axis")))


# ---------------------------------------------------------------- nn
@reads("Softmax", "LogSoftmax")
def _softmax(ctx, x, *rest):
    axis = _arg(ctx, rest, 0, "axis", -1)
    axis = _ints(axis)
    if len(axis) != 1:
        ctx.unsupported(f"{ctx.op_name} over several axes {axis}")
    return ctx.op(ctx.op_name, x, axis=axis[0])


@reads("BatchNorm")
def _batch_norm(ctx, x, scale, bias, mean, var, *rest):
    """Inference BatchNorm; returns MindSpore's five outputs (y, mean, variance, saved mean, saved variance)."""
    if _arg(ctx, rest, 0, "is_training", False):
        ctx.unsupported("BatchNorm with is_training=True (export the network in eval mode)")
    eps = float(_arg(ctx, rest, 1, "epsilon", 1e-5))
    axis = _channel_axis(ctx, x, _arg(ctx, rest, 3, "data_format", "NCHW"))
    y, m, v = ctx.op("BatchNorm", x, scale, bias, mean, var, is_training=False, epsilon=eps, momentum=0.9,
                     axis=axis)
    return y, m, v, m, v


@reads("LayerNorm")
def _layer_norm(ctx, x, gamma, beta, *rest):
    """Returns MindSpore's (y, mean, rstd); mean and rstd are computed only where the file uses them."""
    rank = _rank(ctx, x)
    begin = int(_arg(ctx, rest, 0, "begin_norm_axis", 1)) % rank
    params = int(_arg(ctx, rest, 1, "begin_params_axis", 1)) % rank
    if params != begin:
        ctx.unsupported(f"LayerNorm with begin_params_axis ({params}) != begin_norm_axis ({begin})")
    eps = float(_arg(ctx, rest, 2, "epsilon", 1e-7))
    y = ctx.op("LayerNorm", x, gamma, beta, begin_norm_axis=begin, epsilon=eps)
    axes = tuple(range(begin, rank))

    def stats():
        mean = ctx.op("ReduceMean", x, axis=axes, keepdims=True)
        var = ctx.op("ReduceMean", ctx.op("Square", ctx.op("Sub", x, mean)), axis=axes, keepdims=True)
        return mean, ctx.op("Rsqrt", ctx.op("Add", var, eps))

    return (y,) + ctx.lazy(stats, 2)


def _conv_attrs(ctx, x, w) -> dict:
    mode = _pad_mode(ctx.attrs.get("pad_mode", "valid"))
    pads = _ints(ctx.attrs.get("pad_list", ctx.attrs.get("pad", 0)), 4)
    if mode in ("same", "pad") and len(pads) == 4:
        return {"pad_mode": "pad", "padding": pads}
    if mode == "valid":
        return {"pad_mode": "valid", "padding": (0, 0, 0, 0)}
    ctx.unsupported(f"Conv2D pad_mode={mode!r} with pad {pads}")


@reads("Conv2D")
def _conv2d(ctx, x, w, *rest):
    if str(ctx.attrs.get("format", "NCHW")) != "NCHW":
        ctx.unsupported(f"Conv2D format {ctx.attrs['format']!r}")
    stride = _spatial(ctx.attrs.get("stride", 1), "stride", ctx)
    dilation = _spatial(ctx.attrs.get("dilation", 1), "dilation", ctx)
    groups = int(ctx.attrs.get("group", ctx.attrs.get("groups", 1)))
    return ctx.op("Conv2D", x, w, stride=stride, dilation=dilation, groups=groups, **_conv_attrs(ctx, x, w))


@reads("Conv2DExt")
def _conv2d_ext(ctx, x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    padding = ctx.static(padding, "padding")
    if isinstance(padding, str):
        ctx.unsupported(f"Conv2DExt padding={padding!r}")
    ph, pw = _ints(padding, 2)
    attrs = dict(stride=_ints(ctx.static(stride, "stride"), 2), dilation=_ints(ctx.static(dilation, "dilation"), 2),
                 groups=int(ctx.static(groups, "groups")), pad_mode="pad", padding=(ph, ph, pw, pw))
    return ctx.op("Conv2D", x, w, **attrs) if b is None else ctx.op("Conv2D", x, w, b, **attrs)


@reads("MaxPool", "AvgPool")
def _pool(ctx, x, *rest):
    kernel = _spatial(_arg(ctx, rest, 0, "kernel_size", 1), "kernel_size", ctx)
    stride = _spatial(_arg(ctx, rest, 1, "strides", 1), "strides", ctx)
    mode = _pad_mode(_arg(ctx, rest, 2, "pad_mode", "valid"))
    fmt = _arg(ctx, rest, 3, "data_format", ctx.attrs.get("format", "NCHW"))
    if FORMATS.get(fmt, fmt) != "NCHW" or mode not in ("same", "valid"):
        ctx.unsupported(f"{ctx.op_name} with pad_mode={mode!r}, data_format={fmt!r}")
    attrs = dict(kernel_size=kernel, stride=stride, pad_mode=mode, padding=(0, 0, 0, 0), ceil_mode=False)
    if ctx.op_name == "AvgPool":
        attrs["count_include_pad"] = False
    return ctx.op(ctx.op_name, x, **attrs)


@reads("AvgPool2D", "MaxPool2DExt")
def _pool_ext(ctx, x, kernel, stride=None, padding=0, *rest):
    kernel = _ints(ctx.static(kernel, "kernel_size"), 2)
    stride = _ints(ctx.static(stride, "stride"), 2) if stride is not None else kernel
    ph, pw = _ints(ctx.static(padding, "padding"), 2)
    ceil = bool(ctx.static(rest[0], "ceil_mode")) if rest else False
    attrs = dict(kernel_size=kernel, stride=stride, pad_mode="pad", padding=(ph, ph, pw, pw), ceil_mode=ceil)
    if ctx.op_name == "AvgPool2D":
        if len(rest) > 2 and ctx.static(rest[2], "divisor_override") is not None:
            ctx.unsupported("AvgPool2D with divisor_override")
        attrs["count_include_pad"] = bool(ctx.static(rest[1], "count_include_pad")) if len(rest) > 1 else True
        return ctx.op("AvgPool", x, **attrs)
    return ctx.op("MaxPool", x, **attrs)
