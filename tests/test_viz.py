"""msx.viz: the Model Explorer graph JSON against the IR it came from, Model Explorer's own loaders, overlays
against the simulated Ascend's report, and the local server (`show`, `python -m msx view`)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.parse
import urllib.request

import dacite
import numpy as np
import pytest
from model_explorer import graph_builder as gb
from model_explorer import node_data_builder as ndb

import msx as ms
import msx.viz as viz
from msx.backends.ascend_sim import AscendSim
from msx.backends.base import BuildConfig
from msx.errors import MalformedFileError, VizError
from msx.ir.graph import Const, Var
from msx.ir.serialize import graph_from_data, graph_to_data
from msx.ops.primitive import REGISTRY
from viz_programs import Branchy, branchy_input, digits_step

SPECIAL = ("input", "param:", "output", "update:")


@pytest.fixture(scope="module")
def digits():
    jf, net, x, y = digits_step(jit_level="O1")
    return jf, net, x, y, jf.capture(x, y), jf.lower(x, y)


@pytest.fixture(scope="module")
def branchy():
    net, x = Branchy(), branchy_input()
    return net, x, ms.jit(net).capture(x)


@pytest.fixture(scope="module")
def fused(branchy):
    net, x, _ = branchy
    return ms.jit(net, jit_level="O1").lower(x)


def _load_collection(path: str):
    with open(path) as f:
        return dacite.from_dict(gb.GraphCollection, json.load(f), config=dacite.Config(strict=True))


def _ir_graphs(graph, gid):
    """(Model Explorer graph id, IR graph) for `graph` and every subgraph that is not a Fused body."""
    yield gid, graph
    for i, node in enumerate(graph.nodes):
        if node.op == "Fused":
            continue
        for key, sub in node.subgraphs.items():
            yield from _ir_graphs(sub, f"{gid}/{node.op}{i}.{key}")


def _check_structure(graph, converted):
    """Every IR node once with its op as label; edges exactly the IR's uses (with output/input positions)."""
    me_graphs = {g.id: g for g in converted.graphs}
    expected_ids = dict(_ir_graphs(graph, graph.name))
    assert set(me_graphs) == set(expected_ids)
    for gid, g in expected_ids.items():
        me = me_graphs[gid]
        by_id = {n.id: n for n in me.nodes}
        assert len(by_id) == len(me.nodes), "node ids are unique"
        defined = {v.id: (f"input{i}", "0") for i, v in enumerate(g.inputs)}
        defined.update({v.id: (f"param:{v.name}", "0") for v in g.params})
        ir_nodes = []

        def visit(nodes, outer):
            for node in nodes:
                gid_, nid = converted.node_ids[id(node)]
                assert gid_ == gid
                ir_nodes.append(nid)
                me_node = by_id[nid]
                assert me_node.label == node.op
                if node.op == "Fused":
                    body = node.subgraphs["body"]
                    inner = dict(outer)
                    inner.update({b.id: defined[x.id] for b, x in zip(body.inputs, node.inputs) if isinstance(x, Var)})
                    visit(body.nodes, inner)
                    for v, o in zip(node.outputs, body.outputs):
                        defined[v.id] = defined[o.id]
                    continue
                want = sorted((*(outer.get(x.id) or defined[x.id]), str(j)) for j, x in enumerate(node.inputs)
                              if isinstance(x, Var))
                got = sorted((e.sourceNodeId, e.sourceNodeOutputId, e.targetNodeInputId) for e in me_node.incomingEdges)
                assert got == want, f"edges of {node.op} ({nid})"
                shapes = [kv.value for m in me_node.outputsMetadata for kv in m.attrs if kv.key == "tensor_shape"]
                assert shapes == [f"{v.abstract.dtype}[{','.join(map(str, v.abstract.shape))}]" for v in node.outputs]
                for k, v in enumerate(node.outputs):
                    defined[v.id] = (nid, str(k))

        visit(g.nodes, {})
        others = [n.id for n in me.nodes if not n.id.startswith(SPECIAL)]
        assert sorted(others) == sorted(ir_nodes), "every IR node appears exactly once"
        assert len(ir_nodes) == len(set(ir_nodes))
        assert sum(n.id.startswith("param:") for n in me.nodes) == len(g.params)
        assert sorted(n.id for n in me.nodes if n.id.startswith("update:")) == sorted(f"update:{p}" for p, _ in g.updates)


def test_train_step_structure_captured_and_optimized(digits):
    jf, net, x, y, captured, lowered = digits
    for graph in (captured, lowered.graph):
        _check_structure(graph, viz.to_model_explorer(graph))


def test_namespaces_are_cell_paths(branchy):
    _, _, graph = branchy
    converted = viz.to_model_explorer(graph)
    main = converted.graph(graph.name)
    namespaces = {n.label: set() for n in main.nodes}
    for n in main.nodes:
        namespaces[n.label].add(n.namespace)
    assert namespaces["Dense"] == {"Branchy/backbone/layer1/conv1", "Branchy/backbone/layer2/conv1", "Branchy/head"}
    assert namespaces["ReLU"] == {"Branchy/backbone/layer1", "Branchy/backbone/layer2"}
    assert namespaces["Cond"] == {"Branchy"}
    # a Parameter sits in the layer of the node that reads it
    assert {n.label: n.namespace for n in main.nodes if n.id.startswith("param:")}["backbone.layer2.conv1.weight"] \
        == "Branchy/backbone/layer2/conv1"
    assert main.groupNodeAttributes["Branchy/head"]["parameters"] == "head.weight, head.bias"
    _check_structure(graph, converted)


def test_trace_capture_records_the_same_cell_paths():
    net, x = Branchy(), branchy_input()
    traced = ms.jit(net, capture_mode="trace").capture(x)
    scopes = sorted({n.scope for n in traced.nodes if n.op == "Dense"})
    assert scopes == ["Branchy/backbone/layer1/conv1", "Branchy/backbone/layer2/conv1", "Branchy/head"]


def test_cond_branches_are_subgraphs(branchy):
    _, _, graph = branchy
    converted = viz.to_model_explorer(graph)
    ids = {g.id for g in converted.graphs}
    cond = next(n for n in converted.graph(graph.name).nodes if n.label == "Cond")
    assert len(cond.subgraphIds) == 2 and set(cond.subgraphIds) <= ids
    branch_ops = {n.label for sid in cond.subgraphIds for n in converted.graph(sid).nodes}
    assert {"Mul", "Add", "Sub"} <= branch_ops


def test_grad_body_and_optimizer_marks(digits):
    _, _, _, _, captured, _ = digits
    converted = viz.to_model_explorer(captured)
    main = converted.graph(captured.name)
    grad = next(n for n in main.nodes if n.label == "Grad")
    (body_id,) = grad.subgraphIds
    body = converted.graph(body_id)
    assert {n.namespace for n in body.nodes if n.label == "Dense"} == {"MLP/fc1", "MLP/fc2"}
    assert {n.namespace for n in main.nodes if n.label == "OptimizerUpdate"} == {"Adam"}
    updates = [n for n in main.nodes if n.id.startswith("update:")]
    assert {kv.value for n in updates for kv in n.attrs if kv.key == "parameter"} == {p for p, _ in captured.updates}
    assert all(n.style is not None and n.style.borderColor for n in updates)
    params = [n for n in main.nodes if n.id.startswith("param:")]
    assert all(n.style is not None and n.style.backgroundColor for n in params)


def test_attributes_and_source_lines(branchy):
    _, _, graph = branchy
    main = viz.to_model_explorer(graph).graph(graph.name)
    add = next(n for sid in next(n for n in main.nodes if n.label == "Cond").subgraphIds
               for n in viz.to_model_explorer(graph).graph(sid).nodes if n.label == "Add")
    attrs = {kv.key: kv.value for kv in add.attrs}
    import viz_programs

    lines = open(viz_programs.__file__).read().splitlines()
    file, line = attrs["source"].rsplit(":", 1)
    assert os.path.samefile(file, viz_programs.__file__)
    assert "h * 2.0 + 1.0" in lines[int(line) - 1]
    assert attrs["input 1"] == "1.0" and attrs["function"] == "construct"
    reduce = next(n for n in main.nodes if n.label == "ReduceSum")
    assert {kv.key: kv.value for kv in reduce.attrs}["keepdims"] == "False"


def test_fused_group_is_a_layer(fused):
    graph = fused.graph
    converted = viz.to_model_explorer(graph)
    _check_structure(graph, converted)
    cond = next(n for n in graph.nodes if n.op == "Cond")
    index = graph.nodes.index(cond)
    key = next(k for k, sub in cond.subgraphs.items() if any(n.op == "Fused" for n in sub.nodes))
    body = converted.graph(f"{graph.name}/Cond{index}.{key}")
    headers = [n for n in body.nodes if n.label == "Fused"]
    assert headers, "O1 fuses the branch's h * 2.0 + 1.0"
    header = headers[0]
    assert header.namespace == f"Branchy/Fused{[n.op for n in cond.subgraphs[key].nodes].index('Fused')}"
    assert header.config.pinToGroupTop and header.namespace.rsplit("/", 1)[-1].startswith("Fused")
    members = [n for n in body.nodes if n.namespace == header.namespace and n is not header]
    ops_attr = {kv.key: kv.value for kv in header.attrs}["ops"]
    assert "+".join(m.label for m in members) == ops_attr
    assert "fused" in body.groupNodeAttributes[header.namespace]


def test_saved_json_loads_in_model_explorer(tmp_path, digits, branchy):
    _, _, _, _, captured, lowered = digits
    for graph in (captured, lowered.graph, branchy[2]):
        out = viz.save(graph, str(tmp_path / "g.json"))
        coll = _load_collection(out["graph"])  # Model Explorer's own dataclasses, strictly
        assert coll.label == graph.name and coll.graphs[0].id == graph.name
        raw = json.load(open(out["graph"]))
        # the web app's JSON loader accepts a GraphCollection object: {label, graphs: [{id, nodes}]}
        assert set(raw) >= {"label", "graphs"} and all({"id", "nodes"} <= set(g) for g in raw["graphs"])


def test_msxir_adapter_through_model_explorer_extension_manager(tmp_path, branchy):
    from model_explorer.extension_manager import ExtensionManager

    net, x, graph = branchy
    path = ms.export(net, x, file_name=str(tmp_path / "branchy"))
    manager = ExtensionManager(["msx.viz"])
    manager.load_extensions()
    meta = {m["id"]: m for m in manager.get_extensions_metadata()}
    assert meta["msx_msxir"]["fileExts"] == ["msxir"] and meta["msx_msxir"]["type"] == "adapter"
    resp = manager.run_cmd({"extensionId": "msx_msxir", "cmdId": "convert", "modelPath": path, "settings": {}})
    coll = dacite.from_dict(gb.GraphCollection, resp["graphCollections"][0], config=dacite.Config(strict=True))
    loaded = ms.load(path)
    _check_structure(loaded, viz.to_model_explorer(loaded))
    labels = sorted(n.label for n in coll.graphs[0].nodes if not n.id.startswith(SPECIAL))
    assert labels == sorted(n.op for n in graph.nodes)
    assert {n.namespace for n in coll.graphs[0].nodes if n.label == "Dense"} == \
        {"Branchy/backbone/layer1/conv1", "Branchy/backbone/layer2/conv1", "Branchy/head"}


def test_scope_serialization_is_backward_compatible(branchy):
    _, _, graph = branchy
    data, arrays = graph_to_data(graph)
    assert data["nodes"][0]["scope"] == "Branchy/backbone/layer1/conv1"
    back = graph_from_data(data, arrays, lambda op: op in REGISTRY or op in ("Cond",))
    assert [n.scope for n in back.nodes] == [n.scope for n in graph.nodes]
    old = json.loads(json.dumps(data))
    for n in old["nodes"]:
        n.pop("scope", None)                         # a file written before scopes existed
    assert all(n.scope == "" for n in graph_from_data(old, arrays, lambda op: True).nodes)
    old["nodes"][0]["scope"] = 3
    with pytest.raises(MalformedFileError, match="scope"):
        graph_from_data(old, arrays, lambda op: True)
    old["nodes"][0]["scope"] = "a"
    old["nodes"][0]["extra"] = 1
    with pytest.raises(MalformedFileError, match="expected the keys"):
        graph_from_data(old, arrays, lambda op: True)


# ---------------------------------------------------------------- overlays
def test_ascend_cost_overlay_adds_up_to_the_simulator_report(tmp_path, digits):
    _, _, _, _, captured, lowered = digits
    for graph in (captured, lowered.graph):
        report = AscendSim().build(graph, BuildConfig()).report
        time = viz.ascend_cost(graph)
        top = [time.values[n] for n in graph.nodes]
        assert sum(top) == pytest.approx(report.total_time_us, rel=1e-9)
        flops = viz.ascend_cost(graph, "flops")
        assert sum(flops.values[n] for n in graph.nodes) == pytest.approx(report.total_flops)
        assert sum(flops.values[n] for n in graph.nodes) > 0
        units = viz.ascend_cost(graph, "unit")
        body = graph.nodes[0].subgraphs["body"]
        assert {units.values[n] for n in body.nodes if n.op == "Dense"} == {"Cube"}
        memory = viz.ascend_memory(graph)
        assert max(memory.values[n] for n in graph.nodes) == report.peak_memory_bytes
    out = viz.save(lowered.graph, str(tmp_path / "g.json"), overlays=[time, units, memory])
    coll = _load_collection(out["graph"])
    ids = {g.id: {n.id for n in g.nodes} for g in coll.graphs}
    for name in (time.name, units.name, memory.name):
        with open(out[name]) as f:
            data = json.load(f)
        for gid, gdata in data.items():
            # label values (str) are shown by the web app (it prints any value) but are outside the Python type hint
            node_data = dacite.from_dict(ndb.GraphNodeData, gdata, config=dacite.Config(check_types=name != units.name))
            assert set(node_data.results) <= ids[gid] and node_data.results
    with open(out[units.name]) as f:
        unit_data = json.load(f)
    body_id = next(g for g in ids if g.endswith("Grad0.body"))
    assert {r["value"] for r in unit_data[body_id]["results"].values()} >= {"Cube"}


def test_pass_diff_marks_what_fusion_changed(fused):
    (record,) = [r for r in fused.pass_records if r.changed and r.name == "fusion"] or \
        [r for r in fused.pass_records if r.changed][-1:]
    removed, added = viz.pass_diff(record.before, record.after)
    cond_before = next(n for n in record.before.nodes if n.op == "Cond")
    cond_after = next(n for n in record.after.nodes if n.op == "Cond")
    assert removed.values[cond_before] == added.values[cond_after] == "changed inside"
    key = next(k for k, g in cond_after.subgraphs.items() if any(n.op == "Fused" for n in g.nodes))
    old_branch, new_branch = cond_before.subgraphs[key], cond_after.subgraphs[key]
    assert sorted(n.op for n in old_branch.nodes if removed.values[n] == "removed") == ["Add", "Mul"]
    assert [n.op for n in new_branch.nodes if added.values[n] == "added"] == ["Fused"]
    assert all(v == "kept" for n, v in removed.values.items() if n.op == "Dense")
    # the other branch is untouched
    other = next(k for k in cond_after.subgraphs if k != key)
    assert all(added.values[n] == "kept" for n in cond_after.subgraphs[other].nodes)
    # shown on the converted graph: keyed to the right Model Explorer nodes
    converted = viz.to_model_explorer(record.after)
    data = added.node_data(converted)
    sid = f"{record.after.name}/Cond{record.after.nodes.index(cond_after)}.{key}"
    values = {r.value for r in data.graphsData[sid].results.values()}
    assert values == {"added", "kept"} or values == {"added"}


def test_overlay_rejects_bad_values(branchy):
    with pytest.raises(VizError, match="numbers or str"):
        viz.Overlay("x", {branchy[2].nodes[0]: [1]})
    with pytest.raises(VizError, match="metric"):
        viz.ascend_cost(branchy[2], "watts")
    with pytest.raises(VizError, match="Overlay objects"):
        viz.save(branchy[2], "/tmp/never.json", overlays=[{"a": 1}])


def test_save_stage_writes_graph_and_cost_overlay(tmp_path, branchy):
    path = viz.save_stage(str(tmp_path), "0000_net_captured", branchy[2], "captured")
    assert os.path.basename(path) == "0000_net_captured.json"
    coll = _load_collection(path)
    assert {kv for kv in coll.graphs[0].groupNodeAttributes[""]} >= {"graph", "stage"}
    assert any(p.endswith(".nodedata.json") for p in os.listdir(tmp_path))


def test_missing_model_explorer_is_a_clear_error(monkeypatch):
    for name in [m for m in sys.modules if m == "model_explorer" or m.startswith(("model_explorer.", "msx.viz."))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "model_explorer", None)
    with pytest.raises(ImportError, match=r'pip install "msx\[viz\]"') as info:
        viz.to_model_explorer(ms.ir.graph.Graph("empty"))
    assert isinstance(info.value, ms.errors.VizUnavailableError)


# ---------------------------------------------------------------- the server
def _get(url: str):
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.loads(resp.read())


def test_show_serves_the_graph_and_converts_msxir(tmp_path, branchy):
    net, x, graph = branchy
    viewer = viz.show(net, x, stage="captured", overlays=[viz.ascend_cost(graph)])
    base = viewer.url.split("/?")[0]
    assert base.startswith("http://localhost:")
    data = json.loads(urllib.parse.unquote(viewer.url.split("?data=")[1]))
    (model,) = data["models"]
    assert model["url"].endswith(".json") and len(data["nodeData"]) == 1
    # what the web app's JSON loader reads for that model
    content = _get(f"{base}/api/v1/read_text_file?path={urllib.parse.quote(model['url'])}")["content"]
    assert json.loads(content)["label"] == graph.name
    assert "<iframe" in viewer._repr_html_()
    # the same server converts .msxir files through msx's adapter extension, as the web app asks it to
    path = ms.export(net, x, file_name=str(tmp_path / "net"))
    cmd = {"extensionId": "msx_msxir", "cmdId": "convert", "modelPath": path, "settings": {},
           "deleteAfterConversion": False}
    resp = _get(f"{base}/api/v1/send_command?json={urllib.parse.quote(json.dumps(cmd))}")
    nodes = resp["graphCollections"][0]["graphs"][0]["nodes"]
    assert sorted(n["label"] for n in nodes if not n["id"].startswith(SPECIAL)) == sorted(n.op for n in graph.nodes)
    exts = _get(f"{base}/api/v1/get_extensions")
    assert any(e["id"] == "msx_msxir" for e in exts)


def test_show_waits_only_where_asked_or_at_a_terminal(monkeypatch, branchy):
    """A script's `show` keeps its page up until Ctrl+C when run from a terminal; a notebook's (or a pipe's)
    returns at once; `block=` decides."""
    from msx.viz import server

    waited = []
    monkeypatch.setattr(server.Viewer, "wait", lambda self: waited.append(self.url))
    net, x, graph = branchy
    viewer = viz.show(graph)                      # pytest's stdin is no terminal: returns at once
    assert waited == [] and viewer.url.startswith("http://localhost:")
    viz.show(graph, block=True)
    assert len(waited) == 1
    monkeypatch.setattr(viz, "_at_a_terminal", lambda: True)
    viz.show(graph)
    viz.show(graph, block=False)
    assert len(waited) == 2


def test_python_m_msx_view_prints_the_url(tmp_path, branchy):
    net, x, _ = branchy
    path = ms.export(net, x, file_name=str(tmp_path / "net"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "msx", "view", path], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    try:
        url = None
        for line in proc.stdout:
            if line.startswith("http://localhost:") and "data=" in line and url is None:
                url = line.strip()
                break
        assert url is not None
        assert urllib.request.urlopen(url.split("/?")[0] + "/check_health", timeout=30).read() == b"model_explorer_ok"
        data = json.loads(urllib.parse.unquote(url.split("?data=")[1]))
        assert data["models"][0]["url"] == os.path.abspath(path)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    # a MindSpore .mindir: msx's reader converts it, Model Explorer is served the graph JSON (its ops by name)
    mindir = os.path.join(os.path.dirname(__file__), "data", "mindir", "lenetish.mindir")
    proc = subprocess.Popen([sys.executable, "-m", "msx", "view", mindir], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    try:
        url = next(line.strip() for line in proc.stdout if line.startswith("http://localhost:") and "data=" in line)
        model = json.loads(urllib.parse.unquote(url.split("?data=")[1]))["models"][0]["url"]
        assert model.endswith(".json")
        content = _get(f"{url.split('/?')[0]}/api/v1/read_text_file?path={urllib.parse.quote(model)}")["content"]
        labels = {n["label"] for g in json.loads(content)["graphs"] for n in g["nodes"]}
        assert {"Conv2D", "MaxPool", "BatchNorm"} <= labels, labels
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    bad = subprocess.run([sys.executable, "-m", "msx", "view", str(tmp_path / "missing.msxir")], capture_output=True,
                         text=True, env=env)
    assert bad.returncode == 1 and "no such file" in bad.stderr


def test_save_graphs_3_writes_model_explorer_graphs_next_to_the_text_dumps(tmp_path):
    ms.set_context(save_graphs=3, save_graphs_path=str(tmp_path))
    try:
        ms.jit(lambda x: x * 2.0 + 1.0)(ms.Tensor(np.ones(3, np.float32)))
    finally:
        ms.set_context(save_graphs=False)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert any(n.endswith("_captured.ir") for n in names) and "<lambda>_optimised.json" in names
    graph = json.loads((tmp_path / "<lambda>_optimised.json").read_text())
    assert "Mul" in json.dumps(graph) and "Add" in json.dumps(graph)
