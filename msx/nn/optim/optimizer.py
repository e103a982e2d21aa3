"""`nn.Optimizer`: the base of msx's optimizers (MindSpore's API, optax's math).

An optimizer owns its state as Parameters (`requires_grad=False`):
`learning_rate` (and `learning_rate_group_<i>`), `global_step` and the
per-parameter buffers named `<prefix>.<param name>` (`moment1.fc1.weight`).
A step reads them, runs one `OptimizerUpdate` primitive per parameter group
(whose jax implementation is an optax transformation) and writes everything
back with `_rebind`, so a compile pipeline sees explicit state reads and
writes and nothing else.
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence, Union

import numpy as np

from ... import context
from ... import dtype as mstype
from ... import ops
from ...ops.optim_ops import optimizer_update
from ...ops.primitive import apply
from ...parallel import optimizer as _parallel
from ...tensor import Parameter, Tensor
from ..cell import Cell, ParameterTuple

NO_LOCKING = ("an optimizer step computes every update functionally and assigns them together; there is no "
              "per-variable lock to take (the updated values are the same)")

LearningRate = Union[float, int, Tensor, Sequence[float], Callable[[Tensor], Any]]
_GROUP_KEYS = ("params", "lr", "weight_decay", "order_params")


@dataclass(frozen=True)
class _Group:
    """Positions in `optimizer.parameters` sharing one lr and one weight decay."""

    indices: tuple[int, ...]
    lr: Any  # a 0-d Parameter, a 1-d Parameter (one lr per step) or a callable of the global step
    weight_decay: float


def _check_float(owner: str, name: str, value: Any, low: float = 0.0, strict: bool = False,
                 floats_only: bool = False) -> float:
    """`value` as a float >= `low` (> with `strict`); any real number, or with `floats_only` a Python float only
    (the arguments MindSpore checks with `check_value_type(..., [float])`, which refuses an int)."""
    kinds = float if floats_only else (int, float, np.floating, np.integer)
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise TypeError(f"{owner}: {name} must be a float, got {type(value).__name__}")
    value = float(value)
    if value < low or (strict and value == low):
        raise ValueError(f"{owner}: {name} must be {'>' if strict else '>='} {low}, got {value}")
    return value


def _build_lr(owner: str, value: LearningRate, name: str) -> Any:
    """A float or 0-d Tensor becomes a 0-d float32 Parameter, a list or 1-d Tensor a per-step Parameter
    (MindSpore's dynamic lr); a schedule Cell or any callable of the global step is kept as is."""
    if isinstance(value, (int, float, np.floating, np.integer)) and not isinstance(value, bool):
        value = Tensor(_check_float(owner, "learning_rate", value), mstype.float32)
    elif isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"{owner}: learning_rate list is empty")
        value = Tensor([_check_float(owner, "learning_rate", v) for v in value], mstype.float32)
    if isinstance(value, Tensor):
        if value.ndim > 1:
            raise ValueError(f"{owner}: a Tensor learning_rate must be 0-d or 1-d (one lr per step), "
                             f"got shape {value.shape}")
        if value.ndim == 1 and value.shape[0] == 0:
            raise ValueError(f"{owner}: learning_rate Tensor is empty")
        if value.dtype != mstype.float32:   # (a float32 one as it is: a Cast would compile, once per process)
            value = value.astype(mstype.float32)
        return Parameter(value, name=name, requires_grad=False)
    if callable(value):
        return value
    raise TypeError(f"{owner}: learning_rate must be a float, a Tensor, a list of floats, a LearningRateSchedule "
                    f"or a callable of the global step, got {type(value).__name__}")


def _lr_at(lr: Any, step: Parameter) -> Tensor:
    """The 0-d float32 lr for the current step, computed with msx ops so a compiled step records it."""
    if isinstance(lr, Parameter):
        if lr.ndim == 0:
            return lr
        last = lr.shape[0] - 1
        return ops.reshape(ops.gather(lr, ops.minimum(step, last), 0), ())
    value = lr(step)
    value = value if isinstance(value, Tensor) else Tensor(value, mstype.float32)
    if value.size != 1:
        raise ValueError(f"a learning-rate schedule must return one value, got shape {value.shape}")
    return ops.reshape(ops.cast(value, mstype.float32), ())


def _as_tensor(value) -> Tensor:
    return value if isinstance(value, Tensor) else Tensor(value, mstype.float32)


class Optimizer(Cell):
    """MindSpore's `nn.Optimizer(learning_rate, parameters, weight_decay=0.0, loss_scale=1.0)`.

    `parameters` is a list of Parameters or MindSpore's groups: dicts with
    `params` and optional `lr` / `weight_decay`, plus an optional
    `{'order_params': ...}` fixing the order of `optimizer.parameters`
    (and so of the grads `optimizer(grads)` expects). `loss_scale` divides
    the grads before anything else. Subclasses name their per-parameter state
    (`_init_state`) and the optax update (`_update_attrs`).
    """

    def __init__(self, learning_rate: LearningRate, parameters: Iterable, weight_decay: float = 0.0,
                 loss_scale: float = 1.0) -> None:
        super().__init__(auto_prefix=False)
        owner = type(self).__name__
        self.loss_scale = _check_float(owner, "loss_scale", loss_scale, strict=True)
        # MindSpore also takes weight_decay as a schedule: a Cell or callable of the global step (dynamic decay)
        self._wd_schedule = weight_decay if callable(weight_decay) and not isinstance(weight_decay, Tensor) else None
        self.weight_decay = 0.0 if self._wd_schedule is not None else _check_float(owner, "weight_decay", weight_decay)
        self.learning_rate = _build_lr(owner, learning_rate, "learning_rate")
        items = list(parameters)
        params, self._groups = self._parse_params(items)
        self.parameters = ParameterTuple(params)
        self.is_group = isinstance(items[0], dict)
        self.is_group_lr = any(g.lr is not self.learning_rate for g in self._groups)
        for g in self._groups:
            if isinstance(g.lr, Parameter) and g.lr is not self.learning_rate:
                self.insert_param_to_cell(g.lr.name, g.lr, check_name_contain_dot=False)
        self.global_step = Parameter(Tensor(np.zeros(1, np.int32)), name="global_step", requires_grad=False)
        self._state_prefixes: tuple[str, ...] = ()
        self._shards = _parallel.plan_for(self)  # enable_parallel_optimizer: this rank's rows of the state

    # ------------------------------------------------------------ construction
    def _parse_params(self, items: list) -> tuple[list[Parameter], list[_Group]]:
        owner = type(self).__name__
        if not items:
            raise ValueError(f"{owner}: got an empty parameter list")
        if all(isinstance(p, Parameter) for p in items):
            groups, order = [(items, self.learning_rate, self.weight_decay)], None
        elif all(isinstance(g, dict) for g in items):
            groups, order = self._parse_groups(items)
        else:
            raise TypeError(f"{owner}: params must be a list of Parameters or a list of dicts (parameter groups), "
                            f"got {', '.join(sorted({type(p).__name__ for p in items}))}")
        flat = [p for ps, _, _ in groups for p in ps]
        seen: set[int] = set()
        for p in flat:
            if not isinstance(p, Parameter):
                raise TypeError(f"{owner}: group params must be Parameters, got {type(p).__name__}")
            if id(p) in seen:
                raise ValueError(f"{owner}: Parameter {p.name!r} is given more than once")
            seen.add(id(p))
        if order is None:
            order = flat
        elif len(order) != len(flat) or {id(p) for p in order} != seen:
            raise ValueError(f"{owner}: 'order_params' must hold exactly the parameters of the groups "
                             f"({len(flat)}), got {len(order)} Parameters")
        position = {id(p): i for i, p in enumerate(order)}
        return order, [_Group(tuple(position[id(p)] for p in ps), lr, wd) for ps, lr, wd in groups]

    def _parse_groups(self, items: list[dict]) -> tuple[list, list[Parameter] | None]:
        owner = type(self).__name__
        groups, order = [], None
        for g in items:
            unknown = sorted(set(g) - set(_GROUP_KEYS))
            if unknown:
                raise ValueError(f"{owner}: unsupported parameter-group keys {unknown}; supported: {_GROUP_KEYS}")
            if "order_params" in g:
                if len(g) != 1:
                    raise ValueError(f"{owner}: the 'order_params' group must have no other keys")
                order = list(g["order_params"])
                continue
            if "params" not in g:
                raise ValueError(f"{owner}: parameter group {len(groups)} has no 'params'")
            params = list(g["params"])
            if not params:
                raise ValueError(f"{owner}: parameter group {len(groups)} has an empty 'params' list")
            lr = (_build_lr(owner, g["lr"], f"learning_rate_group_{len(groups)}") if "lr" in g
                  else self.learning_rate)
            wd = _check_float(owner, "weight_decay", g.get("weight_decay", self.weight_decay))
            groups.append((params, lr, wd))
        if not groups:
            raise ValueError(f"{owner}: no parameter group has 'params'")
        return groups, order

    def _init_state(self, *prefixes: str) -> None:
        """One zero-initialised buffer per parameter and prefix, an attribute `prefix` (a ParameterTuple)
        holding Parameters named `prefix.<param name>`."""
        for prefix in prefixes:
            buffers = []
            for i, p in enumerate(self.parameters):
                name = f"{prefix}.{p.name}"
                unique, k = name, 1
                while unique in self._params:
                    unique, k = f"{name}_{k}", k + 1
                buf = Parameter(Tensor._from(_parallel.local_zeros(self._shards, i, p)), name=unique,
                                requires_grad=False)
                _parallel.mark(buf, self._shards, i, p)
                buf._state_of = p  # whose state it is: its Parameter's `parallel_optimizer` decides its layout
                self.insert_param_to_cell(unique, buf, check_name_contain_dot=False)
                buffers.append(buf)
            object.__setattr__(self, prefix, ParameterTuple(buffers))
        self._state_prefixes = prefixes

    def _update_attrs(self, weight_decay: float) -> dict:
        """The `OptimizerUpdate` attrs for a group with this weight decay."""
        raise NotImplementedError(f"{type(self).__name__} must define construct(gradients) or _update_attrs()")

    # ------------------------------------------------------------ stepping
    def _group_lrs(self) -> list[Tensor]:
        computed: dict[int, Tensor] = {}
        for g in self._groups:
            if id(g.lr) not in computed:
                computed[id(g.lr)] = _lr_at(g.lr, self.global_step)
        return [computed[id(g.lr)] for g in self._groups]

    @property
    def target(self) -> str:
        """Where MindSpore runs the update ('CPU' on the host, 'GPU'/'Ascend' on the device): msx runs every
        update inside the step's XLA computation, so this only reports the context's device_target."""
        return self.__dict__.get("_target") or context.get_context("device_target")

    @target.setter
    def target(self, value: str) -> None:
        raise NotImplementedError(f"{type(self).__name__}.target cannot be set: as in MindSpore 2.10, only an "
                                  f"optimizer class that defines its own `target` setter (calling "
                                  f"self._set_base_target(value)) may move its update; msx runs every update inside "
                                  f"the step's XLA computation either way")

    def _set_base_target(self, value: str) -> None:
        """MindSpore's check of a new `target` (a host 'CPU' environment cannot move updates to a device)."""
        if not isinstance(value, str):
            raise TypeError(f"For 'Optimizer', the property 'target' must be string, but got {type(value)}")
        if value not in ("CPU", "Ascend", "GPU"):
            raise ValueError(f"For 'Optimizer', the property 'target' must be one of ['CPU', 'Ascend', 'GPU'], "
                             f"but got {value}")
        if self.target == "CPU" and value != "CPU":
            raise ValueError("For 'Optimizer', the property 'target' cannot be set to 'GPU' or 'Ascend' in the "
                             "'CPU' environment.")
        object.__setattr__(self, "_target", value)

    def get_lr(self) -> Tensor | tuple[Tensor, ...]:
        """The lr of the current step; with group lrs, a tuple with one lr per parameter (as MindSpore)."""
        lrs = self._group_lrs()
        if not self.is_group_lr:
            return lrs[0]
        per_param: list[Tensor] = [lrs[0]] * len(self.parameters)
        for g, lr in zip(self._groups, lrs):
            for i in g.indices:
                per_param[i] = lr
        return tuple(per_param)

    def _check_grads(self, gradients: Any) -> tuple:
        owner, n = type(self).__name__, len(self.parameters)
        if not isinstance(gradients, (tuple, list)):
            raise TypeError(f"{owner}: gradients must be a tuple with one gradient per Parameter in "
                            f"optimizer.parameters ({n}), got {type(gradients).__name__}")
        if len(gradients) != n:
            raise ValueError(f"{owner}: expected {n} gradients (one per Parameter in optimizer.parameters), "
                             f"got {len(gradients)}")
        for i, (p, g) in enumerate(zip(self.parameters, gradients)):
            if g is None:
                raise ValueError(f"{owner}: gradient {i} (for Parameter {p.name!r}) is None")
            if tuple(g.shape) != p.shape and not (self._shards and self._shards.accepts(i, g, p)):
                raise ValueError(f"{owner}: gradient {i} has shape {tuple(g.shape)}, but Parameter {p.name!r} "
                                 f"has shape {p.shape}")
        return tuple(gradients)

    def get_weight_decay(self) -> Tensor:
        """The weight decay of the current step (a schedule's value, or the fixed one)."""
        if self._wd_schedule is None:
            return Tensor(self.weight_decay, mstype.float32)
        return ops.reshape(ops.cast(_as_tensor(self._wd_schedule(self.global_step)), mstype.float32), ())

    def _decay_by_schedule(self, grads: tuple) -> tuple:
        """A weight-decay schedule is applied as L2 here (grad + wd(step) * param), before the update."""
        if self._wd_schedule is None:
            return grads
        wd = self.get_weight_decay()
        shards = self._shards or _parallel.ShardPlan(1)
        return tuple(g + ops.cast(wd, p.dtype) * (p if tuple(g.shape) == p.shape else shards.local(i, p))
                     for i, (g, p) in enumerate(zip(grads, self.parameters)))  # level2: g is the rank's rows

    def updates_elementwise(self) -> bool:
        """Whether each Parameter's update reads only its own gradient and state, element by element, so the
        parallel optimizer may give each rank some rows of the state (msx.parallel.optimizer asks): true of this
        class's `construct`, not of one a subclass writes."""
        return type(self).construct is Optimizer.construct

    def construct(self, gradients: Sequence[Tensor]) -> bool:
        """Update every Parameter (and the optimizer's state) in place from `gradients`; returns True."""
        grads = self._decay_by_schedule(self._check_grads(gradients))
        states = [getattr(self, prefix) for prefix in self._state_prefixes]
        for g, lr in zip(self._groups, self._group_lrs()):
            params = [self.parameters[i] for i in g.indices]
            buffers = [buf[i] for buf in states for i in g.indices]
            shards = self._shards or _parallel.ShardPlan(1)
            local = [shards.local(i, t) for i, t in zip(g.indices, params)]
            local_grads = [shards.grad(i, grads[i], self.parameters[i]) for i in g.indices]
            outs = apply(optimizer_update, (shards.common(lr), shards.common(self.global_step), *local, *local_grads,
                                            *buffers),
                         self._update_attrs(g.weight_decay))
            for i, target, new in zip(g.indices, params, outs):
                shards.write(i, target, new)
            for target, new in zip(buffers, outs[len(params):]):
                target._rebind(new)
        self.global_step._rebind(self.global_step + 1)
        return True


def opt_init_args_register(fn: Callable) -> Callable:
    """MindSpore's decorator for an optimizer's `__init__`: records the arguments it was built with as
    `init_params` ({"params": ...}), `init_learning_rate` (None for a schedule Cell) and `init_args` (the rest),
    the way MindSpore's optimizers keep them, then runs `__init__`."""
    @functools.wraps(fn)
    def deco(self, *args, **kwargs):
        arguments = inspect.signature(fn).bind(self, *args, **kwargs)
        arguments.apply_defaults()
        arguments = dict(arguments.arguments)
        arguments.pop("self")
        record = functools.partial(object.__setattr__, self)  # before Cell.__init__ has run, as MindSpore does
        if "params" in arguments:
            record("init_params", {"params": arguments.pop("params")})
        if "optimizer" in arguments:
            record("init_params", {"params": arguments.pop("optimizer").init_params["params"]})
        if "learning_rate" in arguments:
            lr = arguments.pop("learning_rate")
            if isinstance(lr, Tensor):
                lr = lr.asnumpy().tolist()
            record("init_learning_rate", None if isinstance(lr, Cell) else lr)
        record("init_args", arguments)
        fn(self, *args, **kwargs)

    return deco
