"""The array/index/scatter/random/loss/optimizer ops against MindSpore 2.10's goldens inside `msx.jit`.

tests/test_oracle.py checks every case eagerly (values, dtypes, gradients); here each case of
tests/oracle/cases_array.py runs, under one of the capture modes in turn, as a jitted function of its tensor
inputs (the Python arguments are constants of the program) and must give MindSpore's values and dtypes again. Ops whose result shape depends
on the values (`nonzero`, `masked_select`, `Segment*`) must refuse, naming why, unless the capture mode reads
the values and guards the compiled graph on them (bytecode, trace).
"""
import numpy as np
import pytest

import msx
from oracle.cases_array import EAGER_ONLY, IDS
from oracle.msx_side import ARRAYS, BY_ID, GOLDEN, MSX, stored_inputs
from oracle.runner import build_args, callable_for, outputs_of

MODES = ("ast", "bytecode", "trace")


def _jitted(case, inputs, mode):
    """(jitted function of the tensor inputs, those tensors)."""
    fn = callable_for(MSX, case)
    args = build_args(MSX, case, inputs)
    tensors, where = [], []
    for i, a in enumerate(args):
        if isinstance(a, msx.Tensor):
            where.append((i, None))
            tensors.append(a)
        elif isinstance(a, list) and a and all(isinstance(t, msx.Tensor) for t in a):
            where.append((i, len(a)))
            tensors.extend(a)

    def program(*ts):
        full, it = list(args), iter(ts)
        for i, n in where:
            full[i] = next(it) if n is None else [next(it) for _ in range(n)]
        return fn(*full)

    return msx.jit(program, capture_mode=mode), tensors


# each case under one capture mode, the modes taking turns along the table (every mode sees every kind of op;
# a compile per case and mode is what this file costs, and CI runs the suite on two cores)
PAIRS = [(case_id, MODES[i % len(MODES)]) for i, case_id in enumerate(IDS)]


@pytest.mark.parametrize("case_id,mode", PAIRS, ids=[f"{c}-{m}" for c, m in PAIRS])
def test_jit_matches_mindspore(case_id, mode):
    entry = GOLDEN["cases"].get(case_id)
    assert entry is not None, "no golden: run tools/record_goldens.py"
    if "error" in entry:
        pytest.skip(f"MindSpore 2.10 CPU cannot run this case: {entry['error'][:100]}")
    case = BY_ID[case_id]
    program, tensors = _jitted(case, stored_inputs(case_id), mode)
    if case_id in EAGER_ONLY:  # ast refuses; bytecode/trace may read the values and guard the graph on them
        try:
            result = program(*tensors)
        except Exception as exc:  # noqa: BLE001  (the message is what is checked)
            assert "depends on the input values" in str(exc) or "only known when the graph runs" in str(exc), exc
            return
    else:
        result = program(*tensors)
    outs = outputs_of(MSX, tensors if case.written else result)  # in-place ops: what they wrote into the inputs
    assert [d for _, d in outs] == entry["dtypes"], "output dtypes differ from MindSpore's"
    for i, (got, _) in enumerate(outs):
        want = ARRAYS[f"{case_id}/out{i}"]
        assert got.shape == want.shape, f"output {i}: shape {got.shape} != MindSpore's {want.shape}"
        np.testing.assert_allclose(got, want, rtol=case.rtol, atol=case.atol, err_msg=f"output {i}")
