"""`msx.mindrecord`'s FileReader, MindPage, converters, exceptions and encryption settings against MindSpore 2.10:
the cases of tests/golden/mindrecord/tools_cases.py give what MindSpore gave (tools_ms210.json, recorded by
make_tools_golden.py on the golden files and a tiny ImageNet layout); the converters MindSpore cannot run here
(CsvToMR needs pandas, MnistToMR OpenCV) are checked against the files' own contents. A live test (with
MSX_MINDSPORE_PYTHON) has MindSpore read what msx writes and msx read what MindSpore writes."""
import gzip
import io
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import msx.dataset as ds
import msx.mindrecord as mr
from msx.errors import DatasetError

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "mindrecord")
sys.path.insert(0, HERE)
import tools_cases  # noqa: E402

GOLDEN = json.load(open(os.path.join(HERE, "tools_ms210.json"), encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_case_matches_mindspore(name, tmp_path):
    want = GOLDEN[name]
    case = getattr(tools_cases, f"case_{name}")
    if "error" in want:
        with pytest.raises(mr.MindRecordException):
            case(mr, ds, str(tmp_path))
        return
    assert json.loads(json.dumps(case(mr, ds, str(tmp_path)), ensure_ascii=False)) == want["result"]


def test_exceptions_keep_mindspore_names_codes_and_are_msx_errors():
    err = mr.ParamValueError("n")
    assert isinstance(err, DatasetError) and isinstance(err, mr.MindRecordException)
    assert err.error_code == 1347686402 and err.error_msg == "Invalid parameter value. n"  # MindSpore 2.10's values
    assert mr.MRMCommitError().error_code == 1347690603 and mr.MRMCommitError().error_msg == "Failed to commit."
    mindspore_names = {  # `dir(mindspore.mindrecord)` in MindSpore 2.10, its exception classes
        "DbConnectionError", "MRMAddIndexError", "MRMAddSchemaError", "MRMBuildSchemaError", "MRMCloseError",
        "MRMCommitError", "MRMDefineBlobError", "MRMDefineCategoryError", "MRMDefineIndexError",
        "MRMFetchCandidateFieldsError", "MRMFetchDataError", "MRMFinishError", "MRMGenerateIndexError",
        "MRMGetMetaError", "MRMIndexGeneratorError", "MRMInitSegmentError", "MRMInvalidHeaderSizeError",
        "MRMInvalidPageSizeError", "MRMInvalidSchemaError", "MRMLaunchError", "MRMOpenError", "MRMOpenForAppendError",
        "MRMReadCategoryInfoError", "MRMSetHeaderError", "MRMUnsupportedSchemaError", "MRMValidateDataError",
        "MRMWriteDatasetError", "MindRecordException", "ParamMissError", "ParamTypeError", "ParamValueError",
        "PathNotExistsError", "UnknownError"}
    assert all(issubclass(getattr(mr, n), mr.MindRecordException) for n in mindspore_names)
    assert str(mr.ParamMissError("x")).endswith("[ParamMissError]: Param missing. 'x' is required.")


def test_encryption_is_refused_clearly_and_plain_settings_accepted():
    mr.set_enc_key(None)
    mr.set_enc_mode("SM4-CBC")
    mr.set_dec_mode("AES-GCM")
    mr.set_dec_mode(None)
    with pytest.raises(mr.ParamValueError, match="does not encrypt"):
        mr.set_enc_key("0123456789abcdef")
    with pytest.raises(mr.ParamValueError, match="length 16, 24 or 32"):
        mr.set_enc_key("short")
    with pytest.raises(mr.ParamValueError, match="custom decryption function"):
        mr.set_dec_mode(lambda path: path)
    with pytest.raises(mr.ParamValueError, match="must be one of"):
        mr.set_enc_mode("ROT13")


def test_csv_to_mr_types_columns_as_pandas_would(tmp_path):
    src = tmp_path / "t.csv"
    src.write_text("id,score,name,ok\n1,0.5,ab,True\n-2,3,\"c,d\",False\n30,-1e3,x,True\n")
    mr.CsvToMR(str(src), str(tmp_path / "t.mindrecord")).transform()
    reader = mr.FileReader(str(tmp_path / "t.mindrecord"))
    assert reader.schema() == {"id": {"type": "int64"}, "score": {"type": "float64"}, "name": {"type": "string"},
                               "ok": {"type": "int32"}}
    assert list(reader.get_next()) == [{"id": 1, "name": "ab", "ok": 1, "score": 0.5},
                                       {"id": -2, "name": "c,d", "ok": 0, "score": 3},
                                       {"id": 30, "name": "x", "ok": 1, "score": -1000}]
    only = mr.CsvToMR(str(src), str(tmp_path / "u.mindrecord"), columns_list=["name"])
    only.transform()
    assert [r["name"] for r in mr.FileReader(str(tmp_path / "u.mindrecord")).get_next()] == ["ab", "c,d", "x"]
    with pytest.raises(mr.ParamValueError, match="column nope does not exist"):
        mr.CsvToMR(str(src), str(tmp_path / "v.mindrecord"), columns_list=["nope"]).transform()


def _gz_idx(path, array, magic):
    head = magic.to_bytes(4, "big") + b"".join(int(d).to_bytes(4, "big") for d in array.shape)
    with gzip.open(path, "wb") as f:
        f.write(head + array.astype(np.uint8).tobytes())


def test_mnist_to_mr_writes_jpeg_rows_that_decode_to_the_images(tmp_path):
    from PIL import Image

    rng = np.random.default_rng(0)
    images = (np.add.outer(np.arange(28), np.arange(28)) * 4 % 256)[None].repeat(3, 0).astype(np.uint8)
    images[1] = 255 - images[1]
    for part, n in (("train", 3), ("t10k", 2)):
        _gz_idx(tmp_path / f"{part}-images-idx3-ubyte.gz", images[:n], 2051)
        _gz_idx(tmp_path / f"{part}-labels-idx1-ubyte.gz", np.array([7, 1, 4][:n]), 2049)
    mr.MnistToMR(str(tmp_path), str(tmp_path / "mnist")).transform()
    rows = list(mr.FileReader(str(tmp_path / "mnist_train.mindrecord")).get_next())
    assert [r["label"] for r in rows] == [7, 1, 4]
    for row, image in zip(rows, images):
        decoded = np.asarray(Image.open(io.BytesIO(row["data"])))
        assert decoded.shape == (28, 28) and np.abs(decoded.astype(int) - image).max() <= 12
    assert len(list(mr.FileReader(str(tmp_path / "mnist_test.mindrecord")).get_next())) == 2
    assert rng is not None
    with pytest.raises(mr.PathNotExistsError):
        mr.MnistToMR(str(tmp_path / "nowhere"), str(tmp_path / "m2")).transform()


LIVE = os.environ.get("MSX_MINDSPORE_PYTHON")


@pytest.mark.skipif(not LIVE, reason="set MSX_MINDSPORE_PYTHON to MindSpore 2.10's python to run the live check")
def test_live_mindspore_reads_msx_files_and_msx_reads_mindspore_files(tmp_path):
    data = {"image": np.arange(2 * 4 * 4 * 3, dtype=np.uint8).reshape(2, 4, 4, 3),
            "label": np.array([3, 9], np.uint32), "name": np.array(["a", "bé"]), "x": np.array([0.5, -2.0])}
    ds.NumpySlicesDataset(data, shuffle=False).save(str(tmp_path / "msx_saved.mindrecord"))
    csv = tmp_path / "t.csv"
    csv.write_text("a,b\n1,x\n2,y\n")
    mr.CsvToMR(str(csv), str(tmp_path / "msx_csv.mindrecord")).transform()
    script = textwrap.dedent(f"""
        import json, numpy as np
        import mindspore.dataset as ds, mindspore.mindrecord as mr
        out = {{}}
        for f in ("msx_saved", "msx_csv"):
            out[f] = [{{k: np.asarray(v).tolist() for k, v in r.items()}} for r in
                      ds.MindDataset({str(tmp_path)!r} + "/" + f + ".mindrecord", shuffle=False)
                      .create_dict_iterator(output_numpy=True)]
        ds.NumpySlicesDataset({{"v": np.array([[1.5, 2.0], [3.0, 4.5]], np.float32), "s": np.array(["p", "q"])}},
                              shuffle=False).save({str(tmp_path)!r} + "/ms_saved.mindrecord")
        print(json.dumps(out))
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JAX_PLATFORMS")}
    run = subprocess.run([LIVE, "-c", script], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    mine = [{k: np.asarray(v).tolist() for k, v in r.items()} for r in
            ds.MindDataset(str(tmp_path / "msx_saved.mindrecord"), shuffle=False).create_dict_iterator(
                output_numpy=True)]
    assert got["msx_saved"] == mine
    assert got["msx_csv"] == [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]
    back = [(str(r[0]), r[1].tolist()) for r in ds.MindDataset(str(tmp_path / "ms_saved.mindrecord"), shuffle=False)
            .create_tuple_iterator(output_numpy=True)]  # columns sorted by name: s, v
    assert back == [("p", [1.5, 2.0]), ("q", [3.0, 4.5])]


def test_status_and_error_code_enums_have_mindspore_values():
    from msx import mindrecord
    # MindSpore 2.10: SUCCESS 0, FAILED 1; ErrorLevel COMMON 0 .. CRITICAL 4; ErrorCodeType 1, 2; LogRuntime 1, 2
    assert (int(mindrecord.SUCCESS), int(mindrecord.FAILED)) == (0, 1)
    assert [int(mindrecord.ErrorLevel[n]) for n in ("COMMON_LEVEL", "SUGGESTION_LEVEL", "MINOR_LEVEL", "MAJOR_LEVEL",
                                                    "CRITICAL_LEVEL")] == [0, 1, 2, 3, 4]
    assert (mindrecord.ErrorCodeType.ERROR_CODE, mindrecord.ErrorCodeType.EXCEPTION_CODE) == (1, 2)
    assert (mindrecord.LogRuntime.RT_HOST, mindrecord.LogRuntime.RT_DEVICE) == (1, 2)
    assert mindrecord.ParamValueError("x").error_code == 1347686402  # MindSpore's code for the same error


def test_tfrecord_to_mr_refuses_and_its_suggested_route_converts(tmp_path):
    """TFRecordToMR takes TensorFlow's feature specs (msx has no TensorFlow): refused, naming the route that works —
    TFRecordDataset(...).save(...) — which writes a MindRecord file with the records' rows."""
    import msx.dataset as ds
    from msx.mindrecord import FileReader, ParamValueError, TFRecordToMR

    source = os.path.join(os.path.dirname(__file__), "golden", "tfrecord", "a.tfrecord")
    destination = str(tmp_path / "a.mindrecord")
    with pytest.raises(ParamValueError, match=r"TFRecordDataset\(.*\)\.save"):
        TFRecordToMR(source, destination, {"x": object()})
    ds.TFRecordDataset(source, shuffle=False).save(destination)
    want = list(ds.TFRecordDataset(source, shuffle=False).create_dict_iterator(output_numpy=True))
    got = list(FileReader(destination).get_next())
    assert len(got) == len(want) > 0
    for g, w in zip(got, want):
        assert sorted(g) == sorted(w)
        for k in w:
            np.testing.assert_array_equal(np.asarray(g[k]).reshape(np.shape(w[k])), w[k])
