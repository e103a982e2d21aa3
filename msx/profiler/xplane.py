"""Giving jax's trace file msx's names, so XProf / TensorBoard's profile plugin shows msx nodes, not XLA's fusions.

`jax.profiler` writes an XSpace protobuf (`<host>.xplane.pb`). Each XLA op
execution is an event whose metadata is named after the HLO instruction
(`ynn_fusion.1`), with `hlo_module` / `hlo_op` stats. XProf's trace viewer shows
an event's metadata `display_name` where it has one, and its framework-op
tables group events by a `tf_op` stat of the form `"<name>:<type>"`. After a
recording, `name_xla_ops` rewrites the file once (atomically): every
(module, instruction) gets its own metadata entry whose display name is the
msx node(s) it computes (`Dense + ReLU (fc1) ynn_fusion.1`), and every event a
`tf_op` stat (`MLP/fc1/Grad#0/body/Dense#0:Dense`), so the trace viewer, the
framework-op statistics and the op profile speak in Cells and msx nodes.

The schema is XLA's `xplane.proto` (tsl/profiler/protobuf), built here as a
descriptor: no TensorFlow, no generated code. Unknown fields survive a
rewrite (protobuf keeps them), so a newer jax's additions are not lost.
"""
from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

from ..atomic import write_atomic

TF_OP = "tf_op"   # XProf's framework-op stat: "<name>:<type>"


@functools.lru_cache(maxsize=1)
def xspace_class() -> type:
    """The `XSpace` message class (built once, on first use: `import msx` does not import protobuf)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # on first use: descriptor_pb2 is 1.4 ms

    F = descriptor_pb2.FieldDescriptorProto
    fd = descriptor_pb2.FileDescriptorProto(name="msx_xplane.proto", package="msx_xplane", syntax="proto3")
    one, many = F.LABEL_OPTIONAL, F.LABEL_REPEATED

    def message(name: str, fields: list[tuple], oneof: tuple[str, set[str]] | None = None):
        m = fd.message_type.add(name=name)
        if oneof is not None:
            m.oneof_decl.add(name=oneof[0])
        for fname, number, kind, label, type_name in fields:
            f = m.field.add(name=fname, number=number, type=kind, label=label)
            if type_name:
                f.type_name = f".msx_xplane.{type_name}"
            if oneof is not None and fname in oneof[1]:
                f.oneof_index = 0
        return m

    i64, s, msg = F.TYPE_INT64, F.TYPE_STRING, F.TYPE_MESSAGE
    message("XStat", [("metadata_id", 1, i64, one, None), ("double_value", 2, F.TYPE_DOUBLE, one, None),
                      ("uint64_value", 3, F.TYPE_UINT64, one, None), ("int64_value", 4, i64, one, None),
                      ("str_value", 5, s, one, None), ("bytes_value", 6, F.TYPE_BYTES, one, None),
                      ("ref_value", 7, F.TYPE_UINT64, one, None)],
            ("value", {"double_value", "uint64_value", "int64_value", "str_value", "bytes_value", "ref_value"}))
    message("XEvent", [("metadata_id", 1, i64, one, None), ("offset_ps", 2, i64, one, None),
                       ("num_occurrences", 5, i64, one, None), ("duration_ps", 3, i64, one, None),
                       ("stats", 4, msg, many, "XStat")], ("data", {"offset_ps", "num_occurrences"}))
    message("XLine", [("id", 1, i64, one, None), ("display_id", 10, i64, one, None), ("name", 2, s, one, None),
                      ("display_name", 11, s, one, None), ("timestamp_ns", 3, i64, one, None),
                      ("duration_ps", 9, i64, one, None), ("events", 4, msg, many, "XEvent")])
    message("XEventMetadata", [("id", 1, i64, one, None), ("name", 2, s, one, None),
                               ("display_name", 4, s, one, None), ("metadata", 3, F.TYPE_BYTES, one, None),
                               ("stats", 5, msg, many, "XStat"), ("child_id", 6, i64, many, None)])
    message("XStatMetadata", [("id", 1, i64, one, None), ("name", 2, s, one, None),
                              ("description", 3, s, one, None)])
    plane = message("XPlane", [("id", 1, i64, one, None), ("name", 2, s, one, None),
                               ("lines", 3, msg, many, "XLine"),
                               ("event_metadata", 4, msg, many, "XPlane.EventMetadataEntry"),
                               ("stat_metadata", 5, msg, many, "XPlane.StatMetadataEntry"),
                               ("stats", 6, msg, many, "XStat")])
    for entry, value in (("EventMetadataEntry", "XEventMetadata"), ("StatMetadataEntry", "XStatMetadata")):
        e = plane.nested_type.add(name=entry)
        e.options.map_entry = True
        e.field.add(name="key", number=1, type=i64, label=one)
        e.field.add(name="value", number=2, type=msg, label=one, type_name=f".msx_xplane.{value}")
    message("XSpace", [("planes", 1, msg, many, "XPlane"), ("errors", 2, s, many, None),
                       ("warnings", 3, s, many, None), ("hostnames", 4, s, many, None)])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("msx_xplane.XSpace"))


def read_xspace(path: str) -> Any:
    """The XSpace in `path` (a `.xplane.pb`)."""
    space = xspace_class()()
    with open(path, "rb") as f:
        space.ParseFromString(f.read())
    return space


Namer = Callable[[str, str], "tuple[str, str] | None"]   # (hlo_module, hlo_op) -> (display name, tf_op) or None


def name_xla_ops(path: str, namer: Namer) -> int:
    """Rewrite the trace file at `path` so each XLA op event carries msx's names (see the module docstring).
    `namer(module, op)` gives (display name, `"<name>:<type>"`) or None for an op msx did not build (left as it
    is). Returns the number of events named; a file that does not parse is left untouched, with a warning."""
    try:
        space = read_xspace(path)
    except Exception as exc:  # noqa: BLE001 - a trace jax wrote that this schema cannot read: keep it as is
        warnings.warn(f"msx.Profiler: could not add msx's names to {path} ({exc}); XProf shows XLA's names",
                      stacklevel=2)
        return 0
    named = sum(_name_plane(plane, namer) for plane in space.planes)
    if named:
        write_atomic(path, [space.SerializeToString()])
    return named


def _name_plane(plane: Any, namer: Namer) -> int:
    stat_names = {k: v.name for k, v in plane.stat_metadata.items()}
    module_id = next((k for k, n in stat_names.items() if n == "hlo_module"), None)
    op_id = next((k for k, n in stat_names.items() if n == "hlo_op"), None)
    if module_id is None or op_id is None:
        return 0

    def text(stat: Any) -> str:
        kind = stat.WhichOneof("value")
        if kind == "ref_value":
            return stat_names.get(stat.ref_value, "")
        return str(getattr(stat, kind)) if kind else ""

    tf_op_id = _stat_id(plane, TF_OP)
    renamed: dict[tuple[str, str], tuple[int, str] | None] = {}
    next_id = max(plane.event_metadata, default=0) + 1
    count = 0
    for line in plane.lines:
        for event in line.events:
            stats = {st.metadata_id: st for st in event.stats}
            if module_id not in stats or op_id not in stats:
                continue
            key = (text(stats[module_id]), text(stats[op_id]))
            if key not in renamed:
                names = namer(*key)
                if names is None:
                    renamed[key] = None
                else:
                    meta = plane.event_metadata[next_id]
                    meta.CopyFrom(plane.event_metadata[event.metadata_id])
                    meta.id, meta.display_name = next_id, names[0]
                    renamed[key] = (next_id, names[1])
                    next_id += 1
            target = renamed[key]
            if target is None:
                continue
            event.metadata_id = target[0]
            if tf_op_id not in stats:
                event.stats.add(metadata_id=tf_op_id, str_value=target[1])
            count += 1
    return count


def _stat_id(plane: Any, name: str) -> int:
    for k, v in plane.stat_metadata.items():
        if v.name == name:
            return k
    new = max(plane.stat_metadata, default=0) + 1
    plane.stat_metadata[new].id = new
    plane.stat_metadata[new].name = name
    return new
