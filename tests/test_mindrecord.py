"""mindrecord: msx's MindDataset reads files written by real MindSpore 2.10 (tests/golden/mindrecord/, recorded by
tests/oracle/make_mindrecord_golden.py with what MindSpore's MindDataset yields from them), and files written by
msx's FileWriter read back the same rows (and load in MindSpore: the oracle test). Bad files name the file."""
import json
import os
import shutil

import numpy as np
import pytest

from msx import dataset as ds
from msx.errors import DatasetError

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "mindrecord")
with open(os.path.join(GOLDEN, "read_ms210.json")) as f:
    FACTS = json.load(f)


def decode(v):
    if "str" in v:
        return np.array(v["str"])
    if "bytes" in v:
        return np.array([bytes.fromhex(v["bytes"])])
    return np.array(v["values"], v["dtype"]).reshape(v["shape"])


def first_file(name):
    files = [f for f in FACTS[name]["files"] if not f.endswith(".db")]
    return os.path.join(GOLDEN, files[0])


def rows(d):
    return [list(r) for r in d.create_tuple_iterator(output_numpy=True)]


def assert_rows(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert len(g) == len(e)
        for a, b in zip(g, e):
            b = decode(b)
            assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", sorted(FACTS))
def test_minddataset_reads_mindspore_files_as_mindspore_does(name):
    d = ds.MindDataset(first_file(name), shuffle=False)
    assert d.get_col_names() == FACTS[name]["columns"]
    assert d.get_dataset_size() == FACTS[name]["size"]
    assert_rows(rows(d), FACTS[name]["rows"])
    projected = FACTS[name]["projected"]
    d = ds.MindDataset(first_file(name), columns_list=projected["columns"], shuffle=False)
    assert d.get_col_names() == projected["columns"]
    assert_rows(rows(d), projected["rows"])


def test_shards_shuffle_and_a_list_of_files():
    name = "images"
    every = [str(r[1].tolist()) for r in rows(ds.MindDataset(first_file(name), shuffle=False))]
    parts = [[str(r[1].tolist()) for r in rows(ds.MindDataset(first_file(name), num_shards=2, shard_id=k,
                                                              shuffle=False))] for k in range(2)]
    assert sorted(parts[0] + parts[1]) == sorted(every) and not set(parts[0]) & set(parts[1])
    shuffled = [str(r[1].tolist()) for r in rows(ds.MindDataset(first_file(name)))]
    assert sorted(shuffled) == sorted(every) and shuffled != every
    one = os.path.join(GOLDEN, "images.mindrecord1")
    assert [str(r[1].tolist()) for r in rows(ds.MindDataset([one], shuffle=False))] == every[4:8]


def test_bad_files_name_the_file(tmp_path):
    src = first_file("mixed")
    bad = tmp_path / "t.mindrecord"
    with pytest.raises(DatasetError, match="is not a file"):
        ds.MindDataset(str(bad))
    bad.write_bytes(b"\x05\x00\x00\x00\x00\x00\x00\x00{not json")
    with pytest.raises(DatasetError,
                       match=r"t.mindrecord' is corrupt or not a mindrecord file: its header is not JSON"):
        ds.MindDataset(str(bad))
    data = open(src, "rb").read()
    bad.write_bytes(data.replace(b'"mixed.mindrecord"', b'"t.mindrecord"    ')[:-10])
    with pytest.raises(DatasetError, match=r"t.mindrecord' is truncated: page"):
        ds.MindDataset(str(bad))
    with pytest.raises(DatasetError, match="columns_list .* not in the file's schema"):
        ds.MindDataset(src, columns_list=["nope"])
    missing = tmp_path / "images.mindrecord0"
    shutil.copy(os.path.join(GOLDEN, "images.mindrecord0"), missing)
    with pytest.raises(DatasetError, match="images.mindrecord1' .* does not exist"):
        ds.MindDataset(str(missing))


def _write(folder, name):
    from msx.mindrecord import FileWriter
    from oracle_inputs import mindrecord_groups

    schema, index, data, shards = mindrecord_groups()[name]
    writer = FileWriter(os.path.join(folder, name + ".mindrecord"), shard_num=shards, overwrite=True)
    writer.set_header_size(1 << 14)
    writer.set_page_size(1 << 15)
    writer.add_schema(schema, name)
    if index:
        writer.add_index(index)
    writer.write_raw_data(data)
    writer.commit()
    return writer


@pytest.mark.parametrize("name", sorted(FACTS))
def test_filewriter_writes_the_bytes_mindspore_writes(name, tmp_path):
    _write(str(tmp_path), name)
    for f in FACTS[name]["files"]:
        ours, theirs = tmp_path / f, os.path.join(GOLDEN, f)
        if f.endswith(".db"):
            import sqlite3
            q = "select * from INDEXES order by ROW_ID"
            assert list(sqlite3.connect(str(ours)).execute(q)) == list(sqlite3.connect(theirs).execute(q))
            q = "select sql from sqlite_master where name='INDEXES'"
            assert list(sqlite3.connect(str(ours)).execute(q)) == list(sqlite3.connect(theirs).execute(q))
        else:
            assert ours.read_bytes() == open(theirs, "rb").read(), f  # byte for byte, header and pages
    d = ds.MindDataset(str(tmp_path / [f for f in FACTS[name]["files"] if not f.endswith(".db")][0]), shuffle=False)
    assert_rows(rows(d), FACTS[name]["rows"])


def test_filewriter_refuses_bad_rows_and_existing_files(tmp_path):
    from msx.mindrecord import FileWriter

    _write(str(tmp_path), "scalars")
    with pytest.raises(DatasetError, match="exists; pass overwrite=True"):
        FileWriter(str(tmp_path / "scalars.mindrecord"))
    w = FileWriter(str(tmp_path / "new.mindrecord"))
    w.add_schema({"a": {"type": "int32"}, "v": {"type": "float32", "shape": [2]}})
    with pytest.raises(DatasetError, match=r"row 0 must have exactly the fields \['a', 'v'\]"):
        w.write_raw_data([{"a": 1}])
    with pytest.raises(DatasetError, match=r"row 0 field 'v' \(float32 \[2\]\) got 3 values"):
        w.write_raw_data([{"a": 1, "v": [1.0, 2.0, 3.0]}])
    with pytest.raises(DatasetError, match=r"row 0 field 'a' \(int32\) needs an integer"):
        w.write_raw_data([{"a": 1.5, "v": [1.0, 2.0]}])


def test_padded_sample_fills_the_shards_as_mindspore_does():
    with open(os.path.join(GOLDEN, "padded_ms210.json")) as f:
        padded = json.load(f)
    pad = {k: (bytes.fromhex(v) if k == "data" else v) for k, v in padded["pad"].items()}
    first = first_file("images")
    for k, expected in enumerate(padded["shards"]):
        d = ds.MindDataset(first, columns_list=["file_name", "label"], shuffle=False, num_shards=5, shard_id=k,
                           padded_sample=pad, num_padded=3)
        assert [[str(r[0]), int(r[1])] for r in rows(d)] == expected
    whole = ds.MindDataset(first, columns_list=["file_name", "label", "data"], shuffle=False, padded_sample=pad,
                           num_padded=3)
    assert whole.get_dataset_size() == padded["size"]
    last = rows(whole)[-1]
    assert [str(v.dtype) for v in last] == padded["last_row_dtypes"]
    assert [str(last[0]), int(last[1]), [x.hex() for x in last[2].tolist()]] == padded["last_row"]
    assert padded["indivisible"] == "RuntimeError"
    with pytest.raises(DatasetError, match="12 rows \\+ num_padded=2 = 14 is not divisible by num_shards=5"):
        ds.MindDataset(first, num_shards=5, shard_id=0, padded_sample=pad, num_padded=2)
    with pytest.raises(DatasetError, match=r"padded_sample lacks the columns \['data'\]"):
        ds.MindDataset(first, padded_sample={"file_name": "x", "label": 0}, num_padded=1)
    with pytest.raises(DatasetError, match="padded_sample \\(a dict\\) and num_padded \\(an int >= 0\\) go together"):
        ds.MindDataset(first, num_padded=1)
