"""msx is typed for its users (issue 33): `py.typed`, the generated stubs of the namespaces msx builds at import
(tools/generate_stubs.py), and `mypy --strict` on a typed user program: clean, and a program with deliberate
errors reported line by line (so the check can fail when types decay to Any)."""
from __future__ import annotations

import importlib.util
import os
import re
import runpy
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "tests" / "data" / "typing"


def _env() -> dict:
    # msx found on the path as an installed package is (py.typed): mypy reads it without reporting msx's own
    # lines, as it does for `pip install msx`; the editable install's import hook is invisible to mypy
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_msx_is_marked_typed_and_ships_its_stubs():
    assert (ROOT / "msx" / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'"\*" = \["py.typed", "\*.pyi"\]', pyproject), "package-data must ship py.typed and stubs"


def test_the_checked_in_stubs_are_current():
    """A new op, class or re-export needs the stubs regenerated: `python tools/generate_stubs.py`."""
    out = subprocess.run([sys.executable, "tools/generate_stubs.py", "--check"], cwd=ROOT, env=_env(),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, f"stale stubs; run `python tools/generate_stubs.py`:\n{out.stdout}{out.stderr}"


def test_the_typed_program_runs():
    runpy.run_path(str(PROGRAMS / "user_program.py"), run_name="__main__")


# (line, error code) mypy must report in user_errors.py, each marked `# error:` there
EXPECTED_ERRORS = {(9, "assignment"), (10, "attr-defined"), (11, "attr-defined"), (12, "assignment"),
                   (13, "arg-type"), (21, "call-arg")}
STUBS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "msx").rglob("*.pyi"))


@pytest.fixture(scope="module")
def mypy_strict(tmp_path_factory) -> tuple[subprocess.CompletedProcess, dict[str, frozenset]]:
    """One `mypy --strict` run over the typed program, the broken one and every stub (a cold cache under tmp:
    ~10-15 s on a loaded 2-core machine), shared by the tests below: (the run, {file name: {(line, code)}})."""
    pytest.importorskip("mypy", reason="mypy is not installed (pip install -e '.[test]'): the typing check is "
                                       "NOT run")
    cache = tmp_path_factory.mktemp("mypy_cache")
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-color-output", "--cache-dir", str(cache),
                          "--config-file", os.devnull, str(PROGRAMS / "user_program.py"),
                          str(PROGRAMS / "user_errors.py"), *STUBS],
                         cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=600)
    print(f"mypy --strict: {time.perf_counter() - start:.1f} s")
    found: dict[str, set] = {}
    for m in re.finditer(r"^(\S+?\.pyi?):(\d+): error: .*\[([\w-]+)\]$", out.stdout, re.M):
        found.setdefault(m[1], set()).add((int(m[2]), m[3]))
    found = {k: frozenset(v) for k, v in found.items()}
    return out, found


def test_mypy_strict_accepts_every_generated_stub(mypy_strict):
    """The stubs themselves are `--strict` clean: a re-export mypy calls private, a bare `tuple`, a name bound twice
    would each be an error every user's `mypy --strict` reports inside msx."""
    out, found = mypy_strict
    assert len(STUBS) >= 9, STUBS
    assert not {f for f in found if f.endswith(".pyi")}, out.stdout


def test_mypy_strict_passes_the_typed_program(mypy_strict):
    out, found = mypy_strict
    assert not {f for f in found if f.endswith("user_program.py")}, out.stdout


def test_mypy_strict_reports_each_error_of_the_broken_program(mypy_strict):
    marked = {i for i, line in enumerate((PROGRAMS / "user_errors.py").read_text().splitlines(), 1)
              if "# error:" in line}
    assert marked == {line for line, _ in EXPECTED_ERRORS}
    out, found = mypy_strict
    assert {v for k, v in found.items() if Path(k).name == "user_errors.py"} == {frozenset(EXPECTED_ERRORS)}, \
        out.stdout
    assert out.returncode == 1 and re.search(r"Found 6 errors in 1 file", out.stdout), out.stdout + out.stderr


def _generator():
    spec = importlib.util.spec_from_file_location("generate_stubs", ROOT / "tools" / "generate_stubs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name, lines, kept, reason", [
    ("relu", ["def relu(x: Any) -> Tensor: ..."], ["def relu(x: Any) -> Tensor: ..."], None),
    ("lambda", ["def lambda(x: Any) -> Any: ..."], [], "not an identifier"),
    ("x-y", ["x-y: Any"], [], "not an identifier"),
    ("odd", ["def odd(*, ) -> Any: ..."], ["odd: Any"], "typed Any"),
])
def test_the_generator_never_writes_a_name_or_signature_that_does_not_parse(name, lines, kept, reason):
    """What the generator cannot express is typed Any or left out, with the reason kept in the stub's comment."""
    gen = _generator()
    skipped: list[str] = []
    assert gen.safe_lines(name, lines, [f"{name}: Any"], skipped) == kept
    assert (reason is None and not skipped) or (len(skipped) == 1 and reason in skipped[0] and name in skipped[0])
    with pytest.raises(SystemExit, match="does not parse"):
        gen.checked_stub("msx.x", "def f(: ...\n")
