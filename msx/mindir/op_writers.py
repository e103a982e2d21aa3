"""msx primitives written as MindSpore primitive calls (the MINDIR exporter's table, `msx.mindir.writer`).

`WRITERS[msx_name](ctx, node)`, used by the MINDIR exporter, writes one msx node as MindSpore primitive calls with
`ctx.call(ms_name, tensor_inputs, args=(...), attrs={...})`, where `args`
become Constant inputs of a PRIMITIVE_FUNCTION call and `attrs` the
attributes of a PRIMITIVE one, exactly as MindSpore 2.10's own exports do.
The reading direction and MindSpore's enums (`TYPE_IDS`, `FORMATS`) are `msx.mindir.op_readers`.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

import numpy as np

from .. import dtype as mstype
from .op_readers import TYPE_ID_OF

WRITERS: dict[str, Callable[..., Any]] = {}


def writes(*names: str) -> Callable:
    def register(fn: Callable) -> Callable:
        for name in names:
            WRITERS[name] = fn
        return fn
    return register


# Ops written as their own name on their inputs (Sin, Add, ReLU, ...) are declared with `mindir=` beside the
# primitive (msx.mindir.op_table).


@writes("Select")
def _w_select(ctx, node):
    """MindSpore's CPU Select takes same-shape operands: scalars and smaller operands are broadcast first."""
    out = node.outputs[0].abstract
    cond, x, y = node.inputs
    args = []
    for operand, dtype in ((cond, "bool"), (x, out.dtype), (y, out.dtype)):
        if getattr(operand, "value", None) is not None and not hasattr(operand.value, "shape"):
            operand = ctx.scalar_tensor(operand.value, replace(out, dtype=dtype))
            args.append(ctx.call("BroadcastTo", [operand], args=(tuple(out.shape),), out=replace(out, dtype=dtype)))
        elif tuple(ctx.abstract(operand).shape) != tuple(out.shape):
            args.append(ctx.call("BroadcastTo", [operand], args=(tuple(out.shape),), out=replace(out, dtype=dtype)))
        else:
            args.append(operand)
    return ctx.call("Select", args)


@writes("Round")
def _w_round(ctx, node):
    return ctx.call("Round", node.inputs, args=(0,))  # decimals


@writes("Identity", "StopGradient")
def _w_identity(ctx, node):
    return ctx.call("Identity", node.inputs)


@writes("GeLU")
def _w_gelu(ctx, node):
    if node.attrs.get("approximate", "none") == "tanh":
        return ctx.call("GeLU", node.inputs)
    x = node.inputs[0]  # the exact (erf) GELU, written as nn.GELU(approximate=False) exports it
    inner = ctx.call("Erf", [ctx.call("Div", [x, ctx.scalar_tensor(np.sqrt(2.0), x)])])
    half = ctx.call("Mul", [x, ctx.call("Add", [inner, ctx.scalar_tensor(1.0, x)])])
    return ctx.call("Mul", [half, ctx.scalar_tensor(0.5, x)])


@writes("LeakyReLU")
def _w_leaky(ctx, node):
    """where(x >= 0, x, alpha * x), as msx computes it (MindSpore 2.10 loads no LeakyReLU primitive from a file)."""
    x = node.inputs[0]
    bool_type = replace(ctx.abstract(x), dtype="bool")
    keep = ctx.call("GreaterEqual", [x, ctx.scalar_tensor(0.0, x)], out=bool_type)
    return ctx.call("Select", [keep, x, ctx.call("Mul", [x, ctx.scalar_tensor(node.attrs.get("alpha", 0.2), x)])])


@writes("Cast")
def _w_cast(ctx, node):
    return ctx.call("Cast", node.inputs, args=(ctx.type_id(mstype.to_np(node.attrs["dtype"]).name),))


@writes("MatMul")
def _w_matmul(ctx, node):
    x, w = node.inputs
    if len(ctx.abstract(x).shape) == 2 and len(ctx.abstract(w).shape) == 2:
        return ctx.call("MatMul", node.inputs, args=(False, False))
    return ctx.call("MatMulExt", node.inputs)


@writes("Dense")
def _w_dense(ctx, node):
    x, w = node.inputs[:2]
    if len(ctx.abstract(x).shape) == 2:
        y = ctx.call("MatMul", [x, w], args=(False, True))
        return y if len(node.inputs) == 2 else ctx.call("BiasAdd", [y, node.inputs[2]], args=(0,))
    return ctx.call("Dense", node.inputs)


@writes("Reshape")
def _w_reshape(ctx, node):
    return ctx.call("Reshape", node.inputs, args=(tuple(node.outputs[0].abstract.shape),))


@writes("Transpose")
def _w_transpose(ctx, node):
    perm = node.attrs.get("perm")
    rank = len(ctx.abstract(node.inputs[0]).shape)
    return ctx.call("Transpose", node.inputs, args=(tuple(perm) if perm is not None else tuple(range(rank))[::-1],))


@writes("ExpandDims")
def _w_expand_dims(ctx, node):
    return ctx.call("ExpandDims", node.inputs, args=(int(node.attrs["axis"]),))


@writes("Squeeze", "Flatten")
def _w_squeeze(ctx, node):
    return ctx.call("Reshape", node.inputs, args=(tuple(node.outputs[0].abstract.shape),))


@writes("Concat")
def _w_concat(ctx, node):
    return ctx.call("Concat", [ctx.make_tuple(node.inputs)], args=(int(node.attrs.get("axis", 0)),))


@writes("Tile")
def _w_tile(ctx, node):
    return ctx.call("Tile", node.inputs, args=(tuple(node.attrs["multiples"]),))


@writes("BroadcastTo")
def _w_broadcast(ctx, node):
    return ctx.call("BroadcastTo", node.inputs, args=(tuple(node.outputs[0].abstract.shape),))


@writes("Gather")
def _w_gather(ctx, node):
    return ctx.call("Gather", node.inputs, args=(int(node.attrs.get("axis", 0)), int(node.attrs.get("batch_dims", 0))))


@writes("GetItem")
def _w_getitem(ctx, node):
    """Static int/slice/None/Ellipsis indexes as one StridedSlice (tensor indexes cannot be written)."""
    spec = node.attrs["index"]
    if any(item[0] in ("tensor", "bool") for item in spec) or len(node.inputs) != 1:
        ctx.unsupported("indexing with tensors or bools")
    begin, end, strides, masks = [], [], [], [0, 0, 0, 0, 0]
    for i, item in enumerate(spec):
        bit, kind = 1 << i, item[0]
        if kind == "int":
            begin.append(item[1]), end.append(item[1] + 1), strides.append(1)
            masks[4] |= bit
        elif kind == "slice":
            start, stop, step = item[1], item[2], item[3] if item[3] is not None else 1
            begin.append(0 if start is None else start), end.append(0 if stop is None else stop), strides.append(step)
            masks[0] |= bit if start is None else 0
            masks[1] |= bit if stop is None else 0
        else:
            begin.append(0), end.append(0), strides.append(1)
            masks[2 if kind == "ellipsis" else 3] |= bit
    return ctx.call("StridedSlice", node.inputs, args=(tuple(begin), tuple(end), tuple(strides), *masks))


def _w_reduce_axis(node, rank: int) -> tuple:
    axis = node.attrs.get("axis")
    return tuple(range(rank)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)


@writes("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceAll", "ReduceAny")
def _w_reduce(ctx, node):
    rank = len(ctx.abstract(node.inputs[0]).shape)
    args = (_w_reduce_axis(node, rank), bool(node.attrs.get("keepdims", False)))
    return ctx.call(node.op, node.inputs, args=args + ((False,) if node.op == "ReduceSum" else ()))  # skip_mode


@writes("Softmax", "LogSoftmax")
def _w_softmax(ctx, node):
    axis = int(node.attrs.get("axis", -1))
    return ctx.call(node.op, node.inputs, args=((axis,) if node.op == "Softmax" else axis,))


@writes("BatchNorm")
def _w_batch_norm(ctx, node):
    if node.attrs.get("is_training"):
        ctx.unsupported("BatchNorm in training mode (export in eval mode)")
    if node.attrs.get("axis", 1) % len(ctx.abstract(node.inputs[0]).shape) != 1:
        ctx.unsupported("BatchNorm over an axis other than 1")
    stat = ctx.abstract(node.inputs[3])
    out = ctx.call("BatchNorm", node.inputs, args=(False, float(node.attrs.get("epsilon", 1e-5)), 0.1, 0), n_out=5,
                   out=(node.outputs[0].abstract, stat, stat, stat, stat))
    return [ctx.getitem(out, 0), node.inputs[3], node.inputs[4]]


@writes("LayerNorm")
def _w_layer_norm(ctx, node):
    rank = len(ctx.abstract(node.inputs[0]).shape)
    begin = int(node.attrs.get("begin_norm_axis", -1)) % rank
    x = ctx.abstract(node.inputs[0])
    stat = replace(x, shape=tuple(x.shape[:begin]) + (1,) * (rank - begin))
    out = ctx.call("LayerNorm", node.inputs, args=(begin, begin, float(node.attrs.get("epsilon", 1e-5))), n_out=3,
                   out=(x, stat, stat))
    return ctx.getitem(out, 0)


def _same_pads(ctx, spatial, kernel, stride, dilation) -> tuple[int, ...]:
    """'same' as explicit (top, bottom, left, right) pads: XLA's rule, which is also MindSpore's (the total
    `max((ceil(n/s)-1)*s + (k-1)*d + 1 - n, 0)`, its smaller half before), so the file pads as msx ran."""
    if not all(isinstance(n, int) for n in spatial):
        ctx.unsupported("Conv2D pad_mode='same' on a symbolic spatial dim (its padding depends on the size)")
    pads = []
    for n, k, s, d in zip(spatial, kernel, stride, dilation):
        total = max((-(-n // s) - 1) * s + (k - 1) * d + 1 - n, 0)
        pads += [total // 2, total - total // 2]
    return tuple(pads)


@writes("Conv2D")
def _w_conv2d(ctx, node):
    a = node.attrs
    w_shape = ctx.abstract(node.inputs[1]).shape
    mode = a.get("pad_mode", "valid")
    sh, sw = a.get("stride", (1, 1))
    dh, dw = a.get("dilation", (1, 1))
    if mode == "same":
        pads = _same_pads(ctx, ctx.abstract(node.inputs[0]).shape[2:], w_shape[2:], (sh, sw), (dh, dw))
    else:
        pads = tuple(a.get("padding", (0, 0, 0, 0))) if mode == "pad" else (0, 0, 0, 0)
    attrs = {"kernel_size": (w_shape[2], w_shape[3]), "mode": 1, "out_channel": w_shape[0],
             "pad_mode": "pad" if any(pads) else "valid", "pad": pads, "pad_list": pads,
             "stride": (1, 1, sh, sw), "dilation": (1, 1, dh, dw), "group": int(a.get("groups", 1)),
             "groups": int(a.get("groups", 1)), "format": "NCHW"}
    y = ctx.call("Conv2D", node.inputs[:2], attrs=attrs)
    return y if len(node.inputs) == 2 else ctx.call("BiasAdd", [y, node.inputs[2]], args=(0,))


@writes("MaxPool", "AvgPool")
def _w_pool(ctx, node):
    a = node.attrs
    mode = a.get("pad_mode", "valid")
    if mode not in ("same", "valid") or any(a.get("padding", (0, 0, 0, 0))) or a.get("ceil_mode"):
        ctx.unsupported(f"{node.op} with explicit padding or ceil_mode")
    if node.op == "AvgPool" and mode == "same" and a.get("count_include_pad", True):
        ctx.unsupported("AvgPool 'same' counting the padding")
    kernel, stride = tuple(a["kernel_size"]), tuple(a["stride"])
    if node.op == "MaxPool":
        return ctx.call("MaxPool", node.inputs, attrs={"kernel_size": (1, 1) + kernel, "strides": (1, 1) + stride,
                                                       "pad_mode": mode.upper(), "format": "NCHW"})
    return ctx.call("AvgPool", node.inputs, args=(kernel, stride, {"same": 1, "valid": 2}[mode], 0))


@writes("ArgMaxWithValue", "ArgMinWithValue")
def _w_arg_with_value(ctx, node):
    out = ctx.call(node.op, node.inputs, args=(int(node.attrs.get("axis", 0)), bool(node.attrs.get("keepdims"))),
                   n_out=2, out=(node.outputs[1].abstract, node.outputs[0].abstract))
    return [ctx.getitem(out, 1), ctx.getitem(out, 0)]


@writes("Argmax", "Argmin")
def _w_argmax(ctx, node):
    if node.attrs.get("axis") is None or node.attrs.get("keepdims"):
        ctx.unsupported(f"{node.op} over all axes or with keepdims")
    return ctx.call(node.op, node.inputs, args=(int(node.attrs["axis"]), TYPE_ID_OF["int64"]))
