"""`msx.ir`: msx's own graph IR (plain data), its printer, verifier and interpreter."""
from .graph import Abstract, Const, Graph, Node, Var  # noqa: F401
from . import control  # noqa: F401  (declares the higher-order ops: Grad, Cond, While, Scan, Call, Fused)
from .printer import format_graph  # noqa: F401
from .verifier import verify  # noqa: F401
