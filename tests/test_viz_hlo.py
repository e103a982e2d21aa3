"""XLA's optimised HLO mapped back to msx nodes: `msx.profiler.hlo.annotate` (the final execution sequence with
each instruction's msx node, Cell and source line) and the `msx.viz.hlo_ops` overlay, checked against an
independent reading of the HLO text's own `op_name` metadata."""
import json
import re
from collections import Counter

import pytest

import msx.viz as viz
from msx.profiler.hlo import annotate, optimized_hlo
from viz_programs import digits_step

NO_WORK = {"parameter", "constant", "get-tuple-element", "tuple", "bitcast"}
LINE = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=\s*\S+(?:\s\S+)*?\s([\w\-]+)\(")


@pytest.fixture(scope="module")
def compiled():
    jf, net, x, y = digits_step(jit_level="O1")
    return jf.lower(x, y).compile()


def metadata_counts(text):
    """Instructions with work per innermost `Op#k` token of their op_name (the independent reading)."""
    counts = Counter()
    for line in text.splitlines():
        m, meta = LINE.match(line), re.search(r'op_name="([^"]*)"', line)
        if m and meta and m.group(2) not in NO_WORK:
            tokens = re.findall(r"([A-Za-z]\w*#\d+)", meta.group(1))
            if tokens:
                counts[tokens[-1]] += 1
    return counts


def test_the_overlay_counts_the_instructions_the_metadata_names(compiled):
    text, graph = optimized_hlo(compiled)
    assert graph is compiled.lowered.graph and "is_scheduled=true" in text
    overlay = viz.hlo_ops(compiled)
    ours = Counter()
    for node, count in overlay.values.items():
        index = next(i for g in [graph, *[s for n in graph.nodes for s in n.subgraphs.values()]]
                     for i, n in enumerate(g.nodes) if n is node)
        ours[f"{node.op}#{index}"] += count
    assert ours == metadata_counts(text)
    ops = {n.op for n in overlay.values}
    assert {"Dense", "ReLU", "CrossEntropy", "OptimizerUpdate"} <= ops
    names = viz.hlo_ops(compiled, "ops")
    dense = next(n for n in names.values if n.op == "Dense")
    assert all(name in text for name in names.values[dense].split(" (+")[0].split(", "))


def test_annotate_names_node_cell_and_line_of_every_instruction_it_maps(compiled):
    text, _ = optimized_hlo(compiled)
    out = annotate(compiled)
    assert len(out.rstrip().splitlines()) == len(text.rstrip().splitlines())
    marked = [line for line in out.splitlines() if "  # " in line]
    assert len(marked) >= sum(metadata_counts(text).values())
    dots = [line for line in marked if " dot(" in line]
    assert dots and all(re.search(r"Dense#\d Dense \[MLP/fc[12]\] .*viz_programs.py:\d+", d) for d in dots)
    assert any(d.endswith("(backward)") for d in dots) and any(not d.endswith("(backward)") for d in dots)


def test_the_overlay_saves_as_model_explorer_node_data(compiled, tmp_path):
    written = viz.save(compiled.lowered.graph, str(tmp_path / "g.json"), overlays=[viz.hlo_ops(compiled)])
    data = json.loads(open(written["HLO instructions"]).read())
    results = [r for g in data.values() for r in g["results"].values()]
    assert len(results) == len(viz.hlo_ops(compiled).values) and all(r["value"] >= 1 for r in results)
    with pytest.raises(Exception, match="metric must be one of"):
        viz.hlo_ops(compiled, "speed")
