"""MindSpore's `SummaryRecord` (`ms.SummaryRecord`, `ms.train.summary.SummaryRecord`), writing TensorBoard files.

MindSpore writes its summaries for MindInsight; msx writes the same records as TensorBoard event files
(`<file_prefix>.out.tfevents.<time>.<host><file_suffix>`, through tensorboardX's event writer, an optional
dependency imported when a SummaryRecord is made: `pip install msx[summary]`), so `tensorboard --logdir DIR`
shows them: scalars, images (an NCHW batch as one canvas of up to 8 columns, scaled to 0..255 as MindSpore
scales it), histograms (of the finite values; TensorBoard's histograms have no NaN/inf counts, so those are
counted in a warning) and whole tensors. Values come from `add_value` and from the summary ops
(`ops.ScalarSummary` and co., `msx.ops.summary_ops`) run since the last `record(step)`, which writes them all
under that step. As in MindSpore only one SummaryRecord may be open at a time.
"""
from __future__ import annotations

import atexit
import io
import logging
import os
import re
import threading
import time
import warnings
from collections import defaultdict
from typing import Any, Callable

import numpy as np

from ..atomic import write_atomic
from ..errors import MsxError
from ..ir.graph import Const, Graph
from ..ops import summary_ops
from ..tensor import Tensor

VALUE_PLUGINS = summary_ops.KINDS  # scalar, image, histogram, tensor
MINDINSIGHT_PLUGINS = ("train_lineage", "eval_lineage", "dataset_graph", "custom_lineage_data",
                       "LANDSCAPE")
_NAME = re.compile(r"^[A-Za-z0-9_.-]*$")  # MindSpore's check_str_by_regular for prefix and suffix
IMAGE_COLUMNS = 8
_log = logging.getLogger("msx.summary")
_instance_lock = threading.Lock()


class SummaryError(MsxError, ValueError):
    """A SummaryRecord was misused (a second one open, a closed one entered, a plugin msx does not write)."""


def _writer_module():
    try:
        from tensorboardX import event_file_writer, summary  # optional dependency: only SummaryRecord needs it
    except ImportError as exc:
        raise SummaryError("SummaryRecord writes TensorBoard files with tensorboardX, which is not installed: "
                           "pip install tensorboardX (or msx[summary])") from exc
    return event_file_writer, summary


class SummaryRecord:
    """Collect summary values and write them to a TensorBoard event file in `log_dir` at each `record(step)`.

    Use it as a context manager or call `close()`: the file is complete only when closed (or flushed).
    `num_process` only tunes MindSpore's writer processes and is accepted; `network` asks for the graph of a
    compiled network, which msx cannot take without example inputs (warned: `add_value('graph', name,
    msx.viz.graph_of(net, *inputs))` writes one); `export_options={'tensor_format': 'npy'}` also saves every tensor value as
    `export_<time>/tensor/<tag>_<step>.npy` beside the event file.
    """

    count = 0

    def __init__(self, log_dir: str, file_prefix: str = "events", file_suffix: str = "_MS", num_process: int = 32,
                 network: Any = None, max_file_size: int | None = None, raise_exception: bool = False,
                 export_options: dict | None = None) -> None:
        for what, text in (("file_prefix", file_prefix), ("file_suffix", file_suffix)):
            if not isinstance(text, str):
                raise TypeError(f"SummaryRecord: `{what}` must be a str, got {type(text).__name__}")
            if not _NAME.match(text):
                raise ValueError(f"SummaryRecord: `{what}` {text!r} may hold only letters, digits, '_', '.', '-'")
        if max_file_size is not None and (not isinstance(max_file_size, int) or isinstance(max_file_size, bool)):
            raise TypeError(f"SummaryRecord: `max_file_size` must be an int or None, got {type(max_file_size).__name__}")
        if not isinstance(raise_exception, bool):
            raise TypeError(f"SummaryRecord: `raise_exception` must be a bool, got {type(raise_exception).__name__}")
        self._export = _export_options(export_options)
        if network is not None:
            warnings.warn("SummaryRecord(network=...): msx needs example inputs to capture a graph, so it is not "
                          "written; add_value('graph', 'net', msx.viz.graph_of(network, *inputs)) writes it",
                          stacklevel=2)
        if max_file_size is not None and max_file_size < 0:
            warnings.warn(f"SummaryRecord: max_file_size should be > 0, got {max_file_size}: no limit", stacklevel=2)
            max_file_size = None
        event_file_writer, self._summary = _writer_module()
        with _instance_lock:
            if SummaryRecord.count > 0:
                raise SummaryError("SummaryRecord: only one instance may be open in a process (as in MindSpore); "
                                   f"{SummaryRecord.count} is open: close it first")
            SummaryRecord.count += 1
        self._closed, self._mode, self._pool = False, "train", defaultdict(dict)
        self._ops: dict[tuple[str, str], np.ndarray] = {}
        self._graph: Graph | None = None
        self._ops_lock = threading.Lock()
        self._remaining, self._raise = max_file_size, raise_exception
        self._stamp = str(int(time.time()))
        self._dir = os.path.abspath(log_dir)
        try:
            os.makedirs(self._dir, exist_ok=True)
            self._writer = event_file_writer.EventsWriter(os.path.join(self._dir, file_prefix), file_suffix)
            self._path = self._writer._file_name
            if self._remaining is not None:  # the limit counts the file's header record too
                self._writer.flush()
                self._remaining -= os.path.getsize(self._path)
        except BaseException:
            SummaryRecord.count -= 1
            raise
        summary_ops.set_sink(self._receive)
        atexit.register(self.close)

    # -- MindSpore's API ------------------------------------------------------------------------------------
    def __enter__(self) -> "SummaryRecord":
        if self._closed:
            raise SummaryError("SummaryRecord has been closed; make a new one")
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def log_dir(self) -> str:
        """The event file's full path."""
        return self._path

    def set_mode(self, mode: str) -> None:
        """'train' or 'eval'; in 'eval' the summary ops' values are not recorded (`add_value`'s are)."""
        if mode not in ("train", "eval"):
            raise ValueError(f"SummaryRecord.set_mode: {mode!r} is not a mode; expected 'train' or 'eval'")
        self._mode = mode

    def add_value(self, plugin: str, name: str, value: Tensor) -> None:
        """Add `value` (a Tensor) under `name` to the next record; `plugin`: scalar, image, histogram, tensor."""
        if plugin == "graph":
            if not isinstance(value, Graph):
                raise TypeError("SummaryRecord.add_value: the 'graph' plugin takes an msx Graph (msx.viz.graph_of, "
                                f"JitFunction.capture), got {type(value).__name__}")
            self._graph = value
            return
        if plugin in MINDINSIGHT_PLUGINS:
            raise SummaryError(f"SummaryRecord.add_value: plugin {plugin!r} is MindInsight's (lineage, graphs, "
                               "landscapes); msx writes TensorBoard files and has no such record")
        if plugin not in VALUE_PLUGINS:
            raise ValueError(f"SummaryRecord.add_value: no plugin {plugin!r}; expected one of {list(VALUE_PLUGINS)}")
        if not isinstance(name, str) or not name:
            raise ValueError(f"SummaryRecord.add_value: `name` must be a non-empty str, got {name!r}")
        if not isinstance(value, Tensor):
            raise TypeError(f"SummaryRecord.add_value: `value` must be a Tensor, got {type(value).__name__}")
        array = _checked(plugin, name, value.asnumpy().copy(), "SummaryRecord")
        if name in self._pool[plugin]:
            _log.warning("SummaryRecord.add_value: %r has duplicate values; only the newest one is recorded",
                         f"{name}/{plugin}")
        self._pool[plugin][name] = array

    def record(self, step: int, train_network: Any = None, plugin_filter: Callable[[str], bool] | None = None) -> bool:
        """Write every value added since the last record (and the summary ops' values, in 'train' mode) at `step`."""
        if not isinstance(step, int) or isinstance(step, bool):
            raise TypeError(f"SummaryRecord.record: `step` must be an int, got {type(step).__name__}")
        if self._closed:
            _log.error("SummaryRecord.record: the record writer is closed")
            return False
        summary_ops.wait()  # a jitted step's summary ops deliver their values asynchronously
        with self._ops_lock:
            taken, self._ops = self._ops, {}
        if self._mode == "train":
            for (kind, tag), array in taken.items():
                self._pool[kind][tag] = _checked(kind, tag, array, f"{kind.capitalize()}Summary")
        if self._graph is not None and (plugin_filter is None or plugin_filter("graph")):
            self._write_graph(self._graph, step)
        self._graph = None
        pool, self._pool = self._pool, defaultdict(dict)
        values = [self._proto(kind, tag, array, step) for kind, tags in pool.items()
                  if plugin_filter is None or plugin_filter(kind) for tag, array in tags.items()]
        self._write([v for v in values if v is not None], step)
        return True

    def flush(self) -> None:
        """Write what is buffered to disk."""
        if self._closed:
            _log.error("SummaryRecord.flush: the record writer is closed")
        elif self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        """Flush and close the file; the record is then finished (MindSpore: make sure to close it)."""
        if self._closed:
            return
        atexit.unregister(self.close)
        summary_ops.set_sink(None)
        if self._writer is not None:
            self._writer.close()
        self._closed = True
        with _instance_lock:
            SummaryRecord.count -= 1

    # -- writing --------------------------------------------------------------------------------------------
    def _receive(self, kind: str, tag: str, value: np.ndarray) -> None:
        with self._ops_lock:
            self._ops[(kind, tag)] = value  # the latest value of a tag wins, as in MindSpore

    def _proto(self, kind: str, tag: str, array: np.ndarray, step: int):
        s = self._summary
        if kind == "scalar":
            return s.scalar(tag, float(array.reshape(-1)[0]))
        if kind == "image":
            return s.image(tag, _canvas(array), dataformats="HWC")
        if kind == "histogram":
            finite = array[np.isfinite(array)] if np.issubdtype(array.dtype, np.floating) else array
            if finite.size < array.size:
                warnings.warn(f"SummaryRecord: histogram {tag!r} at step {step}: {array.size - finite.size} of "
                              f"{array.size} values are NaN or infinite and are left out", stacklevel=3)
            if finite.size == 0:
                return None
            return s.histogram(tag, finite.astype(np.float64), histogram_bins(finite.size))
        if self._export is not None:
            self._export_npy(tag, array, step)
        return _tensor_summary(tag, array)

    def _write(self, values: list, step: int) -> None:
        from tensorboardX.proto import event_pb2, summary_pb2  # optional (msx[summary]), 1 s to load

        if values:
            merged = summary_pb2.Summary(value=[v for summary in values for v in summary.value])
            self._write_event(event_pb2.Event(wall_time=time.time(), step=step, summary=merged), step)

    def _write_graph(self, graph: Graph, step: int) -> None:
        from tensorboardX.proto import event_pb2  # optional (msx[summary]), 1 s to load

        self._write_event(event_pb2.Event(wall_time=time.time(), step=step,
                                          graph_def=graph_def(graph).SerializeToString()), step)

    def _write_event(self, event, step: int) -> None:
        if self._writer is None:
            return
        size = event.ByteSize() + 16  # a record's length, its CRCs and the data
        try:
            if self._remaining is not None:
                if size > self._remaining:
                    _log.warning("SummaryRecord: max_file_size reached: %d bytes remain and step %d needs %d; "
                                 "nothing more is written to %s", self._remaining, step, size, self.log_dir)
                    self._writer.close()
                    self._writer = None
                    return
                self._remaining -= size
            self._writer.write_event(event)
        except OSError as exc:
            _log.error("SummaryRecord: writing %s failed: %s", self.log_dir, exc)
            self._writer = None
            if self._raise:
                raise

    def _export_npy(self, tag: str, array: np.ndarray, step: int) -> None:
        folder = os.path.join(self._dir, f"export_{self._stamp}", "tensor")
        os.makedirs(folder, exist_ok=True)
        out = io.BytesIO()
        np.save(out, array, allow_pickle=False)
        write_atomic(os.path.join(folder, f"{re.sub(r'[^A-Za-z0-9_.-]', '_', tag)}_{step}.npy"), [out.getvalue()])


def _export_options(options: dict | None) -> dict | None:
    """MindSpore's `export_options`: only {'tensor_format': 'npy' or None}."""
    if options is None:
        return None
    if not isinstance(options, dict):
        raise TypeError(f"SummaryRecord: `export_options` must be a dict or None, got {type(options).__name__}")
    unknown = set(options) - {"tensor_format"}
    if unknown:
        raise ValueError(f"SummaryRecord: the keys {sorted(unknown)} of `export_options` are unsupported; "
                         "expected 'tensor_format'")
    if options.get("tensor_format") not in ("npy", None):
        raise ValueError(f"SummaryRecord: export_options['tensor_format'] must be 'npy' or None, "
                         f"got {options['tensor_format']!r}")
    return options if options.get("tensor_format") == "npy" else None


def _checked(kind: str, name: str, array: np.ndarray, who: str) -> np.ndarray:
    """MindSpore's `_check_to_numpy`: a scalar holds one element, an image is 4-D, a tensor/histogram not 0-D."""
    if kind == "scalar" and array.size != 1:
        raise ValueError(f"{who}: the scalar {name!r} must hold one element, got shape {array.shape}")
    if kind == "image" and (array.ndim != 4 or array.shape[1] not in (1, 3) or 0 in array.shape):
        raise ValueError(f"{who}: {name!r} is not an NCHW image batch with 1 or 3 channels: shape {array.shape}")
    if kind in ("tensor", "histogram") and array.ndim == 0:
        raise ValueError(f"{who}: the {kind} {name!r} must not be 0-D")
    return array


def histogram_bins(count: int) -> int:
    """MindSpore's bin count for a histogram of `count` values: about 10 values a bin, 2 to 90 bins."""
    if count <= 5:
        return 2
    if count <= 10:
        return 3
    return count // 10 + 1 if count <= 880 else 90


def _canvas(images: np.ndarray) -> np.ndarray:
    """MindSpore's image: the batch on a canvas of up to 8 columns, HWC uint8, scaled as its adapter scales."""
    if images.shape[1] == 1:
        images = np.concatenate([images] * 3, 1)
    n, _, h, w = images.shape
    cols = min(n, IMAGE_COLUMNS)
    rows = -(-n // cols)
    canvas = np.zeros((3, h * rows, w * cols))
    for i in range(n):
        y, x = divmod(i, cols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = images[i]
    canvas = canvas.transpose(1, 2, 0)
    high, low = canvas.max(), canvas.min()
    if high <= 1 and low >= 0:
        scale, shift = 255.0, 0.0
    else:
        scale, shift = (255 / (high - low + 1) if high != low else 1.0), low
    return ((canvas.astype(np.float32) - shift) * scale).astype(np.uint8)


def _tensor_summary(tag: str, array: np.ndarray):
    """A TensorBoard tensor summary holding `array` whole (dtype and shape kept)."""
    from tensorboardX.proto import summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2  # optional (msx[summary]), 1 s to load

    names = {np.dtype(np.float16): "DT_HALF", np.dtype(np.float32): "DT_FLOAT", np.dtype(np.float64): "DT_DOUBLE",
             np.dtype(np.int8): "DT_INT8", np.dtype(np.int16): "DT_INT16", np.dtype(np.int32): "DT_INT32",
             np.dtype(np.int64): "DT_INT64", np.dtype(np.uint8): "DT_UINT8", np.dtype(np.bool_): "DT_BOOL"}
    if array.dtype not in names:  # bfloat16 and the rest: as float32, which TensorBoard reads
        array = array.astype(np.float32)
    proto = tensor_pb2.TensorProto(
        dtype=types_pb2.DataType.Value(names[array.dtype]),
        tensor_shape=tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d)
                                                            for d in array.shape]),
        tensor_content=np.ascontiguousarray(array).tobytes())
    metadata = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="tensor"))
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, tensor=proto, metadata=metadata)])


def graph_def(graph: Graph):
    """An msx graph as TensorBoard's GraphDef: one node per IR node, named `<Cell scope>/<op>_<index>` so that
    TensorBoard groups them by Cell, with the bodies of `Grad`, loops and the like inside their node's name."""
    from tensorboardX.proto import attr_value_pb2, graph_pb2, node_def_pb2  # optional (msx[summary]), 1 s to load

    out = graph_pb2.GraphDef()

    def text(value) -> "attr_value_pb2.AttrValue":
        return attr_value_pb2.AttrValue(s=str(value).encode())

    def add(name: str, op: str, inputs: list[str], attrs: dict) -> None:
        out.node.append(node_def_pb2.NodeDef(name=name, op=op, input=inputs,
                                             attr={k: text(v) for k, v in attrs.items()}))

    def walk(g: Graph, prefix: str, bound: list[str] | None, root: str) -> None:
        source: dict[int, str] = {}

        def feeds(values) -> list[str]:
            return [source[v.id] for v in values if not isinstance(v, Const) and v.id in source]

        for i, v in enumerate(g.inputs):
            name = f"{prefix}input_{i}"
            add(name, "Input", [bound[i]] if bound is not None and i < len(bound) and bound[i] else [],
                {"type": v})
            source[v.id] = name
        for v in g.params:
            source[v.id] = f"{prefix}param/{_node_name(v.name)}"
            add(source[v.id], "Parameter", [], {"type": v})
        for i, node in enumerate(g.nodes):
            scope = node.scope[len(root):].lstrip("/") if root and node.scope.startswith(root) else node.scope
            name = f"{prefix}{_node_name(scope) + '/' if scope else ''}{node.op}_{i}"
            add(name, node.op, feeds(node.inputs), {**node.attrs, "outputs": ", ".join(map(str, node.outputs))})
            for k, v in enumerate(node.outputs):
                source[v.id] = name if k == 0 else f"{name}:{k}"
            for key, sub in node.subgraphs.items():
                walk(sub, f"{name}/{key}/", feeds(node.inputs) if len(sub.inputs) == len(node.inputs) else None,
                     node.scope)
        add(f"{prefix}output", "Output", feeds(g.outputs), {})
        for pname, value in g.updates:
            add(f"{prefix}update/{_node_name(pname)}", "Update", feeds([value]), {"parameter": pname})

    walk(graph, "", None, "")
    return out


def _node_name(text: str) -> str:
    """A TensorBoard node name piece: letters, digits and `_ . - /`."""
    return re.sub(r"[^A-Za-z0-9_./-]", "_", text).strip("/") or "_"
