"""XLA backends: emit StableHLO by lowering the graph with jax, compile it for one device, run it there."""
from __future__ import annotations

import functools
import re
import weakref
from dataclasses import dataclass
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding

from .. import hostevents
from ..errors import BackendError
from ..ir.graph import Graph
from ..ir.interpret import evaluate, to_struct
from ..sizes import device_memory, nbytes, oom_error, too_large
from ..parallel import spmd
from ..eager import tape as eager_tape
from . import executable_cache
from .base import BackendBase, BuildConfig
from .xla_cpu_options import compile_lowered
from .xla_symbolic import PolymorphicExecutable, build_polymorphic, has_symbolic_inputs


def result_graph(graph: Graph, config: BuildConfig) -> Graph:
    """The graph whose outputs are what `run` returns: the graph's non-constant outputs, then the extras."""
    outputs, _, extras = config.result_values(graph)
    return Graph(graph.name, graph.inputs, graph.params, graph.nodes, outputs + extras, graph.updates)


def graph_function(graph: Graph, config: BuildConfig):
    """A jax function `(inputs, ro_params, rw_params) -> (outputs, updates, extras)` for the graph.

    Constant outputs are left to the runtime (they need not cross the device).
    """
    outputs, _, _ = config.result_values(graph)
    probe = result_graph(graph, config)

    def fn(inputs, ro_params, rw_params):
        outs, updates = evaluate(probe, inputs, config.merge_params(graph, ro_params, rw_params))
        return outs[:len(outputs)], updates, outs[len(outputs):]

    fn.__name__ = fn.__qualname__ = module_name(graph)  # the HLO module is jit_<name>: profiles name the graph
    return fn


def module_name(graph: Graph) -> str:
    """A Python identifier for the graph's HLO module (`jit_<this>`), from its name."""
    name = re.sub(r"\W+", "_", graph.name).strip("_") or "graph"
    return name if not name[0].isdigit() else f"g_{name}"


def _bytes(abstract) -> int | None:
    if not all(isinstance(d, int) for d in abstract.shape):
        return None  # a symbolic dim: the size is known when it runs
    try:
        return nbytes(abstract.shape, jnp.dtype(abstract.dtype))
    except TypeError:
        return None


def check_memory(graph: Graph, platform: str, donated: tuple = ()) -> None:
    """Refuse, before XLA compiles it, a graph that cannot fit on the device: a value larger than its memory, or a
    node whose inputs, outputs and the graph's own inputs cannot all be held at once (a lower bound of the peak,
    so a graph that fits is never refused). XLA would abort the process or run out of memory instead."""
    limit = device_memory(platform)
    sizes: dict[int, int] = {}
    for v in list(graph.inputs) + list(graph.params):
        sizes[v.id] = _bytes(v.abstract) or 0
    # a donated Parameter's buffer may hold a node's result: only the others are surely resident throughout
    reusable = {graph.params[i].id for i in donated}
    resident, held = sum(n for i, n in sizes.items() if i not in reusable), set(sizes)
    for node in graph.nodes:
        out = 0
        for v in node.outputs:
            size = _bytes(v.abstract)
            reason = too_large(v.abstract.shape, jnp.dtype(v.abstract.dtype), platform) if size is not None else None
            if reason is not None:
                raise BackendError(f"graph {graph.name}: {node.op} cannot run here: {reason}", loc=node.loc)
            sizes[v.id] = size or 0
            out += size or 0
        operands = {v.id for v in node.inputs if hasattr(v, "id") and v.id in sizes}
        need = resident + out + sum(sizes[i] for i in operands - held)
        if need > limit:
            shapes = ", ".join(str(v.abstract) for v in node.inputs if hasattr(v, "abstract")) or "no inputs"
            raise BackendError(f"graph {graph.name}: {node.op}({shapes}) -> {node.abstract} needs at least "
                               f"{need / 2 ** 30:.3g} GiB at once with the graph's inputs, more than the "
                               f"{limit / 2 ** 30:.3g} GiB this {platform} device has (out of memory)", loc=node.loc)


# every XLA executable built, for the profiler's XLA-op -> msx-node mapping (weak references: a dropped executable
# leaves a dead entry, skipped when the list is read)
BUILT: list["weakref.ref[XlaExecutable]"] = []


@dataclass
class XlaExecutable:
    lowered: Any  # the `jax.stages.Lowered`, or a function that lowers again (an executable from msx's cache)
    compiled: Any
    device: Any
    graph: Graph | None = None  # the graph it runs (the profiler maps its XLA ops back to the nodes)
    spmd: Any = None  # a `spmd` layout: one program over several devices, which places inputs and reads results
    checks_argument_types: ClassVar[bool] = True  # a call with another shape/dtype/a tracer is a TypeError
    fn: Any = None  # the jax function it compiles: the eager autograd tape differentiates a call with it

    def as_text(self) -> str:
        if callable(self.lowered):  # loaded from msx's executable cache: its StableHLO is made when asked for
            self.lowered = self.lowered()
        return self.lowered.as_text()


def _oom(graph: Graph | None, exc: RuntimeError) -> BaseException:
    """XLA's RESOURCE_EXHAUSTED as an msx error naming the graph and its largest values; other errors unchanged."""
    name = graph.name if graph is not None else "graph"
    biggest = sorted(((_bytes(v.abstract) or 0, n.op, str(v.abstract)) for n in (graph.nodes if graph else ())
                      for v in n.outputs), reverse=True)[:3]
    err = oom_error(f"graph {name}", exc, lambda: ", ".join(f"{op} -> {a}" for _, op, a in biggest) or "it")
    if err is None:
        return exc
    return BackendError(err.message)


class XlaBackend(BackendBase):
    """XLA on one device of a jax platform ("cpu", "gpu" or "tpu"); `device_id` picks the device."""

    def __init__(self, platform: str, device_id: int = 0, name: str | None = None) -> None:
        self.platform = platform
        self.device_id = device_id
        self.name = name  # None: takes the name it is registered under

    @property
    def label(self) -> str:
        return self.name or f"{self.platform}:{self.device_id}"

    @functools.cached_property
    def _devices(self) -> list:
        try:
            return jax.local_devices(backend=self.platform)  # this process's (all, without a cluster)
        except RuntimeError:  # jax has no such platform here
            return []

    def available(self) -> bool:
        return self.device_id < len(self._devices)

    @property
    def reproduces_eager(self) -> bool:
        """Eager execution runs the same jax implementations, on jax's default device."""
        return self.available() and self.device() == jax.local_devices()[0]  # eager's default device, every rank

    def place(self, array: Any) -> Any:
        if isinstance(array, jax.core.Tracer) or self.device() in array.devices():
            return array
        return jax.device_put(array, self.device())

    def device(self):
        """The jax device this backend compiles for and places inputs and Parameters on."""
        if not self.available():
            have = sorted({d.platform for d in jax.devices()})
            raise BackendError(f"backend {self.label!r}: this machine has no {self.platform} device "
                               f"{self.device_id} (jax sees: {have})")
        return self._devices[self.device_id]

    def lower(self, graph: Graph, config: BuildConfig):
        """Emit StableHLO for this backend's device: jax lowers the graph's evaluation (a `jax.stages.Lowered`)."""
        return self._lower(graph, config, spmd.layout())

    def _lower(self, graph: Graph, config: BuildConfig, layout):
        sharding = SingleDeviceSharding(self.device())
        rw = set(config.rw_params)
        groups = (graph.inputs, [v for i, v in enumerate(graph.params) if i not in rw],
                  [graph.params[i] for i in config.rw_params])
        args = tuple([jax.ShapeDtypeStruct(s.shape, s.dtype, sharding=sharding)
                      for s in (to_struct(v.abstract) for v in values)] for values in groups)
        fn = graph_function(graph, config)
        donate = (2,) if config.donate and config.rw_params else ()
        if layout is not None:  # several devices: the layout shards the arguments and makes the program
            return layout.lower(fn, args, tuple([v.name for v in values] for values in groups), donate,
                                tuple(name for name, _ in graph.updates))
        return jax.jit(fn, donate_argnums=donate).lower(*args)

    supports_symbolic = True  # graphs with symbolic input dims build as shape-polymorphic executables

    def build(self, graph: Graph, config: BuildConfig) -> XlaExecutable | PolymorphicExecutable:
        with hostevents.span("msx.compile", graph.name):
            if has_symbolic_inputs(graph):
                if spmd.enabled():
                    raise BackendError(f"graph {graph.name}: symbolic input shapes are not supported in a "
                                       f"multi-process job; give the inputs static shapes")
                return build_polymorphic(graph_function(graph, config), graph, config, self.device())
            check_memory(graph, self.platform, config.rw_params if config.donate else ())
            layout = spmd.layout()
            name = None if layout is not None or executable_cache.folder() is None else executable_cache.key(
                result_graph(graph, config), config.rw_params, config.donate, self.device())
            compiled = executable_cache.load(name, self.device()) if name is not None else None
            if compiled is not None:  # msx's own cache: the graph's executable, with nothing lowered
                lowered = lambda: self._lower(graph, config, layout)  # noqa: E731 - lowered when asked
            else:
                lowered = self._lower(graph, config, layout)
                loaded = executable_cache.jax_hits()
                try:
                    compiled = compile_lowered(lowered, self.platform)
                except RuntimeError as exc:
                    raise _oom(graph, exc) from None
                if name is not None and executable_cache.jax_hits() == loaded:  # compiled afresh: storable
                    executable_cache.store(name, compiled, self.device())
            handle = XlaExecutable(lowered, compiled, self.device(), graph, layout,
                                   fn=None if layout is not None else graph_function(graph, config))
        BUILT.append(weakref.ref(handle))
        return handle

    def run(self, handle: XlaExecutable | PolymorphicExecutable, inputs: tuple) -> tuple:
        if type(handle) is XlaExecutable and handle.spmd is None and eager_tape.STATE.tape is None \
                and not hostevents.ACTIVE:  # the common call: one executable on one device, nobody watching
            try:
                return handle.compiled(*inputs)
            except ValueError:  # an input on another device (nothing ran): the general path places it
                pass
            except RuntimeError as exc:
                raise _oom(handle.graph, exc) from None
        if eager_tape.STATE.tape is not None:  # eager autograd: one tape node, this executable and its compiled VJP
            if getattr(handle, "fn", None) is None:  # symbolic shapes, one program over the mesh: the jax-vjp path
                eager_tape.escape("a compiled graph")
            return eager_tape.STATE.tape.record_graph(handle.fn, lambda ins: self._run(handle.compiled, handle, ins),
                                                      inputs)
        compiled = handle.executable(inputs) if isinstance(handle, PolymorphicExecutable) else handle.compiled
        if getattr(handle, "spmd", None) is not None:
            return handle.spmd.run(compiled, inputs)
        if hostevents.ACTIVE:
            with hostevents.span("msx.run", handle.graph.name if isinstance(handle, XlaExecutable) else "polymorphic"):
                return hostevents.hold(self._run(compiled, handle, inputs))
        return self._run(compiled, handle, inputs)

    def direct(self, handle: XlaExecutable | PolymorphicExecutable):
        """The executable's own C++ call (jax's `Compiled._call`, set by its first call) for one executable
        on one device: it compares every argument's shape, dtype and placement before running."""
        if type(handle) is not XlaExecutable or handle.spmd is not None:
            return None
        return getattr(handle.compiled, "_call", None) or handle.compiled

    def run_error(self, handle: XlaExecutable | PolymorphicExecutable, exc: RuntimeError) -> BaseException:
        return _oom(getattr(handle, "graph", None), exc)

    @staticmethod
    def _run(compiled, handle, inputs: tuple) -> tuple:
        try:
            return compiled(*inputs)
        except ValueError:
            # an argument is committed to another device (the output of a function on another backend):
            # the executable checks placement before running, so nothing was donated; place it and retry
            return compiled(*jax.device_put(inputs, handle.device))
        except RuntimeError as exc:
            raise _oom(getattr(handle, "graph", None), exc) from None

    def as_text(self, handle: XlaExecutable) -> str:
        return handle.as_text()

    def __repr__(self) -> str:
        where = f"{self.platform}:{self.device_id}" if self.available() else f"{self.platform} (absent)"
        return f"<backend {self.label}: XLA on {where}>"
