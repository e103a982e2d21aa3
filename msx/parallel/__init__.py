"""`msx.parallel`: the parallel context (`set_auto_parallel_context`, `ParallelMode`) and the SPMD program."""
from __future__ import absolute_import  # noqa: F401  (mindspore.parallel exports it too)
