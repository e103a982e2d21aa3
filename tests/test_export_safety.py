"""Loading untrusted MSXIR files: every defect is refused with the msx error that names it, nothing from the
file runs, a fuzzer finds nothing else, and an interrupted save leaves the previous file intact."""
import hashlib
import json
import os
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import msx
from msx import atomic, nn
from msx.errors import (BadMagicError, ChecksumError, FormatVersionError, LoadError, MalformedFileError,
                        TruncatedFileError, UnknownPrimitiveError)
from msx.export import FORMAT_VERSION, HEADER, MAGIC, read_container

FUZZ = settings(max_examples=50, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def valid(tmp_path_factory):
    """(path, bytes) of a small valid MSXIR file."""
    msx.set_seed(0)
    net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    path = msx.export(net, msx.Tensor(np.ones((1, 3), np.float32)), file_name=str(tmp_path_factory.mktemp("v") / "m"))
    with open(path, "rb") as f:
        return path, f.read()


def _write(tmp_path, data: bytes, name="f.msxir") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def _pack(manifest: dict, parts: dict[str, bytes], version: int = FORMAT_VERSION) -> bytes:
    """An MSXIR container with correct lengths and checksums around whatever `parts` hold."""
    offset, blobs = 0, []
    for entry in manifest["parts"]:
        blob = parts[entry["name"]]
        entry.update(offset=offset, length=len(blob), sha256=hashlib.sha256(blob).hexdigest())
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(manifest).encode()
    return HEADER.pack(MAGIC, version, len(text), hashlib.sha256(text).digest()) + text + b"".join(blobs)


def _unpack(path: str) -> tuple[dict, dict]:
    manifest, parts = read_container(path)
    return manifest, dict(parts)


def test_the_valid_file_loads(valid):
    assert msx.load(valid[0]).primitives_used() == {"Dense", "ReLU"}


@pytest.mark.parametrize("cut", [0, 3, 8, HEADER.size - 1, HEADER.size + 10, -300, -1])
def test_a_truncated_file_is_refused_as_truncated(valid, tmp_path, cut):
    data = valid[1][:cut]
    with pytest.raises(TruncatedFileError, match="truncated|empty"):
        msx.load(_write(tmp_path, data))


def test_bit_flips_are_refused_by_the_check_that_catches_them(valid, tmp_path):
    manifest, _ = read_container(valid[0])
    start = HEADER.size + len(json.dumps(manifest, indent=1).encode())
    graph, weights = manifest["parts"][0], manifest["parts"][1]
    cases = [(0, BadMagicError, "not an MSXIR file"),
             (HEADER.size + 5, ChecksumError, "the manifest does not match"),
             (start + graph["offset"] + 10, ChecksumError, "part 'graph'"),
             (start + weights["offset"] + weights["length"] - 1, ChecksumError, "part 'weights'")]
    for position, error, message in cases:
        data = bytearray(valid[1])
        data[position] ^= 0x04
        with pytest.raises(error, match=message):
            msx.load(_write(tmp_path, bytes(data)))


@pytest.mark.parametrize("version,message", [(FORMAT_VERSION + 1, "format version 2; .* reads versions 1 to 1; "
                                                                  "upgrade msx"), (0, "format version 0")])
def test_a_file_of_another_format_version_is_refused(valid, tmp_path, version, message):
    data = bytearray(valid[1])
    data[8:12] = version.to_bytes(4, "little")
    with pytest.raises(FormatVersionError, match=message):
        msx.load(_write(tmp_path, bytes(data)))


class _Payload:
    """Unpickling this creates a file: the proof that something from the file ran."""

    def __init__(self, sentinel):
        self.sentinel = sentinel

    def __reduce__(self):
        return (open, (self.sentinel, "w"))


def test_pickle_payloads_are_refused_and_never_run(valid, tmp_path, monkeypatch):
    sentinel = str(tmp_path / "pwned")
    payload = pickle.dumps(_Payload(sentinel))
    assert not os.path.exists(sentinel)
    monkeypatch.setattr(pickle, "loads", lambda *a, **k: pytest.fail("pickle.loads called"))
    monkeypatch.setattr(pickle, "load", lambda *a, **k: pytest.fail("pickle.load called"))
    with pytest.raises(BadMagicError, match="looks like a Python pickle; msx never unpickles"):
        msx.load(_write(tmp_path, payload))
    with pytest.raises(BadMagicError, match="looks like a Python pickle"):
        msx.load_checkpoint(_write(tmp_path, payload, "p.ckpt"))
    manifest, parts = _unpack(valid[0])
    for part in ("graph", "weights", "constants"):  # a pickle inside a container whose checksums are right
        with pytest.raises(MalformedFileError, match=f"part '{part}'"):
            msx.load(_write(tmp_path, _pack(json.loads(json.dumps(manifest)), {**parts, part: payload})))
    assert not os.path.exists(sentinel)


def _edit_graph(valid, edit) -> bytes:
    manifest, parts = _unpack(valid[0])
    data = json.loads(parts["graph"])
    edit(data, manifest)
    return _pack(manifest, {**parts, "graph": json.dumps(data).encode()})


def test_unknown_primitives_are_refused_by_name(valid, tmp_path):
    def rename(data, manifest):
        data["nodes"][1]["op"] = "RunShellCommand"
        manifest["primitives"] = ["Dense", "RunShellCommand"]

    with pytest.raises(UnknownPrimitiveError, match=r"uses primitive\(s\) \['RunShellCommand'\], which this msx"):
        msx.load(_write(tmp_path, _edit_graph(valid, rename)))

    def unlisted(data, manifest):
        data["nodes"][1]["op"] = "Exp"

    with pytest.raises(MalformedFileError, match=r"the graph uses \['Exp'\], which its manifest does not list"):
        msx.load(_write(tmp_path, _edit_graph(valid, unlisted)))


@pytest.mark.parametrize("edit,message", [
    (lambda d, m: d["nodes"][0]["outputs"][0].update(shape=[1, 5]), "does not verify: .*outputs say f32\\[1,5\\]"),
    (lambda d, m: d["params"][0].update(shape=[4, 4]), "weight '0.weight' is float32\\(4, 3\\), the graph says"),
    (lambda d, m: d["nodes"][1]["inputs"].__setitem__(0, 99), "uses value 99, which is not defined before it"),
    (lambda d, m: d["nodes"][0]["attrs"].update(x={"call": "os.system"}), "unknown value tag 'call'"),
    (lambda d, m: d["nodes"][0]["attrs"].update(x={"dtype": "os.system"}), "unknown dtype 'os.system'"),
    (lambda d, m: d["params"][0].update(dtype="object"), "unknown dtype 'object'"),
    (lambda d, m: d["nodes"][1]["attrs"].update(bogus=1), "does not verify: .*rejected by the op"),
    (lambda d, m: d.pop("updates"), "expected the keys"),
])
def test_malformed_graphs_are_refused(valid, tmp_path, edit, message):
    with pytest.raises(MalformedFileError, match=message):
        msx.load(_write(tmp_path, _edit_graph(valid, edit)))


def test_trailing_bytes_and_deep_nesting_are_refused(valid, tmp_path):
    with pytest.raises(MalformedFileError, match="unexpected bytes after its last part"):
        msx.load(_write(tmp_path, valid[1] + b"\x00"))
    manifest, parts = _unpack(valid[0])
    deep = b"[" * 100000 + b"]" * 100000
    with pytest.raises(MalformedFileError, match="part 'graph' is not valid JSON"):
        msx.load(_write(tmp_path, _pack(manifest, {**parts, "graph": deep})))


@FUZZ
@given(st.data())
def test_fuzz_any_damage_to_a_file_raises_a_load_error(valid, tmp_path, data):
    damaged = bytearray(valid[1])
    mode = data.draw(st.sampled_from(["flip", "cut", "append"]))
    if mode == "flip":
        for position in data.draw(st.lists(st.integers(0, len(damaged) - 1), min_size=1, max_size=4, unique=True)):
            damaged[position] ^= data.draw(st.integers(1, 255))
    elif mode == "cut":
        damaged = damaged[:data.draw(st.integers(0, len(damaged) - 1))]
    else:
        damaged += data.draw(st.binary(min_size=1, max_size=16))
    with pytest.raises(LoadError):
        msx.load(_write(tmp_path, bytes(damaged)))


@FUZZ
@given(st.data())
def test_fuzz_damage_behind_valid_checksums_loads_or_raises_a_load_error(valid, tmp_path, data):
    """Mutations of the manifest or the graph JSON, with correct checksums, reach the structural checks: the
    file either loads as a graph that verifies or raises a LoadError — never anything else."""
    manifest, parts = _unpack(valid[0])
    target = data.draw(st.sampled_from(["manifest", "graph"]))
    text = bytearray(json.dumps(manifest).encode() if target == "manifest" else parts["graph"])
    for _ in range(data.draw(st.integers(1, 3))):
        position = data.draw(st.integers(0, len(text) - 1))
        text[position] = data.draw(st.sampled_from(b'0123456789-[]{}",:.eE ntfalsru'))
    if target == "manifest":
        body = b"".join(parts[p["name"]] for p in manifest["parts"])
        damaged = HEADER.pack(MAGIC, FORMAT_VERSION, len(text), hashlib.sha256(text).digest()) + text + body
    else:
        damaged = _pack(manifest, {**parts, "graph": bytes(text)})
    try:
        graph = msx.load(_write(tmp_path, damaged))
    except LoadError:
        return
    msx.ir.verify(graph)


@pytest.mark.parametrize("save", ["export", "checkpoint"])
@pytest.mark.parametrize("failure", ["disk full", "interrupted before the rename"])
def test_an_interrupted_save_leaves_the_previous_file_intact(tmp_path, monkeypatch, save, failure):
    msx.set_seed(0)
    net = nn.Dense(3, 2)
    x = msx.Tensor(np.ones((1, 3), np.float32))

    def write():
        if save == "export":
            return msx.export(net, x, file_name=str(tmp_path / "model.msxir"))
        msx.save_checkpoint(net, str(tmp_path / "model.ckpt"))
        return str(tmp_path / "model.ckpt")

    path = write()
    before = open(path, "rb").read()
    net.weight.set_data(msx.Tensor(np.zeros((2, 3), np.float32)))
    if failure == "disk full":
        monkeypatch.setattr(atomic.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(28, "No space left")))
        error = OSError
    else:
        monkeypatch.setattr(atomic.os, "replace", lambda a, b: (_ for _ in ()).throw(KeyboardInterrupt()))
        error = KeyboardInterrupt
    with pytest.raises(error):
        write()
    monkeypatch.undo()
    assert open(path, "rb").read() == before
    assert os.listdir(tmp_path) == [os.path.basename(path)]  # no temporary file left behind
    if save == "export":
        assert msx.load(path).weights["weight"].any()
    assert oct(os.stat(path).st_mode & 0o777) != oct(0o600)  # not mkstemp's private mode


@pytest.fixture(scope="module")
def stateful(tmp_path_factory):
    """(path, bytes) of an MSXIR file whose graph updates Parameters (BatchNorm in training mode)."""
    msx.set_seed(0)
    net = nn.SequentialCell([nn.Dense(3, 4), nn.BatchNorm1d(4)])
    path = msx.export(net, msx.Tensor(np.ones((2, 3), np.float32)), training=True,
                      file_name=str(tmp_path_factory.mktemp("s") / "bn"))
    with open(path, "rb") as f:
        return path, f.read()


@pytest.mark.parametrize("edit,message", [
    (lambda u, d: u.__setitem__(0, "no.such.param"), "updates 'no.such.param', which is not one of its parameters"),
    (lambda u, d: u.__setitem__(1, d["inputs"][0]["id"]), r"updates parameter '.*' \(f32\[4\]\) with a value of "
                                                         r"f32\[2,3\]"),
])
def test_crafted_updates_are_refused_at_load(stateful, tmp_path, edit, message):
    """Checksums recomputed: only the semantic checks can tell (was a raw KeyError, or a silent reshape)."""
    assert msx.load(stateful[0]).updates

    def craft(data, manifest):
        edit(data["updates"][0], data)

    with pytest.raises(MalformedFileError, match=message):
        msx.load(_write(tmp_path, _edit_graph(stateful, craft)))


def test_devices_and_lying_sizes_are_refused_before_reading(valid, tmp_path):
    from msx.mindir.reader import load_mindir

    with pytest.raises(LoadError, match="not a regular file"):
        msx.load("/dev/zero")
    with pytest.raises(LoadError, match="/dev/zero is not a regular file"):
        load_mindir("/dev/zero")
    os.mkfifo(tmp_path / "pipe.mindir")  # nobody writes to it: opening it must not wait
    with pytest.raises(LoadError, match="is not a regular file .*pipe"):
        msx.load(str(tmp_path / "pipe.mindir"))
    header = HEADER.pack(MAGIC, FORMAT_VERSION, 10 ** 15, b"\0" * 32)
    with pytest.raises(TruncatedFileError, match="manifest ends at byte 1000000000000052, the file has 52 bytes"):
        msx.load(_write(tmp_path, header))
