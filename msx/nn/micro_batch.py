"""Micro-batching wrappers (issue 35): `GradAccumulationCell` / `parallel.nn.GradAccumulation`,
`MicroBatchInterleaved`, `PipelineCell` / `parallel.nn.Pipeline`, and `PipelineGradReducer`.

MindSpore's meaning, kept here: the wrapper cuts every input along axis 0 into `micro_size` equal slices, runs
the network on each, and returns the SUM of the outputs; differentiating that sum gives the sum of the
micro-batches' gradients, which is what MindSpore's backend accumulates into its `accu_grads`, and
`PipelineGradReducer` hands the accumulated gradients on divided by `scale_sense`. With one stage there is no
schedule to run: the micro-batches run one after another inside the same graph (XLA may overlap them). With
`set_auto_parallel_context(pipeline_stages=N)`, N > 1, a `PipelineCell` is one jax computation: the network
cut into stages by its Cells' `pipeline_stage`, the micro-batches scheduled over the mesh's `pipe` axis
(GPipe or 1F1B, `msx.parallel.pipeline`); the value and the gradients are the same sums.
"""
from __future__ import annotations

from typing import Any

from ..communication.management import GlobalComm
from ..errors import ContextError
from ..parallel import pipeline, sharding, stage_params
from ..parallel.context import GLOBAL_VIEW_MODES, ParallelMode, get_auto_parallel_context, stage_count
from ..tensor import Tensor
from ._backward import pure_construct
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

    def __init__(self, network: Cell, micro_size: int) -> None:
        super().__init__(network, micro_size)


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
    sub-Cell has is a KeyError (MindSpore's); segments (virtual stages) other than 0 are not run by msx."""
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
        if attr == "pipeline_segment" and index != 0:
            raise ContextError(f"PipelineCell: {what}[{name!r}] = {index}: interleaved pipeline segments (virtual "
                               f"stages) are not supported by msx yet (issue 35)")
        target = cells.get(name, network)
        if attr == "pipeline_stage":
            target.pipeline_stage = index   # Cell.pipeline_stage's checks
        else:
            object.__setattr__(target, attr, index)


class PipelineCell(_MicroBatched):
    """MindSpore's `nn.PipelineCell(network, micro_size, stage_config=None, segment_config=None)` (also
    `parallel.nn.Pipeline`/`PipelineCell`). With one pipeline stage the micro-batches run one after another and
    their outputs are added. With `pipeline_stages > 1` (semi_auto/auto_parallel) the network is cut into stages
    by its Cells' `pipeline_stage` and the micro-batches run on the mesh's `pipe` axis, scheduled by
    `pipeline_config["pipeline_scheduler"]` (msx.parallel.pipeline); the result is the same sum."""

    def __init__(self, network: Cell, micro_size: int, stage_config: dict | None = None,
                 segment_config: dict | None = None) -> None:
        super().__init__(network, micro_size)
        stages = get_auto_parallel_context("pipeline_stages")
        if micro_size < stages:
            raise ValueError(f"PipelineCell: micro_size={micro_size} must be >= pipeline_stages={stages}")
        stage_params.register(network)   # a global-view step keeps its Parameters on their own stages
        _configure(network, stage_config, "pipeline_stage", "stage_config")
        _configure(network, segment_config, "pipeline_segment", "segment_config")

    def runs_as_jax(self) -> bool:
        """Several stages: the whole call is one jax computation (a node of its own in a compiled graph)."""
        return get_auto_parallel_context("pipeline_stages") > 1

    def construct(self, *args, **kwargs):
        if not self.runs_as_jax():
            return super().construct(*args, **kwargs)
        return _staged(self, args, kwargs)


def _staged(cell: PipelineCell, args: tuple, kwargs: dict):
    """The network over `pipeline_stages` stages (runs inside jax's trace of the PipelineCell's node)."""
    who = type(cell).__name__
    if kwargs:
        raise TypeError(f"{who}: with pipeline_stages > 1 the inputs must be positional, got keywords {sorted(kwargs)}")
    if get_auto_parallel_context("parallel_mode") not in GLOBAL_VIEW_MODES:
        raise ContextError(f"{who}: pipeline_stages > 1 needs parallel_mode semi_auto_parallel or auto_parallel "
                           f"(MindSpore's rule), got {get_auto_parallel_context('parallel_mode')!r}")
    device_num = get_auto_parallel_context("device_num")
    count, n = stage_count(device_num), cell.micro_size
    if n < count:
        raise ValueError(f"{who}: micro_size={n} must be >= pipeline_stages={count}")
    stage_cells = [(c, c.__dict__["_pipeline_stage"]) for _, c in cell.network.cells_and_names()
                   if "_pipeline_stage" in c.__dict__]
    if not any(k > 0 for _, k in stage_cells):
        raise ContextError(f"{who}: pipeline_stages={count} but no Cell of the network has pipeline_stage > 0; set "
                           f"`cell.pipeline_stage = k` on the Cells of each stage (or stage_config)")
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    micro = []
    for i in positions:
        x = args[i]._data
        if not x.ndim or x.shape[0] % n:
            raise ValueError(f"{who}: input {i} of shape {tuple(x.shape)} cannot be cut into {n} micro-batches "
                             f"along axis 0 (its size must divide by {n})")
        x = x.reshape(n, x.shape[0] // n, *x.shape[1:])
        # each micro-batch's rows cut over the stage's devices (data parallel inside a stage), not one micro-batch
        # per device: a stage reads one micro-batch at a time
        micro.append(sharding.constrain(x, ((),) + sharding.batch_spec(x.shape[1:], device_num // count)))
    params = list(cell.network.get_parameters())
    param_arrays = [p._data for p in params]
    box: list = []
    pure = pure_construct(cell.network, list(args), positions, params, {}, box)
    mesh = sharding.lowering_mesh() or sharding.strategy_mesh(device_num, count)
    if sharding.PIPE not in mesh.axis_names:
        raise ContextError(f"{who}: the mesh being lowered over has no {sharding.PIPE!r} axis: {mesh.axis_names}")
    stages = pipeline.trace_micro(pure, [m[0] for m in micro], param_arrays, stage_cells, count, mesh, who)
    if len(stages.jaxpr.outvars) != 1:
        raise TypeError(f"{who}: the wrapped network must return one Tensor (its outputs are added), got "
                        f"{len(stages.jaxpr.outvars)} outputs")
    out = pipeline.pipelined(stages, mesh, get_auto_parallel_context("pipeline_scheduler"))(micro, param_arrays)
    return Tensor._from(out[0])


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
