"""`msx.Profiler` and `msx.profiler.profile`: MindSpore's profiler API on `jax.profiler` traces.

MindSpore's Ascend profiler collects device data through CANN; here the
device layer is XLA, so recording is `jax.profiler.start_trace` (the trace
opens in Perfetto and TensorBoard/XProf) plus msx's host events, and
`analyse()` maps XLA's op executions back to msx nodes and source lines.
`with_stack=True` adds Python frames to the trace (jax's Python tracer; it
slows the traced code, so it is off by default). Options that only mean
something on an Ascend chip (`aic_metrics`, `l2_cache`, `hbm_ddr`, ...) are
accepted, as MindSpore code passes them, and stored in the summary's
metadata; they change nothing here.
"""
from __future__ import annotations

import enum
import json
import os
import time
import warnings
from typing import Any, Callable, Iterable

import jax

from .. import hostevents
from ..errors import ProfilerError
from ..ignored_args import not_honoured
from .analysis import ProfileResult, analyse_events, write_outputs, xprof_namer
from .op_events import find_xplane, read_op_events
from .xplane import name_xla_ops


class ProfilerActivity(enum.Enum):
    CPU = "CPU"
    GPU = "GPU"
    NPU = "NPU"


class ProfilerLevel(enum.Enum):
    LevelNone = "LevelNone"
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"


class ProfilerAction(enum.Enum):
    NONE = 0
    WARM_UP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


class schedule:  # noqa: N801 - MindSpore's name
    """Which steps to record: skip `skip_first`, then cycles of `wait` idle, `warmup`, `active` recorded steps,
    `repeat` times (0: until profiling ends). `schedule(...)(step)` is the ProfilerAction of that step."""

    def __init__(self, *, wait: int, active: int, warmup: int = 0, repeat: int = 0, skip_first: int = 0) -> None:
        for name, value, low in (("wait", wait, 0), ("active", active, 1), ("warmup", warmup, 0),
                                 ("repeat", repeat, 0), ("skip_first", skip_first, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"schedule: {name} must be an int >= {low}, got {value!r}")
        self.wait, self.active, self.warmup, self.repeat, self.skip_first = wait, active, warmup, repeat, skip_first

    def __call__(self, step: int) -> ProfilerAction:
        if step < self.skip_first:
            return ProfilerAction.NONE
        step -= self.skip_first
        cycle = self.wait + self.warmup + self.active
        if self.repeat > 0 and step // cycle >= self.repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < self.wait:
            return ProfilerAction.NONE
        if pos < self.wait + self.warmup:
            return ProfilerAction.WARM_UP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    def __repr__(self) -> str:
        return (f"schedule(wait={self.wait}, active={self.active}, warmup={self.warmup}, repeat={self.repeat}, "
                f"skip_first={self.skip_first})")


def tensorboard_trace_handler(dir_name: str | None = None, worker_name: str | None = None, analyse_flag: bool = True,
                              async_mode: bool = False) -> Callable[["profile"], None]:
    """An `on_trace_ready` callback: each recorded cycle goes to `dir_name/<worker>_<time>_<cycle>` — jax's trace
    (`plugins/profile/...`, what TensorBoard's profile plugin and XProf read when pointed at `dir_name`) and,
    with `analyse_flag`, msx's tables beside it. `async_mode` is accepted and analysis runs synchronously (it is
    a few milliseconds of parsing)."""
    return _TraceHandler(dir_name or os.environ.get("ASCEND_PROFILER_OUTPUT_PATH", "./data"),
                         worker_name or f"{os.uname().nodename}_{os.getpid()}", analyse_flag)


class _TraceHandler:
    """`tensorboard_trace_handler`'s callback; the profiler asks it where a cycle's trace goes before recording."""

    def __init__(self, folder: str, worker: str, analyse: bool) -> None:
        self.folder, self.worker, self.analyse = folder, worker, analyse

    def folder_for(self, prof: "profile") -> str:
        return os.path.join(os.path.abspath(self.folder), f"{self.worker}_{time.strftime('%Y%m%d%H%M%S')}_{prof._cycle}")

    def __call__(self, prof: "profile") -> None:
        prof._export(prof._root, analyse=self.analyse)


_ASCEND_ONLY = ("profiler_level", "aic_metrics", "l2_cache", "hbm_ddr", "pcie", "data_simplification",
                "parallel_strategy", "data_process", "sync_enable", "record_shapes", "experimental_config", "mstx")


_NOT_RECORDED = ("an Ascend profiling option; msx records jax's trace and its own per-node table instead "
                 "(kept in the result's metadata)")
_NO_DEFAULT = object()  # an Ascend-only keyword given at all is reported


class profile:  # noqa: N801 - MindSpore's name
    """Record what msx runs: `start()` ... `stop()` (or `with profile(...) as prof:`), `step()` with a
    `schedule`; results go to `on_trace_ready` (e.g. `tensorboard_trace_handler(dir)`) or to `analyse()`."""

    def __init__(self, activities: Iterable[ProfilerActivity] | None = None, with_stack: bool = False,
                 profile_memory: bool = False, data_process: bool = False, parallel_strategy: bool = False,
                 start_profile: bool = True, hbm_ddr: bool = False, pcie: bool = False, sync_enable: bool = True,
                 record_shapes: bool = False, schedule: schedule | None = None,
                 on_trace_ready: Callable[["profile"], None] | None = None, experimental_config: Any = None,
                 output_path: str = "./data", **ascend_options: Any) -> None:
        unknown = sorted(set(ascend_options) - set(_ASCEND_ONLY))
        if unknown:
            raise TypeError(f"Profiler: unknown argument(s) {unknown}")
        acts = list(activities) if activities is not None else [ProfilerActivity.CPU, ProfilerActivity.NPU]
        bad = [a for a in acts if not isinstance(a, ProfilerActivity)]
        if bad:
            raise ValueError(f"Profiler: activities must be ProfilerActivity members, got {bad[0]!r}")
        self.activities, self.profile_memory, self.schedule = acts, profile_memory, schedule
        self.with_stack = with_stack
        self.on_trace_ready, self.output_path = on_trace_ready, output_path
        named = {"data_process": (data_process, False), "parallel_strategy": (parallel_strategy, False),
                 "hbm_ddr": (hbm_ddr, False), "pcie": (pcie, False), "sync_enable": (sync_enable, True),
                 "record_shapes": (record_shapes, False), "experimental_config": (experimental_config, None)}
        for key, (value, default) in named.items():
            not_honoured("Profiler", key, value, default, _NOT_RECORDED)
        for key, value in ascend_options.items():
            not_honoured("Profiler", key, value, _NO_DEFAULT, _NOT_RECORDED)
        self.metadata: dict[str, Any] = {"ascend_only_options": {k: repr(v) for k, v in ascend_options.items()},
                                         "activities": [a.value for a in acts]}
        self._tracing = False
        self._dir: str | None = None
        self._root = os.path.abspath(output_path)
        self._step = 0
        self._cycle = 0
        self._events: list = []
        self._host: list = []
        self._last: ProfileResult | None = None
        if start_profile:
            self.start()

    # ------------------------------------------------------------ recording
    def start(self) -> None:
        """Start recording (with a schedule: from the schedule's current step)."""
        if self.schedule is None or self.schedule(self._step) in (ProfilerAction.RECORD,
                                                                  ProfilerAction.RECORD_AND_SAVE):
            self._begin()

    def _begin(self) -> None:
        if self._tracing:
            return
        if hostevents.ACTIVE:
            raise ProfilerError("another msx profiler is recording; stop it first (one jax trace at a time)")
        folder_for = getattr(self.on_trace_ready, "folder_for", None)
        if folder_for is not None:       # tensorboard_trace_handler: the cycle's trace goes where it says
            self._root = self._dir = folder_for(self)
        else:
            self._root = os.path.abspath(self.output_path)
            self._dir = os.path.join(self._root, "jax_trace", f"{time.strftime('%Y%m%d%H%M%S')}"
                                     f"_{os.getpid()}_{id(self):x}_{self._cycle}")
        os.makedirs(self._dir, exist_ok=True)
        hostevents.EVENTS.clear()
        options = jax.profiler.ProfileOptions()
        options.python_tracer_level = 1 if self.with_stack else 0  # Python frames cost time: only when asked
        jax.profiler.start_trace(self._dir, create_perfetto_trace=True, profiler_options=options)
        hostevents.ACTIVE = True
        self._tracing = True
        if self.schedule is not None:
            self._mark_step()

    def _mark_step(self) -> None:
        """Open the current step's marker (`ProfilerStep` with `step_num`: MindSpore's `ProfilerStep#<n>` in the
        trace's own encoding), so XProf and TensorBoard's profile plugin see steps; `step()` opens the next."""
        self._close_step()
        self._step_marker = jax.profiler.StepTraceAnnotation("ProfilerStep", step_num=self._step)
        self._step_marker.__enter__()

    def _close_step(self) -> None:
        marker, self._step_marker = getattr(self, "_step_marker", None), None
        if marker is not None:
            marker.__exit__(None, None, None)

    def _end(self) -> None:
        if not self._tracing:
            return
        # jax dispatches asynchronously: wait for the device work already queued, or the last steps' kernels
        # would fall outside the trace (an empty table for a short loop)
        hostevents.wait_for_pending()               # the runs whose outputs the user dropped (a `step(x)` loop)
        jax.block_until_ready(jax.live_arrays())
        self._close_step()
        hostevents.ACTIVE = False
        self._tracing = False
        self._memory = _memory_summary() if self.profile_memory else {}
        jax.profiler.stop_trace()
        xplane = find_xplane(self._dir)
        self._events = read_op_events(xplane) if xplane else []
        if self._events:
            name_xla_ops(xplane, xprof_namer())   # XProf / TensorBoard then show msx's nodes and Cells
        self._host = list(hostevents.EVENTS)
        hostevents.EVENTS.clear()

    def stop(self) -> None:
        """Stop recording; with `on_trace_ready`, hand the recording to it."""
        was = self._tracing
        self._end()
        if was and self.on_trace_ready is not None:
            self.on_trace_ready(self)
            self._cycle += 1

    def step(self) -> None:
        """The end of one training step: advance the schedule (start, save and restart recordings)."""
        if self.schedule is None:
            raise ProfilerError("Profiler.step() drives a schedule; construct it with schedule=schedule(...)")
        before = self.schedule(self._step)
        self._step += 1
        after = self.schedule(self._step)
        if before is ProfilerAction.RECORD_AND_SAVE:
            self.stop()
        if after in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE) and not self._tracing:
            self._begin()
        elif self._tracing:
            self._mark_step()

    def add_metadata(self, key: str, value: str) -> None:
        self.metadata[str(key)] = str(value)

    def add_metadata_json(self, key: str, value: str) -> None:
        self.metadata[str(key)] = json.loads(value)

    # ------------------------------------------------------------ results
    def _export(self, folder: str, analyse: bool = True) -> ProfileResult | None:
        if not analyse:
            return None
        result = analyse_events(self._events, self._host, getattr(self, "_memory", {}))
        write_outputs(result, folder, self._events, self.metadata)
        result.files["jax_trace"] = self._dir or ""
        self._last = result
        return result

    def analyse(self, offline_path: str | None = None, pretty: bool = False, step_list: list | None = None,
                mode: str = "sync") -> ProfileResult:
        """Stop recording (if still on) and analyse it into `output_path` (or `offline_path`): the per-node table
        (`msx_node_table.csv`), a summary (`msx_profile.json`) and an msx-named trace (`msx_trace.json.gz`,
        opens in Perfetto) next to jax's own trace. Returns the `ProfileResult` (MindSpore returns None)."""
        if step_list is not None:
            raise ProfilerError("analyse(step_list=...) is not supported: record the steps you want with a schedule")
        self._end()
        return self._export(os.path.abspath(offline_path or self.output_path))

    def __enter__(self) -> "profile":
        if not self._tracing:
            self.start()
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        self.stop()

    def __del__(self) -> None:
        if getattr(self, "_tracing", False):
            warnings.warn("msx.Profiler was dropped while recording; stopping it", stacklevel=1)
            try:
                self._end()
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass


class Profiler(profile):
    """MindSpore's `Profiler(output_path="./data", profile_memory=False, start_profile=True, ...)`:
    recording starts at construction unless `start_profile=False`; `analyse()` stops it and returns the tables."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)


def _memory_summary() -> dict:
    stats = jax.devices()[0].memory_stats()
    if not stats:
        return {"peak_device_memory_bytes": None,
                "memory_note": f"the {jax.devices()[0].platform} backend reports no device memory statistics"}
    return {"peak_device_memory_bytes": stats.get("peak_bytes_in_use"), "device_memory_stats": stats}


def memory_usage() -> dict:
    """Device memory as the backend reports it (`bytes_in_use`, `peak_bytes_in_use`, ...), or a note saying why
    there is none (XLA CPU keeps no statistics)."""
    return _memory_summary()
