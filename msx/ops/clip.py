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


@expose(ops="clip_by_norm")
def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale `x` (a tensor, or a tuple/list of them taken together) so that its `norm_type` norm is at most
    `max_norm`: coefficient `max_norm / (total_norm + 1e-6)`, clamped to 1 (MindSpore's formula)."""
    tensors = list(x) if isinstance(x, (tuple, list)) else [x]
    norm_type = float(norm_type)
    norms = [F.norm(F.reshape(t, (-1,)), norm_type) for t in tensors]
    total = F.norm(F.stack(norms), norm_type) if len(norms) > 1 else norms[0]
    if error_if_nonfinite and not bool(F.isfinite(total).asnumpy()):
        raise RuntimeError(f"clip_by_norm: the total norm of order {norm_type} is non-finite, so it cannot be "
                           f"clipped; pass error_if_nonfinite=False to clip anyway")
    coef = F.clamp(F.div(max_norm, F.add(total, 1e-6)), None, 1.0)
    out = [F.mul(t, F.cast(coef, t.dtype)) for t in tensors]
    return type(x)(out) if isinstance(x, (tuple, list)) else out[0]
