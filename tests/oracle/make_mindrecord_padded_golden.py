"""Record what real MindSpore 2.10's MindDataset reads with `padded_sample`/`num_padded` from the golden images
files (tests/golden/mindrecord/images.mindrecord*): every shard of 5 with 3 padded rows, and the error when the
padded size does not divide by num_shards.

    /work/.venv-ms/bin/python tests/oracle/make_mindrecord_padded_golden.py

Writes tests/golden/mindrecord/padded_ms210.json; tests/test_mindrecord.py compares msx's reader with it.
"""
import json
import os

import numpy as np

import mindspore.dataset as ds

GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "golden", "mindrecord")
PAD = {"data": b"pad", "file_name": "pad.png", "label": -1}


def rows(d):
    return [[str(r[0]), int(r[1])] for r in d.create_tuple_iterator(output_numpy=True)]


def main():
    first = os.path.join(GOLDEN, "images.mindrecord0")
    shards = [rows(ds.MindDataset(first, columns_list=["file_name", "label"], shuffle=False, num_shards=5, shard_id=k,
                                  padded_sample=PAD, num_padded=3)) for k in range(5)]
    whole = ds.MindDataset(first, columns_list=["file_name", "label", "data"], shuffle=False, padded_sample=PAD,
                           num_padded=3)
    last = [np.asarray(v) for v in list(whole.create_tuple_iterator(output_numpy=True))[-1]]
    try:
        rows(ds.MindDataset(first, shuffle=False, num_shards=5, shard_id=0, padded_sample=PAD, num_padded=2))
        indivisible = "no error"
    except RuntimeError:
        indivisible = "RuntimeError"
    facts = {"pad": {k: (v.hex() if isinstance(v, bytes) else v) for k, v in PAD.items()}, "shards": shards,
             "size": whole.get_dataset_size(), "last_row": [str(last[0]), int(last[1]), last[2].tolist()
                                                           if last[2].dtype.kind != "S" else [x.hex() for x in
                                                                                              last[2].tolist()]],
             "last_row_dtypes": [str(v.dtype) for v in last], "indivisible": indivisible}
    with open(os.path.join(GOLDEN, "padded_ms210.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
