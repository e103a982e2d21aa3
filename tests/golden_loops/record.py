"""Record MindSpore 2.10's answers to tests/golden_loops/loop_cases.py (run once, and whenever the cases change):

    /work/main/.venv-ms/bin/python tests/golden_loops/record.py

Writes tests/golden_loops/loops_ms210.json (plain JSON, atomically). tests/test_loop_ops.py and
tests/test_debug_ops.py read only that file: the main suite never needs MindSpore.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mindspore as ms  # noqa: E402
from mindspore import nn, ops  # noqa: E402

import loop_cases as C  # noqa: E402

OUT = os.path.join(HERE, "loops_ms210.json")


def encode(x):
    """A result tree as JSON: a Tensor is {"value", "dtype"}, containers keep their kind."""
    if isinstance(x, ms.Tensor):
        return {"value": x.asnumpy().tolist(), "dtype": str(x.dtype)}
    if isinstance(x, (list, tuple)):
        return {"list" if isinstance(x, list) else "tuple": [encode(v) for v in x]}
    if isinstance(x, dict):
        return {"dict": {k: encode(v) for k, v in x.items()}}
    if isinstance(x, (bool, int, float)):
        return {"number": x}
    raise TypeError(type(x))


def _try(fn):
    try:
        return fn()
    except Exception as exc:  # MindSpore refuses it: record the refusal
        traceback.print_exc(limit=1)
        return {"error": f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:200]}"}


def _stdout_of(fn) -> tuple[str, str]:
    """(what fn printed on file descriptor 1, the error it raised) — MindSpore's kernels print from C++."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+") as f:
        os.dup2(f.fileno(), 1)
        error = ""
        try:
            fn()
        except Exception as exc:  # noqa: BLE001
            error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0]}"
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        f.seek(0)
        return f.read(), error


def _files(root: str) -> dict:
    found = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            path = os.path.join(dirpath, n)
            a = np.load(path)
            found[os.path.relpath(path, root)] = {"value": a.tolist(), "dtype": str(a.dtype)}
    return found


def _morph():
    m = ops.Morph(C._mfn, C._mshape, C._mdtype, C._mbprop)
    m_plain = ops.Morph(C._mfn, C._mshape, C._mdtype)

    class Net(nn.Cell):
        def __init__(self, op):
            super().__init__()
            self.op = op

        def construct(self, x):
            return self.op(x * 2)

    ms.set_context(mode=ms.GRAPH_MODE)
    x = ms.Tensor(C.X)
    out = {"value": encode(Net(m)(x)), "grad": encode(ms.grad(Net(m))(x)),
           "grad_no_bprop": encode(ms.grad(Net(m_plain))(x))}
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out["eager"] = _try(lambda: m(x))
    return out


def _graph(f):
    def run(v):
        return f(ms, v)
    return run


def main() -> None:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU", pynative_synchronize=True)  # Assert raises at its call
    warnings.simplefilter("ignore")
    x = lambda: ms.Tensor(C.X)  # noqa: E731
    result = {"values": {f.__name__: _try(lambda: encode(f(ms, x()))) for f in C.VALUES},
              "jit_values": {f.__name__: _try(lambda: encode(ms.jit(_graph(f))(x())))
                             for f in C.VALUES if f is not C.while_python},
              "grads": {f.__name__: _try(lambda: encode(ms.grad(lambda v: f(ms, v))(x())))
                        for f in C.GRADS + C.DEBUG_GRADS}}
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as root:
        os.chdir(root)
        try:
            t = x()
            ops.tensordump("a", t)
            ops.TensorDump()("b.npy", t * 2)
            ops.tensordump("sub/c", t.astype(ms.int32), "in")
            ops.tensordump("bf", t.astype(ms.bfloat16))
            result["dump_gradient"] = {"grad": encode(C.dump_gradient(ms, x()))}
            ms.runtime.synchronize() if hasattr(ms, "runtime") else None
            result["dumps"] = _files(root)
        finally:
            os.chdir(cwd)
    result["dump_errors"] = {
        "mode_all": _try(lambda: ops.tensordump("z", x(), "all")),
        "mode_bad": _try(lambda: ops.tensordump("z", x(), "bad")),
        "file_int": _try(lambda: ops.tensordump(3, x())),
    }
    data = [x() * 0.75, ms.Tensor(np.array([4, 5, 6], np.int32)), ms.Tensor(np.array([[1.5, 2.5], [3, 4]], np.float16))]
    printed, error = _stdout_of(lambda: (ops.Assert(summarize=2)(ms.Tensor(False), data),))
    result["assert"] = {"printed": printed, "error": error,
                        "ok": encode(ops.Assert()(ms.Tensor(True), [x()])),
                        "two_elements": _try(lambda: ops.Assert()(ms.Tensor([True, True]), [x()])),
                        "float_condition": _try(lambda: ops.Assert()(ms.Tensor(1.0), [x()]))}
    result["pyfunc"] = encode(C.pyfunc(ms, x()))
    result["pyfunc_grad"] = _try(lambda: ms.grad(lambda v: C.pyfunc(ms, v)[0].sum())(x()))
    result["morph"] = _morph()
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    os.replace(tmp, OUT)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
