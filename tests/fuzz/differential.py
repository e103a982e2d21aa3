"""A differential fuzzer: random small msx programs, run eagerly and under jit, with Python state changed
between calls; every call's output and the final Parameters must agree.

A program is a Cell whose `construct` chains random steps over its input — Dense, BatchNorm, Dropout, a
sub-Cell activation, a loop over a `CellList`, products with a module global, a config object's attribute
(a user class, `types.SimpleNamespace`, `argparse.Namespace`, a dataclass, a class from a module not in
`sys.modules`; global or held by the Cell), a Cell attribute, a closure variable, a global Tensor, a branch on a
tensor's value, writes into the input through an alias across a tensor `if`/`while`, a `CellList` indexed by a
tensor (MindSpore's switch_layer: one `Case` node under jit) — optionally inside a
`value_and_grad` training step with an optimizer (the input then is written inside the differentiated
function). Every call's output and the caller's input after it are compared. A *schedule* of calls mutates state between them: training flags (whole net or one
sub-Cell), globals (incl. `-0.0`), attributes, sub-Cell swaps, `CellList.append`, `requires_grad`,
`set_data`, a global Tensor written in place, a new batch size, config objects' attributes. The same program and schedule run once
eagerly and once per jit configuration (capture mode × jit_level × backend), each from the same seed, so
random ops draw the same masks.

    python -m tests.fuzz.differential --programs 200 --seed 0      # a fixed budget
    python -m tests.fuzz.differential --hours 2                     # a long run

Prints programs, comparisons and mismatches (with the program's seed to reproduce it).
"""
from __future__ import annotations

import argparse
import dataclasses
import faulthandler
import random
import resource
import time
import types
import warnings
from dataclasses import dataclass, field

import numpy as np

import msx
from msx import nn, ops
from msx.capture import CAPTURE_MODES

T = msx.Tensor
CONFIGS = [(mode, level, backend) for mode in ("ast", "trace", "bytecode") if mode in CAPTURE_MODES
           for level in ("O0", "O1") for backend in ("cpu", "ascend")]

# module-level state the generated programs read (what users edit between two calls in a notebook)
GLOBALS = {"scale": 1.5}
SCALE = 1.5
OFFSET = T(np.full((1, 4), 0.25, np.float32))


class Config:
    def __init__(self) -> None:
        self.shift = 0.5


CFG = Config()


@dataclasses.dataclass
class DataConfig:
    factor: float = 1.25


_UNREGISTERED: dict = {"__name__": "fuzz_config_not_in_sys_modules"}   # a config file loaded with exec
exec("class LoadedConfig:\n    def __init__(self):\n        self.factor = 1.25\n", _UNREGISTERED)  # noqa: S102
# config objects of every origin a user's come from (issue 30.3): the program holds one as `self.cfg`
CONFIGS_HELD = {"user": Config(), "namespace": types.SimpleNamespace(factor=1.25),
                "argparse": argparse.Namespace(factor=1.25), "dataclass": DataConfig(),
                "unregistered": _UNREGISTERED["LoadedConfig"]()}
NS = types.SimpleNamespace(shift=0.5)   # a global config object of a standard-library class
STEP_KINDS = ("dense", "bn", "dropout", "act", "loop", "scale_global", "dict_global", "cfg", "attr", "closure",
              "offset", "divide", "branch", "ns_cfg", "held_cfg", "alias_if", "alias_while", "alias_write")
SWITCH_SHARE = 0.2  # programs that also call a CellList indexed by a tensor; drawn from a stream of their own, so
#                    the programs of earlier seeds (pinned in tests/fuzz/test_differential.py) stay as they were
VMAP_SHARE = 0.2  # programs that also map a per-row function with msx.vmap (a `Vmap` node under jit), from a third
#                  stream: the row function reads a Dense's Parameters, an attribute and a global
MUTATIONS = ("train", "sub_train", "scale", "neg_zero", "dict", "cfg", "attr", "swap", "append", "freeze",
             "set_data", "offset", "batch", "closure", "ns_cfg", "held_cfg")


def _reset_module_state() -> None:
    global SCALE
    SCALE = 1.5
    GLOBALS["scale"] = 1.5
    CFG.shift = 0.5
    NS.shift = 0.5
    for cfg in CONFIGS_HELD.values():
        cfg.factor = 1.25
    OFFSET._data = T(np.full((1, 4), 0.25, np.float32))._data


class Program(nn.Cell):
    """A random chain of steps (see the module docstring); `k` and `factor` are Python state it reads."""

    def __init__(self, steps: tuple, factor: float, cfg_kind: str = "user") -> None:
        super().__init__()
        self.steps = steps
        self.cfg = CONFIGS_HELD[cfg_kind]
        self.dense = nn.Dense(4, 4)
        self.bn = nn.BatchNorm1d(4)
        self.drop = nn.Dropout(p=0.5)
        self.act = nn.ReLU()
        self.layers = nn.CellList([nn.Dense(4, 4)])
        self.k = 1.25
        closure_factor = factor

        def closure(x):
            return x * closure_factor

        self.closure = closure
        if "switch" in steps:  # built only here, so other programs draw the same initial weights as before
            self.branches = nn.CellList([nn.Tanh(), nn.Dense(4, 4)])
            self.switch_shift = 0

    def construct(self, x):
        for kind in self.steps:
            if kind == "dense":
                x = self.dense(x)
            elif kind == "bn":
                x = self.bn(x)
            elif kind == "dropout":
                x = self.drop(x)
            elif kind == "act":
                x = self.act(x)
            elif kind == "loop":
                for layer in self.layers:
                    x = layer(x)
            elif kind == "scale_global":
                x = x * SCALE
            elif kind == "dict_global":
                x = x * GLOBALS["scale"]
            elif kind == "cfg":
                x = x + CFG.shift
            elif kind == "attr":
                x = x * self.k
            elif kind == "closure":
                x = self.closure(x)
            elif kind == "offset":
                x = x + OFFSET
            elif kind == "ns_cfg":
                x = x + NS.shift
            elif kind == "held_cfg":
                x = x * self.cfg.factor
            elif kind == "alias_write":  # two writes through two names of one tensor (the caller's, first)
                h = x
                h[0, 0] = 0.75
                h = h * 0.5
                x[0, 1] = -0.5
                x = h + x
            elif kind == "alias_if":  # one path keeps the alias, the other rebinds it; then writes through both
                h = x
                if x.sum() > 0.1:
                    h = h * 0.5
                x[0, 1] = -0.5
                h[0, 0] = 0.25
                x = h - x
            elif kind == "alias_while":  # the loop may run no iteration: `h` is still `x` then (issue 30.1)
                h = x
                h[0, 0] = 0.9
                while (h.abs().max() > 2.5) & (h.abs().max() < 1e30):  # bounded: an inf (after `divide`) halves
                    h = h * 0.5                                         # to inf forever (seed 1904049114 hung)
                x[0, 0] = 1.5
                x = h + x
            elif kind == "vmap":  # a per-row function mapped over the batch: Python state read inside the mapped body
                x = msx.vmap(self.per_row)(x)
            elif kind == "switch":  # the index is a tensor: MindSpore's switch_layer (negative after a shift of 2)
                index = ops.cast(x.sum() > 0.1, msx.int32) - self.switch_shift
                x = self.branches[index](x)
            elif kind == "branch":  # a decision on a tensor's value: graph control flow, a guard or a graph break
                if x.sum() > 0.1:  # off 0: the symmetric inputs sum to 0 exactly eagerly, to ~1e-8 in a fused graph
                    x = x * 0.5
                else:
                    x = x - 0.25
            else:
                # SCALE = -0.0 must give -inf where 0.0 gives +inf; the numerator stays in [1, 3], away from the 0
                # that eager rounding can hit exactly (BatchNorm of symmetric inputs) where a fused graph is ~1e-8 off
                x = (ops.tanh(x) + 2.0) / SCALE
        return x

    def per_row(self, row):
        """One row of the batch (vmap's body): the Dense's Parameters, `k` and SCALE, which mutations change."""
        return ops.tanh(self.dense(row.reshape(1, 4)).reshape(4)) * self.k + SCALE


def _set_cell(fn, value: float) -> None:
    fn.__closure__[0].cell_contents = value


@dataclass
class Case:
    seed: int
    steps: tuple
    train_step: bool
    schedule: list = field(default_factory=list)   # (mutation or None, batch size)
    cfg_kind: str = "user"                          # which config object the program holds (CONFIGS_HELD)


def make_case(seed: int) -> Case:
    rng = random.Random(seed)
    steps = tuple(rng.choice(STEP_KINDS) for _ in range(rng.randint(2, 6)))
    if "dense" not in steps and rng.random() < 0.5:
        steps = ("dense",) + steps
    schedule = [(None, 2)]
    batch = 2
    for _ in range(rng.randint(2, 4)):
        mutation = rng.choice(MUTATIONS)
        if mutation == "batch":
            batch = rng.choice((2, 3, 5))
        schedule.append((mutation, batch))
    case = Case(seed, steps, rng.random() < 0.5, schedule, rng.choice(sorted(CONFIGS_HELD)))
    extra = random.Random(seed ^ 0x5F3759DF)
    if extra.random() < SWITCH_SHARE:
        at = extra.randint(0, len(steps))
        case.steps = steps[:at] + ("switch",) + steps[at:]
        at = extra.randint(1, len(schedule))
        case.schedule.insert(at, ("switch", schedule[at - 1][1]))  # a branch swapped, the index shifted
    mapped = random.Random(seed ^ 0x2545F491)
    if mapped.random() < VMAP_SHARE:
        at = mapped.randint(0, len(case.steps))
        case.steps = case.steps[:at] + ("vmap",) + case.steps[at:]
    return case


def _mutate(net: Program, mutation: str | None, rng: random.Random) -> None:
    global SCALE
    if mutation == "train":
        net.set_train(not net.training)
    elif mutation == "sub_train":
        net.drop.set_train(not net.drop.training)
    elif mutation == "scale":
        SCALE = rng.choice((0.5, 2.0, -1.0))
    elif mutation == "neg_zero":
        SCALE = -0.0 if SCALE != -0.0 else 0.0
    elif mutation == "dict":
        GLOBALS["scale"] = rng.choice((0.25, 3.0))
    elif mutation == "cfg":
        CFG.shift = rng.choice((-1.0, 2.0))
    elif mutation == "attr":
        net.k = rng.choice((0.5, -2.0))
    elif mutation == "swap":
        net.act = rng.choice((nn.Tanh, nn.Sigmoid, nn.ReLU))()
    elif mutation == "append":
        layer = nn.Dense(4, 4)
        for param in layer.get_parameters():   # a float64 run's (`run(..., np.float64)`) new layer is float64 too
            param.set_dtype(net.dense.weight.dtype)
        net.layers.append(layer)
    elif mutation == "freeze":
        net.dense.weight.requires_grad = not net.dense.weight.requires_grad
    elif mutation == "set_data":
        net.dense.bias.set_data(T(np.full((4,), rng.choice((0.1, -0.3)), np.float32)).astype(net.dense.bias.dtype))
    elif mutation == "offset":
        OFFSET[0, 1] = rng.choice((1.0, -2.0))
    elif mutation == "closure":
        _set_cell(net.closure, rng.choice((0.5, -1.5)))
    elif mutation == "ns_cfg":
        NS.shift = rng.choice((-1.0, 2.0))
    elif mutation == "held_cfg":
        net.cfg.factor = rng.choice((0.5, -2.0))
    elif mutation == "switch":
        net.branches[0] = rng.choice((nn.Sigmoid, nn.ReLU, nn.Tanh))()
        net.switch_shift = 2 - net.switch_shift


def run(case: Case, config: tuple | None, dtype: np.dtype = np.float32, nudge: float = 0.0) -> list[np.ndarray]:
    """The outputs of every call and the final Parameters, eagerly (config None) or under one jit config;
    `dtype` float64 gives the exact answer float32's rounding is judged against (eagerly), and a graph's
    semantics apart from float32 rounding (under jit)."""
    _reset_module_state()
    msx.set_seed(case.seed % 2**31)
    net = Program(case.steps, 2.0, case.cfg_kind)
    if dtype != np.float32:
        for param in net.get_parameters():
            param.set_dtype(msx.float64)
    net.set_train(True)
    if case.train_step:
        opt = nn.SGD(net.trainable_params(), 0.05, momentum=0.9)
        # not a plain sum: the sum of a training-mode BatchNorm's output does not depend on its input, so every
        # gradient upstream of it is 0 in exact arithmetic and float32 noise in practice; nor an odd function of
        # it (a batch of 2 normalises to +-c, and sin(c) + sin(-c) is 0 again)
        grad_fn = msx.value_and_grad(lambda x: ops.sin(net(x) + 0.5).sum(), None, opt.parameters)

        def fn(x):
            loss, grads = grad_fn(x)
            opt(grads)
            return loss
    else:
        def fn(x):
            return net(x)
    if config is not None:
        mode, level, backend = config
        options = {"precision_mode": "must_keep_origin_dtype"} if backend == "ascend" else {}
        fn = msx.jit(fn, capture_mode=mode, jit_level=level, backend=backend, **options)
    rng = random.Random(case.seed + 1)
    outputs = []
    for i, (mutation, batch) in enumerate(case.schedule):
        _mutate(net, mutation, rng)
        x = T((np.linspace(-1, 1, batch * 4, dtype=dtype).reshape(batch, 4) * (i + 1) * (1 + nudge)).astype(dtype))
        outputs.append(fn(x).asnumpy())
        outputs.append(x.asnumpy())   # the caller's tensor after the call: writes into it land as eagerly
    outputs += [p.asnumpy() for p in net.get_parameters()]
    _reset_module_state()
    return outputs


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    # float32 rounding of ~10 training steps (BatchNorm, a division by a global) reaches ~2e-5 on values near
    # 0.5; a stale graph (eval-mode BatchNorm, a frozen weight still training, an old global) differs by a
    # whole update, orders of magnitude more
    scale = max(1.0, float(np.max(np.abs(b)))) if b.size else 1.0
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-4, atol=1e-4 * scale, equal_nan=True)


ROUNDING_FACTOR = 10


def only_rounding(case: Case, config: tuple, got: list[np.ndarray], eager: list[np.ndarray]) -> bool:
    """A float32 jit result that differs from float32 eager is rounding, not a stale graph, when the float64
    eager run shows the program ill-conditioned (eager float32 itself is off the float64 answer by over a
    hundred float32 epsilons, `_amplifies_rounding`, or moves beyond the tolerance when its inputs move by 32
    ulps, `_sensitive`) and either

    * jit is within ROUNDING_FACTOR times that distance on every output. Seed 1903049400 (Dense, two
      saturating tanh steps, BatchNorm of a batch whose columns agree to 1e-3, trained 3 steps): eager float32
      is 1e-3 off the float64 weights, msx's jit modes 1e-3 to 3e-3, and hand-written jax differs the same way
      (jax.jit against jax op by op: 1e-4); or
    * the program is chaotic, so float32 rounding grows without a bound: the same jit configuration run in
      float64 gives eager float64's answer (`_graph_agrees_in_float64`). Seed 1905051657 (SGD with momentum
      on sin of a doubled Dense chain): eager float32 is 0.5 off the float64 weights after 4 steps and jit
      float32 0.9, while jit float64 equals eager float64 to the last bit.

    A stale graph (an old global, eval-mode BatchNorm, a lost write) is off by a whole update in float64 as in
    float32, and a well-conditioned program is judged in float32 alone."""
    try:
        exact = run(case, None, np.float64)
    except Exception:  # noqa: BLE001 - a program float64 cannot run stays a mismatch
        return False
    if not any(_amplifies_rounding(b, e) for b, e in zip(eager, exact)) and not _sensitive(case, eager):
        return False
    if all(_within_rounding(a, b, e) for a, b, e in zip(got, eager, exact)):
        return True
    return _graph_agrees_in_float64(case, config, exact)


def _amplifies_rounding(eager: np.ndarray, exact: np.ndarray) -> bool:
    """Eager float32 is over a hundred float32 epsilons (6e-8) off the float64 answer: rounding grows here.
    Seed 1905051246 (ReLU, then BatchNorm of a batch of 5, scaled 5x into sin): eager is 2e-5 off in relative
    terms and a fused jit graph, which sums the variance in another order, 2e-4; both graphs agree in float64."""
    scale = max(1.0, float(np.max(np.abs(exact)))) if exact.size else 1.0
    return eager.shape == exact.shape and bool(np.max(np.abs(eager - exact), initial=0.0) > 1e-5 * scale)


NUDGE = 2.0 ** -18  # 32 float32 ulps of each input value (4e-6 relative)


def _sensitive(case: Case, eager: list[np.ndarray]) -> bool:
    """Eager float32 moves beyond the fuzzer's tolerance when every input moves by 32 ulps: the program
    amplifies rounding even where eager float32 happened to land near float64. Seed 1906051824 (Dense,
    ReLU, training-mode BatchNorm of a batch of 2, then eval mode): BatchNorm of two samples is +-1 whatever
    they are, so the gradients upstream of it are 0 in exact arithmetic and float32 noise in practice; eager's
    noise landed 5e-6 from float64, the compiled step's 7e-4, inputs 4e-6 apart move eager's answer 9e-4, and
    in float64 both graphs agree to 2e-12."""
    try:
        nudged = run(case, None, np.float32, NUDGE)
    except Exception:  # noqa: BLE001 - a program that cannot run nudged is judged as it is
        return False
    return not all(_close(a, b) for a, b in zip(nudged, eager))


def _within_rounding(got: np.ndarray, eager: np.ndarray, exact: np.ndarray) -> bool:
    if got.shape != exact.shape:
        return False
    if _close(got, exact):
        return True
    scale = max(1.0, float(np.max(np.abs(exact)))) if exact.size else 1.0
    return np.max(np.abs(got - exact)) <= ROUNDING_FACTOR * np.max(np.abs(eager - exact)) + 1e-6 * scale


def _graph_agrees_in_float64(case: Case, config: tuple, exact: list[np.ndarray]) -> bool:
    """The configuration's graph, run in float64, against eager float64. A backend without float64 kernels
    (the simulated Ascend refuses them) is judged by the same capture mode and jit level on the CPU."""
    mode, level, backend = config
    try:
        got = run(case, (mode, level, backend), np.float64)
    except Exception:  # noqa: BLE001 - refused float64: its twin on the CPU
        try:
            got = run(case, (mode, level, "cpu"), np.float64)
        except Exception:  # noqa: BLE001 - a graph float64 cannot run stays a mismatch
            return False
    return all(a.shape == e.shape and np.allclose(a, e, rtol=1e-9, atol=1e-9 * max(1.0, float(np.max(np.abs(e)))),
                                                 equal_nan=True) for a, e in zip(got, exact))


def compare(case: Case, configs: list) -> list[str]:
    """Mismatch descriptions (empty: every config agreed with eager, or differed by rounding only)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = run(case, None)
        problems = []
        for config in configs:
            try:
                got = run(case, config)
            except Exception as exc:  # noqa: BLE001 - a crash under jit is a finding like a wrong number
                problems.append(f"seed {case.seed} {config}: raised {type(exc).__name__}: {str(exc)[:200]}")
                continue
            differing = [i for i, (a, b) in enumerate(zip(got, reference)) if not _close(a, b)]
            if differing and only_rounding(case, config, got, reference):
                print(f"ROUNDING seed {case.seed} {config}: outputs {differing} differ from eager float32 as "
                      "much as both differ from float64", flush=True)
            elif differing:
                problems.append(f"seed {case.seed} {config}: output {differing[0]} differs (steps {case.steps}, "
                                f"schedule {case.schedule}, train_step {case.train_step})")
    return problems


def fuzz(programs: int, seed: int, configs_per_program: int, deadline: float | None = None,
         report_every: int = 0, hang_s: float = 0) -> dict:
    """`hang_s` > 0: a program still running after that many seconds is a finding too; the process prints
    every thread's stack and the program's seed, and exits (a long run must not sit in a hang for hours)."""
    stats = {"programs": 0, "comparisons": 0, "mismatches": []}
    rng = random.Random(seed)
    for k in range(programs):
        if deadline is not None and time.time() > deadline:
            break
        case = make_case((seed * 1_000_003 + k) % 2**31)
        configs = rng.sample(CONFIGS, min(configs_per_program, len(CONFIGS)))
        if hang_s:
            print(f"program {k}: seed {case.seed} {configs}", flush=True)
            faulthandler.dump_traceback_later(hang_s, exit=True)
        found = compare(case, configs)
        faulthandler.cancel_dump_traceback_later()
        for line in found:      # printed as found: a long run that is killed still tells what it saw
            print(f"MISMATCH {line}", flush=True)
        stats["mismatches"] += found
        stats["programs"] += 1
        stats["comparisons"] += len(configs) * len(case.schedule)
        if report_every and stats["programs"] % report_every == 0:
            print(f"... programs {stats['programs']}, compared calls {stats['comparisons']}, "
                  f"mismatches {len(stats['mismatches'])}, peak RSS "
                  f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB", flush=True)
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--configs", type=int, default=2, help="jit configurations per program (of 12)")
    parser.add_argument("--hours", type=float, default=None, help="run until this much time has passed")
    parser.add_argument("--hang", type=float, default=600,
                        help="seconds after which one program counts as hung: stacks printed, the run stops")
    args = parser.parse_args()
    deadline = time.time() + args.hours * 3600 if args.hours else None
    programs = 10 ** 9 if args.hours else args.programs
    stats = fuzz(programs, args.seed, args.configs, deadline, report_every=25, hang_s=args.hang)
    print(f"programs {stats['programs']}, compared calls {stats['comparisons']}, "
          f"mismatches {len(stats['mismatches'])}")


if __name__ == "__main__":
    main()
