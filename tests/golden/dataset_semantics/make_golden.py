"""Record MindSpore 2.10's answers to tests/golden/dataset_semantics/semantics_cases.py as golden data.

    /work/main/.venv-ms/bin/python tests/golden/dataset_semantics/make_golden.py

Writes ms210.json beside this file (no pickle); tests/test_dataset_semantics.py runs the same cases on msx.
"""
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import semantics_cases as cases  # noqa: E402

import mindspore.dataset as ds  # noqa: E402


def run(case, tmp):
    try:
        result = case(ds, tmp)
        if isinstance(result, ds.Dataset):  # built without error: MindSpore's error (if any) comes at iteration
            result = cases.rows(result)
        return {"result": result}
    except Exception as exc:  # noqa: BLE001 — recorded: msx must raise the same kind
        kind = next(k for k in (TypeError, ValueError, RuntimeError, KeyError, IndexError, AttributeError, Exception)
                    if isinstance(exc, k))
        return {"error": kind.__name__, "message": str(exc)[:300]}


def main():
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(n for n in dir(cases) if n.startswith("case_")):
            out[name[5:]] = run(getattr(cases, name), tmp)
    with open(os.path.join(HERE, "ms210.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print({k: ("error " + v["error"]) if "error" in v else "ok" for k, v in out.items()})


if __name__ == "__main__":
    main()
