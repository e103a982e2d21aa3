"""Reading the XLA op executions out of a `jax.profiler` trace (the `.xplane.pb` that XProf/TensorBoard read).

jax's own reader (`jax.profiler.ProfileData`) walks the planes; each XLA op
execution is an event carrying `hlo_module` / `hlo_op` stats (on CPU the
thunk executor's events, on GPU the device planes' kernels). An op that
contains others (a `while`, a `conditional`) is counted by its self time, so
the loop body's ops are not counted twice.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass

from jax.profiler import ProfileData


@dataclass
class OpEvent:
    module: str      # HLO module name, "jit_<graph>"
    op: str          # HLO instruction name
    run_id: int      # one execution of the module
    start_ns: int
    self_ns: int     # duration minus the XLA ops nested inside it
    thread: str
    dur_ns: int = 0  # the whole duration


def find_xplane(trace_dir: str) -> str | None:
    """The newest `.xplane.pb` under a `jax.profiler` trace directory."""
    found = glob.glob(os.path.join(trace_dir, "**", "*.xplane.pb"), recursive=True)
    return max(found, key=os.path.getmtime) if found else None


def read_op_events(xplane_path: str) -> list[OpEvent]:
    """Every XLA op execution in the trace, with self times."""
    data = ProfileData.from_file(xplane_path)
    events: list[OpEvent] = []
    for plane in data.planes:
        for line in plane.lines:
            raw = []
            for e in line.events:
                stats = dict(e.stats)
                if "hlo_op" in stats and "hlo_module" in stats:
                    raw.append((int(e.start_ns), int(e.duration_ns), stats))
            raw.sort(key=lambda r: (r[0], -r[1]))
            stack: list[list] = []   # open events: [end, index into `done`]
            done: list[list] = []
            for start, dur, stats in raw:
                while stack and stack[-1][0] <= start:
                    stack.pop()
                if stack:
                    done[stack[-1][1]][4] -= min(dur, stack[-1][0] - start)
                done.append([str(stats["hlo_module"]), str(stats["hlo_op"]), int(stats.get("run_id", 0)), start, dur,
                             dur])
                stack.append([start + dur, len(done) - 1])
            events += [OpEvent(m, op, run, start, max(selfns, 0), f"{plane.name}/{line.name}", dur)
                       for m, op, run, start, selfns, dur in done]
    return events
