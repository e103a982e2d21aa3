"""msx's import graph, measured from the source with `ast` (nothing is imported or run).

`python -m msx.tools.import_graph` prints the house figures the layering rule is judged by
(ARCHITECTURE rules 10 and 12): how many imports sit inside function bodies, the import cycles between
msx modules counting those local imports, and every import that goes up the layer order written in
`msx/__init__.py`'s docstring. `tests/test_layering.py` runs the same checker, on msx and on small fake
packages, so the figures and the test cannot disagree.

The layer order is a docstring block of lines `N. name name ... — what it is`, bottom first. A name is a
package or a module relative to the root package; a module's unit is the longest name that contains it.
Two modules of one unit import each other freely (their cycles are still counted); an import from one unit
into another is allowed only when the target's layer is strictly lower — units on one line are peers and
never import each other. The exceptions a package allows are passed in explicitly, each with a reason.

Not edges: `if TYPE_CHECKING:` imports (they never run) and the package `__init__` files Python runs on the
way to a submodule (`from .bytecode.breaks import X` runs `bytecode/__init__.py` too): counting those would
put every lazily loaded package in a cycle, so a package file that loads its modules lazily says why.
"""
from __future__ import annotations

import argparse
import ast
import re
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Import:
    """One `import` statement's edge: `source` imports `target` (both dotted module names) at `line`."""
    source: str
    target: str
    line: int
    local: bool  # inside a function body: runs at call time, invisible to a module-level scan


@dataclass
class ImportGraph:
    """Every module of a package and its imports of the package's own modules."""
    root: str
    modules: dict[str, Path] = field(default_factory=dict)
    imports: list[Import] = field(default_factory=list)
    local_imports: list[tuple[str, int, str]] = field(default_factory=list)  # (module, line, what): any package

    def edges(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {m: set() for m in self.modules}
        for imp in self.imports:
            if imp.target != imp.source:
                out[imp.source].add(imp.target)
        return out

    def cycles(self) -> list[list[str]]:
        """The strongly connected components with more than one module (or a module importing itself):
        each is one import cycle, counted once however many loops run through it."""
        return [sorted(c) for c in _strongly_connected(self.edges()) if len(c) > 1]


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


class _Scanner(ast.NodeVisitor):
    """Collects (imported name, line, local) of a module, tracking whether the visitor is inside a function."""

    def __init__(self, package: str):
        self.package, self.depth, self.found = package, 0, []

    def _function(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_If(self, node: ast.If):
        """`if TYPE_CHECKING:` imports never run (they name types for checkers): only its `else` is scanned."""
        test = node.test
        if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
                (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import):
        self.found += [(a.name, [], node.lineno, self.depth > 0) for a in node.names]

    def visit_ImportFrom(self, node: ast.ImportFrom):
        if node.level:
            parts = self.package.split(".")
            base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        self.found.append((base, [a.name for a in node.names], node.lineno, self.depth > 0))


def _resolve(base: str, names: list[str], modules: dict[str, Path]) -> list[str]:
    """The package modules an import statement loads: `from a import b` is module `a.b` when that exists,
    else module `a` (its name `b`); `import a.b.c` is the deepest of those that exists."""
    found = [f"{base}.{n}" for n in names if f"{base}.{n}" in modules]
    if len(found) < len(names) or not names:
        parts = base.split(".")
        for n in range(len(parts), 0, -1):
            if ".".join(parts[:n]) in modules:
                found.append(".".join(parts[:n]))
                break
    return found


def scan(root: Path) -> ImportGraph:
    """The import graph of the package whose directory is `root`."""
    root = Path(root).resolve()
    graph = ImportGraph(root.name)
    for path in sorted(root.rglob("*.py")):
        graph.modules[module_name(root, path)] = path
    for name, path in graph.modules.items():
        scanner = _Scanner(name if path.name == "__init__.py" else name.rsplit(".", 1)[0])
        scanner.visit(ast.parse(path.read_text(), str(path)))
        for base, names, line, local in scanner.found:
            if local:
                graph.local_imports.append((name, line, base))
            if base == graph.root or base.startswith(graph.root + "."):
                graph.imports += [Import(name, t, line, local) for t in _resolve(base, names, graph.modules)]
    return graph


def _strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (msx's graph is deep enough to hit Python's recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    out.append(component)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return out


# ---- the layer order ----

def layers_from_doc(doc: str) -> list[list[str]]:
    """The layer order in a docstring: lines `N. name name ... — what it is` (continuation lines indented),
    bottom first. A line `N. a b` lists two peer units of layer N."""
    return [line.split(".", 1)[1].split("—")[0].split() for line in doc.splitlines() if re.match(r"^\d+\.\s", line)]


def rank_table(layers: list[list[str]]) -> dict[str, int]:
    return {name: i for i, layer in enumerate(layers) for name in layer}


def unit(module: str, table: dict[str, int]) -> str | None:
    """The longest entry of the layer table that `module` (a dotted name under the root) is or lies inside."""
    parts = module.split(".")
    for n in range(len(parts), 1, -1):
        key = ".".join(parts[1:n])
        if key in table:
            return key
    return None


@dataclass(frozen=True)
class Violation:
    imp: Import
    source_unit: str
    target_unit: str
    source_layer: int
    target_layer: int

    def __str__(self) -> str:
        where = "inside a function" if self.imp.local else "module level"
        return (f"{self.imp.source}:{self.imp.line} ({where}): {self.source_unit} (layer {self.source_layer + 1}) "
                f"imports {self.imp.target} ({self.target_unit}, layer {self.target_layer + 1})")


def _allowed(imp: Import, root: str, allowed) -> bool:
    def inside(module: str, prefix: str) -> bool:
        full = f"{root}.{prefix}"
        return module == full or module.startswith(full + ".")
    return any(inside(imp.source, a) and inside(imp.target, b) for a, b in allowed)


def violations(graph: ImportGraph, layers: list[list[str]], allowed=()) -> list[Violation]:
    """Every import from one unit into another that is not strictly downward and not in `allowed` (pairs
    of unit prefixes (importer, imported)). The root package itself re-exports everything and is judged
    by no one; an import of the bare root package counts as the top layer."""
    table = rank_table(layers)
    out = []
    for imp in graph.imports:
        if imp.source == graph.root:
            continue
        mine = unit(imp.source, table)
        theirs = unit(imp.target, table) if imp.target != graph.root else graph.root
        if mine is None or theirs is None or mine == theirs:
            continue
        mine_rank = table[mine]
        theirs_rank = table.get(theirs, len(layers))
        if theirs_rank >= mine_rank and not _allowed(imp, graph.root, allowed):
            out.append(Violation(imp, mine, theirs, mine_rank, theirs_rank))
    return out


def unplaced(graph: ImportGraph, layers: list[list[str]]) -> list[str]:
    """Modules in no layer (the root package aside)."""
    table = rank_table(layers)
    return sorted(m for m in graph.modules if m != graph.root and unit(m, table) is None)


def report(graph: ImportGraph, layers: list[list[str]] | None = None, allowed=()) -> str:
    local_msx = [i for i in graph.imports if i.local]
    files = {m for m, _, _ in graph.local_imports}
    lines = [f"modules: {len(graph.modules)}",
             f"function-local imports: {len(graph.local_imports)} in {len(files)} files "
             f"({len(local_msx)} of them import {graph.root} modules)"]
    cycles = graph.cycles()
    lines.append(f"import cycles (local imports counted): {len(cycles)}")
    lines += [f"  {len(c)} modules: {' '.join(c)}" for c in cycles]
    if layers is not None:
        found = violations(graph, layers, allowed)
        lines.append(f"upward or sideways imports between units: {len(found)}")
        lines += [f"  {v}" for v in found]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[1]), help="package directory")
    parser.add_argument("--local", action="store_true", help="list every function-local import")
    args = parser.parse_args(argv)
    graph = scan(Path(args.root))
    init = Path(args.root) / "__init__.py"
    layers = layers_from_doc(ast.get_docstring(ast.parse(init.read_text())) or "")
    print(report(graph, layers or None))
    if args.local:
        for module, line, what in graph.local_imports:
            print(f"  {module}:{line} {what}")


if __name__ == "__main__":
    main()
