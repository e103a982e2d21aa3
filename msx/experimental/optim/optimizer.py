"""MindSpore's `experimental.optim.Optimizer`: torch-style parameter groups whose `lr` is a Parameter (so an
`lr_scheduler` can change it between steps), called as `optimizer(grads)` like every MindSpore optimizer."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ... import dtype as mstype
from ...nn.cell import Cell, ParameterTuple
from ...ops import functional as F
from ...tensor import Parameter, Tensor


class Optimizer(Cell):
    """Base: `param_groups` (dicts with `params` and hyperparameters, defaults filled in), `parameters`
    (all Parameters in group order: the order `optimizer(grads)` expects), `lrs` (one lr Parameter per group)
    and `state` ({Parameter name: {buffer name: Parameter}}). Subclasses define `_update(group, p, g, state,
    step)` with the torch rule."""

    def __init__(self, params: Iterable, defaults: dict) -> None:
        super().__init__(auto_prefix=False)
        items = list(params)
        if not items:
            raise ValueError(f"{type(self).__name__}: got an empty parameter list")
        if not isinstance(items[0], dict):
            items = [{"params": items}]
        self.defaults = dict(defaults)
        self.param_groups: list[dict] = []
        self.lrs: list[Parameter] = []
        self.group_start_id = [0]
        self._all: list[Parameter] = []
        self.state: dict = {}
        for g in items:
            self.add_param_group(dict(g))
        self.step_t = Parameter(Tensor(np.zeros(1, np.int32)), name="step_t", requires_grad=False)

    @property
    def parameters(self) -> ParameterTuple:
        return ParameterTuple(self._all)

    def add_param_group(self, param_group: dict) -> None:
        params = param_group["params"]
        params = [params] if isinstance(params, Parameter) else list(params)
        bad = [type(p).__name__ for p in params if not isinstance(p, Parameter)]
        if bad:
            raise TypeError(f"{type(self).__name__}: params must be Parameters, got {bad[0]}")
        if any(p is q for p in params for q in self._all):
            raise ValueError(f"{type(self).__name__}: some parameters appear in more than one parameter group")
        param_group["params"] = params
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        lr = param_group["lr"]
        lr_value = float(lr.asnumpy()) if isinstance(lr, Tensor) else float(lr)
        if lr_value < 0:
            raise ValueError(f"{type(self).__name__}: invalid learning rate {lr_value}")
        group_id = len(self.param_groups)
        lr_param = Parameter(Tensor(lr_value, mstype.float32), name=f"learning_rate_group_{group_id}",
                             requires_grad=False)
        self.insert_param_to_cell(lr_param.name, lr_param)
        param_group["lr"] = lr_param
        self.lrs.append(lr_param)
        self.param_groups.append(param_group)
        for p in params:  # state buffers exist from the start, so a compiled step only reads and writes them
            for name, init in self._slots(param_group):
                self._buffer(p, name, init)
        self._all.extend(params)
        self.group_start_id.append(self.group_start_id[-1] + len(params))

    def _buffer(self, p: Parameter, name: str, init: float = 0.0, like: Tensor | None = None) -> Parameter:
        slots = self.state.setdefault(p.name, {})
        if name not in slots:
            value = F.full_like(p if like is None else like, float(init))
            buf = Parameter(value, name=f"{name}.{p.name}", requires_grad=False)
            self.insert_param_to_cell(f"{name}.{p.name}", buf, check_name_contain_dot=False)
            slots[name] = buf
        return slots[name]

    def _slots(self, group: dict) -> list[tuple[str, float]]:
        """The state buffers (name, initial value) each Parameter of `group` needs."""
        return []

    def construct(self, gradients) -> bool:
        grads = tuple(gradients)
        if len(grads) != len(self._all):
            raise ValueError(f"{type(self).__name__}: expected {len(self._all)} gradients (one per Parameter in "
                             f"optimizer.parameters), got {len(grads)}")
        step = F.cast(F.reshape(self.step_t, ()), mstype.float32) + 1.0
        for gid, group in enumerate(self.param_groups):
            start = self.group_start_id[gid]
            for i, p in enumerate(group["params"]):
                g = F.cast(grads[start + i], p.dtype)
                if group.get("maximize"):
                    g = -g
                self._update(group, p, g, F.cast(group["lr"], p.dtype), step)
        self.step_t._rebind(self.step_t + 1)
        return True

    def _update(self, group: dict, p: Parameter, g: Tensor, lr: Tensor, step: Tensor) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define _update")

    def extend_repr(self) -> str:
        lines = []
        for i, g in enumerate(self.param_groups):
            hp = ", ".join(f"{k}: {float(v.asnumpy()) if k == 'lr' else v}" for k, v in sorted(g.items())
                           if k != "params")
            lines.append(f"group {i}: {hp}")
        return "; ".join(lines)


def _wd(group: dict, p: Tensor, g: Tensor) -> Tensor:
    wd = group.get("weight_decay", 0.0)
    return g + wd * p if wd else g


class SGD(Optimizer):
    """torch's SGD: momentum buffer `b = momentum b + (1 - dampening) g` (b = g on the first step)."""

    def __init__(self, params, lr, momentum: float = 0, dampening: float = 0, weight_decay: float = 0.0,
                 nesterov: bool = False, *, maximize: bool = False) -> None:
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD: Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))

    def _slots(self, group):
        return [("momentum_buffer", 0.0)] if group["momentum"] else []

    def _update(self, group, p, g, lr, step):
        g = _wd(group, p, g)
        m = group["momentum"]
        if m:
            buf = self._buffer(p, "momentum_buffer")
            new = F.where(step == 1, g, m * buf + (1 - group["dampening"]) * g)
            buf._rebind(new)
            g = g + m * new if group["nesterov"] else new
        p._rebind(p - lr * g)


class Adam(Optimizer):
    """torch's Adam (optionally AMSGrad): bias-corrected moments, `p -= lr m_hat / (sqrt(v_hat) + eps)`."""

    decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *,
                 maximize=False) -> None:
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize))

    def _slots(self, group):
        return [("exp_avg", 0.0), ("exp_avg_sq", 0.0)] + ([("max_exp_avg_sq", 0.0)] if group["amsgrad"] else [])

    def _update(self, group, p, g, lr, step):
        b1, b2 = group["betas"]
        if self.decoupled:
            p._rebind(p * (1 - lr * group["weight_decay"]))
        else:
            g = _wd(group, p, g)
        m, v = self._buffer(p, "exp_avg"), self._buffer(p, "exp_avg_sq")
        m._rebind(b1 * m + (1 - b1) * g)
        v._rebind(b2 * v + (1 - b2) * g * g)
        bc1 = 1 - F.pow(Tensor(b1, p.dtype), step)
        bc2 = 1 - F.pow(Tensor(b2, p.dtype), step)
        v_used = v
        if group["amsgrad"]:
            vmax = self._buffer(p, "max_exp_avg_sq")
            vmax._rebind(F.maximum(vmax, v))
            v_used = vmax
        p._rebind(p - lr / bc1 * m / (F.sqrt(v_used) / F.sqrt(bc2) + group["eps"]))


class AdamW(Adam):
    """Adam with decoupled weight decay (`p *= 1 - lr * weight_decay` before the Adam step)."""

    decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


class Adagrad(Optimizer):
    """torch's Adagrad: `clr = lr / (1 + (t - 1) lr_decay); sum += g^2; p -= clr g / (sqrt(sum) + eps)`."""

    def __init__(self, params, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10,
                 *, maximize=False) -> None:
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay, eps=eps,
                                      initial_accumulator_value=initial_accumulator_value, maximize=maximize))

    def _slots(self, group):
        return [("sum", group["initial_accumulator_value"])]

    def _update(self, group, p, g, lr, step):
        g = _wd(group, p, g)
        acc = self._buffer(p, "sum", group["initial_accumulator_value"])
        acc._rebind(acc + g * g)
        clr = lr / (1 + (step - 1) * group["lr_decay"])
        p._rebind(p - clr * g / (F.sqrt(acc) + group["eps"]))


class RMSprop(Optimizer):
    """torch's RMSprop: `sq = alpha sq + (1 - alpha) g^2`, centered / momentum variants."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False,
                 maximize=False) -> None:
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered, maximize=maximize))

    def _slots(self, group):
        return ([("square_avg", 0.0)] + ([("grad_avg", 0.0)] if group["centered"] else [])
                + ([("momentum_buffer", 0.0)] if group["momentum"] else []))

    def _update(self, group, p, g, lr, step):
        g = _wd(group, p, g)
        a = group["alpha"]
        sq = self._buffer(p, "square_avg")
        sq._rebind(a * sq + (1 - a) * g * g)
        avg = sq
        if group["centered"]:
            ga = self._buffer(p, "grad_avg")
            ga._rebind(a * ga + (1 - a) * g)
            avg = sq - ga * ga
        denom = F.sqrt(avg) + group["eps"]
        if group["momentum"]:
            buf = self._buffer(p, "momentum_buffer")
            buf._rebind(group["momentum"] * buf + g / denom)
            p._rebind(p - lr * buf)
        else:
            p._rebind(p - lr * g / denom)


class Adadelta(Optimizer):
    """torch's Adadelta: `sq = rho sq + (1 - rho) g^2; d = sqrt(acc + eps) / sqrt(sq + eps) g;
    acc = rho acc + (1 - rho) d^2; p -= lr d`."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, *, maximize=False) -> None:
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize))

    def _slots(self, group):
        return [("square_avg", 0.0), ("acc_delta", 0.0)]

    def _update(self, group, p, g, lr, step):
        g = _wd(group, p, g)
        rho, eps = group["rho"], group["eps"]
        sq, acc = self._buffer(p, "square_avg"), self._buffer(p, "acc_delta")
        sq._rebind(rho * sq + (1 - rho) * g * g)
        delta = F.sqrt(acc + eps) / F.sqrt(sq + eps) * g
        acc._rebind(rho * acc + (1 - rho) * delta * delta)
        p._rebind(p - lr * delta)


class Adamax(Optimizer):
    """torch's Adamax: `m = b1 m + (1 - b1) g; u = max(b2 u, |g| + eps); p -= lr / (1 - b1^t) m / u`."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, *, maximize=False) -> None:
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      maximize=maximize))

    def _slots(self, group):
        return [("exp_avg", 0.0), ("exp_inf", 0.0)]

    def _update(self, group, p, g, lr, step):
        g = _wd(group, p, g)
        b1, b2 = group["betas"]
        m, u = self._buffer(p, "exp_avg"), self._buffer(p, "exp_inf")
        m._rebind(b1 * m + (1 - b1) * g)
        u._rebind(F.maximum(b2 * u, F.abs(g) + group["eps"]))
        p._rebind(p - lr / (1 - F.pow(Tensor(b1, p.dtype), step)) * m / u)


__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adadelta", "Adamax"]
