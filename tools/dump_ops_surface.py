"""Write tests/golden/ops_surface.json: every public name of msx.ops, ops.functional, ops.operations, mint,
mint.nn.functional and Tensor, with the signature of each callable (what `tests/test_ops_surface_stable.py`
compares against, so a refactor of how the surface is built cannot add, drop or re-sign a name).

Run from the repository root: `python tools/dump_ops_surface.py`.
"""
from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _sig(obj) -> str:
    if isinstance(obj, property):
        return "property"
    if isinstance(obj, type):
        return "class"
    if not callable(obj):
        return type(obj).__name__
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "?"


def surface() -> dict:
    import msx
    from msx import mint, ops

    out = {}
    for label, mod in (("ops", ops), ("ops.functional", ops.functional), ("ops.operations", ops.operations),
                       ("mint", mint), ("mint.nn.functional", mint.nn.functional)):
        out[label] = {n: _sig(getattr(mod, n)) for n in mod.__all__}
    out["Tensor"] = sorted(n for n in vars(msx.Tensor) if not n.startswith("_") or n.endswith("__"))
    return out


if __name__ == "__main__":
    path = Path(__file__).resolve().parents[1] / "tests" / "golden" / "ops_surface.json"
    path.write_text(json.dumps(surface(), indent=0, sort_keys=True) + "\n")
    print(path, {k: len(v) for k, v in surface().items()})
