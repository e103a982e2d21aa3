"""Global context (MindSpore's `set_context`/`get_context`) and the seeded RNG state."""
from __future__ import annotations

import secrets
import warnings
from typing import Any, Callable

import jax
import numpy as np

from . import compile_cache
from .errors import ContextError
from .tensor import PARAMETER_LOCK, Parameter

PYNATIVE_MODE = 1
GRAPH_MODE = 0

_VALID: dict[str, tuple] = {
    "mode": (PYNATIVE_MODE, GRAPH_MODE),
    "device_target": ("CPU", "GPU", "Ascend", "TPU"),
    "save_graphs": (False, True, 0, 1, 2, 3),
    "save_graphs_path": None,  # any str
    "jit_level": ("O0", "O1"),
    "device_id": None,  # any int >= 0
    "recompile_warn_limit": None,  # any int >= 1
    "ascend_config": None,  # {"precision_mode": ...}: checked by the simulated Ascend backend (register_key_check)
    "disable_passes": None,  # a tuple/list of pass names (msx.passes.list_passes)
    "verify_passes": ("structure", "full", "off"),
}

_DEFAULTS: dict[str, Any] = {
    "mode": PYNATIVE_MODE,
    "device_target": "CPU",
    "save_graphs": False,
    "save_graphs_path": ".",
    "jit_level": "O0",
    "device_id": 0,
    "recompile_warn_limit": 8,
    "ascend_config": {},
    "disable_passes": (),
    "verify_passes": "full",  # shape inference is cached per (op, avals, attrs): cheap enough to be the default
}



def _default_target() -> str:
    """The device_target of a fresh process: what jax runs on here (a GPU machine gets "GPU", not "CPU")."""
    return {"gpu": "GPU", "cuda": "GPU", "rocm": "GPU", "tpu": "TPU"}.get(jax.default_backend(), "CPU")


_DEFAULTS["device_target"] = _default_target()
# MindSpore 2.x keys (and their types, from MindSpore's own `args_type_check`) that set_context accepts.
# `max_call_depth` is kept for capture to read (`get_context("max_call_depth")`); `jit_config={"jit_level": ..}`
# and `enable_graph_kernel=True` (MindSpore: "use jit_level O1 instead") set `jit_level`. The others tune
# Ascend/GE memory pools, thread pools and kernel compilers that XLA does not have: they are stored, readable
# with get_context, and noted once as having no effect.
_MINDSPORE_KEYS: dict[str, type | tuple] = {
    "max_call_depth": int, "jit_config": dict, "enable_graph_kernel": bool, "memory_optimize_level": str,
    "mempool_block_size": str, "inter_op_parallel_num": int, "runtime_num_threads": int, "deterministic": str,
    "variable_memory_max_size": str, "max_device_memory": str, "pynative_synchronize": bool,
    "compile_cache_path": str, "disable_format_transform": bool, "jit_syntax_level": int, "exec_order": str,
    "op_timeout": int, "aoe_tune_mode": str, "aoe_config": dict, "enable_compile_cache": bool, "gpu_config": dict,
    "print_file_path": str, "env_config_path": str, "debug_level": int, "reserve_class_name_in_scope": bool,
    "check_bprop": bool, "enable_reduce_precision": bool, "support_binary": bool, "graph_kernel_flags": str,
    "save_compile_cache": bool, "load_compile_cache": bool, "enable_auto_mixed_precision": bool,
    "jit_enable_inplace_ops": bool,
}
_HONOURED = {"max_call_depth", "jit_config", "enable_graph_kernel", "enable_compile_cache", "compile_cache_path"}
_MINDSPORE_DEFAULTS: dict[str, Any] = {"max_call_depth": 1000, "jit_config": {}, "enable_graph_kernel": False,
                                       "enable_compile_cache": False, "compile_cache_path": ".",
                                       "memory_optimize_level": "O0", "deterministic": "OFF",
                                       "pynative_synchronize": False, "jit_syntax_level": 2, "debug_level": 0}
_VALID.update({k: None for k in _MINDSPORE_KEYS})
_DEFAULTS.update(_MINDSPORE_DEFAULTS)
_noted: set[str] = set()

_context: dict[str, Any] = dict(_DEFAULTS)
_from_env = compile_cache.from_environment()
if _from_env is not None:   # MindSpore's MS_COMPILER_CACHE_ENABLE / MS_COMPILER_CACHE_PATH
    _context["enable_compile_cache"], _context["compile_cache_path"] = _from_env
    compile_cache.configure(*_from_env)


def _check(key: str, value: Any) -> None:
    if key in _MINDSPORE_KEYS:
        _check_mindspore_key(key, value)
        return
    if key not in _VALID:
        raise ContextError(f"set_context: unknown key {key!r}; valid keys are {sorted(_VALID)}")
    valid = _VALID[key]
    if valid is not None:
        if value not in valid or type(value) not in {type(v) for v in valid}:
            shown = ["PYNATIVE_MODE", "GRAPH_MODE"] if key == "mode" else list(valid)
            raise ContextError(f"set_context: {key}={value!r} is not valid; choose one of {shown}")
    elif key in _KEY_CHECKS:
        _KEY_CHECKS[key](value)
    elif key == "save_graphs_path" and not isinstance(value, str):
        raise ContextError(f"set_context: save_graphs_path must be a str, got {type(value).__name__}")
    elif key == "disable_passes" and (not isinstance(value, (list, tuple)) or not all(isinstance(n, str) for n in value)):
        raise ContextError(f"set_context: disable_passes must be a list of pass names, got {value!r}")
    elif key in ("device_id", "recompile_warn_limit") and (not isinstance(value, int) or isinstance(value, bool)
                                                            or value < (key == "recompile_warn_limit")):
        raise ContextError(f"set_context: {key} must be a non-negative int, got {value!r}")


def _check_mindspore_key(key: str, value: Any) -> None:
    want = _MINDSPORE_KEYS[key]
    if not isinstance(value, want) or (want is int and isinstance(value, bool)):
        raise ContextError(f"set_context: {key} must be a {want.__name__}, got {value!r}")
    if key == "max_call_depth" and value < 1:
        raise ContextError(f"set_context: max_call_depth must be a positive int, got {value}")
    if key == "jit_config":
        unknown = set(value) - {"jit_level", "infer_boost", "backend", "exec_mode", "jit_syntax_level"}
        if unknown:
            raise ContextError(f"set_context: jit_config keys must be among 'jit_level', 'infer_boost', 'backend', "
                               f"'exec_mode', 'jit_syntax_level', got {sorted(unknown)}")
        if "jit_level" in value:
            _check("jit_level", value["jit_level"])


def _apply_mindspore_key(key: str, value: Any) -> None:
    """Map a MindSpore key onto what it means here, and note once a key that has no effect on XLA."""
    if key == "jit_config" and "jit_level" in value:
        _context["jit_level"] = value["jit_level"]
    elif key == "enable_graph_kernel" and value:
        _context["jit_level"] = "O1"  # graph-kernel fusion is msx's O1 (MindSpore: "use jit_level O1 instead")
    elif key in ("enable_compile_cache", "compile_cache_path"):
        compile_cache.configure(_context["enable_compile_cache"], _context["compile_cache_path"])
    if key not in _HONOURED and key not in _noted:
        _noted.add(key)
        warnings.warn(f"set_context: {key}={value!r} is accepted for MindSpore compatibility but has no effect "
                      f"here (msx runs on XLA, which has no such setting)", UserWarning, stacklevel=3)


def _device_for(target: str, device_id: int):
    """The jax device `device_id` picks for eager ops on `target`'s platform, or None where there is none to
    pick (no such platform here, or CPU, where MindSpore too ignores device_id beyond the one CPU device)."""
    platform = {"CPU": "cpu", "GPU": "gpu", "TPU": "tpu"}.get(target)
    if platform is None:
        return None
    try:
        devices = jax.devices(platform)
    except RuntimeError:
        return None
    if device_id < len(devices):
        return devices[device_id]
    if platform != "cpu":
        raise ContextError(f"set_context: device_id={device_id} but this machine has {len(devices)} "
                           f"{platform} device(s)")
    return None


_KEY_CHECKS: dict[str, Callable[[Any], None]] = {}


def register_key_check(key: str, check: Callable[[Any], None]) -> None:
    """Let a higher layer (a backend) validate the values of one of its keys: `check(value)` raises
    ContextError. Backends own what their keys mean; the context layer never imports them."""
    if key not in _VALID:
        raise ContextError(f"register_key_check: unknown key {key!r}")
    _KEY_CHECKS[key] = check


def set_context(**kwargs: Any) -> None:
    """Set context keys (`mode`, `device_target`, `save_graphs`, `save_graphs_path`, `jit_level`, ...).

    All keys are validated before any is applied, so a bad call changes nothing.
    """
    for key, value in kwargs.items():
        _check(key, value)
    device = None
    if "device_id" in kwargs or "device_target" in kwargs:
        device = _device_for(kwargs.get("device_target", _context["device_target"]),
                             kwargs.get("device_id", _context["device_id"]))
    _context.update(kwargs)
    for key, value in kwargs.items():
        if key in _MINDSPORE_KEYS:
            _apply_mindspore_key(key, value)
    if device is not None:
        jax.config.update("jax_default_device", device)


def get_context(attr_key: str) -> Any:
    """The current value of a context key."""
    if attr_key not in _context:
        raise ContextError(f"get_context: unknown key {attr_key!r}; valid keys are {sorted(_VALID)}")
    return _context[attr_key]


# ---------------------------------------------------------------- seeds
_seed: int | None = None
_rng_state = None  # a Parameter holding a raw jax PRNG key; created lazily


def set_seed(seed: int) -> None:
    """Seed every msx random source: initializers, dropout, `ops` random functions, datasets."""
    global _seed, _rng_state
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ContextError(f"set_seed: seed must be a non-negative int, got {seed!r}")

    _seed = seed
    np.random.seed(seed)
    if _rng_state is not None:
        with PARAMETER_LOCK:  # never while a draw in another thread splits the state or a graph donates it
            _rng_state.set_data(_key_data(seed))


def get_seed() -> int | None:
    return _seed


def _key_data(seed: int):
    with jax.ensure_compile_time_eval():  # a concrete key even when first asked for inside a capture's trace
        return jax.random.key_data(jax.random.key(seed))


def rng_state():
    """The Parameter that holds msx's global PRNG key (state like any other Parameter)."""
    global _rng_state
    if _rng_state is None:
        with PARAMETER_LOCK:  # two threads asking first make one state, not two
            if _rng_state is None:
                seed = _seed if _seed is not None else secrets.randbits(31)
                _rng_state = Parameter(_key_data(seed), name="global_rng_state", requires_grad=False)
    return _rng_state
