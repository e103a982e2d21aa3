"""The MindRecord reader against damaged and crafted files (issue 30, item 10): every byte flip (two masks) and
every truncation of a small MindRecord file is refused with an msx error (`MRMOpenError`, a DatasetError) or
read — identically where the damage is in bytes the reader does not use; MindRecord has no checksums, so a flip
inside a value's bytes reads as a different value, as in MindSpore. Nothing else may come out: no KeyError,
TypeError, RecursionError, MemoryError, no crash. Each case is parsed in memory (header, page table, pages, rows:
what MindDataset does per shard); a stride of them also goes through `MindDataset` on disk."""
import io
import json
import os
import struct
import sys
from collections import Counter

import numpy as np
import pytest

import msx.dataset as ds
from msx.dataset.readers import mindrecord_format as fmt
from msx.dataset.readers import mindrecord_reader
from msx.errors import DatasetError
from msx.mindrecord import FileWriter, MRMOpenError

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle_inputs import mindrecord_groups  # noqa: E402


def _small_file(folder):
    """The 'mixed' golden group's first 3 rows (every field type) in a ~2 KB file: the reader takes any header and
    page size, so the writer's minimums (16 KB / 32 KB, mostly zero padding) are lowered for the fuzz."""
    schema, index, rows, _ = mindrecord_groups()["mixed"]
    path = os.path.join(folder, "small.mindrecord")
    writer = FileWriter(path, overwrite=True)
    writer._header_size, writer._page_size = 1024, 1024  # noqa: SLF001 — below FileWriter's public limits
    writer.add_schema(schema, "fuzz")
    writer.add_index(index)
    writer.write_raw_data(rows[:3])
    writer.commit()
    return path


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    path = _small_file(str(tmp_path_factory.mktemp("mr")))
    blob = open(path, "rb").read()
    names = sorted(mindrecord_groups()["mixed"][0])
    return path, blob, names, _fingerprint(_parse(blob, names))


def _parse(blob, names):
    """What MindDataset reads of one shard, and what FileReader makes of its records."""
    f, path = io.BytesIO(blob), "small.mindrecord"
    header = fmt.header_from(f, len(blob), path)
    rows = fmt.rows_from(f, len(blob), path, header, names)
    spec = header["schema"][0]
    for record in fmt.records_from(f, len(blob), path, header):
        mindrecord_reader._record(record, spec["schema"], spec.get("blob_fields", []), path)
    return rows


def _fingerprint(rows):
    return [tuple((v.dtype.str, v.shape, v.tobytes()) for v in row) for row in rows]


def _outcome(blob, names, reference):
    try:
        rows = _parse(blob, names)
    except MRMOpenError:
        return "refused"
    except Exception as exc:  # noqa: BLE001 — the point: anything but an msx error escapes
        return f"escaped: {type(exc).__name__}: {exc}"[:200]
    return "identical" if _fingerprint(rows) == reference else "read (different values)"


def _flips(blob):
    for i in range(len(blob)):
        for mask in (1 << (i % 8), 0xFF):
            damaged = bytearray(blob)
            damaged[i] ^= mask
            yield f"flip {mask:#x} @{i}", bytes(damaged)


def test_every_flip_and_truncation_is_refused_or_read(small):
    _, blob, names, reference = small
    assert 1000 < len(blob) < 4096
    counts, escaped = Counter(), []
    cases = list(_flips(blob)) + [(f"cut {n}", blob[:n]) for n in range(len(blob))]
    for what, damaged in cases:
        result = _outcome(damaged, names, reference)
        counts[result.split(":")[0]] += 1
        if result.startswith("escaped"):
            escaped.append((what, result))
    assert not escaped, escaped[:10]
    assert counts["refused"] > len(blob)  # every truncation and most header damage
    assert sum(counts.values()) == 3 * len(blob)
    cut_outcomes = {_outcome(blob[:n], names, reference) for n in range(len(blob) - 1)}
    assert cut_outcomes <= {"refused", "identical"}, cut_outcomes  # a cut never reads different values


def test_a_stride_of_the_damage_through_mindrecord_dataset_on_disk(small, tmp_path):
    path, blob, names, reference = small
    target = tmp_path / "small.mindrecord"
    for i, (what, damaged) in enumerate(_flips(blob)):
        if i % 53:
            continue
        target.write_bytes(damaged)
        try:
            rows = [tuple(r) for r in ds.MindDataset(str(target), shuffle=False).create_tuple_iterator(
                output_numpy=True)]
        except DatasetError:
            continue
        assert len(rows) == 3, what


def _crafted(header: dict, body: bytes = b"", header_size: int = 1024) -> bytes:
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + bytes(header_size - 8 - len(text)) + body


def _valid_header(blob):
    (n,) = struct.unpack_from("<Q", blob)
    return json.loads(blob[8:8 + n])


@pytest.mark.parametrize("edit", [
    ("header_size", True), ("header_size", 2 ** 70), ("header_size", "1024"), ("page_size", 0),
    ("page_size", -5), ("page_size", 1.5), ("page", {"a": 1}), ("page", [[1]]), ("page", [{"page_id": -1}]),
    ("schema", "x"), ("schema", [{"schema": []}]), ("schema", [{"schema": {"a": {"type": "int32", "shape": "x"}}}]),
    ("schema", [{"schema": {"a": {"type": "int32", "shape": [-1, -1]}}}]),
    ("schema", [{"schema": {"a": {"type": "string", "shape": [2]}}}]),
    ("schema", [{"schema": {"a": {"type": ["int32"]}}}]), ("schema", [{"schema": {"a": 3}}]),
    ("schema", [{"schema": {"a": {"type": "int32"}}, "blob_fields": ["b"]}]),
    ("schema", [{"schema": {"a": {"type": "int32"}}, "blob_fields": [["a"]]}]),
    ("shard_addresses", []), ("shard_addresses", [None]), ("shard_addresses", "abc"), ("page", [{
        "page_id": 10 ** 9, "page_size": 8, "page_type": "RAW_DATA", "page_type_id": 0}]),
])
def test_crafted_headers_are_refused_by_name(small, edit):
    _, blob, names, _ = small
    header = _valid_header(blob)
    key, value = edit
    header[key] = value
    with pytest.raises(MRMOpenError, match="small.mindrecord"):
        _parse(_crafted(header, blob[1024:]), names)


def test_deeply_nested_json_and_rows_are_refused(small):
    _, blob, names, _ = small
    nested = b"[" * 200000 + b"]" * 200000
    bomb = struct.pack("<Q", len(nested)) + nested
    with pytest.raises(MRMOpenError, match="nests too deeply|not JSON"):
        _parse(bomb, names)
    header = _valid_header(blob)
    deep = b"\x91" * 100000  # msgpack: 100000 nested one-element arrays
    raw = struct.pack("<Q", len(deep)) + deep
    header["page"] = [{"page_id": 0, "page_size": len(raw), "page_type": "RAW_DATA", "page_type_id": 0}]
    header["schema"][0]["blob_fields"] = []
    header["page_size"] = len(raw)
    with pytest.raises(MRMOpenError, match="not msgpack|not a map"):
        _parse(_crafted(header, raw), names)


def test_row_values_of_the_wrong_type_are_refused(small):
    _, blob, names, _ = small
    import msgpack

    header = _valid_header(blob)
    for bad in ({"label": 2 ** 40}, {"label": "x"}, {"name": 5}, {"score": "1"},
                {"label": True}):
        fields = {"big": 1, "label": 1, "name": "n", "score": 1.0}
        fields.update(bad)
        record = msgpack.packb(fields)
        raw = struct.pack("<Q", len(record)) + record
        h = json.loads(json.dumps(header))
        h["page"] = [{"page_id": 0, "page_size": len(raw), "page_type": "RAW_DATA", "page_type_id": 0}]
        h["schema"][0]["schema"] = {k: v for k, v in h["schema"][0]["schema"].items() if "shape" not in v and
                                    v["type"] != "bytes"}
        h["schema"][0]["blob_fields"] = []
        with pytest.raises(MRMOpenError, match="field"):
            _parse(_crafted(h, raw), ["big", "label", "name", "score"])


def test_special_files_are_refused(tmp_path):
    with pytest.raises(DatasetError, match="not a regular file|not a file"):
        ds.MindDataset(str(tmp_path))
    with pytest.raises(MRMOpenError, match="not a regular file"):
        fmt.read_header("/dev/zero")
    assert np.dtype  # numpy imported for the fingerprints
