"""One counter of the Python-side state that compiled graphs depend on.

Every change to a Cell's attributes (a sub-Cell swapped, `self.k = 3`, a Parameter replaced, a container
appended to, `set_train`) and to a Parameter's `requires_grad` moves `EPOCH`. A cache entry remembers the
epoch at which it last confirmed the Cells and Parameters it depends on, so a call re-checks them only when
something somewhere changed: one integer comparison per call in the common case, a full check after a change.
"""
from __future__ import annotations

EPOCH = [0]


def touch() -> None:
    """Note that Cell or Parameter state changed (cache entries re-check theirs on their next call)."""
    EPOCH[0] += 1
