"""`nn.DistributedGradReducer`: averages (or sums) gradients over the ranks of a data-parallel job.

Each gradient goes through the `AllReduce` primitive (a `lax.psum` over the
process mesh inside a compiled step, an eager collective in PyNative), then is
divided by `degree` when `mean` is set, MindSpore's order. With
`gradient_fp32_sync` (the default) half-precision gradients are reduced in
float32 and cast back.
"""
from __future__ import annotations

from typing import Sequence

from .. import dtype as mstype
from ..communication.management import GlobalComm
from ..ops import functional as F
from ..ops.comm_ops import AllReduce
from ..parallel.context import get_auto_parallel_context
from .cell import Cell

_HALF = (mstype.float16, mstype.bfloat16)


class DistributedGradReducer(Cell):
    """`DistributedGradReducer(parameters, mean=None, degree=None, fusion_type=1, group=WORLD_COMM_GROUP)`.

    `mean=None` takes `gradients_mean` from the auto-parallel context; `degree=None` is the group's size.
    `fusion_type` is accepted for MindSpore's signature: XLA fuses the collectives itself.
    """

    def __init__(self, parameters: Sequence, mean: bool | None = None, degree: int | None = None,
                 fusion_type: int = 1, group: str = GlobalComm.WORLD_COMM_GROUP) -> None:
        super().__init__(auto_prefix=False)
        from ..communication.management import get_group_size

        if degree is not None and (not isinstance(degree, int) or isinstance(degree, bool) or degree < 1):
            raise ValueError(f"DistributedGradReducer: degree must be an int >= 1, got {degree!r}")
        self.mean = get_auto_parallel_context("gradients_mean") if mean is None else bool(mean)
        self.degree = get_group_size(group) if degree is None else degree
        self.fp32_sync = get_auto_parallel_context("gradient_fp32_sync")
        self.num_parameters = len(list(parameters))
        self.all_reduce = AllReduce(group=group)

    def _reduce(self, grad):
        cast = self.fp32_sync and grad.dtype in _HALF
        out = self.all_reduce(F.cast(grad, mstype.float32) if cast else grad)
        if self.mean:
            out = F.div(out, self.degree)
        return F.cast(out, grad.dtype) if cast else out

    def construct(self, grads):
        if len(grads) != self.num_parameters:
            raise ValueError(f"DistributedGradReducer: got {len(grads)} gradients for {self.num_parameters} "
                             f"parameters")
        return tuple(self._reduce(g) for g in grads)
