"""MindSpore's checkpoint formats (protobuf `.ckpt`, safetensors tagged `ms`) read and written by msx.

The references are files MindSpore 2.10 saved and the values MindSpore read back from them
(tests/golden/ms_ckpt_*, made by tests/golden/make_ms_ckpt.py), MindSpore's own `load_param_into_net`
lists and eval output, and, with MSX_MINDSPORE_PYTHON set, MindSpore loading files msx saved.
"""
import json
import os
import subprocess
import sys
import warnings
import zlib

import ml_dtypes
import numpy as np
import pytest

import msx
from msx import nn
from msx.errors import ChecksumError, CheckpointError, LoadError, MalformedFileError, TruncatedFileError

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden"))
from ms_ckpt_net import define  # noqa: E402

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
VALUES = dict(np.load(os.path.join(GOLDEN, "ms_ckpt_values.npz")))
FILES = {"cnn_momentum": "ms_ckpt_cnn_momentum.ckpt", "cnn_adam_crc": "ms_ckpt_cnn_adam_crc.ckpt",
         "cnn_adam_safetensors": "ms_ckpt_cnn_adam.safetensors",
         "cnn_adam_crc_safetensors": "ms_ckpt_cnn_adam_crc.safetensors",
         "dtypes": "ms_ckpt_dtypes.ckpt", "dtypes_safetensors": "ms_ckpt_dtypes.safetensors"}


def golden(name: str) -> str:
    return os.path.join(GOLDEN, FILES[name])


def expected(name: str) -> dict:
    """MindSpore's {entry: value} of a golden file, in MindSpore's order (bfloat16 as its uint16 bits)."""
    return {k.split("|", 1)[1]: v for k, v in VALUES.items() if k.split("|", 1)[0] == name}


def bits(value):
    """A loaded entry as comparable numpy (bfloat16 as its raw uint16 bits), or the str itself."""
    if isinstance(value, str):
        return value
    a = value.asnumpy()
    return a.view(np.uint16) if a.dtype == ml_dtypes.bfloat16 else a


SmallCNN = define(nn)  # the network of make_ms_ckpt.py, in msx


# ---------------------------------------------------------------- files MindSpore saved
@pytest.mark.parametrize("name", sorted(FILES))
def test_files_mindspore_saved_load_with_mindspores_values(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to warn about without crc_check
        params = msx.load_checkpoint(golden(name), format="safetensors" if "safetensors" in name else "ckpt")
    want = expected(name)
    assert list(params) == list(want)  # MindSpore's order: file order for .ckpt, sorted names for safetensors
    for key, value in want.items():
        got = bits(params[key])
        if value.dtype.kind == "U":
            assert got == str(value), key
        else:
            assert isinstance(params[key], msx.Parameter) and params[key].name == key and params[key].requires_grad
            assert got.dtype == value.dtype and got.shape == value.shape and got.tobytes() == value.tobytes(), key


@pytest.mark.parametrize("name", ["cnn_momentum", "cnn_adam_crc", "dtypes", "cnn_adam_crc_safetensors"])
def test_inspect_prints_a_mindspore_checkpoints_tensors(name, capsys):
    """`python -m msx inspect` on MindSpore's files (protobuf, which MindIR also is, and safetensors): each entry's
    name, dtype, shape and bytes in MindSpore's order (the golden values), and whether the CRC is there."""
    from msx.__main__ import main as cli

    assert cli(["inspect", golden(name)]) == 0
    lines = capsys.readouterr().out.splitlines()
    kind = "safetensors (tagged 'ms')" if "safetensors" in name else "protobuf .ckpt"
    crc = "valid" if "crc" in name else "none (saved without crc_check)"
    assert lines[0] == f"MindSpore checkpoint {golden(name)} ({kind}; CRC-32: {crc})"
    want = expected(name)
    rows = [line.split() for line in lines[5:]]
    assert [r[0] for r in rows] == list(want)
    for row, (key, value) in zip(rows, want.items()):
        if value.dtype.kind == "U":
            assert row[1] == "str" and " ".join(row[2:-1]) == repr(str(value)), key
            continue
        dtype = "bfloat16" if key.endswith("bf16") else value.dtype.name
        assert row[1] == dtype and json.loads(" ".join(row[2:-2])) == list(value.shape), key
        assert int(row[-2]) == value.nbytes and row[-1] == "-", key
    assert lines[1] == f"{len(want)} entries, {sum(len(str(v)) if v.dtype.kind == 'U' else v.nbytes for v in want.values())} bytes"


def test_inspect_reports_a_damaged_mindspore_checkpoint(tmp_path, capsys):
    from msx.__main__ import main as cli

    data = bytearray(open(golden("cnn_adam_crc"), "rb").read())
    data[100] ^= 1
    (tmp_path / "bad.ckpt").write_bytes(bytes(data))
    assert cli(["inspect", str(tmp_path / "bad.ckpt")]) == 1
    assert "does not match its CRC-32" in capsys.readouterr().err


def test_every_dtype_and_scalar_mindspore_wrote():
    params = msx.load_checkpoint(golden("dtypes"))
    got = {k: (str(v.dtype), v.shape) for k, v in params.items() if not isinstance(v, str)}
    assert got == {"t_bf16": ("BFloat16", (2, 3)), "t_f16": ("Float16", (2, 3)), "t_f32": ("Float32", (2, 3)),
                   "t_f64": ("Float64", (2, 3)), "t_i8": ("Int8", (2, 3)), "t_i16": ("Int16", (2, 3)),
                   "t_i32": ("Int32", (2, 3)), "t_i64": ("Int64", (2, 3)), "t_u8": ("UInt8", (2, 3)),
                   "t_b": ("Bool", (2, 3)), "scalar_f32": ("Float32", ()), "step": ("Int64", ())}
    assert params["name"] == "dtype zoo" and int(params["step"].asnumpy()) == 7


def test_load_param_into_net_matches_mindspore_and_the_loaded_net_computes_mindspores_output():
    net = SmallCNN()
    not_loaded, unused = msx.load_param_into_net(net, msx.load_checkpoint(golden("cnn_momentum")))
    assert not_loaded == list(VALUES["load_param_into_net|param_not_load"])
    assert unused == list(VALUES["load_param_into_net|ckpt_not_load"])
    net.set_train(False)  # BatchNorm normalises with the moving stats MindSpore saved
    np.testing.assert_allclose(net(msx.Tensor(VALUES["eval|x"])).asnumpy(), VALUES["eval|y"], rtol=1e-5, atol=1e-6)


def test_mindspore_optimizer_state_loads_into_msx_optimizers():
    for name, make, state in [("cnn_momentum", lambda p: nn.Momentum(p, learning_rate=0.5, momentum=0.9), "moments"),
                              ("cnn_adam_safetensors", lambda p: nn.Adam(p, learning_rate=0.5), "moment2")]:
        net = SmallCNN()
        opt = make(net.trainable_params())
        params = msx.load_checkpoint(golden(name))
        not_loaded, _ = msx.load_param_into_net(opt, params)
        assert not_loaded == [], name
        assert float(opt.learning_rate.asnumpy()) == float(params["learning_rate"].asnumpy())
        mine = {p.name: p for p in opt.get_parameters()}
        for key in (f"{state}.conv.weight", f"{state}.fc.bias", "global_step"):
            np.testing.assert_array_equal(mine[key].asnumpy(), params[key].asnumpy())


def test_load_checkpoint_into_net_and_strict_load():
    net = SmallCNN()
    params = msx.load_checkpoint(golden("cnn_adam_safetensors"), net=net)
    np.testing.assert_array_equal(net.bn.moving_variance.asnumpy(), params["bn.moving_variance"].asnumpy())
    renamed = {"backbone." + k: v for k, v in params.items()}
    assert msx.load_param_into_net(SmallCNN(), renamed, strict_load=True)[0] == [p.name for p in
                                                                                 net.get_parameters()]
    assert msx.load_param_into_net(SmallCNN(), renamed)[0] == []  # non-strict: matched by suffix
    with pytest.raises(CheckpointError, match="remove_redundancy"):
        msx.load_param_into_net(net, params, remove_redundancy=True)


def test_prefix_filters_as_mindspore():
    got = msx.load_checkpoint(golden("cnn_momentum"), specify_prefix=["bn.", "fc."], filter_prefix="fc.bias")
    assert list(got) == list(VALUES["prefix|names"])
    with pytest.raises(TypeError, match="filter_prefix"):
        msx.load_checkpoint(golden("cnn_momentum"), filter_prefix=3)
    with pytest.raises(ValueError, match="specify_prefix"):
        msx.load_checkpoint(golden("cnn_momentum"), specify_prefix=["bn.", ""])
    with pytest.raises(CheckpointError, match="nothing .* is left"):
        msx.load_checkpoint(golden("cnn_momentum"), choice_func=lambda name: False)


# ---------------------------------------------------------------- msx writes what MindSpore writes
def _resave(name: str, tmp_path, fmt: str, appended: tuple = (), **kw) -> bytes:
    """Save what msx loaded from a golden file again: the entries of `appended` (and strings) via append_dict."""
    params = msx.load_checkpoint(golden(name))
    path = str(tmp_path / f"again.{fmt}")
    extra = {k: v if isinstance(v, str) else v.asnumpy().item() for k, v in params.items()
             if isinstance(v, str) or k in appended}
    msx.save_checkpoint({k: v for k, v in params.items() if k not in extra}, path, format=fmt,
                        append_dict=extra or None, **kw)
    return open(path, "rb").read()


@pytest.mark.parametrize("name,fmt,crc", [("dtypes", "ckpt", False), ("cnn_momentum", "ckpt", False),
                                          ("cnn_adam_crc", "ckpt", True),
                                          ("cnn_adam_crc_safetensors", "safetensors", True),
                                          ("dtypes_safetensors", "safetensors", False)])
def test_resaving_a_mindspore_file_gives_mindspores_bytes(name, fmt, crc, tmp_path):
    """The strongest check of the writer: the same entries give the same bytes (the CRC trailer included; for
    safetensors the same header, whose metadata the safetensors library writes in hash order, and the same data).
    cnn_momentum's append_dict mixes numbers, a string and a bool: saved in MindSpore's order."""
    appended = ("epoch_num", "lr", "tag", "done") if name == "cnn_momentum" else ("step",)
    ours, theirs = _resave(name, tmp_path, fmt, appended, crc_check=crc), open(golden(name), "rb").read()
    if fmt == "ckpt":
        assert ours == theirs
    else:
        split = [(json.loads(b[8:8 + int.from_bytes(b[:8], "little")]), b[8 + int.from_bytes(b[:8], "little"):])
                 for b in (ours, theirs)]
        assert split[0] == split[1]


def test_conversions_write_mindspores_formats(tmp_path):
    msx.ckpt_to_safetensors(golden("cnn_momentum"), str(tmp_path), name_map={"fc.bias": "head.bias"})
    blob = open(tmp_path / "ms_ckpt_cnn_momentum.safetensors", "rb").read()
    assert b'"format":"ms"' in blob
    converted = msx.load_checkpoint(str(tmp_path / "ms_ckpt_cnn_momentum.safetensors"))
    want = expected("cnn_momentum")
    assert sorted(converted) == sorted({"head.bias" if k == "fc.bias" else k for k in want if k != "tag"})
    np.testing.assert_array_equal(converted["head.bias"].asnumpy(), want["fc.bias"])
    msx.safetensors_to_ckpt(str(tmp_path / "ms_ckpt_cnn_momentum.safetensors"), str(tmp_path / "back"))
    back = open(tmp_path / "back" / "ms_ckpt_cnn_momentum.ckpt", "rb").read()
    assert back[:1] == b"\x0a" and msx.load_checkpoint(str(tmp_path / "back" / "ms_ckpt_cnn_momentum.ckpt"))


def test_crc_trailer_is_crc32_of_the_records_in_10_big_endian_bytes():
    blob = open(golden("cnn_adam_crc"), "rb").read()
    assert blob[-17:-10] == b"crc_num" and int.from_bytes(blob[-10:], "big") == zlib.crc32(blob[:-17])


@pytest.fixture(scope="module")
def zoo():
    rs = np.random.RandomState(0)
    arrays = {"bf16": rs.randn(3, 2).astype(ml_dtypes.bfloat16), "f16": rs.randn(4).astype(np.float16),
              "f32": rs.randn(2, 2, 2).astype(np.float32), "f64": rs.randn(2).astype(np.float64),
              "i8": np.array([-128, 0, 127], np.int8), "i16": np.array([-3, 4], np.int16),
              "i32": np.arange(6, dtype=np.int32).reshape(2, 3), "i64": np.array([2 ** 40], np.int64),
              "u8": np.array([0, 255], np.uint8), "b": np.array([True, False]), "scalar": np.float32(2.5),
              "empty": np.zeros((0, 3), np.float32)}
    return {k: msx.Tensor(v) for k, v in arrays.items()}


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors", "msx"])
def test_round_trip_every_dtype_scalar_string_and_empty(zoo, fmt, tmp_path):
    texts = {"note": "héllo ✓"} if fmt != "safetensors" else {}
    msx.save_checkpoint(zoo, str(tmp_path / "z"), format=fmt, append_dict={"epoch": 3, "lr": 0.5, **texts},
                        crc_check=fmt != "msx")
    path = str(tmp_path / ("z." + fmt if fmt != "msx" else "z.ckpt"))
    back = msx.load_checkpoint(path, crc_check=True)
    for k, v in zoo.items():
        assert str(back[k].dtype) == str(v.dtype) and bits(back[k]).tobytes() == bits(v).tobytes(), k
        assert back[k].shape == v.shape, k
    assert int(back["epoch"].asnumpy()) == 3 and str(back["epoch"].dtype) == "Int64"
    assert str(back["lr"].dtype) == "Float32" and float(back["lr"].asnumpy()) == 0.5
    assert {k: back[k] for k in texts} == texts


def test_save_arguments(zoo, tmp_path):
    net = SmallCNN()
    msx.save_checkpoint(net, str(tmp_path / "a"), format="ckpt", choice_func=lambda n: n.startswith("bn."),
                        append_dict={"epoch": 1, "s": "x"})  # MindSpore keeps append_dict: [..., 'epoch', 's']
    assert list(msx.load_checkpoint(str(tmp_path / "a.ckpt"))) == ["bn.moving_mean", "bn.moving_variance",  # as
                                                                  "bn.gamma", "bn.beta", "epoch", "s"]  # MindSpore
    msx.save_checkpoint(net, str(tmp_path / "b.safetensors"), format="safetensors", remove_redundancy=False)
    assert b'"remove_redundancy":"False"' in open(tmp_path / "b.safetensors", "rb").read()
    for bad, err in [(dict(enc_key=b"0" * 16), "enc_key"), (dict(format="onnx"), "format"),
                     (dict(async_save="fork"), "async_save"), (dict(bogus=1), "bogus"),
                     (dict(incremental=True), "incremental"), (dict(remove_redundancy=True), "remove_redundancy")]:
        with pytest.raises((CheckpointError, TypeError, ValueError), match=err):
            msx.save_checkpoint(net, str(tmp_path / "c"), format=bad.pop("format", "ckpt"), **bad)
    with pytest.raises(CheckpointError, match="cannot be stored in format='safetensors'"):
        msx.save_checkpoint(net, str(tmp_path / "d"), format="safetensors", append_dict={"s": "text"})
    with pytest.raises(CheckpointError, match="cannot store"):
        msx.save_checkpoint({"c": msx.Tensor(np.ones(2, np.complex64))}, str(tmp_path / "e"), format="ckpt")
    with pytest.raises(CheckpointError, match="dec_key"):
        msx.load_checkpoint(golden("dtypes"), dec_key=b"0" * 16)
    with pytest.raises(ValueError, match="format"):
        msx.load_checkpoint(golden("dtypes"), format="mindir")
    with pytest.raises(CheckpointError, match="does not exist"):
        msx.load_checkpoint(str(tmp_path / "nothing.ckpt"))
    with pytest.warns(UserWarning, match="has no CRC"):
        msx.load_checkpoint(golden("dtypes"), crc_check=True)
    assert not os.path.exists(tmp_path / "c.ckpt")


def test_async_save_writes_the_values_of_the_call(tmp_path):
    from msx.train import async_ckpt_thread_status

    net = SmallCNN()
    before = net.fc.bias.asnumpy().copy()
    msx.save_checkpoint(net, str(tmp_path / "async"), async_save=True, format="ckpt")
    net.fc.bias.set_data(msx.Tensor(before + 1))  # a later step: the file keeps the values of the call
    msx.save_checkpoint(net, str(tmp_path / "async2"), async_save="thread", format="ckpt")  # waits for the first
    msx.checkpoint.wait_async_save()
    assert async_ckpt_thread_status() is False
    np.testing.assert_array_equal(msx.load_checkpoint(str(tmp_path / "async.ckpt"))["fc.bias"].asnumpy(), before)
    np.testing.assert_array_equal(msx.load_checkpoint(str(tmp_path / "async2.ckpt"))["fc.bias"].asnumpy(), before + 1)
    with pytest.warns(RuntimeWarning, match="failed"):  # said when it happens, raised at the next save or wait
        msx.save_checkpoint(net, str(tmp_path / "missing" / "x"), async_save=True, format="ckpt")
        with pytest.raises(CheckpointError, match="asynchronous checkpoint write failed"):
            msx.checkpoint.wait_async_save()


# ---------------------------------------------------------------- untrusted input
def _record(tag: bytes, dims: list, kind: bytes, content: bytes, extra: bytes = b"") -> bytes:
    """A hand-made protobuf record (Checkpoint.value), to build files MindSpore would not write."""
    from msx.ms_checkpoint import _varint

    tensor = b"".join(b"\x08" + _varint(d & (2 ** 64 - 1)) for d in dims) + b"\x12" + _varint(len(kind)) + kind + \
        b"\x1a" + _varint(len(content)) + content
    value = b"\x0a" + _varint(len(tag)) + tag + b"\x12" + _varint(len(tensor)) + tensor + extra
    return b"\x0a" + _varint(len(value)) + value


@pytest.mark.parametrize("blob,error,match", [
    (_record(b"w", [2, 2], b"Float32", b"\0" * 12), MalformedFileError, "has 12 bytes, but Float32.2, 2. needs 16"),
    (_record(b"w", [2 ** 40, 2 ** 40], b"Float32", b"\0" * 4), MalformedFileError, "needs"),
    (_record(b"w", [-1, 2], b"Float32", b""), MalformedFileError, "negative"),
    (_record(b"w", [1] * 40, b"Float32", b"\0" * 4), MalformedFileError, "rank"),
    (_record(b"w", [2], b"Int4", b"\0"), MalformedFileError, "qint4x2"),
    (_record(b"w", [2], b"Complex64", b"\0" * 16), MalformedFileError, "Complex64"),
    (_record(b"w", [2], b"Bool", b"\x00\x07"), MalformedFileError, "0 and 1"),
    (_record(b"s", [0], b"str", b"abc"), MalformedFileError, "multiple of 4"),
    (_record(b"s", [0], b"str", b"\xff\xff\xff\xff"), MalformedFileError, "UTF-32"),
    (_record(b"", [1], b"Float32", b"\0" * 4), MalformedFileError, "empty tag"),
    (_record(b"\xc3", [1], b"Float32", b"\0" * 4), MalformedFileError, "non-UTF-8 tag"),
    (_record(b"w", [1], b"Float\xff", b"\0" * 4), MalformedFileError, "tensor_type is not UTF-8"),
    (b"\x0a\x05\x0a\x01w\x12\x00", MalformedFileError, "tensor_type '' is not one msx reads"),
    (_record(b"w", [1], b"Float32", b"\0" * 4) * 2, MalformedFileError, "Float32.1. needs 4"),
    (_record(b"w", [1], b"Float32", b"\0" * 4) + _record(b"v", [1], b"Float32", b"\0" * 4)
     + _record(b"w", [1], b"Float32", b"\0" * 4), MalformedFileError, "appears twice"),
    (_record(b"w", [2], b"Float32", b"\0" * 4) + _record(b"w", [3], b"Float32", b"\0" * 4), MalformedFileError,
     "slice at byte"),
    (b"\x0a\x02\xff\xff", MalformedFileError, "not a valid checkpoint Value"),
    (b"\x0a\x05\x0a\x01w", TruncatedFileError, "needs 5 bytes, 3 follow"),
    (b"\x0a\x7f\x0a\x01w", TruncatedFileError, "needs 127 bytes"),
    (b"\x0a\x03\x0a\x01w", MalformedFileError, "has no tensor"),
    (b"\x0a\x05\x0a\x01w\x1a\x00", MalformedFileError, "MapParameter"),
    (_record(b"w", [1], b"Float32", b"\0" * 4) + b"\x12\x00", MalformedFileError, "byte 24 is 0x12"),
    (_record(b"w", [1], b"Float32", b"\0" * 4) + b"crc_num" + (1).to_bytes(10, "big"), ChecksumError, "CRC-32"),
])
def test_malformed_protobuf_checkpoints_are_refused_by_field(blob, error, match, tmp_path):
    path = tmp_path / "bad.ckpt"
    path.write_bytes(blob)
    with pytest.raises(error, match=match) as info:
        msx.load_checkpoint(str(path))
    assert str(path) in str(info.value)


def test_split_records_join_and_dims_zero_is_a_scalar(tmp_path):
    """MindSpore writes an entry above 512 MiB as several records with the full dims; dims [0] with one element
    is MindSpore's scalar."""
    data = np.arange(6, dtype=np.float32).tobytes()
    path = tmp_path / "split.ckpt"
    path.write_bytes(_record(b"w", [2, 3], b"Float32", data[:8]) + _record(b"w", [2, 3], b"Float32", data[8:])
                     + _record(b"s", [0], b"Int32", b"\x07\0\0\0"))
    got = msx.load_checkpoint(str(path))
    np.testing.assert_array_equal(got["w"].asnumpy(), np.arange(6, dtype=np.float32).reshape(2, 3))
    assert got["s"].shape == () and int(got["s"].asnumpy()) == 7


def test_a_file_larger_than_free_memory_is_refused_before_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "sysconf", lambda name: {"SC_AVPHYS_PAGES": 2, "SC_PAGE_SIZE": 100}[name])
    with pytest.raises(MalformedFileError, match="more than the 200 bytes of free memory"):
        msx.load_checkpoint(golden("dtypes"))


def test_large_entries_are_written_in_slices_and_joined(zoo, tmp_path, monkeypatch):
    from msx import ms_checkpoint

    monkeypatch.setattr(ms_checkpoint, "SLICE_BYTES", 5)  # MindSpore: 512 MiB; here every entry is split
    msx.save_checkpoint(zoo, str(tmp_path / "sliced"), format="ckpt", crc_check=True)
    blob = open(tmp_path / "sliced.ckpt", "rb").read()
    float32 = [v.asnumpy().nbytes for v in zoo.values() if str(v.dtype) == "Float32"]  # f32, scalar, empty
    assert blob.count(b"\x12\x07Float32") == sum(max(1, -(-n // 5)) for n in float32) == 7 + 1 + 1
    back = msx.load_checkpoint(str(tmp_path / "sliced.ckpt"))
    for k, v in zoo.items():
        assert bits(back[k]).tobytes() == bits(v).tobytes() and back[k].shape == v.shape, k


def test_mindspore_safetensors_metadata_is_validated(tmp_path):
    from msx import tensorfile

    def write(metadata):
        (tmp_path / "m.safetensors").write_bytes(tensorfile.dump({"w": np.ones(2, np.float32)}, metadata))
        return str(tmp_path / "m.safetensors")

    for metadata, match in [({"format": "ms", "extra": "1"}, "unknown metadata key 'extra'"),
                            ({"format": "ms", "crc_num": "x"}, "crc_num"),
                            ({"format": "ms", "remove_redundancy": "yes"}, "remove_redundancy"),
                            ({"format": "ms", "w": "Int4"}, "qint4x2")]:
        with pytest.raises(MalformedFileError, match=match):
            msx.load_checkpoint(write(metadata))
    with pytest.raises(ChecksumError, match="crc_num"):
        msx.load_checkpoint(write({"format": "ms", "crc_num": "12345"}))


def _fingerprint(path: str):
    return [(k, v) if isinstance(v, str) else (k, str(v.dtype), v.shape, bits(v).tobytes())
            for k, v in msx.load_checkpoint(path).items()]


@pytest.fixture(scope="module")
def small_files(tmp_path_factory):
    """A small msx-written .ckpt with a CRC (every flip must be refused), one without, and a safetensors one."""
    folder = tmp_path_factory.mktemp("fuzz")
    entries = {"w": msx.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), "b": msx.Tensor(np.ones(2, np.int8))}
    out = {}
    for name, fmt, crc in [("crc", "ckpt", True), ("plain", "ckpt", False), ("st", "safetensors", True)]:
        path = str(folder / f"{name}.{fmt}")
        msx.save_checkpoint(entries, path, format=fmt, crc_check=crc, append_dict={"n": "x"} if fmt == "ckpt" else None)
        out[name] = path
    return out


@pytest.mark.parametrize("name", ["crc", "plain", "st"])
def test_every_flip_and_truncation_is_refused_or_loads(small_files, name, tmp_path):
    """Every byte flipped (all 8 bits, then each single bit of every 3rd byte) and every truncation: a LoadError
    or a load; with a CRC every flip is refused, and a cut loads at most a prefix of the entries (a .ckpt cut at a
    record boundary is a valid shorter file: MindSpore's CRC trailer is optional). Nothing else escapes."""
    src = small_files[name]
    blob = open(src, "rb").read()
    reference = _fingerprint(src)
    cases = [blob[:n] for n in range(len(blob))]
    cuts = len(cases)
    for i in range(len(blob)):
        for mask in (0xFF,) + ((1, 2, 4, 8, 16, 32, 64, 128) if i % 3 == 0 else ()):
            damaged = bytearray(blob)
            damaged[i] ^= mask
            cases.append(bytes(damaged))
    path = str(tmp_path / os.path.basename(src))
    outcomes = {"refused": 0, "loaded": 0}
    for index, case in enumerate(cases):
        with open(path, "wb") as f:
            f.write(case)
        try:
            got = _fingerprint(path)
        except LoadError:
            outcomes["refused"] += 1
            continue
        except Exception as exc:  # noqa: BLE001 - the point of the test
            pytest.fail(f"{type(exc).__name__} escaped for a damaged {name} file: {exc}")
        outcomes["loaded"] += 1
        assert all(isinstance(entry[0], str) for entry in got), "an entry name that is not text"
        if index < cuts:
            assert name != "st" and got == reference[:len(got)], "a cut file loaded other contents than a prefix"
        else:
            assert name == "plain" or got == reference, "a file with a CRC loaded damaged contents"
    assert outcomes["refused"] > len(blob), outcomes


def test_writes_are_atomic(tmp_path, monkeypatch):
    from msx import ms_checkpoint

    path = str(tmp_path / "keep.ckpt")
    msx.save_checkpoint({"w": msx.Tensor(np.ones(2, np.float32))}, path, format="ckpt")
    old = open(path, "rb").read()

    def broken(name, value):
        yield b"\x0a"
        raise OSError("disk full")

    monkeypatch.setattr(ms_checkpoint, "_records", lambda Value, name, value: broken(name, value))
    with pytest.raises(OSError, match="disk full"):
        msx.save_checkpoint({"w": msx.Tensor(np.zeros(2, np.float32))}, path, format="ckpt")
    assert open(path, "rb").read() == old and os.listdir(tmp_path) == ["keep.ckpt"]


# ---------------------------------------------------------------- MindSpore loads what msx saved (live)
MS_PYTHON = os.environ.get("MSX_MINDSPORE_PYTHON")
_LOADER = r"""
import json, sys
import numpy as np
import mindspore as ms
from mindspore import nn


sys.path.insert(0, sys.argv[2])
from ms_ckpt_net import define
SmallCNN = define(nn)
out = {}
for path in json.loads(sys.argv[1]):
    fmt = "safetensors" if path.endswith(".safetensors") else "ckpt"
    d = ms.load_checkpoint(path, format=fmt, crc_check=path.endswith(("crc.ckpt", "crc.safetensors", "sliced.ckpt")))  # (MindSpore's safetensors CRC fails on bf16)
    out[path] = {k: ["str", v] if isinstance(v, str) else
                 [str(v.dtype), list(v.shape), (v.view(ms.uint16) if v.dtype == ms.bfloat16 else v).asnumpy().tobytes().hex()]
                 for k, v in d.items()}
    if "/cnn." in path:  # into MindSpore's own network and optimizer, then its eval output
        net = SmallCNN()
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.5, momentum=0.5)
        out[path + "|net"] = ms.load_param_into_net(net, d)
        out[path + "|opt"] = ms.load_param_into_net(opt, d)
        net.set_train(False)
        x = np.arange(50, dtype=np.float32).reshape(2, 1, 5, 5) / 50
        out[path + "|y"] = net(ms.Tensor(x)).asnumpy().tolist()
        out[path + "|lr"] = float(opt.learning_rate.asnumpy())
print("RESULT" + json.dumps(out))
"""


@pytest.mark.skipif(not MS_PYTHON, reason="set MSX_MINDSPORE_PYTHON to a Python with MindSpore 2.10 to run the "
                                          "live oracle (MindSpore loading msx-saved checkpoints)")
def test_mindspore_loads_what_msx_saved(zoo, tmp_path, monkeypatch):
    msx.set_seed(0)
    net = SmallCNN()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    paths = []
    for name, obj, kw in [("cnn", [net, opt], dict(append_dict={"epoch_num": 2, "tag": "msx"})),
                          ("cnn_crc", net, dict(crc_check=True)),
                          ("zoo", {k: v for k, v in zoo.items() if k != "empty"}, dict(append_dict={"s": "héllo"})),
                          ("empty", {"empty": zoo["empty"], "x": zoo["f32"]}, {})]:
        for fmt in ("ckpt", "safetensors"):
            if fmt == "safetensors" and "append_dict" in kw:
                kw = dict(append_dict={k: v for k, v in kw["append_dict"].items() if not isinstance(v, str)})
            path = str(tmp_path / f"{name}.{fmt}")
            msx.save_checkpoint(obj, path, format=fmt, **kw)
            paths.append(path)
    from msx import ms_checkpoint

    monkeypatch.setattr(ms_checkpoint, "SLICE_BYTES", 16)  # entries in several records, as MindSpore's > 512 MiB
    paths.append(str(tmp_path / "sliced.ckpt"))
    msx.save_checkpoint({k: v for k, v in zoo.items() if k != "empty"}, paths[-1], format="ckpt", crc_check=True)
    run = subprocess.run([MS_PYTHON, "-c", _LOADER, json.dumps(paths), GOLDEN], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    theirs = json.loads(run.stdout.split("RESULT", 1)[1])
    for fmt in ("ckpt", "safetensors"):
        cnn = str(tmp_path / f"cnn.{fmt}")
        assert theirs[cnn + "|net"] == [[], [k for k in msx.load_checkpoint(cnn) if not k.startswith(
            ("conv.", "bn.", "fc."))]]
        assert theirs[cnn + "|opt"][0] == ["momentum"]  # msx's Momentum keeps momentum as a float, not a Parameter
        assert theirs[cnn + "|lr"] == pytest.approx(0.1)
        net.set_train(False)
        x = np.arange(50, dtype=np.float32).reshape(2, 1, 5, 5) / 50
        np.testing.assert_allclose(theirs[cnn + "|y"], net(msx.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-6)
    for path in paths:
        ours = msx.load_checkpoint(path)
        assert list(theirs[path]) == list(ours), path
        for k, v in ours.items():
            if isinstance(v, str):
                assert theirs[path][k] == ["str", v]
            else:
                assert theirs[path][k] == [str(v.dtype), list(v.shape), bits(v).tobytes().hex()], (path, k)

