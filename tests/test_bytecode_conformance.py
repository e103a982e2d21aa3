"""capture_mode="bytecode" on the shared conformance table (tests/conformance_programs.py), gradients included.

Bytecode capture splits where ast builds graph control flow: a branch or loop
condition on a tensor's value is a graph break (the graphs before and after
run, Python decides the branch), as are `print` and the Python side effects
the ast table expects to break. It also captures whole what ast cannot (`try`,
generators). Every program still gives eager's results, Parameters and
gradients; where the graph breaks, `fullgraph=True` names the reason and the
user's line.
"""
import warnings

import numpy as np
import pytest

import conformance_programs as C
import msx

TENSOR_BRANCH = "depends on a tensor's value"

# programs ast captures as one graph that bytecode splits: the reason its error must name
BREAKS = {
    "tensor_if_else": TENSOR_BRANCH, "tensor_if_elif_else": TENSOR_BRANCH, "tensor_if_without_else": TENSOR_BRANCH,
    "tensor_return_inside_branch": TENSOR_BRANCH, "tensor_returns_in_both_branches": TENSOR_BRANCH,
    "tensor_if_in_nested_function": TENSOR_BRANCH, "tensor_if_with_and_not": TENSOR_BRANCH,
    "tensor_conditional_expression": TENSOR_BRANCH, "tensor_if_number_becomes_tensor": TENSOR_BRANCH,
    "tensor_if_writes_a_parameter": TENSOR_BRANCH, "while_tensor_condition": TENSOR_BRANCH,
    "while_writes_a_parameter": TENSOR_BRANCH, "while_with_if_inside": TENSOR_BRANCH,
    "for_over_tensor_with_if_inside": TENSOR_BRANCH, "train_mode_batchnorm_dropout": TENSOR_BRANCH,
    "training_step_with_cond": TENSOR_BRANCH,
    "assigned_in_one_branch": TENSOR_BRANCH,
    "print_and_ops_print": "formatting a tensor into a string",   # (print itself is a Print node)
}
# the ast table's graph breaks, with bytecode's own reason (None: bytecode captures the whole program)
AST_BREAKS = {
    "uses_try": None, "calls_a_generator": None,
    "uses_with": r"warnings\.catch_warnings\(\)", "writes_a_global": "assigning the global",
    "python_value_of_a_tensor": r"float\(\) needs the value of a tensor",
    "numpy_value_of_a_tensor": r"Tensor\.asnumpy\(\) needs the value", "break_on_a_tensor": TENSOR_BRANCH,
    "branch_shapes_differ": TENSOR_BRANCH,
    "recursion_on_a_tensor": TENSOR_BRANCH, "appends_to_a_global_list": r"list\.append\(\) changes global",
    "grad_through_a_data_dependent_while": TENSOR_BRANCH, "attribute_write": r"setting \.calls changes self",
    "list_grows_in_a_tensor_loop": TENSOR_BRANCH,
}


def _bytecode_expectation(program: C.Program) -> tuple[str, str | None]:
    if program.name in BREAKS:
        return "graph-breaks", BREAKS[program.name]
    if program.name in AST_BREAKS:
        reason = AST_BREAKS[program.name]
        return ("matches", None) if reason is None else ("graph-breaks", reason)
    return program.expect, program.match


@pytest.mark.parametrize("program", C.PROGRAMS, ids=[p.name for p in C.PROGRAMS])
def test_conformance(program):
    expect, reason = _bytecode_expectation(program)
    if expect in ("matches", "raises"):
        if expect == "matches" and program.expect == "graph-breaks":   # captured whole although ast breaks
            program = C.Program(program.name, program.make, program.inputs, calls=program.calls, grad=program.grad)
        C.check(program, "bytecode")
        return
    arg_sets = C._arg_sets(program)
    with pytest.raises(msx.errors.CaptureError, match=reason) as info:
        C._run(program, {"capture_mode": "bytecode", "fullgraph": True}, arg_sets[:1])
    error = info.value
    assert error.stage == "capture: bytecode", error.stage
    assert error.loc is not None and error.loc.file.endswith("conformance_programs.py"), str(error)
    if reason == TENSOR_BRANCH:   # the `if`/`while` whose condition is a tensor
        assert error.loc.end_col is not None and "if " in str(error) or "while " in str(error), str(error)
    elif program.expect == "graph-breaks":   # the line the table marks is where bytecode breaks too
        assert error.loc.line == C.marked_line(program.name, "breaks"), str(error)
    eager_outs, eager_state, _ = C._run(program, None, arg_sets)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a graph break is not a fallback: no warning
        outs, state, run = C._run(program, {"capture_mode": "bytecode"}, arg_sets)
    for k, (e, c) in enumerate(zip(eager_outs, outs)):
        C.assert_same(e, c, f"{program.name}, call {k}")
    for k, (e, c) in enumerate(zip(eager_state, state)):
        np.testing.assert_allclose(c, e, rtol=1e-5, atol=1e-5, err_msg=f"{program.name}: parameter {k}")
    if program.grad is not None:
        _check_grads_across_breaks(program, arg_sets)


def _check_grads_across_breaks(program: C.Program, arg_sets: list) -> None:
    """The gradient of a function with a graph break: autodiff runs the differentiated function in Python
    (a break inside it breaks the `value_and_grad` call) and must still agree with eager."""
    def value_and_grads(jit_kwargs):
        msx.set_seed(1234)
        fn = program.make()
        grad_fn = msx.value_and_grad(lambda *args: C._float_sum(fn(*args)), grad_position=program.grad)
        run = msx.jit(grad_fn, **jit_kwargs) if jit_kwargs is not None else grad_fn
        return [run(*args) for args in arg_sets]

    for k, (e, c) in enumerate(zip(value_and_grads(None), value_and_grads({"capture_mode": "bytecode"}))):
        C.assert_same(e, c, f"{program.name}: value and grads, call {k}", tol=1e-4)
