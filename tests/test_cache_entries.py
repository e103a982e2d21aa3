"""One cache-entry type in every capture mode (issue 29): entries, explain() and recompile reasons read the same.

The references are what each call must do by construction (a new Python value: one more entry, one reason
naming the old and new value), and `EntryTable`'s documented orders; nothing here depends on timing.
"""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import msx
from msx.capture.explain import ExplainedEntry
from msx.runtime.entries import CacheEntry, EntryTable

MODES = ["ast", "trace", "bytecode"]
X = np.arange(6, dtype=np.float32).reshape(2, 3)


def scale(x, k):
    return x * k


def _entries(jf) -> list:
    """Every entry the function's cache holds, through the one table both caches keep."""
    return [e for v in jf.entries.table.values() if type(v) is list for e in v]


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_caches_the_one_entry_type(mode):
    jf = msx.jit(scale, capture_mode=mode)
    np.testing.assert_allclose(jf(msx.Tensor(X), 2.0).asnumpy(), X * 2)
    np.testing.assert_allclose(jf(msx.Tensor(X), 3.0).asnumpy(), X * 3)
    entries = _entries(jf)
    assert len(entries) == 2 == jf.cache_info()["entries"] == len(jf.entries)
    assert all(isinstance(e, CacheEntry) and e.compiled is not None and e.eager_reason is None for e in entries)
    assert all(e.where == "the start of scale" and e.graph is not None and e.brk is None for e in entries)
    assert f"entries={len(entries)}" in repr(jf)  # (bytecode's said 0 before its cache was the same kind)


@pytest.mark.parametrize("mode", MODES)
def test_explain_and_recompile_reasons_come_from_the_entries(mode):
    jf = msx.jit(scale, capture_mode=mode)
    jf(msx.Tensor(X), 2.0)
    report = jf.explain(msx.Tensor(X), 3.0)
    np.testing.assert_allclose(report.result.asnumpy(), X * 3)
    assert report.mode == mode and report.graph_count == 1 and report.break_count == 0
    assert report.recompiles == jf.recompile_reasons and len(report.new_recompiles) == 1
    assert "2.0 -> 3.0" in report.new_recompiles[0]
    serving = [e for e in _entries(jf) if e.graph is report.entries[0].graph]
    assert len(serving) == 1 and report.entries[0] == ExplainedEntry.of(serving[0])


def test_a_graph_break_is_two_entries_of_the_one_type():
    def step(x):
        y = x * 2
        if y.sum() > 0:   # a graph break in bytecode mode
            return y + 1
        return y - 1

    jf = msx.jit(step, capture_mode="bytecode")
    report = jf.explain(msx.Tensor(X))
    np.testing.assert_allclose(report.result.asnumpy(), X * 2 + 1)
    assert report.break_count == 1 and len(report.entries) == 2 == jf.cache_info()["entries"]
    first, second = _entries(jf)
    assert first.brk is report.breaks[0] and second.brk is None and second.where.startswith("the graph break")


def test_entry_table_orders():
    newest = EntryTable(newest_first=True)
    for k in range(4):
        newest.add("key", CacheEntry(f"e{k}", [], None), keep=3)
    assert [e.where for e in newest.get("key")] == ["e3", "e2", "e1"]
    captured = EntryTable(newest_first=False)
    for k in range(3):
        captured.add("key", CacheEntry(f"e{k}", [], None))
    captured.set("other", object())  # a marker (the signature cache's EAGER) counts as one entry
    assert [e.where for e in captured.get("key")] == ["e0", "e1", "e2"] and len(captured) == 4


def test_jit_never_asks_which_cache_it_has():
    """JitFunction serves, explains and counts through the cache's protocol: no bytecode runner branch."""
    tree = ast.parse((Path(msx.__file__).parent / "jit.py").read_text(encoding="utf-8"))
    assert not [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "_runner"]
    cache_kind_checks = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") ==
                         "isinstance" and "EntryCache" in ast.unparse(n)]
    assert not cache_kind_checks, f"jit.py asks which cache it has at lines {cache_kind_checks}: ask the Cache protocol"


@pytest.mark.parametrize("mode, families", [("ast", True), ("trace", True), ("bytecode", False)])
def test_shape_families_are_a_capability_of_the_cache(mode, families):
    """dynamic=1 uses shape families where the cache says it holds them; bytecode keys graphs on shapes."""
    jf = msx.jit(scale, capture_mode=mode, dynamic=1)
    assert jf.entries.shape_families is families and (jf._dynamic is not None) is families
    if not families:
        assert ("static", "dynamic=1 with capture_mode='bytecode': one guarded graph per shape") in jf.log
        with pytest.raises(ValueError, match="dynamic shapes need capture_mode 'ast' or 'trace'"):
            jf.set_dynamic_spec(None)
