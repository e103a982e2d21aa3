"""Regenerate the examples of docs/errors.md: one real msx error per stage, as msx prints it.

    JAX_PLATFORMS=cpu python tools/errors_doc.py            # prints the examples
    JAX_PLATFORMS=cpu python tools/errors_doc.py --write    # rewrites docs/errors.md between its markers

Each example is a small program run for real here; what it raises is printed with `str(err)`: the stage, the
message and the user's underlined line. The programs are written to a temporary `train.py` so the underlined
lines read as they would in a user's script.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "errors.md"
BEGIN, END = "<!-- examples: begin (tools/errors_doc.py) -->", "<!-- examples: end -->"

PRELUDE = """\
import os, warnings
import numpy as np
import msx as ms
from msx import nn, ops, Tensor
warnings.simplefilter("ignore")
"""

EXAMPLES = [
    ("capture", "A graph cannot be built: `fullgraph=True` asks for the whole function, and a tensor's value is "
                "needed in Python.", """\
@ms.jit(capture_mode="ast", fullgraph=True)
def step(x):
    scale = float(x.sum())
    return x * scale

step(Tensor(np.ones((2, 3), np.float32)))
"""),
    ("capture", "An op refuses its inputs while the graph is captured: the shapes are known, so jit says so before "
                "compiling.", """\
@ms.jit(capture_mode="trace")
def forward(x, w):
    h = ops.matmul(x, w)
    return ops.relu(h)

forward(Tensor(np.ones((2, 5), np.float32)), Tensor(np.ones((4, 3), np.float32)))
"""),
    ("passes", "A user pass breaks the graph: the verifier names the pass and the node's line.", """\
from dataclasses import replace
from msx.passes import Pass, register_custom_pass

class AddToMatMul(Pass):
    def run(self, graph):
        nodes = [replace(n, op="MatMul") if n.op == "Add" else n for n in graph.nodes]
        return replace(graph, nodes=nodes)

ms.set_context(verify_passes="full")
register_custom_pass(AddToMatMul(), backend="all")

@ms.jit(capture_mode="trace")
def f(x, y):
    return x + y

f(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 3), np.float32)))
"""),
    ("backend", "The graph cannot fit in the device's memory: refused before XLA compiles it.", """\
@ms.jit(capture_mode="ast")
def outer(a, b):
    return ops.matmul(a, b)

outer(Tensor(np.ones((300000, 1), np.float32)), Tensor(np.ones((1, 300000), np.float32)))
"""),
    ("run", "An eager (PyNative) call: a label outside [0, C) for a loss.", """\
loss_fn = nn.CrossEntropyLoss()
logits = Tensor(np.zeros((2, 4), np.float32))
labels = Tensor(np.array([1, 5], np.int32))
loss = loss_fn(logits, labels)
"""),
    ("run", "A layer given the wrong input shape.", """\
net = nn.SequentialCell([nn.Dense(5, 3), nn.ReLU()])
out = net(Tensor(np.ones((8, 4), np.float32)))
"""),
    ("load", "A damaged file: refused before anything in it runs.", """\
net = nn.Dense(4, 2)
path = ms.export(net, Tensor(np.ones((1, 4), np.float32)), file_name="net")
data = bytearray(open(path, "rb").read())
data[len(data) // 2] ^= 0xFF
open(path, "wb").write(bytes(data))
graph = ms.load(path)
"""),
]

RUNNER = """\
import sys
try:
    exec(compile(open(sys.argv[1]).read(), "train.py", "exec"), {"__name__": "__main__"})
except Exception as err:
    print(type(err).__name__)
    print(err)
else:
    print("NO ERROR")
"""


def run_example(body: str) -> tuple[str, str]:
    """Run `body` as train.py in a fresh process; (error class, how msx printed it)."""
    with tempfile.TemporaryDirectory() as tmp:
        script = pathlib.Path(tmp, "train.py")
        script.write_text(PRELUDE + body)
        runner = pathlib.Path(tmp, "runner.py")
        runner.write_text(RUNNER)
        env = dict(os.environ, JAX_PLATFORMS=os.environ.get("JAX_PLATFORMS", "cpu"),
                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        out = subprocess.run([sys.executable, str(runner), "train.py"], cwd=tmp, env=env, capture_output=True,
                             text=True, timeout=600)
        if out.returncode:
            raise RuntimeError(f"example crashed:\n{out.stderr[-2000:]}")
        name, _, printed = out.stdout.strip().partition("\n")
        return name, printed.replace(tmp + "/", "")


def render() -> str:
    """The section: the prelude every example runs after, then each example (marked with the error it raises,
    which `tests/test_docs_blocks.py` checks) and what msx printed."""
    parts = [f"Each example runs after this prelude:\n\n```python\n{PRELUDE.rstrip()}\n```\n"]
    for stage, what, body in EXAMPLES:
        name, printed = run_example(body)
        if name == "NO ERROR":
            raise RuntimeError(f"the {stage} example raised nothing:\n{body}")
        parts.append(f"**{stage}** — {what}\n\n<!-- raises: {name} -->\n```python\n{body.rstrip()}\n```\n\n"
                     f"`{name}`:\n\n```text\n{printed.rstrip()}\n```\n")
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite docs/errors.md between its markers")
    examples = render()
    if not parser.parse_args().write:
        print(examples)
        return
    doc = DOC.read_text()
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{BEGIN}\n{examples}\n{END}{tail}")


if __name__ == "__main__":
    main()
