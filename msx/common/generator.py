"""MindSpore's `Generator` (`ms.Generator()`, `ms.default_generator`): a seedable random-number state.

`default_generator` is msx's one global PRNG state (the one `ms.manual_seed` / `ms.set_seed` seed and every
random op draws from); a `Generator()` of one's own keeps a separate (seed, state) pair with the same API.
"""
from __future__ import annotations

import secrets

import jax
import numpy as np

from .. import random_state
from ..tensor import Parameter, Tensor


class Generator:
    """A random-number state: `manual_seed(seed)`, `seed()`, `initial_seed()`, `get_state()`, `set_state()`."""

    def __init__(self) -> None:
        self._seed = 0
        # a Parameter, as the global state is: a jitted function drawing from this generator threads it as an
        # input and output, so each call moves it on (ops' `generator=`, msx.ops.functional_random.keys_from)
        self._state = Parameter(Tensor(np.asarray(jax.random.key_data(jax.random.PRNGKey(0)))),
                                name="generator_state", requires_grad=False)

    def manual_seed(self, seed: int) -> "Generator":
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise TypeError(f"Generator.manual_seed: seed must be an int, got {type(seed).__name__}")
        self._seed = int(seed)
        self._state.set_data(Tensor(np.asarray(jax.random.key_data(jax.random.PRNGKey(self._seed)))))
        return self

    def seed(self) -> int:
        """Seed with a fresh random value and return it."""
        value = secrets.randbits(31)
        self.manual_seed(value)
        return value

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        return Tensor(self._state.asnumpy())

    def set_state(self, state: Tensor) -> None:
        if not isinstance(state, Tensor) or state.shape != self._state.shape or state.dtype != self._state.dtype:
            raise TypeError(f"Generator.set_state: expected a state from get_state ({self._state.shape} "
                            f"{self._state.dtype}), got {getattr(state, 'shape', type(state).__name__)}")
        self._state.set_data(Tensor(state.asnumpy()))


class _DefaultGenerator(Generator):
    """The global PRNG state, seen as a Generator."""

    def __init__(self) -> None:  # the state is the global one: nothing of its own
        pass

    def manual_seed(self, seed: int) -> "Generator":
        random_state.manual_seed(seed)
        return self

    def seed(self) -> int:
        return random_state.seed()

    def initial_seed(self) -> int:
        seed = random_state.initial_seed()
        return 0 if seed is None else seed

    def get_state(self) -> Tensor:
        return random_state.get_rng_state()

    def set_state(self, state: Tensor) -> None:
        random_state.set_rng_state(state)


default_generator: Generator = _DefaultGenerator()
