"""`import msx.ops` builds one deterministic surface: the same names with the same signatures whatever module
is imported first, and every name of the committed snapshot (`tests/golden/ops_surface.json`, written by
`tools/dump_ops_surface.py`) still there with its signature. A newly declared op only adds names (adding an
op touches its declaration and its test, not this snapshot); dropping or re-signing a name is a deliberate
re-record, never a side effect of how the modules are built."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = json.loads((ROOT / "tests" / "golden" / "ops_surface.json").read_text())
_DUMP = ("import sys, json; sys.path.insert(0, 'tools'); {first}"
         "import dump_ops_surface as d; print(json.dumps(d.surface(), sort_keys=True))")


def _surface_after(first: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _DUMP.format(first=first)], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


def test_surface_is_the_same_whatever_is_imported_first():
    plain = _surface_after("")
    for first in ("import msx.ops.functional_layers; ", "import msx.mint; "):
        assert _surface_after(first) == plain, first


def test_the_snapshot_names_keep_their_signatures():
    got = _surface_after("")
    for label, names in SNAPSHOT.items():
        if label == "Tensor":
            assert not set(names) - set(got[label]), (label, sorted(set(names) - set(got[label])))
            continue
        changed = {n: (s, got[label].get(n)) for n, s in names.items() if got[label].get(n) != s}
        assert not changed, (label, dict(list(changed.items())[:10]))


def test_all_is_sorted_and_every_name_resolves():
    from msx import ops

    assert ops.__all__ == sorted(set(ops.__all__))
    assert ops.functional.__all__ == sorted(set(ops.functional.__all__))
    missing = [n for n in ops.__all__ if not hasattr(ops, n)]
    assert missing == []


def test_every_declared_view_is_published():
    """However the declaring modules import each other, every declared name reaches its public namespace."""
    from msx import mint, ops
    from msx.ops.api import SURFACE

    assert ops.functional.__all__ == sorted(SURFACE["ops"])
    assert set(SURFACE["ops"]) <= set(ops.__all__)
    assert set(SURFACE["cls"]) <= set(ops.__all__) & set(ops.operations.__all__)
    assert all(getattr(ops.operations, n) is SURFACE["cls"][n] for n in SURFACE["cls"])
    assert set(SURFACE["mint"]) <= set(dir(mint))
    assert all(getattr(ops.Tensor, n) is SURFACE["tensor"][n] for n in SURFACE["tensor"])
