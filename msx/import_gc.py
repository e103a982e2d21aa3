"""The garbage collector around `import msx`: fewer collections while importing, none of the imports later.

Importing msx (and jax under it) creates about 300,000 Python objects. CPython's collector runs a full
collection each time the surviving objects grow by a quarter, so the import pays for a dozen passes over an
ever larger heap (0.10-0.14 s on the 2-core machine), and every full collection afterwards walks all those
module-level objects again: 0.07 s of a CNN's first eager forward and 0.2 s of its first jitted step went to
the collector (measured with `gc.callbacks`, docs/jit.md#the-garbage-collector-and-the-first-call).

So `begin()` raises the youngest generation's threshold while msx imports (collections still run, 30x fewer),
and `end()` puts the user's thresholds back and moves every object that exists then into the collector's
permanent generation (`gc.freeze()`, CPython's tool for long-lived start-up state): later collections skip
them. Frozen objects are still freed when their reference count drops to zero; only cycles among objects made
before `import msx` ended are left uncollected. `MSX_GC_FREEZE=0` in the environment keeps the collector as it
was (no threshold change, no freeze).
"""
from __future__ import annotations

import gc
import os

IMPORT_THRESHOLD = 20_000  # objects allocated between young collections while importing (CPython's default: 700)
_SAVED: list[tuple[int, ...]] = []


def enabled() -> bool:
    return os.environ.get("MSX_GC_FREEZE", "1").strip().lower() not in ("0", "false", "off", "no")


def begin() -> None:
    """Collect less often while msx imports (the user's thresholds are kept for `end`)."""
    if enabled() and not _SAVED:
        _SAVED.append(gc.get_threshold())
        gc.set_threshold(max(IMPORT_THRESHOLD, _SAVED[0][0]), *_SAVED[0][1:])


def end() -> None:
    """Restore the user's thresholds and freeze what the import made."""
    if _SAVED:
        gc.set_threshold(*_SAVED.pop())
        gc.freeze()
