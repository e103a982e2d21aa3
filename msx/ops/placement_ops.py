"""Where a tensor lives: MindSpore 2.10's `ops.Reshard` / `ops.reshard` / `mindspore.reshard` (a tensor's layout over
the devices of a parallel job) and `ops.MoveTo` / `ops.move_to` / `Tensor.move_to` / `Tensor.to_` (which device
holds it).

`reshard(tensor, layout)` is a `Shard` node (`msx.ops.sharding_ops`): in SEMI_AUTO/AUTO_PARALLEL, where a
compiled graph is lowered over the strategy mesh, a `jax.lax.with_sharding_constraint` whose redistribution
XLA's partitioner inserts; its value never changes. Outside those modes MindSpore returns the tensor as it is
(a one-device job), and so does msx.

`move_to(x, to)` copies `x` to one of jax's devices: "CPU" is jax's host CPU device; "Ascend"/"GPU" is the
device the job computes on, allowed only when it is the context's `device_target` (MindSpore's rule: a
tensor moves between the host and its own device target). Inside a compiled graph (msx.jit) the graph runs on
one device, so a move there is the identity when `to` names that device and an error otherwise.
"""
from __future__ import annotations

import jax

from .. import context as ms_context
from ..errors import OpError
from ..parallel import context as par_context
from ..parallel.layout import Layout
from ..recording import recording
from ..tensor import Tensor
from .api import SURFACE
from .functional import identity
from .sharding_ops import constrain_all

_TARGETS = ("Ascend", "GPU", "CPU")


# ----------------------------------------------------------------- reshard
def _strategy_devices() -> int | None:
    """The devices a layout cuts when layouts are honoured (SEMI_AUTO/AUTO_PARALLEL over more than one device)."""
    if par_context.get_parallel_mode() not in par_context.GLOBAL_VIEW_MODES:
        return None
    n = par_context.get_auto_parallel_context("device_num")
    n //= par_context.stage_count(n)
    return n if n > 1 else None


def _layouts(value, what: str, arg: str) -> tuple:
    if isinstance(value, Layout):
        value = (value,)
    if not isinstance(value, (tuple, list)) or not value or not all(isinstance(v, Layout) for v in value):
        raise TypeError(f"{what}: {arg} must be a tuple of mindspore.parallel.Layout, got {value!r}")
    return tuple(value)


def _constrain(x: Tensor, layout: Layout, what: str, devices: int) -> Tensor:
    return constrain_all(what, "layout", [x], (layout,), devices)[0]


def reshard(tensor, layout) -> Tensor:
    """`tensor` laid out over the devices by `layout` (a `mindspore.parallel.Layout` with its tensor map), the
    same values: in SEMI_AUTO/AUTO_PARALLEL a sharding constraint of the compiled graph, else `tensor`."""
    devices = _strategy_devices()
    if devices is None and jax.process_count() == 1:
        return tensor   # MindSpore: a group of one returns the tensor, unchecked
    if not isinstance(tensor, Tensor):
        raise TypeError(f"Reshard takes in Tensor type as the first input param, but got: {type(tensor)}.")
    if not isinstance(layout, Layout):
        raise TypeError(f"Reshard only support type mindspore.parallel.Layout, but got: {type(layout)}.")
    return tensor if devices is None else _constrain(tensor, layout, "reshard", devices)


class Reshard:
    """`ops.Reshard(in_layout, out_layout, in_strategy)(tensor)`: the primitive behind `reshard`. The input is
    constrained to `in_layout[0]` and the result to `out_layout[0]` (MindSpore passes one layout twice)."""

    name = "Reshard"

    def __init__(self, in_layout, out_layout, in_strategy) -> None:
        self.in_layout = _layouts(in_layout, self.name, "in_layout")
        self.out_layout = _layouts(out_layout, self.name, "out_layout")
        if not isinstance(in_strategy, (tuple, list)):
            raise TypeError(f"{self.name}: in_strategy must be a tuple of strategies, got {in_strategy!r}")
        self.in_strategy = tuple(in_strategy)
        for layout, strategy in zip(self.in_layout, self.in_strategy):
            if tuple(strategy) != layout.cuts():
                raise ValueError(f"{self.name}: in_strategy {tuple(strategy)} is not the strategy of its layout "
                                 f"{layout} ({layout.cuts()})")

    def __call__(self, tensor) -> Tensor:
        devices = _strategy_devices()
        if devices is None:
            return tensor
        if not isinstance(tensor, Tensor):
            raise TypeError(f"{self.name}: the input must be a Tensor, got {type(tensor).__name__}")
        x = _constrain(tensor, self.in_layout[0], self.name, devices)
        if self.out_layout[0] == self.in_layout[0]:
            return x
        return _constrain(identity(x), self.out_layout[0], self.name, devices)

    def __repr__(self) -> str:
        return f"Prim[Reshard]<in_layout={self.in_layout}, out_layout={self.out_layout}>"


# ----------------------------------------------------------------- move_to
def _device(to: str, what: str):
    """jax's device for MindSpore's target name `to`."""
    if to == "CPU":
        return jax.devices("cpu")[0]
    target = ms_context.get_context("device_target")
    if to != target:
        raise RuntimeError(f"{what}: to={to!r} must be 'CPU' or the device target ({target!r}) (MindSpore's rule: "
                           f"a tensor moves between the host and its device target)")
    return jax.devices()[0]


def _move(x: Tensor, to: str, blocking: bool, what: str) -> Tensor:
    device = _device(to, what)
    if recording.recorder is not None or isinstance(x._data, jax.core.Tracer):
        if device.platform != jax.default_backend():
            raise OpError(f"{what}: to={to!r} inside a compiled graph: the graph runs on one device "
                          f"({jax.default_backend()}); move the tensor outside the graph")
        return identity(x)
    out = Tensor._from(jax.device_put(x._data, device))
    if blocking:
        jax.block_until_ready(out._data)
    return out


def move_to(input, to: str = "CPU", blocking: bool = True) -> Tensor:  # noqa: A002
    """A copy of `input` (a Tensor, or a list/tuple made one) on the device `to` ("CPU" or "Ascend"/"GPU")."""
    what = "move_to"
    if isinstance(input, (list, tuple)):
        input = Tensor(input)  # noqa: A001
    if not isinstance(input, Tensor):
        raise TypeError(f"{what}: input must be a Tensor, list or tuple, got {type(input).__name__}")
    if to not in ("Ascend", "CPU"):
        raise ValueError(f"{what}: to must be one of ['Ascend', 'CPU'], got {to!r}")
    if not isinstance(blocking, bool):
        raise TypeError(f"{what}: blocking must be a bool, got {type(blocking).__name__}")
    return _move(input, to, blocking, what)


class MoveTo:
    """`ops.MoveTo()(input, to='CPU', blocking=True)`: the class form of `move_to`."""

    name = "MoveTo"

    def __call__(self, input, to: str = "CPU", blocking: bool = True) -> Tensor:  # noqa: A002
        return move_to(input, to, blocking)

    def __repr__(self) -> str:
        return "Prim[MoveTo]"


def tensor_move_to(self, to, blocking=True) -> Tensor:
    """`Tensor.move_to(to, blocking=True)`: a copy on "CPU", "GPU" or "Ascend" (the host or the device target)."""
    if not isinstance(blocking, bool):
        raise ValueError(f"The type of 'blocking' must be bool, but got {blocking}")
    if to not in _TARGETS:
        raise ValueError(f"The value of 'to' must be one of ['Ascend', 'GPU', 'CPU'], but got {to}")
    return _move(self, to, blocking, "Tensor.move_to")


def tensor_to_(self, device=None, non_blocking=False) -> Tensor:
    """`Tensor.to_(device, non_blocking=False)`: this Tensor moved, in place, to "CPU" or "Ascend"; returns it."""
    if not isinstance(non_blocking, bool):
        raise ValueError(f"The type of 'non_blocking' must be bool, but got {non_blocking}")
    if device not in ("Ascend", "CPU"):
        raise ValueError(f"The value of 'to' must be one of ['Ascend', 'CPU'], but got {device}")
    return self._rebind(_move(self, device, not non_blocking, "Tensor.to_"))


SURFACE.add("ops", "reshard", reshard)
SURFACE.add("ops", "move_to", move_to)
SURFACE.add("cls", "Reshard", Reshard)
SURFACE.add("cls", "MoveTo", MoveTo)
SURFACE.add("tensor", "move_to", tensor_move_to)
SURFACE.add("tensor", "to_", tensor_to_)
