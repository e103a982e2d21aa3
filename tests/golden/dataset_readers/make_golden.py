"""Record MindSpore 2.10's rows for tests/golden/dataset_readers/reader_cases.py (each reader on a tiny fake copy of its
layout) as ms210.json.

    /work/main/.venv-ms/bin/python tests/golden/dataset_readers/make_golden.py
"""
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reader_cases as cases  # noqa: E402

import mindspore.dataset as ds  # noqa: E402


def main():
    out = {}
    for name in sorted(n for n in dir(cases) if n.startswith("case_")):
        with tempfile.TemporaryDirectory() as tmp:
            try:
                out[name[5:]] = {"result": getattr(cases, name)(ds, tmp)}
            except Exception as exc:  # noqa: BLE001 — recorded: msx must refuse it too
                out[name[5:]] = {"error": type(exc).__name__, "message": str(exc)[:400]}
    with open(os.path.join(HERE, "ms210.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    print({k: v.get("error", "ok") for k, v in out.items()})


if __name__ == "__main__":
    main()
