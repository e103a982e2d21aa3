"""`msx.parallel`: the parallel context (`set_auto_parallel_context`, `ParallelMode`) and the SPMD program."""
