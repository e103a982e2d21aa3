"""Record MindSpore 2.10's answers to tests/golden_sem/cases.py (run once, and whenever cases change):

    /work/.venv-ms/bin/python tests/golden_sem/record.py

Writes tests/golden_sem/semantics_ms210.json (plain JSON, atomically). tests/test_semantics_ms.py reads only
that file: the main suite never needs MindSpore.
"""
from __future__ import annotations

import json
import os
import sys
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mindspore as ms  # noqa: E402

import cases as C  # noqa: E402

OUT = os.path.join(HERE, "semantics_ms210.json")


def _try(fn):
    try:
        return fn()
    except Exception as exc:  # MindSpore refuses it: record the refusal
        traceback.print_exc(limit=1)
        return {"error": f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:200]}"}


def main() -> None:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    warnings.simplefilter("ignore")
    promo = {}
    for op, (fn, kinds) in C.PROMO_OPS.items():
        for dt in C.PROMO_DTYPES:
            for name, make in C.PROMO_SCALARS.items():
                if kinds is None or type(make()) in kinds:
                    promo[f"{op}|{dt}|{name}"] = _try(lambda: C.to_json(ms, fn(C.promo_tensor(ms, dt), make())))
    casts = {f"{src}->{dst}": C.cast_input(ms, src).astype(getattr(ms, dst)).asnumpy().tolist()
             for src in C.CAST_SOURCES for dst in C.CAST_TARGETS}
    cells = C.bprop_cells(ms)
    data = {
        "mindspore": ms.__version__,
        "promotion": promo,
        "casts": casts,
        "int_grads": {name: _try(lambda: C.int_grad_case(ms, name)) for name in C.INT_GRADS},
        "int_value_and_grad": C.int_value_and_grad(ms),
        "int_grad_operation": C.int_grad_operation(ms),
        "bprop": {name: _try(lambda: fn(ms, lambda f: f, cells)) for name, fn in C.BPROP.items()},
        "amp_levels": C.amp_levels(ms),
        "amp_lists": C.amp_lists(ms),
    }
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(tmp, OUT)
    print(f"wrote {OUT}: {len(promo)} promotion cases, {len(casts)} cast rows")


if __name__ == "__main__":
    main()
