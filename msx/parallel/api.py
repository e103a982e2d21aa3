"""`mindspore.parallel`'s public names (MindSpore 2.10's `dir()`), as `msx.parallel.<name>`.

What maps onto msx is the real thing: `shard` (`ms.shard`), `Layout`, `nn` (the micro-batching wrappers),
`auto_parallel.AutoParallel`, the strategy-search knobs (`set_algo_parameters`, ...: checked and kept; a
non-default value warns, since XLA's propagation does the search), `merge_sliced_parameter` along axis 0,
and `sync_pipeline_shared_parameters` (shared Parameters are always equal in msx's pipeline); the distributed
checkpoint functions (`transform_checkpoints`, `load_distributed_checkpoint`, ...) are `msx.parallel.dist_checkpoint`'s,
installed by the top-level `msx`. Every other name exists and raises a
`ContextError` saying it is not available in msx yet (issue 35): a script that calls one stops there
instead of running on without it. `install` puts the names on the `msx.parallel` package (the package sits
in a low layer; these names need Cells and ops, so the top-level `msx` installs them, as it does
`ops.GradOperation`).
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from ..errors import ContextError
from ..ops.sharding_ops import shard
from ..tensor import Parameter, Tensor
from . import auto_parallel, context, nn
from .layout import Layout
from .group_info import restore_group_info_list
from .op_strategy import set_op_strategy_config

ISSUE = "issue 35"

# ---------------------------------------------------------------- the strategy-search knobs
_ALGO_DEFAULTS: dict[str, Any] = {"fully_use_devices": False, "elementwise_op_strategy_follow": False,
                                  "enable_algo_approxi": False, "algo_approxi_epsilon": 0.1,
                                  "tensor_slice_align_enable": False, "tensor_slice_align_size": 16}
_algo: dict[str, Any] = dict(_ALGO_DEFAULTS)


def set_algo_parameters(**kwargs: Any) -> None:
    """MindSpore's strategy-search parameters: checked (names and types) and kept for `get_algo_parameters`.
    AUTO_PARALLEL's search is XLA's sharding propagation, which has no such knobs, so a value other than the
    default warns that it changes nothing (results never depend on it)."""
    for key, value in kwargs.items():
        if key not in _ALGO_DEFAULTS:
            raise ValueError(f"set_algo_parameters: unknown key {key!r}; valid keys are {sorted(_ALGO_DEFAULTS)}")
        kind = type(_ALGO_DEFAULTS[key])
        if type(value) is not kind:
            raise TypeError(f"set_algo_parameters: {key} must be a {kind.__name__}, got {value!r}")
        if key == "tensor_slice_align_size" and not 1 <= value <= 1024:
            raise ValueError(f"set_algo_parameters: tensor_slice_align_size must be in [1, 1024], got {value}")
    for key, value in kwargs.items():
        if value != _ALGO_DEFAULTS[key]:
            warnings.warn(f"set_algo_parameters: {key}={value!r} tunes MindSpore's strategy search; msx's "
                          f"AUTO_PARALLEL uses XLA's sharding propagation, which it does not change", stacklevel=2)
    _algo.update(kwargs)


def get_algo_parameters(attr_key: str) -> Any:
    if attr_key not in _ALGO_DEFAULTS:
        raise ValueError(f"get_algo_parameters: unknown key {attr_key!r}; valid keys are {sorted(_ALGO_DEFAULTS)}")
    return _algo[attr_key]


def reset_algo_parameters() -> None:
    _algo.clear()
    _algo.update(_ALGO_DEFAULTS)


# ---------------------------------------------------------------- what the one-stage, in-memory case covers
def merge_sliced_parameter(sliced_parameters, strategy=None) -> Parameter:
    """The slices of one Parameter (in rank order) merged into it: along axis 0 when `strategy` is None
    (MindSpore's rule). A `strategy` dict (MindSpore's slice layouts) is refused: strategy files are not
    available in msx yet."""
    if strategy is not None:
        raise ContextError(f"merge_sliced_parameter: strategy={type(strategy).__name__} (MindSpore's slice "
                           f"layouts) is not available in msx yet ({ISSUE}); pass strategy=None to join the "
                           f"slices along axis 0")
    params = list(sliced_parameters)
    if not params or not all(isinstance(p, Parameter) for p in params):
        raise TypeError("merge_sliced_parameter: sliced_parameters must be a non-empty list of Parameters")
    names = {p.name for p in params}
    if len(names) != 1:
        raise ValueError(f"merge_sliced_parameter: the slices must be of one Parameter, got names {sorted(names)}")
    if len({(p.shape[1:], p.dtype) for p in params}) != 1:
        raise ValueError(f"merge_sliced_parameter: the slices' shapes {[tuple(p.shape) for p in params]} and "
                         f"dtypes differ beyond axis 0")
    merged = np.concatenate([p.asnumpy() for p in params], axis=0)
    return Parameter(Tensor(merged), name=params[0].name, requires_grad=params[0].requires_grad)


def sync_pipeline_shared_parameters(net) -> None:
    """Make the Parameters that several pipeline stages share (a tied embedding) equal on every stage. In msx
    a shared Parameter is one array that the pipeline gathers whole to every stage reading it
    (msx.parallel.stage_params), and it gets the sum of those stages' gradients: one update, so its copies are
    always equal, and there is nothing left to synchronise."""


# ---------------------------------------------------------------- the rest: present, and refused by name
def _not_available(name: str, what: str) -> Callable:
    def refuse(*args: Any, **kwargs: Any):
        raise ContextError(f"mindspore.parallel.{name} is not available in msx yet ({ISSUE}: {what}); see "
                           f"docs/parallel.md for what msx's parallel API covers")

    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = f"MindSpore's `mindspore.parallel.{name}`: not available in msx yet ({ISSUE}: {what})."
    return refuse


REFUSED = {
    "parameter_broadcast": "broadcasting a layout's Parameters from one rank (ranks start equal by set_seed)",
}

PUBLIC: dict[str, Any] = {
    "shard": shard, "Layout": Layout, "nn": nn, "auto_parallel": auto_parallel,
    "set_algo_parameters": set_algo_parameters, "get_algo_parameters": get_algo_parameters,
    "reset_algo_parameters": reset_algo_parameters, "merge_sliced_parameter": merge_sliced_parameter,
    "sync_pipeline_shared_parameters": sync_pipeline_shared_parameters,
    "restore_group_info_list": restore_group_info_list, "set_op_strategy_config": set_op_strategy_config,
    **{name: _not_available(name, what) for name, what in REFUSED.items()},
}


def install(package) -> None:
    """Put the public names on the `msx.parallel` package (a name another module already defines there wins)."""
    for name, value in PUBLIC.items():
        if not hasattr(package, name):
            setattr(package, name, value)
