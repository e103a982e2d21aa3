"""Pipeline parallelism over a `pipe` mesh axis: one micro-batch's network cut into stages, and a GPipe or
1F1B schedule of the micro-batches, all on jax's engine (`jax.shard_map` manual over `pipe`, `lax.ppermute`
between neighbouring stages, `lax.switch` on the stage index, `jax.vjp` for each stage's backward).

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
activations move one stage on and gradients one stage back. The table is static, so the run unrolls it: each
slot is one `lax.switch` on the stage index over only that slot's actions (their micro-batch fixed), and one
`ppermute` per direction that sends in it, over only the sending pairs. A forward is `jax.vjp` of its stage and
keeps the residuals (what a `jax.checkpoint`ed Cell, `recompute`, keeps: its inputs), so a backward runs the
transposed stage only; a stage keeps them for the micro-batches in flight (1F1B: at most `stages - s`, GPipe:
all `micro_size`). The gradients are computed in the forward call (`jax.custom_vjp` with symbolic zeros: only
what the caller differentiates; the loss's cotangent scales them), so the one compiled step runs the schedule
once.

A Parameter whose axis 0 divides by the stage count comes in cut over `pipe` (1/N per device) and goes, whole,
to the stages that read it only (`msx.parallel.stage_params`); its gradient goes back cut. The others are
replicated over `pipe` (a Parameter two stages share and cannot cut, gets the sum of both stages' gradients:
`psum` over `pipe`). Within a stage every Parameter is gathered whole at the schedule's entry (what ZeRO-3 keeps
cut is all-gathered once per step, by every device, not resharded inside one stage's branch, where XLA:CPU's
collectives would wait for the other stage's devices); XLA's partitioner handles the other mesh axes (data and
tensor parallel inside a stage) as it does without a pipeline.
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
from .stage_params import Placement

SCOPE = "msx_pipeline_stage_"
_SCOPE_RE = re.compile(SCOPE + r"(\d+)")
SCHEDULERS = ("1f1b", "gpipe")


# ----------------------------------------------------------------- the schedule
@dataclass(frozen=True)
class Schedule:
    """Per time slot and stage: what the stage runs (0 wait, 1 forward, 2 backward) on which micro-batch (a
    forward's activation reaches the stage after, a backward's gradient the stage before, at the slot's end).
    `slots`: the most micro-batches a stage holds at once (received and not yet through
    its backward): what the schedule costs in kept activations, a ring of that many slots would hold them."""

    kind: np.ndarray
    micro: np.ndarray
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
    for t, row in enumerate(rows):
        for s, act in enumerate(row):
            if act is None:
                continue
            kind[t, s], mic[t, s] = (1 if act[0] == "F" else 2), act[1]
    return Schedule(kind, mic, _ring(rows, stages, micro))


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
def _zeros(avals) -> list:
    return [jnp.zeros(a.shape, a.dtype) for a in avals]


def _avals(xs) -> list:
    return [jax.core.ShapedArray(np.shape(x), x.dtype) for x in xs]


def _put(values: list, where: list[int], new) -> list:
    """`values` with `new[j]` at position `where[j]`."""
    out = list(values)
    for i, x in zip(where, new):
        out[i] = x
    return out


def _reads(stages: Stages, k: int) -> set:
    """The Vars stage k's equations read (the last stage: also the outputs it returns)."""
    reads = {v for e in stages.eqns[k] for v in e.invars if not isinstance(v, jcore.Literal)}
    if k == stages.count - 1:
        reads |= {v for v in stages.jaxpr.outvars if not isinstance(v, jcore.Literal)}
    return reads


# ops that hand a value on unchanged (up to its layout): a residual made of a stage input by these alone is that input
_FORWARDING = frozenset({"reshard", "sharding_constraint", "copy", "copy_p", "pvary", "mesh_cast"})


def _forwards(closed) -> list:
    """For each output of `closed`: (input position, the equations that turn that input into it) when it is one
    of the inputs handed on by `_FORWARDING` equations only, else None."""
    jaxpr = closed.jaxpr
    position = {v: i for i, v in enumerate(jaxpr.invars)}
    producer = {v: e for e in jaxpr.eqns for v in e.outvars}
    found = []
    for v in jaxpr.outvars:
        chain = []
        while not isinstance(v, jcore.Literal) and v not in position and v in producer:
            e = producer[v]
            reads = [u for u in e.invars if not isinstance(u, jcore.Literal)]
            if e.primitive.name not in _FORWARDING or len(reads) != 1 or len(e.outvars) != 1:
                break
            chain.append(e)
            v = reads[0]
        found.append((position[v], tuple(reversed(chain))) if not isinstance(v, jcore.Literal) and v in position
                     else None)
    return found


class _StageWork:
    """Stage k's forward and backward on one micro-batch, inside one slot's `lax.switch` branch. The forward
    differentiates (`jax.vjp`) what the stage's backward needs: the float carry it received, the float
    micro-batch inputs the caller differentiates, the float Parameters the stage reads; it keeps the vjp's
    residuals (a `jax.checkpoint`ed Cell, `recompute`, keeps only its inputs: jax's remat), so the backward only
    runs the transposed stage, no second forward."""

    def __init__(self, stages: Stages, k: int, micro_avals: list, d_micro: list, d_params: list,
                 place: Placement):
        self.stages, self.k, self.N, self.place = stages, k, stages.count, place
        reads = _reads(stages, k)
        n_micro = len(micro_avals)
        invars = stages.jaxpr.invars
        floats = [i for i, a in enumerate(stages.carry) if jnp.issubdtype(a.dtype, jnp.inexact)]
        self.fc = floats if k else []   # the received carry's float positions (stage 0 receives none)
        self.fo = floats                 # the handed-on carry's (the last stage hands on its loss instead)
        self.fm = [i for i in range(n_micro) if d_micro[i] and invars[i] in reads]
        self.fp = [i for i, d in enumerate(d_params) if d and invars[n_micro + i] in reads]
        self.micro_avals = micro_avals
        self.refs: tuple = ()      # the residuals' layout (`layout`, before the first slot)
        self.avals: tuple = ()
        self.traced: dict = {}     # micro-batch -> the treedef its forward's trace made (rebuilds its vjp)

    def carry_zeros(self) -> list:
        return _zeros(self.stages.carry)

    def run(self, carry: list, mb: list, params: list) -> list:
        return self.stages.run(self.k, carry, mb, params)

    def _vjp(self, carry: list, mb: list, params: list):
        """(the stage's results, the vjp's residual leaves, the treedef that rebuilds the vjp from them)."""
        fc, fm, fp, last = self.fc, self.fm, self.fp, self.k == self.N - 1

        def g(c, m, p):
            res = self.run(_put(carry, fc, c), _put(mb, fm, m), _put(params, fp, p))
            return ([res[0]] if last else [res[i] for i in self.fo]), res

        _, vjp, res = jax.vjp(g, [carry[i] for i in fc], [mb[i] for i in fm], [params[i] for i in fp], has_aux=True)
        leaves, tree = jax.tree.flatten(vjp)
        return res, leaves, tree

    def layout(self, carry: list, micro_avals: list, params: list) -> None:
        """Which residual leaves are stage inputs (`self.refs[i]`: (what, position, the equations that hand it on)
        for the carry it got, the micro-batch, a Parameter: referred to again in the backward, not copied out of
        the forward's branch) and the avals of the others (`self.avals`: what the forward hands out), from the
        forward's jaxpr (traced once per stage)."""
        structs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in micro_avals]
        closed = jax.make_jaxpr(lambda c, mb, p: self._vjp(c, mb, p)[1])(carry, structs, params)
        where = [("carry", j) for j in range(len(carry))] + [("micro", j) for j in range(len(structs))] + \
                [("param", j) for j in range(len(params))]
        self.refs = tuple(None if f is None else (*where[f[0]], f[1]) for f in _forwards(closed))
        self.avals = tuple(v.aval for v, r in zip(closed.jaxpr.outvars, self.refs) if r is None)

    def forward(self, carry: list, mb: list, params: list, grads: bool):
        """(what the stage hands on or returns, the residuals to keep (grads), the vjp's treedef)."""
        if not grads:
            return self.run(carry, mb, params), [], None
        res, leaves, tree = self._vjp(carry, mb, params)
        out = [x for x, r in zip(leaves, self.refs) if r is None]
        if len(leaves) != len(self.refs) or tuple(_avals(out)) != tuple(jax.core.ShapedArray(a.shape, a.dtype)
                                                                          for a in self.avals):
            raise RuntimeError(f"pipeline stage {self.k}: the forward's residuals changed between traces")   # pragma: no cover
        return res, out, tree

    def backward(self, tree, residuals: list, carry: list, mb: list, params: list, g_carry: list):
        """(the carry-in gradient (float positions), the micro-batch inputs' gradients, the Parameters')."""
        given = iter(residuals)
        inputs = {"carry": carry, "micro": mb, "param": params}
        leaves = []
        for r in self.refs:
            if r is None:
                leaves.append(next(given))
                continue
            env = {}
            x = inputs[r[0]][r[1]]
            for eqn in r[2]:    # the equations that handed the input on, again (a layout change, no copy kept)
                env[eqn.invars[0]] = x
                _evaluate([eqn], env)
                x = env[eqn.outvars[0]]
            leaves.append(x)
        vjp = jax.tree.unflatten(tree, leaves)
        out = self.stages.jaxpr.outvars[0].aval
        seed = [jnp.ones(out.shape, out.dtype)] if self.k == self.N - 1 else [g_carry[i] for i in self.fo]
        return vjp(seed)


def run_schedule(stages: Stages, mesh, table: Schedule, micro: list, params: list, grads: bool,
                 d_micro: Sequence[bool] = (), d_params: Sequence[bool] = ()):
    """Run the table over `mesh`'s `pipe` axis. `micro`: each input with a leading micro-batch axis (M, ...);
    `d_micro`/`d_params`: which of them to differentiate (grads). Returns (the outputs summed over micro-batches,
    the micro inputs' gradients, the params' gradients; None where not differentiated).

    The schedule is static, so its slots are unrolled here: slot t is one `lax.switch` on the stage index over
    only the actions of row t (each with its micro-batch fixed), then at most one `ppermute` forward and one
    backward, over only the pairs that send in that slot (outside the branches: XLA:CPU's collectives must not
    wait inside one stage's branch). What a stage keeps from its forward for its backward (its received carry,
    its vjp residuals, the gradient it receives) are values of the unrolled program, not ring buffers: XLA frees
    each after its backward."""
    N = stages.count
    micro_avals = [jax.core.ShapedArray(x.shape[1:], x.dtype) for x in micro]
    param_avals = _avals(params)
    out_avals = [v.aval for v in stages.jaxpr.outvars]
    d_micro = [bool(d) and jnp.issubdtype(a.dtype, jnp.inexact) for d, a in zip(d_micro or [False] * len(micro),
                                                                                 micro_avals)]
    d_params = [bool(d) and jnp.issubdtype(a.dtype, jnp.inexact) for d, a in zip(d_params or [False] * len(params),
                                                                                 param_avals)]
    place = Placement([_reads(stages, k) for k in range(N)], stages.jaxpr.invars[len(micro):], param_avals)
    work = [_StageWork(stages, k, micro_avals, d_micro, d_params, place) for k in range(N)]
    rows = [[(k, int(table.kind[t, k]), int(table.micro[t, k])) for k in range(N) if table.kind[t, k]]
            for t in range(table.kind.shape[0])]

    def body(micro, params):
        s = jax.lax.axis_index(AXIS)
        # every Parameter whole on each device of the stage before the schedule starts: one all-gather per step
        # of what the parallel optimizer keeps cut (ZeRO-3), run by every device, instead of resharding inside one
        # stage's branch (XLA:CPU's collectives wait for every device of the program, and the other stage runs
        # another branch); a tensor-parallel strategy inside then only slices
        whole = jax.sharding.NamedSharding(jax.sharding.get_abstract_mesh(), P())
        params = [jax.lax.with_sharding_constraint(p, whole) for p in params]
        own = place.gather(s, params)     # this stage's cut Parameters whole (msx.parallel.stage_params)
        if grads:
            for w in work:
                w.layout(w.carry_zeros(), micro_avals, [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in param_avals])
        acts: dict = {}       # (k, m): the carry stage k received for micro-batch m
        grads_in: dict = {}   # (k, m): the carry gradient stage k received for micro-batch m
        kept: dict = {}       # (k, m): (how to rebuild, the residuals) of stage k's forward of m
        acc = {k: _zeros([param_avals[i] for i in w.fp]) for k, w in enumerate(work) if grads}
        g_micro = [jnp.zeros(x.shape, x.dtype) if d else None for x, d in zip(micro, d_micro)]
        out = _zeros(out_avals)
        for row in rows:
            out_keys, out_spec = _slot_outputs(row, work, stages, out_avals, grads, acc)
            ops = dict(micro=micro, params=params, own=own, acc={str(k): acc[k] for k, kind, _ in row if kind == 2})
            ops["carry"] = {f"{k}_{m}": acts[(k, m)] for k, kind, m in row if k and (k, m) in acts}
            ops["res"] = {f"{k}_{m}": kept[(k, m)][1] for k, kind, m in row if kind == 2}
            ops["g"] = {f"{k}_{m}": grads_in[(k, m)] for k, kind, m in row if kind == 2 and k < N - 1}
            trees = {f"{k}_{m}": kept[(k, m)][0] for k, kind, m in row if kind == 2}
            branches = [functools.partial(_idle, out_spec)]
            branches += [functools.partial(_act, work[k], kind, m, trees.get(f"{k}_{m}"), out_spec, grads, N)
                         for k, kind, m in row]
            index = np.zeros(N, np.int32)
            for b, (k, _, _) in enumerate(row):
                index[k] = b + 1
            res = jax.lax.switch(jnp.asarray(index)[s], branches, ops)
            if "out" in res:
                out = [a + b for a, b in zip(out, res["out"])]
            for k, kind, m in row:
                key = f"{k}_{m}"
                if kind == 1 and grads:
                    kept[(k, m)] = (work[k].traced.pop(m), res["kept"][key])
                if kind == 2:
                    acc[k] = res["acc"][str(k)]
                    for i, g in zip(work[k].fm, res["g_micro"][key]):
                        g_micro[i] = g_micro[i].at[m].add(g)
                    kept.pop((k, m), None)
            sends = [(k, k + 1, m) for k, kind, m in row if kind == 1 and k < N - 1]
            if sends:
                arrived = jax.lax.ppermute(res["send_f"], AXIS, [(a, b) for a, b, _ in sends])
                acts.update({(b, m): arrived for _, b, m in sends})
            backs = [(k, k - 1, m) for k, kind, m in row if kind == 2 and k > 0]
            if backs:
                arrived = jax.lax.ppermute(res["send_b"], AXIS, [(a, b) for a, b, _ in backs])
                grads_in.update({(b, m): arrived for _, b, m in backs})
        g_params: list = [None] * len(params)
        for k, w in enumerate(work if grads else []):
            for i, g in zip(w.fp, acc[k]):
                if not place.cut[i]:
                    g_params[i] = g if g_params[i] is None else g_params[i] + g   # a shared Parameter: both stages'
        total = lambda xs: [None if x is None else jax.lax.psum(x, AXIS) for x in xs]   # noqa: E731
        g_params = total(g_params)    # each part is nonzero on one stage only
        for i, g in (place.scatter(s, acc, work) if grads else {}).items():
            g_params[i] = g           # this stage's piece, as the Parameter came in
        g_params = [g if g is not None or not d else jnp.zeros(place.piece(i) if place.cut[i] else a.shape, a.dtype)
                    for i, (g, d, a) in enumerate(zip(g_params, d_params, param_avals))]
        return total(out), total(g_micro), g_params

    specs = place.specs()
    mapped = jax.shard_map(body, mesh=mesh, in_specs=(P(), specs), out_specs=(P(), P(), specs),
                           axis_names=frozenset({AXIS}), check_vma=False)
    return mapped(list(micro), list(params))


def _slot_outputs(row, work, stages: Stages, out_avals, grads: bool, acc: dict):
    """The avals every branch of one slot returns (a dict; the same for every branch, as `lax.switch` needs)."""
    N = stages.count
    spec: dict = {}
    if any(kind == 1 and k < N - 1 for k, kind, _ in row):
        spec["send_f"] = list(stages.carry)
    if any(kind == 2 and k > 0 for k, kind, _ in row):
        spec["send_b"] = list(stages.carry)
    if any(kind == 1 and k == N - 1 for k, kind, _ in row):
        spec["out"] = list(out_avals)
    if grads:
        spec["kept"] = {f"{k}_{m}": list(work[k].avals) for k, kind, m in row if kind == 1}
        spec["acc"] = {str(k): _avals(acc[k]) for k, kind, _ in row if kind == 2}
        spec["g_micro"] = {f"{k}_{m}": [work[k].micro_avals[i] for i in work[k].fm] for k, kind, m in row
                           if kind == 2}
    return list(spec), spec


def _idle(spec: dict, ops: dict) -> dict:
    """A stage without work in this slot: zeros, and the gradient sums of the acting stages handed through."""
    out = jax.tree.map(lambda a: jnp.zeros(a.shape, a.dtype), {k: v for k, v in spec.items() if k != "acc"})
    if "acc" in spec:
        out["acc"] = dict(ops["acc"])
    return out


def _act(work: _StageWork, kind: int, m: int, tree: Any, spec: dict, grads: bool, N: int, ops: dict):
    """Stage `work.k`'s forward (kind 1) or backward (2) of micro-batch `m` (static), the rest of `spec` idle."""
    k, key = work.k, f"{work.k}_{m}"
    out = _idle(spec, ops)
    mb = [x[m] for x in ops["micro"]]
    carry = ops["carry"][key] if k else work.carry_zeros()
    params = work.place.view(k, ops["params"], ops["own"])
    if kind == 1:
        res, residuals, tree = work.forward(carry, mb, params, grads)
        out["out" if k == N - 1 else "send_f"] = list(res)
        if grads:
            out["kept"][key] = residuals
            work.traced[m] = tree
        return out
    gc, gm, gp = work.backward(tree, ops["res"][key], carry, mb, params, ops["g"].get(key, []))
    if k:
        out["send_b"] = _put(work.carry_zeros(), work.fc, gc)
    out["g_micro"][key] = list(gm)
    out["acc"][str(k)] = [a + g for a, g in zip(ops["acc"][str(k)], gp)]
    return out


def pipelined(stages: Stages, mesh, scheduler: str) -> Callable:
    """fn(micro inputs (each (M, ...)), params) -> the outputs summed over the micro-batches, differentiable:
    its `jax.custom_vjp` runs `scheduler`'s table with the backward in it (the output must then be one float
    scalar, the loss), differentiating only the inputs the caller differentiates (`symbolic_zeros`); without a
    gradient only the forwards run."""
    N = stages.count

    @jax.custom_vjp
    def fn(micro, params):
        M = micro[0].shape[0]
        outs, _, _ = run_schedule(stages, mesh, schedule("gpipe", N, M, backward=False), micro, params, False)
        return outs

    def fwd(micro, params):
        outs = stages.jaxpr.outvars
        if len(outs) != 1 or outs[0].aval.shape != () or not jnp.issubdtype(outs[0].aval.dtype, jnp.inexact):
            raise ContextError(f"PipelineCell: differentiating a pipeline of {N} stages needs the network to return "
                               f"one float scalar (the loss), got {[(tuple(v.aval.shape), str(v.aval.dtype)) for v in outs]}; "
                               f"wrap the network with its loss (nn.WithLossCell)")
        values, pvalues = [x.value for x in micro], [p.value for p in params]
        M = values[0].shape[0]
        out, g_micro, g_params = run_schedule(stages, mesh, schedule(scheduler, N, M), values, pvalues, True,
                                              [x.perturbed for x in micro], [p.perturbed for p in params])
        return out, (g_micro, g_params)

    def bwd(res, g):
        g_micro, g_params = res
        scale = g[0]
        if isinstance(scale, jax.custom_derivatives.SymbolicZero):
            return [None] * len(g_micro), [None] * len(g_params)
        scaled = lambda xs: [None if x is None else (x * scale).astype(x.dtype) for x in xs]   # noqa: E731
        return scaled(g_micro), scaled(g_params)

    fn.defvjp(fwd, bwd, symbolic_zeros=True)
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
