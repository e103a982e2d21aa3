"""Mixed precision (MindSpore's `mindspore.amp`): compute in float16/bfloat16, keep chosen Cells in float32.

`auto_mixed_precision(network, amp_level)` changes the network in place and
returns it. Parameters stay float32; a Cell set to compute in a low-precision
dtype (`Cell.to_float`) casts its float inputs on entry and its layers cast
their weights to the input's dtype, so gradients reach the float32
Parameters. The levels follow MindSpore:

- "O0": nothing changes.
- "O1": the Cells of `get_white_list()` (Dense, the convolutions) compute in
  `dtype`; their outputs are cast back to float32, so everything else stays
  float32 (a float64 output elsewhere stays float64).
- "O2": everything computes in `dtype` except the Cells of `get_black_list()`
  (BatchNorm, LayerNorm), which stay float32.
- "O3": everything computes in `dtype`.

At "O2" and "O3" every floating output of the network (float16, bfloat16 and
float64 alike) is cast to float32, as MindSpore 2.10's `_OutputTo32` wrapper
does, so a loss computed from it (and the loss scaled by 2**16) is float32;
integer and bool outputs are unchanged.

`keep_fp32` (an msx addition) keeps more Cells in float32 at every level:
Cell types (every instance) or Cell instances (that one, with everything
inside it) — e.g. a loss whose fixed Sobel convolution must not round its
weights to float16 (seed 002, §6.4). A kept Cell casts its float inputs to
float32 on entry; its outputs stay float32 and the next low-precision Cell
casts them on its own entry.

Float16 gradients can underflow: scale the loss (`DynamicLossScaler`,
`StaticLossScaler`, `all_finite`), which `msx.train.Model` does for you at
"O2" (MindSpore's default `DynamicLossScaleManager`).
"""
from __future__ import absolute_import, annotations  # noqa: F401  (mindspore.amp exports absolute_import)

import abc
from abc import ABC, abstractmethod  # noqa: F401  (mindspore.amp exports both)
from typing import Any, Iterable, Sequence

import jax

from . import dtype as mstype
from . import versions
from .nn import (BatchNorm1d, BatchNorm2d, BatchNorm3d, Conv1d, Conv1dTranspose, Conv2d, Conv2dTranspose, Conv3d,
                 Conv3dTranspose, Dense, LayerNorm)
from .nn.cell import Cell
from .ops import functional as F
from .tensor import Parameter, Tensor
from .nn.wrap import (DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell, TrainOneStepCell,
                      TrainOneStepWithLossScaleCell, WithLossCell)

AMP_LEVELS = ("O0", "O1", "O2", "O3")
# MindSpore 2.10's lists, less what has no Cell here (the RNN cells and ops primitives of its white list)
_WHITE_LIST: tuple[type, ...] = (Conv1d, Conv2d, Conv3d, Conv1dTranspose, Conv2dTranspose, Conv3dTranspose, Dense)
_BLACK_LIST: tuple[type, ...] = (BatchNorm1d, BatchNorm2d, BatchNorm3d, LayerNorm)


def get_white_list() -> list[type]:
    """The Cell types "O1" computes in low precision."""
    return list(_WHITE_LIST)


def get_black_list() -> list[type]:
    """The Cell types "O2" keeps in float32."""
    return list(_BLACK_LIST)


# ---------------------------------------------------------------- network conversion
class _Keep:
    """The float32 keep-list: Cell types and Cell instances."""

    def __init__(self, entries: Iterable[type | Cell]) -> None:
        entries = list(entries)
        bad = [e for e in entries if not (isinstance(e, Cell) or (isinstance(e, type) and issubclass(e, Cell)))]
        if bad:
            raise TypeError(f"keep_fp32 holds Cell types or Cell instances, got {bad[0]!r}")
        self.types = tuple(e for e in entries if isinstance(e, type))
        self.ids = {id(e) for e in entries if isinstance(e, Cell)}

    def __contains__(self, cell: Cell) -> bool:
        return id(cell) in self.ids or isinstance(cell, self.types)


def _check(network: Any, dtype: Any) -> mstype.Type:
    if not isinstance(network, Cell):
        raise TypeError(f"mixed precision needs an nn.Cell, got {type(network).__name__}")
    dtype = mstype.to_msx(dtype)
    if dtype not in (mstype.float16, mstype.bfloat16):
        raise ValueError(f"mixed precision dtype must be float16 or bfloat16, got {dtype}")
    return dtype


def auto_mixed_precision(network: Cell, amp_level: str = "O0", dtype=mstype.float16,
                         keep_fp32: Sequence[type | Cell] = ()) -> Cell:
    """Make `network` compute in `dtype` at `amp_level` ("O0"-"O3"), keeping `keep_fp32` in float32."""
    if amp_level not in AMP_LEVELS:
        raise ValueError(f"auto_mixed_precision: amp_level must be one of {list(AMP_LEVELS)}, got {amp_level!r}")
    dtype = _check(network, dtype)
    keep = _Keep(keep_fp32)
    if amp_level == "O1":
        _white_list(network, _WHITE_LIST, dtype, keep)
    elif amp_level == "O2":
        _black_list(network, _Keep(list(_BLACK_LIST) + list(keep_fp32)), dtype)
        _cast_outputs(network, mstype.float32)  # MindSpore 2.10 wraps O2/O3 networks in _OutputTo32
    elif amp_level == "O3":
        _black_list(network, keep, dtype)
        _cast_outputs(network, mstype.float32)
    return network


def custom_mixed_precision(network: Cell, *, white_list: Sequence[type] | None = None,
                           black_list: Sequence[type | Cell] | None = None, dtype=mstype.float16) -> Cell:
    """Give exactly one list: `white_list` computes only those Cell types in `dtype` (like "O1");
    `black_list` computes everything but those types or instances in `dtype` (like "O2")."""
    if (white_list is None) == (black_list is None):
        raise ValueError("custom_mixed_precision: give exactly one of white_list and black_list")
    dtype = _check(network, dtype)
    if white_list is not None:
        types = tuple(white_list)
        if not all(isinstance(t, type) and issubclass(t, Cell) for t in types):
            raise TypeError(f"custom_mixed_precision: white_list holds Cell types, got {list(white_list)}")
        _white_list(network, types, dtype, _Keep(()))
    else:
        _black_list(network, _Keep(black_list), dtype)
    return network


def _white_list(cell: Cell, types: tuple[type, ...], dtype: mstype.Type, keep: _Keep) -> None:
    """Listed Cells compute in `dtype` and return float32; a kept Cell and all inside it stay float32."""
    if cell in keep:
        cell.to_float(mstype.float32)
    elif isinstance(cell, types):
        cell.to_float(dtype)
        _cast_outputs(cell, mstype.float32)
    else:
        for child in cell.name_cells().values():
            if child is not None:
                _white_list(child, types, dtype, keep)


def _black_list(network: Cell, keep: _Keep, dtype: mstype.Type) -> None:
    network.to_float(dtype)
    for _, cell in network.cells_and_names():  # parents come first: a kept Cell resets all inside it
        if cell in keep:
            cell.to_float(mstype.float32)


def _cast_outputs(cell: Cell, dtype: mstype.Type) -> None:
    """Cast `cell`'s float outputs to `dtype` (MindSpore wraps it in `_OutputTo32`; msx wraps this instance's
    `construct`, so the Cell stays where it is and its Parameter names do not change)."""
    if "_amp_inner_construct" in cell.__dict__:
        return
    inner = cell.construct

    def construct(*args, **kwargs):
        return cast_floats(inner(*args, **kwargs), dtype)

    object.__setattr__(cell, "_amp_inner_construct", inner)
    object.__setattr__(cell, "construct", construct)
    versions.touch()


def cast_floats(tree: Any, dtype: mstype.Type) -> Any:
    """Every floating Tensor in `tree` cast to `dtype`; everything else unchanged."""
    def cast(x):
        return F.cast(x, dtype) if isinstance(x, Tensor) and x.dtype.is_floating and x.dtype != dtype else x

    return jax.tree_util.tree_map(cast, tree, is_leaf=lambda x: isinstance(x, Tensor))


# ---------------------------------------------------------------- loss scaling
def all_finite(inputs: Sequence[Tensor]) -> Tensor:
    """A 0-d bool Tensor: True when every element of every Tensor in `inputs` is finite."""
    flags = [F.all(F.isfinite(x)) for x in inputs]
    if not flags:
        return Tensor(True)
    return F.all(F.stack(flags)) if len(flags) > 1 else flags[0]


def _map(fn, inputs: Any) -> Any:
    return jax.tree_util.tree_map(fn, inputs, is_leaf=lambda x: isinstance(x, Tensor))


class LossScaler(abc.ABC):
    """Base of the loss scalers: `scale(loss)` before differentiating, `unscale(grads)` after, then
    `adjust(all_finite(grads))`. The scale is a Parameter, so a jitted step carries it as state."""

    scale_value: Parameter

    def scale(self, inputs: Any) -> Any:
        """`inputs` (a Tensor or a tree of them) times the scale."""
        return _map(lambda x: F.mul(x, F.cast(self.scale_value, x.dtype)), inputs)

    def unscale(self, inputs: Any) -> Any:
        """`inputs` divided by the scale (in float32, returned in each input's dtype)."""
        def unscale(x):
            return F.cast(F.div(F.cast(x, mstype.float32), self.scale_value), x.dtype)

        return _map(unscale, inputs)

    @abc.abstractmethod
    def adjust(self, grads_finite: Tensor) -> Tensor:
        """Update the scale from whether this step's grads were all finite."""


class StaticLossScaler(LossScaler):
    """A fixed scale (MindSpore's `amp.StaticLossScaler(scale_value)`)."""

    def __init__(self, scale_value: float) -> None:
        if isinstance(scale_value, bool) or not isinstance(scale_value, (int, float)) or scale_value <= 0:
            raise ValueError(f"StaticLossScaler: scale_value must be a positive number, got {scale_value!r}")
        self.scale_value = Parameter(Tensor(float(scale_value), mstype.float32), name="scale_value",
                                     requires_grad=False)

    def adjust(self, grads_finite: Tensor) -> Tensor:
        """The scale never changes; returns False (nothing was adjusted)."""
        return Tensor(False)


class DynamicLossScaler(LossScaler):
    """MindSpore's `amp.DynamicLossScaler(scale_value, scale_factor, scale_window)`.

    `adjust(grads_finite)`: when the grads overflowed, divide the scale by
    `scale_factor` (not below 1) and restart the count; after `scale_window`
    finite steps in a row, multiply it by `scale_factor` (if that stays finite).
    """

    def __init__(self, scale_value: float, scale_factor: int, scale_window: int) -> None:
        if isinstance(scale_value, bool) or not isinstance(scale_value, (int, float)) or scale_value <= 0:
            raise ValueError(f"DynamicLossScaler: scale_value must be a positive number, got {scale_value!r}")
        if isinstance(scale_factor, bool) or not isinstance(scale_factor, (int, float)) or scale_factor <= 1:
            raise ValueError(f"DynamicLossScaler: scale_factor must be a number > 1, got {scale_factor!r}")
        if isinstance(scale_window, bool) or not isinstance(scale_window, int) or scale_window < 1:
            raise ValueError(f"DynamicLossScaler: scale_window must be a positive int, got {scale_window!r}")
        self.scale_factor = float(scale_factor)
        self.scale_window = scale_window
        self.scale_value = Parameter(Tensor(float(scale_value), mstype.float32), name="scale_value",
                                     requires_grad=False)
        self.counter = Parameter(Tensor(0, mstype.int32), name="counter", requires_grad=False)

    def adjust(self, grads_finite: Tensor) -> Tensor:
        """Update the scale and the finite-step count from `grads_finite` (a 0-d bool); returns True."""
        scale = self.scale_value
        grown = F.mul(scale, self.scale_factor)
        at_window = F.equal(self.counter, self.scale_window - 1)
        on_finite = F.where(F.logical_and(at_window, F.isfinite(grown)), grown, scale)
        on_overflow = F.maximum(F.div(scale, self.scale_factor), 1.0)
        new_scale = F.where(grads_finite, on_finite, on_overflow)
        counter = F.where(grads_finite, F.remainder(F.add(self.counter, 1), self.scale_window),
                          F.zeros_like(self.counter))
        self.scale_value._rebind(F.cast(new_scale, mstype.float32))
        self.counter._rebind(F.cast(counter, mstype.int32))
        return Tensor(True)


class FixedLossScaleManager:
    """MindSpore's `FixedLossScaleManager(loss_scale=128.0, drop_overflow_update=True)` for `Model`:
    a static scale; with `drop_overflow_update`, a step whose grads overflow changes no weights."""

    def __init__(self, loss_scale: float = 128.0, drop_overflow_update: bool = True) -> None:
        if isinstance(loss_scale, bool) or not isinstance(loss_scale, (int, float)) or loss_scale < 1:
            raise ValueError(f"FixedLossScaleManager: loss_scale must be a number >= 1, got {loss_scale!r}")
        self._loss_scale = float(loss_scale)
        self._drop_overflow_update = bool(drop_overflow_update)

    def get_loss_scale(self) -> float:
        return self._loss_scale

    def get_drop_overflow_update(self) -> bool:
        return self._drop_overflow_update

    def loss_scaler(self) -> LossScaler:
        """A fresh scaler with this manager's settings (msx: what `Model` uses)."""
        return StaticLossScaler(self._loss_scale)

    def get_update_cell(self):
        """The Cell `TrainOneStepWithLossScaleCell` takes: a fixed-scale update Cell when overflowing steps are
        dropped, else None (plain scaling, no overflow check)."""
        return FixedLossScaleUpdateCell(self._loss_scale) if self._drop_overflow_update else None


class DynamicLossScaleManager:
    """MindSpore's `DynamicLossScaleManager(init_loss_scale=2**24, scale_factor=2, scale_window=2000)` for
    `Model`: a `DynamicLossScaler`; a step whose grads overflow changes no weights."""

    def __init__(self, init_loss_scale: float = 2 ** 24, scale_factor: int = 2, scale_window: int = 2000) -> None:
        DynamicLossScaler(init_loss_scale, scale_factor, scale_window)  # validates the arguments
        self._init_loss_scale, self._scale_factor, self._scale_window = init_loss_scale, scale_factor, scale_window

    def get_loss_scale(self) -> float:
        return float(self._init_loss_scale)

    def get_drop_overflow_update(self) -> bool:
        return True

    def loss_scaler(self) -> LossScaler:
        return DynamicLossScaler(self._init_loss_scale, self._scale_factor, self._scale_window)

    def get_update_cell(self):
        return DynamicLossScaleUpdateCell(self._init_loss_scale, self._scale_factor, self._scale_window)


class LossScaleManager:
    """MindSpore's base of loss-scale managers: `get_loss_scale`, `get_update_cell`, `update_loss_scale`."""

    def get_loss_scale(self) -> float:
        raise NotImplementedError(f"{type(self).__name__} must define get_loss_scale")

    def update_loss_scale(self, overflow: bool) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define update_loss_scale")

    def get_update_cell(self):
        raise NotImplementedError(f"{type(self).__name__} must define get_update_cell")


class _Fp32Loss(Cell):
    """`loss_fn(network(data), label)` with the network's output cast to float32 first (MindSpore's
    `_add_loss_network` under mixed precision)."""

    def __init__(self, network: Cell, loss_fn: Cell) -> None:
        super().__init__(auto_prefix=False)
        self._backbone, self._loss_fn = network, loss_fn

    def construct(self, data, label):
        return self._loss_fn(cast_floats(self._backbone(data), mstype.float32), cast_floats(label, mstype.float32))


_LEVEL_LOSS_SCALE = {"O0": None, "O1": None, "O2": "dynamic", "O3": None, "auto": None}


def build_train_network(network: Cell, optimizer, loss_fn: Cell | None = None, level: str = "O0",
                        boost_level: str = "O0", **kwargs) -> Cell:
    """MindSpore's `amp.build_train_network`: mixed precision at `level`, the loss (computed in float32 when
    mixed), and a one-step training Cell — `TrainOneStepWithLossScaleCell` with a loss scale manager
    (kwargs `loss_scale_manager`; "O2" defaults to a dynamic one), else `TrainOneStepCell`. kwargs
    `keep_batchnorm_fp32` and `cast_model_type` follow MindSpore; `boost_level` (Ascend boost) must be "O0"."""
    unknown = sorted(set(kwargs) - {"loss_scale_manager", "keep_batchnorm_fp32", "cast_model_type"})
    if unknown:
        raise TypeError(f"build_train_network: unknown keyword argument(s) {unknown}")
    if level not in _LEVEL_LOSS_SCALE:
        raise ValueError(f"build_train_network: level must be one of {list(_LEVEL_LOSS_SCALE)}, got {level!r}")
    if boost_level != "O0":
        raise ValueError(f"build_train_network: boost_level={boost_level!r} selects Ascend boost algorithms that "
                         f"msx does not have; use 'O0'")
    amp_level = "O2" if level == "auto" else level
    dtype = kwargs.get("cast_model_type", mstype.float16)
    keep = [] if kwargs.get("keep_batchnorm_fp32", amp_level == "O2") else None
    if amp_level == "O3" and kwargs.get("keep_batchnorm_fp32"):
        keep = [BatchNorm1d, BatchNorm2d]
    if amp_level != "O0":
        auto_mixed_precision(network, amp_level, dtype, keep_fp32=keep or ())
    if loss_fn is not None:
        network = WithLossCell(network, loss_fn) if amp_level == "O0" else _Fp32Loss(network, loss_fn)
    manager = kwargs.get("loss_scale_manager")
    if manager is None and _LEVEL_LOSS_SCALE[level] == "dynamic":
        manager = DynamicLossScaleManager()
    if manager is None:
        return TrainOneStepCell(network, optimizer)
    update_cell = manager.get_update_cell()
    if update_cell is None:
        return TrainOneStepCell(network, optimizer, sens=manager.get_loss_scale())
    return TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell)


__all__ = ["auto_mixed_precision", "custom_mixed_precision", "get_white_list", "get_black_list", "all_finite",
           "LossScaler", "StaticLossScaler", "DynamicLossScaler", "FixedLossScaleManager", "DynamicLossScaleManager",
           "LossScaleManager", "build_train_network"]

# mindspore.amp's Ascend kernels and runtime objects: they exist so that imports work (msx.unavailable)
from .refused_runtime import AMP_NAMES as _AMP_REFUSED, NAMES as _REFUSED  # noqa: E402
globals().update({_n: _REFUSED[_n] for _n in _AMP_REFUSED})
