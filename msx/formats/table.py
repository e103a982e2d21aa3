"""The aligned text tables `python -m msx inspect` prints (tensor tables, op censuses, part lists)."""
from __future__ import annotations


def table(rows: list[tuple], header: tuple) -> str:
    """`rows` under `header`, each column as wide as its widest cell, a dashed rule below the header."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header] + rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
