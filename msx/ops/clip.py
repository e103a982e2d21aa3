"""Gradient clipping by global norm: MindSpore's `ops.clip_by_global_norm`, computed by optax."""
from __future__ import annotations

from typing import Sequence

from ..tensor import Tensor
from . import functional as F
from .api import expose
from .primitive import apply, primitive


@primitive("ClipByGlobalNorm", attrs=("clip_norm",), category="other", multiple_results=True)
def _clip_by_global_norm(*xs, clip_norm: float):
    """Scale all inputs by `clip_norm / max(global_norm, clip_norm)` (optax.clip_by_global_norm)."""
    import optax  # on first use: optax is 45 ms of `import msx` (issue 31)

    clipped, _ = optax.clip_by_global_norm(clip_norm).update(list(xs), optax.EmptyState())
    return tuple(clipped)


@expose(ops="clip_by_global_norm", prim="ClipByGlobalNorm")
def clip_by_global_norm(x: Sequence[Tensor] | Tensor, clip_norm: float | Tensor = 1.0,
                        use_norm: Tensor | float | None = None) -> tuple[Tensor, ...] | Tensor:
    """MindSpore's `ops.clip_by_global_norm`: clip a tuple of tensors (usually grads) so their joint L2 norm is
    at most `clip_norm`; `use_norm`, when given, is taken as the global norm instead of computing it.

    Returns a tuple like `x` (a single Tensor for a single Tensor).
    """
    clip_norm = float(clip_norm)
    if clip_norm <= 0:
        raise ValueError(f"clip_by_global_norm: clip_norm must be > 0, got {clip_norm}")
    single = isinstance(x, Tensor)
    xs = (x,) if single else tuple(x)
    if not xs or not all(isinstance(t, Tensor) for t in xs):
        got = ", ".join(type(t).__name__ for t in xs) or "nothing"
        raise TypeError(f"clip_by_global_norm: x must be a Tensor or a non-empty tuple/list of Tensors, got {got}")
    if use_norm is None:
        out = apply(_clip_by_global_norm, xs, {"clip_norm": clip_norm})
    else:
        factor = F.div(clip_norm, F.maximum(use_norm, clip_norm))
        out = tuple(F.mul(t, F.cast(factor, t.dtype)) for t in xs)
    return out[0] if single else out
