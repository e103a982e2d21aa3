"""SEMI_AUTO_PARALLEL's user API: `Primitive.shard`, `ms.shard(fn, ...)`, `Cell.shard(...)`, and the `Shard` op.

A strategy becomes a `Shard` node in the graph (an identity carrying the
strategy and the mesh axes it maps to, both visible in the printed graph); when
the xla backend lowers the graph over the strategy mesh, that node is a
`jax.lax.with_sharding_constraint` in the StableHLO and XLA's partitioner
inserts the collectives (`msx.parallel.sharding`). Strategies only mean
something in `semi_auto_parallel`/`auto_parallel`; in the other modes they are
ignored, MindSpore's rule. Eagerly (PyNative) a `Shard` is the identity: its
strategy is still checked against the shapes, so a bad one fails either way.
"""
from __future__ import annotations

from typing import Any, Callable

from ..errors import OpError
from ..parallel import context, op_strategy, sharding
from ..recording import recording
from ..tensor import Tensor
from .api import STRATEGY
from .primitive import primitive


@primitive("Shard", attrs=("strategy", "spec"), category="shape",
           internal=("the layout constraint a strategy becomes: Primitive.shard, ms.shard and Cell.shard make it "
                     "(constrain_all)"))
def shard_constraint(x, *, strategy: tuple = (), spec: tuple = ()):
    """`x`, laid out by `strategy` (cuts per dimension) over the mesh axes `spec`, when lowered over a mesh."""
    return sharding.constrain(x, spec)


def _active() -> int | None:
    """The devices a strategy cuts when strategies are honoured (semi_auto/auto_parallel; one pipeline stage's),
    else None."""
    if context.get_parallel_mode() not in context.GLOBAL_VIEW_MODES:
        return None
    device_num = context.get_auto_parallel_context("device_num")
    return device_num // context.stage_count(device_num)   # a strategy cuts one pipeline stage's devices


def _strategies(value: Any, what: str) -> tuple | None:
    if value is None:
        return None
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{what} must be a tuple of strategies (one tuple of ints per input), got {value!r}")
    return tuple(None if s is None else sharding.check_strategy(s, f"{what} entry {i}") for i, s in enumerate(value))


def constrain_all(name: str, which: str, values: list, strategies: tuple, device_num: int) -> list:
    """`values` (Tensors where a strategy applies) through `Shard` nodes, after checking every strategy."""
    if len(strategies) != len(values):
        raise OpError(f"{name}: {which} has {len(strategies)} strategies but the op has {len(values)} "
                      f"tensor {'inputs' if which == 'in_strategy' else 'outputs'}")
    chosen = []
    for i, (v, s) in enumerate(zip(values, strategies)):
        shape = tuple(v.shape)
        s = (device_num,) + (1,) * (len(shape) - 1) if s is None and shape else (s or ())  # None: data parallel
        reason = sharding.why_not(sharding.cuts(s), shape, device_num)
        if reason is not None:
            err = OpError(f"{name}: {which}[{i}] = {s} {reason}")
            if recording.recorder is not None:
                err.stage = "capture"
            raise err
        chosen.append(s)
    try:
        specs = sharding.specs_for(chosen, device_num)
    except ValueError as exc:   # a Layout whose device matrix does not fit the mesh
        raise OpError(f"{name}: {which}: {exc}") from None
    return [shard_constraint(v, strategy=sharding.cuts(s), spec=p) for v, s, p in zip(values, chosen, specs)]


def _through(name: str, fn: Callable, in_strategy: tuple | None, out_strategy: tuple | None, args, kwargs):
    device_num = _active()
    if device_num is None:
        return fn(*args, **kwargs)
    args = list(args)
    if in_strategy is not None:
        where = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        for i, v in zip(where, constrain_all(name, "in_strategy", [args[i] for i in where], in_strategy,
                                             device_num)):
            args[i] = v
    out = fn(*args, **kwargs)
    if out_strategy is None:
        return out
    single = isinstance(out, Tensor)
    outs = constrain_all(name, "out_strategy", [out] if single else list(out), out_strategy, device_num)
    return outs[0] if single else type(out)(outs)


# ----------------------------------------------------------------- Primitive.shard
def set_strategy(op, in_strategy=None, out_strategy=None):
    """MindSpore's `Primitive.shard(in_strategy=None, out_strategy=None)`: returns the op."""
    ins, outs = _strategies(in_strategy, "in_strategy"), _strategies(out_strategy, "out_strategy")
    if ins is None and outs is None:
        return op
    op.__dict__["_shard_strategy"] = (ins, outs)
    shown = op.attrs if "attrs" in vars(op) else op.__dict__
    shown.update(in_strategy=ins, out_strategy=outs)
    return op


def call_sharded(op, call: Callable, args: tuple, kwargs: dict):
    """Call a class-style op that has a strategy (its own, or an operator strategy file's): its tensor inputs
    (and outputs) through `Shard` nodes."""
    ins, outs = op.__dict__.get("_shard_strategy", (None, None))
    where = None
    if op_strategy.STATE["active"] and recording.scope:
        ins, outs, where = op_strategy.at_call(op, ins, outs, recording.scope, recording.scope_cell)
    if ins is None and outs is None:
        return call(op, *args, **kwargs)
    try:
        return _through(op.name or type(op).__name__, lambda *a, **k: call(op, *a, **k), ins, outs, args, kwargs)
    except OpError as exc:
        if where is None:
            raise
        raise OpError(f"{where}: {exc.message}", stage=exc.stage, loc=exc.loc) from None


# what `PrimitiveOp.shard` and its calls run; `files`: whether an operator strategy file is saved or loaded
STRATEGY.update(set=set_strategy, call=call_sharded, files=op_strategy.STATE)


# ----------------------------------------------------------------- ms.shard and Cell.shard
def _plan(cell, parameter_plan: dict | None) -> None:
    if not parameter_plan:
        return
    if not isinstance(parameter_plan, dict) or not hasattr(cell, "parameters_and_names"):
        raise TypeError(f"parameter_plan must be a dict of parameter name -> strategy, for a Cell; got "
                        f"{parameter_plan!r} for {type(cell).__name__}")
    for key, strategy in parameter_plan.items():
        sharding.plan_parameter(cell, key, sharding.check_strategy(strategy, f"parameter_plan[{key!r}]"))


def shard(fn: Callable, in_strategy, out_strategy=None, parameter_plan: dict | None = None) -> Callable:
    """MindSpore's `ms.shard(fn, in_strategy, out_strategy=None, parameter_plan=None)`: `fn` whose tensor inputs
    and outputs are laid out by the strategies (None: data parallel, the batch cut over every device)."""
    if not isinstance(in_strategy, (tuple, list)):
        raise TypeError(f"shard: in_strategy must be a tuple, got {in_strategy!r}")
    ins, outs = _strategies(in_strategy, "in_strategy"), _strategies(out_strategy, "out_strategy")
    _plan(fn, parameter_plan)
    name = getattr(fn, "cls_name", None) or getattr(fn, "__name__", type(fn).__name__)

    def sharded(*args, **kwargs):
        return _through(name, fn, ins, outs, args, kwargs)

    sharded.__name__ = sharded.__qualname__ = f"shard_{name}"
    sharded.__wrapped__ = fn
    return sharded


def cell_shard(cell, in_strategy, out_strategy=None, parameter_plan: dict | None = None):
    """MindSpore's `Cell.shard(in_strategy, out_strategy=None, parameter_plan=None)`: lays out the Cell's inputs
    (and outputs) at every call, by forward hooks, and its named Parameters; returns the Cell."""
    if not isinstance(in_strategy, (tuple, list)):
        raise TypeError(f"{type(cell).__name__}.shard: in_strategy must be a tuple, got {in_strategy!r}")
    ins, outs = _strategies(in_strategy, "in_strategy"), _strategies(out_strategy, "out_strategy")
    _plan(cell, parameter_plan)
    name = type(cell).__name__

    def before(_cell, args):
        return tuple(_through(name, lambda *a: a, ins, None, args, {}))

    def after(_cell, _args, out):
        return _through(name, lambda: out, None, outs, (), {}) if outs is not None else None

    cell.register_forward_pre_hook(before)
    if outs is not None:
        cell.register_forward_hook(after)
    return cell
