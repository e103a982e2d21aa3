"""Micro-batching wrappers (issue 35): `GradAccumulationCell` / `parallel.nn.GradAccumulation`,
`MicroBatchInterleaved`, `PipelineCell` / `parallel.nn.Pipeline` with one pipeline stage, and
`PipelineGradReducer`.

MindSpore's meaning, kept here: the wrapper cuts every input along axis 0 into `micro_size` equal slices, runs
the network on each, and returns the SUM of the outputs; differentiating that sum gives the sum of the
micro-batches' gradients, which is what MindSpore's backend accumulates into its `accu_grads`, and
`PipelineGradReducer` hands the accumulated gradients on divided by `scale_sense`. With one stage there is no
schedule to run: the micro-batches run one after another inside the same graph (XLA may overlap them). A
pipeline of more than one stage is refused by `set_auto_parallel_context(pipeline_stages=...)`, and a
`stage_config` naming a stage other than 0 is refused here (issue 35 item 1).
"""
from __future__ import annotations

from typing import Any

from ..communication.management import GlobalComm
from ..errors import ContextError
from ..parallel.context import ParallelMode, get_auto_parallel_context
from ..tensor import Tensor
from .cell import Cell


def _check(who: str, network: Any, count: Any, what: str) -> None:
    if not isinstance(network, Cell):
        raise TypeError(f"For '{who}', the argument 'network' must be a Cell, but got {type(network).__name__}")
    if not isinstance(count, int) or isinstance(count, bool):
        raise TypeError(f"For '{who}', the argument '{what}' must be an int, but got {type(count).__name__}")
    if count <= 0:
        raise ValueError(f"For '{who}', the argument '{what}' must be larger than 0, but got {count}")


def micro_slice(who: str, i: int, n: int, values: tuple) -> tuple:
    """The i-th of n equal slices along axis 0 of every Tensor in `values` (MindSpore's `_MicroBatch`)."""
    out = []
    for k, v in enumerate(values):
        if isinstance(v, Tensor):
            rows = v.shape[0] if v.ndim else None
            if rows is None or rows % n:
                raise ValueError(f"{who}: input {k} of shape {tuple(v.shape)} cannot be cut into {n} micro-batches "
                                 f"along axis 0 (its size must divide by {n})")
            step = rows // n
            v = v[step * i:step * (i + 1)]
        out.append(v)
    return tuple(out)


def _summed(who: str, total, output):
    if not isinstance(output, Tensor):
        raise TypeError(f"{who}: the wrapped network must return one Tensor (its outputs are added), got "
                        f"{type(output).__name__}")
    return output if total is None else total + output


class _MicroBatched(Cell):
    """The shared body: the network on each micro-batch, the outputs added."""

    _count_name = "micro_size"

    def __init__(self, network: Cell, count: int) -> None:
        super().__init__(auto_prefix=False)
        _check(type(self).__name__, network, count, self._count_name)
        self.network = network
        setattr(self, self._count_name, count)

    def construct(self, *args, **kwargs):
        n, who = getattr(self, self._count_name), type(self).__name__
        total = None
        keys = list(kwargs)
        for i in range(n):
            micro = micro_slice(who, i, n, args + tuple(kwargs[k] for k in keys))
            out = self.network(*micro[:len(args)], **dict(zip(keys, micro[len(args):])))
            total = _summed(who, total, out)
        return total


class GradAccumulationCell(_MicroBatched):
    """MindSpore's `nn.GradAccumulationCell(network, micro_size)` (also `parallel.nn.GradAccumulation`): the sum
    of `network` over `micro_size` micro-batches, so its gradients are the accumulated micro-batch gradients."""


class GradAccumulation(GradAccumulationCell):
    """`mindspore.parallel.nn.GradAccumulation`: the same as `nn.GradAccumulationCell`."""


class MicroBatchInterleaved(_MicroBatched):
    """MindSpore's `nn.MicroBatchInterleaved(network, interleave_num=2)`: the batch in `interleave_num` slices,
    the outputs added. MindSpore splits to overlap one slice's communication with the other's compute; XLA
    schedules that itself, and the values are the same."""

    _count_name = "interleave_num"

    def __init__(self, network: Cell, interleave_num: int = 2) -> None:
        super().__init__(network, interleave_num)


def _configure(network: Cell, config: dict | None, attr: str, what: str) -> None:
    """MindSpore's `stage_config` / `segment_config`: {sub-Cell path: index}, each set as `cell.<attr>`; a name no
    sub-Cell has is a KeyError (MindSpore's), an index other than 0 needs a pipeline msx does not run yet."""
    if config is None:
        return
    if not isinstance(config, dict):
        raise TypeError(f"PipelineCell: {what} must be a dict of sub-Cell name -> index, got {config!r}")
    cells = dict(network.cells_and_names())
    unknown = [k for k in config if k not in cells and k != str(network)]
    if unknown:
        raise KeyError(f"For 'PipelineCell', the argument '{what}' : {unknown} is not found in 'network'; "
                       f"sub-Cells are {[n for n in cells if n]}")
    for name, index in config.items():
        if index != 0:
            raise ContextError(f"PipelineCell: {what}[{name!r}] = {index}: pipeline parallelism with more than one "
                               f"stage is not supported by msx yet (issue 35); with pipeline_stages=1 every Cell is "
                               f"stage 0")
        object.__setattr__(cells.get(name, network), attr, index)


class PipelineCell(_MicroBatched):
    """MindSpore's `nn.PipelineCell(network, micro_size, stage_config=None, segment_config=None)` (also
    `parallel.nn.Pipeline`/`PipelineCell`) with one pipeline stage: the micro-batches of a pipeline run one after
    another and their outputs are added (MindSpore's result on one stage)."""

    def __init__(self, network: Cell, micro_size: int, stage_config: dict | None = None,
                 segment_config: dict | None = None) -> None:
        super().__init__(network, micro_size)
        stages = get_auto_parallel_context("pipeline_stages")
        if micro_size < stages:
            raise ValueError(f"PipelineCell: micro_size={micro_size} must be >= pipeline_stages={stages}")
        _configure(network, stage_config, "pipeline_stage", "stage_config")
        _configure(network, segment_config, "pipeline_segment", "segment_config")


class Pipeline(PipelineCell):
    """`mindspore.parallel.nn.Pipeline`: the same as `nn.PipelineCell`."""


class PipelineGradReducer(Cell):
    """MindSpore's `PipelineGradReducer(parameters, scale_sense=1.0, opt_shard=None)`: the gradients accumulated
    over a `PipelineCell`'s micro-batches, divided by `scale_sense`.

    In MindSpore the backend writes the micro-batch gradients into `accu_grads` Parameters and the reducer reads
    and zeroes them; in msx the gradient of the summed micro-batch outputs already is that sum, so the reducer
    divides the gradients it is given. It does not all-reduce (MindSpore's reducer is an identity there too):
    in semi_auto/auto_parallel XLA reduces over the mesh, and a multi-rank DATA_PARALLEL job needs
    `nn.DistributedGradReducer`, so building one there is refused."""

    def __init__(self, parameters, scale_sense: float = 1.0, opt_shard: bool | None = None) -> None:
        super().__init__(auto_prefix=False)
        if get_auto_parallel_context("parallel_mode") == ParallelMode.DATA_PARALLEL and GlobalComm.INITED and \
                get_auto_parallel_context("device_num") > 1:
            raise ContextError("PipelineGradReducer does not reduce over data-parallel ranks; in DATA_PARALLEL use "
                               "nn.DistributedGradReducer(optimizer.parameters)")
        if isinstance(scale_sense, bool) or not isinstance(scale_sense, (int, float)) or scale_sense <= 0:
            raise TypeError(f"PipelineGradReducer: scale_sense must be a positive number, got {scale_sense!r}")
        self.parameters = tuple(parameters)
        self.scale_sense = float(scale_sense)
        self.opt_shard = get_auto_parallel_context("enable_parallel_optimizer") if opt_shard is None else opt_shard

    def construct(self, grads):
        grads = tuple(grads)
        if len(grads) != len(self.parameters):
            raise ValueError(f"PipelineGradReducer: got {len(grads)} gradients for {len(self.parameters)} "
                             f"parameters")
        if self.scale_sense == 1.0:
            return grads
        return tuple(g / self.scale_sense for g in grads)
