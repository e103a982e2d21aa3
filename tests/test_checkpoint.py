"""Checkpoints: save_checkpoint / load_checkpoint / load_param_into_net with MindSpore's semantics, optimizer
state, damaged files, and `python -m msx inspect`."""
import json
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
import safetensors.numpy

import msx
from msx import nn, ops
from msx.__main__ import main as cli
from msx.errors import (BadMagicError, ChecksumError, CheckpointError, FormatVersionError, MalformedFileError,
                        TruncatedFileError)
from tolerance import assert_same_float32

T = msx.Tensor


def _net(seed=0):
    msx.set_seed(seed)
    return nn.SequentialCell([nn.Dense(4, 5), nn.ReLU(), nn.Dense(5, 3)])


def _values(cell) -> dict:
    return {p.name: p.asnumpy() for p in cell.get_parameters()}


@pytest.mark.parametrize("fmt", ["msx", "ckpt"])
def test_round_trip_keeps_names_values_dtypes_order_and_flags(tmp_path, fmt):
    """msx's format keeps requires_grad; MindSpore's ckpt (the default) has no such field: its Parameters load
    with requires_grad=True, as in MindSpore."""
    params = [msx.Parameter(T(np.arange(6, dtype=np.float32).reshape(2, 3)), name="w"),
              msx.Parameter(T(np.array([1.5, -2.0], ml_dtypes.bfloat16)), name="half"),
              msx.Parameter(T(np.array(3.25, np.float64)), name="scalar64", requires_grad=False),
              msx.Parameter(T(np.array([[True, False]])), name="mask", requires_grad=False),
              msx.Parameter(T(np.array([7], np.int32)), name="step", requires_grad=False)]
    msx.save_checkpoint(params, str(tmp_path / "p"), **({"format": fmt} if fmt == "msx" else {}))
    loaded = msx.load_checkpoint(str(tmp_path / "p.ckpt"))
    assert list(loaded) == [p.name for p in params]
    for p in params:
        q = loaded[p.name]
        assert isinstance(q, msx.Parameter) and q.name == p.name
        assert q.requires_grad == (p.requires_grad if fmt == "msx" else True)
        assert q._data.dtype == p._data.dtype and q.shape == p.shape
        np.testing.assert_array_equal(q.asnumpy(), p.asnumpy())
    if fmt == "ckpt":
        with open(tmp_path / "p.ckpt", "rb") as f:
            assert f.read(1) == b"\x0a"  # a protobuf record: MindSpore's own format
        return
    # a plain safetensors file: any safetensors reader sees the same tensors
    plain = safetensors.numpy.load_file(str(tmp_path / "p.ckpt"))
    np.testing.assert_array_equal(plain["w"], params[0].asnumpy())


def test_a_network_reloads_exactly_and_reports_what_was_not_loaded(tmp_path):
    net, other = _net(0), _net(1)
    x = T(np.random.default_rng(0).normal(size=(2, 4)).astype(np.float32))
    msx.save_checkpoint(net, str(tmp_path / "net.ckpt"))
    params = msx.load_checkpoint(str(tmp_path / "net.ckpt"), net=other)
    want = _values(net)
    for name, value in _values(other).items():   # the parameters reload bit for bit
        np.testing.assert_array_equal(value, want[name])
    assert_same_float32(other(x).asnumpy(), net(x).asnumpy())   # one call may run an op plainly, the other compiled
    assert sorted(params) == sorted(_values(net))
    extra = nn.SequentialCell([nn.Dense(4, 5), nn.ReLU(), nn.Dense(5, 3), nn.Dense(3, 2)])
    partial = {k: v for k, v in params.items() if k != "0.bias"}
    assert msx.load_param_into_net(extra, partial) == (["0.bias", "3.weight", "3.bias"], [])
    assert msx.load_param_into_net(_net(2), {**params, "unused": params["0.bias"]}) == ([], ["unused"])


def test_training_resumed_from_a_checkpoint_matches_uninterrupted_training(tmp_path):
    x = T(np.random.default_rng(1).normal(size=(8, 4)).astype(np.float32))
    y = T(np.arange(8) % 3)

    def trainer(net):
        opt = nn.Adam(net.trainable_params(), learning_rate=0.05)
        grad_fn = msx.value_and_grad(lambda: ops.cross_entropy(net(x), y), None, opt.parameters)

        def step():
            _, grads = grad_fn()
            opt(grads)
        return opt, step

    net = _net(0)
    opt, step = trainer(net)
    for _ in range(2):
        step()
    msx.save_checkpoint([net, opt], str(tmp_path / "run.ckpt"))
    step()  # the uninterrupted run's third step

    resumed = _net(5)
    resumed_opt, resumed_step = trainer(resumed)
    params = msx.load_checkpoint(str(tmp_path / "run.ckpt"))
    assert {"global_step", "learning_rate", "moment1.0.weight", "moment2.2.bias"} <= set(params)
    not_loaded, unused = msx.load_param_into_net(resumed, params, strict_load=True)
    assert not_loaded == [] and all(k.startswith(("moment", "global_step", "learning_rate")) for k in unused)
    assert msx.load_param_into_net(resumed_opt, params, strict_load=True)[0] == []
    assert int(resumed_opt.global_step.asnumpy()[0]) == 2
    resumed_step()
    for name, value in _values(net).items():
        np.testing.assert_allclose(_values(resumed)[name], value, rtol=1e-6, atol=1e-7)


def test_strict_load_and_dtype_conversion():
    half = nn.Dense(4, 5, dtype=msx.float16)
    full = {p.name: p for p in nn.Dense(4, 5).get_parameters()}
    with pytest.raises(CheckpointError, match="parameter 'weight': the checkpoint has dtype float32, the network "
                                              "float16 \\(strict_load=True\\)"):
        msx.load_param_into_net(half, full, strict_load=True)
    assert msx.load_param_into_net(half, full) == ([], [])
    assert half.weight.dtype == msx.float16
    np.testing.assert_array_equal(half.weight.asnumpy(), full["weight"].asnumpy().astype(np.float16))
    ints = {"weight": T(np.ones((5, 4), np.int32)), "bias": full["bias"]}
    with pytest.raises(CheckpointError, match="checkpoint has dtype int32, the network float16 \\(only "
                                              "float<->float"):
        msx.load_param_into_net(half, ints)


def test_mismatched_shapes_are_all_reported_and_nothing_is_loaded():
    net = _net(0)
    before = _values(net)
    bad = {"0.weight": T(np.zeros((5, 3), np.float32)), "0.bias": T(np.zeros(5, np.float32)),
           "2.bias": T(np.zeros(4, np.float32))}
    with pytest.raises(CheckpointError) as info:
        msx.load_param_into_net(net, bad)
    text = str(info.value)
    assert "nothing was loaded" in text and "[checkpoint]" in text
    assert "parameter '0.weight': the checkpoint has shape (5, 3) (float32), the network has (5, 4)" in text
    assert "parameter '2.bias': the checkpoint has shape (4,)" in text
    for name, value in _values(net).items():
        np.testing.assert_array_equal(value, before[name])
    with pytest.raises(TypeError, match="net must be a Cell"):
        msx.load_param_into_net({}, bad)
    with pytest.raises(TypeError, match="parameter_dict must map names"):
        msx.load_param_into_net(net, {"0.bias": np.zeros(5)})


def test_names_that_differ_by_a_prefix_load_unless_strict():
    net = _net(0)
    wrapped = {"backbone." + k: T(v + 1) for k, v in _values(net).items()}
    wrapped["moment1.backbone.0.bias"] = T(np.zeros(5, np.float32))  # a longer match loses to the shorter one
    assert msx.load_param_into_net(_net(1), wrapped, strict_load=True)[0] == list(_values(net))
    target = _net(1)
    not_loaded, unused = msx.load_param_into_net(target, wrapped)
    assert not_loaded == [] and unused == ["moment1.backbone.0.bias"]
    np.testing.assert_array_equal(target[0].bias.asnumpy(), _values(net)["0.bias"] + 1)
    with pytest.raises(CheckpointError, match="matches several checkpoint entries by suffix"):
        msx.load_param_into_net(_net(1), {"a.0.bias": T(np.zeros(5, np.float32)),
                                          "b.0.bias": T(np.zeros(5, np.float32))})


def test_filters_append_dict_and_save_forms(tmp_path):
    net = _net(0)
    path = str(tmp_path / "n.ckpt")
    msx.save_checkpoint(net, path, append_dict={"epoch_num": 3, "lr": 0.5, "done": True, "arch": "mlp ü"},
                        choice_func=lambda n: n != "2.bias", format="msx")
    params = msx.load_checkpoint(path)
    assert list(params) == ["0.weight", "0.bias", "2.weight", "epoch_num", "lr", "done", "arch"]
    assert int(params["epoch_num"].asnumpy()) == 3 and params["epoch_num"].requires_grad is False
    assert params["done"].dtype == msx.bool_ and params["arch"] == "mlp ü"
    assert msx.load_param_into_net(_net(1), params) == (["2.bias"], ["epoch_num", "lr", "done", "arch"])
    assert sorted(msx.load_checkpoint(path, filter_prefix=["0.", "epoch", "a", "d"])) == ["2.weight", "lr"]
    assert sorted(msx.load_checkpoint(path, specify_prefix="0.")) == ["0.bias", "0.weight"]
    assert list(msx.load_checkpoint(path, choice_func=lambda n: n == "lr")) == ["lr"]
    msx.save_checkpoint([{"name": "a", "data": T(np.ones(2, np.float32))}], str(tmp_path / "d.safetensors"),
                        format="msx")
    assert list(msx.load_checkpoint(str(tmp_path / "d.safetensors"))) == ["a"]
    msx.save_checkpoint([{"name": "a", "data": T(np.ones(2, np.float32))}], str(tmp_path / "d.safetensors"))
    assert list(msx.load_checkpoint(str(tmp_path / "d.safetensors.ckpt"))) == ["a"]  # MindSpore's naming
    msx.save_checkpoint({"b": T(np.zeros(1, np.float32))}, str(tmp_path / "e"))
    assert list(msx.load_checkpoint(str(tmp_path / "e.ckpt"))) == ["b"]
    twins = [msx.Parameter(T(np.ones(1, np.float32)), name="same"), msx.Parameter(T(np.zeros(1, np.float32)),
                                                                                   name="same")]
    with pytest.raises(CheckpointError, match="two different tensors are named 'same'"):
        msx.save_checkpoint(twins, str(tmp_path / "twins"))
    with pytest.raises(CheckpointError, match="append_dict entries must map a new str name to an int, float, bool"):
        msx.save_checkpoint(net, path, append_dict={"note": [1]})
    with pytest.raises(CheckpointError, match="append_dict entries must map a new str name"):
        msx.save_checkpoint(net, path, append_dict={"0.bias": "clash"})
    with pytest.raises(TypeError, match="save_obj must be a Cell, a list or a dict"):
        msx.save_checkpoint(42, path)


def test_a_dtype_mindspores_ckpt_cannot_hold_is_refused_by_the_default_and_kept_by_msxs_format(tmp_path):
    c = msx.Parameter(T(np.array([1 + 2j, -0.5j], np.complex64)), name="c")
    with pytest.raises(CheckpointError, match="dtype complex64, which MindSpore's checkpoint cannot store.*"
                                              "format='msx'"):
        msx.save_checkpoint([c], str(tmp_path / "c"))
    assert not (tmp_path / "c.ckpt").exists()
    msx.save_checkpoint([c], str(tmp_path / "c"), format="msx")
    np.testing.assert_array_equal(msx.load_checkpoint(str(tmp_path / "c.ckpt"))["c"].asnumpy(), c.asnumpy())


@pytest.fixture
def saved(tmp_path):
    path = str(tmp_path / "n.ckpt")
    msx.save_checkpoint(_net(0), path, format="msx")
    with open(path, "rb") as f:
        return path, f.read()


def test_damaged_checkpoints_are_refused(saved, tmp_path):
    path, data = saved
    damaged = bytearray(data)
    damaged[-3] ^= 0x10  # in the tensor bytes: only the checksum can tell
    (tmp_path / "flip.ckpt").write_bytes(bytes(damaged))
    with pytest.raises(ChecksumError, match="entry '.*' does not match its SHA-256 checksum"):
        msx.load_checkpoint(str(tmp_path / "flip.ckpt"))
    (tmp_path / "cut.ckpt").write_bytes(data[:-10])
    with pytest.raises(TruncatedFileError, match="is truncated"):
        msx.load_checkpoint(str(tmp_path / "cut.ckpt"))
    (tmp_path / "empty.ckpt").write_bytes(b"")
    with pytest.raises(TruncatedFileError, match="is empty"):
        msx.load_checkpoint(str(tmp_path / "empty.ckpt"))
    (tmp_path / "graph.ckpt").write_bytes(b"\x89MSXIR\r\n" + b"\x00" * 60)
    with pytest.raises(BadMagicError, match="it is an MSXIR graph file: use msx.load"):
        msx.load_checkpoint(str(tmp_path / "graph.ckpt"))
    arrays = safetensors.numpy.load_file(path)
    newer = {"format": "msx.checkpoint", "format_version": "3", "sha256": "{}", "requires_grad": "[]"}
    safetensors.numpy.save_file(arrays, str(tmp_path / "newer.ckpt"), metadata=newer)
    with pytest.raises(FormatVersionError, match="checkpoint format version 3.*upgrade msx"):
        msx.load_checkpoint(str(tmp_path / "newer.ckpt"))
    safetensors.numpy.save_file(arrays, str(tmp_path / "foreign.safetensors"))  # no msx metadata: loads as is
    assert sorted(msx.load_checkpoint(str(tmp_path / "foreign.safetensors"))) == sorted(arrays)


def test_inspect_prints_checkpoints_graphs_and_stablehlo(saved, tmp_path, capsys):
    assert cli(["inspect", saved[0]]) == 0
    out = capsys.readouterr().out
    assert "msx.checkpoint version 2" in out and "4 entries, 172 bytes" in out
    assert "0.weight  float32  [5, 4]  80     True" in out
    net, x = _net(0), T(np.ones((2, 4), np.float32))
    graph_file = msx.export(net, x, file_name=str(tmp_path / "g"))
    assert cli(["inspect", graph_file]) == 0
    out = capsys.readouterr().out
    assert "format version 1, written by msx" in out and "primitives: Dense, ReLU" in out
    assert "  %0 = Dense(%args.0, %0.weight, %0.bias) : f32[2,5]" in out
    assert cli(["inspect", msx.export(net, x, file_name=str(tmp_path / "g"), file_format="STABLEHLO")]) == 0
    out = capsys.readouterr().out
    assert "platforms: cpu" in out and "inputs:  float32[2,4]" in out and "stablehlo." in out
    (tmp_path / "cut.msxir").write_bytes(open(graph_file, "rb").read()[:-5])
    assert cli(["inspect", str(tmp_path / "cut.msxir")]) == 1
    assert "[load]" in capsys.readouterr().err


def test_inspect_command_line_exit_status(saved, tmp_path):
    damaged = bytearray(saved[1])
    damaged[-1] ^= 1
    (tmp_path / "bad.ckpt").write_bytes(bytes(damaged))
    proc = subprocess.run([sys.executable, "-m", "msx", "inspect", str(tmp_path / "bad.ckpt")], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "[load]" in proc.stderr and "does not match its SHA-256 checksum" in proc.stderr
    json.loads(json.dumps(proc.stderr))  # one readable message, no traceback
    assert "Traceback" not in proc.stderr


def _header(data: bytes) -> tuple[int, dict]:
    n = int.from_bytes(data[:8], "little")
    return n, json.loads(data[8:8 + n])


def _rewrite(data: bytes, edit) -> bytes:
    """`data` with its header JSON edited by `edit(header)` (same tensor bytes), re-padded like safetensors."""
    n, header = _header(data)
    edit(header)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + data[8 + n:]


def _flip_text(data: bytes, old: bytes, new: bytes) -> bytes:
    """One same-length edit inside the header (what one damaged byte or a hand edit does)."""
    n = int.from_bytes(data[:8], "little")
    assert len(old) == len(new) and data[:8 + n].count(old) == 1
    return data.replace(old, new, 1)


@pytest.mark.parametrize("old,new,error,message", [
    # the requires_grad list: a flipped byte would flip a Parameter's flag
    (b'\\"0.bias\\", \\"0.weight\\"', b'\\"0.bias\\", \\"0.weighs\\"', ChecksumError, "header .* requires_grad"),
    # the format tag: damage must not make the file look foreign (and skip every check)
    (b'"format":"msx.checkpoint"', b'"format":"msx.checkpoinu"', ChecksumError, "header"),
    (b'"format":"msx.checkpoint"', b'"formas":"msx.checkpoint"', ChecksumError, "header"),
    # a dtype: float weights must never be reinterpreted as int32
    (b'"0.weight":{"dtype":"F32"', b'"0.weight":{"dtype":"I32"', ChecksumError, "header"),
    (b'"shape":[5,4]', b'"shape":[4,5]', ChecksumError, "header"),
    (b'"format_version":"2"', b'"format_version":"1"', ChecksumError, "header"),
])
def test_every_header_field_is_inside_a_checksum(saved, tmp_path, old, new, error, message):
    damaged = _flip_text(saved[1], old, new)
    (tmp_path / "d.ckpt").write_bytes(damaged)
    with pytest.raises(error, match=message):
        msx.load_checkpoint(str(tmp_path / "d.ckpt"))


def test_a_version_1_file_with_a_header_checksum_key_is_refused(saved, tmp_path):
    """v1 (no header checksum) is still read, with its exact key set: a v2 file cannot pass as v1."""
    from msx.checkpoint import _seal

    def downgrade(header):  # checksum recomputed: only the key-set check can tell
        header["__metadata__"].update(format_version="1", header_sha256="0" * 64)

    (tmp_path / "v1.ckpt").write_bytes(_seal(_rewrite(saved[1], downgrade)))
    with pytest.raises(MalformedFileError, match="version-1 checkpoint's metadata has the keys"):
        msx.load_checkpoint(str(tmp_path / "v1.ckpt"))


def test_foreign_files_are_recognised_by_their_tag_and_unknown_tags_refused(saved, tmp_path):
    arrays = safetensors.numpy.load_file(saved[0])
    for tag in ("pt", "np", "flax"):
        safetensors.numpy.save_file(arrays, str(tmp_path / f"{tag}.safetensors"), metadata={"format": tag})
        loaded = msx.load_checkpoint(str(tmp_path / f"{tag}.safetensors"))
        assert sorted(loaded) == sorted(arrays)
        np.testing.assert_array_equal(loaded["0.weight"].asnumpy(), arrays["0.weight"])
    safetensors.numpy.save_file(arrays, str(tmp_path / "odd.safetensors"), metadata={"format": "msx.checkpoint2"})
    with pytest.raises(BadMagicError, match="unknown safetensors format tag 'msx.checkpoint2'"):
        msx.load_checkpoint(str(tmp_path / "odd.safetensors"))
    safetensors.numpy.save_file(arrays, str(tmp_path / "part.safetensors"), metadata={"sha256": "{}"})
    with pytest.raises(MalformedFileError, match="carries msx checkpoint metadata .* but its format tag is None"):
        msx.load_checkpoint(str(tmp_path / "part.safetensors"))


def test_dtype_and_byte_length_must_agree(saved, tmp_path):
    from msx import tensorfile

    def widen(header):
        header["0.bias"]["dtype"] = "F64"  # 5 float64 need 40 bytes; the offsets give 20

    with pytest.raises(MalformedFileError, match="not a valid safetensors blob|needs 40 bytes"):
        tensorfile.parse(_rewrite(saved[1], widen), "blob")


def test_non_regular_files_and_oversized_headers_are_refused_before_reading(saved, tmp_path):
    with pytest.raises(msx.errors.LoadError, match="/dev/zero is not a regular file .*character device"):
        msx.load_checkpoint("/dev/zero")
    huge = (10 ** 12).to_bytes(8, "little") + b'{"a":1}'
    (tmp_path / "huge.ckpt").write_bytes(huge)
    with pytest.raises(TruncatedFileError, match="header says 1000000000000 header bytes, the file has 15"):
        msx.load_checkpoint(str(tmp_path / "huge.ckpt"))
