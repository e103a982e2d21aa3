"""How a compiled graph spans several devices: the one SPMD program of a parallel job (`layout`).

MindSpore's data parallelism is per rank: each rank computes on its own batch
and `AllReduce` joins the ranks. On jax's engine that is `jax.shard_map` over
the mesh (`ranks`, `local`) (`RanksLayout`): every input of a compiled graph,
the rank's own value, is its rank's part of a global array, the graph runs on
it, the collectives inside it lower to `lax.psum` over `AXIS`, and each rank
reads its part of the results back; a rank driving several local devices cuts
its batch over them. SEMI_AUTO/AUTO_PARALLEL are global view (`GlobalLayout`):
one jit over the strategy mesh, XLA's partitioner does the rest. An eager
collective is the same lax code as a one-op `shard_map` program over the
sub-mesh of its group's ranks (one device per process); eager point-to-point
transfers are `msx.parallel.p2p`.
"""
from __future__ import annotations

import contextlib
import functools
import math
import threading
import weakref
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from ..errors import CommunicationError, ContextError, OpError
from . import context, group_info, op_strategy, sharding, stage_params, strategy_file, zero

AXIS = "ranks"


class _State(threading.local):
    inside = False  # tracing the body of the SPMD program: collectives are lax collectives over AXIS


_state = _State()


def enabled() -> bool:
    """True when compiled graphs span more than one device (see `layout`)."""
    return layout() is not None


def inside() -> bool:
    return _state.inside


@contextlib.contextmanager
def _tracing_body():
    before, _state.inside = _state.inside, True
    try:
        yield
    finally:
        _state.inside = before


def settled(result: Any) -> Any:
    """Wait for a collective's result. jax dispatches asynchronously, and two collectives in flight at once may
    run in a different order on different ranks (on CPU, gloo pairs them by order): one at a time keeps every
    rank's sequence of collectives the same, so no rank ever sums another rank's different tensor."""
    return jax.block_until_ready(result)


# ----------------------------------------------------------------- how a compiled graph spans the devices
def layout() -> "RanksLayout | GlobalLayout | None":
    """The layout compiled graphs get now, from the parallel context and jax's devices; None: one device."""
    mode, n = context.get_parallel_mode(), context.get_auto_parallel_context("device_num")
    if mode in context.GLOBAL_VIEW_MODES:
        context.check_device_num(n)
        return GlobalLayout(n) if n > 1 else None
    per_process = n // jax.process_count() if mode == context.ParallelMode.DATA_PARALLEL else 1
    if jax.process_count() > 1 or per_process > 1:
        return RanksLayout(max(per_process, 1))
    return None


class RanksLayout:
    """MindSpore's data parallelism: every rank (process) runs the user's step on its own batch, `AllReduce`
    joins the ranks. One `jax.shard_map` program over the mesh (`ranks`, `local`): manual over `ranks` (the
    graph sees the rank's own values, its collectives are `lax.psum` over `ranks`), automatic over `local`, the
    rank's `per_process` devices: an input's rank-local batch is cut over them (`NamedSharding` on its first
    dimension) and XLA's partitioner splits the rank's step across them, which never changes its results.
    A job of one process needs no manual axis (its collectives are over one rank, the identity): its step is
    a plain `jax.jit` whose inputs are cut over the local devices, placed by one `device_put`.

    Every argument and result of the multi-process program is a global array of the rank's own shape, declared
    replicated over `ranks` (`P()`), whose buffer on each rank is that rank's value: making one from a rank's
    array, and reading a rank's array back, copies nothing (`_to_global`, `_keep`). The updated Parameters keep
    their global array between steps (`_GLOBALS`), so a step converts only the inputs it has not seen."""

    def __init__(self, per_process: int) -> None:
        self.per_process = per_process
        self.mesh = _ranks_mesh(per_process)
        self.single = jax.process_count() == 1
        self.row, self.split = _shardings(per_process)

    def _sharding(self, shape: tuple, cut: bool) -> NamedSharding:
        k = self.per_process
        return self.split if cut and k > 1 and len(shape) and shape[0] % k == 0 else self.row

    def lower(self, fn, args: tuple, names: tuple, donate: tuple, updates: tuple = ()):
        """Inputs are cut over the rank's local devices on their batch dimension, and so is the optimizer
        parallel's state (`CUT_STATE`), in and out; every other argument and result is whole on each."""
        self.in_shardings = tuple([self._sharding(s.shape, group == 0 or n in CUT_STATE)
                                   for s, n in zip(part, part_names)]
                                  for group, (part, part_names) in enumerate(zip(args, names)))
        placed = {n: sh for part_names, shardings in zip(names[1:], self.in_shardings[1:])
                  for n, sh in zip(part_names, shardings)}
        self.update_shardings = [placed.get(n, self.row) for n in updates]
        out_shardings = (self.row, self.update_shardings, self.row)
        structs = tuple([jax.ShapeDtypeStruct(s.shape, s.dtype, sharding=sh) for s, sh in zip(part, shardings)]
                        for part, shardings in zip(args, self.in_shardings))
        if self.single:
            return jax.jit(fn, donate_argnums=donate, out_shardings=out_shardings).lower(*structs)

        def body(*values):
            with _tracing_body():
                out = fn(*values)
            return jax.tree_util.tree_map(jnp.asarray, out)

        # P(): each rank's buffer is its own value (unchecked, check_vma=False), so no row is added or taken
        program = jax.shard_map(body, mesh=self.mesh, in_specs=P(), out_specs=P(), axis_names={AXIS},
                                check_vma=False)
        return jax.jit(program, donate_argnums=donate, out_shardings=out_shardings).lower(*structs)

    def _to_global(self, x, sharding: NamedSharding) -> jax.Array:
        """The program's argument for the rank's array `x`: the one remembered for it, else a new one sharing
        `x`'s buffer (and, cut or copied, on the rank's other local devices)."""
        known = _GLOBALS.get(id(x))
        if known is not None and known[0]() is x and known[1] is sharding and not known[2].is_deleted():
            return known[2]
        x = jnp.asarray(x)
        devices = self.mesh.devices[jax.process_index()]
        pieces = jnp.split(x, len(devices)) if sharding is self.split else [x] * len(devices)
        shards = [jax.device_put(p, d) for p, d in zip(pieces, devices)]
        g = jax.make_array_from_single_device_arrays(x.shape, sharding, shards)
        _remember(x, sharding, g)
        return g

    def _keep(self, g: jax.Array, sharding: NamedSharding) -> jax.Array:
        """The rank's array of the program's result `g` (on its first local device, or cut over its local devices
        as `g` is, sharing the buffers), with `g` remembered for it: a Parameter updated to it feeds `g` itself
        to the next step."""
        if sharding is self.split:
            order = {d: i for i, d in enumerate(self.mesh.devices[jax.process_index()])}
            shards = [s.data for s in sorted(g.addressable_shards, key=lambda s: order[s.device])]
            shape, placement = (sum(s.shape[0] for s in shards), *g.shape[1:]), local_sharding(self.per_process)
        else:
            shards = [g.addressable_data(0)]
            shape, placement = shards[0].shape, shards[0].sharding
        # a new array object, not `g`'s own: `g` does not keep it alive, so a Parameter that drops it drops `g`,
        # and the runtime's reference count of it (may it donate the buffer?) sees the Parameter alone
        mine = jax.make_array_from_single_device_arrays(shape, placement, shards)
        _remember(mine, sharding, g)
        return mine

    def run(self, compiled, inputs: tuple):
        if self.single:
            return _run_placed(compiled, inputs, self.in_shardings)
        placed = [[self._to_global(x, sh) for x, sh in zip(part, shardings)]
                  for part, shardings in zip(inputs, self.in_shardings)]
        outs, updates, extras = settled(compiled(*placed))
        first = functools.partial(jax.tree_util.tree_map, lambda x: x.addressable_data(0))
        return first(outs), [self._keep(u, sh) for u, sh in zip(updates, self.update_shardings)], first(extras)


# id(a rank's array) -> (a weak reference to it, the sharding, the program argument made for it); an entry goes
# when its array does
_GLOBALS: dict[int, tuple[weakref.ref, NamedSharding, jax.Array]] = {}


def _remember(local: jax.Array, sharding: NamedSharding, g: jax.Array) -> None:
    key = id(local)

    def forget(ref: weakref.ref) -> None:
        if _GLOBALS.get(key, (None,))[0] is ref:  # not a newer entry of an array that took the same id
            _GLOBALS.pop(key, None)

    _GLOBALS[key] = (weakref.ref(local, forget), sharding, g)


@functools.lru_cache(maxsize=None)
def _shardings(per_process: int) -> tuple[NamedSharding, NamedSharding]:
    """(replicated, cut over the rank's local devices on axis 0) over `_ranks_mesh`: one object each, so that a
    remembered argument's sharding is compared by identity."""
    mesh = _ranks_mesh(per_process)
    return NamedSharding(mesh, P()), NamedSharding(mesh, P(LOCAL))


def global_batch() -> bool:
    """SEMI_AUTO/AUTO_PARALLEL in a job of several processes: the step is in global view, but each process feeds
    only its slice of the batch (`full_batch=False`, `dataset_strategy="data_parallel"`), so a jitted step is
    captured with the global shapes (`global_shape`) and its inputs become global arrays (`GlobalLayout.run`)."""
    if jax.process_count() == 1 or full_batch():
        return False
    return context.get_parallel_mode() in context.GLOBAL_VIEW_MODES


def full_batch() -> bool:
    """`full_batch=True` (`dataset_strategy="full_batch"`): every process feeds the whole batch, so a step's
    inputs already have their global shapes and any capture (or PyNative) sees the global view."""
    return context.get_auto_parallel_context("dataset_strategy") == "full_batch"


def batch_slices() -> int:
    """How many distinct slices of the global batch the processes feed: one each, except with pipeline stages
    across processes (the strategy mesh holds process r's devices in block r, each stage a block of `device_num /
    pipeline_stages` devices), where every stage reads the batch: the processes of one stage feed its slices
    (process r feeds slice `r % batch_slices()`, as MindSpore's pipeline ranks read the data of their
    data-parallel rank), and a process holding whole stages feeds the whole batch."""
    processes = jax.process_count()
    stages = context.stage_count()
    if stages == 1:
        return processes
    return processes // stages if processes % stages == 0 else 1


def global_shape(shape: tuple, index: int | None = None) -> tuple:
    """The global shape of one process's input `index` of `shape`: the processes' slices stacked on axis 0 (a
    0-d input is the same value on every process; with pipeline stages across processes see `batch_slices`), or,
    with one `dataset_strategy` per input, that input's slices as its strategy cuts it (`_strategy_scale`)."""
    shape = tuple(shape)
    strategies = context.get_auto_parallel_context("dataset_strategy")
    if isinstance(strategies, tuple) and index is not None:
        return tuple(n * k // m for n, (k, m) in zip(shape, _strategy_scale(strategies, index, shape)))
    return (shape[0] * batch_slices(), *shape[1:]) if shape else shape


def _strategy_of(strategies: tuple, index: int, shape: tuple):
    """`dataset_strategy`'s strategy for input `index` (of `shape`); refused when it gives fewer."""
    if index >= len(strategies):
        raise ContextError(f"dataset_strategy gives {len(strategies)} strategies, but the step has more inputs "
                           f"(input {index} has shape {tuple(shape)}); give one strategy per input")
    return strategies[index]


def _strategy_scale(strategies: tuple, index: int, shape: tuple) -> list[tuple[int, int]]:
    """Per dimension of input `index`, (k, m): its strategy cuts it in k slices, of which this process's devices
    hold m (contiguous); the process feeds m/k of the dimension. MindSpore's ranks each read the slice their
    strategy gives them; a process of msx holds several ranks' devices (block r of the strategy mesh)."""
    device_num = context.get_auto_parallel_context("device_num")
    if context.stage_count(device_num) > 1:
        raise ContextError(f"dataset_strategy={strategies} over {jax.process_count()} processes with pipeline "
                           f"stages is not supported by msx yet (issue 35): feed every process the whole batch "
                           f"(full_batch=True)")
    cuts = sharding.cuts(_strategy_of(strategies, index, shape))
    if len(cuts) != len(shape):
        raise ContextError(f"dataset_strategy[{index}] {strategies[index]} has {len(cuts)} dimension(s) but input "
                           f"{index} has shape {tuple(shape)}")
    spec = sharding.specs_for([strategies[index]], device_num)[0]
    mesh = sharding.strategy_mesh(device_num)
    whole = tuple(math.prod(mesh.shape[a] for a in axes) for axes in spec)   # a shape each slice is one row of
    held = NamedSharding(mesh, sharding.partition_spec(spec)).addressable_devices_indices_map(whole).values()
    scale = []
    for d, k in enumerate(whole):
        starts = sorted({idx[d].start or 0 for idx in held})
        if starts != list(range(starts[0], starts[0] + len(starts))):
            raise ContextError(f"dataset_strategy[{index}] {strategies[index]}: process {jax.process_index()}'s "
                               f"devices hold slices {starts} of dimension {d}, not a contiguous run; feed every "
                               f"process the whole batch (full_batch=True)")
        if (shape[d] * k) % len(starts):
            raise ContextError(f"dataset_strategy[{index}] {strategies[index]}: this process feeds {len(starts)} of "
                               f"the {k} slices of dimension {d}, but its input has {shape[d]} rows there")
        scale.append((k, len(starts)))
    return scale


class GlobalLayout:
    """SEMI_AUTO_PARALLEL / AUTO_PARALLEL: the user's step in global view, one jit over the strategy mesh of
    `device_num` devices. Inputs are cut on their batch dimension (`dataset_strategy="data_parallel"`),
    Parameters replicated unless a `parameter_plan` names them; `Shard` nodes inside become
    `with_sharding_constraint`s; XLA's partitioner propagates the rest and inserts the collectives.

    In a job of several processes the graph was captured with the global batch (`global_batch`): each process's
    input is its contiguous slice of the global one (`jax.make_array_from_process_local_data`; the strategy mesh
    holds process r's devices in block r), each Parameter its full value on every process (each device takes its
    piece of it), and the outputs and updated Parameters come back replicated, read on the process's first
    device."""

    def __init__(self, device_num: int) -> None:
        stages = context.stage_count(device_num)
        self.device_num = device_num // stages   # strategies cut one pipeline stage's devices (MindSpore's rule)
        self.mesh = sharding.strategy_mesh(device_num, stages)
        self.replicated = NamedSharding(self.mesh, P())

    def _sharding(self, shape: tuple, name: str | None, batch: bool, index: int = 0) -> NamedSharding:
        plan = self.plans.get(name) if not batch and name else None
        if batch and self.inputs_strategy is not None:   # dataset_strategy: one strategy per input
            spec = self._input_spec(shape, index)
        elif not batch and name in self.loaded:   # strategy_ckpt_load_file: the file's layout wins (MindSpore's rule)
            spec = self._loaded_spec(shape, name)
        elif plan is None and not batch and name in self.zero:   # the parallel optimizer (msx.parallel.zero)
            spec = self.zero[name]
        elif plan is not None:
            reason = sharding.why_not(sharding.cuts(plan), shape, self.device_num)
            if reason is not None:
                raise OpError(f"shard: parameter_plan {plan} for Parameter {name} {reason}")
            spec = sharding.specs_for([plan], self.device_num)[0]
        elif batch:
            spec = sharding.batch_spec(shape, self.device_num)
        else:
            spec = ((),) * len(shape)
        if not batch and name in self.staged:   # a pipeline stage's: axis 0 cut over `pipe` too (its own stage's)
            spec = self._over_pipe(shape, spec)
        if not batch and not any(spec):
            return self.replicated
        return NamedSharding(self.mesh, sharding.partition_spec(spec))

    def _input_spec(self, shape: tuple, index: int) -> tuple:
        """Input `index`'s cut as `dataset_strategy`'s strategy for it says."""
        strategies = self.inputs_strategy
        _strategy_of(strategies, index, shape)
        reason = sharding.why_not(sharding.cuts(strategies[index]), shape, self.device_num)
        if reason is not None:
            raise ContextError(f"dataset_strategy[{index}] {strategies[index]} {reason}")
        return sharding.specs_for([strategies[index]], self.device_num)[0]

    def _loaded_spec(self, shape: tuple, name: str) -> tuple:
        """Parameter `name`'s cut as the loaded strategy file lays it out, checked against its shape."""
        layout = self.loaded[name]
        where = context.get_auto_parallel_context("strategy_ckpt_load_file")
        reason = sharding.why_not(layout.cuts(), shape, self.device_num)   # the check a shard strategy gets
        if reason is not None:
            raise ContextError(f"{where}: the strategy file's layout of parameter {name!r} {reason}")
        return strategy_file.spec_of(layout, self.device_num, name, where)

    def _over_pipe(self, shape: tuple, spec: tuple) -> tuple:
        """`spec` with `pipe` first on axis 0 when that still divides (msx.parallel.stage_params keeps such a Parameter
        on its own stage: each stage holds 1/N of it, the reading stage gathers it whole)."""
        stages = self.mesh.shape[sharding.PIPE]
        dim0 = tuple(spec[0]) if spec else ()
        parts = stages * math.prod(self.mesh.shape[a] for a in dim0)
        if not stage_params.is_cut(shape, stages) or shape[0] % parts:
            return spec
        return ((sharding.PIPE, *dim0),) + tuple(spec[1:])

    def lower(self, fn, args: tuple, names: tuple, donate: tuple, updates: tuple = ()):
        self.plans = sharding.planned()
        self.zero = zero.specs(sharding.axis_sizes(self.device_num))
        self.loaded = self._loaded_layouts()
        strategy = context.get_auto_parallel_context("dataset_strategy")
        self.inputs_strategy = strategy if isinstance(strategy, tuple) else None
        self.staged = stage_params.held_names(zero.optimizers()) if sharding.PIPE in self.mesh.axis_names else set()
        self.in_shardings = tuple([self._sharding(tuple(s.shape), n, group == 0, i)
                                   for i, (s, n) in enumerate(zip(part, part_names))]
                                  for group, (part, part_names) in enumerate(zip(args, names)))
        # one process: an updated Parameter comes back laid out as it went in (a ZeRO-cut buffer stays cut)
        placed = {n: sh for part_names, shardings in zip(names[1:], self.in_shardings[1:])
                  for n, sh in zip(part_names, shardings)} if jax.process_count() == 1 else {}
        out_shardings = (self.replicated, [placed.get(n, self.replicated) for n in updates], self.replicated)
        structs = tuple([jax.ShapeDtypeStruct(s.shape, s.dtype, sharding=sh) for s, sh in zip(part, shardings)]
                        for part, shardings in zip(args, self.in_shardings))
        save_to = context.get_auto_parallel_context("strategy_ckpt_save_file")
        if save_to and jax.process_index() == 0:   # MindSpore writes the strategy file when a step compiles
            strategy_file.save(save_to, {n: strategy_file.layout_of(sh, len(s.shape), self.mesh)
                                         for part, part_names, shardings in zip(args[1:], names[1:],
                                                                               self.in_shardings[1:])
                                         for s, n, sh in zip(part, part_names, shardings)})
        if op_strategy.STATE["active"]:   # a loaded operator strategy file's names that matched nothing warn
            op_strategy.on_compile()
        group_info.on_compile(self.mesh, [(tuple(s.shape), sh) for part, shardings in
                                          zip(args[1:], self.in_shardings[1:]) for s, sh in zip(part, shardings)])
        self.global_shapes = [tuple(s.shape) for s in args[0]]
        if jax.process_count() > 1 and not full_batch() and self.inputs_strategy is None:
            for s, n, sh in zip(args[0], names[0], self.in_shardings[0]):
                if len(s.shape) and sh is self.replicated:
                    raise ContextError(f"{self.device_num}-device global view over {jax.process_count()} processes: "
                                       f"input {n} of global shape {tuple(s.shape)} must have a batch dimension "
                                       f"(axis 0) that divides by device_num={self.device_num}; each process feeds "
                                       f"an equal slice of it")
        params = {n: sh for part_names, shardings in zip(names[1:], self.in_shardings[1:])
                  for n, sh in zip(part_names, shardings)}
        with sharding.lowering_over(self.mesh, params):
            return jax.jit(fn, donate_argnums=donate, out_shardings=out_shardings).lower(*structs)

    def _loaded_layouts(self) -> dict:
        """{Parameter name: ParamLayout} of `strategy_ckpt_load_file` ({} when none is set); a file written for
        another number of devices per stage or of stages is refused, naming both."""
        path = context.get_auto_parallel_context("strategy_ckpt_load_file")
        if not path:
            return {}
        layouts = strategy_file.read(path)
        stages = self.mesh.shape[sharding.PIPE] if sharding.PIPE in self.mesh.axis_names else 1
        per_stage, file_stages = strategy_file.geometry(layouts)
        if (per_stage, file_stages) != (self.device_num, stages):
            raise ContextError(f"strategy_ckpt_load_file {path}: the file lays Parameters out over {file_stages} "
                               f"pipeline stage(s) of {per_stage} device(s), this step over {stages} of "
                               f"{self.device_num}; re-shard the checkpoint with transform_checkpoints instead")
        return layouts

    def run(self, compiled, inputs: tuple):
        if jax.process_count() == 1:
            return _run_placed(compiled, inputs, self.in_shardings)
        batch = []
        per_input = self.inputs_strategy is not None
        for i, (x, shape, sh) in enumerate(zip(inputs[0], self.global_shapes, self.in_shardings[0])):
            if full_batch():   # every process holds the whole batch: each device takes its piece of it
                if tuple(x.shape) != shape:
                    raise ContextError(f"full_batch over {jax.process_count()} processes: this process's input of "
                                       f"shape {tuple(x.shape)} is not the whole batch {shape} the graph was "
                                       f"built for; every process must feed the same whole batch")
                batch.append(jax.make_array_from_callback(shape, sh, lambda idx, x=x: x[idx]))
                continue
            mine = global_shape(x.shape, i if per_input else None)
            if mine != shape:
                raise ContextError(f"global view over {jax.process_count()} processes: this process's input of "
                                   f"shape {tuple(x.shape)} makes a global batch of {mine}, but "
                                   f"the graph was built for {shape} (a graph captured with one process's shapes: "
                                   f"use msx.jit with capture_mode='ast')")
            batch.append(jax.make_array_from_process_local_data(sh, x, shape))
        whole = [[jax.make_array_from_callback(x.shape, sh, lambda idx, x=x: x[idx]) for x, sh in zip(part, shardings)]
                 for part, shardings in zip(inputs[1:], self.in_shardings[1:])]
        outs, updates, extras = settled(compiled(batch, *whole))
        first = functools.partial(jax.tree_util.tree_map, lambda x: x.addressable_data(0))
        return first(outs), first(list(updates)), first(extras)


def _run_placed(compiled, inputs: tuple, shardings: tuple):
    """Run a one-process program: every argument placed by its sharding in one `device_put` (a no-op for a
    Parameter already there), the outputs (all replicated) read back on the first device. The updated
    Parameters stay replicated over the devices, so the next step does not copy them again; eager ops on them
    run on those devices, with the same results."""
    outs, updates, extras = compiled(*jax.device_put([list(part) for part in inputs], [list(s) for s in shardings]))
    first = functools.partial(jax.tree_util.tree_map, lambda x: x.addressable_data(0))
    return first(outs), updates, first(extras)


LOCAL = "local"
# names of the optimizer parallel's state buffers that a rank cuts over its local devices (msx.parallel.optimizer)
CUT_STATE: set[str] = set()


@functools.lru_cache(maxsize=None)
def local_sharding(per_process: int, split: bool = True) -> NamedSharding:
    """This rank's arrays on its first `per_process` devices (those of its row of `_ranks_mesh`): cut on axis 0
    over them, or whole on each."""
    devices = sorted(jax.local_devices(), key=lambda d: d.id)[:per_process]
    return NamedSharding(Mesh(np.array(devices), (LOCAL,)), P(LOCAL) if split else P())


@functools.lru_cache(maxsize=None)
def _ranks_mesh(per_process: int) -> Mesh:
    """Each process's first `per_process` devices (by id), one row per process in rank order."""
    rows = [sorted((d for d in jax.devices() if d.process_index == p), key=lambda d: d.id)[:per_process]
            for p in range(jax.process_count())]
    return Mesh(np.array(rows), (AXIS, LOCAL))


_LAX = {"sum": jax.lax.psum, "max": jax.lax.pmax, "min": jax.lax.pmin, "mean": jax.lax.pmean}


# ----------------------------------------------------------------- the collectives
# Each collective has one lax form (`_BODIES`), over the mesh axis AXIS. Inside the job's SPMD program it is
# traced into the program; eagerly it is a one-op `shard_map` program over the sub-mesh of the group's ranks
# (one device per rank, `group_mesh`), each rank feeding its own value, so only the group's members take part.
# A one-rank group's collective is the identity, and a traced collective outside the SPMD program (shape
# inference, the global-view layout) keeps the one-rank meaning with the group's shapes.
def world() -> tuple[int, ...]:
    return tuple(range(jax.process_count()))


def _resolve(ranks: tuple[int, ...] | None, what: str) -> tuple[int, ...]:
    ranks = world() if ranks is None else tuple(ranks)
    if _state.inside and ranks != world():
        raise CommunicationError(f"{what} over the group of ranks {list(ranks)} inside a compiled graph: the "
                                 f"job's graph is one SPMD program (jax.shard_map) whose collectives run over "
                                 f"every rank of its mesh axis ({jax.process_count()} ranks); call it eagerly "
                                 f"(PyNative), where a group's collective runs over the sub-mesh of its members")
    return ranks


@functools.lru_cache(maxsize=None)
def group_mesh(ranks: tuple[int, ...]) -> Mesh:
    """One device per member process (its first, by id), in group-rank order, on the axis AXIS."""
    devices = [min((d for d in jax.devices() if d.process_index == p), key=lambda d: d.id) for p in ranks]
    return Mesh(np.array(devices), (AXIS,))


def _reduce_body(x, *, n: int, op: str):
    if op == "prod":
        return jnp.prod(jax.lax.all_gather(x, AXIS), axis=0)
    return _LAX[op](x, AXIS)


def _gather_body(x, *, n: int):
    return jax.lax.all_gather(x, AXIS, tiled=True)


def _scatter_body(x, *, n: int, op: str):
    if op == "sum":
        return jax.lax.psum_scatter(x, AXIS, tiled=True)
    rows = x.shape[0] // n
    return jax.lax.dynamic_slice_in_dim(_reduce_body(x, n=n, op=op), jax.lax.axis_index(AXIS) * rows, rows, axis=0)


def _broadcast_body(x, *, n: int, root: int):
    return jnp.reshape(jax.lax.all_gather(x[None], AXIS, tiled=True), (n, *x.shape))[root]


def _all_to_all_body(x, *, n: int):
    return jax.lax.all_to_all(x, AXIS, 0, 0, tiled=True)


_BODIES = {"reduce": _reduce_body, "gather": _gather_body, "scatter": _scatter_body, "broadcast": _broadcast_body,
           "all_to_all": _all_to_all_body}


@functools.lru_cache(maxsize=None)
def _group_program(kind: str, ranks: tuple[int, ...], params: tuple) -> Callable:
    body = functools.partial(_BODIES[kind], n=len(ranks), **dict(params))

    def run(rows):
        with _tracing_body():
            return body(rows[0])[None]

    return jax.jit(jax.shard_map(run, mesh=group_mesh(ranks), in_specs=P(AXIS), out_specs=P(AXIS), check_vma=False))


def _collective(kind: str, x, ranks: tuple[int, ...], **params):
    """Run collective `kind` on this rank's `x`: traced into the SPMD program, or eagerly over the group."""
    if _state.inside:
        return _BODIES[kind](x, n=len(ranks), **params)
    me = jax.process_index()
    if me not in ranks:
        raise CommunicationError(f"rank {me} is not a member of the group of ranks {list(ranks)}: only its members "
                                 f"call its collectives")
    mesh = group_mesh(ranks)
    x = jnp.asarray(x)
    row = jax.device_put(x[None], mesh.devices[ranks.index(me)])
    rows = jax.make_array_from_single_device_arrays((len(ranks), *x.shape), NamedSharding(mesh, P(AXIS)), [row])
    out = _group_program(kind, ranks, tuple(sorted(params.items())))(rows)
    return settled(out.addressable_data(0)[0])


def _trivial(x, ranks: tuple[int, ...]) -> bool:
    """One rank, or a traced value outside the SPMD program: the collective keeps its one-rank meaning."""
    return not _state.inside and (len(ranks) == 1 or isinstance(x, jax.core.Tracer))


def all_reduce(x, op: str, ranks: tuple[int, ...] | None = None):
    """Reduce `x` elementwise over the group's ranks; every member gets the result."""
    ranks = _resolve(ranks, "AllReduce")
    return x if _trivial(x, ranks) else _collective("reduce", x, ranks, op=op)


def all_gather(x, ranks: tuple[int, ...] | None = None):
    """Concatenate every member's `x` along axis 0, in group-rank order (MindSpore's AllGather)."""
    ranks = _resolve(ranks, "AllGather")
    if _trivial(x, ranks):
        return jnp.concatenate([x] * len(ranks), axis=0) if len(ranks) > 1 else x
    return _collective("gather", x, ranks)


def reduce_scatter(x, op: str, ranks: tuple[int, ...] | None = None):
    """Reduce `x` over the group and give group rank r the r-th of `group size` equal slices along axis 0."""
    ranks = _resolve(ranks, "ReduceScatter")
    n = len(ranks)
    if x.ndim == 0 or x.shape[0] % n:
        raise ValueError(f"axis 0 of shape {tuple(x.shape)} must divide by the group size {n}")
    if _trivial(x, ranks):
        me = ranks.index(jax.process_index()) if jax.process_index() in ranks else 0
        return jax.lax.dynamic_slice_in_dim(x, me * (x.shape[0] // n), x.shape[0] // n, axis=0)
    return _collective("scatter", x, ranks, op=op)


def broadcast(x, root: int, ranks: tuple[int, ...] | None = None):
    """Group rank `root`'s `x` on every member."""
    ranks = _resolve(ranks, "Broadcast")
    n = len(ranks)
    if not 0 <= root < n:
        raise ValueError(f"root_rank={root} is not a rank of this group of {n}")
    return x if _trivial(x, ranks) else _collective("broadcast", x, ranks, root=root)


def all_to_all(x, ranks: tuple[int, ...] | None = None):
    """Cut `x` into `group size` equal blocks along axis 0; block j goes to group rank j, and rank r's result is
    the blocks it got, in group-rank order (MindSpore's AlltoAll with split and concat on axis 0)."""
    ranks = _resolve(ranks, "AlltoAll")
    n = len(ranks)
    if x.ndim == 0 or x.shape[0] % n:
        raise ValueError(f"axis 0 of shape {tuple(x.shape)} must divide by the group size {n}")
    return x if _trivial(x, ranks) else _collective("all_to_all", x, ranks)


def permute(x, src: int, dst: int, keep: bool):
    """Inside the SPMD program: world rank `src`'s `x` arrives on rank `dst` (`lax.ppermute`, one pair); every
    other rank gets zeros. `keep` (the sender's side, whose program reads nothing of the permute) ties the
    permute to a no-op host callback of one element: jax and XLA drop a computation nobody reads, and the
    receiver would wait for it forever."""
    out = jax.lax.ppermute(x, AXIS, [(src, dst)])
    if keep and out.size:
        jax.debug.callback(_ignore, out.reshape(-1)[:1])
    return out


def exchange(x, peer: int):
    """Inside the SPMD program: this rank and world rank `peer` swap tensors of one shape and dtype — one
    `lax.ppermute` over both pairs, which both ranks' programs build alike. Two one-way permutes would be
    independent ops, which XLA's CPU runtime may run concurrently and in different orders on the two ranks,
    and gloo then waits forever."""
    me = jax.process_index()
    return jax.lax.ppermute(x, AXIS, sorted([(me, peer), (peer, me)]))


def _ignore(_value) -> None:
    """The sender's keep-alive callback (see `permute`): the value is not needed."""
