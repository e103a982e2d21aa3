"""Where the live MindSpore 2.10 oracle runs: its own venv (MindSpore needs numpy<2), found by
`$MSX_MINDSPORE_PYTHON` (CI sets it), `/work/.venv-ms` or `<repo>/.venv-ms`."""
from __future__ import annotations

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def mindspore_python() -> str | None:
    for candidate in (os.environ.get("MSX_MINDSPORE_PYTHON"), "/work/.venv-ms/bin/python",
                      os.path.join(ROOT, ".venv-ms", "bin", "python")):
        if candidate and os.path.exists(candidate):
            return candidate
    return None
