"""The differential fuzzer's fixed-seed budget for CI: random programs with state changed between calls,
eager against every jit configuration, no mismatch allowed (long runs: `python -m tests.fuzz.differential
--hours N`)."""
import numpy as np

import differential as D


def test_every_jit_configuration_is_exercised():
    assert len(D.CONFIGS) == 12  # capture modes x jit levels x backends


def test_random_programs_with_state_changes_agree_with_eager():
    stats = D.fuzz(programs=24, seed=20261201, configs_per_program=2)
    assert stats["programs"] == 24 and stats["comparisons"] > 120
    assert stats["mismatches"] == []


def test_the_fuzzer_catches_a_stale_graph(monkeypatch):
    """The oracle works: with the runtime's state guards switched off, the same budget finds mismatches."""
    from msx.runtime.python_guards import StateGuards

    monkeypatch.setattr(StateGuards, "holds", lambda self: True)
    case = D.Case(7, ("dense", "attr"), False, [(None, 2), ("attr", 2)])
    assert D.compare(case, [("ast", "O0", "cpu")]) != []


def test_the_fuzzer_catches_a_lost_alias_and_an_unguarded_config_object(monkeypatch):
    """The generators of issue 30's findings work: with the alias bookkeeping, or the guards of a standard-library
    config object's attributes, switched off, their programs mismatch."""
    from msx.capture import reads
    from msx.capture.builder import GraphBuilder

    alias = D.Case(11, ("alias_while",), False, [(None, 2)])
    config = D.Case(12, ("ns_cfg",), False, [(None, 2), ("ns_cfg", 2)])
    assert D.compare(alias, [("ast", "O0", "cpu")]) == [] and D.compare(config, [("ast", "O0", "cpu")]) == []
    monkeypatch.setattr(GraphBuilder, "may_alias", lambda self, a, b, when: None)
    monkeypatch.setattr(reads, "is_stored_attribute", lambda obj, name: False)
    assert D.compare(alias, [("ast", "O0", "cpu")]) != []
    assert D.compare(config, [("ast", "O0", "cpu")]) != []



def test_an_ill_conditioned_program_is_judged_against_float64(monkeypatch):
    """Seed 1903049400 with a batch of 8 (BatchNorm of columns that agree to 1e-3, trained 3 steps): eager
    float32 itself is off the float64 answer beyond the fuzzer's tolerance, so a jit result as far off is
    rounding (said so, not counted); one off by more than ROUNDING_FACTOR times that is still a mismatch
    (unless the graph run in float64 shows it is rounding: switched off here, where the outputs are made up)."""
    import dataclasses

    import numpy as np

    case = D.make_case(1903049400)
    case = dataclasses.replace(case, schedule=[(m, 8) for m, _ in case.schedule])
    eager, exact = D.run(case, None), D.run(case, None, np.float64)
    assert not all(D._close(b, e) for b, e in zip(eager, exact))  # ill-conditioned: float32 eager is off
    as_far = [e + 3 * (b - e) for b, e in zip(eager, exact)]
    stale = [b + 0.05 * (i == 6) for i, b in enumerate(eager)]  # one weight matrix off by a step's size
    monkeypatch.setattr(D, "_graph_agrees_in_float64", lambda case, config, exact: False)
    assert D.only_rounding(case, ("ast", "O0", "cpu"), as_far, eager)
    assert not D.only_rounding(case, ("ast", "O0", "cpu"), stale, eager)


def test_a_chaotic_program_is_judged_by_its_graph_in_float64(monkeypatch):
    """Seed 1905051657 (SGD with momentum on sin of a doubled Dense chain, a write into the input): float32
    rounding grows without bound (eager float32 ends 0.5 off the float64 weights, jit float32 0.9 off), so
    the fuzzer runs the same graph in float64, where it equals eager; with the guards off, a changed config
    object still makes it a mismatch in float64 too."""
    import dataclasses

    from msx.runtime.python_guards import StateGuards

    case = dataclasses.replace(D.make_case(1905051657), schedule=[(None, 2), ("ns_cfg", 2), (None, 2), (None, 2)])
    assert D.compare(case, [("ast", "O0", "cpu")]) == []
    monkeypatch.setattr(StateGuards, "holds", lambda self: True)
    assert D.compare(case, [("ast", "O0", "cpu")]) != []


def test_a_program_whose_exact_gradients_are_zero_is_judged_in_float64():
    """Seed 1906051824 (training-mode BatchNorm of a batch of 2, whose gradients upstream are 0 exactly and
    float32 noise in practice, then eval mode): eager float32 lands near float64 by luck, but inputs 32 ulps
    apart move it 9e-4, as far as the compiled step is off; the graph in float64 equals eager float64."""
    case = D.make_case(1906051824)
    # whether eager float32 moves beyond the tolerance under a 32-ulp nudge depends on the machine's numpy and
    # XLA code generation (on a fresh machine of 2026-12-04 it did not, and the judge then counted the
    # ill-conditioned gradients as a mismatch): what holds everywhere is that the compiled graph, run in
    # float64, equals eager float64
    exact = D.run(case, None, np.float64)
    assert D._graph_agrees_in_float64(case, ("bytecode", "O1", "cpu"), exact)
