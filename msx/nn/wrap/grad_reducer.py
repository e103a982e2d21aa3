"""`nn.DistributedGradReducer`: averages (or sums) gradients over the ranks of a data-parallel job.

The gradients of one dtype are fused, as MindSpore's `fusion_type` does:
flattened, concatenated and reduced by ONE `AllReduce` primitive (a
`lax.psum` over the process mesh inside a compiled step, an eager collective
in PyNative), then split back and divided by `degree` when `mean` is set,
MindSpore's order. One collective instead of one per parameter: each costs a
round trip between the ranks. With `gradient_fp32_sync` (the default)
half-precision gradients are reduced in float32 and cast back.

Under the parallel optimizer's `level2` (ZeRO-2, msx.parallel.optimizer) the gradients of the parameters the
optimizer shards are reduce-scattered instead (one fused `ReduceScatter` per dtype): each rank gets only its
rows of them, which is what the optimizer updates. The reducer reads the optimizer's marks when it runs, so it
may be built before or after the optimizer.
"""
from __future__ import annotations

from typing import Sequence

from ... import dtype as mstype
from ...communication import management
from ...communication.management import GlobalComm, get_group_size
from ...ops import functional as F
from ...ops.comm_ops import AllReduce
from ...parallel import optimizer as _zero
from ...parallel.context import get_auto_parallel_context
from ..cell import Cell

_HALF = (mstype.float16, mstype.bfloat16)


class DistributedGradReducer(Cell):
    """`DistributedGradReducer(parameters, mean=None, degree=None, fusion_type=1, group=WORLD_COMM_GROUP)`.

    `mean=None` takes `gradients_mean` from the auto-parallel context; `degree=None` is the group's size.
    `fusion_type` is accepted for MindSpore's signature: XLA fuses the collectives itself.
    """

    def __init__(self, parameters: Sequence, mean: bool | None = None, degree: int | None = None,
                 fusion_type: int = 1, group: str = GlobalComm.WORLD_COMM_GROUP) -> None:
        super().__init__(auto_prefix=False)
        if degree is not None and (not isinstance(degree, int) or isinstance(degree, bool) or degree < 1):
            raise ValueError(f"DistributedGradReducer: degree must be an int >= 1, got {degree!r}")
        self.mean = get_auto_parallel_context("gradients_mean") if mean is None else bool(mean)
        self.degree = get_group_size(group) if degree is None else degree
        self.fp32_sync = get_auto_parallel_context("gradient_fp32_sync")
        parameters = list(parameters)
        self.num_parameters = len(parameters)
        self.all_reduce = AllReduce(group=group)
        # plain attributes (not cell parameters): whose gradients level2 reduce-scatters, read at each call
        object.__setattr__(self, "_weights", tuple(parameters))
        object.__setattr__(self, "_world", group in management._WORLD_NAMES)

    def _fused(self, grads: list) -> list:
        """One AllReduce for gradients of one dtype: flattened, concatenated, reduced, split back."""
        if len(grads) == 1:
            return [self.all_reduce(grads[0])]
        sizes = [int(g.size) for g in grads]
        total = self.all_reduce(F.concat([F.reshape(g, (-1,)) for g in grads], 0))
        starts = [sum(sizes[:i]) for i in range(len(sizes))]
        return [F.reshape(total[a:a + n], g.shape) for g, a, n in zip(grads, starts, sizes)]

    def construct(self, grads):
        if len(grads) != self.num_parameters:
            raise ValueError(f"DistributedGradReducer: got {len(grads)} gradients for {self.num_parameters} "
                             f"parameters")
        wire = [F.cast(g, mstype.float32) if self.fp32_sync and g.dtype in _HALF else g for g in grads]
        out: list = [None] * len(grads)
        dtypes: list = []
        for w in wire:
            if w.dtype not in dtypes:
                dtypes.append(w.dtype)
        parts = [_zero.scatter_parts(p) if self._world else 1 for p in self._weights]
        for dtype in dtypes:
            chosen = [i for i, w in enumerate(wire) if w.dtype == dtype and parts[i] == 1]
            scattered = [i for i, w in enumerate(wire) if w.dtype == dtype and parts[i] > 1]
            pairs = list(zip(chosen, self._fused([wire[i] for i in chosen]) if chosen else []))
            if scattered:  # level2: this rank's rows of the reduced gradient only
                pairs += zip(scattered, _zero.scatter_gradients([wire[i] for i in scattered],
                                                                [parts[i] for i in scattered]))
            for i, reduced in pairs:
                reduced = F.div(reduced, self.degree) if self.mean else reduced
                out[i] = F.cast(reduced, grads[i].dtype) if reduced.dtype != grads[i].dtype else reduced
        return tuple(out)
