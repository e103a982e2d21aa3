"""`msx.ir`: msx's own graph IR (plain data), its printer, verifier and interpreter."""
from .graph import Abstract, Const, Graph, Node, Var  # noqa: F401
from .printer import format_graph  # noqa: F401
from .verifier import verify  # noqa: F401
