"""file_format="NPZ": a Cell's Parameters as numpy's .npz, checked against numpy's own reader and never unpickled.
The file fuzzer (tests/fuzz/files.py, kind "npz") flips every byte, cuts at every length and edits every .npy header
field of a small file behind correct CRCs: each is refused with a LoadError or loads the same."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import msx
from msx import nn
from msx.errors import BadMagicError, ExportError, MalformedFileError

X = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)


def _net(seed: int) -> nn.Cell:
    msx.set_seed(seed)
    return nn.SequentialCell([nn.Dense(3, 2), nn.BatchNorm1d(2)])


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    net = _net(0)
    path = msx.export(net, msx.Tensor(X), file_name=str(tmp_path_factory.mktemp("npz") / "w"), file_format="NPZ")
    return net, path


def test_export_writes_what_numpy_reads_without_pickle(saved):
    net, path = saved
    assert path.endswith("w.npz")
    with np.load(path, allow_pickle=False) as npz:
        assert list(npz) == [p.name for p in net.get_parameters()]
        for p in net.get_parameters():
            np.testing.assert_array_equal(npz[p.name], p.asnumpy())
            assert npz[p.name].dtype == p.asnumpy().dtype


def test_load_gives_parameters_that_load_into_a_fresh_network(saved):
    net, path = saved
    params = msx.load(path)
    assert all(isinstance(p, msx.Parameter) and p.name == name for name, p in params.items())
    fresh = _net(1)
    fresh.set_train(False)
    net.set_train(False)
    assert msx.load_param_into_net(fresh, params) == ([], [])
    np.testing.assert_allclose(fresh(msx.Tensor(X)).asnumpy(), net(msx.Tensor(X)).asnumpy(), rtol=1e-6, atol=1e-6)


def test_files_numpy_wrote_load_as_numpy_reads_them(tmp_path):
    arrays = {"a": np.arange(6, dtype=">i4").reshape(2, 3), "b": np.asfortranarray(np.ones((2, 3), np.float16)),
              "flags": np.array([True, False]), "u": np.arange(3, dtype=np.uint32), "z": np.array([1 + 2j])}
    np.savez_compressed(tmp_path / "c.npz", **arrays)
    np.savez(tmp_path / "s.npz", **arrays)
    for name in ("c.npz", "s.npz"):
        loaded = msx.load(str(tmp_path / name))
        assert list(loaded) == list(arrays)
        for key, want in arrays.items():
            got = loaded[key].asnumpy()
            assert got.dtype == want.dtype.newbyteorder("=") and got.shape == want.shape, key
            np.testing.assert_array_equal(got, want)


def test_a_zip_written_to_a_stream_loads(tmp_path):
    """A zip written to an unseekable stream puts a data descriptor after each member: still read exactly."""
    import io
    import zipfile

    class Stream(io.RawIOBase):
        def __init__(self):
            self.buf = bytearray()

        def writable(self):
            return True

        def write(self, b):
            self.buf += b
            return len(b)

    stream, arrays = Stream(), {"a": np.arange(3.0), "b": np.ones((2, 2), np.int8)}
    with zipfile.ZipFile(stream, "w") as zf:
        for name, a in arrays.items():
            with zf.open(name + ".npy", "w") as member:
                np.lib.format.write_array(member, a, allow_pickle=False)
    (tmp_path / "stream.npz").write_bytes(bytes(stream.buf))
    assert all(i.flag_bits & 0x08 for i in zipfile.ZipFile(tmp_path / "stream.npz").infolist())
    loaded = msx.load(str(tmp_path / "stream.npz"))
    for name, a in arrays.items():
        np.testing.assert_array_equal(loaded[name].asnumpy(), a)


def test_object_arrays_are_refused_and_never_unpickled(tmp_path, monkeypatch):
    np.savez(tmp_path / "o.npz", w=np.ones(2, np.float32), evil=np.array([{"a": 1}], dtype=object))
    monkeypatch.setattr(pickle, "loads", lambda *a, **k: pytest.fail("pickle.loads called"))
    monkeypatch.setattr(pickle, "load", lambda *a, **k: pytest.fail("pickle.load called"))
    with pytest.raises(MalformedFileError, match="member 'evil' has dtype object.*would need pickle"):
        msx.load(str(tmp_path / "o.npz"))


def test_a_header_that_does_not_fit_its_data_is_refused_before_reading(tmp_path):
    import io
    import zipfile

    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": "<f4", "fortran_order": False, "shape": (10 ** 12,)})
    with zipfile.ZipFile(tmp_path / "big.npz", "w") as zf:
        zf.writestr("w.npy", buffer.getvalue() + b"\0" * 16)
    with pytest.raises(MalformedFileError, match=r"member 'w': its header says float32\(1000000000000,\) "
                                                 r"\(4000000000000 bytes\), the member holds 16 bytes"):
        msx.load(str(tmp_path / "big.npz"))
    with zipfile.ZipFile(tmp_path / "dir.npz", "w") as zf:
        zf.writestr("notes.txt", b"hello")
    with pytest.raises(MalformedFileError, match="member 'notes.txt' is not a NAME.npy array"):
        msx.load(str(tmp_path / "dir.npz"))
    (tmp_path / "x.npz").write_bytes(b"GIF89a" + b"\0" * 20)
    with pytest.raises(BadMagicError, match="is not an NPZ \\(zip\\) file"):
        msx.load(str(tmp_path / "x.npz"))


def test_what_npz_cannot_hold_is_refused_at_export(tmp_path):
    with pytest.raises(ExportError, match="file_format='NPZ' writes a Cell's Parameters; got function"):
        msx.export(lambda x: x, msx.Tensor(X), file_name=str(tmp_path / "f"), file_format="NPZ")
    net = nn.Dense(3, 2, dtype=msx.bfloat16)
    with pytest.raises(ExportError, match="Parameter 'weight' is bfloat16, which .npz cannot hold"):
        msx.export(net, file_name=str(tmp_path / "b"), file_format="NPZ")
    assert list(tmp_path.iterdir()) == []


def test_inspect_prints_the_tensor_table(saved, tmp_path, capsys):
    from msx.__main__ import main

    assert main(["inspect", saved[1]]) == 0
    out = capsys.readouterr().out
    assert "NPZ weights file" in out and "6 arrays, 64 bytes" in out
    assert "0.weight           float32  [2, 3]  24" in out
    (tmp_path / "cut.npz").write_bytes(open(saved[1], "rb").read()[:-30])
    assert main(["inspect", str(tmp_path / "cut.npz")]) == 1
    assert "[load]" in capsys.readouterr().err


def test_view_says_an_npz_file_holds_no_graph(saved, capsys):
    from msx.__main__ import main

    assert main(["view", saved[1]]) == 1
    assert "holds no graph (msx.load gives a dict)" in capsys.readouterr().err
