"""MindSpore's beginner tutorials run on msx with only the import lines changed, printing what MindSpore 2.10
printed (tests/port/*.mindspore.txt, recorded once with /work/.venv-ms). Numbers are compared to 1e-4
relative or one unit of their last printed decimal (float32 sums may differ in the last printed digit); every
other character must match."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

PORT = os.path.join(os.path.dirname(__file__), "port")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMPORTS = [(r"^import mindspore$", "import msx as mindspore"), (r"^import mindspore\.(\S+) as ", r"import msx.\1 as "),
           (r"^from mindspore import ", "from msx import "),
           (r"^from mindspore\.", "from msx.")]
NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def _port(source: str) -> str:
    lines = []
    for line in source.splitlines():
        for pattern, repl in IMPORTS:
            line = re.sub(pattern, repl, line)
        lines.append(line)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("program", sorted(f[:-3] for f in os.listdir(PORT) if f.endswith(".py")))
def test_tutorial_prints_what_mindspore_prints(program, tmp_path):
    source = open(os.path.join(PORT, f"{program}.py")).read()
    ported = _port(source)
    changed = [(a, b) for a, b in zip(source.splitlines(), ported.splitlines()) if a != b]
    assert changed and all("import" in a for a, _ in changed), "only import lines may change"
    script = tmp_path / f"{program}.py"
    script.write_text(ported)
    env = {**os.environ, "PYTHONPATH": ROOT, "JAX_PLATFORMS": "cpu"}
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    want = open(os.path.join(PORT, f"{program}.mindspore.txt")).read().splitlines()
    got = run.stdout.splitlines()
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert NUMBER.sub("#", g) == NUMBER.sub("#", w), f"\nmsx:       {g}\nmindspore: {w}"
        for a, b in zip(NUMBER.findall(g), NUMBER.findall(w)):
            assert float(a) == pytest.approx(float(b), rel=1e-4, abs=max(2e-6, 1.01 * _last_digit(b))), \
                f"\nmsx:       {g}\nmindspore: {w}"


def _last_digit(number: str) -> float:
    """One unit of the last printed decimal of `number` (rounding may flip it between two float32 runs)."""
    mantissa, _, exponent = number.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)
