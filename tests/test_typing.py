"""msx is typed for its users (issue 33): `py.typed`, the generated stubs of the namespaces msx builds at import
(tools/generate_stubs.py), and `mypy --strict` on a typed user program: clean, and a program with deliberate
errors reported line by line (so the check can fail when types decay to Any)."""
from __future__ import annotations

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


def test_mypy_strict_passes_the_typed_program_and_reports_the_broken_one(request):
    pytest.importorskip("mypy", reason="mypy is not installed (pip install -e '.[test]'): the typing check is "
                                       "NOT run")
    marked = {i for i, line in enumerate((PROGRAMS / "user_errors.py").read_text().splitlines(), 1)
              if "# error:" in line}
    assert marked == {line for line, _ in EXPECTED_ERRORS}
    cache = request.config.cache.mkdir("mypy")  # a warm cache: ~3 s instead of ~15 s for jax, numpy and msx
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-color-output", "--cache-dir", str(cache),
                          "--config-file", os.devnull, str(PROGRAMS / "user_program.py"),
                          str(PROGRAMS / "user_errors.py")],
                         cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - start
    found: dict[str, set] = {}
    for m in re.finditer(r"^(\S+?\.py):(\d+): error: .*\[([\w-]+)\]$", out.stdout, re.M):
        found.setdefault(Path(m[1]).name, set()).add((int(m[2]), m[3]))
    assert "user_program.py" not in found, out.stdout
    assert found.get("user_errors.py") == EXPECTED_ERRORS, out.stdout
    assert out.returncode == 1 and re.search(r"Found 6 errors in 1 file", out.stdout), out.stdout + out.stderr
    print(f"mypy --strict: {seconds:.1f} s")
