"""Helper modules the tests import by bare name (`from nn_cases import CASES`, after a `sys.path.insert`) must be
named once under tests/: one pytest process imports them all, `sys.modules` keeps the first one it meets, and a
second `cases.py` elsewhere is then silently the wrong module: which one wins depends on the collection order
(CI once failed this way: tests/golden_dist_checkpoint/cases.py shadowed tests/golden_nn/cases.py)."""
import ast
import collections
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def ambiguous_imports(tests: Path) -> dict[str, list[str]]:
    """{test file: names it imports that more than one tests/**/<name>.py could be}."""
    homes = collections.defaultdict(list)
    for path in tests.rglob("*.py"):
        homes[path.stem].append(str(path.relative_to(tests)))
    found = {}
    for test in sorted(tests.glob("test_*.py")):
        clashes = sorted(name for name in _imports(test) if len(homes.get(name, ())) > 1)
        if clashes:
            found[test.name] = [f"{name}: {sorted(homes[name])}" for name in clashes]
    return found


def test_every_helper_a_test_imports_is_named_once():
    assert ambiguous_imports(TESTS) == {}


def test_the_check_finds_two_helpers_of_one_name(tmp_path):
    for folder in ("golden_a", "golden_b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "cases.py").write_text("CASES = []\n")
    (tmp_path / "test_x.py").write_text("import sys\nfrom cases import CASES\n")
    assert list(ambiguous_imports(tmp_path)) == ["test_x.py"]
