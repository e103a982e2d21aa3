"""msx.Profiler: per-node times against the measured run, the trace files, stages, schedules (against MindSpore's
recorded behaviour), and an inactive profiler costing nothing."""
from __future__ import annotations

import gzip
import inspect
import json
import os
import time

import jax
import numpy as np
import pytest
from jax.profiler import ProfileData

import msx as ms
from msx import hostevents, nn, ops
from msx.errors import ProfilerError
from msx.profiler import ProfilerAction, profile, schedule, tensorboard_trace_handler
from msx.profiler.hlo import resolve
from msx.runtime.compiled import INLINE, UNCHECKED
from viz_programs import digits_step

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "profiler_mindspore.json")


@pytest.fixture(scope="module")
def heavy():
    """A train step big enough that XLA's ops, not Python, take the time."""
    jf, net, _, _ = digits_step(hidden=512)
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.random((1024, 64), dtype=np.float32))
    y = ms.Tensor(rng.integers(0, 10, 1024).astype(np.int64))
    for _ in range(2):
        jf(x, y).asnumpy()
    return jf, x, y


@pytest.fixture(scope="module")
def profiled(heavy, tmp_path_factory):
    jf, x, y = heavy
    out = str(tmp_path_factory.mktemp("prof"))
    prof = ms.Profiler(output_path=out)
    start = time.perf_counter()
    for _ in range(6):
        loss = jf(x, y)
    loss.asnumpy()
    wall_us = (time.perf_counter() - start) * 1e6
    return prof.analyse(), wall_us, out


def test_node_times_add_up_to_the_measured_step_time(profiled):
    result, wall_us, _ = profiled
    total = sum(r.total_us for r in result.rows)
    # the rows are the XLA ops' time plus the runtime's gaps between them: each run's device time, plus the time
    # XLA ran two of its ops at once (counted for each; it happens on a loaded machine)
    assert total == pytest.approx(result.summary["graph_span_us"] + result.summary["overlap_us"], rel=1e-6)
    assert result.summary["overlap_us"] < 0.05 * total
    ops_us = sum(r.total_us for r in result.rows if r.path != "(XLA runtime, between ops)")
    # the gaps between ops grow with the machine's load (a loaded CI runner measured them above half the step), so only their sum is bounded
    assert ops_us == pytest.approx(result.summary["compiled_us"], rel=1e-6) and 0 < ops_us <= total
    assert 0 < total <= 1.02 * wall_us, (total, wall_us)   # within the clock around the loop (a loaded machine adds host time, so no lower bound)
    assert result.summary["runs_per_graph"] == {"train_step": 6}
    assert all(r.calls == 6 for r in result.rows)
    assert sum(r.share for r in result.rows) == pytest.approx(1.0)


def test_rows_are_msx_nodes_with_cells_and_source_lines(profiled):
    result, _, _ = profiled
    import viz_programs

    by_cell = {r.scope: r for r in result.rows if r.op == "Dense"}
    assert set(by_cell) == {"MLP/fc1", "MLP/fc2"}
    line = next(i for i, text in enumerate(open(viz_programs.__file__), 1) if "return self.fc2(ops.relu" in text)
    for r in by_cell.values():
        assert r.where == f"{viz_programs.__file__}:{line}"
        assert r.path.startswith("Grad#0/body/Dense#")
        assert r.forward_us > 0 and r.backward_us > 0      # the gradient's matmuls are charged to the Dense
        assert r.node is not None and r.node.op == "Dense"
    ops_us = sum(r.total_us for r in result.rows if r.path != "(XLA runtime, between ops)")
    assert by_cell["MLP/fc1"].total_us + by_cell["MLP/fc2"].total_us > 0.5 * ops_us   # the matmuls dominate
    assert any(r.op == "OptimizerUpdate" and r.scope == "Adam" for r in result.rows)
    assert result.rows == sorted(result.rows, key=lambda r: -r.total_us)
    assert "MLP/fc1" in str(result) and "share" in result.table()
    records = result.as_dicts()
    assert records[0]["mean_us"] == pytest.approx(records[0]["total_us"] / 6)


def test_trace_files_open_and_name_msx_nodes(profiled):
    result, _, out = profiled
    with gzip.open(result.files["trace"]) as f:
        trace = json.load(f)
    named = [e for e in trace["traceEvents"] if e.get("ph") == "X" and "msx_nodes" in e["args"]]
    assert named and any("Dense" in e["name"] for e in named)
    assert any(n.startswith("train_step:Grad#0/body/Dense#") for e in named for n in e["args"]["msx_nodes"])
    assert any("MLP/fc1" in e["args"]["cells"] for e in named)
    # jax's own trace (what TensorBoard/XProf read) opens with jax's reader and holds the msx module
    xplanes = [os.path.join(d, f) for d, _, fs in os.walk(result.files["jax_trace"]) for f in fs if f.endswith("xplane.pb")]
    modules = {dict(e.stats).get("hlo_module") for p in ProfileData.from_file(xplanes[0]).planes for line in p.lines
               for e in line.events}
    assert "jit_train_step" in modules
    assert any(f.startswith("perfetto_trace") for _, _, fs in os.walk(result.files["jax_trace"]) for f in fs)
    with open(result.files["summary"]) as f:
        summary = json.load(f)
    assert summary["summary"]["graph_runs"] == 6 and summary["nodes"]
    assert open(result.files["table"]).readline().startswith("graph,path,op,scope,where,calls,total_us")


def test_stages_eager_ops_and_overlay(tmp_path):
    jf, net, x, y = digits_step(jit_level="O1")
    with ms.Profiler(output_path=str(tmp_path)) as prof:
        jf(x, y).asnumpy()                      # capture (an eager run), passes, XLA compile ...
        jf(x, y).asnumpy()                      # ... and a compiled run, all while recording
        z = ops.relu(x) * 2                     # eager ops
        z.asnumpy()
    result = prof.analyse()
    assert {"passes", "XLA compile", "graph run (host)", "eager ops (host)"} <= set(result.stages)
    assert result.stages["XLA compile"] > 0
    assert result.eager_ops["ReLU"][0] == 1 and result.eager_ops["Mul"][0] == 1
    assert result.summary["eager_xla_us"] > 0
    graph = result.graph()
    assert graph.name == "train_step"
    overlay = result.overlay()
    assert overlay.values and all(any(n is m for m in _walk(graph)) for n in overlay.values)
    assert sum(overlay.values.values()) == pytest.approx(sum(r.total_us for r in result.rows if r.node is not None))


def _walk(graph):
    for n in graph.nodes:
        yield n
        for sub in n.subgraphs.values():
            yield from _walk(sub)


def test_profiling_off_records_nothing_and_creates_no_annotation(monkeypatch, heavy):
    jf, x, y = heavy
    assert hostevents.ACTIVE is False

    def boom(*a, **k):
        raise AssertionError("a trace annotation was made with no profiler running")

    monkeypatch.setattr(jax.profiler, "TraceAnnotation", boom)
    jf(x, y).asnumpy()
    (ops.relu(x) + 1).asnumpy()
    ms.jit(lambda a: a * 3)(x).asnumpy()     # capture, passes and compile too
    assert hostevents.EVENTS == []


def test_an_inactive_profiler_leaves_the_step_on_the_hot_path(heavy):
    """An inactive profiler records nothing and the jitted step stays on the runtime's hot path (what it
    costs is measured by bench/bench_profiler.py, not by a timed test)."""
    jf, x, y = heavy
    jf(x, y)
    prof = ms.Profiler(start_profile=False)
    assert not hostevents.ACTIVE
    out = jf.entries.hot((x, y), jf.cell)
    assert out is not UNCHECKED and out is not INLINE  # the call ran on the entry of the last hit
    assert not prof._tracing and hostevents.EVENTS == []


def test_schedule_matches_mindspore():
    with open(GOLDEN) as f:
        golden = json.load(f)
    for case in golden["schedules"]:
        s = schedule(**case["config"])
        assert [s(i).name for i in range(len(case["actions"]))] == case["actions"], case["config"]
    with pytest.raises(ValueError, match="active"):
        schedule(wait=0, active=0)


def test_profile_signature_matches_mindspore():
    with open(GOLDEN) as f:
        golden = json.load(f)["profile_params"]
    ours = {k: repr(v.default) for k, v in inspect.signature(profile.__init__).parameters.items()
            if k in golden}
    assert ours == golden


def test_schedule_with_tensorboard_handler_saves_each_cycle(tmp_path):
    jf, net, x, y = digits_step()
    jf(x, y).asnumpy()
    prof = profile(schedule=schedule(wait=1, active=2, repeat=2), on_trace_ready=tensorboard_trace_handler(
        str(tmp_path / "tb"), worker_name="w0"), output_path=str(tmp_path / "raw"))
    for _ in range(7):
        jf(x, y).asnumpy()
        prof.step()
    prof.stop()
    cycles = sorted(os.listdir(tmp_path / "tb"))
    assert len(cycles) == 2 and all(c.startswith("w0_") for c in cycles)
    for c in cycles:
        with open(tmp_path / "tb" / c / "msx_profile.json") as f:
            assert json.load(f)["summary"]["runs_per_graph"] == {"train_step": 2}
        # jax's own trace is in the handler's folder too (TensorBoard's profile plugin layout), with the
        # steps marked as MindSpore names them
        (xplane,) = [os.path.join(d, f) for d, _, fs in os.walk(tmp_path / "tb" / c) for f in fs
                     if f.endswith(".xplane.pb")]
        assert os.path.relpath(xplane, tmp_path / "tb" / c).startswith(os.path.join("plugins", "profile"))
        blob = open(xplane, "rb").read()
        assert b"ProfilerStep" in blob and b"step_num" in blob
    assert not os.path.exists(tmp_path / "raw" / "jax_trace")
    assert not hostevents.ACTIVE


def test_analyse_waits_for_queued_device_work(heavy, tmp_path):
    """The documented loop reads no result before `analyse()`: the steps jax still has queued are in the table."""
    jf, x, y = heavy
    prof = ms.Profiler(output_path=str(tmp_path))
    for _ in range(5):
        jf(x, y)
    result = prof.analyse()
    assert result.summary["runs_per_graph"] == {jf.__name__: 5}


def test_analyse_waits_for_steps_whose_results_were_dropped(heavy, tmp_path):
    """A forward-only loop holds no live result (no Parameter is written): the runs jax still has queued are
    waited for, not lost (this loop gave an empty table before)."""
    _, net, _, _ = digits_step(hidden=512)
    forward = ms.jit(lambda x: net(x))
    x = heavy[1]
    forward(x).asnumpy()
    prof = ms.Profiler(output_path=str(tmp_path))
    for _ in range(4):
        forward(x)
    result = prof.analyse()
    assert result.summary["graph_runs"] == 4 and not hostevents.PENDING


def test_xprof_reads_the_trace_in_msx_names(profiled):
    """XProf's own reader (what TensorBoard's profile plugin serves) shows msx nodes and Cells, not XLA's
    fusion names: the trace viewer's XLA op events and the framework-op statistics."""
    tool_data = pytest.importorskip("xprof.convert.raw_to_tool_data").xspace_to_tool_data
    result, _, _ = profiled
    xplanes = [os.path.join(d, f) for d, _, fs in os.walk(result.files["jax_trace"]) for f in fs
               if f.endswith(".xplane.pb")]
    trace = json.loads(tool_data(xplanes, "trace_viewer", {})[0])
    ops = [e for e in trace["traceEvents"] if e.get("args", {}).get("hlo_module") == "jit_train_step"]
    assert ops
    names = {e["name"] for e in ops}
    assert any(n.startswith("Dense") and "MLP/fc1" in n for n in names), names
    assert any("(bwd)" in n for n in names)
    named = [e for e in ops if e["name"] != e["args"]["hlo_op"]]   # the rest are XLA's own (copies, layouts)
    assert len(named) > len(ops) / 2 and all(e["name"].endswith(f"({e['args']['hlo_op']})") for e in named)
    stats = json.loads(tool_data(xplanes, "framework_op_stats", {})[0])[0]
    cols = [c["id"] for c in stats["cols"]]
    rows = [dict(zip(cols, [c.get("v") for c in row["c"]])) for row in stats["rows"]]
    dense = {r["operation"] for r in rows if r["type"] == "Dense"}
    assert any(o.startswith("MLP/fc1/Grad_0/body/Dense_") for o in dense), rows
    assert any(o.startswith("MLP/fc2/") and o.endswith("/backward") for o in dense), rows
    assert any(r["type"] == "OptimizerUpdate" for r in rows)
    assert sum(r["occurrences"] for r in rows if r["operation"].startswith("MLP/")) <= len(ops)


def test_profiler_errors(tmp_path):
    with pytest.raises(TypeError, match="unknown argument"):
        ms.Profiler(output_path=str(tmp_path), colour="red")
    first = ms.Profiler(output_path=str(tmp_path))
    try:
        with pytest.raises(ProfilerError, match="another msx profiler"):
            ms.Profiler(output_path=str(tmp_path))
        with pytest.raises(ProfilerError, match="schedule"):
            first.step()
    finally:
        first.stop()
    quiet = ms.Profiler(output_path=str(tmp_path), start_profile=False, aic_metrics="PipeUtilization",
                        profile_memory=True)
    assert "aic_metrics" in quiet.metadata["ascend_only_options"]
    quiet.start()
    quiet.stop()
    result = quiet.analyse()
    assert "peak_device_memory_bytes" in result.summary
    assert ProfilerAction.RECORD_AND_SAVE.value == 3


def test_overlapping_ops_are_counted_once_in_the_runtime_gap():
    from msx.profiler.analysis import _union

    assert _union([(0, 10), (5, 12), (20, 25), (21, 22)]) == 17
    assert _union([]) == 0 and _union([(3, 3)]) == 0


def test_resolve_hlo_op_names():
    net = nn.Dense(2, 2)
    graph = ms.jit(net).capture(ms.Tensor(np.ones((1, 2), np.float32)))
    site = resolve(graph, "jit(x)/Dense#0/dot_general")
    assert site.node is graph.nodes[0] and not site.backward and site.path == "Dense#0"
    assert resolve(graph, "jit(x)/transpose(jvp(Dense#0))/dot_general").backward
    assert resolve(graph, "jit(x)/ReLU#0/max").node is None     # a wrong op at that index is not guessed
    assert resolve(graph, "jit(x)/copy").node is None
