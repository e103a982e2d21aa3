"""Every ```python block of README.md and docs/*.md runs as written (issue 33).

A page reads like a notebook: its blocks run in order in one fresh interpreter and share one namespace, so
a snippet may continue the page's earlier blocks (the page's first block sets the scene). Each page runs
in its own subprocess in a temporary working directory that links the checkout's `tests/` and `examples/`,
so a page names the repository's sample files as from the repository root, and what it writes never touches
the checkout.

A marker, on the line right above the fence, changes what is checked:
- `<!-- excerpt: path -->`: the block (python or cpp) quotes a file of the repository (how an op is declared,
  a C++ kernel); its non-blank lines must appear, in order, in that file, so the quote cannot go stale.
- `<!-- raises: ErrorClass -->`: the block shows an error (docs/errors.md): it must raise that class (or a
  subclass), and the page goes on.
Shell blocks (```bash) are the README's set-up commands and command-line examples; the commands they
name are tested where their feature is.
"""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^(?:<!-- (?P<marker>[a-z]+): (?P<arg>[^>]*?) -->\n)?```(?P<lang>python|cpp)\n(?P<code>.*?)^```",
                    re.S | re.M)

# each block is a file of its own, so `inspect.getsource` (ast capture, tracebacks) sees it as it would a script
_RUNNER = r"""
import sys, traceback
ns = {"__name__": "__main__"}
for path, raises in BLOCKS:
    try:
        exec(compile(open(path, encoding="utf-8").read(), path, "exec"), ns)
    except BaseException as err:
        if raises and raises in [c.__name__ for c in type(err).__mro__]:
            continue                     # the error the page shows
        print("DOCS-BLOCK-FAILED " + path, flush=True)
        traceback.print_exc()
        sys.exit(1)
    else:
        if raises:
            print(f"DOCS-BLOCK-FAILED {path}: the page says it raises {raises}, and it raised nothing", flush=True)
            sys.exit(1)
"""


def blocks_of(page: pathlib.Path) -> list[tuple[str | None, str, str, int]]:
    """(marker, marker argument, code, line) of each python block of `page`, and of each quoted C++ one."""
    text = page.read_text(encoding="utf-8")
    found = [(m["marker"], (m["arg"] or "").strip(), m["code"], text.count("\n", 0, m.start("code")) + 1)
             for m in _BLOCK.finditer(text) if m["lang"] == "python" or m["marker"] == "excerpt"]
    return found


def _page_id(page: pathlib.Path) -> str:
    return str(page.relative_to(ROOT))


# the system tool a page needs, where it needs one (CI installs each; elsewhere the page skips, saying why)
NEEDS = {"docs/custom_ops.md": "g++"}
RUN_PAGES = [p for p in PAGES if any(marker in (None, "raises") for marker, *_ in blocks_of(p))]
EXCERPTS = [(p, arg, code, line) for p in PAGES for marker, arg, code, line in blocks_of(p) if marker == "excerpt"]


def test_markers_are_known():
    unknown = [(_page_id(p), line, marker) for p in PAGES for marker, _, _, line in blocks_of(p)
               if marker not in (None, "excerpt", "raises")]
    assert not unknown, f"unknown docs-block markers: {unknown}"


@pytest.mark.parametrize("page", RUN_PAGES, ids=_page_id)
def test_page_blocks_run(page, tmp_path):
    tool = NEEDS.get(_page_id(page))
    if tool and shutil.which(tool) is None:
        pytest.skip(f"{_page_id(page)} needs {tool}, which this machine lacks")
    for shared in ("tests", "examples"):
        (tmp_path / shared).symlink_to(ROOT / shared, target_is_directory=True)
    paths = []
    for marker, arg, code, line in blocks_of(page):
        if marker in (None, "raises"):
            paths.append((f"{page.stem}_line{line}.py", arg if marker == "raises" else None))
            (tmp_path / paths[-1][0]).write_text(code, encoding="utf-8")
    script = tmp_path / "run_blocks.py"
    script.write_text(f"BLOCKS = {paths!r}\n{_RUNNER}", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               MPLBACKEND="Agg")
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, f"a code block of {_page_id(page)} fails as written:\n{proc.stdout[-4000:]}" \
                                 f"\n{proc.stderr[-6000:]}"


@pytest.mark.parametrize("page,path,code,line", EXCERPTS, ids=[f"{_page_id(p)}:{ln}" for p, _, _, ln in EXCERPTS])
def test_excerpt_matches_source(page, path, code, line):
    source = [ln.strip() for ln in (ROOT / path).read_text(encoding="utf-8").splitlines()]
    at = 0
    for wanted in (ln.strip() for ln in code.splitlines() if ln.strip()):
        try:
            at = source.index(wanted, at) + 1
        except ValueError:
            pytest.fail(f"{_page_id(page)}:{line} quotes {path}, which no longer has (in this order): {wanted!r}")
