"""MindSpore's `export_split_mindir(file_name, device_num=8, rank_id=0, dynamic=True, sapp=True)`: a `.mindir`
split into `device_num` per-rank graphs, the one of `rank_id` returned for `nn.GraphCell`.

MindSpore's SAPP searches a strategy for the graph; msx's choice is its AUTO_PARALLEL rule (docs/sharding.md):
the inputs cut on their batch dimension, the Parameters whole on every rank. Where AUTO_PARALLEL then lets XLA's
partitioner propagate the cut, here msx propagates it itself, node by node (`_RULES`: where the batch axis of each
value lies, and how many entries of it each batch row owns after a reshape folds the batch into tokens), and
accepts the split only where no node mixes batch rows: then each rank's graph needs no collective, and rank `r`,
fed rows `[r*b, (r+1)*b)` of the batch (`b = batch / device_num`), computes exactly those rows of every output.
A node that would mix rows (a reduction over the batch, a reshape across it, an op without a rule) makes the split
fail with MindSpore's `RuntimeError`, naming the node: a silently different split would be worse.

The rank's graph is the file's graph re-specialised to `b` rows: every node re-inferred (`infer_node`), a
`Reshape` of the batch given its rank-local shape, verified; its weights are the file's, whole. The split is
recorded in `graph.manifest["split"]` (device_num, rank_id, rows, each output's batch axis).
"""
from __future__ import annotations

import os
from dataclasses import fields
from typing import Any, Callable

from ..errors import LoadError, MsxError, VerifyError
from ..ir.graph import Abstract, Const, Graph, Node, Var
from ..ir.interpret import infer_node
from ..ir.symbolic import is_symbolic
from ..ir.verifier import verify
from ..ops.primitive import REGISTRY
from .reader import LoadedMindIR, load_mindir

_OP = "Split MindIR"


class _NoSplit(Exception):
    """A node mixes batch rows (or has no rule): the graph cannot be split by rows."""


# ----------------------------------------------------------------- helpers
def _axes(attr: Any, ndim: int) -> tuple[int, ...]:
    items = attr if isinstance(attr, (tuple, list)) else (attr,)
    if attr is None or items == ():
        return tuple(range(ndim))
    return tuple(int(a) % ndim for a in items)


def _ndim(x) -> int:
    return len(x.abstract.shape)


def _batched(states: list) -> list[int]:
    return [i for i, s in enumerate(states) if s is not None]


# ----------------------------------------------------------------- rules: (node, input states, B) -> output states
def _elementwise(node: Node, states: list, batch: int) -> list:
    out_nd = max((_ndim(x) for x in node.inputs), default=0)
    found = set()
    for x, s in zip(node.inputs, states):
        if s is not None:
            found.add((s[0] + out_nd - _ndim(x), s[1]))
    if len(found) != 1:
        raise _NoSplit("its inputs carry the batch on different axes")
    ax, k = found.pop()
    for x, s in zip(node.inputs, states):
        a = ax - (out_nd - _ndim(x))
        if s is None and a >= 0 and x.abstract.shape[a] != 1:
            raise _NoSplit(f"an operand without the batch has size {x.abstract.shape[a]} on the batch axis")
    return [(ax, k)] * len(node.outputs)


def _keep(node: Node, states: list, batch: int) -> list:
    """Unary ops that keep the shape (their attributes never mention the batch axis)."""
    if _batched(states) != [0]:
        raise _NoSplit("only its first input may carry the batch")
    return [states[0]] * len(node.outputs)


def _reduce(node: Node, states: list, batch: int) -> list:
    if _batched(states) != [0]:
        raise _NoSplit("only its first input may carry the batch")
    (ax, k), nd = states[0], _ndim(node.inputs[0])
    axes = _axes(node.attrs.get("axis"), nd)
    if ax in axes:
        raise _NoSplit(f"it reduces over the batch axis {ax}")
    keep = node.attrs.get("keepdims", node.attrs.get("keep_dims", node.op in ("Softmax", "LogSoftmax")))
    out_ax = ax if keep else ax - sum(a < ax for a in axes)
    return [(out_ax, k)] * len(node.outputs)


def _transpose(node: Node, states: list, batch: int) -> list:
    if _batched(states) != [0]:
        raise _NoSplit("only its first input may carry the batch")
    ax, k = states[0]
    return [(tuple(node.attrs["perm"]).index(ax), k)]


def _reshape(node: Node, states: list, batch: int) -> list:
    ax, k = states[0]
    shape, new = node.inputs[0].abstract.shape, node.outputs[0].abstract.shape
    if ax != 0 or not new:
        raise _NoSplit("it reshapes across the batch axis")
    row = 1
    for d in shape:
        row *= d
    row //= batch                     # elements of one batch row
    stride = 1
    for d in new[1:]:
        stride *= d                   # elements per entry of the new axis 0
    if stride == 0 or row % stride or new[0] != batch * (row // stride):
        raise _NoSplit(f"it reshapes {tuple(shape)} to {tuple(new)}, which does not keep whole batch rows on axis 0")
    return [(0, row // stride)]


def _matmul(node: Node, states: list, batch: int) -> list:
    a, b = node.inputs[:2]
    out_nd = _ndim(node.outputs[0])
    found = set()
    for side, (x, s) in enumerate(zip((a, b), states[:2])):
        if s is None:
            continue
        nd, (ax, k) = _ndim(x), s
        contract = nd - 1 if side == 0 else nd - 2
        if ax == contract or nd == 1:
            raise _NoSplit("it contracts over the batch axis")
        if ax == nd - 2 and side == 0:
            found.add(((out_nd - 2, k), "rows"))
        elif ax == nd - 1 and side == 1:
            found.add(((out_nd - 1, k), "cols"))
        else:
            found.add(((ax + out_nd - nd, k), "lead"))
    kinds = {f[1] for f in found}
    if len({f[0] for f in found}) != 1 or (len(found) > 1 and kinds != {"lead"}):
        raise _NoSplit("both operands carry the batch on axes that do not pair")
    return [found.pop()[0]]


def _first_on_axis0(node: Node, states: list, batch: int) -> list:
    """Conv/pool/BatchNorm (inference)/BiasAdd: the batch on axis 0 of the first input, nowhere else."""
    if _batched(states) != [0] or states[0][0] != 0:
        raise _NoSplit("only its first input may carry the batch, on axis 0")
    if node.op == "BatchNorm" and node.attrs.get("is_training"):
        raise _NoSplit("BatchNorm in training mode averages over the batch")
    return [states[0]] + [None] * (len(node.outputs) - 1) if node.op == "BatchNorm" else [states[0]] * len(node.outputs)


def _layer_norm(node: Node, states: list, batch: int) -> list:
    if _batched(states) != [0]:
        raise _NoSplit("only its first input may carry the batch")
    ax, k = states[0]
    if int(node.attrs.get("begin_norm_axis", -1)) % _ndim(node.inputs[0]) <= ax:
        raise _NoSplit("it normalizes over the batch axis")
    return [states[0]] * len(node.outputs)


def _flatten(node: Node, states: list, batch: int) -> list:
    ax, k = states[0]
    if int(node.attrs.get("start_dim", 1)) % _ndim(node.inputs[0]) <= ax:
        raise _NoSplit("it flattens the batch axis")
    return [states[0]]


def _concat(node: Node, states: list, batch: int) -> list:
    if None in states or len(set(states)) != 1:
        raise _NoSplit("it joins values with and without the batch (or on different axes)")
    if int(node.attrs["axis"]) % _ndim(node.inputs[0]) == states[0][0]:
        raise _NoSplit("it concatenates along the batch axis")
    return [states[0]]


def _squeeze(node: Node, states: list, batch: int) -> list:
    ax, k = states[0]
    axes = _axes(node.attrs.get("axis"), _ndim(node.inputs[0]))
    if ax in axes:
        raise _NoSplit("it squeezes the batch axis")
    return [(ax - sum(a < ax for a in axes), k)]


def _expand_dims(node: Node, states: list, batch: int) -> list:
    ax, k = states[0]
    at = int(node.attrs["axis"]) % _ndim(node.outputs[0])
    return [(ax + (at <= ax), k)]


def _tile(node: Node, states: list, batch: int) -> list:
    ax, k = states[0]
    mult = tuple(node.attrs["multiples"])
    ax += len(mult) - _ndim(node.inputs[0])
    if mult[ax] != 1:
        raise _NoSplit("it tiles the batch axis")
    return [(ax, k)]


def _get_item(node: Node, states: list, batch: int) -> list:
    if _batched(states) != [0]:
        raise _NoSplit("only the indexed value may carry the batch")
    ax, k = states[0]
    index = tuple(node.attrs.get("index", ()))
    if len(index) > _ndim(node.inputs[0]) or any(not isinstance(e, tuple) or e[0] not in ("int", "slice")
                                                  for e in index):
        raise _NoSplit("its index is more than ints and slices")
    if ax < len(index) and index[ax] != ("slice", None, None, 1):
        raise _NoSplit("it indexes the batch axis")
    return [(ax - sum(e[0] == "int" for e in index[:ax]), k)] * len(node.outputs)


def _gather(node: Node, states: list, batch: int) -> list:
    table, idx = states[:2]
    axis = int(node.attrs.get("axis", 0)) % _ndim(node.inputs[0])
    if int(node.attrs.get("batch_dims", 0)) or (table is not None and idx is not None):
        raise _NoSplit("both its table and its indices carry the batch")
    if idx is not None:
        return [(axis + idx[0], idx[1])]
    if table[0] == axis:
        raise _NoSplit("it gathers along the batch axis")
    return [(table[0] if table[0] < axis else table[0] + _ndim(node.inputs[1]) - 1, table[1])]


_RULES: dict[str, Callable] = {
    "MatMul": _matmul, "BatchMatMul": _matmul, "Reshape": _reshape, "Transpose": _transpose,
    "Softmax": _reduce, "LogSoftmax": _reduce, "ReduceSum": _reduce, "ReduceMean": _reduce, "ReduceMax": _reduce,
    "ReduceMin": _reduce, "ReduceProd": _reduce, "Argmax": _reduce, "Argmin": _reduce, "ArgMaxWithValue": _reduce,
    "ArgMinWithValue": _reduce, "Conv2D": _first_on_axis0, "MaxPool": _first_on_axis0, "AvgPool": _first_on_axis0,
    "BatchNorm": _first_on_axis0, "BiasAdd": _first_on_axis0, "LayerNorm": _layer_norm, "Flatten": _flatten,
    "Concat": _concat, "Squeeze": _squeeze, "ExpandDims": _expand_dims, "Tile": _tile, "GetItem": _get_item,
    "Gather": _gather,
}


def _rule(op: str) -> Callable | None:
    if op in _RULES:
        return _RULES[op]
    prim = REGISTRY.get(op)
    return _elementwise if prim is not None and getattr(prim.category, "value", "") == "elementwise" else None


# ----------------------------------------------------------------- the split
def split_rows(graph: LoadedMindIR, device_num: int, rank_id: int) -> LoadedMindIR:
    """Rank `rank_id`'s graph of a batch split over `device_num` ranks; `_NoSplit` names what prevents it."""
    shapes = [v.abstract.shape for v in graph.inputs if v.abstract.shape]
    if not shapes:
        raise _NoSplit("the graph has no input with a batch dimension")
    batch = shapes[0][0]
    if is_symbolic((batch,)):
        raise _NoSplit(f"the batch dimension is symbolic ({batch}): feed each rank its rows of the unsplit graph")
    if batch % device_num:
        raise _NoSplit(f"the batch dimension {batch} does not divide by device_num={device_num}")
    b = batch // device_num
    env: dict[int, Any] = {}
    state: dict[int, Any] = {}
    inputs = []
    for v in graph.inputs:
        cut = bool(v.abstract.shape) and v.abstract.shape[0] == batch
        shape = ((b,) + tuple(v.abstract.shape[1:])) if cut else v.abstract.shape
        nv = Var(Abstract(shape, v.abstract.dtype, v.abstract.weak), v.name)
        env[v.id], state[nv.id] = nv, ((0, 1) if cut else None)
        inputs.append(nv)
    for v in graph.params:
        env[v.id], state[v.id] = v, None

    def read(x):
        return x if isinstance(x, Const) else env[x.id]

    nodes = []
    for i, node in enumerate(graph.nodes):
        ins = [read(x) for x in node.inputs]
        states = [None if isinstance(x, Const) else state[x.id] for x in ins]
        if all(s is None for s in states):   # no batch in it: the same node (over the rank's input Vars)
            same = all(a is b for a, b in zip(ins, node.inputs))
            nodes.append(node if same else Node(node.op, ins, node.outputs, node.attrs, node.loc, node.subgraphs,
                                                node.scope))
            for v in node.outputs:
                env[v.id], state[v.id] = v, None
            continue
        rule = None if node.subgraphs else _rule(node.op)
        if rule is None:
            raise _NoSplit(f"node %{i} {node.op} carries the batch and msx has no row rule for it")
        try:
            outs = rule(node, states, batch)   # judged on the file's shapes (batch rows of `batch`)
        except _NoSplit as why:
            raise _NoSplit(f"node %{i} {node.op}: {why}") from None
        except (KeyError, TypeError, ValueError, IndexError) as exc:   # attributes not of the form the rule reads
            raise _NoSplit(f"node %{i} {node.op}: its attributes {node.attrs} are not what its row rule reads "
                           f"({type(exc).__name__}: {exc})") from None
        attrs = dict(node.attrs)
        if node.op == "Reshape":
            attrs["shape"] = (b * outs[0][1],) + tuple(node.outputs[0].abstract.shape[1:])
        new = Node(node.op, ins, [], attrs, node.loc, {}, node.scope)
        try:
            new.outputs = [Var(a, v.name) for a, v in zip(infer_node(new), node.outputs)]
        except Exception as exc:   # noqa: BLE001  (the op's own rule refused the rank's shapes)
            raise _NoSplit(f"node %{i} {node.op} does not take the rank's {b} rows: {exc}") from None
        nodes.append(new)
        for v, nv, s in zip(node.outputs, new.outputs, outs):
            env[v.id], state[nv.id] = nv, s
    if graph.updates:
        raise _NoSplit("the graph writes Parameters (a training graph); split an inference graph")
    outputs = [read(x) for x in graph.outputs]
    axes = [None if isinstance(x, Const) or state[x.id] is None else state[x.id][0] for x in outputs]
    base = {f.name: getattr(graph, f.name) for f in fields(Graph)}
    base.update(inputs=inputs, nodes=nodes, outputs=outputs, name=f"{graph.name}_rank{rank_id}")
    manifest = dict(graph.manifest, split={"device_num": device_num, "rank_id": rank_id, "strategy": "batch",
                                           "rows": [rank_id * b, (rank_id + 1) * b], "output_batch_axes": axes})
    out = LoadedMindIR(**base, weights=dict(graph.weights), requires_grad=dict(graph.requires_grad),
                       manifest=manifest)
    try:
        verify(out)
    except VerifyError as exc:
        raise _NoSplit(f"the rank's graph does not verify: {exc.message}") from None
    return out


def export_split_mindir(file_name: str, device_num: int = 8, rank_id: int = 0, dynamic: bool = True,
                        sapp: bool = True) -> LoadedMindIR:
    """MindSpore's `export_split_mindir`: rank `rank_id`'s graph of `file_name` split over `device_num` ranks,
    for `nn.GraphCell` (see the module docstring for msx's split).

    MindSpore's checks and messages for `file_name` (ValueError: not a str, not ending in `.mindir`, missing);
    `dynamic` is read and overridden to True as MindSpore 2.10 does; `sapp=False` (MindSpore: the strategy the
    file records) is refused: msx's reader keeps no strategy, so only its own choice (`sapp=True`) exists. A
    graph that cannot be split, or a file msx cannot read, is MindSpore's RuntimeError with the reason."""
    if not isinstance(file_name, str):
        raise ValueError("For 'Split MindIR', the argument 'file_name' must be string, but "
                         "got {}.".format(type(file_name)))
    if not file_name.endswith(".mindir"):
        raise ValueError("For 'Split MindIR', the argument 'file_name'(MindIR file) should end with '.mindir', "
                         "please input the correct 'file_name'.")
    if not os.path.exists(file_name):
        raise ValueError("For 'Split MindIR', the argument 'file_name'(MindIR file) does not exist, "
                         "please check whether the 'file_name' is correct.")
    if dynamic is not True:   # MindSpore 2.10 sets it to True before use: every file takes its dynamic split
        dynamic = True
    for name, value in (("device_num", device_num), ("rank_id", rank_id)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"For '{_OP}', the argument '{name}' must be an int, but got {type(value)}.")
    if device_num < 1 or not 0 <= rank_id < device_num:
        raise ValueError(f"For '{_OP}', 'device_num' must be positive and 'rank_id' in [0, device_num), but got "
                         f"device_num={device_num}, rank_id={rank_id}.")
    if not sapp:
        raise RuntimeError("Export and split MindIR failed. sapp=False splits by the parallel strategy a MindSpore "
                           "export records in the file; msx's MindIR reader keeps none, so only sapp=True (msx's "
                           "batch split, see docs/mindir.md) is available.")
    try:
        graph = load_mindir(os.path.realpath(file_name))
    except (LoadError, MsxError) as exc:
        raise RuntimeError(f"Export and split MindIR failed. {exc}") from None
    try:
        return split_rows(graph, device_num, rank_id)
    except _NoSplit as why:
        raise RuntimeError(f"Export and split MindIR failed. msx splits a graph by its batch rows (the inputs cut on "
                           f"axis 0, Parameters whole, no collective), and {graph.name} cannot be: {why}.") from None
