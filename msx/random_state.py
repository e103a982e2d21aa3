"""MindSpore 2.x's torch-style seed functions over msx's one global PRNG state (`context.rng_state`)."""
from __future__ import annotations

import secrets

from . import context
from .tensor import PARAMETER_LOCK, Tensor


def manual_seed(seed: int) -> None:
    """Seed every msx random source (the same as `set_seed`)."""
    context.set_seed(seed)


def seed() -> int:
    """Seed with a fresh random value and return it."""
    value = secrets.randbits(31)
    context.set_seed(value)
    return value


def initial_seed() -> int | None:
    """The seed last given to `set_seed`/`manual_seed`/`seed` (None when never seeded)."""
    return context.get_seed()


def get_rng_state() -> Tensor:
    """A copy of the global PRNG state; `set_rng_state` of it replays the same random numbers."""
    state = context.rng_state()
    with PARAMETER_LOCK:  # not mid-run of a jitted graph that donated the state's buffer
        return Tensor._from(state._data)


def set_rng_state(state: Tensor) -> None:
    current = context.rng_state()
    if not isinstance(state, Tensor) or state.shape != current.shape or state.dtype != current.dtype:
        got = f"{state.shape} {state.dtype}" if isinstance(state, Tensor) else type(state).__name__
        raise TypeError(f"set_rng_state: expected a state from get_rng_state ({current.shape} {current.dtype}), "
                        f"got {got}")
    with PARAMETER_LOCK:
        current.set_data(Tensor._from(state._data))
