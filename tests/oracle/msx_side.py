"""The msx side of the oracle: the recorded goldens, msx as a `Framework`, and which primitives they test."""
from __future__ import annotations

import dataclasses
import functools
import json
import os

import numpy as np

import msx
from msx.ops.primitive import recording

from .cases import CASES
from .runner import Framework, run_case

HERE = os.path.dirname(__file__)
with open(os.path.join(HERE, "goldens.json")) as _f:
    GOLDEN = json.load(_f)
ARRAYS = np.load(os.path.join(HERE, "goldens.npz"), allow_pickle=False)
BY_ID = {c.id: c for c in CASES}

MSX = Framework(ops=msx.ops, mint=msx.mint, Tensor=msx.Tensor, dtype_of=lambda n: getattr(msx, n),
                grad=lambda fn, pos: msx.grad(fn, grad_position=pos if len(pos) > 1 else pos[0]),
                to_numpy=lambda t: t.asnumpy())


def stored_inputs(case_id: str) -> list[np.ndarray]:
    n = GOLDEN["cases"][case_id]["n_inputs"]
    return [ARRAYS[f"{case_id}/in{i}"] for i in range(n)]


class _Spy:
    """A recorder for `msx.ops.primitive.recording` that only collects primitive names."""

    def __init__(self):
        self.names: set[str] = set()

    def record(self, prim, inputs, attrs, result):
        self.names.add(prim.name)

    def on_rebind(self, *a):
        pass

    def on_alias(self, *a):
        pass

    def on_concrete(self, *a):
        pass


@functools.lru_cache(maxsize=1)
def oracle_primitives() -> tuple[frozenset, frozenset]:
    """(primitives whose values an oracle case checks, those whose gradients one checks)."""
    values, grads = set(), set()
    for case_id, entry in GOLDEN["cases"].items():
        if "error" in entry or case_id not in BY_ID:
            continue
        spy = _Spy()
        recording.recorder = spy
        try:
            run_case(MSX, dataclasses.replace(BY_ID[case_id], grad=False), stored_inputs(case_id))
        except Exception:  # a failing case is reported by tests/test_oracle.py
            continue
        finally:
            recording.recorder = None
        values |= spy.names
        if "grad_positions" in entry:
            grads |= spy.names
    return frozenset(values), frozenset(grads)
