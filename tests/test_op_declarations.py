"""Every primitive says how users reach it (docs/ops.md "Adding an op"): an `Api` on its declaration, a
hand-written wrapper registered with `expose(prim=...)`, or `internal="..."` naming who calls it instead.

The debt list this rule came in with (81 primitives, then 74) is paid: a primitive with none of the three fails.
"""
from __future__ import annotations

import ast
from pathlib import Path

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


# A hand-written wrapper sits in its primitive's file (issue 29), but for these, each with the reason it cannot:
AWAY_FROM_THEIR_PRIMITIVE = {
    "Conv2DTranspose": "nn_layer_ops.py: layer_classes' Conv2DBackpropInput runs it; conv_transpose_ops imports those",
    "Conv3DTranspose": "nn_layer_ops.py: declared beside its wrapper it would make a cycle with layer_classes",
    "Norm": "its wrappers are in two concern files (functional_math's ops.norm, matrix_function_ops' ops.cond)",
    "RandomDistribution": "one primitive draws every distribution; random_param_ops' rrelu/gumbel_softmax draw too",
    "ArgMaxWithValue": "math_ops' _with_value family helper declares it; the wrapper shares functional_math's",
    "ArgMinWithValue": "math_ops' _with_value family helper declares it; the wrapper shares functional_math's",
    "ReduceNanSum": "math_ops' _reduction family declares it; mint.nansum shares functional_math's _reduce",
    "ReduceNanMean": "math_ops' _reduction family declares it; ops.nanmean shares functional_math's _reduce",
    "ReduceSum": "declared with its Api in math_ops' _reduction family; mint.count_nonzero is functional_math's",
    "ReduceProd": "declared with its Api in math_ops' _reduction family; mint.prod is functional_math's",
    "FloatPower": "declared with its Api in math_ops; ops.float_power_ext is numerics_ops' (its dtype rules)",
}


def _wrapper_files() -> dict[str, set[str]]:
    """primitive name -> the msx/ops files holding an `expose(prim=name)` wrapper (read from the source)."""
    found: dict[str, set[str]] = {}
    for path in sorted((Path(msx.__file__).parent / "ops").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "expose":
                for kw in node.keywords:
                    if kw.arg == "prim" and isinstance(kw.value, ast.Constant):
                        found.setdefault(kw.value.value, set()).add(path.name)
    return found


def test_hand_written_wrappers_sit_beside_their_primitive():
    away = {}
    for name, files in _wrapper_files().items():
        module = getattr(REGISTRY[name].impl, "__module__", "") or ""
        assert module.startswith("msx.ops."), f"{name}: cannot tell its declaring file from {module!r}"
        if files != {module.rsplit(".", 1)[1] + ".py"}:
            away[name] = sorted(files)
    assert sorted(set(away) - set(AWAY_FROM_THEIR_PRIMITIVE)) == [], f"wrappers away from their primitive: {away}"
    assert sorted(set(AWAY_FROM_THEIR_PRIMITIVE) - set(away)) == [], "beside their primitive now: drop them"
