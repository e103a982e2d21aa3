"""The Cells `Model` compiles — one training step, one evaluation step — and the runner that compiles them.

`CompiledStep` calls a Cell through `msx.jit(capture_mode="trace")`. When
msx cannot compile it (a capture, pass or backend error), the Parameters the
failed attempt may have written are put back and the Cell runs eagerly from
then on, with a one-time warning that says why.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

from .. import context
from .. import dtype as mstype
from ..amp import LossScaler, all_finite, cast_floats
from ..autograd import value_and_grad
from ..errors import BackendError, CaptureError, PassError, VerifyError
from ..jit import jit
from ..nn.cell import Cell
from ..ops import functional as F
from ..tensor import Parameter, Tensor

_COMPILE_ERRORS = (CaptureError, BackendError, PassError, VerifyError)


def _network_output(network: Cell, inputs: tuple, output_fp32: bool) -> Any:
    out = network(*inputs)
    return cast_floats(out, mstype.float32) if output_fp32 else out


class TrainStep(Cell):
    """One optimisation step: the loss of `loss_fn(network(*inputs), label)` (or of `network(*data)` without a
    loss_fn), its gradients for `optimizer.parameters`, `optimizer(grads)`; returns the loss.

    With a `scaler`, the loss is scaled before differentiating and the grads
    unscaled; with `drop_overflow`, a step whose grads are not all finite
    leaves the weights and the optimizer's state unchanged (a select, not a
    branch, so the compiled graph stays one graph).
    """

    def __init__(self, network: Cell, loss_fn: Callable | None, optimizer: Cell, scaler: LossScaler | None = None,
                 drop_overflow: bool = True, output_fp32: bool = False) -> None:
        super().__init__(auto_prefix=False)
        self.network = network
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.scaler = scaler
        self.drop_overflow = drop_overflow
        self.output_fp32 = output_fp32
        self._grad_fn = value_and_grad(self._forward, None, optimizer.parameters, has_aux=True)

    def _forward(self, *data: Tensor) -> tuple[Tensor, Tensor]:
        if self.loss_fn is None:
            loss = self.network(*data)
        else:
            loss = self.loss_fn(_network_output(self.network, data[:-1], self.output_fp32), data[-1])
        scaled = loss if self.scaler is None else self.scaler.scale(loss)
        return scaled, loss

    def construct(self, *data: Tensor) -> Tensor:
        (_, loss), grads = self._grad_fn(*data)
        if self.scaler is None:
            self.optimizer(grads)
            return loss
        grads = self.scaler.unscale(grads)
        finite = all_finite(grads)
        self.scaler.adjust(finite)
        if not self.drop_overflow:
            self.optimizer(grads)
            return loss
        state = list(self.optimizer.parameters) + list(self.optimizer.get_parameters())
        before = [Tensor(p) for p in state]
        self.optimizer(grads)
        for p, old in zip(state, before):
            p._rebind(F.where(finite, p, old))
        return loss


class EvalStep(Cell):
    """`(loss, network output, label)` for a batch `(*inputs, label)`; loss is None without a loss_fn."""

    def __init__(self, network: Cell, loss_fn: Callable | None, output_fp32: bool = False) -> None:
        super().__init__(auto_prefix=False)
        self.network = network
        self.loss_fn = loss_fn
        self.output_fp32 = output_fp32

    def construct(self, *data: Tensor) -> tuple:
        out = _network_output(self.network, data[:-1], self.output_fp32)
        label = data[-1]
        loss = self.loss_fn(out, label) if self.loss_fn is not None else None
        return loss, out, label


def _writable(cell: Cell) -> list[Parameter]:
    """Every Parameter a step of `cell` may write (the global RNG state aside)."""
    params = list(cell.get_parameters())
    scaler = getattr(cell, "scaler", None)
    if scaler is not None:
        params += [v for v in vars(scaler).values() if isinstance(v, Parameter)]
    return params


class CompiledStep:
    """Runs `cell(*data)` compiled by `msx.jit(capture_mode="trace")`, falling back to eager if it cannot be."""

    def __init__(self, cell: Cell, what: str) -> None:
        self.cell = cell
        self.what = what
        self.jitted = jit(cell, capture_mode="trace")
        self.fallback_reason: str | None = None
        self._params = _writable(cell)

    @property
    def compiled(self) -> bool:
        return self.fallback_reason is None

    def __call__(self, *data: Tensor) -> Any:
        if self.fallback_reason is not None:
            return self.cell.construct(*data)
        params = self._params + ([context._rng_state] if context._rng_state is not None else [])
        saved = [(p, p._data) for p in params]
        try:
            return self.jitted(*data)
        except _COMPILE_ERRORS as exc:
            for p, array in saved:  # undo whatever the failed attempt wrote
                p._data = array
            self.fallback_reason = str(exc)
            warnings.warn(f"msx.train.Model: the {self.what} step could not be compiled, so it runs eagerly from now "
                          f"on:\n{exc}", RuntimeWarning, stacklevel=3)
            return self.cell.construct(*data)
