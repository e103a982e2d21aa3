"""MindSpore's `SummaryCollector`: a callback that records a training run to TensorBoard through `SummaryRecord`.

Every `collect_freq` steps (and at the first step) it records, at that step: the loss (`loss/auto`, from the
network's output), the input batch when it is an NCHW image batch (`input_data/auto`), histograms of the
optimizer's parameters matching `histogram_regular` (`<name>/auto`; the first five when it is None), and what
the network's summary ops (`ops.ScalarSummary` and co.) produced in that step; at the first step also the
training step's graph (`collect_graph`: the training network captured on that step's inputs, TensorBoard's
graph page, nodes grouped by Cell). `collect_tensor_freq` (default:
as MindSpore, at most 20 records over the run) does the same for `TensorSummary` values only. What TensorBoard
cannot show and msx does not write (MindInsight's lineage, dataset graph, custom lineage data) warns when it is
asked for explicitly; left at MindSpore's defaults it is skipped quietly.

`collect_landscape` (on by default, as in MindSpore) saves what `SummaryLandscape` draws a loss landscape from:
the backbone's weights at the steps (or epochs) of its `intervals`, in `<summary_dir>/ckpt_dir/`, and at the end
of training `ckpt_dir/train_metadata.json` (`_landscape`).
"""
from __future__ import annotations

import logging
import os
import re
import warnings
from typing import Any

from ...checkpoint import save_checkpoint
from ...tensor import Tensor
from ..summary import SummaryRecord
from . import _landscape
from ._callback import Callback, RunContext, loss_tensor

_log = logging.getLogger("msx.summary")
DEFAULT_SPECIFIED_DATA: dict[str, Any] = {
    "collect_metric": True, "collect_graph": True, "collect_train_lineage": True, "collect_eval_lineage": True,
    "collect_input_data": True, "collect_dataset_graph": True, "histogram_regular": None,
    "collect_landscape": {"landscape_size": 40, "unit": "step", "num_samples": 2048,
                          "create_landscape": {"train": True, "result": True},
                          "intervals": [[1, 2, 3, 4, 5, 6, 7, 8, 9], [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]]},
}
NOT_WRITTEN = ("collect_train_lineage", "collect_eval_lineage", "collect_dataset_graph")
TENSOR_RECORDS = 20  # MindSpore's default cap on TensorSummary records in a run
HISTOGRAMS = 5  # parameters histogrammed when histogram_regular is None


class SummaryCollector(Callback):
    """Record loss, inputs, parameter histograms and the summary ops' values every `collect_freq` steps."""

    def __init__(self, summary_dir: str, collect_freq: int = 10, num_process: int = 32,
                 collect_specified_data: dict | None = None, keep_default_action: bool = True,
                 custom_lineage_data: dict | None = None, collect_tensor_freq: int | None = None,
                 max_file_size: int | None = None, export_options: dict | None = None) -> None:
        _positive("collect_freq", collect_freq)
        if collect_tensor_freq is not None:
            _positive("collect_tensor_freq", collect_tensor_freq)
        if not isinstance(keep_default_action, bool):
            raise TypeError(f"SummaryCollector: `keep_default_action` must be a bool, got "
                            f"{type(keep_default_action).__name__}")
        if max_file_size is not None:
            _positive("max_file_size", max_file_size)
        self._specified = _specified(collect_specified_data, keep_default_action)
        self._not_written([k for k in NOT_WRITTEN if (collect_specified_data or {}).get(k)])
        self._landscape = self._specified.get("collect_landscape") or None
        if self._landscape is not None:
            _landscape.check_collect_landscape("SummaryCollector", self._landscape, collector=True)
            self._ckpt_dir = os.path.join(os.path.realpath(summary_dir), "ckpt_dir")
            os.makedirs(self._ckpt_dir, exist_ok=True)
            self._ckpt_files: dict[str, str] = {}
        if custom_lineage_data is not None:
            if not isinstance(custom_lineage_data, dict) or not all(
                    isinstance(k, str) and isinstance(v, (int, float, str)) for k, v in custom_lineage_data.items()):
                raise TypeError("SummaryCollector: `custom_lineage_data` must be a dict of str to int, float or "
                                "str")
            self._not_written(["custom_lineage_data"])
        self._freq, self._tensor_freq = collect_freq, collect_tensor_freq
        self._record = SummaryRecord(summary_dir, num_process=num_process, max_file_size=max_file_size,
                                     export_options=export_options)
        self._tensor_steps: range | None = None
        self._first = True

    @staticmethod
    def _not_written(keys: list[str]) -> None:
        if keys:
            warnings.warn(f"SummaryCollector: {', '.join(keys)} are MindInsight records (graphs, lineage) that msx "
                          "does not write to TensorBoard files; they are skipped", stacklevel=3)

    # -- hooks ----------------------------------------------------------------------------------------------
    def on_train_begin(self, run_context: RunContext) -> None:
        self._record.set_mode("train")

    def on_eval_begin(self, run_context: RunContext) -> None:
        self._record.set_mode("eval")

    def on_eval_end(self, run_context: RunContext) -> None:
        if run_context.original_args().get("in_fit"):
            self._record.set_mode("train")

    def on_train_step_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        step = int(cb.cur_step_num)
        self._landscape_point(cb, "step", step)
        if self._first:
            self._tensor_steps = self._tensor_range(int(cb.epoch_num) * int(cb.batch_num))
            if self._specified.get("collect_graph"):
                self._graph(cb)
            self._collect(cb, step, None)
            self._first = False
            self._record.flush()
            return
        in_tensor = step in self._tensor_steps
        if step % self._freq == 0:
            self._collect(cb, step, None if in_tensor else (lambda plugin: plugin != "tensor"))
        elif in_tensor:
            self._collect(cb, step, lambda plugin: plugin == "tensor")

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        self._landscape_point(run_context.original_args(), "epoch", int(run_context.original_args().cur_epoch_num))
        self._record.flush()

    def on_train_end(self, run_context: RunContext) -> None:
        self._record.close()
        if self._landscape is not None:
            self._landscape_metadata(int(run_context.original_args().batch_num))

    # -- what SummaryLandscape needs ------------------------------------------------------------------------
    def _landscape_point(self, cb, unit: str, number: int) -> None:
        """At a step (epoch) of an interval, the backbone's weights as `<Backbone>_<n>_<unit>.ckpt` (kept if it
        exists, as MindSpore keeps it)."""
        config = self._landscape
        if config is None or config.get("unit", "step") != unit \
                or not any(number in interval for interval in config["intervals"]):
            return
        backbone = _backbone(cb.train_network)
        path = os.path.join(self._ckpt_dir, f"{type(backbone).__name__}_{number}_{unit}.ckpt")
        self._ckpt_files[str(number)] = path
        if not os.path.isfile(path):
            save_checkpoint(backbone, path)

    def _landscape_metadata(self, step_per_epoch: int) -> None:
        """`train_metadata.json`, unless there is one (MindSpore's: the first run's metadata is kept)."""
        config = self._landscape
        path = os.path.join(self._ckpt_dir, _landscape.METADATA)
        if os.path.isfile(path):
            return
        _landscape.write_metadata(path, {
            "epoch_group": _landscape.epoch_group(config["intervals"]), "model_params_file_map": self._ckpt_files,
            "step_per_epoch": step_per_epoch, "unit": config.get("unit", "step"),
            "num_samples": config.get("num_samples", 2048), "landscape_size": config.get("landscape_size", 40),
            "create_landscape": config.get("create_landscape", {"train": True, "result": True})})

    # -- what is collected ----------------------------------------------------------------------------------
    def _tensor_range(self, total: int) -> range:
        """MindSpore's steps for TensorSummary values: every `collect_tensor_freq`, or at most 20 records."""
        if self._tensor_freq is not None:
            return range(0, total + 1, self._tensor_freq)
        if len(range(0, total + 1, self._freq)) > TENSOR_RECORDS:
            every = total // (TENSOR_RECORDS - 1)
            return range(0, total + 1, every)[:TENSOR_RECORDS] if every > 1 else range(0, TENSOR_RECORDS + 1)
        return range(0, total + 1, self._freq)

    def _collect(self, cb, step: int, plugin_filter) -> None:
        if self._specified.get("collect_input_data"):
            self._input(cb)
        if self._specified.get("collect_metric"):
            self._loss(cb)
        if "histogram_regular" in self._specified:
            self._histograms(cb)
        self._record.record(step, plugin_filter=plugin_filter)

    def _graph(self, cb) -> None:
        """The training step's graph (`train_network/auto`), captured on the first step's inputs."""
        from ...viz import graph_of  # at the top it loads viz before the profiler, whose __init__ then meets viz.overlays half built

        data = cb.get("train_dataset_element")
        try:
            graph = graph_of(cb.train_network, *(data if isinstance(data, (list, tuple)) else (data,)))
        except Exception as exc:  # the training step cannot be captured: the run goes on without its graph
            _log.warning("SummaryCollector: the training network's graph could not be captured (%s: %s); it is "
                         "not collected", type(exc).__name__, exc)
            return
        self._record.add_value("graph", "train_network/auto", graph)

    def _loss(self, cb) -> None:
        loss = loss_tensor(cb.get("net_outputs"))
        if loss is None or int(loss.size) != 1:
            _log.warning("SummaryCollector: the network's output is not a scalar loss; the loss is not collected")
            self._specified["collect_metric"] = False
            return
        self._record.add_value("scalar", "loss/auto", loss)

    def _input(self, cb) -> None:
        data = cb.get("train_dataset_element")
        if isinstance(data, (list, tuple)) and data:
            data = data[0]
        if not isinstance(data, Tensor) or data.ndim != 4 or data.shape[1] not in (1, 3):
            _log.warning("SummaryCollector: the network's input is not an NCHW image batch; it is not collected")
            self._specified["collect_input_data"] = False
            return
        self._record.add_value("image", "input_data/auto", data)

    def _histograms(self, cb) -> None:
        optimizer = cb.get("optimizer")
        if optimizer is None:
            return
        params = list(optimizer.parameters)
        regular = self._specified.get("histogram_regular")
        chosen = [p for p in params if re.match(regular, p.name)] if regular is not None else params[:HISTOGRAMS]
        for p in chosen:
            self._record.add_value("histogram", f"{p.name}/auto", p)


def _backbone(train_network):
    """MindSpore's backbone of a training network: the `_backbone` of its first loss wrapper, else the network,
    then down through `network` children (a TrainOneStepCell's, msx's training step's)."""
    backbone = next((getattr(cell, "_backbone") for _, cell in train_network.cells_and_names()
                     if hasattr(cell, "_backbone")), train_network)
    while "network" in backbone.name_cells():
        has_optimizer = "optimizer" in backbone.name_cells()
        backbone = backbone.network
        if has_optimizer:
            break
    return backbone


def _positive(name: str, value) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"SummaryCollector: `{name}` must be an int, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"SummaryCollector: `{name}` must be > 0, got {value}")


def _specified(data: dict | None, keep_default: bool) -> dict[str, Any]:
    """MindSpore's `_process_specified_data`: known keys, typed values, merged over the defaults if asked."""
    if data is None:
        return dict(DEFAULT_SPECIFIED_DATA) if keep_default else {}
    if not isinstance(data, dict):
        raise TypeError(f"SummaryCollector: `collect_specified_data` must be a dict or None, got {type(data).__name__}")
    unknown = set(data) - set(DEFAULT_SPECIFIED_DATA)
    if unknown:
        raise ValueError(f"SummaryCollector: the keys {sorted(map(str, unknown))} of `collect_specified_data` are "
                         f"unsupported; expected some of {list(DEFAULT_SPECIFIED_DATA)}")
    regular = data.get("histogram_regular")
    if regular is not None:
        if not isinstance(regular, str):
            raise TypeError(f"SummaryCollector: `histogram_regular` must be a str or None, got {type(regular).__name__}")
        try:
            re.compile(regular)
        except re.error as exc:
            raise ValueError(f"SummaryCollector: `histogram_regular` {regular!r} is not a valid regular expression: "
                             f"{exc}") from exc
    for key in set(DEFAULT_SPECIFIED_DATA) - {"histogram_regular", "collect_landscape"}:
        if key in data and not isinstance(data[key], bool):
            raise TypeError(f"SummaryCollector: `{key}` must be a bool, got {type(data[key]).__name__}")
    if data.get("collect_landscape") is not None and not isinstance(data["collect_landscape"], dict):
        raise TypeError("SummaryCollector: `collect_landscape` must be a dict or None")
    return {**DEFAULT_SPECIFIED_DATA, **data} if keep_default else dict(data)
