"""docs/architecture.md stays true to the tree: every path its "where do I add X" table names exists, the table
covers the kinds of thing a contributor adds, and its Layout block names every package of msx once."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "architecture.md").read_text()
KINDS = ("an op", "a capture rule", "a pass", "a backend", "an export format", "a dataset reader", "a callback",
         "a checkpoint format")


def _section(title: str) -> str:
    start = PAGE.index(title)
    following = re.search(r"^#{1,2} ", PAGE[start + len(title):], re.M)
    return PAGE[start:start + len(title) + following.start()] if following else PAGE[start:]


def _rows() -> list[list[str]]:
    lines = [line for line in _section("## Where do I add X").splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]  # past header and rule


def test_the_table_covers_what_a_contributor_adds():
    kinds = [row[0] for row in _rows()]
    assert [k for k in KINDS if k not in kinds] == []


def test_every_file_the_table_names_exists():
    named, missing = 0, []
    for kind, where, how in _rows():
        paths = re.findall(r"`([\w./-]+\.(?:py|md|proto|h))`", where) + re.findall(r"\b(docs/[\w.-]+\.md)\b", how)
        assert re.findall(r"`([\w./-]+\.py)`", where), f"row {kind!r} names no file"
        named += len(paths)
        missing += [f"{kind}: {p}" for p in paths if not (ROOT / p).is_file()]
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"
    assert named >= len(KINDS)


def test_the_layout_names_every_package_once():
    layout = _section("# Layout")
    block = layout[layout.index("```"):layout.rindex("```")]
    packages = sorted(p.parent.relative_to(ROOT).as_posix() for p in (ROOT / "msx").glob("*/__init__.py"))
    heads = [m.group(1) for m in re.finditer(r"^(msx/[\w/]+/)\s", block, re.M)]
    twice = sorted({h for h in heads if heads.count(h) > 1})
    assert not twice, f"packages with two Layout lines: {twice}"
    assert [p for p in packages if f"{p}/" not in block] == []
