"""msx.rewrite: MindSpore's `mindspore.rewrite` — a network's `construct` as editable nodes.

`SymbolTree.create(net)` parses the construct; nodes can be listed, inserted, erased and replaced; and
`get_network()` compiles the rewritten construct into a new Cell sharing the original's Parameters;
`PatternEngine` rewrites matches of a pattern; `sparsify` rewrites a network for sparse inputs.
"""
from .node import Node
from .node_type import NodeType
from .pattern_engine import PatternEngine, PatternNode, Replacement, VarNode
from .scoped_value import ScopedValue, ValueType
from .sparsify import ArgType, SparseFunc, sparsify
from .symbol_tree import SymbolTree

__all__ = ["SymbolTree", "Node", "NodeType", "ScopedValue", "ValueType", "PatternEngine", "PatternNode", "VarNode",
           "Replacement", "ArgType", "SparseFunc", "sparsify"]
