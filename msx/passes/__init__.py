"""`msx.passes`: graph -> graph passes (ARCHITECTURE rule 4), the pipeline `jit` runs, and user passes.

- `optimise(graph, jit_level, keep, backend, disabled)`: run the pipeline (see `manager`).
- `list_passes(jit_level, backend)`: (stage, name) of the pipeline's passes, in order.
- `PatternToPatternPass` and `replace_pattern(src_fn, dst_fn)`: pattern rewrites.
- `register_custom_pass(pass_, backend="all", stage="frontend", priority=0)`, `unregister_custom_pass(pass_)`.
- `Pass`: the base class of every pass (`run(graph) -> graph`).
- `rules`: the rewrite engine (`Pat`, `Rule`, `RuleSet`, `rewrite`).

The rewrite engine (tinygrad's PatternMatcher shape). Every local rewrite is
data: a `Rule` is a pattern (`Pat.op(ops, *operands)`, `Pat.var`,
`Pat.const`; names bind one value, `commutative=True` tries both operand
orders, a tuple of patterns is a multi-output rule) and a function from the
match to the replacement values (None: decline; `match.emit(op, inputs)`
builds nodes). A `RuleSet` indexes its rules by root op, so a node is tried
only against the rules of its op (plus the rules for any op, like constant
folding). `rewrite(graph, rules)` has two drivers over one matcher:
fixpoint — program order, each emitted node rewritten before it is placed,
so one sweep leaves nothing to match (rules look only at producers, which
are final when their user is visited) — for `simplify`,
`constant_fold` and the simulated Ascend's precision rules
(`backends/ascend_sim/precision.py`: Cube operands rounded, Vector results
stored low, a loop's storage its body's; a rule may keep its root and
re-place it with `match.add`); and once — matches found on the graph as given,
non-overlapping, intermediates deleted only when unread — for user
patterns (`PatternToPatternPass` compiles its source pattern into a `Pat`
and its destination into the rule function; `replace_pattern` also checks
attributes and builds the destination at the matched shapes). A rule's
replacement must keep each value's shape and dtype (a `PassError` names the
rule otherwise). Passes stay graph -> graph: the manager runs each on every
subgraph and verifies after it.

This package sits below `backends` (see the layer order in `msx/__init__.py`):
the manager takes the backend object as an argument, and names resolve
through the directory `msx.backends` registers in `registry`.
"""
from .base import FunctionPass, Pass  # noqa: F401
from .manager import Optimised, PassRecord, list_passes, optimise, pass_views, pipeline  # noqa: F401
from .pattern import DstPattern, Match, PatternToPatternPass, SrcPattern  # noqa: F401
from .registry import register_custom_pass, unregister_custom_pass  # noqa: F401
from .replace import replace_pattern  # noqa: F401
from . import rules  # noqa: F401,E402
