"""Node: one statement of a rewritten `construct` (a call, an operator, a return, an input, control flow).

A node knows what it calls (`func`), with what (`args`, `kwargs`) and what it assigns (`targets`). Who
feeds it and whom it feeds are not stored: they are read off the statement order (the nearest earlier node
in the same block assigning the name), so inserting, erasing and renaming never leave stale links.
"""
from __future__ import annotations

import ast
import types
from typing import Dict, List, Optional, Union

from ..nn.cell import Cell
from ..ops.api import PrimitiveOp
from .checks import check_elements, check_type
from .node_type import NodeType
from .scoped_value import ScopedValue, ValueType


# symbol_tree.py puts its sub-network parser here (node.py is below it: the parser builds Nodes)
SUB_NET_PARSER: list = [None]


def _check_kwargs(owner: str, kwargs) -> None:
    check_type(owner, "kwargs", kwargs, [dict])
    for key, value in kwargs.items():
        check_type(owner, "kwargs key", key, [str])
        check_type(owner, "kwargs value", value, [ScopedValue])


def _as_targets(owner: str, targets) -> List[ScopedValue]:
    check_elements(owner, "targets", targets, [ScopedValue, str])
    return [ScopedValue.create_naming_value(t) if isinstance(t, str) else t for t in targets]


class Node:
    """A node of a `SymbolTree` (MindSpore's `mindspore.rewrite.Node`)."""

    def __new__(cls, node: "Node") -> "Node":
        # MindSpore's Node(handler) wraps its implementation object; here node and handler are one object, so
        # Node(n) is n (identity, and so membership in a tree, is kept)
        check_type("Node", "node", node, [Node],
                   "Create nodes with Node.create_call_cell / create_call_function / create_input.")
        return node

    def __init__(self, node: "Node") -> None:  # noqa: D107  (state is set by `make`; see __new__)
        pass

    @classmethod
    def make(cls, node_type: NodeType, name: str, *, targets=None, func: Optional[ScopedValue] = None,
             args=None, kwargs=None, instance=None, stmt: Optional[ast.AST] = None,
             arg_asts=None, kwarg_asts=None) -> "Node":
        """A new node (what parsing and the `create_*` methods build)."""
        self = object.__new__(cls)
        self._type = node_type
        self._name = name
        self._targets: List[ScopedValue] = list(targets or [])
        self._func = func
        self._args: List[ScopedValue] = list(args or [])
        self._kwargs: Dict[str, ScopedValue] = dict(kwargs or {})
        # the source expression of each argument as parsed: code is generated from it until `set_arg` changes
        # the argument, so expressions a ScopedValue cannot spell (`x[0]`, `*args`) survive unchanged
        self._arg_asts: List[Optional[ast.expr]] = list(arg_asts) if arg_asts else [None] * len(self._args)
        self._kwarg_asts: Dict[str, Optional[ast.expr]] = dict(kwarg_asts or {})
        self._instance = instance
        self._stmt = stmt             # the parsed statement (template of operators, verbatim Python statements)
        self._tree = None             # the SymbolTree holding the node, once inserted
        self._block: Optional[list] = None  # the node list holding it (a tree's, or a control flow's body)
        self._parent: Optional[Node] = None  # the ControlFlow / CellContainer node whose block holds it
        self._sub_tree = None         # NodeType.Tree: the SymbolTree of the sub-network
        self._body: List[Node] = []   # ControlFlow: the nodes of its block; CellContainer: one per cell
        self._orelse: Optional[Node] = None   # ControlFlow `if`/`for`/`while`: its else node
        self._body_of: Optional[Node] = None  # an else node: the `if`/`for`/`while` it belongs to
        self._is_else = False         # an else node (it stays one when its `if` is flattened away)
        self._attributes: dict = {}
        if node_type in (NodeType.CallModule, NodeType.CallCell, NodeType.CallPrimitive) and instance is not None:
            # as MindSpore: a called Cell's / Primitive's public attributes, and its class under "cls"
            self._attributes = {k: v for k, v in vars(instance).items() if not k.startswith("_")}
            self._attributes["cls"] = type(instance)
        self._pending_container = False  # a CellContainer whose cell nodes are made when it is inserted
        self._default = None          # Input: the default (an ast.expr when parsed, a ScopedValue when created)
        self._field = None            # the attribute of the network the called Cell is stored under
        return self

    # ------------------------------------------------------------------ creation
    @staticmethod
    def create_call_cell(cell: Cell, targets: List[Union[ScopedValue, str]], args: List[ScopedValue] = None,
                         kwargs: Dict[str, ScopedValue] = None, name: str = "", is_sub_net: bool = False) -> "Node":
        """A node calling `cell` (a Cell or a Primitive): `targets = self.<name>(*args, **kwargs)`.

        With `is_sub_net=True` a Cell with its own `construct` becomes a `NodeType.Tree` node whose
        sub-tree can be rewritten too.
        """
        check_type("Node", "cell", cell, [Cell, PrimitiveOp])
        targets = _as_targets("Node", targets)
        check_type("Node", "name", name, [str])
        check_type("Node", "is_sub_net", is_sub_net, [bool])
        if args is not None:
            check_elements("Node", "args", args, [ScopedValue])
        if kwargs is not None:
            _check_kwargs("Node", kwargs)
        node_type = NodeType.CallCell if isinstance(cell, Cell) else NodeType.CallPrimitive
        node = Node.make(node_type, name or type(cell).__name__, targets=targets, args=args, kwargs=kwargs,
                    instance=cell)
        if is_sub_net and isinstance(cell, Cell):
            SUB_NET_PARSER[0](node, cell)  # symbol_tree's parser: a Tree node or a CellContainer node
        return node

    @staticmethod
    def create_call_function(function: types.FunctionType, targets: List[Union[ScopedValue, str]],
                             args: List[ScopedValue] = None, kwargs: Dict[str, ScopedValue] = None) -> "Node":
        """A node calling a function (or a class, or a builtin): `targets = function(*args, **kwargs)`."""
        check_type("create_call_function", "function", function,
                   [types.FunctionType, type, types.BuiltinFunctionType])
        targets = _as_targets("create_call_function", targets)
        if args is not None:
            check_elements("create_call_function", "args", args, [ScopedValue])
        if kwargs is not None:
            _check_kwargs("create_call_function", kwargs)
        name = function.__name__
        return Node.make(NodeType.CallFunction, name, targets=targets, func=ScopedValue.create_naming_value(name),
                    args=args, kwargs=kwargs, instance=function)

    @staticmethod
    def create_input(param_name: str, default: Optional[ScopedValue] = None) -> "Node":
        """An input node: a new argument `param_name` of `construct` (with `default`, if given)."""
        check_type("Node", "param_name", param_name, [str])
        if default is not None:
            check_type("Node", "default", default, [ScopedValue])
        node = Node.make(NodeType.Input, f"input_{param_name}", targets=[ScopedValue.create_naming_value(param_name)])
        node._default = default
        return node

    # ------------------------------------------------------------------ identity
    def get_handler(self) -> "Node":
        """The node itself (MindSpore returns its implementation object; here they are one)."""
        return self

    def __repr__(self) -> str:
        return f"Node({self._type.name}, {self._name!r})"

    # ------------------------------------------------------------------ what it is
    def get_name(self) -> str:
        """The node's name, unique in its SymbolTree (inserted Cells are stored under it)."""
        return self._name

    def get_node_type(self) -> NodeType:
        return self._type

    def get_instance_type(self) -> type:
        """The type of what the node calls (`nn.Dense`; the function for a CallFunction); NoneType otherwise."""
        if self._type == NodeType.CallFunction and self._instance is not None:
            return self._instance
        return type(self._instance)

    def get_instance(self):
        """What the node calls: the Cell, the Primitive or the function (None for other nodes)."""
        return self._instance

    def get_symbol_tree(self):
        """The SymbolTree holding the node (None before it is inserted)."""
        return self._tree

    def get_sub_tree(self):
        """The SymbolTree of the sub-network of a `NodeType.Tree` node."""
        if self._type != NodeType.Tree:
            raise TypeError(f"For 'get_sub_tree', the node should be a NodeType.Tree node, but "
                            f"{self._name!r} is a {self._type}.")
        return self._sub_tree

    # ------------------------------------------------------------------ operands
    def get_targets(self) -> List[ScopedValue]:
        return list(self._targets)

    def get_args(self) -> List[ScopedValue]:
        return list(self._args)

    def get_kwargs(self) -> Dict[str, ScopedValue]:
        return dict(self._kwargs)

    def set_arg(self, index: int, arg: Union[ScopedValue, str]) -> None:
        """Sets argument `index` (a str names a variable: `node.set_arg(0, "x")`)."""
        check_type("Node", "index", index, [int])
        check_type("Node", "arg", arg, [ScopedValue, str])
        if not 0 <= index < len(self._args):
            raise ValueError(f"For 'Node.set_arg', 'index' should be in range [0, {len(self._args)}) for node "
                             f"{self._name!r} with {len(self._args)} arguments, but got {index}.")
        if isinstance(arg, str):
            arg = ScopedValue.create_naming_value(arg)
        self._args[index] = arg
        self._arg_asts[index] = None

    def set_arg_by_node(self, arg_idx: int, src_node: "Node", out_idx: Optional[int] = None) -> None:
        """Sets argument `arg_idx` to target `out_idx` of `src_node` (its only target when None)."""
        check_type("Node", "arg_idx", arg_idx, [int])
        check_type("Node", "src_node", src_node, [Node])
        targets = src_node.get_targets()
        if out_idx is None:
            if len(targets) != 1:
                raise RuntimeError(f"For 'Node.set_arg_by_node', 'out_idx' must be given when node "
                                   f"{src_node.get_name()!r} has {len(targets)} targets.")
            out_idx = 0
        check_type("Node", "out_idx", out_idx, [int])
        if not 0 <= out_idx < len(targets):
            raise ValueError(f"For 'Node.set_arg_by_node', 'out_idx' should be in range [0, {len(targets)}) for "
                             f"node {src_node.get_name()!r}, but got {out_idx}.")
        self.set_arg(arg_idx, targets[out_idx])

    def _normalized(self) -> List[ScopedValue]:
        """Arguments then keyword arguments: the operands providers are looked up for."""
        return self._args + list(self._kwargs.values())

    # ------------------------------------------------------------------ topology
    def _provider(self, index: int) -> Optional[tuple]:
        """(node, target index) assigning operand `index` last before this node in its block, or None."""
        operand = self._normalized()[index]
        if operand.type != ValueType.NamingValue or operand.scope or self._block is None:
            return None
        pos = _index_of(self._block, self)
        for prev in reversed(self._block[:pos]):
            for t_idx, target in enumerate(prev._targets):
                if target.type == ValueType.NamingValue and not target.scope and target.value == operand.value:
                    return prev, t_idx
        return None

    def get_arg_providers(self) -> dict:
        """{operand index: (node, its target index)} for the operands an earlier node assigns."""
        found = {}
        for i in range(len(self._normalized())):
            provider = self._provider(i)
            if provider is not None:
                found[i] = provider
        return found

    def get_target_users(self, index: int = -1) -> Union[dict, list]:
        """{target index: [(user node, its operand index)]}, or the list for target `index`."""
        users: dict = {}
        if self._block is not None:
            pos = _index_of(self._block, self)
            for later in self._block[pos + 1:]:
                for a_idx, (node, t_idx) in later.get_arg_providers().items():
                    if node is self:
                        users.setdefault(t_idx, []).append((later, a_idx))
        if index == -1:
            return users
        return users.get(index, [])

    def get_inputs(self) -> List["Node"]:
        """The nodes whose outputs this node reads, one per operand they provide."""
        return [node for node, _ in self.get_arg_providers().values()]

    def get_users(self) -> List["Node"]:
        """The nodes reading this node's outputs (each once)."""
        seen: List[Node] = []
        for users in self.get_target_users().values():
            for node, _ in users:
                if not any(node is s for s in seen):
                    seen.append(node)
        order = self._block or []
        return sorted(seen, key=lambda n: _index_of(order, n))

    # ------------------------------------------------------------------ attributes
    def set_attribute(self, key: str, value) -> None:
        check_type("Node attribute", "key", key, [str])
        self._attributes[key] = value

    def get_attributes(self) -> dict:
        return dict(self._attributes)

    def get_attribute(self, key: str):
        check_type("Node attribute", "key", key, [str])
        return self._attributes.get(key)


def _index_of(block: list, node: Node) -> int:
    for i, item in enumerate(block):
        if item is node:
            return i
    raise RuntimeError(f"rewrite: node {node.get_name()!r} is not in its block (an internal error)")
