"""More of MindSpore's torch-style `experimental.optim` optimizers: `NAdam`, `RAdam`, `Rprop`, `ASGD`, each
MindSpore 2.10's update (the same as torch's) over the shared `Optimizer` base (per-Parameter state buffers
that a compiled step reads and writes, param groups, `lr` as a Parameter for the schedulers)."""
from __future__ import annotations

from ...ops import functional as F
from ...tensor import Tensor
from .optimizer import Optimizer, _wd


class _ScalarState(Optimizer):
    """An optimizer with per-Parameter scalar state (`SCALARS`: (name, initial value)), made with the other
    buffers when a param group is added, so a compiled step only reads and writes them."""

    SCALARS: tuple[tuple[str, float], ...] = ()

    def add_param_group(self, param_group: dict) -> None:
        super().add_param_group(param_group)
        for p in self.param_groups[-1]["params"]:
            for name, init in self.SCALARS:
                self._buffer(p, name, init, like=Tensor(0.0, p.dtype))


def _check(owner: str, **bounds) -> None:
    for name, (value, low, strict) in bounds.items():
        if value < low or (strict and value == low):
            raise ValueError(f"{owner}: {name} must be {'>' if strict else '>='} {low}, got {value}")


class NAdam(_ScalarState):
    """Adam with Nesterov momentum whose weight `mu_t = beta1 (1 - 0.5 * 0.96^(t * momentum_decay))` warms up."""

    SCALARS = (("mu_product", 1.0),)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, momentum_decay=4e-3) -> None:
        _check("NAdam", lr=(lr, 0.0, True), eps=(eps, 0.0, True), weight_decay=(weight_decay, 0.0, False),
               momentum_decay=(momentum_decay, 0.0, False))
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay))

    def _slots(self, group):
        return [("exp_avg", 0.0), ("exp_avg_sq", 0.0)]

    def _update(self, group, p, g, lr, step):
        g = _wd(group, p, g)
        b1, b2 = group["betas"]
        decay = group["momentum_decay"]
        m, v = self._buffer(p, "exp_avg"), self._buffer(p, "exp_avg_sq")
        mu_product = self._buffer(p, "mu_product")
        mu = b1 * (1.0 - 0.5 * F.pow(0.96, step * decay))
        mu_next = b1 * (1.0 - 0.5 * F.pow(0.96, (step + 1) * decay))
        prod = mu_product * mu
        mu_product._rebind(prod)
        m._rebind(b1 * m + (1 - b1) * g)
        v._rebind(b2 * v + (1 - b2) * g * g)
        denom = F.sqrt(v / (1 - F.pow(b2, step))) + group["eps"]
        p._rebind(p - lr * (1.0 - mu) / (1.0 - prod) * g / denom)
        p._rebind(p - lr * mu_next / (1.0 - prod * mu_next) * m / denom)


class RAdam(Optimizer):
    """Adam with its adaptive step rectified: plain momentum SGD while the variance estimate is unreliable
    (`rho_t <= 5`), then the Adam step scaled by the rectification term."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0) -> None:
        _check("RAdam", lr=(lr, 0.0, True), eps=(eps, 0.0, True), weight_decay=(weight_decay, 0.0, False))
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay))

    def _slots(self, group):
        return [("exp_avg", 0.0), ("exp_avg_sq", 0.0)]

    def _update(self, group, p, g, lr, step):
        g = _wd(group, p, g)
        b1, b2 = group["betas"]
        m, v = self._buffer(p, "exp_avg"), self._buffer(p, "exp_avg_sq")
        m._rebind(b1 * m + (1 - b1) * g)
        v._rebind(b2 * v + (1 - b2) * g * g)
        b2_t = F.pow(b2, step)
        bc1, bc2 = 1 - F.pow(b1, step), 1 - b2_t
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * step * b2_t / bc2
        m_hat = m / bc1
        safe = F.maximum(rho_t, 5.0 + 1e-3)  # the rectified branch is only taken where rho_t > 5
        rect = F.sqrt((safe - 4) * (safe - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * safe))
        adaptive = F.sqrt(bc2) / (F.sqrt(v) + group["eps"])
        p._rebind(F.where(rho_t > 5.0, p - m_hat * lr * adaptive * rect, p - m_hat * lr))


class Rprop(Optimizer):
    """Resilient backprop: a per-element step size grows by `etas[1]` while the gradient keeps its sign and
    shrinks by `etas[0]` when it flips (that element then skips its update), clipped to `step_sizes`."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, maximize=False) -> None:
        _check("Rprop", lr=(lr, 0.0, True), **{"etas[1]": (etas[1], 1.0, True)})
        if not 0.0 < etas[0] < 1.0:
            raise ValueError(f"Rprop: etas[0] must be in (0, 1), got {etas[0]}")
        super().__init__(params, dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes), maximize=maximize))

    def _slots(self, group):
        return [("prev", 0.0), ("step_size", 0.0)]

    def _update(self, group, p, g, lr, step):
        minus, plus = group["etas"]
        lo, hi = group["step_sizes"]
        prev, size = self._buffer(p, "prev"), self._buffer(p, "step_size")
        size0 = F.where(step == 1, F.ones_like(size) * lr, size)
        s = F.sign(g * prev)
        factor = F.where(s > 0, F.full_like(s, plus), F.where(s < 0, F.full_like(s, minus), F.ones_like(s)))
        new_size = F.clamp(size0 * factor, lo, hi)
        size._rebind(new_size)
        g_used = F.where(s < 0, F.zeros_like(g), g)
        prev._rebind(g_used)
        p._rebind(p - F.sign(g_used) * new_size)


class ASGD(_ScalarState):
    """Averaged SGD: `p = p (1 - lambd eta) - eta g`, with `eta = lr / (1 + lambd lr t)^alpha` and the running
    average `ax` of the iterates from step `t0` on (`mu = 1 / max(1, t - t0)`)."""

    SCALARS = (("eta", 0.0), ("mu", 1.0))

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, maximize=False) -> None:
        _check("ASGD", lr=(lr, 0.0, True), weight_decay=(weight_decay, 0.0, False))
        for name, value in (("lambd", lambd), ("t0", t0)):
            if not isinstance(value, float):
                raise TypeError(f"ASGD: {name} must be a float, got {type(value).__name__}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      maximize=maximize))

    def _slots(self, group):
        return [("ax", 0.0)]

    def _update(self, group, p, g, lr, step):
        g = _wd(group, p, g)
        lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
        eta, mu = self._buffer(p, "eta"), self._buffer(p, "mu")
        ax = self._buffer(p, "ax")
        eta_t = F.where(step == 1, lr, eta)
        new = p * (1.0 - lambd * eta_t) - eta_t * g
        p._rebind(new)
        ax._rebind(F.where(mu != 1, ax + (new - ax) * mu, new))
        eta._rebind(lr / F.pow(1.0 + lambd * lr * step, alpha))
        mu._rebind(1.0 / F.maximum(F.ones_like(step), step - t0))


__all__ = ["NAdam", "RAdam", "Rprop", "ASGD"]
