"""One compile pipeline per jitted function (`msx.runtime.compile_pipeline.Pipeline`, issue 29): JitFunction, the
bytecode runner and msx.dynamic all build through it and count in its `Stats`; the layers below take their
upward hooks (jit for GRAPH_MODE Cells, viz's save_graphs=3 writer) as registrations."""
import numpy as np
import pytest

import msx
from msx import nn
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
        assert jf._runner.pipeline is jf.pipeline and jf._runner.stats is jf.stats
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
