"""Every primitive says how users reach it (docs/ops.md "Adding an op"): an `Api` on its declaration, a
hand-written wrapper registered with `expose(prim=...)`, or `internal="..."` naming who calls it instead.

The debt list this rule came in with (81 primitives, then 74) is paid: a primitive with none of the three fails.
"""
from __future__ import annotations

import pytest

import msx  # noqa: F401  (declares every op, msx.numpy's too)
from msx.ops.api import WRAPPED, expose
from msx.ops.primitive import REGISTRY, primitive


def _silent() -> set[str]:
    # a user's op (ops.Custom, CustomOpBuilder: "<module>.<name>", registered by other tests in this process) is
    # the user's declaration, not msx's
    return {n for n, p in REGISTRY.items() if not p.api and n not in WRAPPED and not p.internal and "." not in n}


def test_every_primitive_has_a_view_or_says_why_not():
    silent = sorted(_silent())
    assert not silent, f"primitives with no Api, no expose(prim=...) wrapper and no internal= reason: {silent}"


def test_every_wrapped_name_is_a_registered_primitive():
    """`expose(prim=...)` says which primitive a wrapper is the public view of; a class op computed in Python
    (`Rank`, `Size`) names itself with `name=` instead, so `prim=` can never vouch for a primitive that is not."""
    assert not sorted(WRAPPED - set(REGISTRY)), "expose(prim=...) names no registered primitive: use name="


@pytest.fixture
def scratch_names():
    """Names a test declares; removed from the registry (and WRAPPED) afterwards."""
    names: list[str] = []
    yield names
    for n in names:
        REGISTRY.pop(n, None)
        WRAPPED.discard(n)


def test_the_check_sees_a_primitive_with_neither_and_each_way_of_saying(scratch_names):
    scratch_names += ["ArchSilent", "ArchInternal", "ArchWrapped"]
    primitive("ArchSilent", category="elementwise")(lambda x: x)
    primitive("ArchInternal", category="elementwise", internal="called by nothing but this test")(lambda x: x)
    primitive("ArchWrapped", category="elementwise")(lambda x: x)
    assert {"ArchSilent", "ArchInternal", "ArchWrapped"} & _silent() == {"ArchSilent", "ArchWrapped"}
    expose(prim="ArchWrapped")(lambda x: x)  # a hand-written wrapper that is its public view
    assert {"ArchSilent", "ArchInternal", "ArchWrapped"} & _silent() == {"ArchSilent"}


def test_a_reason_is_a_sentence_and_not_beside_an_api():
    for name, prim in REGISTRY.items():
        if prim.internal:
            assert not prim.api, f"{name} has an Api and says it is internal"
            assert len(prim.internal.split()) >= 4, f"{name}: internal= should say who calls it"
