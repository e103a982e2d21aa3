"""Pattern rewriting over a SymbolTree (MindSpore's PatternEngine, PatternNode, VarNode, Replacement): a
pattern is a small tree of expected Cell types read from a node back through its inputs; each match, when
no matched node but the root is used outside the match, is handed to a Replacement that builds the new nodes.

    class ToTanh(Replacement):
        def build(self, pattern, is_chain_pattern, matched):
            dense, relu = matched["0-..."], matched[pattern.name()]
            return [Node.create_call_cell(nn.Tanh(), relu.get_targets(), dense.get_args())]

    PatternEngine([nn.Dense, nn.ReLU], ToTanh()).apply(stree)
"""
from __future__ import annotations

import abc
from collections import OrderedDict
from typing import List, Tuple, Type, Union

from .. import log
from ..nn.cell import Cell
from ..ops.api import PrimitiveOp
from .checks import check_elements, check_type
from .node import Node
from .node_type import NodeType
from .symbol_tree import SymbolTree


class PatternNode:
    """One node of a pattern: a name (the key of its match), the type it matches and its input patterns."""

    def __init__(self, pattern_node_name: str, match_type: Type = Type[None], inputs: List["PatternNode"] = None) \
            -> None:
        check_type("PatternNode", "pattern_node_name", pattern_node_name, [str])
        if inputs is not None:
            check_elements("PatternNode", "inputs", inputs, [PatternNode])
        self._name = pattern_node_name
        self._type = match_type
        self._inputs = [] if inputs is None else inputs

    @staticmethod
    def from_node(node: Node) -> "PatternNode":
        """A pattern node named after `node`'s first target, matching its Cell type (a CallCell node)."""
        check_type("PatternNode", "node", node, [Node])
        pattern = PatternNode(str(node.get_targets()[0]))
        if node.get_node_type() is NodeType.CallCell:
            pattern._type = node.get_instance_type()
        return pattern

    @staticmethod
    def create_pattern_from_node(node: Node) -> "PatternNode":
        """The pattern of `node` and, recursively, of its inputs."""
        check_type("PatternNode", "node", node, [Node])
        pattern = PatternNode.from_node(node)
        pattern._inputs = [PatternNode.create_pattern_from_node(n) for n in node.get_inputs()]
        return pattern

    @staticmethod
    def create_pattern_from_list(type_list: list) -> "PatternNode":
        """A chain: each type's node reads the previous one's; returns the last (named `'<i>-<type>'`)."""
        check_type("PatternNode", "type_list", type_list, [list])
        last = None
        for i, cell_type in enumerate(type_list):
            last = PatternNode(f"{i}-{cell_type}", cell_type, [last] if last is not None else [])
        return last

    def add_input(self, node: "PatternNode") -> None:
        check_type("PatternNode", "node", node, [PatternNode])
        self._inputs.append(node)

    def set_inputs(self, inputs: List["PatternNode"]) -> None:
        check_elements("PatternNode", "inputs", inputs, [PatternNode])
        self._inputs = inputs

    def match(self, node: Node) -> bool:
        """True when `node` calls an instance of exactly this pattern node's type."""
        check_type("PatternNode", "node", node, [Node])
        return self._type == node.get_instance_type()

    def get_inputs(self) -> List["PatternNode"]:
        return self._inputs

    def name(self) -> str:
        return self._name

    def type(self):
        return self._type


class VarNode(PatternNode):
    """A pattern input that matches any node (and is not part of the match)."""

    def __init__(self) -> None:
        super().__init__("placeholder", Cell, [])

    def match(self, node: Node) -> bool:
        return node is not None


class Replacement(abc.ABC):
    """Builds the nodes that replace a match: `build(pattern, is_chain_pattern, matched)` -> [Node], where
    `matched` maps pattern node names to the matched nodes (the root's name last)."""

    @abc.abstractmethod
    def build(self, pattern: PatternNode, is_chain_pattern: bool, matched: OrderedDict) -> List[Node]:
        raise NotImplementedError

    def __call__(self, pattern: PatternNode, is_chain_pattern: bool, matched: OrderedDict) -> List[Node]:
        return self.build(pattern, is_chain_pattern, matched)


class PatternEngine:
    """Finds `pattern` (a PatternNode, or a list of Cell/Primitive types read as a chain) in a SymbolTree and
    replaces each match with what `replacement` builds."""

    def __init__(self, pattern: Union[PatternNode, List], replacement: Replacement = None) -> None:
        check_type("PatternEngine", "replacement", replacement, [Replacement])
        if isinstance(pattern, list):
            for item in pattern:
                if not (isinstance(item, type) and issubclass(item, (Cell, PrimitiveOp))):
                    raise TypeError(f"The type of 'pattern' should be one of [Cell, Primitive]but got '{item}' "
                                    f"with type '{type(item).__name__}'.")
            self._is_chain = True
            self._pattern = PatternNode.create_pattern_from_list(pattern)
        else:
            check_type("PatternEngine", "pattern", pattern, [PatternNode])
            self._is_chain = False
            self._pattern = pattern
        self._replacement = replacement

    def pattern(self) -> PatternNode:
        return self._pattern

    def apply(self, stree: SymbolTree) -> bool:
        """Rewrites every match in `stree` (and its sub-trees and containers); True if anything changed."""
        check_type("PatternEngine", "stree", stree, [SymbolTree])
        changed = False
        queue: List[Node] = stree.get_inputs()
        visited: List[Node] = []
        while queue:
            node = queue.pop(0)
            if node is None or any(node is v for v in visited):
                continue
            if node.get_node_type() == NodeType.Tree:
                changed |= self.apply(node.get_sub_tree())
                visited.append(node)
                queue.extend(node.get_users())
                continue
            if node.get_node_type() == NodeType.CellContainer:
                self._apply_in_container(stree, node)  # as in MindSpore, not counted in apply's answer
                visited.append(node)
                queue.extend(node.get_users())
                continue
            visited.append(node)
            matched, found = self._match(self._pattern, node)
            if not matched or not self._closed(found):
                queue.extend(node.get_users())
                continue
            new_nodes = self._replacement(self._pattern, self._is_chain, found)
            if not new_nodes:
                queue.extend(node.get_users())
                continue
            changed = True
            root = stree.replace(node, new_nodes)
            for old in reversed(list(found.values())):
                if old is not node:
                    stree.erase(old)
            queue.append(root)
        return changed

    def _apply_in_container(self, stree: SymbolTree, container: Node) -> None:
        for node in list(container._body):
            if node._tree is None:
                continue  # erased by an earlier replacement
            if node.get_node_type() == NodeType.Tree:
                self.apply(node.get_sub_tree())
                continue
            matched, found = self._match(self._pattern, node)
            if not matched:
                continue
            new_nodes = self._replacement(self._pattern, self._is_chain, found)
            if not new_nodes:
                continue
            stree.replace(node, new_nodes)
            for old in reversed(list(found.values())):
                if old is not node and old._tree is not None:
                    stree.erase(old)

    def _match(self, pattern: PatternNode, node: Node) -> Tuple[bool, OrderedDict]:
        if node.get_node_type() not in (NodeType.CallCell, NodeType.CallPrimitive, NodeType.Input):
            return False, OrderedDict()
        if not pattern.match(node):
            return False, OrderedDict()
        if isinstance(pattern, VarNode):
            return True, OrderedDict()
        wanted, inputs = pattern.get_inputs(), node.get_inputs()
        if not wanted:
            return True, OrderedDict({pattern.name(): node})
        if len(wanted) != len(inputs):
            return False, OrderedDict()
        found = OrderedDict()
        for sub_pattern, sub_node in zip(wanted, inputs):
            ok, sub_found = self._match(sub_pattern, sub_node)
            if not ok:
                return False, OrderedDict()
            found.update(sub_found)
        found[pattern.name()] = node
        return True, found

    def _closed(self, found: OrderedDict) -> bool:
        """No matched node but the root feeds a node outside the match (else erasing it would break them)."""
        matched = list(found.values())
        for key, node in found.items():
            if key == self._pattern.name():
                continue
            for user in node.get_users():
                if not any(user is m for m in matched):
                    log.get_logger().debug("rewrite: pattern match of %s leaks to %s", node.get_name(),
                                           user.get_name())
                    return False
        return True
