"""Layers import downward only (ARCHITECTURE rule 10): every `import` in every msx module — module level and
inside functions — is parsed with `ast` and checked against the layer order written in `msx/__init__.py`'s
docstring. A new upward import fails here; the few that are allowed are listed in `ALLOWED` with a reason."""
import ast
import re
from pathlib import Path

import pytest

import msx

ROOT = Path(msx.__file__).resolve().parent

# (importing module or package prefix, imported module or package prefix) -> why it is allowed
ALLOWED: dict[tuple[str, str], str] = {
    ("msx.jit", "msx.viz"): "save_graphs=3 writes the stage as a Model Explorer graph, imported only when asked; "
                            "jit.py is the lead's file: a hook registered by viz would replace it",
}


def _layers() -> list[list[str]]:
    """The layer order from msx/__init__.py's docstring: lines `N. name name ... — what it is`, bottom first."""
    doc = msx.__doc__ or ""
    return [line.split(".", 1)[1].split("—")[0].split() for line in doc.splitlines()
            if re.match(r"^\d+\.\s", line)]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str | None = None) -> list[tuple[str, int]]:
    """(absolute module name, line) of every msx import in the file, function-local ones included; `name`:
    the module's name (default: from its path)."""
    name = name or _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if node.module is None:  # `from . import a, b`: each is a module
                found += [(f"{target}.{a.name}", node.lineno) for a in node.names]
            else:
                found.append((target, node.lineno))
        elif isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
    return [(t, line) for t, line in found if t == "msx" or t.startswith("msx.")]


def _rank(module: str, table: dict[str, int]) -> int | None:
    """The layer of a module: that of the longest entry it is, or is inside of."""
    parts = module.split(".")
    for n in range(len(parts), 1, -1):
        key = ".".join(parts[1:n])
        if key in table:
            return table[key]
    return None


@pytest.fixture(scope="module")
def table() -> dict[str, int]:
    layers = _layers()
    assert len(layers) >= 5, "msx/__init__.py's docstring must list the layers as `N. names` lines"
    return {name: i for i, layer in enumerate(layers) for name in layer}


def test_every_msx_module_has_a_layer(table):
    missing = sorted({_module_name(p) for p in ROOT.rglob("*.py")
                      if _module_name(p) != "msx" and _rank(_module_name(p), table) is None})
    assert not missing, f"modules in no layer of msx/__init__.py's docstring: {missing}"


def _upward(path: Path, me: str, table: dict[str, int]) -> list[str]:
    """The imports of `path` (module `me`) that reach a higher layer and are not in ALLOWED."""
    mine, found = _rank(me, table), []
    for target, line in _imports(path, me):
        theirs = _rank(target, table) if target != "msx" else len(table)
        allowed = any(me.startswith(a) and target.startswith(b) for a, b in ALLOWED)
        if theirs is not None and theirs > mine and not allowed:
            found.append(f"{path.name}:{line}: {me} (layer {mine}) imports {target} (layer {theirs})")
    return found


def test_no_module_imports_a_higher_layer(table):
    upward = []
    for path in sorted(ROOT.rglob("*.py")):
        if _module_name(path) != "msx":  # the top-level package re-exports everything: it is above every layer
            upward += _upward(path, _module_name(path), table)
    assert not upward, "upward imports (see the layer order in msx/__init__.py):\n" + "\n".join(upward)


def test_the_checker_finds_function_local_and_relative_upward_imports(tmp_path, table):
    probe = tmp_path / "probe.py"
    probe.write_text("from .ir.graph import Graph\n\n\ndef f():\n    from .backends import get_backend\n"
                     "    from . import passes\n    import msx.jit\n")
    found = _upward(probe, "msx.tensor", table)
    assert [line.split(": ", 1)[1].split(" (layer")[0] for line in found] == ["msx.tensor"] * 4
    assert [line.split(" imports ")[1].split(" (")[0] for line in found] == \
        ["msx.ir.graph", "msx.backends", "msx.passes", "msx.jit"]
    assert _upward(probe, "msx.jit", table) == []  # the same imports from the front end are all downward


def test_allowed_entries_are_used_and_explained(table):
    for (a, b), why in ALLOWED.items():
        assert len(why) > 20, f"ALLOWED[{a!r}, {b!r}] needs a reason"
        assert _rank(b, table) > _rank(a, table), f"ALLOWED[{a!r}, {b!r}] is not upward: drop it"


MAX_MODULE_LINES = 700


def test_no_module_is_over_700_lines():
    """Small modules with one job: a module past 700 lines is split by concern (issue 21)."""
    long = sorted(f"{path.relative_to(ROOT)}: {n} lines" for path in ROOT.rglob("*.py")
                  if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES)
    assert not long, f"modules over {MAX_MODULE_LINES} lines (split them by concern):\n" + "\n".join(long)
