"""MindIR files are untrusted input: corrupted or hostile files are refused with a LoadError, never a crash."""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import msx as ms
from msx.errors import LoadError, MalformedFileError, TruncatedFileError
from msx.ir.interpret import evaluate
from msx.mindir import mind_ir_pb2 as pb
from msx.mindir.errors import UnsupportedMindIRError
from msx.mindir.reader import load_mindir

DATA = os.path.join(os.path.dirname(__file__), "data", "mindir")
BRANCHY = os.path.join(DATA, "branchy_pos.mindir")
MLP = os.path.join(DATA, "mlp.mindir")


def model_of(path: str) -> pb.ModelProto:
    m = pb.ModelProto()
    m.ParseFromString(open(path, "rb").read())
    return m


def write(tmp_path, model_or_bytes, name="m.mindir") -> str:
    p = tmp_path / name
    p.write_bytes(model_or_bytes if isinstance(model_or_bytes, bytes) else model_or_bytes.SerializeToString())
    return str(p)


def outputs(graph, *xs):
    return [np.asarray(evaluate(graph, [x], [graph.weights[v.name] for v in graph.params])[0][0]) for x in xs]


INPUTS = [np.load(os.path.join(DATA, f"branchy_{s}.input.npy")) for s in ("pos", "neg")]


@pytest.fixture(scope="module")
def reference():
    return outputs(load_mindir(BRANCHY), *INPUTS)


def test_every_truncation_is_refused(tmp_path):
    blob = open(BRANCHY, "rb").read()
    path = str(tmp_path / "cut.mindir")
    for cut in range(len(blob)):
        with open(path, "wb") as f:
            f.write(blob[:cut])
        with pytest.raises(LoadError):
            ms.load(path)


def _payload_ranges(blob: bytes, model: pb.ModelProto) -> list[tuple[int, int]]:
    """Byte ranges holding values a flip can change undetectably: weights and Constant nodes' values."""
    ranges = []
    for t in model.graph.parameter:
        start = blob.find(t.raw_data)
        ranges.append((start, start + len(t.raw_data)))
    for g in [model.graph, *model.functions]:
        for n in g.node:
            if n.op_type == "Constant":
                nb = n.SerializeToString()
                start = blob.find(nb)
                assert start >= 0
                ranges.append((start, start + len(nb)))
    return ranges


def test_bit_flips_are_refused_or_change_nothing_msx_computes(tmp_path, reference):
    """MindIR has no checksum, so a flip inside a weight or a constant cannot be seen (MindSpore 2.10 runs such a
    file too); every other flip is refused, or hits metadata msx does not use (node names, domains) and leaves
    the outputs bit-identical."""
    blob = open(BRANCHY, "rb").read()
    ranges = _payload_ranges(blob, model_of(BRANCHY))
    rng = np.random.default_rng(1)
    path = str(tmp_path / "flip.mindir")
    refused = accepted = 0
    for i in range(0, len(blob), 19):
        if any(a <= i < b for a, b in ranges):
            continue
        b = bytearray(blob)
        b[i] ^= 1 << int(rng.integers(8))
        with open(path, "wb") as f:
            f.write(b)
        try:
            g = ms.load(path)
        except LoadError:
            refused += 1
            continue
        accepted += 1
        got = outputs(g, *INPUTS)
        assert all(np.array_equal(x, y) for x, y in zip(got, reference)), f"flip at byte {i} changed the outputs"
    assert refused > accepted > 0


def test_wrong_tensor_size_is_refused(tmp_path):
    m = model_of(MLP)
    m.graph.parameter[0].raw_data = m.graph.parameter[0].raw_data[:-4]
    with pytest.raises(MalformedFileError, match="needs 2048 bytes of data, the file has 2044"):
        ms.load(write(tmp_path, m))


def test_dangling_input_is_refused(tmp_path):
    m = model_of(MLP)
    m.graph.node[4].input[0] = "nowhere"
    with pytest.raises(MalformedFileError, match="uses 'nowhere', which nothing in the file defines"):
        ms.load(write(tmp_path, m))


def test_cycle_is_refused(tmp_path):
    m = model_of(MLP)
    nodes = m.graph.node
    last = nodes[len(nodes) - 1].output[0]
    nodes[4].input[0] = last  # an early node reads the graph's last value
    with pytest.raises(MalformedFileError, match="before the node that defines it"):
        ms.load(write(tmp_path, m))


def test_recorded_shape_mismatch_is_refused(tmp_path):
    m = model_of(MLP)
    shape = next(a for a in m.graph.node[4].attribute if a.name == "shape")
    shape.tensors[0].dims[1] = 33
    with pytest.raises(MalformedFileError, match=r"records its result as f32\[4,33\], msx computes f32\[4,32\]"):
        ms.load(write(tmp_path, m))


@pytest.mark.parametrize("mutate, message", [
    (lambda m: m.graph.parameter[0].dims.__setitem__(0, -1), "not static"),
    (lambda m: m.graph.parameter[0].dims.extend([1 << 20, 1 << 20]), "larger than msx accepts"),
    (lambda m: setattr(m.graph.parameter[0], "data_type", 99), "data_type 99"),
    (lambda m: m.graph.parameter[0].external_data.SetInParent(), "external file"),
    (lambda m: m.ClearField("graph"), "no main graph"),
    (lambda m: m.graph.node[1].output.append("extra"), "has 2 outputs"),
    (lambda m: setattr(m.graph.node[1], "op_type", "REF::NoSuchPrimitive"), "nothing in the file defines"),
    (lambda m: m.primitives.add().CopyFrom(m.primitives[0]), "used twice"),
])
def test_malformed_fields_are_refused(tmp_path, mutate, message):
    m = model_of(MLP)
    mutate(m)
    with pytest.raises(MalformedFileError, match=message):
        ms.load(write(tmp_path, m))


def test_missing_trailing_field_is_truncation(tmp_path):
    m = model_of(MLP)
    m.ClearField("mind_ir_version")
    with pytest.raises(TruncatedFileError):
        ms.load(write(tmp_path, m))


def test_size_limit(tmp_path):
    with pytest.raises(MalformedFileError, match="more than the 100 msx reads"):
        load_mindir(MLP, max_bytes=100)


def test_not_mindir_bytes(tmp_path):
    for blob in (b"", b"\x80\x04\x95 pickle", b"\x0a\xff\xff\xff\xff\x0f garbage"):
        with pytest.raises(LoadError):
            ms.load(write(tmp_path, blob))


def _bomb(depth: int) -> pb.ModelProto:
    """g0 calls g1 twice, g1 calls g2 twice, ...: 2**depth inlined nodes from a tiny file."""
    m = pb.ModelProto(ir_version="1.1", producer_name="test", mind_ir_version=3)
    m.primitives.add(name="Neg:1", op_type="Neg", prim_type=pb.PrimitiveProto.PRIMITIVE_FUNCTION)
    graphs = [m.graph] + [m.functions.add() for _ in range(depth)]
    for k, g in enumerate(graphs):
        g.name = f"g{k}"
        x = g.input.add(name=f"g{k}:x")
        x.tensor.add(dims=[2], data_type=pb.TensorProto.FLOAT)
        callee = f"REF::g{k + 1}" if k < depth else "REF::Neg:1"
        g.node.add(input=[f"g{k}:x"], output=[f"g{k}:a"], name=f"g{k}:a", op_type=callee)
        g.node.add(input=[f"g{k}:a"], output=[f"g{k}:b"], name=f"g{k}:b", op_type=callee)
        g.output.add(name=f"g{k}:b")
    return m


def test_small_graphs_calling_each_other_cannot_explode(tmp_path, monkeypatch):
    from msx.mindir import build

    ok = load_mindir(write(tmp_path, _bomb(3)))
    assert [n.op for n in ok.nodes] == ["Neg"] * 16
    np.testing.assert_array_equal(outputs(ok, np.ones(2, np.float32))[0], np.ones(2))
    monkeypatch.setattr(build, "MAX_NODES", 1000)
    with pytest.raises(MalformedFileError, match="expands to more than 1000 msx nodes"):
        load_mindir(write(tmp_path, _bomb(12)))


def test_self_recursion_that_is_no_loop_is_refused(tmp_path):
    m = _bomb(0)
    m.graph.node[0].op_type = "REF::g0"
    with pytest.raises(UnsupportedMindIRError, match="calls itself"):
        load_mindir(write(tmp_path, m))


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.integers(0, 7416), st.integers(0, 255), st.sampled_from(["set", "ins", "del"])),
                      min_size=1, max_size=4))
def test_fuzz_mutated_files_never_crash(tmp_path, edits):
    b = bytearray(open(BRANCHY, "rb").read())
    for pos, value, kind in edits:
        pos %= len(b) + (kind == "ins")
        if kind == "set" and pos < len(b):
            b[pos] = value
        elif kind == "ins":
            b.insert(pos, value)
        elif pos < len(b):
            del b[pos]
    path = write(tmp_path, bytes(b), "fuzz.mindir")
    try:
        g = ms.load(path)
    except LoadError:
        return
    for out in outputs(g, *INPUTS):
        assert out.shape == (3, 8)


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_field_edits_never_crash(tmp_path, data):
    """Structured corruption: one field of one node or tensor set to an arbitrary value."""
    m = model_of(BRANCHY)
    graphs = [m.graph, *m.functions]
    g = graphs[data.draw(st.integers(0, len(graphs) - 1))]
    node = g.node[data.draw(st.integers(0, len(g.node) - 1))]
    choice = data.draw(st.sampled_from(["input", "op_type", "dims", "int", "drop_node"]))
    if choice == "input" and len(node.input):
        names = [n.output[0] for gg in graphs for n in gg.node] + ["", "x"]
        node.input[data.draw(st.integers(0, len(node.input) - 1))] = data.draw(st.sampled_from(names))
    elif choice == "op_type":
        node.op_type = data.draw(st.sampled_from(["REF::" + p.name for p in m.primitives] + ["Constant", "REF::"]))
    elif choice == "dims":
        for a in node.attribute:
            for t in a.tensors:
                t.dims.append(data.draw(st.integers(-3, 5)))
    elif choice == "int":
        for a in node.attribute:
            a.i = data.draw(st.integers(-(1 << 40), 1 << 40))
    else:
        del g.node[data.draw(st.integers(0, len(g.node) - 1))]
    try:
        loaded = ms.load(write(tmp_path, m, "edit.mindir"))
    except LoadError:
        return
    outputs(loaded, *INPUTS)
