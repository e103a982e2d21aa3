"""`capture_mode="ast"` (jit's default): source -> Python AST -> graph, with tensor control flow as graph nodes.

- `source`: finding a function's AST and its scope (closures, globals, decorators, lambdas).
- `interpreter`: the abstract interpreter that walks the AST and records ops through the GraphBuilder (its
  statements and calls; `expressions` its expressions; `scope` the scopes, frames and operator tables).
- `control_flow`: `if`/`while`/`for` on tensors as Cond/While/Scan nodes, `print` as Print nodes.
- `checks`: what jax could not differentiate (a data-dependent `while` under `grad`), found at capture.
- `capture`: the capture-mode entry point `capture_ast`, fallbacks and errors (stage "capture: ast").
"""
from .capture import capture_ast
from .failures import STAGE

__all__ = ["capture_ast", "STAGE"]
