"""`msx.passes`: graph -> graph passes (ARCHITECTURE rule 4), the pipeline `jit` runs, and user passes.

- `optimise(graph, jit_level, keep, backend, disabled)`: run the pipeline (see `manager`).
- `list_passes(jit_level, backend)`: (stage, name) of the pipeline's passes, in order.
- `PatternToPatternPass` and `replace_pattern(src_fn, dst_fn)`: pattern rewrites.
- `register_custom_pass(pass_, backend="all", stage="frontend", priority=0)`, `unregister_custom_pass(pass_)`.
- `Pass`: the base class of every pass (`run(graph) -> graph`).
"""
from .base import FunctionPass, Pass  # noqa: F401
from .manager import Optimised, PassRecord, list_passes, optimise, pass_views, pipeline  # noqa: F401
from .pattern import DstPattern, Match, PatternToPatternPass, SrcPattern  # noqa: F401
from .registry import register_custom_pass, unregister_custom_pass  # noqa: F401
from .replace import replace_pattern  # noqa: F401
