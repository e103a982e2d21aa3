"""How much of MindSpore 2.10's public API msx has, per module, measured.

`python -m msx.tools.api_coverage` prints one row per MindSpore module: how many of its public
names (from `mindspore_names.json`, dumped once from the real package by
`tools/dump_mindspore_names.py`) exist under the same path in msx. `--missing mindspore.ops` lists the
absent names of one module; `--markdown` prints the table for the README.

A name counts as present when `hasattr(msx_module, name)`. Present names are of two kinds: the ones that
work (tests check them against MindSpore's answers), and the ones that exist only so that imports work --
MindSpore's Ascend-only kernels and internals, which raise `NotAvailableError` naming what to use instead
(`msx.unavailable`). The table counts both as present and shows the refused ones in their own column, with
the overall figure for working names alone beside the total, so refusals never pass for working names.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
from dataclasses import dataclass

from ..unavailable import is_refused

NAMES_FILE = os.path.join(os.path.dirname(__file__), "mindspore_names.json")
CLASSES = {"mindspore.Tensor": ("msx", "Tensor"), "mindspore.nn.Cell": ("msx.nn", "Cell")}


@dataclass(frozen=True)
class Row:
    module: str
    total: int
    present: tuple[str, ...]
    missing: tuple[str, ...]
    refused: tuple[str, ...] = ()

    @property
    def percent(self) -> float:
        return 100.0 * len(self.present) / self.total if self.total else 100.0


def load_names() -> dict:
    with open(NAMES_FILE) as f:
        return json.load(f)


def _msx_object(ms_path: str):
    """The msx module (or class) standing for a MindSpore module path; None when msx has none."""
    if ms_path in CLASSES:
        mod, cls = CLASSES[ms_path]
        return getattr(importlib.import_module(mod), cls)
    path = "msx" + ms_path[len("mindspore"):]
    try:
        return importlib.import_module(path)
    except ImportError:
        return None


def coverage(modules: list[str] | None = None) -> list[Row]:
    table = load_names()["modules"]
    rows = []
    for ms_path in modules or list(table):
        names = table[ms_path]
        obj = _msx_object(ms_path)
        present = tuple(n for n in names if obj is not None and hasattr(obj, n))
        missing = tuple(n for n in names if n not in present)
        refused = tuple(n for n in present if is_refused(getattr(obj, n)))
        rows.append(Row(ms_path, len(names), present, missing, refused))
    return rows


def render(rows: list[Row], markdown: bool = False) -> str:
    version = load_names()["mindspore_version"]
    if markdown:
        lines = [f"| module (MindSpore {version}) | names | in msx | of them refused | coverage |",
                 "|---|---:|---:|---:|---:|"]
        lines += [f"| `{r.module}` | {r.total} | {len(r.present)} | {len(r.refused)} | {r.percent:.0f}% |"
                  for r in rows]
    else:
        width = max(len(r.module) for r in rows)
        lines = [f"{'module (MindSpore ' + version + ')':<{width}}  names  in msx  refused  coverage"]
        lines += [f"{r.module:<{width}}  {r.total:5d}  {len(r.present):6d}  {len(r.refused):7d}  {r.percent:7.1f}%"
                  for r in rows]
    total = max(sum(r.total for r in rows), 1)
    have = sum(len(r.present) for r in rows)
    refused = sum(len(r.refused) for r in rows)
    lines.append(f"all listed modules: {have}/{total} ({100.0 * have / total:.1f}%); working (present less the "
                 f"{refused} refused): {have - refused}/{total} ({100.0 * (have - refused) / total:.1f}%)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m msx.tools.api_coverage", description=__doc__.split("\n")[0])
    parser.add_argument("--missing", metavar="MODULE", help="list the MindSpore names MODULE lacks in msx")
    parser.add_argument("--refused", metavar="MODULE", help="list the names of MODULE that exist only to refuse use")
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown")
    args = parser.parse_args(argv)
    if args.missing:
        (row,) = coverage([args.missing])
        print("\n".join(row.missing))
        return
    if args.refused:
        (row,) = coverage([args.refused])
        print("\n".join(row.refused))
        return
    print(render(coverage(), markdown=args.markdown))


if __name__ == "__main__":
    main()
