"""Global context (MindSpore's `set_context`/`get_context`) and the seeded RNG state."""
from __future__ import annotations

from typing import Any

from .errors import ContextError

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
    "ascend_config": None,  # {"precision_mode": ...} for the simulated Ascend backend
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
    "verify_passes": "structure",
}



def _default_target() -> str:
    """The device_target of a fresh process: what jax runs on here (a GPU machine gets "GPU", not "CPU")."""
    import jax

    return {"gpu": "GPU", "cuda": "GPU", "rocm": "GPU", "tpu": "TPU"}.get(jax.default_backend(), "CPU")


_DEFAULTS["device_target"] = _default_target()
_context: dict[str, Any] = dict(_DEFAULTS)
_PLATFORMS = {"CPU": "cpu", "GPU": "gpu", "TPU": "tpu", "Ascend": "cpu"}  # the Ascend backend is simulated on CPU


def _place_eager() -> None:
    """Eager ops run on the device that device_target/device_id name, when jax has it (an absent platform is
    reported by the jit backend lookup, which names what is available)."""
    import jax

    try:
        devices = jax.devices(_PLATFORMS[_context["device_target"]])
    except RuntimeError:
        return
    index = _context["device_id"]
    if index >= len(devices):
        raise ContextError(f"set_context: device_id={index} but {_context['device_target']} has {len(devices)} "
                           f"device(s) here (ids 0..{len(devices) - 1})")
    jax.config.update("jax_default_device", devices[index])


def _check(key: str, value: Any) -> None:
    if key not in _VALID:
        raise ContextError(f"set_context: unknown key {key!r}; valid keys are {sorted(_VALID)}")
    valid = _VALID[key]
    if valid is not None:
        if value not in valid or type(value) not in {type(v) for v in valid}:
            shown = ["PYNATIVE_MODE", "GRAPH_MODE"] if key == "mode" else list(valid)
            raise ContextError(f"set_context: {key}={value!r} is not valid; choose one of {shown}")
    elif key == "ascend_config":
        _check_ascend_config(value)
    elif key == "save_graphs_path" and not isinstance(value, str):
        raise ContextError(f"set_context: save_graphs_path must be a str, got {type(value).__name__}")
    elif key == "disable_passes" and (not isinstance(value, (list, tuple)) or not all(isinstance(n, str) for n in value)):
        raise ContextError(f"set_context: disable_passes must be a list of pass names, got {value!r}")
    elif key in ("device_id", "recompile_warn_limit") and (not isinstance(value, int) or isinstance(value, bool)
                                                            or value < (key == "recompile_warn_limit")):
        raise ContextError(f"set_context: {key} must be a non-negative int, got {value!r}")


def _check_ascend_config(value: Any) -> None:
    from .backends.ascend_sim.precision import PRECISION_MODES

    if not isinstance(value, dict) or set(value) - {"precision_mode"}:
        raise ContextError(f"set_context: ascend_config must be a dict with the key 'precision_mode', got {value!r}")
    if "precision_mode" in value and value["precision_mode"] not in PRECISION_MODES:
        raise ContextError(f"set_context: ascend_config precision_mode={value['precision_mode']!r} is not valid; "
                           f"choose one of {list(PRECISION_MODES)}")


def set_context(**kwargs: Any) -> None:
    """Set context keys (`mode`, `device_target`, `save_graphs`, `save_graphs_path`, `jit_level`, ...).

    All keys are validated before any is applied, so a bad call changes nothing.
    """
    for key, value in kwargs.items():
        _check(key, value)
    previous = dict(_context)
    _context.update(kwargs)
    if "device_target" in kwargs or "device_id" in kwargs:
        try:
            _place_eager()
        except ContextError:
            _context.clear()
            _context.update(previous)  # a bad call changes nothing
            raise


def get_context(key: str) -> Any:
    """The current value of a context key."""
    if key not in _context:
        raise ContextError(f"get_context: unknown key {key!r}; valid keys are {sorted(_VALID)}")
    return _context[key]


# ---------------------------------------------------------------- seeds
_seed: int | None = None
_rng_state = None  # a Parameter holding a raw jax PRNG key; created lazily


def set_seed(seed: int) -> None:
    """Seed every msx random source: initializers, dropout, `ops` random functions, datasets."""
    global _seed, _rng_state
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ContextError(f"set_seed: seed must be a non-negative int, got {seed!r}")
    import numpy as np

    _seed = seed
    np.random.seed(seed)
    if _rng_state is not None:
        _rng_state.set_data(_key_data(seed))


def get_seed() -> int | None:
    return _seed


def _key_data(seed: int):
    import jax

    with jax.ensure_compile_time_eval():  # a concrete key even when first asked for inside a capture's trace
        return jax.random.key_data(jax.random.key(seed))


def rng_state():
    """The Parameter that holds msx's global PRNG key (state like any other Parameter)."""
    global _rng_state
    if _rng_state is None:
        import secrets
        from .tensor import PARAMETER_LOCK, Parameter

        with PARAMETER_LOCK:  # two threads asking first make one state, not two
            if _rng_state is None:
                seed = _seed if _seed is not None else secrets.randbits(31)
                _rng_state = Parameter(_key_data(seed), name="global_rng_state", requires_grad=False)
    return _rng_state
