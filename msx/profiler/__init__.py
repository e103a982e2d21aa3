"""`msx.Profiler` / `msx.profiler.profile`: where a run spends its time, per msx node, stage and source line.

    profiler = msx.Profiler(output_path="./prof")
    for step in range(10):
        train_step(x, y)
    result = profiler.analyse()          # stops recording, writes the files, returns the tables
    print(result)                        # per-node table: calls, total/mean time, fwd/bwd, share

Recording is a `jax.profiler` trace (Perfetto / TensorBoard-XProf) plus msx's
host events; see docs/profiler.md.
"""
from .analysis import NodeTime, ProfileResult
from .profiler import (Profiler, ProfilerAction, ProfilerActivity, ProfilerLevel, memory_usage, profile, schedule,
                       tensorboard_trace_handler)

__all__ = ["Profiler", "profile", "schedule", "tensorboard_trace_handler", "ProfilerActivity", "ProfilerLevel",
           "ProfilerAction", "ProfileResult", "NodeTime", "memory_usage"]
