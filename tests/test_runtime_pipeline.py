"""One compile pipeline per jitted function (`msx.runtime.compile_pipeline.Pipeline`, issue 29): JitFunction, the
bytecode runner and msx.dynamic all build through it and count in its `Stats`; the layers below take their
upward hooks (jit for GRAPH_MODE Cells, viz's save_graphs=3 writer) as registrations."""
import ast
from pathlib import Path

import numpy as np
import pytest

import msx
from msx import nn, ops
from msx.nn import cell_config
from msx.runtime import compile_pipeline

X = np.ones((2, 3), np.float32)


def double(x):
    return x * 2


@pytest.mark.parametrize("mode", ["ast", "trace", "bytecode"])
def test_every_mode_compiles_through_the_functions_pipeline(mode):
    jf = msx.jit(double, capture_mode=mode)
    assert isinstance(jf.pipeline, compile_pipeline.Pipeline) and jf.stats is jf.pipeline.stats
    if mode == "bytecode":
        assert jf.entries.pipeline is jf.pipeline and not hasattr(jf.entries, "stats")  # counts through it only
    for _ in range(3):
        np.testing.assert_allclose(jf(msx.Tensor(X)).asnumpy(), X * 2)
    info = jf.cache_info()
    stats = jf.pipeline.stats
    assert (info["captures"], info["compiles"], info["hits"]) == (stats.captures, stats.compiles, stats.hits) \
        == (1, 1, 2)
    assert info["pass_runs"] == stats.pass_runs == 1 and [w for w, _ in stats.log] == ["capture", "xla_compile"]


def test_dynamic_shapes_count_in_the_same_pipeline():
    jf = msx.jit(double, dynamic=1)
    for n in (2, 3, 4):
        jf(msx.Tensor(np.ones((n, 3), np.float32)))
    stats = jf.pipeline.stats
    assert stats.captures == 2 and stats.compiles == 2  # static first, then one symbolic family
    assert stats.xla_compiles == 3 and len(stats.recompile_reasons) == 1


MSX = Path(msx.__file__).parent
# the homes of the counters: the pipeline, JitFunction (hits, its own captures) and the bytecode runner (hits)
COUNTER_HOMES = {MSX / "jit.py", MSX / "capture" / "bytecode" / "runtime.py"}


def _counter_writes(path: Path) -> list[str]:
    """`x.stats.<counter> += ...` / `= ...` and `x.log.append(...)` in a module (line: source)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AugAssign) else []
        if any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Attribute) and t.value.attr == "stats"
               for t in targets) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                                     and node.func.attr == "append" and isinstance(node.func.value, ast.Attribute)
                                     and node.func.value.attr == "log"):
            found.append(f"{path.relative_to(MSX.parent)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_dynamic_never_touches_the_jit_function():
    """msx.dynamic is handed the function's Pipeline and cache: no JitFunction, its privates or its counters."""
    tree = ast.parse((MSX / "dynamic.py").read_text(encoding="utf-8"))
    reached = [f"{node.lineno}: {ast.unparse(node)}" for node in ast.walk(tree)
               if (isinstance(node, ast.Name) and node.id == "jf")
               or (isinstance(node, ast.Attribute) and node.attr in
                   {"jf", "stats", "log", "add_entry", "_last", "_dynamic", "_runner", "_capture"})]
    assert reached == []
    assert [n for n in ast.walk(tree) if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Attribute)] == []


def test_counters_are_written_only_in_their_homes():
    files = [p for p in MSX.rglob("*.py") if p not in COUNTER_HOMES and "runtime" not in p.relative_to(MSX).parts[:1]]
    assert [w for p in files for w in _counter_writes(p)] == []


def _ones(*shape):
    return msx.Tensor(np.ones(shape, np.float32))


def _symbolic_log(graph_shapes):
    return [("xla_compile", f"new concrete shape [{list(s)}] for symbolic graph double") for s in graph_shapes]


# what main (ab1dd41, before msx.dynamic went through the Pipeline) reported for the same calls
@pytest.mark.parametrize("mode", ["ast", "trace"])
def test_dynamic1_counters_log_and_explain_are_unchanged(mode):
    jf = msx.jit(double, dynamic=1, capture_mode=mode)
    for n in (3, 5, 7, 5):
        jf(_ones(n, 3))
    report = str(jf.explain(_ones(9, 3)))
    reason = "arg 0: shape (3, 3) -> (5, 3); capturing with symbolic dims: x dim 0 -> s0"
    assert jf.cache_info() == {
        "captures": 2, "compiles": 2, "hits": 1, "entries": 4, "recompile_reasons": [reason], "pass_runs": 2,
        "xla_compiles": 4, "shape_families": 1,
        "log": [("capture", "first call"), ("xla_compile", "static shapes [[3, 3]]"),
                ("capture", "symbolic dims: x dim 0 -> s0")] + _symbolic_log([(5, 3), (7, 3), (9, 3)])}
    assert report == (
        f"msx.jit explain: double (capture_mode='{mode}')\n  1 graph(s), 0 graph break(s)\n\n"
        "  graph 1 (the start of double): 1 op(s): Mul; inputs: x f32[s0,3]\n\n"
        "  guards (checked on every call before the graph runs):\n    entry at the start of double (1 guard(s))\n"
        "      the call's Tensor arguments are Float32[9, 3]   [the signature]\n\n"
        f"  recompilations of double so far: 1\n    {reason}")


def test_declared_dynamic_rank_counters_are_unchanged():
    jf = msx.enable_dynamic(x=msx.Tensor(shape=None, dtype=msx.float32))(msx.jit(double))
    for shape in [(3,), (4,), (2, 3)]:
        jf(_ones(*shape))
    rank = " (dynamic rank: one capture per rank)"
    assert jf.cache_info() == {
        "captures": 2, "compiles": 2, "hits": 0, "entries": 3, "recompile_reasons": [], "pass_runs": 2,
        "xla_compiles": 3, "shape_families": 2,
        "log": [("capture", "symbolic dims: x dim 0 -> s0" + rank)] + _symbolic_log([(3,), (4,)])
        + [("capture", "symbolic dims: x dim 0 -> s0, x dim 1 -> s1" + rank)] + _symbolic_log([(2, 3)])}


def _grows(x):
    return x + ops.ones((x.shape[0], 3), msx.float32)


@pytest.mark.parametrize("fn, backend, static", [
    (_grows, None, ("static", "dynamic=1: symbolic capture failed, compiling per shape from now on: OpTypeError: "
                              "ones: shape must be ints, got a _DimExpr (s0)")),
    (double, "ascend", ("static", "dynamic=1: backend 'ascend' cannot build graphs with symbolic dims (x dim 0 -> "
                                  "s0); use an XLA backend, or static shapes; compiling per shape from now on"))])
def test_dynamic1_static_fallbacks_are_unchanged(fn, backend, static):
    jf = msx.jit(fn, dynamic=1, backend=backend)
    for n in (2, 3):
        jf(_ones(n, 3))
    change = "arg 0: shape (2, 3) -> (3, 3)"
    tried = [("capture", "symbolic dims: x dim 0 -> s0")] if backend is None else []
    info = jf.cache_info()
    assert info["log"] == [("capture", "first call"), ("xla_compile", "static shapes [[2, 3]]")] + tried + [
        static, ("capture", change), ("xla_compile", "static shapes [[3, 3]]")]
    assert info["recompile_reasons"] == ([f"{change}; capturing with symbolic dims: x dim 0 -> s0"] if tried else []) \
        + [change]
    assert (info["captures"], info["compiles"], info["xla_compiles"], info["shape_families"]) == \
        (2 + len(tried), 2, 2, 0)


def test_upward_hooks_are_registered_by_the_layers_above():
    assert cell_config._JIT == [msx.jit]  # GRAPH_MODE Cells and Cell.compile compile through jit
    assert compile_pipeline._GRAPH_VIEW == [msx.viz.save_stage]
    net = nn.Dense(3, 2)
    msx.set_context(mode=msx.GRAPH_MODE)
    try:
        out = net(msx.Tensor(X))
    finally:
        msx.set_context(mode=msx.PYNATIVE_MODE)
    np.testing.assert_allclose(out.asnumpy(), X @ net.weight.asnumpy().T + net.bias.asnumpy(), rtol=1e-5)
    assert net._jit_cache is not None and net._jit_cache.compiles == 1


def test_backend_options_are_checked_with_jits_own_names():
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['no_such_option'\].*disable_passes"):
        msx.jit(double, no_such_option=1)
