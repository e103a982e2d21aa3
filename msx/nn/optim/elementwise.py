"""MindSpore's other optimizers, each written as its MindSpore kernel's update rule with msx ops:
`Adagrad`, `RMSProp`, `Adadelta`, `AdaMax`, `FTRL`, `ProximalAdagrad`, `Lamb`, `LazyAdam`, `Rprop`, `ASGD`.

A step reads the state Parameters (`<state>.<param name>`), computes the new
values with ordinary ops (so eager, gradients of training loops and capture
all see plain ops) and rebinds them. Grads are first divided by `loss_scale`
and L2-decayed (`grad + weight_decay * param`, MindSpore's `decay_weight`)
unless the rule decays the weights itself (Lamb). The golden tests compare
every rule with MindSpore 2.10 step by step.
"""
from __future__ import annotations

import functools
from typing import Iterable, Sequence

from ... import dtype as mstype
from ...ignored_args import not_honoured
from ...ops import functional as F
from ...parallel import optimizer as _parallel
from ...tensor import Tensor
from .adam import _check_betas
from .optimizer import NO_LOCKING, LearningRate, Optimizer, _check_float


class _Elementwise(Optimizer):
    """Base: subclasses list their states (name, initial value) and define `_rule`."""

    _states: tuple[tuple[str, float], ...] = ()
    _decays_itself = False
    _whole_sums = False  # a rule that sums over the whole tensor gets `total`: the sum over every rank's rows

    def _init_named_state(self) -> None:
        self._init_state(*(name for name, _ in self._states))
        for name, init in self._states:
            if init:
                for buf in getattr(self, name):
                    buf.set_data(F.full_like(buf, float(init)))

    def _rule(self, p: Tensor, g: Tensor, states: list[Tensor], lr: Tensor, step: Tensor, wd) -> tuple:
        raise NotImplementedError

    def updates_elementwise(self) -> bool:
        """True of this class's `construct`: each rule reads its parameter's rows elementwise, and a sum over the
        whole tensor (Lamb's norms) goes through `total`, which the parallel optimizer completes over the ranks."""
        return type(self).construct is _Elementwise.construct

    def construct(self, gradients: Sequence[Tensor]) -> bool:
        grads = self._decay_by_schedule(self._check_grads(gradients))
        shards = self._shards or _parallel.ShardPlan(1)
        step = shards.common(F.cast(F.reshape(self.global_step, ()), mstype.float32) + 1.0)  # update number `step`
        for group, lr in zip(self._groups, self._group_lrs()):
            for i in group.indices:
                whole = self.parameters[i]
                p, g = shards.local(i, whole), shards.grad(i, grads[i], whole)
                g = F.cast(g, p.dtype)
                if self.loss_scale != 1.0:
                    g = g / self.loss_scale
                wd = group.weight_decay
                if wd and not self._decays_itself:
                    g = g + wd * p
                states = [getattr(self, name)[i] for name, _ in self._states]
                extra = {"total": functools.partial(shards.total, i)} if self._whole_sums else {}
                new_p, *new_states = self._rule(p, g, states, shards.common(F.cast(lr, p.dtype)), step, wd, **extra)
                shards.write(i, whole, F.cast(new_p, whole.dtype))
                for target, new in zip(states, new_states):
                    target._rebind(F.cast(new, target.dtype))
        self.global_step._rebind(self.global_step + 1)
        return True


class Adagrad(_Elementwise):
    """ApplyAdagrad: `accum += g^2; p -= lr * g / sqrt(accum)` (accum starts at `accum`, 0.1)."""

    def __init__(self, params: Iterable, accum: float = 0.1, learning_rate: LearningRate = 0.001,
                 update_slots: bool = True, loss_scale: float = 1.0, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.accum_init, self.update_slots = _check_float("Adagrad", "accum", accum), bool(update_slots)
        self._states = (("accum", self.accum_init),)
        self._init_named_state()

    def _rule(self, p, g, states, lr, step, wd):
        (accum,) = states
        if self.update_slots:
            accum = accum + g * g
        return p - lr * g / F.sqrt(accum), accum


class RMSProp(_Elementwise):
    """ApplyRMSProp: `ms = decay ms + (1 - decay) g^2; mom = momentum mom + lr g / sqrt(ms + eps); p -= mom`;
    centered subtracts the squared mean gradient `mg` inside the root. `mean_square` starts at ones."""

    def __init__(self, params: Iterable, learning_rate: LearningRate = 0.1, decay: float = 0.9,
                 momentum: float = 0.0, epsilon: float = 1e-10, use_locking: bool = False, centered: bool = False,
                 loss_scale: float = 1.0, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        not_honoured(type(self).__name__, "use_locking", use_locking, False, NO_LOCKING)
        self.decay, self.momentum = _check_float("RMSProp", "decay", decay), _check_float("RMSProp", "momentum", momentum)
        self.epsilon, self.centered = _check_float("RMSProp", "epsilon", epsilon, strict=True), bool(centered)
        self._states = (("mean_square", 1.0), ("moment", 0.0)) + ((("mean_grad", 0.0),) if centered else ())
        self._init_named_state()

    def _rule(self, p, g, states, lr, step, wd):
        ms, mom = states[0], states[1]
        ms = self.decay * ms + (1 - self.decay) * g * g
        if self.centered:
            mg = self.decay * states[2] + (1 - self.decay) * g
            mom = self.momentum * mom + lr * g / F.sqrt(ms - mg * mg + self.epsilon)
            return p - mom, ms, mom, mg
        mom = self.momentum * mom + lr * g / F.sqrt(ms + self.epsilon)
        return p - mom, ms, mom


class Adadelta(_Elementwise):
    """ApplyAdadelta: `accum = rho accum + (1 - rho) g^2; u = sqrt(accum_update + eps) / sqrt(accum + eps) g;
    accum_update = rho accum_update + (1 - rho) u^2; p -= lr u`."""

    def __init__(self, params: Iterable, learning_rate: LearningRate = 1.0, rho: float = 0.9,
                 epsilon: float = 1e-6, loss_scale: float = 1.0, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.rho, self.epsilon = _check_float("Adadelta", "rho", rho), _check_float("Adadelta", "epsilon", epsilon)
        self._states = (("accum", 0.0), ("accum_update", 0.0))
        self._init_named_state()

    def _rule(self, p, g, states, lr, step, wd):
        accum, accum_update = states
        accum = self.rho * accum + (1 - self.rho) * g * g
        update = F.sqrt(accum_update + self.epsilon) / F.sqrt(accum + self.epsilon) * g
        accum_update = self.rho * accum_update + (1 - self.rho) * update * update
        return p - lr * update, accum, accum_update


class AdaMax(_Elementwise):
    """ApplyAdaMax: `m = b1 m + (1 - b1) g; v = max(b2 v, |g|); p -= lr / (1 - b1^t) * m / (v + eps)`."""

    def __init__(self, params: Iterable, learning_rate: LearningRate = 0.001, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8, weight_decay: float = 0.0, loss_scale: float = 1.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1, self.beta2, self.eps = float(beta1), float(beta2), float(eps)
        self._states = (("moment1", 0.0), ("moment2", 0.0))
        self._init_named_state()

    def _rule(self, p, g, states, lr, step, wd):
        m, v = states
        m = self.beta1 * m + (1 - self.beta1) * g
        v = F.maximum(self.beta2 * v, F.abs(g))
        return p - lr / (1 - F.pow(Tensor(self.beta1, p.dtype), step)) * m / (v + self.eps), m, v


class FTRL(_Elementwise):
    """ApplyFtrl (follow the regularised leader): `accum` starts at `initial_accum`, `linear` at 0."""

    def __init__(self, params: Iterable, initial_accum: float = 0.1, learning_rate: LearningRate = 0.001,
                 lr_power: float = -0.5, l1: float = 0.0, l2: float = 0.0, use_locking: bool = False,
                 loss_scale: float = 1.0, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        not_honoured(type(self).__name__, "use_locking", use_locking, False, NO_LOCKING)
        if lr_power > 0:
            raise ValueError(f"FTRL: lr_power must be <= 0, got {lr_power}")
        self.lr_power, self.l1, self.l2 = float(lr_power), float(l1), float(l2)
        self._states = (("moments", float(initial_accum)), ("linear", 0.0))
        self._init_named_state()

    def _rule(self, p, g, states, lr, step, wd):
        accum, linear = states
        new_accum = accum + g * g
        power = -self.lr_power
        sigma = (F.pow(new_accum, power) - F.pow(accum, power)) / lr
        linear = linear + g - sigma * p
        quadratic = F.pow(new_accum, power) / lr + 2 * self.l2
        shrunk = (F.sign(linear) * self.l1 - linear) / quadratic
        return F.where(F.abs(linear) > self.l1, shrunk, F.zeros_like(p)), new_accum, linear


class ProximalAdagrad(_Elementwise):
    """ApplyProximalAdagrad: `accum += g^2; prox = p - lr g / sqrt(accum);
    p = sign(prox) / (1 + lr l2) * max(|prox| - lr l1, 0)`."""

    def __init__(self, params: Iterable, accum: float = 0.1, learning_rate: LearningRate = 0.001, l1: float = 0.0,
                 l2: float = 0.0, use_locking: bool = False, loss_scale: float = 1.0, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        not_honoured(type(self).__name__, "use_locking", use_locking, False, NO_LOCKING)
        self.l1, self.l2 = _check_float("ProximalAdagrad", "l1", l1), _check_float("ProximalAdagrad", "l2", l2)
        self._states = (("accum", float(accum)),)
        self._init_named_state()

    def _rule(self, p, g, states, lr, step, wd):
        accum = states[0] + g * g
        prox = p - lr * g / F.sqrt(accum)
        return F.sign(prox) / (1 + lr * self.l2) * F.relu(F.abs(prox) - lr * self.l1), accum


class Lamb(_Elementwise):
    """LAMB: bias-corrected Adam direction plus decoupled weight decay, scaled per parameter by the trust
    ratio ||p|| / ||update|| (1 where either norm is 0)."""

    _decays_itself = True
    _whole_sums = True  # the trust ratio's norms: under the parallel optimizer, summed over the ranks' rows

    def __init__(self, params: Iterable, learning_rate: LearningRate, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-6, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = _check_betas("Lamb", beta1, beta2, eps)  # as MindSpore: refused
        self._states = (("moments1", 0.0), ("moments2", 0.0))
        self._init_named_state()

    def _rule(self, p, g, states, lr, step, wd, total=lambda s: s):
        m, v = states
        m = self.beta1 * m + (1 - self.beta1) * g
        v = self.beta2 * v + (1 - self.beta2) * g * g
        m_hat = m / (1 - F.pow(Tensor(self.beta1, p.dtype), step))
        v_hat = v / (1 - F.pow(Tensor(self.beta2, p.dtype), step))
        update = m_hat / (F.sqrt(v_hat) + self.eps)
        if wd:
            update = update + wd * p
        w_norm, u_norm = F.sqrt(total(F.sum(p * p))), F.sqrt(total(F.sum(update * update)))
        ok = F.logical_and(w_norm > 0, u_norm > 0)
        trust = F.where(ok, w_norm / F.where(ok, u_norm, F.ones_like(u_norm)), F.ones_like(w_norm))
        return p - lr * trust * update, m, v


class LazyAdam(_Elementwise):
    """MindSpore's Adam kernel on dense gradients (its lazy row-sparse update only differs for sparse grads):
    `lr_t = lr sqrt(1 - b2^t) / (1 - b1^t); p -= lr_t m / (sqrt(v) + eps)`."""

    def __init__(self, params: Iterable, learning_rate: LearningRate = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8, use_locking: bool = False, use_nesterov: bool = False,
                 weight_decay: float = 0.0, loss_scale: float = 1.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        not_honoured(type(self).__name__, "use_locking", use_locking, False, NO_LOCKING)
        self.beta1, self.beta2, self.eps, self.use_nesterov = float(beta1), float(beta2), float(eps), bool(use_nesterov)
        self._states = (("moment1", 0.0), ("moment2", 0.0))
        self._init_named_state()

    def _rule(self, p, g, states, lr, step, wd):
        m, v = states
        b1, b2 = Tensor(self.beta1, p.dtype), Tensor(self.beta2, p.dtype)
        m = self.beta1 * m + (1 - self.beta1) * g
        v = self.beta2 * v + (1 - self.beta2) * g * g
        lr_t = lr * F.sqrt(1 - F.pow(b2, step)) / (1 - F.pow(b1, step))
        direction = (self.beta1 * m + (1 - self.beta1) * g) if self.use_nesterov else m
        return p - lr_t * direction / (F.sqrt(v) + self.eps), m, v


class Rprop(_Elementwise):
    """Resilient backprop: per-element step sizes grow by etas[1] while the gradient keeps its sign and
    shrink by etas[0] when it flips (that step is skipped); sizes stay within `step_sizes`."""

    def __init__(self, params: Iterable, learning_rate: LearningRate = 0.1, etas: tuple = (0.5, 1.2),
                 step_sizes: tuple = (1e-6, 50.0), weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay)
        if not (isinstance(etas, tuple) and 0 < etas[0] < 1 < etas[1]):
            raise ValueError(f"Rprop: etas must be a tuple (etaminus, etaplus) with 0 < etaminus < 1 < etaplus, "
                             f"got {etas!r}")
        self.etaminus, self.etaplus = float(etas[0]), float(etas[1])
        self.step_min, self.step_max = float(step_sizes[0]), float(step_sizes[1])
        self._states = (("prev", 0.0), ("step_size", 0.0))
        self._init_named_state()

    def _rule(self, p, g, states, lr, step, wd):
        prev, size = states
        size = F.where(size == 0, F.full_like(size, 1.0) * lr, size)  # the first step starts from lr
        sign = g * prev
        size = F.where(sign > 0, size * self.etaplus, F.where(sign < 0, size * self.etaminus, size))
        size = F.minimum(F.maximum(size, self.step_min), self.step_max)
        g = F.where(sign < 0, F.zeros_like(g), g)
        return p - F.sign(g) * size, g, size


class ASGD(_Elementwise):
    """Averaged SGD: `p = p (1 - lambd eta) - eta g`; the average `ax` follows with weight `mu`;
    `eta = lr / (1 + lambd lr t)^alpha`, `mu = 1 / max(1, t - t0)`."""

    def __init__(self, params: Iterable, learning_rate: LearningRate = 0.1, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay)
        self.lambd, self.alpha, self.t0 = float(lambd), float(alpha), float(t0)
        self._states = (("eta", 0.0), ("mu", 1.0), ("ax", 0.0))
        self._init_named_state()

    def _rule(self, p, g, states, lr, step, wd):
        eta, mu, ax = states
        eta = F.where(step == 1, F.full_like(eta, 1.0) * lr, eta)
        new_p = p * (1 - self.lambd * eta) - eta * g
        ax = F.where(mu != 1, ax + (new_p - ax) * mu, new_p)
        eta = F.full_like(eta, 1.0) * (lr / F.pow(1 + self.lambd * lr * step, self.alpha))
        mu = F.full_like(mu, 1.0) / F.maximum(F.full_like(mu, 1.0), step - self.t0)
        return new_p, eta, mu, ax


__all__ = ["Adagrad", "RMSProp", "Adadelta", "AdaMax", "FTRL", "ProximalAdagrad", "Lamb", "LazyAdam", "Rprop",
           "ASGD"]
