"""Record what real MindSpore 2.10's TFRecordDataset reads from TFRecord files made by tests/dataset_formats.py.

    /work/.venv-ms/bin/python tests/oracle/make_tfrecord_golden.py

Writes tests/golden/tfrecord/{a,b}.tfrecord and read_ms210.json (column names and every row, shuffle=False, for
one file, two files, and with columns_list). tests/test_tfrecord.py compares msx's reader with it.
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
    with open(os.path.join(OUT, "read_ms210.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
