"""The runtime: every compiled entry of every capture mode, how it is found again and how it runs.

* `signature` — the cache key of a call's arguments;
* `cache` — the entries of one jitted function per signature key, each valid while its state guards hold;
* `compiled` — `Lowered`/`Compiled`, the one hot path that binds Parameters, runs the executable and writes
  state back;
* `sources` / `guards` — paths to Python values and the assumptions on them, compiled into one generated
  check function per entry;
* `python_guards` — the Python state a capture read (globals, closure variables, attributes, Cells reached,
  Parameters), turned into guards for the source and trace modes.

Capture modes find graphs; the runtime decides when a graph may be reused. Nothing here knows which capture
mode made an entry.
"""
