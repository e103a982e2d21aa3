"""Fast PyNative: compiled per-primitive dispatch (`dispatch`) and the eager autograd tape (`tape`).

Layer: above `tensor`/`errors`, below `ops` (which runs every eager primitive through `dispatch.run`) and
`autograd` (which differentiates through `tape` when it can). See docs/eager.md.
"""
from . import dispatch, lazy, tape
from .dispatch import cache_info


def clear_cache() -> None:
    """Empty the per-primitive executables and the tape's whole-backward replays (and their counters)."""
    lazy.clear()
    dispatch.clear_cache()
    tape.clear_replays()


__all__ = ["cache_info", "clear_cache"]
