"""Record what real MindSpore 2.10's TFRecordDataset reads from TFRecord files made by tests/dataset_formats.py.

    /work/.venv-ms/bin/python tests/oracle/make_tfrecord_golden.py

Writes tests/golden/tfrecord/{a,b}.tfrecord, schema.json and read_ms210.json (column names and every row,
shuffle=False, for one file, two files, with columns_list, and with a `schema`: casts, a shape, a string column,
a schema with columns_list, a schema file with numRows). tests/test_tfrecord.py compares msx's reader with it.
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "golden", "tfrecord")
sys.path.insert(0, os.path.dirname(HERE))
from dataset_formats import tfrecord_examples, write_tfrecord  # noqa: E402

import mindspore.dataset as ds  # noqa: E402


def encode(v):
    a = np.asarray(v)
    if a.dtype.kind in "SU":
        return {"bytes": [x.hex() if isinstance(x, bytes) else x.encode().hex() for x in a.reshape(-1).tolist()],
                "kind": a.dtype.kind, "shape": list(a.shape)}
    return {"dtype": str(a.dtype), "shape": list(a.shape), "values": a.tolist()}


def read(d):
    return {"columns": d.get_col_names(), "size": d.get_dataset_size(),
            "rows": [[encode(v) for v in r] for r in d.create_tuple_iterator(output_numpy=True)]}


def main():
    os.makedirs(OUT, exist_ok=True)
    a, b = os.path.join(OUT, "a.tfrecord"), os.path.join(OUT, "b.tfrecord")
    write_tfrecord(a, tfrecord_examples(7))
    write_tfrecord(b, tfrecord_examples(3, offset=100))
    facts = {"one": read(ds.TFRecordDataset(a, shuffle=False)),
             "two": read(ds.TFRecordDataset([a, b], shuffle=False)),
             "columns": read(ds.TFRecordDataset(a, columns_list=["name", "label"], shuffle=False))}
    import mindspore as ms

    def schema(*columns):
        s = ds.Schema()
        for column in columns:
            s.add_column(*column)
        return s

    typed = schema(("label", ms.int32), ("coords", ms.float32, [3]), ("name", ms.uint8))
    facts["schema"] = read(ds.TFRecordDataset(a, schema=typed, shuffle=False))
    facts["schema_columns"] = read(ds.TFRecordDataset(a, schema=typed, columns_list=["name", "label"], shuffle=False))
    facts["schema_cast"] = read(ds.TFRecordDataset(a, schema=schema(("label", ms.float32), ("ids", ms.int16),
                                                                     ("coords", ms.float64, [1, 3])), shuffle=False))
    facts["schema_string"] = read(ds.TFRecordDataset([a, b], schema=schema(("name", "string"), ("label", ms.int64)),
                                                     shuffle=False))
    path = os.path.join(OUT, "schema.json")
    with open(path, "w") as f:
        json.dump({"datasetType": "TF", "numRows": 4, "columns": {
            "name": {"type": "string", "rank": 1}, "label": {"type": "int32", "rank": 1},
            "coords": {"type": "float32", "rank": 1, "shape": [3]}}}, f, indent=1)
    facts["schema_file"] = read(ds.TFRecordDataset(a, schema=path, shuffle=False))
    with open(os.path.join(OUT, "read_ms210.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
