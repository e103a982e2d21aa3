"""SymbolTree: a network's `construct` as a list of nodes that can be inspected, edited and turned back
into a network (MindSpore's `mindspore.rewrite.SymbolTree`).

    stree = SymbolTree.create(net)                    # parse type(net).construct
    stree.insert(stree.after(stree.get_node("relu")), Node.create_call_cell(nn.Tanh(), ["x"], [...]))
    new_net = stree.get_network()                     # a Cell running the rewritten construct

Sub-networks with their own `construct` are Tree nodes with their own SymbolTree; `get_network` rebuilds
them too. The original network is never modified.
"""
from __future__ import annotations

import ast
import copy
import inspect
import textwrap
import types
from typing import Generator, List, Optional, Union

from .. import log
from ..atomic import write_atomic
from ..capture.ast_capture.source import function_source
from ..nn.cell import Cell
from ..nn.layer.container import SequentialCell
from . import node as _node_module
from .checks import check_elements, check_type
from .codegen import class_source, compile_class, construct_def
from .containers import is_container
from .flatten import flatten_body
from .namer import Namer
from .node import Node
from .node_type import NodeType
from .parse import ParseContext, fill_container, parse_arguments, parse_block
from .scoped_value import ScopedValue, ValueType
from .static_if import static_value
from .table import dump_text, node_table

_CELL_NODES = (NodeType.CallCell, NodeType.CallPrimitive, NodeType.Tree, NodeType.CellContainer)


class Position:
    """Where `SymbolTree.insert` puts a node: before or after `node` in its block."""

    def __init__(self, tree: "SymbolTree", node: Node, before: bool) -> None:
        self.tree, self.node, self.before = tree, node, before


def _construct_owner(network: Cell) -> type:
    """The class whose body defines the `construct` the network runs (what a zero-argument `super()` in it
    means)."""
    for klass in type(network).__mro__:
        if "construct" in vars(klass):
            return klass
    return type(network)


def _construct_of(network: Cell) -> tuple[ast.FunctionDef, dict]:
    """The AST of `type(network).construct` and the names it sees (module globals plus closure values)."""
    fn = getattr(type(network), "construct", None)
    if not isinstance(fn, types.FunctionType) or fn is Cell.construct:
        raise RuntimeError(f"For 'SymbolTree.create', network {type(network).__name__} has no construct "
                           f"method written in Python to parse.")
    found = function_source(fn)
    if found is not None and isinstance(found.node, ast.FunctionDef):
        func_def = copy.deepcopy(found.node)
    else:
        try:
            text = textwrap.dedent(inspect.getsource(fn))
        except (OSError, TypeError) as exc:
            raise RuntimeError(f"For 'SymbolTree.create', the source of {type(network).__name__}.construct "
                               f"cannot be read ({exc}).") from None
        func_def = ast.parse(text).body[0]
    names = dict(fn.__globals__)
    if fn.__closure__:
        for var, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                names[var] = cell.cell_contents
            except ValueError:
                pass
    return func_def, names


class SymbolTree:
    """The nodes of a network's `construct` (create one with `SymbolTree.create(network)`)."""

    def __new__(cls, handler: "SymbolTree") -> "SymbolTree":
        # MindSpore's SymbolTree(handler) wraps its implementation object; here they are one: the same object
        check_type("SymbolTree", "handler", handler, [SymbolTree], "Create a tree with SymbolTree.create(network).")
        return handler

    def __init__(self, handler: "SymbolTree") -> None:  # noqa: D107  (state is set by `create`; see __new__)
        pass

    # ------------------------------------------------------------------ building
    @classmethod
    def create(cls, network: Cell) -> "SymbolTree":
        """Parses `type(network).construct` into a SymbolTree."""
        check_type("SymbolTree", "network", network, [Cell])
        tree = object.__new__(cls)
        tree._build(network)
        return tree

    def _build(self, network: Cell) -> None:
        func_def, names = _construct_of(network)
        func_def.decorator_list = []
        self._network = network
        self._func_def = func_def
        self._globals = names
        self._nodes: List[Node] = []
        self._node_namer = Namer()
        self._target_namer = Namer()
        self._fields: dict = {}      # new attributes of the rewritten network: inserted cells, custom objects
        self._functions: dict = {}   # names the rewritten construct calls inserted functions by
        self._file_name = f"{type(network).__name__}Opt.py"
        self._ctx = ParseContext(network, names, self._node_namer, self._target_namer, SymbolTree._sub_tree,
                                 self._add)
        flatten_body(func_def.body, None)
        parse_arguments(self._ctx, func_def.args, self._nodes)
        parse_block(self._ctx, func_def.body, self._nodes, None)

    @staticmethod
    def _sub_tree(cell: Cell) -> Optional["SymbolTree"]:
        try:
            return SymbolTree.create(cell)
        except RuntimeError as exc:  # no Python construct to read: the cell stays a CallCell node
            log.get_logger().info("rewrite: %s stays a CallCell node: %s", type(cell).__name__, exc)
            return None

    def _add(self, node: Node, block: list, parent: Optional[Node], index: Optional[int] = None) -> None:
        node._name = self._node_namer.get_name(node._name)
        node._tree, node._block, node._parent = self, block, parent
        if index is None:
            block.append(node)
        else:
            block.insert(index, node)
        for target in node._targets:
            self._target_namer.add_name(str(target))
        if node._pending_container:
            fill_container(self._ctx, node)

    def get_handler(self) -> "SymbolTree":
        """The tree itself (MindSpore returns its implementation object; here they are one)."""
        return self

    def get_origin_network(self) -> Cell:
        return self._network

    # ------------------------------------------------------------------ reading
    def nodes(self, all_nodes: bool = False) -> Generator[Node, None, None]:
        """The nodes of `construct` in order; with `all_nodes`, then those inside control flow and
        containers, then those of sub-trees."""
        check_type("nodes", "all_nodes", all_nodes, [bool])
        yield from (self.all_nodes() if all_nodes else list(self._nodes))

    def all_nodes(self, subtree_nodes: bool = True) -> List[Node]:
        """Every node of this tree (blocks of control flow and containers included) and, with
        `subtree_nodes`, of its sub-trees."""
        found: List[Node] = []
        stack: List[List[Node]] = [self._nodes]
        while stack:
            block = stack.pop()
            found.extend(block)
            stack.extend(n._body for n in block if n._type in (NodeType.ControlFlow, NodeType.CellContainer))
        if subtree_nodes:
            for node in found[:]:
                if node._type == NodeType.Tree and node._sub_tree is not None:
                    found.extend(node._sub_tree.all_nodes())
        return found

    def get_node(self, node_name: str) -> Optional[Node]:
        """The node named `node_name` (in any block of this tree), or None."""
        check_type("SymbolTree", "node_name", node_name, [str])
        for node in self.all_nodes(subtree_nodes=False):
            if node._name == node_name:
                return node
        return None

    def _real(self, node_or_name: Union[Node, str], what: str) -> Node:
        check_type("SymbolTree", what, node_or_name, [Node, str])
        node = self.get_node(node_or_name) if isinstance(node_or_name, str) else node_or_name
        if node is None or node._tree is not self:
            name = node_or_name if isinstance(node_or_name, str) else node_or_name.get_name()
            raise RuntimeError(f"Node is not belong to current SymbolTree: {name!r} (SymbolTree of "
                               f"{type(self._network).__name__}).")
        return node

    def get_inputs(self) -> List[Node]:
        return [n for n in self._nodes if n._type == NodeType.Input]

    def unique_name(self, name: str = "output") -> str:
        """A target name not used in this tree yet, derived from `name`."""
        check_type("SymbolTree", "name", name, [str])
        return self._target_namer.get_name(name)

    # ------------------------------------------------------------------ editing
    def before(self, node: Union[Node, str]) -> Position:
        """The position before `node` (a Node or its name), for `insert`."""
        return Position(self, self._real(node, "node"), True)

    def after(self, node: Union[Node, str]) -> Position:
        """The position after `node` (a Node or its name), for `insert`."""
        return Position(self, self._real(node, "node"), False)

    def insert(self, position: Position, node: Node) -> Node:
        """Inserts `node` at `position` (from `before`/`after`); a Cell it calls is stored on the rewritten
        network under the node's (unique) name."""
        check_type("SymbolTree", "position", position, [Position])
        check_type("SymbolTree", "node", node, [Node])
        if position.tree is not self:
            raise ValueError(f"Position is not in current SymbolTree, node: {position.node.get_name()!r}.")
        if node._tree is not None:
            raise ValueError(f"Node in the SymbolTree cannot be inserted into SymbolTree again: "
                             f"{node.get_name()!r}")
        base = position.node
        if base._block is self._nodes and base._type == NodeType.Input:
            following = self._nodes[self._nodes.index(base) + 1] if base is not self._nodes[-1] else None
            if position.before or (following is not None and following._type == NodeType.Input):
                if node._type != NodeType.Input:
                    raise RuntimeError(f"Can not insert a node before or between parameters: {base.get_name()!r}")
        if base._parent is not None and base._parent._type == NodeType.CellContainer \
                and node._type not in _CELL_NODES:
            raise TypeError(f"For 'SymbolTree.insert', only a node calling a Cell can go into the "
                            f"SequentialCell {base._parent.get_name()!r}, but got a {node._type} node.")
        index = base._block.index(base) + (0 if position.before else 1)
        self._add(node, base._block, base._parent, index)
        self._bind(node)
        return node

    def _bind(self, node: Node) -> None:
        """Gives a new node what its code refers to: a field for its Cell, a name for its function."""
        in_container = node._parent is not None and node._parent._type == NodeType.CellContainer
        if node._type in _CELL_NODES and node._func is None and not in_container:
            field = node._name
            while field in self._fields or hasattr(self._network, field):
                field = self._node_namer.get_name(field)
            self._fields[field] = node._instance
            node._field = field
            node._func = ScopedValue.create_naming_value(field, "self")
        elif node._type == NodeType.CallFunction and node._stmt is None:
            name = node._func.value
            while self._globals.get(name, node._instance) is not node._instance or \
                    self._functions.get(name, node._instance) is not node._instance:
                name = self._node_namer.get_name(name)
            self._functions[name] = node._instance
            node._func = ScopedValue.create_naming_value(name)
        for i, arg in enumerate(node._args):
            if arg.type == ValueType.CustomObjValue:
                node._args[i] = self._store(arg.value)
                node._arg_asts[i] = None
        for key, arg in node._kwargs.items():
            if arg.type == ValueType.CustomObjValue:
                node._kwargs[key] = self._store(arg.value)
                node._kwarg_asts.pop(key, None)

    def _store(self, value) -> ScopedValue:
        field = self._node_namer.get_name("var")
        while hasattr(self._network, field):
            field = self._node_namer.get_name(field)
        self._fields[field] = value
        return ScopedValue.create_naming_value(field, "self")

    def erase(self, node: Union[Node, str]) -> Optional[Node]:
        """Removes `node`; its users then read the name from the node before it that assigns the name (a
        warning names the users left without one)."""
        node = self._real(node, "node")
        for t_idx, users in node.get_target_users().items():
            for user, a_idx in users:
                provider = None
                pos = node._block.index(node)
                name = node._targets[t_idx]
                for prev in reversed(node._block[:pos]):
                    if any(str(t) == str(name) for t in prev._targets):
                        provider = prev
                        break
                if provider is None:
                    log.get_logger().warning(
                        "rewrite: node %s's target %d (%s) is used in node %s's arg %d, no other node provides "
                        "this target if node %s is erased.", node.get_name(), t_idx, name, user.get_name(), a_idx,
                        node.get_name())
        node._block.remove(node)
        if node._orelse is not None:
            node._orelse._body_of = None
            node._orelse._tree = None
            node._block.remove(node._orelse)
        if node._body_of is not None:
            node._body_of._orelse = None
            node._body_of = None
        node._tree, node._block, node._parent = None, None, None
        return node

    def replace(self, old_node: Node, new_nodes: List[Node]) -> Node:
        """Puts `new_nodes` where `old_node` is; returns the last of them."""
        check_type("SymbolTree", "old_node", old_node, [Node])
        check_elements("SymbolTree", "new_nodes", new_nodes, [Node], containers=(list,))
        if not new_nodes:
            raise ValueError("For 'SymbolTree.replace', 'new_nodes' should not be empty.")
        old_node = self._real(old_node, "old_node")
        base = old_node
        for new in new_nodes:
            self.insert(self.after(base), new)
            base = new
        self.erase(old_node)
        return new_nodes[-1]

    def set_output(self, index: int, return_value: str) -> Node:
        """Sets operand `index` of the return statement to the variable `return_value`."""
        check_type("SymbolTree", "index", index, [int])
        check_type("SymbolTree", "return_value", return_value, [str])
        outputs = [n for n in self._nodes if n._type == NodeType.Output]
        if not outputs:
            raise RuntimeError(f"SymbolTree of {type(self._network).__name__} has no return node.")
        outputs[-1].set_arg(index, return_value)
        return outputs[-1]

    def flatten_nodes(self, node: Node, erase_nodes_after_return: bool = False) -> None:
        """Moves the nodes of ControlFlow `node`'s block to where `node` is and removes `node` (an `if`'s
        branch then runs unconditionally, a loop's body once). As in MindSpore 2.10, the flag given here
        removes the other branch of the `if` (its implementation's `erase_another_branch`)."""
        check_type("flatten_nodes", "node", node, [Node])
        check_type("flatten_nodes", "erase_nodes_after_return", erase_nodes_after_return, [bool])
        self._flatten(self._real(node, "node"), erase_nodes_after_return, False)

    def _flatten(self, node: Node, erase_other: bool, erase_after_return: bool) -> None:
        if node._type != NodeType.ControlFlow:
            raise ValueError(f"For flatten_nodes, the type of node can only be ControlFlow, but got "
                             f"{node._type} ({node.get_name()!r}).")
        block = node._block
        partner = node._orelse if node._orelse is not None else node._body_of
        for inner in node._body:  # re-inserted, so renamed, as MindSpore does (`act` -> `act_1`)
            inner._block, inner._parent = block, node._parent
            inner._name = self._node_namer.get_name(inner._name)
        # an `if` with an else: its nodes go after the else (which then stands alone), as in MindSpore
        index = block.index(node._orelse if node._orelse is not None else node) + 1
        block[index:index] = node._body
        block.remove(node)
        node._body = []
        if partner is not None:
            partner._orelse = partner._body_of = None
        node._orelse = node._body_of = None
        node._tree, node._block, node._parent = None, None, None
        if erase_other and partner is not None and partner._tree is self:
            self.erase(partner)
        if erase_after_return:
            outputs = [i for i, n in enumerate(block) if n._type == NodeType.Output]
            if outputs:
                for late in block[outputs[0] + 1:]:
                    log.get_logger().warning("Node %s which is behind the flatten return node is automatically "
                                             "erased.", late.get_name())
                    self.erase(late)

    def flatten_static_if_control_flow(self) -> None:
        """Inlines each `if` whose test is known before the network runs (`if self.use_bias:`): the branch
        taken stays, the other goes (in this tree and its sub-trees)."""
        local = {str(t) for n in self.all_nodes(subtree_nodes=False) for t in n._targets}
        for node in self.all_nodes(subtree_nodes=False):
            test = getattr(node._stmt, "msx_original_test", None)
            if node._tree is not self or node._type != NodeType.ControlFlow or node._is_else or test is None:
                continue
            known, truth = static_value(test, self._network, self._globals, local)
            if not known:
                continue
            if truth:
                self._flatten(node, True, True)
            elif node._orelse is not None:
                self._flatten(node._orelse, True, True)
            else:
                self.erase(node)
        for node in self._sub_trees():
            node._sub_tree.flatten_static_if_control_flow()

    # ------------------------------------------------------------------ output
    def get_node_tabulate(self, all_nodes: bool = False) -> str:
        text = node_table(type(self._network).__name__, self._nodes)
        if all_nodes:
            stack = [n for n in self._nodes if n._body]
            while stack:
                owner = stack.pop()
                text += node_table(f"{type(self._network).__name__}.{owner.get_name()}", owner._body)
                stack.extend(n for n in owner._body if n._body)
            for node in self.all_nodes(subtree_nodes=False):
                if node._type == NodeType.Tree and node._sub_tree is not None:
                    text += node._sub_tree.get_node_tabulate(True)
        return text

    def dump(self) -> None:
        """Prints the tree in MindSpore's dump layout: inputs, then `%i(target) = Type(operands)` per node."""
        print(dump_text(self._network, self._nodes))

    def print_node_tabulate(self, all_nodes: bool = False) -> None:
        """Prints a table of the nodes: type, name, code, argument providers and target users."""
        check_type("print_node_tabulate", "all_nodes", all_nodes, [bool])
        print(self.get_node_tabulate(all_nodes))

    def _class_name(self) -> str:
        return f"{type(self._network).__name__}Opt"

    def _construct(self) -> ast.FunctionDef:
        """The rewritten construct as a function definition."""
        inputs = [n for n in self._nodes if n._type == NodeType.Input]
        body = [n for n in self._nodes if n._type != NodeType.Input]
        return construct_def(self._func_def, inputs, body, self._owner_name())

    def _source(self, construct: Optional[ast.FunctionDef] = None) -> str:
        return class_source(self._class_name(), type(self._network).__name__, construct or self._construct())

    def _owner_name(self) -> str:
        """The name the generated code calls the class defining `construct` by (for `super()`)."""
        owner = _construct_owner(self._network)
        name = owner.__name__
        if owner is not type(self._network) and (name == type(self._network).__name__
                                                  or self._globals.get(name, owner) is not owner):
            name = f"_{name}_construct_owner"
        return name

    def _sub_trees(self) -> List[Node]:
        return [n for n in self.all_nodes(subtree_nodes=False) if n._type == NodeType.Tree and n._sub_tree]

    def get_code(self) -> str:
        """The source of the rewritten network's class (sub-networks' classes first)."""
        parts = [n._sub_tree.get_code() for n in self._sub_trees()]
        return "\n".join(parts + [self._source()])

    def get_network(self) -> Cell:
        """A new Cell running the rewritten construct, with the original's Parameters and sub-cells."""
        return self._network_from(None, {})

    def _network_from(self, construct: Optional[ast.FunctionDef], extra: dict) -> Cell:
        """The network of `construct` (the tree's own when None), its code seeing `extra` names too
        (sparsify's functions and ops)."""
        source = self._source(construct)
        namespace = dict(self._globals)
        namespace.update(extra)
        namespace.update(self._functions)
        namespace[type(self._network).__name__] = type(self._network)
        namespace[self._owner_name()] = _construct_owner(self._network)
        cls = compile_class(source, self._class_name(), namespace)
        fields = dict(self._fields)
        for node in self._nodes:
            self._rebuilt_fields(node, fields)
        for node in self.all_nodes(subtree_nodes=False):
            if node._type == NodeType.ControlFlow:
                for inner in node._body:
                    self._rebuilt_fields(inner, fields)
        net = cls.__new__(cls)
        net.__init__(self._network, fields)
        return net

    def _rebuilt_fields(self, node: Node, fields: dict) -> None:
        """The rewritten sub-network or container a node of the top block calls, under its field."""
        func = node._func
        if node._type not in (NodeType.Tree, NodeType.CellContainer) or func is None or func.scope != "self":
            return
        fields[func.value] = _rebuilt_cell(node)

    def set_saved_file_name(self, file_name: str) -> None:
        check_type("SymbolTree", "file_name", file_name, [str])
        self._file_name = file_name if file_name.endswith(".py") else file_name + ".py"

    def get_saved_file_name(self) -> str:
        return self._file_name

    def save_network_to_file(self) -> None:
        """Writes `get_code()` to `get_saved_file_name()` (atomically), for reading; the classes subclass the
        original network's class, which the file expects to find by name."""
        write_atomic(self._file_name, [self.get_code().encode()])


def _rebuilt_cell(node: Node) -> Cell:
    if node._type == NodeType.Tree:
        return node._sub_tree.get_network()
    if node._type == NodeType.CellContainer:
        cells = [_rebuilt_cell(n) for n in node._body]
        original = list(node._instance)
        if len(cells) == len(original) and all(a is b for a, b in zip(cells, original)):
            return node._instance  # unchanged: the original container, its cell names kept
        return SequentialCell(cells)
    return node._instance


def _parse_sub_net(node: Node, cell: Cell) -> None:
    """`Node.create_call_cell(..., is_sub_net=True)`: a container node (its cells made at insertion) or a
    Tree node with the sub-network's own SymbolTree."""
    if is_container(cell):
        node._type = NodeType.CellContainer
        node._pending_container = True
        return
    node._type = NodeType.Tree
    node._sub_tree = SymbolTree.create(cell)


_node_module.SUB_NET_PARSER[0] = _parse_sub_net
