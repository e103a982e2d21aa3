"""NodeType: what a statement of `construct` is to rewrite (MindSpore's `mindspore.rewrite.NodeType`, same
members and values, so `node.get_node_type() == NodeType.CallCell` and stored values port unchanged)."""
from enum import Enum


class NodeType(Enum):
    """The kind of a rewrite `Node`.

    - Unknown: not set.
    - CallCell: a call of a Cell attribute (`self.dense(x)`).
    - CallPrimitive: a call of a Primitive attribute (`self.abs(x)` with `self.abs = ops.Abs()`).
    - CallModule: kept for MindSpore's numbering.
    - CallFunction: a call of a function (`ops.relu(x)`, `range(2)`, a method of the network).
    - CallMethod: a tuple/list/dict display or a plain assignment (`t = (a, b)`, `y = x`).
    - Python: a statement rewrite keeps verbatim (`print(x)`).
    - Input: an argument of `construct`.
    - Output: the `return` statement.
    - Tree: a call of a sub-network with its own `construct` (see `Node.get_sub_tree`).
    - CellContainer: a call of an `nn.SequentialCell`.
    - MathOps: an operator expression (`y + x`, `-x`, `a < b`, `a and b`).
    - ControlFlow: an `if`, `for` or `while` statement.
    """

    Unknown = 0
    CallCell = 1
    CallPrimitive = 2
    CallModule = 3
    CallFunction = 4
    CallMethod = 5
    Python = 6
    Input = 7
    Output = 8
    Tree = 9
    CellContainer = 10
    MathOps = 11
    ControlFlow = 12
