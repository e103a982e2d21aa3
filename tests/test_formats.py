"""The format registry (msx.formats): dispatch of export / load / inspect, detection by content then name, clear
errors for unknown formats and files; and drop_shards, the rewrite every graph export runs, never mutating its input."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx import formats, nn
from msx.__main__ import inspect as inspect_file
from msx.errors import BadMagicError, ExportError
from msx.formats import registry
from msx.formats.graph_capture import drop_shards
from msx.ir.interpret import evaluate
from msx.ir.parse import parse_graph

BUILT_IN = ["STABLEHLO", "MSX_CHECKPOINT", "SAFETENSORS", "CKPT", "MINDIR", "MSXIR"]


@pytest.fixture
def scratch_format():
    """Registers formats for one test and removes them afterwards (the registry is process-wide)."""
    before = dict(registry._FORMATS)
    yield
    registry._FORMATS.clear()
    registry._FORMATS.update(before)


def test_the_built_in_formats_are_registered_in_sniffing_order():
    assert formats.names()[:len(BUILT_IN)] == BUILT_IN
    assert set(formats.names("export")) >= {"MSXIR", "MINDIR", "STABLEHLO"}
    assert not {"CKPT", "SAFETENSORS", "MSX_CHECKPOINT"} & set(formats.names("export"))  # written by save_checkpoint
    assert set(formats.names("inspect")) >= set(BUILT_IN)


def test_an_unknown_export_format_lists_the_registered_ones(tmp_path):
    with pytest.raises(ExportError, match=r"file_format='ONNX' is not supported; choose one of \[.*'MSXIR'.*\]"):
        msx.export(nn.Dense(2, 2), msx.Tensor(np.ones((1, 2), np.float32)), file_name=str(tmp_path / "m"),
                   file_format="ONNX")
    with pytest.raises(ExportError, match="file_format='CKPT' is not supported"):  # registered, but not exportable
        msx.export(nn.Dense(2, 2), msx.Tensor(np.ones((1, 2), np.float32)), file_name=str(tmp_path / "m"),
                   file_format="CKPT")
    assert list(tmp_path.iterdir()) == []


def test_an_unrecognised_file_names_every_format_msx_reads(tmp_path):
    (tmp_path / "weights.bin").write_bytes(b"\x80\x04\x95 not a format msx knows")
    with pytest.raises(BadMagicError, match=r"not a file msx recognises: .*looks like a Python pickle; msx never "
                                            r"unpickles.*MINDIR \(\.mindir\).*MSXIR \(\.msxir\)"):
        msx.load(str(tmp_path / "weights.bin"))
    with pytest.raises(BadMagicError, match=r"not a file msx recognises.*CKPT \(\.ckpt\)"):
        inspect_file(str(tmp_path / "weights.bin"))


def test_content_decides_before_the_name(tmp_path):
    net, x = nn.Dense(2, 2), msx.Tensor(np.ones((1, 2), np.float32))
    msxir = msx.export(net, x, file_name=str(tmp_path / "g"))
    renamed = tmp_path / "g.mindir"  # an MSXIR file under MindIR's name is still read as MSXIR
    renamed.write_bytes(open(msxir, "rb").read())
    assert formats.detect(str(renamed)).name == "MSXIR"
    assert msx.load(str(renamed)).structurally_equal(msx.load(msxir))
    msx.save_checkpoint(net, str(tmp_path / "w.ckpt"), format="msx")  # msx's checkpoint is safetensors inside
    assert formats.detect(str(tmp_path / "w.ckpt")).name == "MSX_CHECKPOINT"
    msx.save_checkpoint(net, str(tmp_path / "w"), format="safetensors")  # MindSpore's
    assert formats.detect(str(tmp_path / "w.safetensors")).name == "SAFETENSORS"
    msx.save_checkpoint(net, str(tmp_path / "w2.ckpt"))  # MindSpore's protobuf
    assert formats.detect(str(tmp_path / "w2.ckpt")).name == "CKPT"
    (tmp_path / "empty.msxir").write_bytes(b"")  # nothing to sniff: the name decides
    assert formats.detect(str(tmp_path / "empty.msxir")).name == "MSXIR"


def test_load_of_a_checkpoint_points_at_load_checkpoint(tmp_path):
    msx.save_checkpoint(nn.Dense(2, 2), str(tmp_path / "w.ckpt"))
    with pytest.raises(BadMagicError, match="is a checkpoint, not a graph file: read it with msx.load_checkpoint"):
        msx.load(str(tmp_path / "w.ckpt"))


def test_register_format_refuses_mistakes(scratch_format):
    def hook(path):
        return path

    with pytest.raises(ValueError, match="'MSXIR' is already registered"):
        formats.register_format("MSXIR", suffixes=".x", description="again", load=hook)
    with pytest.raises(ValueError, match="upper-case"):
        formats.register_format("npy", suffixes=".npy", description="lower", load=hook)
    with pytest.raises(ValueError, match="suffixes must be names like"):
        formats.register_format("NPY", suffixes="npy", description="no dot", load=hook)
    with pytest.raises(ValueError, match="at least one of export, load, inspect"):
        formats.register_format("NPY", suffixes=".npy", description="no hooks")


def test_a_registered_format_is_dispatched_by_export_load_and_inspect(scratch_format, tmp_path):
    """A format added from outside msx: one register_format call, and every entry point uses it."""
    seen = {}

    def export(path, request):
        seen["request"] = request
        with open(path, "wb") as f:
            f.write(b"TOY1" + np.asarray(request.inputs[0].asnumpy(), np.float32).tobytes())

    def load(path):
        return np.frombuffer(open(path, "rb").read()[4:], np.float32)

    formats.register_format("TOY", suffixes=(".toy",), description="a test format", export=export, load=load,
                            inspect=lambda path: f"toy file {path}", sniff=lambda path, head: head[:4] == b"TOY1")
    x = msx.Tensor(np.arange(3, dtype=np.float32))
    path = msx.export(nn.ReLU(), x, file_name=str(tmp_path / "t"), file_format="TOY", training=True)
    assert path == str(tmp_path / "t.toy") and seen["request"].training is True
    np.testing.assert_array_equal(msx.load(path), [0, 1, 2])
    assert inspect_file(path) == f"toy file {path}"
    with pytest.raises(ExportError, match="platforms applies to file_format='STABLEHLO' only"):
        msx.export(nn.ReLU(), x, file_name=str(tmp_path / "t"), file_format="TOY", platforms=("cpu",))


# ---------------------------------------------------------------- drop_shards
SHARDED = """graph f(%x: f32[2,2]) params(%w: f32[2,2], %m: f32[2,2]) {
  %0 = Shard[strategy=(2, 1), spec=(('s0',), ())](%x) : f32[2,2]
  %1 = Add(%0, %w) : f32[2,2]
  %2 = Greater(%1, %x) : bool[2,2]
  %3 = ReduceAll[axis=None, keepdims=False](%2) : bool[]
  %4 = Cond[then=@f_then, else=@f_else](%3, %1) : f32[2,2]
  %5 = Shard[strategy=(1, 1), spec=((), ())](%4) : f32[2,2]
  update %m <- %5
  return (%5, %0)
}

graph f_then(%a: f32[2,2]) {
  %0 = Shard[strategy=(2, 1), spec=(('s0',), ())](%a) : f32[2,2]
  %1 = Mul(%0, 2) : f32[2,2]
  return %1
}

graph f_else(%a: f32[2,2]) {
  %0 = Sub(%a, 1) : f32[2,2]
  return %0
}
"""


def test_drop_shards_returns_a_new_graph_and_leaves_its_input_unchanged():
    graph = parse_graph(SHARDED)
    text, nodes, outputs = str(graph), list(graph.nodes), list(graph.outputs)
    subgraph_nodes = [list(sub.nodes) for sub in graph.subgraphs()]
    dropped = drop_shards(graph)
    assert dropped is not graph and "Shard" not in dropped.primitives_used()
    assert str(graph) == text and graph.nodes == nodes and graph.outputs == outputs  # the same objects, unmodified
    assert [list(sub.nodes) for sub in graph.subgraphs()] == subgraph_nodes
    assert all(n.inputs == m.inputs for n, m in zip(graph.nodes, nodes))
    assert dropped.outputs[1] is graph.inputs[0] and dropped.updates[0][1] is dropped.outputs[0]
    x, w, m = (np.arange(4, dtype=np.float32).reshape(2, 2) - k for k in range(3))
    (out, same_x), updates = evaluate(dropped, [x], [w, m])
    np.testing.assert_allclose(np.asarray(out), (x + w) * 2 if np.all(x + w > x) else x + w - 1, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(same_x), x)
    assert drop_shards(dropped) is dropped  # nothing left to drop: the same object


def test_inspect_help_lists_the_registered_formats(capsys):
    from msx.__main__ import main

    with pytest.raises(SystemExit):
        main(["inspect", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(f"{f.name} ({'/'.join(f.suffixes)})" in text for f in formats.formats())
