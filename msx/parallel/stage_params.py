"""Each pipeline stage's Parameters on its own stage's devices (msx.parallel.pipeline): which Parameters and
optimizer state a global-view step keeps cut over the `pipe` mesh axis, and how a stage gets its own whole.

A jax program's arguments live on every device of its mesh, so "only on stage k's devices" is reached by cutting:
a Parameter whose axis 0 divides by the stage count is kept (between steps, with its optimizer state) cut on axis
0 over `pipe`, 1/N per device (`spmd.GlobalLayout` lays it out so). Inside the schedule's `shard_map` each device
then holds 1/N of every such Parameter, and the stages that read one receive the other pieces by `ppermute`s,
never an all-gather over `pipe`: a device keeps whole only its own stage's Parameters, for the step. The
gradients go back the same way, each stage's piece to it, so the optimizer updates 1/N of the state per device.
"""
from __future__ import annotations

import functools
import weakref
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P

from .sharding import PIPE as AXIS


def is_cut(shape: Sequence[int], stages: int) -> bool:
    """Whether a Parameter (or optimizer state buffer) of this shape is kept cut on axis 0 over `pipe`."""
    return bool(len(shape)) and shape[0] > 0 and shape[0] % stages == 0


_NETWORKS: "weakref.WeakSet" = weakref.WeakSet()


def register(network) -> None:
    """Remember a network a `PipelineCell` runs, so a global-view step keeps its Parameters cut over `pipe`."""
    _NETWORKS.add(network)


def held_names(optimizers) -> set:
    """The names of the registered networks' Parameters and of the `optimizers`' state buffers of them (named
    `<prefix>.<Parameter name>`, of the Parameter's shape): what a global-view step lays out over `pipe`."""
    shapes = {p.name: tuple(p.shape) for net in list(_NETWORKS) for p in net.get_parameters()}
    names = set(shapes)
    for opt in list(optimizers):
        for p in opt.get_parameters():
            owner = p.name.partition(".")[2]
            if shapes.get(owner) == tuple(p.shape):
                names.add(p.name)
    return names


class Placement:
    """Which Parameters are cut over `pipe` and how a stage gets its own whole.

    A Parameter whose axis 0 divides by the stage count comes into the schedule cut on axis 0 over `pipe` (as the
    global-view step keeps it between steps with its optimizer state, `spmd.GlobalLayout`): each stage holds 1/N of
    it. The stages that read it (known from the cut: one stage for a layer, two for a tied embedding) get it
    whole by N - 1 `ppermute`s of per-stage flat buffers before the first slot (every stage sends, to the stage d
    on, its pieces of what that stage reads; one buffer per dtype and shift, padded to the largest), and hand its
    gradient back the same way after the last one: piece j to stage j, the readers' pieces added. So a stage's
    devices keep whole only their own stage's Parameters, and nothing is all-gathered over `pipe`. The others
    (axis 0 not divisible, scalars) are replicated over `pipe`, as before, and their gradients summed by `psum`."""

    def __init__(self, reads: list, param_vars: list, param_avals: list):
        """`reads[k]`: the jaxpr Vars stage k reads; `param_vars`: the Parameters' Vars, in order."""
        N = self.N = len(reads)
        self.avals = param_avals
        self.cut = [is_cut(a.shape, N) for a in param_avals]
        self.entries = [[i for i, c in enumerate(self.cut) if c and param_vars[i] in reads[k]] for k in range(N)]
        self.where = [dict(_offsets([param_avals[i] for i in e], e)) for e in self.entries]   # stage -> i -> (dt, off)

    def piece(self, i: int) -> tuple:
        a = self.avals[i]
        return (a.shape[0] // self.N, *a.shape[1:])

    def _zeros(self, i: int):
        return jnp.zeros(self.piece(i), self.avals[i].dtype)

    def specs(self) -> list:
        return [P(AXIS) if c else P() for c in self.cut]

    def _pack(self, xs: list, idx: list, sizes: dict) -> dict:
        """The arrays `xs` (of Parameters `idx`) flattened into one buffer per dtype, padded to `sizes`."""
        out: dict = {}
        for x, i in zip(xs, idx):
            out.setdefault(str(self.avals[i].dtype), []).append(x.reshape(-1))
        return {dt: _padded(out.get(dt, []), n, dt) for dt, n in sizes.items()}

    def _sizes(self, groups: list, scale: int) -> dict:
        """The largest per-dtype size of `groups`' Parameters (each a list of indices), in 1/`scale` pieces."""
        sizes: dict = {}
        for idx in groups:
            per: dict = {}
            for i in idx:
                dt = str(self.avals[i].dtype)
                per[dt] = per.get(dt, 0) + int(np.prod(self.avals[i].shape)) // scale
            for dt, n in per.items():
                sizes[dt] = max(sizes.get(dt, 0), n)
        return sizes

    def gather(self, s, local: list) -> dict:
        """On every device: its stage's read Parameters whole, one flat buffer per dtype (`view` unpacks it).
        `local` (this device's pieces) and every buffer are kept whole over the stage's devices (`fix`) in and
        out of the switches, so that no branch reshards (XLA:CPU's collectives inside one
        stage's branch would wait for the other stage's devices)."""
        N, got = self.N, {}
        if not any(self.entries):
            return {}
        sizes = self._sizes(self.entries, N)
        for d in range(1, N):
            branches = [functools.partial(lambda k, ps: self._pack([fix(ps[i]) for i in self.entries[(k - d) % N]],
                                                                    self.entries[(k - d) % N], sizes), k)
                        for k in range(N)]
            buf = fix(jax.lax.switch(s, branches, local))
            got[d] = fix(jax.lax.ppermute(buf, AXIS, [(j, (j - d) % N) for j in range(N)]))   # from stage s + d

        def own(k: int, local: list, got: dict) -> dict:
            local, got, wholes = fix(local), fix(got), []
            for i in self.entries[k]:
                parts = []
                for j in range(N):
                    if j == k:
                        parts.append(local[i])
                        continue
                    dt, off = _piece_at(self, self.entries[k], i)
                    n = int(np.prod(self.piece(i)))
                    parts.append(got[(j - k) % N][dt][off:off + n].reshape(self.piece(i)))
                wholes.append(jnp.concatenate(parts, axis=0))
            return self._pack(wholes, self.entries[k], self._sizes(self.entries, 1))

        return fix(jax.lax.switch(s, [functools.partial(own, k) for k in range(N)], local, got))

    def view(self, k: int, local: list, own: dict) -> list:
        """Stage k's Parameters: its read cut ones whole (from `own`), the others as they came."""
        out = list(local)
        for i, (dt, off) in self.where[k].items():
            n = int(np.prod(self.avals[i].shape))
            out[i] = fix(fix(own[dt])[off:off + n].reshape(self.avals[i].shape))   # sliced where it is whole
        return out

    def scatter(self, s, acc: dict, work: list) -> dict:
        """{Parameter index: this device's piece of its gradient} for the cut differentiated ones: every reading
        stage hands piece j of its gradient to stage j (N - 1 `ppermute`s), which adds them."""
        N = self.N
        diff = sorted({i for w in work for i in w.fp if self.cut[i]})
        if not diff:
            return {}
        sent = [[i for i in self.entries[k] if i in work[k].fp] for k in range(N)]
        acc = {k: fix(list(v)) for k, v in acc.items()}   # whole over the stage's devices before any branch slices
        b = {i: self.piece(i)[0] for i in diff}

        def grad(k: int, i: int):
            return fix(acc[k][work[k].fp.index(i)])

        def mine(k: int) -> list:       # stage k's own piece of its gradients, zeros for what it does not read
            return [grad(k, i)[k * b[i]:(k + 1) * b[i]] if i in sent[k] else self._zeros(i) for i in diff]

        total = fix(jax.lax.switch(s, [functools.partial(mine, k) for k in range(N)]))
        sizes = self._sizes(sent, N)
        for d in range(1, N):
            def pack(k: int, d=d) -> dict:   # stage k sends stage k + d its piece of what k read
                j = (k + d) % N
                return self._pack([grad(k, i)[j * b[i]:(j + 1) * b[i]] for i in sent[k]], sent[k], sizes)

            buf = fix(jax.lax.switch(s, [functools.partial(pack, k) for k in range(N)]))
            got = fix(jax.lax.ppermute(buf, AXIS, [(t, (t + d) % N) for t in range(N)]))   # from stage s - d

            def unpack(k: int, got: dict, d=d) -> list:
                t, got = (k - d) % N, fix(got)
                out = []
                for i in diff:
                    if i not in sent[t]:
                        out.append(self._zeros(i))
                        continue
                    dt, off = _piece_at(self, sent[t], i)
                    out.append(got[dt][off:off + int(np.prod(self.piece(i)))].reshape(self.piece(i)))
                return out

            came = fix(jax.lax.switch(s, [functools.partial(unpack, k) for k in range(N)], got))
            total = [a + g for a, g in zip(total, came)]
        return dict(zip(diff, total))


def fix(tree):
    """`tree`'s arrays whole on every device of the stage (inside the schedule's shard_map, `pipe` manual): the
    flat buffers are packed, sent and sliced only where XLA's partitioner has nothing to reshard, since a
    collective inside one stage's branch would wait for the other stage's devices (XLA:CPU)."""
    whole = jax.sharding.NamedSharding(jax.sharding.get_abstract_mesh(), P())
    return jax.tree.map(lambda x: jax.lax.with_sharding_constraint(x, whole), tree)


def _offsets(avals: list, idx: list):
    """(Parameter index, (dtype, offset)) of whole Parameters packed per dtype in `idx`'s order."""
    at: dict = {}
    for a, i in zip(avals, idx):
        dt = str(a.dtype)
        yield i, (dt, at.get(dt, 0))
        at[dt] = at.get(dt, 0) + int(np.prod(a.shape))


def _piece_at(place: Placement, idx: list, i: int) -> tuple:
    """(dtype, offset) of Parameter i's piece in a buffer packing the pieces of `idx`."""
    dt, off = str(place.avals[i].dtype), 0
    for j in idx:
        if j == i:
            return dt, off
        if str(place.avals[j].dtype) == dt:
            off += int(np.prod(place.piece(j)))
    raise KeyError(i)   # pragma: no cover - callers pass a member of idx


def _padded(parts: list, n: int, dtype: str):
    flat = jnp.concatenate(parts) if parts else jnp.zeros((0,), dtype)
    return jnp.pad(flat, (0, n - flat.shape[0])) if flat.shape[0] < n else flat
