"""Write the public names of real MindSpore 2.10 to `msx/tools/mindspore_names.json` (facts, generated once).

It also writes `tests/oracle/mindspore_signatures.json`: the signature of every public function and class
(`(init args) -> (call args)`) of the main modules, which tests use to check msx's argument names.

Run it in the MindSpore venv, never in msx's environment (MindSpore needs numpy<2):

    /work/.venv-ms/bin/python tools/dump_mindspore_names.py

A module's public names are `dir(module)` without leading underscores and without submodules (a submodule
is counted as a module of its own when it is listed below); a class's public names are its attributes
without leading underscores. The JSON is sorted so that a re-run shows a readable diff.
"""
from __future__ import annotations

import importlib
import inspect
import json
import os
import sys

MODULES = ["mindspore", "mindspore.common", "mindspore.common.dtype", "mindspore.common.initializer",
           "mindspore.ops", "mindspore.ops.functional", "mindspore.ops.operations", "mindspore.ops.composite",
           "mindspore.nn", "mindspore.mint", "mindspore.mint.nn", "mindspore.mint.nn.functional",
           "mindspore.train", "mindspore.amp", "mindspore.experimental.optim", "mindspore.numpy",
           "mindspore.dataset", "mindspore.dataset.vision", "mindspore.dataset.text", "mindspore.dataset.audio",
           "mindspore.dataset.transforms", "mindspore.mindrecord", "mindspore.parallel", "mindspore.parallel.nn",
           "mindspore.communication", "mindspore.mint.distributed"]
CLASSES = {"mindspore.Tensor": ("mindspore", "Tensor"), "mindspore.nn.Cell": ("mindspore.nn", "Cell")}
OUT = os.path.join(os.path.dirname(__file__), "..", "msx", "tools", "mindspore_names.json")
SIGNATURES = os.path.join(os.path.dirname(__file__), "..", "tests", "oracle", "mindspore_signatures.json")
SIGNED = ["mindspore", "mindspore.ops", "mindspore.mint", "mindspore.mint.nn.functional", "mindspore.nn"]


def public(obj, drop_modules: bool) -> list[str]:
    names = []
    for name in dir(obj):
        if name.startswith("_"):
            continue
        if drop_modules and inspect.ismodule(getattr(obj, name, None)):
            continue
        names.append(name)
    return sorted(names)


def signature_of(obj) -> str | None:
    """`(input, other)` for functions; `(keep_dims=False) -> (x, axis=())` for classes (init -> call)."""
    try:
        if inspect.isclass(obj):
            init = str(inspect.signature(obj.__init__)).replace("(self, ", "(").replace("(self)", "()")
            call = getattr(obj, "__call__", None)
            own = any("__call__" in vars(k) for k in obj.__mro__[:-1] if k.__module__.startswith("mindspore"))
            if call is not None and own:
                return init + " -> " + str(inspect.signature(call)).replace("(self, ", "(").replace("(self)", "()")
            return init
        if callable(obj):
            return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return None
    return None


def write_json(path: str, table: dict) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def main() -> None:
    import mindspore

    table = {"mindspore_version": mindspore.__version__, "modules": {}}
    for mod in MODULES:
        table["modules"][mod] = public(importlib.import_module(mod), drop_modules=True)
    for key, (mod, cls) in CLASSES.items():
        table["modules"][key] = public(getattr(importlib.import_module(mod), cls), drop_modules=False)
    write_json(OUT, table)
    signatures = {}
    for mod in SIGNED:
        m = importlib.import_module(mod)
        for name in table["modules"][mod]:
            sig = signature_of(getattr(m, name))
            if sig is not None:
                signatures[f"{mod}.{name}"] = sig
    write_json(SIGNATURES, {"mindspore_version": mindspore.__version__, "signatures": signatures})
    counts = ", ".join(f"{m} {len(v)}" for m, v in table["modules"].items())
    print(f"wrote {os.path.normpath(OUT)}: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
