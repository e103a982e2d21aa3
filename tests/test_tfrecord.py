"""TFRecordDataset against real MindSpore 2.10: files made by hand from the format's public description
(tests/dataset_formats.py: record framing with its own bitwise CRC-32C, tf.train.Example in protobuf wire
format) and what MindSpore's TFRecordDataset read from them (tests/golden/tfrecord/read_ms210.json, recorded by
tests/oracle/make_tfrecord_golden.py). Bad files name the file and record."""
import json
import os

import numpy as np
import pytest

import msx as ms
from msx import dataset as ds
from msx.errors import DatasetError

from dataset_formats import tfrecord_examples, write_tfrecord

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "tfrecord")
with open(os.path.join(GOLDEN, "read_ms210.json")) as f:
    FACTS = json.load(f)
A, B = os.path.join(GOLDEN, "a.tfrecord"), os.path.join(GOLDEN, "b.tfrecord")


def rows(d):
    return [list(r) for r in d.create_tuple_iterator(output_numpy=True)]


def same(d, facts):
    assert d.get_col_names() == facts["columns"] and d.get_dataset_size() == facts["size"]
    got = rows(d)
    assert len(got) == len(facts["rows"])
    for g, e in zip(got, facts["rows"]):
        for a, b in zip(g, e):
            if "bytes" in b:  # a string column
                b = np.array([bytes.fromhex(x).decode() for x in b["bytes"]]).reshape(b["shape"])
            else:
                b = np.array(b["values"], b["dtype"]).reshape(b["shape"])
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)


def test_the_golden_files_are_what_the_generator_writes(tmp_path):
    write_tfrecord(str(tmp_path / "a.tfrecord"), tfrecord_examples(7))
    assert (tmp_path / "a.tfrecord").read_bytes() == open(A, "rb").read()


def test_reads_as_mindspore_does():
    same(ds.TFRecordDataset(A, shuffle=False), FACTS["one"])
    same(ds.TFRecordDataset([A, B], shuffle=False), FACTS["two"])
    same(ds.TFRecordDataset(A, columns_list=["name", "label"], shuffle=ds.Shuffle.FALSE), FACTS["columns"])


def _schema(*columns):
    s = ds.Schema()
    for column in columns:
        s.add_column(*column)
    return s


def test_a_schema_names_casts_and_reshapes_the_columns_as_mindspore_does():
    typed = _schema(("label", ms.int32), ("coords", ms.float32, [3]), ("name", ms.uint8))
    same(ds.TFRecordDataset(A, schema=typed, shuffle=False), FACTS["schema"])
    same(ds.TFRecordDataset(A, schema=typed, columns_list=["name", "label"], shuffle=False), FACTS["schema_columns"])
    cast = _schema(("label", ms.float32), ("ids", ms.int16), ("coords", ms.float64, [1, 3]))
    same(ds.TFRecordDataset(A, schema=cast, shuffle=False), FACTS["schema_cast"])
    strings = _schema(("name", "string"), ("label", ms.int64))
    same(ds.TFRecordDataset([A, B], schema=strings, shuffle=False), FACTS["schema_string"])
    same(ds.TFRecordDataset(A, schema=os.path.join(GOLDEN, "schema.json"), shuffle=False), FACTS["schema_file"])
    from_file = ds.Schema(os.path.join(GOLDEN, "schema.json"))
    assert from_file.names() == ["coords", "label", "name"] and from_file.num_rows == 4  # a dict sorts, as MindSpore
    listed = ds.Schema()
    listed.from_json({"columns": [{"name": "name", "type": "string"}, {"name": "label", "type": "int32"}]})
    assert listed.names() == ["name", "label"]  # a list keeps its order
    assert json.loads(typed.to_json())["columns"][1] == {"name": "coords", "type": "float32", "rank": 1, "shape": [3]}


def test_a_schema_that_does_not_fit_the_records_names_the_column():
    with pytest.raises(DatasetError, match=r"column 'coords' has shape \[2\] in the schema, but a record holds 3"):
        ds.TFRecordDataset(A, schema=_schema(("coords", ms.float32, [2])))
    with pytest.raises(DatasetError, match=r"record 0 of .*a.tfrecord' lacks the features \['nope'\]"):
        ds.TFRecordDataset(A, schema=_schema(("nope", ms.int32)))
    with pytest.raises(DatasetError, match=r"columns_list \['coords'\] names features not in the schema's columns"):
        ds.TFRecordDataset(A, schema=_schema(("label", ms.int32)), columns_list=["coords"])
    with pytest.raises(DatasetError, match="'label' is a string column in the schema, but the record holds int64"):
        ds.TFRecordDataset(A, schema=_schema(("label", "string")))
    with pytest.raises(DatasetError, match="schema must be a Schema or a schema file name"):
        ds.TFRecordDataset(A, schema={"columns": {}})


def test_shuffle_and_shards():
    every = sorted(int(r[2][0]) for r in rows(ds.TFRecordDataset([A, B], shuffle=False)))
    shuffled = [int(r[2][0]) for r in rows(ds.TFRecordDataset([A, B]))]
    assert sorted(shuffled) == every
    parts = [[int(r[0][0]) for r in rows(ds.TFRecordDataset([A, B], columns_list="label", num_shards=2, shard_id=k,
                                                            shuffle=False))] for k in range(2)]
    assert sorted(parts[0] + parts[1]) == every and not set(parts[0]) & set(parts[1])


def test_corrupt_files_name_the_file_and_record(tmp_path):
    data = bytearray(open(A, "rb").read())
    bad = tmp_path / "bad.tfrecord"
    data[30] ^= 0xFF  # inside record 0's data
    bad.write_bytes(bytes(data))
    with pytest.raises(DatasetError, match=r"bad.tfrecord': record 0 has a bad data checksum"):
        ds.TFRecordDataset(str(bad))
    bad.write_bytes(open(A, "rb").read()[:-7])
    with pytest.raises(DatasetError, match=r"bad.tfrecord' is truncated: record 6"):
        ds.TFRecordDataset(str(bad))
    bad.write_bytes(b"not a tfrecord file at all")
    with pytest.raises(DatasetError, match="bad length checksum"):
        ds.TFRecordDataset(str(bad))
    with pytest.raises(DatasetError, match="columns_list .* not in the records"):
        ds.TFRecordDataset(A, columns_list=["nope"])
    with pytest.raises(DatasetError, match="cannot read schema file 'nope.json'"):
        ds.TFRecordDataset(A, schema="nope.json")
