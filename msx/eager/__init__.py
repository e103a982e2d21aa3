"""Fast PyNative: compiled per-primitive dispatch (`dispatch`) and the eager autograd tape (`tape`).

Layer: above `tensor`/`errors`, below `ops` (which runs every eager primitive through `dispatch.run`) and
`autograd` (which differentiates through `tape` when it can). See docs/eager.md.
"""
from .dispatch import cache_info, clear_cache

__all__ = ["cache_info", "clear_cache"]
