"""`TFRecordDataset`: TFRecord files of `tf.train.Example` records, without TensorFlow.

A TFRecord file is a sequence of records: a little-endian uint64 length, its
masked CRC-32C, the bytes, their masked CRC-32C (both checked, with
`google-crc32c`). Each record is a `tf.train.Example` protobuf, parsed with
`protobuf` from the message layout of TensorFlow's public
`example.proto`/`feature.proto` (built here as a descriptor; no generated
code). Columns are the features, sorted by name as MindSpore yields them (or
`columns_list`): an int64 list as int64 `(n,)`, a float list as float32
`(n,)`, one bytes value as its uint8 bytes `(len,)` — MindSpore 2.10's
conventions, checked against it. Several files are read interleaved, one
record from each in turn (the order MindSpore 2.10 gives with shuffle=False).
A `schema` (`msx.dataset.Schema`, or a schema JSON file) names the columns
in its order and gives each a dtype (the values cast, "string" decoding a
bytes feature) and a shape (the values reshaped), as MindSpore does. The rows
are read into memory when the dataset is made.
"""
from __future__ import annotations

import os
import struct
from typing import Any, Sequence

import google_crc32c
import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from ...errors import DatasetError
from ..pipeline import Row
from ..schema import Schema
from ..sources import MappableSource
from .text_files import Shuffle, _shuffle_flag


def _example_class() -> type:
    """The `tf.train.Example` message class, from a descriptor of TensorFlow's public .proto layout."""
    f = descriptor_pb2.FileDescriptorProto(name="msx_tf_example.proto", package="msx_tf", syntax="proto3")
    t = descriptor_pb2.FieldDescriptorProto
    rep, opt = t.LABEL_REPEATED, t.LABEL_OPTIONAL
    for name, kind in (("BytesList", t.TYPE_BYTES), ("FloatList", t.TYPE_FLOAT), ("Int64List", t.TYPE_INT64)):
        m = f.message_type.add(name=name)
        m.field.add(name="value", number=1, label=rep, type=kind)
    feature = f.message_type.add(name="Feature")
    feature.oneof_decl.add(name="kind")
    for number, (name, kind) in enumerate((("bytes_list", "BytesList"), ("float_list", "FloatList"),
                                           ("int64_list", "Int64List")), 1):
        feature.field.add(name=name, number=number, label=opt, type=t.TYPE_MESSAGE, type_name=f".msx_tf.{kind}",
                          oneof_index=0)
    features = f.message_type.add(name="Features")
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, label=opt, type=t.TYPE_STRING)
    entry.field.add(name="value", number=2, label=opt, type=t.TYPE_MESSAGE, type_name=".msx_tf.Feature")
    features.field.add(name="feature", number=1, label=rep, type=t.TYPE_MESSAGE,
                       type_name=".msx_tf.Features.FeatureEntry")
    example = f.message_type.add(name="Example")
    example.field.add(name="features", number=1, label=opt, type=t.TYPE_MESSAGE, type_name=".msx_tf.Features")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("msx_tf.Example"))


Example = _example_class()


def _masked_crc(data: bytes) -> int:
    crc = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def read_records(path: str) -> list[bytes]:
    """The records of one TFRecord file, their CRCs checked; a bad file is a DatasetError naming it."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise DatasetError(f"cannot read TFRecord file {path!r}: {exc.strerror}") from None
    out, at = [], 0
    while at < len(data):
        if at + 12 > len(data):
            raise DatasetError(f"TFRecord file {path!r} is truncated: record {len(out)} ends inside its length")
        head = data[at:at + 8]
        (length,) = struct.unpack("<Q", head)
        (crc,) = struct.unpack_from("<I", data, at + 8)
        if crc != _masked_crc(head):
            raise DatasetError(f"TFRecord file {path!r}: record {len(out)} has a bad length checksum (corrupt, or "
                               f"not a TFRecord file)")
        end = at + 12 + length
        if end + 4 > len(data):
            raise DatasetError(f"TFRecord file {path!r} is truncated: record {len(out)} of {length} bytes runs past "
                               f"the end")
        body = data[at + 12:end]
        if struct.unpack_from("<I", data, end)[0] != _masked_crc(body):
            raise DatasetError(f"TFRecord file {path!r}: record {len(out)} has a bad data checksum (corrupt)")
        out.append(body)
        at = end + 4
    return out


def _columns(path: str, index: int, record: bytes) -> dict[str, np.ndarray]:
    example = Example()
    try:
        example.ParseFromString(record)
    except Exception:  # protobuf's DecodeError and friends
        raise DatasetError(f"TFRecord file {path!r}: record {index} is not a tf.train.Example") from None
    out = {}
    for name, feature in example.features.feature.items():
        kind = feature.WhichOneof("kind")
        if kind == "int64_list":
            out[name] = np.array(feature.int64_list.value, np.int64)
        elif kind == "float_list":
            out[name] = np.array(feature.float_list.value, np.float32)
        elif kind == "bytes_list":
            values = list(feature.bytes_list.value)
            if len(values) != 1:
                raise DatasetError(f"TFRecord file {path!r}: record {index} feature {name!r} holds {len(values)} "
                                   f"bytes values; msx reads one per feature (MindSpore's uint8 column)")
            out[name] = np.frombuffer(values[0], np.uint8).copy()
        else:
            raise DatasetError(f"TFRecord file {path!r}: record {index} feature {name!r} is empty (no list kind)")
    return out


class TFRecordDataset(MappableSource):
    """Rows of TFRecord files of `tf.train.Example` records (MindSpore's `TFRecordDataset`)."""

    def __init__(self, dataset_files: str | Sequence[str], schema: Any = None, columns_list: Sequence[str] | None = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, shard_equal_rows: bool = False,
                 cache: Any = None, compression_type: str | None = None) -> None:
        where = "TFRecordDataset"
        if isinstance(schema, (str, os.PathLike)):
            schema = Schema(os.fspath(schema))
        if schema is not None and not isinstance(schema, Schema):
            raise DatasetError(f"{where}: schema must be a Schema or a schema file name, got {type(schema).__name__}")
        if schema is not None and not schema.columns:
            raise DatasetError(f"{where}: the schema has no columns")
        if compression_type not in (None, ""):
            raise DatasetError(f"{where}: compression_type {compression_type!r} is not supported by msx (plain files "
                               f"only)")
        files = [dataset_files] if isinstance(dataset_files, (str, os.PathLike)) else list(dataset_files) \
            if isinstance(dataset_files, (list, tuple)) and dataset_files else None
        if files is None:
            raise DatasetError(f"{where}: dataset_files must be a file name or a non-empty list of them, got "
                               f"{dataset_files!r}")
        per_file = []
        for path in map(os.fspath, files):
            if not os.path.isfile(path):
                raise DatasetError(f"{where}: dataset_files {path!r} is not a file")
            per_file.append([(path, i, r) for i, r in enumerate(read_records(path))])
        order = [rec for k in range(max(map(len, per_file), default=0)) for recs in per_file if k < len(recs)
                 for rec in [recs[k]]]
        parsed = [_columns(*rec) for rec in order]
        names = schema.names() if schema is not None else sorted(parsed[0]) if parsed else []
        chosen = names if columns_list is None else [columns_list] if isinstance(columns_list, str) else \
            list(columns_list)
        unknown = [c for c in chosen if c not in names]
        if unknown or not chosen:
            what = "the schema's columns" if schema is not None else "the records"
            raise DatasetError(f"{where}: columns_list {chosen} names features not in {what} {names}")
        rows = []
        for rec, columns in zip(order, parsed):
            missing = [c for c in chosen if c not in columns]
            if missing:
                raise DatasetError(f"{where}: record {rec[1]} of {rec[0]!r} lacks the features {missing}")
            if schema is None:
                rows.append(tuple(columns[c] for c in chosen))
            else:
                at = f"{where}: record {rec[1]} of {rec[0]!r}"
                rows.append(tuple(schema.apply(at, c, columns[c]) for c in chosen))
        if schema is not None and schema.num_rows is not None:
            rows = rows[:schema.num_rows]  # numRows of a schema file reads that many records, as MindSpore
        self._rows = rows
        super().__init__(where, chosen, num_samples, _shuffle_flag(where, shuffle), None, num_shards, shard_id,
                         num_parallel_workers)

    def _length(self) -> int:
        return len(self._rows)

    def _row(self, index: int) -> Row:
        return tuple(v.copy() for v in self._rows[index])
