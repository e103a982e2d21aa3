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
ALLOWED: dict[tuple[str, str], str] = {}


def _layers() -> list[list[str]]:
    """The layer order from msx/__init__.py's docstring: lines `N. name name ...` from the bottom layer up."""
    doc = msx.__doc__ or ""
    layers = [line.split(".", 1)[1].split("—")[0].split() for line in doc.splitlines()
              if re.match(r"^\s*\d+\.\s", line)]
    return [[name.strip(",") for name in layer] for layer in layers]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, int]]:
    """(absolute module name, line) of every msx import in the file, function-local ones included."""
    name = _module_name(path)
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


def test_no_module_imports_a_higher_layer(table):
    upward = []
    for path in sorted(ROOT.rglob("*.py")):
        me = _module_name(path)
        if me == "msx":
            continue  # the top-level package re-exports everything: it is above every layer
        mine = _rank(me, table)
        for target, line in _imports(path):
            theirs = _rank(target, table) if target != "msx" else len(table)
            allowed = any(me.startswith(a) and target.startswith(b) for a, b in ALLOWED)
            if theirs is not None and theirs > mine and not allowed:
                upward.append(f"{path.relative_to(ROOT.parent)}:{line}: {me} (layer {mine}) imports {target} "
                              f"(layer {theirs})")
    assert not upward, "upward imports (see the layer order in msx/__init__.py):\n" + "\n".join(upward)


def test_the_checker_sees_function_local_and_relative_imports(tmp_path, table):
    """The checker itself: a function-local relative import from a low layer to a high one is found."""
    fake = ROOT / "errors.py"
    found = dict(_imports(fake))
    assert all(_rank(t, table) <= _rank("msx.errors", table) for t in found)
    assert _rank("msx.passes.rules", table) > _rank("msx.ir.graph", table) > _rank("msx.ops.primitive", table)
    src = "def f():\n    from ..backends import get_backend\n    from . import rules\n"
    probe = ROOT / "passes" / "_probe_layering.py"
    assert not probe.exists()
    tree_imports = []
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.ImportFrom):
            tree_imports.append((node.level, node.module))
    assert tree_imports == [(2, "backends"), (1, None)]


def test_allowed_entries_are_used_and_explained(table):
    for (a, b), why in ALLOWED.items():
        assert len(why) > 20, f"ALLOWED[{a!r}, {b!r}] needs a reason"
        assert _rank(b, table) > _rank(a, table), f"ALLOWED[{a!r}, {b!r}] is not upward: drop it"
