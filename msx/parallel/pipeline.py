"""Pipeline parallelism over a `pipe` mesh axis: one micro-batch's network cut into stages, and a GPipe or
1F1B schedule of the micro-batches, all on jax's engine (`jax.shard_map` manual over `pipe`, `lax.ppermute`
between neighbouring stages, `lax.switch` on the stage index, `lax.scan` over the schedule's time slots).

How a network becomes stages: the network on ONE micro-batch is traced to a jaxpr (`jax.make_jaxpr`) while
every Cell with `pipeline_stage = k` runs inside `jax.named_scope("msx_pipeline_stage_k")`. Each top-level
equation gets the stage of its scope (for a `jax.checkpoint`/`pjit` equation: of the equations inside it);
an equation outside every stage's scope runs in the latest stage of its inputs, and one that reads only the
micro-batch, the Parameters and constants ("free": rotary tables, masks) is recomputed in every stage that
needs it. The values one stage hands the next (its *boundary*: everything computed so far that a later
stage still reads) travel by `ppermute`; a boundary value used two stages later passes through the stage in
between. A value read by an earlier stage than the one computing it is refused.

The schedule is a table, made here in Python by simulating the stages' program orders (GPipe: every
forward, then every backward; 1F1B: `stages - s - 1` warm-up forwards, then one forward and one backward in
turn): at each time slot each stage runs its forward (F) or backward (B) of one micro-batch, or waits, then
activations move one stage on and gradients one stage back. A backward recomputes its stage's forward from
the stage input it kept (`jax.vjp`), so a stage keeps only its inputs for the micro-batches in flight: 1F1B
keeps at most `stages - s`, GPipe all `micro_size`. The gradients are computed in the forward call
(`jax.custom_vjp`: the loss's cotangent scales them), so the one compiled step runs the schedule once.

Parameters are replicated over `pipe` (each stage reads only its own; a Parameter two stages share, a tied
embedding, gets the sum of both stages' gradients: `psum` over `pipe`) and gathered whole at the schedule's
entry (what ZeRO-3 keeps cut is all-gathered once per step, by every device, not resharded inside one stage's
branch, where XLA:CPU's collectives would wait for the other stage's devices); XLA's partitioner handles the
other mesh axes (data and tensor parallel inside a stage) as it does without a pipeline.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend import core as jcore
from jax.sharding import PartitionSpec as P

from ..errors import ContextError
from .sharding import PIPE as AXIS

SCOPE = "msx_pipeline_stage_"
_SCOPE_RE = re.compile(SCOPE + r"(\d+)")
SCHEDULERS = ("1f1b", "gpipe")


# ----------------------------------------------------------------- the schedule
@dataclass(frozen=True)
class Schedule:
    """Per time slot and stage: what the stage runs (0 wait, 1 forward, 2 backward) on which micro-batch, and
    which micro-batch's activation (from the stage before) and gradient (from the stage after) arrive at the
    slot's end (-1: none). `slots` is the ring size of the kept stage inputs and arrived gradients."""

    kind: np.ndarray
    micro: np.ndarray
    recv_f: np.ndarray
    recv_b: np.ndarray
    slots: int


def _orders(name: str, stages: int, micro: int, backward: bool) -> list[list[tuple[str, int]]]:
    orders = []
    for s in range(stages):
        if not backward:
            orders.append([("F", m) for m in range(micro)])
        elif name == "gpipe":
            orders.append([("F", m) for m in range(micro)] + [("B", m) for m in range(micro)])
        else:   # 1f1b: warm-up forwards, then one forward and one backward in turn, then the last backwards
            warm = min(stages - s - 1, micro)
            order = [("F", m) for m in range(warm)]
            for i in range(micro - warm):
                order += [("F", warm + i), ("B", i)]
            orders.append(order + [("B", m) for m in range(micro - warm, micro)])
    return orders


@functools.lru_cache(maxsize=None)
def schedule(name: str, stages: int, micro: int, backward: bool = True) -> Schedule:
    """Simulate the stages' program orders slot by slot: an action runs as soon as what it needs arrived by the
    end of an earlier slot (the stage before's forward, the stage after's backward)."""
    if name not in SCHEDULERS:
        raise ContextError(f"pipeline_scheduler={name!r} is not supported by msx; choose one of {SCHEDULERS}")
    orders = _orders(name, stages, micro, backward)
    done: dict[tuple[str, int, int], int] = {}
    pos, rows = [0] * stages, []
    while any(p < len(o) for p, o in zip(pos, orders)):
        t, row = len(rows), []
        for s in range(stages):
            act = orders[s][pos[s]] if pos[s] < len(orders[s]) else None
            if act is not None:
                what, m = act
                need = [("F", s - 1, m)] if what == "F" and s else []
                if what == "B":
                    need = [("F", s, m)] + ([("B", s + 1, m)] if s < stages - 1 else [])
                if all(done.get(n, t) < t for n in need):
                    row.append(act)
                    continue
            row.append(None)
        for s, act in enumerate(row):
            if act is not None:
                done[(act[0], s, act[1])] = t
                pos[s] += 1
        rows.append(row)
        if t > 4 * (micro + stages) + 8:   # pragma: no cover - the orders above always make progress
            raise RuntimeError("pipeline schedule did not converge")
    T = len(rows)
    kind = np.zeros((T, stages), np.int32)
    mic = np.zeros((T, stages), np.int32)
    recv_f = np.full((T, stages), -1, np.int32)
    recv_b = np.full((T, stages), -1, np.int32)
    for t, row in enumerate(rows):
        for s, act in enumerate(row):
            if act is None:
                continue
            kind[t, s], mic[t, s] = (1 if act[0] == "F" else 2), act[1]
            if act[0] == "F" and s < stages - 1:
                recv_f[t, s + 1] = act[1]
            if act[0] == "B" and s > 0:
                recv_b[t, s - 1] = act[1]
    return Schedule(kind, mic, recv_f, recv_b, _ring(rows, stages, micro))


def _ring(rows, stages: int, micro: int) -> int:
    """The fewest ring slots `k` such that the micro-batches a stage keeps at once (stage inputs arrived and not yet
    used by their backward; gradients arrived and not yet used) never share a slot `m % k`."""
    return next(k for k in range(1, micro + 1) if _ring_ok(rows, stages, k))


def _ring_ok(rows, stages: int, k: int) -> bool:
    for s in range(stages):
        for what, frm in (("F", s - 1), ("B", s + 1)):
            if not 0 <= frm < stages:
                continue
            live: set[int] = set()
            for row in rows:
                act = row[s]
                if act is not None and act[0] == "B":
                    live.discard(act[1])     # read during the slot, before this slot's arrivals are written
                got = row[frm]
                if got is not None and got[0] == what:
                    if any(o % k == got[1] % k for o in live):
                        return False
                    live.add(got[1])
    return True


def bubble_fraction(stages: int, micro: int, name: str = "1f1b") -> float:
    """The share of stage-slots spent waiting in the schedule's table (theory, F and B of equal cost:
    (stages - 1) / (micro + stages - 1))."""
    table = schedule(name, stages, micro, True)
    return float((table.kind == 0).sum() / table.kind.size)


# ----------------------------------------------------------------- cutting one micro-batch's jaxpr into stages
def _scope_stage(eqn) -> int | None:
    found = _SCOPE_RE.findall(str(eqn.source_info.name_stack))
    return int(found[-1]) if found else None


def _eqn_stage(eqn) -> int | None:
    """The stage of an equation's scope, else the latest stage among the equations nested inside it."""
    own = _scope_stage(eqn)
    if own is not None:
        return own
    inner = [s for sub in jcore.jaxprs_in_params(eqn.params) for e in sub.eqns
             for s in [_eqn_stage(e)] if s is not None]
    return max(inner) if inner else None


@dataclass
class Stages:
    """A micro-batch's jaxpr cut into `count` stages (see the module docstring)."""

    jaxpr: Any
    consts: list
    count: int
    eqns: list          # per stage, the equations it evaluates (its own and the free ones it needs), in order
    bounds: list        # bounds[k]: the Vars stage k receives (bounds[0] = [])
    carry: list         # the avals of the one carry every stage sends (the union of the boundaries)
    where: list         # where[k]: the carry positions of bounds[k]

    def run(self, k: int, carry: list, inputs: list, params: list) -> list:
        """Stage k on a micro-batch: the carry it sends (the last stage: the jaxpr's outputs)."""
        env: dict = {}
        for v, x in zip(self.jaxpr.invars, list(inputs) + list(params)):
            env[v] = x
        for v, x in zip(self.jaxpr.constvars, self.consts):
            env[v] = x
        for v, i in zip(self.bounds[k], self.where[k]):
            env[v] = carry[i]
        _evaluate(self.eqns[k], env)
        if k == self.count - 1:
            return [_read(env, v) for v in self.jaxpr.outvars]
        out = [jnp.zeros(a.shape, a.dtype) for a in self.carry]
        for v, i in zip(self.bounds[k + 1], self.where[k + 1]):
            out[i] = _read(env, v)
        return out


def _read(env: dict, v):
    return v.val if isinstance(v, jcore.Literal) else env[v]


def _evaluate(eqns: list, env: dict) -> None:
    for eqn in eqns:
        with eqn.ctx.manager:   # jax.core.eval_jaxpr's way of binding an equation again
            ans = eqn.primitive.bind(*[_read(env, v) for v in eqn.invars], **eqn.primitive.get_bind_params(eqn.params))
        outs = ans if eqn.primitive.multiple_results else [ans]
        for v, a in zip(eqn.outvars, outs):
            if not isinstance(v, jcore.DropVar):
                env[v] = a


def cut(closed, count: int, who: str = "PipelineCell") -> Stages:
    """`closed` (a ClosedJaxpr over (micro-batch inputs..., Parameters...)) cut into `count` stages."""
    jaxpr = closed.jaxpr
    free = set(jaxpr.invars) | set(jaxpr.constvars)
    stage_of: dict = {}          # Var -> the stage computing it (free Vars are absent)
    eqn_stage: list = []
    for i, eqn in enumerate(jaxpr.eqns):
        reads = [v for v in eqn.invars if not isinstance(v, jcore.Literal)]
        after = max((stage_of[v] for v in reads if v in stage_of), default=None)
        own = _eqn_stage(eqn)
        if own is not None and own >= count:
            raise ContextError(f"{who}: a Cell has pipeline_stage={own} but pipeline_stages={count}")
        if own is not None and after is not None and own < after:
            raise ContextError(f"{who}: a Cell of pipeline_stage {own} reads a value computed in stage {after} "
                               f"(stages must run in order: a later stage may read an earlier one's values, not "
                               f"the other way round)")
        stage = own if own is not None else after
        eqn_stage.append(stage)
        for v in eqn.outvars:
            if stage is None:
                free.add(v)
            else:
                stage_of[v] = stage
    producer = {v: i for i, eqn in enumerate(jaxpr.eqns) for v in eqn.outvars}
    # where each Var is read: by stage (the jaxpr's outputs are read by the last stage)
    readers: dict = {}
    per_stage: list[set] = [set() for _ in range(count)]
    for i, eqn in enumerate(jaxpr.eqns):
        if eqn_stage[i] is not None:
            per_stage[eqn_stage[i]].add(i)
            for v in eqn.invars:
                if not isinstance(v, jcore.Literal):
                    readers.setdefault(v, set()).add(eqn_stage[i])
    for v in jaxpr.outvars:
        if not isinstance(v, jcore.Literal):
            readers.setdefault(v, set()).add(count - 1)
    # the free equations each stage needs, found backwards from what the stage reads
    for k in range(count):
        todo = [v for i in per_stage[k] for v in jaxpr.eqns[i].invars if not isinstance(v, jcore.Literal)]
        todo += [v for v in jaxpr.outvars if not isinstance(v, jcore.Literal)] if k == count - 1 else []
        while todo:
            v = todo.pop()
            i = producer.get(v)
            if i is None or eqn_stage[i] is not None or i in per_stage[k]:
                continue
            per_stage[k].add(i)
            todo += [u for u in jaxpr.eqns[i].invars if not isinstance(u, jcore.Literal)]
    eqns = [[jaxpr.eqns[i] for i in sorted(per_stage[k])] for k in range(count)]
    bounds = [[]] + [sorted((v for v, s in stage_of.items() if s < k and max(readers.get(v, {-1})) >= k),
                            key=lambda v: (producer[v], str(v))) for k in range(1, count)]
    carry, where = _carry_layout(bounds)
    return Stages(jaxpr, list(closed.consts), count, eqns, bounds, carry, where)


def _carry_layout(bounds: list) -> tuple[list, list]:
    """One carry for every boundary: shared when all boundaries hold the same avals (a transformer's hidden
    state), else their concatenation (each stage fills its own part)."""
    sigs = [tuple((tuple(v.aval.shape), v.aval.dtype) for v in b) for b in bounds[1:]]
    if sigs and all(s == sigs[0] for s in sigs):
        carry = [v.aval for v in bounds[1]]
        return carry, [[]] + [list(range(len(carry)))] * (len(bounds) - 1)
    carry, where = [], [[]]
    for b in bounds[1:]:
        where.append(list(range(len(carry), len(carry) + len(b))))
        carry += [v.aval for v in b]
    return carry, where


# ----------------------------------------------------------------- the scheduled run
def _is_float(x) -> bool:
    return jnp.issubdtype(x.dtype, jnp.inexact)


def _zeros(avals) -> list:
    return [jnp.zeros(a.shape, a.dtype) for a in avals]


def _floats(avals) -> list[int]:
    return [i for i, a in enumerate(avals) if jnp.issubdtype(a.dtype, jnp.inexact)]


def _put(values: list, where: list[int], new) -> list:
    """`values` with `new[j]` at position `where[j]`."""
    out = list(values)
    for i, x in zip(where, new):
        out[i] = x
    return out


def _float0(x):
    return np.zeros(np.shape(x), jax.dtypes.float0)


def _branches(stages: Stages, micro_avals: list, param_avals: list, grads: bool):
    """The switch's branches: 0 waits, 1 + k is stage k's forward, 1 + N + k its backward. Every branch takes
    (carry in, micro-batch, params, carry gradient, the param gradients so far) and returns (carry out, outputs,
    carry-in gradient, micro-batch gradient, the param gradients so far): only a backward adds to them, the other
    branches hand them through (no zero-filled gradients added every slot)."""
    N = stages.count
    out_avals = [v.aval for v in stages.jaxpr.outvars]
    fc, fm, fp = _floats(stages.carry), _floats(micro_avals), _floats(param_avals)   # what is differentiated

    def result(acc, carry_out=None, out=None, g_in=None, g_mb=None):
        """A branch's five results, zeros where the branch has none (every branch returns the same types)."""
        return (carry_out or _zeros(stages.carry), out or _zeros(out_avals), g_in or _zeros(stages.carry),
                g_mb or (_zeros(micro_avals) if grads else []), acc)

    def idle(carry, mb, params, g_carry, acc):
        return result(acc)

    def forward(k):
        def f(carry, mb, params, g_carry, acc):
            res = list(stages.run(k, carry, mb, params))
            return result(acc, out=res) if k == N - 1 else result(acc, carry_out=res)
        return f

    def backward(k):
        def b(carry, mb, params, g_carry, acc):
            def g(c, m, p):
                res = stages.run(k, _put(carry, fc, c), _put(mb, fm, m), _put(params, fp, p))
                return res[0] if k == N - 1 else [res[i] for i in fc]

            _, vjp = jax.vjp(g, [carry[i] for i in fc], [mb[i] for i in fm], [params[i] for i in fp])
            seed = jnp.ones(out_avals[0].shape, out_avals[0].dtype) if k == N - 1 else [g_carry[i] for i in fc]
            gc, gm, gp = vjp(seed)
            return result(_put(acc, fp, [acc[i] + g for i, g in zip(fp, gp)]),
                          g_in=_put(_zeros(stages.carry), fc, gc) if k > 0 else None,
                          g_mb=_put(_zeros(micro_avals), fm, gm))
        return b

    return [idle] + [forward(k) for k in range(N)] + [backward(k) if grads else idle for k in range(N)]


def _arrive(buffers: list, values: list, micro, K: int) -> list:
    """`values` written into ring slot `micro % K` of `buffers` when `micro >= 0` (else the slot keeps its value):
    one slot updated, not the whole buffer selected."""
    i = jnp.maximum(micro, 0) % K
    return [b.at[i].set(jnp.where(micro >= 0, x, b[i])) for b, x in zip(buffers, values)]


def run_schedule(stages: Stages, mesh, table: Schedule, micro: list, params: list, grads: bool):
    """Run the table over `mesh`'s `pipe` axis. `micro`: each input with a leading micro-batch axis (M, ...).
    Returns (the outputs summed over micro-batches, the micro inputs' gradients, the params' gradients)."""
    N, M = stages.count, micro[0].shape[0] if micro else 0
    micro_avals = [jax.core.ShapedArray(x.shape[1:], x.dtype) for x in micro]
    param_avals = [jax.core.ShapedArray(p.shape, p.dtype) for p in params]
    out_avals = [v.aval for v in stages.jaxpr.outvars]
    branches = _branches(stages, micro_avals, param_avals, grads)
    K = table.slots
    forward_perm = [(s, s + 1) for s in range(N - 1)]
    backward_perm = [(s + 1, s) for s in range(N - 1)]
    xs = tuple(jnp.asarray(a) for a in (table.kind, table.micro, table.recv_f, table.recv_b))

    def body(micro, params):
        s = jax.lax.axis_index(AXIS)
        # every Parameter whole on each device of the stage before the schedule starts: one all-gather per step
        # of what the parallel optimizer keeps cut (ZeRO-3), run by every device, instead of resharding inside one
        # stage's branch (XLA:CPU's collectives wait for every device of the program, and the other stage runs
        # another branch); a tensor-parallel strategy inside then only slices
        whole = jax.sharding.NamedSharding(jax.sharding.get_abstract_mesh(), P())
        params = [jax.lax.with_sharding_constraint(p, whole) for p in params]
        state = dict(stash=[jnp.zeros((K, *a.shape), a.dtype) for a in stages.carry],
                     gbuf=[jnp.zeros((K, *a.shape), a.dtype) for a in stages.carry],
                     out=_zeros(out_avals),
                     g_micro=[jnp.zeros(x.shape, x.dtype) for x in micro] if grads else [],
                     g_params=_zeros(param_avals) if grads else [])

        def slot(state, row):
            kind, mic, rf, rb = (r[s] for r in row)
            m = jnp.maximum(mic, 0)
            index = jnp.where(kind == 1, 1 + s, jnp.where(kind == 2, 1 + N + s, 0))
            carry_in = [b[m % K] for b in state["stash"]]
            g_carry = [b[m % K] for b in state["gbuf"]]
            mb = [x[m] for x in micro]
            c_out, o, g_in, g_mb, g_p = jax.lax.switch(index, branches, carry_in, mb, params, g_carry,
                                                       state["g_params"])
            new = dict(state, g_params=g_p)
            new["out"] = [a + b for a, b in zip(state["out"], o)]
            if grads:
                new["g_micro"] = [acc.at[m].add(g) for acc, g in zip(state["g_micro"], g_mb)]
            if N > 1:
                arrived = jax.lax.ppermute(c_out, AXIS, forward_perm)
                new["stash"] = _arrive(state["stash"], arrived, rf, K)
                if grads:
                    new["gbuf"] = _arrive(state["gbuf"], jax.lax.ppermute(g_in, AXIS, backward_perm), rb, K)
            return new, None

        state, _ = jax.lax.scan(slot, state, xs)
        total = lambda xs: [jax.lax.psum(x, AXIS) for x in xs]   # noqa: E731  (only one stage holds each part)
        return total(state["out"]), total(state["g_micro"]), total(state["g_params"])

    mapped = jax.shard_map(body, mesh=mesh, in_specs=(P(), P()), out_specs=(P(), P(), P()),
                           axis_names=frozenset({AXIS}), check_vma=False)
    return mapped(list(micro), list(params))


def pipelined(stages: Stages, mesh, scheduler: str) -> Callable:
    """fn(micro inputs (each (M, ...)), params) -> the outputs summed over the micro-batches, differentiable:
    its `jax.custom_vjp` runs `scheduler`'s table with the backward in it (the output must then be one float
    scalar, the loss); without a gradient only the forwards run."""
    N = stages.count

    def forward_only(micro, params):
        M = micro[0].shape[0]
        outs, _, _ = run_schedule(stages, mesh, schedule("gpipe", N, M, backward=False), micro, params, False)
        return outs

    @jax.custom_vjp
    def fn(micro, params):
        return forward_only(micro, params)

    def fwd(micro, params):
        outs = stages.jaxpr.outvars
        if len(outs) != 1 or outs[0].aval.shape != () or not jnp.issubdtype(outs[0].aval.dtype, jnp.inexact):
            raise ContextError(f"PipelineCell: differentiating a pipeline of {N} stages needs the network to return "
                               f"one float scalar (the loss), got {[(tuple(v.aval.shape), str(v.aval.dtype)) for v in outs]}; "
                               f"wrap the network with its loss (nn.WithLossCell)")
        M = micro[0].shape[0]
        res = run_schedule(stages, mesh, schedule(scheduler, N, M), micro, params, True)
        out, g_micro, g_params = res
        return out, (g_micro, g_params, [_float0(x) if not _is_float(x) else None for x in micro],
                     [_float0(p) if not _is_float(p) else None for p in params])

    def bwd(res, g):
        g_micro, g_params, z_micro, z_params = res
        scale = g[0]
        gm = [z if z is not None else (x * scale).astype(x.dtype) for x, z in zip(g_micro, z_micro)]
        gp = [z if z is not None else (x * scale).astype(x.dtype) for x, z in zip(g_params, z_params)]
        return gm, gp

    fn.defvjp(fwd, bwd)
    return jax.jit(fn)   # eagerly one compiled program too (an un-jitted shard_map would run op by op)


def trace_micro(pure: Callable, micro_args: Sequence, param_arrays: Sequence, stage_cells: Sequence,
                count: int, mesh, who: str = "PipelineCell") -> Stages:
    """Trace `pure(micro_args, param_arrays)` (one micro-batch) with each stage Cell's construct inside its
    stage's named scope, and cut the jaxpr into `count` stages. It is traced over `mesh` with `pipe` manual, as
    inside the schedule's shard_map, so that the sharding constraints of tensor-parallel strategies in it name
    the mesh the stages are evaluated over."""
    saved = []
    for cell, k in stage_cells:
        inner = cell.construct

        def scoped(*a, __inner=inner, __k=k, **kw):
            with jax.named_scope(f"{SCOPE}{__k}"):
                return __inner(*a, **kw)

        saved.append((cell, cell.__dict__.get("construct")))
        object.__setattr__(cell, "construct", scoped)
    try:
        inner = mesh.abstract_mesh.update_axis_types({AXIS: jax.sharding.AxisType.Manual})
        with jax.sharding.use_abstract_mesh(inner):
            closed = jax.make_jaxpr(pure)(list(micro_args), list(param_arrays))
    finally:
        for cell, before in saved:
            if before is None:
                object.__delattr__(cell, "construct")
            else:
                object.__setattr__(cell, "construct", before)
    n_in = len(micro_args)
    if len(closed.jaxpr.invars) != n_in + len(param_arrays):   # pragma: no cover - make_jaxpr flattens lists
        raise RuntimeError("pipeline: unexpected jaxpr inputs")
    return cut(closed, count, who)
