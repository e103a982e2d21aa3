"""`msx.mint`: torch-style names over the same primitive registry as `msx.ops`."""
from __future__ import absolute_import, annotations  # noqa: F404  (MindSpore's mint has the name)

from .. import dtype as mstype
from ..ignored_args import not_honoured
from ..ops import functional as F
from ..ops.api import SURFACE
from ..ops.functional_random import keys_from as _keys_from
from ..ops.composite import constexpr  # noqa: F401  (MindSpore's mint re-exports it)
from ..tensor import Tensor  # noqa: F401  (MindSpore's mint exports Tensor too)
from . import distributed, nn  # noqa: F401
from .nn import functional  # noqa: F401

globals().update(SURFACE["mint"])  # the torch-style names declared with each op
relu = F.relu  # kept for msx programs written before mint.nn.functional.relu (MindSpore has it only there)
topk = F.topk


def add(input, other, *, alpha=1) -> Tensor:
    return F.add(input, other if alpha == 1 else F.mul(other, alpha))


def sub(input, other, *, alpha=1) -> Tensor:
    return F.sub(input, other if alpha == 1 else F.mul(other, alpha))




def mean(input, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    return F.mean(input if dtype is None else F.cast(input, dtype), dim, keepdim)


def max(input, dim=None, keepdim=False) -> Tensor | tuple[Tensor, Tensor]:
    """torch.max: the maximum over all elements, or (values, indices) along `dim`."""
    return F.amax(input) if dim is None else F.max(input, dim, keepdim)


def min(input, dim=None, keepdim=False) -> Tensor | tuple[Tensor, Tensor]:
    return F.amin(input) if dim is None else F.min(input, dim, keepdim)


def cumsum(input, dim, dtype=None) -> Tensor:
    return F.cumsum(input, dim, dtype)


def cat(tensors, dim=0) -> Tensor:
    return F.concat(tensors, dim)


concat = cat


def stack(tensors, dim=0) -> Tensor:
    return F.stack(tensors, dim)


def split(tensor, split_size_or_sections, dim=0) -> tuple[Tensor, ...]:
    return F.split(tensor, split_size_or_sections, dim)


def sort(input, *, dim=-1, descending=False, stable=False) -> tuple[Tensor, Tensor]:
    """(values, indices); msx's sort is always stable, which satisfies `stable=False` too."""
    return F.sort(input, dim, descending)


def argsort(input, dim=-1, descending=False, stable=False) -> Tensor:
    """Indices that sort `input` along `dim` (always a stable sort)."""
    return F.argsort(input, dim, descending)


def transpose(input, dim0, dim1) -> Tensor:
    return F.swapaxes(input, dim0, dim1)


def flatten(input, start_dim=0, end_dim=-1) -> Tensor:
    return F.flatten(input, start_dim=start_dim, end_dim=end_dim)


def gather(input, dim, index) -> Tensor:
    """torch-style gather along `dim` (MindSpore's GatherD)."""
    return F.gather_elements(input, dim, index)


def ones(size, *, dtype=None) -> Tensor:
    return F.ones(size, dtype)


def zeros(size, *, dtype=None) -> Tensor:
    return F.zeros(size, dtype)


def _placed(name: str, device) -> None:
    """`device=`: eager ops run on the context's device_target (msx.set_context), so another one warns."""
    not_honoured(f"mint.{name}", "device", device, None, "the tensor is created on the context's device_target")


def normal(mean=0.0, std=1.0, size=None, generator=None) -> Tensor:
    with _keys_from(generator, "mint.normal"):
        return F.normal(size, mean, std)


def rand(*size, generator=None, dtype=None, device=None) -> Tensor:
    _placed("rand", device)
    with _keys_from(generator, "mint.rand"):
        return F.rand(*size, dtype=dtype)


def randn(*size, generator=None, dtype=None, device=None) -> Tensor:
    _placed("randn", device)
    with _keys_from(generator, "mint.randn"):
        return F.randn(*size, dtype=dtype)


def randint(low, high, size, *, generator=None, dtype=None, device=None) -> Tensor:
    _placed("randint", device)
    with _keys_from(generator, "mint.randint"):
        return F.randint(low, high, size, dtype=dtype)


def rand_like(input, *, dtype=None, device=None) -> Tensor:
    _placed("rand_like", device)
    return F.rand_like(input, dtype=dtype)


def randn_like(input, *, dtype=None, device=None) -> Tensor:
    _placed("randn_like", device)
    return F.randn_like(input, dtype=dtype)


def randint_like(input, *args, dtype=None, device=None) -> Tensor:
    """torch's two forms: `randint_like(input, high)` draws from [0, high), `randint_like(input, low, high)`."""
    if len(args) not in (1, 2):
        raise TypeError(f"mint.randint_like: expected (input, high) or (input, low, high), got {len(args) + 1} "
                        f"positional arguments")
    _placed("randint_like", device)
    low, high = (0, args[0]) if len(args) == 1 else args
    return F.cast(F.randint_like(input, low, high, dtype=mstype.int64), dtype or input.dtype)  # floats too


def randperm(n, *, generator=None, dtype=mstype.int64) -> Tensor:
    with _keys_from(generator, "mint.randperm"):
        return F.randperm(n, dtype=dtype)


def multinomial(input, num_samples, replacement=False, *, generator=None) -> Tensor:
    """int64 category indices drawn with probabilities proportional to `input`'s rows (MindSpore's mint
    answers int64, where `ops.multinomial` answers int32)."""
    with _keys_from(generator, "mint.multinomial"):
        return F.cast(F.multinomial(input, num_samples, replacement), mstype.int64)


def empty(*size, dtype=None, device=None, pin_memory=False) -> Tensor:
    """A tensor of `size`; msx has no uninitialised memory, so it holds zeros (MindSpore leaves it undefined).
    `pin_memory` only places host memory for faster copies; msx keeps no pinned buffers."""
    _placed("empty", device)
    not_honoured("mint.empty", "pin_memory", pin_memory, False, "ordinary host memory")
    shape = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    return F.zeros(tuple(shape), dtype or mstype.float32)


def empty_like(input, *, dtype=None, device=None, pin_memory=False) -> Tensor:
    """A zero-filled tensor of `input`'s shape (and dtype unless given); see `empty`."""
    _placed("empty_like", device)
    not_honoured("mint.empty_like", "pin_memory", pin_memory, False, "ordinary host memory")
    return F.zeros(tuple(input.shape), dtype or input.dtype)


def linspace(start, end, steps, *, dtype=None) -> Tensor:
    """`steps` evenly spaced values from `start` to `end` (float32 unless `dtype` is given)."""
    out = F.linspace(start, end, steps)
    return out if dtype is None else F.cast(out, dtype)


def item(input) -> int | float | bool | complex:
    """The Python number of a one-element tensor."""
    return input.item()


conv2d = functional.conv2d
flatten_ext = flatten  # MindSpore's mint also exports its implementation names


def softmax_ext(input, dim=None, dtype=None) -> Tensor:
    return functional.softmax(input, dim, dtype)


def squeeze_impl(input, axis) -> Tensor:
    return F.squeeze(input, axis)


def cdist_(x1, x2, p=2.0) -> Tensor:
    return F.cdist(x1, x2, p)


def npu_gelu(input, approximate="none") -> Tensor:
    return functional.gelu(input, approximate=approximate)


def softmax(input, dim, *, dtype=None) -> Tensor:
    return F.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, dtype=None) -> Tensor:
    return F.log_softmax(input if dtype is None else F.cast(input, dtype), -1 if dim is None else dim)


from ..refused_runtime import MINT_NAMES as _MINT_REFUSED, NAMES as _REFUSED  # noqa: E402  (msx.unavailable)
globals().update({_n: _REFUSED[_n] for _n in _MINT_REFUSED})

__all__ = sorted(set(SURFACE["mint"]) | {n for n, v in list(globals().items())
                                         if callable(v) and not n.startswith("_")
                                         and n not in ("F", "SURFACE", "mstype", "not_honoured")}
                 | {"nn"})
