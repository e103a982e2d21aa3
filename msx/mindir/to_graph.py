"""Pass 3 of reading a `.mindir` file (`msx.mindir.reader`): execute MindIR's graphs symbolically into one
msx Graph — primitive calls through `msx.mindir.op_readers`, state nodes and tuples dropped, `Switch` of two
`Partial`s a `Cond`, a self-calling graph a `While`, other calls inlined — checking every node's result
against the type the file records.

MindSpore writes `break`, `continue` and `return` inside a loop as calls: a branch that continues calls the
loop header again (a `TailCall` here), a branch that breaks runs a copy of the code after the loop and
returns its value. A tensor `if` whose branches end in different kinds of outcome becomes a `Cond` that
returns an int32 tag with every outcome's values (a `Choice`); a loop whose body can end other than by
calling its header carries that tag and the exit values in its state, stops when the tag says the body
left, and picks between the outcome of leaving and the code after its normal end with `Select`s."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..errors import MalformedFileError, MsxError
from ..ir.control import CASE, COND, WHILE
from ..ir.graph import Abstract, Graph, Var
from .op_table import READERS
from . import mind_ir_pb2 as pb
from .build import Budget, GraphBuilder, close_over
from .errors import UnsupportedMindIRError
from .parse import Index, reaches
from .symbolic_values import (Choice, GraphRef, Lazy, PartialValue, SwitchLayerValue, SwitchValue, TailCall, abstract_of, as_array, force,
                     is_tensor)
from .proto import MONAD, TENSOR_DTYPES, A, attribute_value, attributes, dims_of, dtype_of, tensor_value

MAX_INLINE_DEPTH = 200


class Frame:
    """One execution of one MindIR graph: its values by name; free names are looked up in the caller."""

    def __init__(self, builder: GraphBuilder, parent: "Frame | None") -> None:
        self.builder = builder
        self.parent = parent
        self.env: dict[str, Any] = {}

    def lookup(self, name: str, converter: "Converter") -> Any:
        frame = self
        while frame is not None:
            if name in frame.env:
                return frame.env[name]
            frame = frame.parent
        if name in converter.index.graphs:
            return GraphRef(name)
        if name in converter.params:
            return converter.params[name]
        if name in converter.constants:  # MindSpore shares one Constant node among graphs that are not nested
            return converter.constant(name)
        raise MalformedFileError(f"{converter.path}: {name!r} is used where it is not defined")


class OpContext:
    """What a mapping-table entry (`msx.mindir.op_readers.READERS`) sees of the node it converts."""

    def __init__(self, builder: GraphBuilder, op_name: str, attrs: dict, where: str, node_name: str) -> None:
        self.builder, self.op_name, self.attrs, self.where, self.node_name = builder, op_name, attrs, where, node_name

    def op(self, name: str, *inputs, **attrs):
        ins = []
        for x in inputs:
            x = force(x)
            if isinstance(x, Choice):
                self.unsupported(f"an input of {name} is one of {len(x.alts)} results of different kinds "
                                 f"({'; '.join(_show_value(v) for v in x.alts)}), picked at run time by the tensor "
                                 f"if or loop at {x.origin}")
            if not (is_tensor(x) or isinstance(x, (bool, int, float))):
                self.unsupported(f"an input of {name} is {type(x).__name__} {x!r}, not a tensor")
            ins.append(x)
        return self.builder.primitive(name, ins, attrs, self.where)

    def static(self, value, what: str):
        value = force(value)
        if isinstance(value, Var):
            self.unsupported(f"its {what} is computed at run time; msx needs it constant")
        if isinstance(value, np.ndarray):
            return value.item() if value.ndim == 0 else tuple(value.tolist())
        if isinstance(value, tuple):
            return tuple(self.static(v, what) for v in value)
        return value

    def abstract(self, value) -> Abstract:
        return abstract_of(force(value))

    def lazy(self, thunk: Callable[[], tuple], n: int) -> tuple:
        cache: dict = {}
        return tuple(Lazy(thunk, i, cache) for i in range(n))

    def unsupported(self, reason: str):
        raise UnsupportedMindIRError(f"{self.where}: {self.op_name}: {reason}", {self.op_name: (1, self.node_name)})


class Converter:
    def __init__(self, model: pb.ModelProto, index: Index, path: str, name: str) -> None:
        self.model, self.index, self.path, self.name = model, index, path, name
        self.budget = Budget()
        self.params: dict[str, Var] = {}          # MindIR parameter name -> top-level Var
        self.by_key: dict[str, Var] = {}          # ref_key -> Var
        self.weights: dict[str, np.ndarray] = {}
        self.inlining: list[str] = []
        self.loops: list[str] = []
        self.counter = 0
        self.top = GraphBuilder(name, self.budget)
        self.constants = {n.output[0]: (g.name, n) for g in index.graphs.values() for n in g.node
                          if n.op_type == "Constant" and n.output}

    # ------------------------------------------------------------ entry
    def run(self) -> Graph:
        main = self.index.graphs[self.model.graph.name]
        for g in self.index.graphs.values():
            for t in g.parameter:
                self._param(t, g.name)
        args = []
        for vi in main.input:
            abstract = self._value_info(vi, f"graph {main.name}: input {vi.name}")
            if abstract is None:
                raise MalformedFileError(f"{self.path}: main graph input {vi.name!r} is not a tensor of static shape")
            args.append(self.top.input(abstract, _short(vi.name)))
        result = self._inline(main.name, args, None, self.top)
        self.top.graph.outputs = [self.top.local(x) for x in self._leaves(result, f"graph {main.name}: its output")[0]]
        return self.top.graph

    def _param(self, t: pb.TensorProto, graph: str) -> None:
        where = f"graph {graph}: parameter {t.name}"
        key = t.ref_key or _short(t.name)
        value = tensor_value(t, where)
        v = self.by_key.get(key)
        if v is None:
            v = self.top.param(abstract_of(value), key)
            self.by_key[key] = v
            self.weights[key] = value.copy()
        elif v.abstract != abstract_of(value):
            raise MalformedFileError(f"{self.path}: {where}: parameter {key!r} is {abstract_of(value)} here and "
                                     f"{v.abstract} elsewhere")
        self.params[t.name] = v

    def _value_info(self, vi: pb.ValueInfoProto, where: str) -> Abstract | None:
        if len(vi.tensor) != 1:
            return None
        t = vi.tensor[0]
        return Abstract(dims_of(t, where), dtype_of(t.data_type, where).name)

    # ------------------------------------------------------------ graphs
    def call_graph(self, name: str, args: list, frame: Frame | None, builder: GraphBuilder, where: str):
        if name in self.loops:  # the innermost loop's back edge or `continue`, or an inner loop left for an outer
            return TailCall(name, tuple(args))
        if name in self.inlining:
            raise UnsupportedMindIRError(f"{self.path}: {where}: graph {name} calls itself in a form msx cannot "
                                         f"turn into a loop", {"recursion": (1, name)})
        if name in self.index.switch_calls and self._loop_branch(name) is not None:
            return self._while(name, args, frame, builder, where)
        return self._inline(name, args, frame, builder)

    def _enter(self, name: str) -> None:
        if len(self.inlining) >= MAX_INLINE_DEPTH:
            raise MalformedFileError(f"{self.path}: graph calls nest more than {MAX_INLINE_DEPTH} deep")
        self.inlining.append(name)

    def _bind(self, name: str, args: list, frame: Frame | None, builder: GraphBuilder) -> Frame:
        g = self.index.graphs[name]
        if len(args) != len(g.input):
            raise MalformedFileError(f"{self.path}: graph {name} takes {len(g.input)} argument(s), is called with "
                                     f"{len(args)}")
        fr = Frame(builder, frame)
        for vi, a in zip(g.input, args):
            expected = self._value_info(vi, f"graph {name}: input {vi.name}")
            a = force(a)
            if expected is not None and is_tensor(a) and abstract_of(a) != expected:
                raise MalformedFileError(f"{self.path}: graph {name}: input {_short(vi.name)} is declared "
                                         f"{expected} but receives {abstract_of(a)}")
            fr.env[vi.name] = a
        return fr

    def _inline(self, name: str, args: list, frame: Frame | None, builder: GraphBuilder):
        self._enter(name)
        try:
            fr = self._bind(name, args, frame, builder)
            g = self.index.graphs[name]
            for node in g.node:
                self._node(fr, g, node)
            return fr.lookup(g.output[0].name, self)
        finally:
            self.inlining.pop()

    # ------------------------------------------------------------ nodes
    def _node(self, fr: Frame, g: pb.GraphProto, node: pb.NodeProto) -> None:
        where = f"graph {g.name}: node {node.name}"
        op = node.op_type
        if op == "Constant":
            value = _constant_value(node, where)
        else:
            args = [fr.lookup(x, self) for x in node.input]
            target = op[5:] if op.startswith("REF::") else None
            if target is None:
                value = self._primitive(fr, op, attributes(node.attribute, where, ("input_names", "output_names",
                                                                                     "shape")), args, where, node)
            elif target in self.index.prims:
                prim = self.index.prims[target]
                value = self._primitive(fr, prim.op_type, attributes(prim.attribute, f"primitive {prim.name}"), args,
                                        where, node)
            elif target in self.index.graphs:
                value = self.call_graph(target, args, fr, fr.builder, where)
            else:
                value = self.call_value(fr.lookup(target, self), args, fr, where)
        self._check_type(node, value, where)
        fr.env[node.output[0]] = value

    def constant(self, name: str):
        """The value of the Constant node `name` of any graph: a constant means the same wherever it is read."""
        graph, node = self.constants[name]
        return _constant_value(node, f"graph {graph}: node {node.name}")

    def _check_type(self, node: pb.NodeProto, value, where: str) -> None:
        for a in node.attribute:
            if a.name == "shape":
                expected = _recorded_type(a, where)
                if not _type_matches(expected, value):
                    raise MalformedFileError(f"{self.path}: {where}: the file records its result as "
                                             f"{_show(expected)}, msx computes {_show_value(value)}")
                return

    def _primitive(self, fr: Frame, op: str, attrs: dict, args: list, where: str, node) -> Any:
        if op in ("Load", "Depend"):
            return self._arg0(args, op, where)
        if op == "UpdateState":
            return MONAD
        if op in ("MakeTuple", "make_tuple", "MakeList", "make_list"):
            return tuple(args)
        if op in ("TupleGetItem", "tuple_getitem", "ListGetItem", "list_getitem"):
            if len(args) != 2 or not isinstance(args[0], tuple) or not isinstance(args[1], int) or \
                    not -len(args[0]) <= args[1] < len(args[0]):
                raise MalformedFileError(f"{self.path}: {where}: {op} needs a tuple and an index within it, got "
                                         f"{_show_value(args[0]) if args else '()'} and {args[1:]!r}")
            return args[0][args[1]]
        if op == "Partial":
            if not args:
                raise MalformedFileError(f"{self.path}: {where}: Partial of nothing")
            return PartialValue(args[0], tuple(args[1:]))
        if op == "Switch":
            if len(args) != 3:
                raise MalformedFileError(f"{self.path}: {where}: Switch takes 3 inputs, got {len(args)}")
            pred = force(args[0])
            static = _static_bool(pred)
            if static is not None:
                return args[1] if static else args[2]
            return SwitchValue(pred, args[1], args[2])
        if op in ("switch_layer", "SwitchLayer"):
            return self._switch_layer(args, where)
        ctx = OpContext(fr.builder, op, attrs, f"{self.path}: {where}", node.name)
        tensor_args = [a for a in args if a is not MONAD]
        try:
            return READERS[op](ctx, *tensor_args)
        except MsxError:
            raise
        except (TypeError, ValueError, IndexError, KeyError, AttributeError, OverflowError) as exc:
            # the file gave the op inputs of a kind or number it does not take
            raise MalformedFileError(f"{self.path}: {where}: {op} cannot take its inputs "
                                     f"({', '.join(_show_value(a) for a in tensor_args)}): {exc}") from None

    def _arg0(self, args: list, op: str, where: str):
        if not args:
            raise MalformedFileError(f"{self.path}: {where}: {op} needs an input")
        return args[0]

    # ------------------------------------------------------------ calls and control flow
    def call_value(self, fn, args: list, frame: Frame, where: str):
        fn = force(fn)
        if isinstance(fn, GraphRef):
            return self.call_graph(fn.name, args, frame, frame.builder, where)
        if isinstance(fn, PartialValue):
            return self.call_value(fn.fn, list(fn.args) + list(args), frame, where)
        if isinstance(fn, SwitchValue):
            return self._branches(COND, fn.pred, [(fn.on_true, "then"), (fn.on_false, "else")], args, frame,
                                  where, "if")
        if isinstance(fn, SwitchLayerValue):
            index = self._index_from_end(frame.builder, fn.index, len(fn.branches), where)
            return self._branches(CASE, index, [(b, f"case{k}") for k, b in enumerate(fn.branches)], args, frame,
                                  where, "switch")
        raise MalformedFileError(f"{self.path}: {where} calls {_show_value(fn)}, which is not a function")

    def _fresh(self, kind: str) -> str:
        self.counter += 1
        return f"{self.name}_{kind}{self.counter}"

    def _switch_layer(self, args: list, where: str):
        """MindSpore's `switch_layer(index, MakeTuple(graphs...))`: one of the graphs, by a scalar int tensor."""
        if len(args) != 2 or not isinstance(args[1], tuple) or not args[1]:
            raise MalformedFileError(f"{self.path}: {where}: switch_layer takes an index and a tuple of graphs, got "
                                     f"{', '.join(_show_value(a) for a in args)}")
        index = force(args[0])
        if isinstance(index, (int, np.integer)) or (isinstance(index, np.ndarray) and index.size == 1):
            k = int(np.asarray(index).reshape(()))
            if not -len(args[1]) <= k < len(args[1]):
                raise MalformedFileError(f"{self.path}: {where}: switch_layer's constant index {k} is out of range "
                                         f"for {len(args[1])} graphs")
            return args[1][k]
        return SwitchLayerValue(index, args[1])

    def _index_from_end(self, builder: GraphBuilder, index, n: int, where: str):
        """`index`, a negative one counted from the end (MindSpore's switch_layer takes [-n, n))."""
        negative = builder.primitive("Less", [index, np.asarray(0, np.int32)], {}, where)
        shifted = builder.primitive("Add", [index, np.asarray(n, np.int32)], {}, where)
        return builder.primitive("Select", [negative, shifted, index], {}, where)

    def _branches(self, kind, selector, branches: list, args: list, frame: Frame, where: str, what: str):
        """One Cond (`kind` COND, selector a bool) or Case (CASE, an index) node calling each branch on `args`."""
        parent = frame.builder
        name = self._fresh(what)
        builders, results = [], []
        for branch, tag in branches:
            sb = GraphBuilder(f"{name}_{tag}", self.budget, parent)
            value = self.call_value(branch, args, Frame(sb, frame), where)
            builders.append(sb)
            results.append(self._alternatives(value, f"{where}: the {tag} branch"))
        keys = _union_keys(alts for _, alts in results)
        for sb, (tag, alts) in zip(builders, results):
            if len(keys) == 1:
                leaves = alts[0].leaves
            else:  # the branches end differently: each returns its outcome's tag and every outcome's values
                mine = {a.key: a.leaves for a in alts}
                leaves = [self._map_tag(sb, tag, [keys.index(a.key) for a in alts], where)]
                for key in keys:
                    leaves += mine[key] if key in mine else [_zeros(ab) for ab in key[1]]
            outputs = [abstract_of(x) for x in leaves]  # the same in both branches: one list of kinds
            sb.graph.outputs = [sb.local(x) for x in leaves]
        captured = close_over(builders, explicit=0)
        graphs = [b.graph for b in builders]
        made = COND.make(selector, captured, *graphs, outputs=outputs) if kind is COND else \
            CASE.make(selector, captured, graphs, outputs=outputs)
        outs = iter(parent.add_made(made, where))
        if len(keys) == 1:
            return _rebuild(keys[0][0], outs)
        tag = next(outs)
        return Choice(tag, tuple(_rebuild(key[0], outs) for key in keys), where)

    def _alternatives(self, value, where: str) -> tuple[Any, list["Outcome"]]:
        """The outcomes `value` may be, and the tag that picks one (None where it is one outcome)."""
        value = force(value)
        if isinstance(value, Choice):
            return value.tag, [self._outcome(v, where) for v in value.alts]
        return None, [self._outcome(value, where)]

    def _outcome(self, value, where: str) -> "Outcome":
        leaves, tree = self._leaves(value, where)
        return Outcome((tree, tuple(abstract_of(x) for x in leaves)), leaves, force(value))

    def _map_tag(self, builder: GraphBuilder, tag, table: list[int], where: str):
        """Renumber an outcome tag: `table[i]` for tag value i (a constant where there is one outcome)."""
        if tag is None or len(set(table)) == 1:
            return np.asarray(table[0], np.int32)
        if table == list(range(len(table))):
            return tag
        out = np.asarray(table[0], np.int32)
        for i in range(1, len(table)):
            hit = builder.primitive("Equal", [tag, np.asarray(i, np.int32)], {}, where)
            out = builder.primitive("Select", [hit, np.asarray(table[i], np.int32), out], {}, where)
        return out

    def _select(self, builder: GraphBuilder, pred, a, b, where: str):
        """`a if pred else b` for two outcomes already computed (after a loop that may have been left early)."""
        (tag_a, alts_a), (tag_b, alts_b) = self._alternatives(a, where), self._alternatives(b, where)
        keys = _union_keys([alts_a, alts_b])
        picked = {}
        for key in keys:
            la = next((x.leaves for x in alts_a if x.key == key), None)
            lb = next((x.leaves for x in alts_b if x.key == key), None)
            if la is None or lb is None:
                picked[key] = la if lb is None else lb
            else:
                picked[key] = [x if x is y else builder.primitive("Select", [pred, x, y], {}, where)
                               for x, y in zip(la, lb)]
        if len(keys) == 1:
            return _rebuild(keys[0][0], iter(picked[keys[0]]))
        tags = [self._map_tag(builder, t, [keys.index(x.key) for x in alts], where)
                for t, alts in ((tag_a, alts_a), (tag_b, alts_b))]
        tag = builder.primitive("Select", [pred, *tags], {}, where)
        return Choice(tag, tuple(_rebuild(key[0], iter(picked[key])) for key in keys), where)

    def _loop_branch(self, name: str) -> bool | None:
        """True/False: which Switch branch of graph `name` loops back to it; None if neither or both do. An
        inner loop's exit reaches its header again through the outer loop's header: that path does not count."""
        g = self.index.graphs[name]
        call = g.node[self.index.switch_calls[name]]
        by_output = {n.output[0]: n for n in g.node}
        switch = by_output[call.op_type[5:]]
        looping = []
        for x in switch.input[1:3]:
            partial = by_output.get(x)
            targets = [x] if x in self.index.graphs else \
                [i for i in (partial.input if partial is not None else ()) if i in self.index.graphs][:1]
            looping.append(bool(targets) and reaches(self.index, targets[0], name, self.loops))
        if len(looping) != 2 or looping[0] == looping[1]:
            return None
        return looping[0]

    def _header(self, name: str, args: list, frame: Frame | None, builder: GraphBuilder):
        """Run a loop header's nodes up to its final Switch call: (pred, loop closure, exit closure, call args)."""
        g = self.index.graphs[name]
        stop = self.index.switch_calls[name]
        self._enter(name)
        try:
            fr = self._bind(name, args, frame, builder)
            for node in g.node[:stop]:
                self._node(fr, g, node)
            call = g.node[stop]
            sw = force(fr.lookup(call.op_type[5:], self))
            call_args = [fr.lookup(x, self) for x in call.input]
        finally:
            self.inlining.pop()
        if not isinstance(sw, SwitchValue):
            raise UnsupportedMindIRError(f"{self.path}: graph {name}: its loop condition is constant here; msx "
                                         f"reads while loops whose condition is a tensor", {"while": (1, name)})
        loops_on_true = self._loop_branch(name)
        pred = sw.pred
        if not loops_on_true:
            pred = builder.primitive("LogicalNot", [pred], {}, f"graph {name}")
        loop, exit_ = (sw.on_true, sw.on_false) if loops_on_true else (sw.on_false, sw.on_true)
        return pred, loop, exit_, call_args

    def _while(self, name: str, args: list, frame: Frame | None, builder: GraphBuilder, where: str):
        args = [force(a) for a in args]
        carried = [i for i, a in enumerate(args) if is_tensor(a)]
        init = [args[i] for i in carried]

        def bind(values: list) -> list:
            out = list(args)
            for i, v in zip(carried, values):
                out[i] = v
            return out

        loop_name = self._fresh("while")
        bb = GraphBuilder(f"{loop_name}_body", self.budget, builder)
        bvars = [bb.input(abstract_of(v)) for v in init]
        _, loop, _, call_args = self._header(name, bind(bvars), frame, bb)
        self.loops.append(name)
        try:
            result = self.call_value(loop, call_args, Frame(bb, frame), where)
        finally:
            self.loops.pop()
        tag, alts = self._alternatives(result, f"{where}: the body of loop {name}")
        back = [i for i, a in enumerate(alts) if isinstance(a.value, TailCall) and a.value.target == name]
        if len(back) != 1:
            raise UnsupportedMindIRError(
                f"{self.path}: {where}: the body of loop {name} does not end by calling {name} again"
                if not back else f"{self.path}: {where}: loop {name} calls itself again with values of "
                f"{len(back)} different types", {"while": (1, name)})
        new = [force(a) for a in alts[back[0]].value.args]
        self._check_next(name, args, carried, new, where)
        exits = [a for i, a in enumerate(alts) if i != back[0]]   # break / return: the loop is left from inside
        # the loop state: the carried values, then (if the body can leave) the outcome tag and the exit values
        state = init + ([np.asarray(back[0], np.int32)] + [_zeros(ab) for e in exits for ab in e.key[1]]
                        if exits else [])
        extra = [bb.input(abstract_of(v)) for v in state[len(init):]]  # the body only passes them on
        ours = {v.id for v in bvars + extra}
        bb.graph.inputs = bvars + extra + [v for v in bb.graph.inputs if v.id not in ours]
        bb.graph.outputs = [bb.local(new[i]) for i in carried]
        if exits:
            bb.graph.outputs += [bb.local(tag)] + [bb.local(x) for e in exits for x in e.leaves]

        cb = GraphBuilder(f"{loop_name}_cond", self.budget, builder)
        cvars = [cb.input(abstract_of(v)) for v in state]
        pred = force(self._header(name, bind(cvars[:len(init)]), frame, cb)[0])
        if exits:  # run on while the body went round again and the header's condition holds
            going = cb.primitive("Equal", [cvars[len(init)], np.asarray(back[0], np.int32)], {}, where)
            pred = cb.primitive("LogicalAnd", [going, pred], {}, where)
        cb.graph.outputs = [cb.local(pred)]
        captured = close_over([cb, bb], explicit=len(state))
        bb.graph.outputs += bb.graph.inputs[len(state):]
        abstracts = [abstract_of(v) for v in state] + [abstract_of(c) for c in captured]
        outs = builder.add_made(WHILE.make(state + captured, cb.graph, bb.graph, outputs=abstracts), where)
        _, _, exit_, call_args = self._header(name, bind(outs[:len(init)]), frame, builder)
        ended = self.call_value(exit_, call_args, Frame(builder, frame), where)
        if not exits:
            return ended
        out_tag, left = outs[len(init)], iter(outs[len(init) + 1:len(state)])
        table = [0] * len(alts)
        for j, i in enumerate(i for i in range(len(alts)) if i != back[0]):
            table[i] = j
        values = tuple(_rebuild(e.key[0], left) for e in exits)
        broke = values[0] if len(values) == 1 else Choice(self._map_tag(builder, out_tag, table, where), values,
                                                           where)
        normal = builder.primitive("Equal", [out_tag, np.asarray(back[0], np.int32)], {}, where)
        return self._select(builder, normal, ended, broke, where)

    def _check_next(self, name: str, args: list, carried: list, new: list, where: str) -> None:
        """A loop's next arguments must keep the carried values' types and the other arguments themselves."""
        if len(new) != len(args):
            raise MalformedFileError(f"{self.path}: {where}: loop {name} calls itself with {len(new)} argument(s), "
                                     f"it takes {len(args)}")
        for i, (old, nxt) in enumerate(zip(args, new)):
            if i in carried:
                if not is_tensor(nxt) or abstract_of(nxt) != abstract_of(old):
                    raise UnsupportedMindIRError(
                        f"{self.path}: {where}: loop {name} changes argument {i} from {_show_value(old)} to "
                        f"{_show_value(nxt)}; msx loops keep each value's shape and dtype", {"while": (1, name)})
            elif not (nxt is old or (nxt is MONAD and old is MONAD) or _same_static(nxt, old)):
                raise UnsupportedMindIRError(f"{self.path}: {where}: loop {name} changes its non-tensor argument "
                                             f"{i} ({old!r} -> {nxt!r})", {"while": (1, name)})

    # ------------------------------------------------------------ results
    def _leaves(self, value, where: str, statics: bool = False) -> tuple[list, Any]:
        """Flatten a (nested tuple) result into tensor leaves and a tree; statics stay in the tree, a tail call
        is a node of it (its Python-number arguments too: a loop's non-tensor arguments stay constants). A
        run-time choice between outcomes of different kinds has no one tree."""
        value = force(value)
        if isinstance(value, tuple):
            leaves, trees = [], []
            for v in value:
                sub, tree = self._leaves(v, where, statics)
                leaves += sub
                trees.append(tree)
            return leaves, ("tuple", tuple(trees))
        if isinstance(value, TailCall):
            leaves, tree = self._leaves(value.args, where, statics=True)
            return leaves, ("tail", value.target, tree)
        if isinstance(value, Choice):
            kinds = "; ".join(_show_value(v) for v in value.alts)
            raise UnsupportedMindIRError(f"{self.path}: {where} is one of {len(value.alts)} results of different "
                                         f"kinds ({kinds}), picked at run time by the tensor if or loop at "
                                         f"{value.origin}; msx needs one kind of result here",
                                         {"output": (1, value.origin)})
        if isinstance(value, (bool, int, float)):
            if statics:
                return [], ("const", value)
            value = as_array(value)
        if is_tensor(value):
            return [value], ("leaf",)
        if value is MONAD or value is None:
            return [], ("static", repr(value))
        if statics:  # a graph, a partial application...: the same object wherever the branches agree
            return [], ("const", _Same(value))
        raise UnsupportedMindIRError(f"{self.path}: {where} is {_show_value(value)}, not tensors",
                                     {"output": (1, where)})


@dataclass(frozen=True)
class Outcome:
    """One way a graph call may end: its kind (`key`: the tree and the leaves' types), leaves and value."""

    key: tuple
    leaves: list
    value: Any


def _union_keys(alternatives) -> list:
    """The kinds of outcome over several lists of `Outcome`s, each once, in first-seen order."""
    keys: list = []
    for alts in alternatives:
        for a in alts:
            if a.key not in keys:
                keys.append(a.key)
    return keys


class _Same:
    """A non-tensor loop argument in an outcome's kind: equal only to itself (numpy arrays inside it have no
    truth value to compare by)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


_NP_DTYPES = {d.name: d for d in TENSOR_DTYPES.values()}


def _zeros(abstract: Abstract) -> np.ndarray:
    """Filler for an outcome a branch does not take (never read: the tag says which values are real)."""
    return np.zeros(abstract.shape, _NP_DTYPES.get(abstract.dtype) or np.dtype(abstract.dtype))


def _constant_value(node: pb.NodeProto, where: str):
    if not node.attribute:
        raise MalformedFileError(f"{where}: a Constant without a value")
    value = attribute_value(node.attribute[0], where)
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "graph" and \
            node.attribute[0].type in (A.FUNCGRAPHCLOSURE, A.GRAPH):
        value = GraphRef(value[1])
    return value


def _rebuild(tree, outs):
    kind = tree[0]
    if kind == "leaf":
        return next(outs)
    if kind == "tuple":
        return tuple(_rebuild(t, outs) for t in tree[1])
    if kind == "tail":
        return TailCall(tree[1], _rebuild(tree[2], outs))
    if kind == "const":
        return tree[1].value if isinstance(tree[1], _Same) else tree[1]
    return MONAD if tree[1] == "U" else None


def _static_bool(pred) -> bool | None:
    if isinstance(pred, (bool, int, np.bool_)):
        return bool(pred)
    if isinstance(pred, np.ndarray) and pred.size == 1:
        return bool(pred.reshape(()))
    return None


def _same_static(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _recorded_type(a: pb.AttributeProto, where: str, depth: int = 0):
    """The type a node's "shape" attribute records: an Abstract, a tuple of them, or None (not checked)."""
    if depth > 32:
        raise MalformedFileError(f"{where}: its recorded type is nested too deep")
    if a.type == A.TENSORS and len(a.tensors) == 1:
        t = a.tensors[0]
        if any(d < 0 for d in t.dims) or t.data_type not in TENSOR_DTYPES:
            return None
        return Abstract(tuple(int(d) for d in t.dims), TENSOR_DTYPES[t.data_type].name)
    if a.type == A.TUPLE:
        return tuple(_recorded_type(v, where, depth + 1) for v in a.values)
    return None


def _type_matches(expected, value) -> bool:
    value = value.force() if isinstance(value, Lazy) and "values" in value.cache else value
    if expected is None or isinstance(value, Lazy):
        return True
    if isinstance(expected, Abstract):
        if is_tensor(value):
            return abstract_of(value) == expected
        return not isinstance(value, tuple)
    if isinstance(value, tuple):
        return len(value) == len(expected) and all(_type_matches(e, v) for e, v in zip(expected, value))
    return True


def _show(expected) -> str:
    if isinstance(expected, tuple):
        return "(" + ", ".join(_show(e) for e in expected) + ")"
    return str(expected) if expected is not None else "?"


def _show_value(value) -> str:
    value = force(value)
    if is_tensor(value):
        return str(abstract_of(value))
    if isinstance(value, tuple):
        return "(" + ", ".join(_show_value(v) for v in value) + ")"
    if isinstance(value, TailCall):
        return f"a call of loop {value.target}"
    if isinstance(value, Choice):
        return "one of (" + "; ".join(_show_value(v) for v in value.alts) + ")"
    if isinstance(value, (GraphRef, PartialValue, SwitchValue)):
        return type(value).__name__
    return repr(value)


def _short(name: str) -> str:
    """`"30_1___main___MLP_construct_14:fc1.weight"` -> `"fc1.weight"`."""
    return name.rsplit(":", 1)[-1] or name
