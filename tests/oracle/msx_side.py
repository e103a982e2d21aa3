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


PRIMITIVES_FILE = os.path.join(HERE, "primitives.json")


def spied_primitives(case_id: str) -> list[str] | None:
    """The primitives the oracle case runs eagerly (forward only), or None where msx fails on it (a failing
    case is reported by tests/test_oracle.py)."""
    spy = _Spy()
    recording.recorder = spy
    try:
        run_case(MSX, dataclasses.replace(BY_ID[case_id], grad=False), stored_inputs(case_id))
    except Exception:
        return None
    finally:
        recording.recorder = None
    return sorted(spy.names)


def runnable_cases() -> list[str]:
    """The cases MindSpore has a golden for (those it could not run have an "error" entry)."""
    return sorted(c for c, entry in GOLDEN["cases"].items() if "error" not in entry and c in BY_ID)


def record_primitives() -> dict[str, list[str]]:
    """Every runnable case's primitives, as `PRIMITIVES_FILE` holds them (running all cases takes ~100 s,
    which is why the suite reads the file and re-checks a sample: tests/test_oracle.py)."""
    spied = {c: spied_primitives(c) for c in runnable_cases()}
    return {c: names for c, names in spied.items() if names is not None}


@functools.lru_cache(maxsize=1)
def oracle_primitives() -> tuple[frozenset, frozenset]:
    """(primitives whose values an oracle case checks, those whose gradients one checks), from the record."""
    with open(PRIMITIVES_FILE) as f:
        recorded = json.load(f)
    values, grads = set(), set()
    for case_id, names in recorded.items():
        values |= set(names)
        if "grad_positions" in GOLDEN["cases"][case_id]:
            grads |= set(names)
    return frozenset(values), frozenset(grads)


if __name__ == "__main__":  # python -m oracle.msx_side (from tests/): rewrite the record after changing cases
    from msx.atomic import write_atomic

    lines = [f"{json.dumps(c)}: {json.dumps(names)}" for c, names in sorted(record_primitives().items())]
    write_atomic(PRIMITIVES_FILE, ["{\n".encode(), ",\n".join(lines).encode(), b"\n}\n"])
