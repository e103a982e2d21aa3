"""Record mindrecord files written by real MindSpore 2.10, and what MindSpore's MindDataset reads from them.

Run with the MindSpore venv (numpy < 2), from the repository root:

    /work/.venv-ms/bin/python tests/oracle/make_mindrecord_golden.py

It writes tests/golden/mindrecord/*.mindrecord(+.db), the files themselves (small header and page sizes), and
tests/golden/mindrecord/read_ms210.json: for each file group the column names and every row MindDataset yields
with shuffle=False (arrays as dtype/shape/list). tests/test_mindrecord.py reads the files with msx and compares.
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "golden", "mindrecord")
sys.path.insert(0, os.path.dirname(HERE))
from oracle_inputs import mindrecord_groups  # noqa: E402

import mindspore.dataset as ds  # noqa: E402
from mindspore.mindrecord import FileWriter  # noqa: E402


def encode(v):
    a = np.asarray(v)
    if a.dtype.kind == "U":
        return {"str": a.tolist()}
    if a.dtype.kind == "S":
        return {"bytes": a.tobytes().hex(), "shape": list(a.shape)}
    return {"dtype": str(a.dtype), "shape": list(a.shape), "values": a.tolist()}


def main():
    os.makedirs(OUT, exist_ok=True)
    facts = {}
    for name, (schema, index, rows, shards) in mindrecord_groups().items():
        path = os.path.join(OUT, name + ".mindrecord")
        writer = FileWriter(path, shard_num=shards, overwrite=True)
        writer.set_header_size(1 << 14)
        writer.set_page_size(1 << 15)
        writer.add_schema(schema, name)
        if index:
            writer.add_index(index)
        writer.write_raw_data(rows)
        writer.commit()
        first = path if shards == 1 else path + "0"
        d = ds.MindDataset(first, shuffle=False)
        facts[name] = {"files": sorted(f for f in os.listdir(OUT) if f.startswith(name + ".")),
                       "columns": d.get_col_names(), "size": d.get_dataset_size(),
                       "rows": [[encode(v) for v in r] for r in d.create_tuple_iterator(output_numpy=True)]}
        sel = ds.MindDataset(first, columns_list=list(schema)[::-1][:2], shuffle=False)
        facts[name]["projected"] = {"columns": sel.get_col_names(),
                                    "rows": [[encode(v) for v in r] for r in sel.create_tuple_iterator(output_numpy=True)]}
    with open(os.path.join(OUT, "read_ms210.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
