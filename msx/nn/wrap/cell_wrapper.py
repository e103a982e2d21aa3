"""MindSpore's cell wrappers (`nn.wrap.cell_wrapper`): `WithLossCell` (network + loss), `TrainOneStepCell` (one
optimisation step), `WithEvalCell`, `WithGradCell`, `ForwardValueAndGrad` and `ParameterUpdate`."""
from __future__ import annotations

from ... import dtype as mstype
from ...autograd import GradOperation, value_and_grad, vjp_call
from ...ops import functional as F
from ...tensor import Parameter, Tensor
from ...parallel.context import ParallelMode, get_auto_parallel_context
from ..cell import Cell
from .grad_reducer import DistributedGradReducer


class WithLossCell(Cell):
    """`loss_fn(backbone(data), label)`; parameter names stay the backbone's (auto_prefix=False)."""

    def __init__(self, backbone: Cell, loss_fn: Cell) -> None:
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data: Tensor, label: Tensor) -> Tensor:
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self) -> Cell:
        return self._backbone


class TrainOneStepCell(Cell):
    """Computes the loss of `network(*inputs)` and the gradients of `optimizer.parameters`, applies
    `optimizer(grads)` and returns the loss.

    The forward runs once: the loss and the gradients come from the same call, so BatchNorm moving
    stats update once per step and a Dropout mask is shared by the loss and the gradients. `sens`
    scales the gradients (the loss's cotangent), e.g. for static loss scaling. `return_grad=True` returns
    `(loss, {parameter name: gradient})`, as MindSpore does.
    """

    def __init__(self, network: Cell, optimizer, sens: float | None = None, return_grad: bool = False) -> None:
        super().__init__(auto_prefix=False)
        self.network = network
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sens = sens
        self.return_grad = bool(return_grad)
        self._grad_fn = value_and_grad(self._forward, None, self.weights, has_aux=True)
        # MindSpore's reducer_flag: in a data-parallel job the gradients are reduced over the ranks
        data_parallel = get_auto_parallel_context("parallel_mode") == ParallelMode.DATA_PARALLEL
        self.grad_reducer = DistributedGradReducer(self.weights) if data_parallel else None

    def _forward(self, *inputs: Tensor) -> tuple[Tensor, Tensor]:
        """(loss * sens summed, loss): the first is differentiated, the second returned as is."""
        loss = self.network(*inputs)
        scaled = loss if self.sens is None else F.reduce_sum(F.mul(loss, self.sens))
        return scaled, loss

    def construct(self, *inputs: Tensor) -> Tensor:
        (_, loss), grads = self._grad_fn(*inputs)
        if self.grad_reducer is not None:
            grads = self.grad_reducer(grads)
        self.optimizer(grads)
        if self.return_grad:
            return loss, {w.name: g for w, g in zip(self.weights, grads)}
        return loss


class WithEvalCell(Cell):
    """`(loss, outputs, label)` of `network(data)` for evaluation; `add_cast_fp32` casts outputs to float32."""

    def __init__(self, network: Cell, loss_fn: Cell, add_cast_fp32: bool = False) -> None:
        super().__init__(auto_prefix=False)
        self._network, self._loss_fn, self.add_cast_fp32 = network, loss_fn, bool(add_cast_fp32)

    def construct(self, data: Tensor, label: Tensor):
        outputs = self._network(data)
        if self.add_cast_fp32:
            label, outputs = F.cast(label, mstype.float32), F.cast(outputs, mstype.float32)
        return self._loss_fn(outputs, label), outputs, label


class WithGradCell(Cell):
    """The gradients of the loss (`loss_fn(network(data), label)`, or `network(*inputs)` without loss_fn) with
    respect to the network's trainable Parameters; `sens` scales them."""

    def __init__(self, network: Cell, loss_fn: Cell | None = None, sens=None) -> None:
        super().__init__()
        self.network, self.loss_fn, self.sens = network, loss_fn, sens
        self.weights = tuple(network.trainable_params())
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.grad = GradOperation(get_by_list=True, sens_param=sens is not None)

    def construct(self, *inputs):
        fn = self.grad(self.network_with_loss, self.weights)
        if self.sens is None:
            return fn(*inputs)
        return fn(*inputs, F.full((), float(self.sens), dtype=mstype.float32))


class ForwardValueAndGrad(Cell):
    """`(value, grads)` of `network(*inputs)`: grads of all Tensor inputs (`get_all`), of `weights`
    (`get_by_list`), or both; with `sens_param` the last input is the output's sensitivity."""

    def __init__(self, network: Cell, weights=None, get_all: bool = False, get_by_list: bool = False,
                 sens_param: bool = False) -> None:
        super().__init__()
        if get_by_list and weights is None:
            raise TypeError("ForwardValueAndGrad: get_by_list=True needs weights")
        self.network, self.weights = network, tuple(weights) if weights is not None else None
        self.get_all, self.get_by_list, self.sens_param = bool(get_all), bool(get_by_list), bool(sens_param)

    def construct(self, *inputs):
        sens = None
        if self.sens_param:
            *inputs, sens = inputs
        inputs = tuple(inputs)
        positions = tuple(i for i, a in enumerate(inputs) if isinstance(a, Tensor)) if self.get_all else ()
        params = list(self.weights) if self.get_by_list else None
        value, arg_grads, param_grads = vjp_call(self.network, inputs, {}, positions or None, params, False, sens)
        if self.get_all and self.get_by_list:
            return value, (arg_grads, param_grads)
        if self.get_by_list:
            return value, param_grads
        if self.get_all:
            return value, arg_grads
        return value, ()


class ParameterUpdate(Cell):
    """`construct(x)` writes `x` into `param` (MindSpore's way to set a Parameter from inside a graph)."""

    def __init__(self, param: Parameter) -> None:
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterUpdate: param must be a Parameter, got {type(param).__name__}")
        self._param = param

    def construct(self, x: Tensor) -> Tensor:
        self._param.set_data(x)
        return x
