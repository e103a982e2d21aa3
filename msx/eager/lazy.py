"""Forward replay: a repeated sequence of eager ops runs as ONE compiled executable.

Each eager op is one call of a cached jax executable (`dispatch`), and that call is the floor of per-op
dispatch (jax's C++ `jit` path costs about twice PyTorch's whole op). What is left is not to call it: an op
whose full dispatch key is already compiled (`dispatch._FAST`: a pure function of its dynamic inputs, known
to work compiled) is *deferred* while no tape records, no capture runs and no profiler watches. Its result
is a Tensor (`tensor.PendingTensor` until it runs) whose `_data` slot is not set yet and whose `_placeholder`
holds its pending node (`dispatch.Pending`, with the output aval the key's first compile recorded), so
`shape`/`dtype`/`ndim` need no value. Reading `_data` (asnumpy, print, bool, a jit call, set_data, any op that is not deferred) goes
through `PendingTensor.__getattr__`, which runs the thread's pending *segment* (`_flush`).

A segment's structure is a flat list of ints built as it records (no hashing per op): per op the id of its
dispatch entry (which fixes the primitive, attributes and input avals) and, per dynamic input, the index
of the earlier node it reads or -1 for an outside array; the flush adds which nodes' Tensors are still
alive (the outputs). A structure seen `REPLAY_AFTER` times is compiled on its next sighting into one
`jax.jit` of the same per-op executables in the same order, and from then on runs as one call; before
that (a notebook's one-off sequence) the nodes run one by one through their own executables, as they would
have without deferring. Nodes nobody can read any more are not run at all (deferred ops are pure). A fused
executable that fails at run time falls back to the one-by-one walk.

A first sighting (a key never compiled, `dispatch.first_sighting`: its output aval from an abstract
evaluation) is deferred too, and a segment holding at least two new keys is compiled on its FIRST sighting,
cheaply (`QUICK_OPTIONS`: XLA optimisation level 0, XLA CPU's LLVM-IR fusion emitters, one LLVM module),
replaced by the fully optimised executable if it repeats: a network's first eager forward is one compile
instead of one per new op (`MSX_FUSE_FIRST=0`: off).

Segments are per thread (a lock lets another thread force one), hold their input arrays only until the
flush, and flush on their own at `LIMIT` ops. `MSX_FORWARD_REPLAY=0` in the environment, or
`set_enabled(False)`, turns deferral off.
"""
from __future__ import annotations

import operator
import os
import threading
import weakref

import jax

from .. import tensor as tensor_mod, xla_options
from ..tensor import PendingTensor, Tensor
from . import dispatch
from .dispatch import Pending

try:  # is no jax trace active? (0.7 µs; `jax.ensure_compile_time_eval()` costs 4.5 µs, on every flush)
    from jax._src.core import trace_ctx as _trace_ctx

    _top_level = _trace_ctx.is_top_level
except (ImportError, AttributeError):  # another jax: always make sure
    def _top_level() -> bool:
        return False

ENABLED = [os.environ.get("MSX_FORWARD_REPLAY", "1").lower() not in ("0", "false", "off", "no")]
FIRST = dispatch.FUSE_FIRST  # defer first sightings (`MSX_FUSE_FIRST=0`: off)
# A first sighting's fused segment is compiled cheaply, for a slower executable (about 2x) that a segment
# seen REPLAY_AFTER more times replaces by the fully optimised one: at XLA's backend optimisation level 0
# (LLVM's passes are about half of a CPU compile), with XLA CPU's LLVM-IR fusion emitters instead of its MLIR
# ones (whose per-fusion MLIR pipeline is most of what level 0 leaves) and as one LLVM module, not split for
# parallel code generation (a fixed cost per part that a small unoptimised module does not repay):
# EfficientNet-B0's first forward 4.7-4.9 -> 1.5 s of CPU time, bitwise the same logits (docs/eager.md).
# Other platforms ignore the CPU options. `MSX_FIRST_COMPILE_QUICK=0`: compile it fully at once.
QUICK_OPTIONS = (xla_options.QUICK
                 if os.environ.get("MSX_FIRST_COMPILE_QUICK", "1").lower() not in ("0", "false", "off", "no") else {})
_QUICK: dict[tuple, int] = {}  # structure -> sightings of its quick executable
_IN_FUSED: set = set()  # ids of the first-sighting entries a first-sighting segment compiled (entries live on)
FIRST_FUSE_OPS = 64  # a segment with new keys is compiled at once when it has at most this many ops per new key
LIMIT = 2048  # ops in one segment: it runs when it reaches this length
REPLAY_AFTER = 4  # sightings of a segment structure that run op by op before it is compiled (on the next)
_MAX_FUSED = 64  # compiled segment executables kept (the oldest is dropped)
_MAX_SEEN = 256  # structures counted before the counts start over (a key is up to ~2 LIMIT ints)
_NOT_DEFERRED = ("random", "state", "comm", "custom")  # categories never deferred, even when compiled
_FUSED: dict[tuple, object] = {}  # structure -> jitted segment, or None: its fused run failed, walk it
_SEEN: dict[tuple, int] = {}
_OK: dict = {}  # primitive -> may it be deferred
_MISSING = object()
_BOOK = threading.Lock()


class _Segment:
    __slots__ = ("nodes", "key", "ext", "lock")

    def __init__(self) -> None:
        self.nodes: list[Pending] = []
        self.key: list[int] = []
        self.ext: list = []  # the outside dynamic inputs, in order
        # reentrant: tracing a segment at its compile runs op impls, which must never wait on their own thread
        self.lock = threading.RLock()


class _Local(threading.local):
    seg: _Segment | None = None


_LOCAL = _Local()


def _deferrable(prim) -> bool:
    return dispatch._compilable(prim) and prim.category not in _NOT_DEFERRED


def _values_allow(prim, arrays: list, attrs: dict) -> bool:
    """Whether `prim`'s range rule (`values`, e.g. GetItem's check of Tensor indices) passes now, so the op may
    be deferred: every operand the rule reads is known (a rule marks with `reads_from = k` that it reads only the
    operands from k on, GetItem's indices after its input), and the rule finds nothing. Otherwise the caller
    runs it at its call, which forces the values and raises the op's range error."""
    first = getattr(prim.values, "reads_from", 0)
    if any(type(a) is Pending for a in arrays[first:]):
        return False
    known = [jax.ShapeDtypeStruct(a.aval.shape, a.aval.dtype) if type(a) is Pending else a for a in arrays]
    return prim.values(*known, **attrs) is None


def defer(prim, inputs: tuple, attrs: dict):
    """A pending Tensor for `prim(*inputs)`, or None: the caller runs it now (it is not deferrable)."""
    ok = _OK.get(prim)
    if ok is None:
        ok = _OK[prim] = _deferrable(prim)
    if not ok:
        return None
    seg = _LOCAL.seg
    if seg is None:
        seg = _LOCAL.seg = _Segment()
    lock = seg.lock
    lock.acquire()
    try:
        nodes, key, ext = seg.nodes, seg.key, seg.ext
        arrays = []
        try:
            for x in inputs:
                if isinstance(x, Tensor):
                    p = x._placeholder
                    if p is None:
                        arrays.append(x._data)
                    elif type(p) is Pending and p.seg is seg and nodes[p.index] is p:
                        arrays.append(p)
                    else:  # a placeholder, another thread's pending result: the caller's path reads it
                        return None
                elif type(x) is list or type(x) is tuple:
                    return None
                else:
                    arrays.append(x)
            if prim.values is not None and not _values_allow(prim, arrays, attrs):
                return None
            full, dynamic = dispatch._parts(prim, arrays, attrs)
        except Exception:  # the caller's path raises it, worded as the op's error
            return None
        if full is None:
            return None
        entry = dispatch._FAST.get(full)
        if entry is None and FIRST[0]:  # never compiled: known abstractly, compiled with its segment
            entry = dispatch.first_sighting(prim, full, attrs, dynamic)
        if entry is None or entry[3] is None:
            return None
        node = _node(entry[3], entry, dynamic, seg, nodes, key)
        for a in dynamic:
            if type(a) is Pending:
                key.append(a.index)
            else:
                key.append(-1)
                ext.append(a)
        if type(entry[3]) is tuple:  # several results: a node per result picks its part of the whole
            node.ref = _NO_TENSOR
            parts = []
            for k, aval in enumerate(entry[3]):
                parts.append(_tensor(_node(aval, _part(k), [node], seg, nodes, key)))
                key.append(node.index)
            out = tuple(parts)
        else:
            out = _tensor(node)
        dispatch._STATS["hits"] += 1
        if len(nodes) >= LIMIT:
            _flush(seg)
        return out
    finally:
        lock.release()


def _node(aval, entry: tuple, args: list, seg: _Segment, nodes: list, key: list) -> Pending:
    node = Pending()
    node.aval, node.entry, node.args, node.seg, node.index = aval, entry, args, seg, len(nodes)
    nodes.append(node)
    key.append(id(entry))
    return node


def _tensor(node: Pending) -> PendingTensor:
    t = object.__new__(PendingTensor)
    t._placeholder = node
    node.ref = weakref.ref(t)
    return t


def _no_tensor() -> None:
    return None


_NO_TENSOR = _no_tensor  # the `ref` of a several-results node: no Tensor of its own (its parts have them)
_PARTS: list = []


def _part(k: int) -> tuple:
    """The entry of "result k of the node it reads" (itself compiled: an index, inside or outside jit)."""
    while len(_PARTS) <= k:
        _PARTS.append((operator.itemgetter(len(_PARTS)), None, None, None))
    return _PARTS[k]


def force(t: Tensor, node: Pending):
    """`t._data` for a pending Tensor: run its segment (from any thread)."""
    seg = node.seg
    with seg.lock:
        if t._placeholder is node:
            try:
                _flush(seg)
            except AttributeError as exc:  # inside `__getattr__` it would read as "no attribute _data"
                raise RuntimeError(f"running the deferred eager ops failed: {exc}") from exc
    if t._placeholder is node:
        raise RuntimeError("a deferred eager op's value was lost (its segment ran without it)")
    return t._data


tensor_mod.PENDING_HOOK[:] = [force]


def flush() -> None:
    """Run this thread's pending ops now (a sync point, like reading a value)."""
    seg = _LOCAL.seg
    if seg is not None and seg.nodes:
        with seg.lock:
            _flush(seg)


def _flush(seg: _Segment) -> None:
    """Run the segment's nodes and give each live pending Tensor its array (under `seg.lock`)."""
    nodes, key, ext = seg.nodes, seg.key, seg.ext
    if not nodes:
        return
    seg.nodes, seg.key, seg.ext = [], [], []
    outs, tensors = [], []
    for n in nodes:
        t = n.ref()
        if t is not None and t._placeholder is n:
            outs.append(n.index)
            tensors.append(t)
    if not outs:
        return  # nobody can read any result: pure ops need not run
    try:
        if _top_level():
            values = _run(nodes, key, ext, outs)
        else:  # read inside a jax trace (a jax.jit of the user's): the values must still be concrete arrays
            with jax.ensure_compile_time_eval():
                values = _run(nodes, key, ext, outs)
    except BaseException:
        if not seg.nodes:  # a retry (reading a result again) reruns them
            seg.nodes, seg.key, seg.ext = nodes, key, ext
        raise
    for t, v in zip(tensors, values):
        t._data = v
        t._placeholder = None
        t.__class__ = Tensor


def _run(nodes: list, key: list, ext: list, outs: list) -> list:
    if len(nodes) == 1:
        n = nodes[0]
        value = n.entry[0](*n.args)
        dispatch.ran_alone(n.entry)
        return [value]
    skey = (tuple(key), tuple(outs))
    with _BOOK:  # segments of two threads may run at once; the counts and executables are shared
        fused = _FUSED.get(skey, _MISSING)
        if fused is _MISSING:
            seen = _SEEN.get(skey, 0)
            if seen < REPLAY_AFTER and not _first_fused(nodes):
                if len(_SEEN) >= _MAX_SEEN:
                    _SEEN.clear()
                _SEEN[skey] = seen + 1
                fused = None
            else:
                quick = seen < REPLAY_AFTER and bool(QUICK_OPTIONS)  # a first sighting: compiled cheaply
                _SEEN.pop(skey, None)
                if len(_FUSED) >= _MAX_FUSED:
                    old = next(iter(_FUSED))
                    del _FUSED[old]
                    _QUICK.pop(old, None)
                fused = _FUSED[skey] = _compile(nodes, outs, quick)  # jax compiles it at its first call, below
                if quick:
                    _QUICK[skey] = 1
                dispatch._STATS["forward_compiles"] += 1
        elif fused is not None and skey in _QUICK:  # a first sighting's cheap executable, seen again
            _QUICK[skey] += 1
            if _QUICK[skey] > REPLAY_AFTER:  # it repeats: now the fully optimised one
                del _QUICK[skey]
                fused = _FUSED[skey] = _compile(nodes, outs)
                dispatch._STATS["forward_compiles"] += 1
    if fused is None:
        return _one_by_one(nodes, outs)
    try:
        values = fused(*ext)
    except Exception:  # compiled per op, each worked; fused it did not: walk this structure from now on
        with _BOOK:
            _FUSED[skey] = None
        return _one_by_one(nodes, outs)
    dispatch._STATS["forward_replays"] += 1
    return values


def _first_fused(nodes: list) -> bool:
    """Is this segment (a structure not compiled yet) worth compiling now, on its first sighting? Its ops that
    were never compiled alone would each cost an XLA compile if walked one by one; one compile of the whole
    segment is cheaper when there are at least two of them and the segment is not much longer than that
    (about half a millisecond of compile per fused op against ~0.1 s per op compiled alone, measured)."""
    new = {id(n.entry) for n in nodes if id(n.entry) not in _IN_FUSED and not dispatch.compiled_alone(n.entry)}
    if len(new) < 2 or len(nodes) > FIRST_FUSE_OPS * len(new):
        return False
    # an op fused once counts as seen: another structure of the same ops (a loop of another length, other
    # results kept) walks them, compiling each alone once, rather than compiling a whole segment per variant
    _IN_FUSED.update(id(n.entry) for n in nodes)
    return True


def _one_by_one(nodes: list, outs: list) -> list:
    """Each needed node through its own executable, freeing an intermediate once its last reader ran."""
    needed = [False] * len(nodes)
    uses = [0] * len(nodes)
    for i in outs:
        needed[i] = True
    for n in reversed(nodes):
        if needed[n.index]:
            for a in n.args:
                if type(a) is Pending:
                    needed[a.index] = True
                    uses[a.index] += 1
    for i in outs:
        uses[i] += 1  # an output is kept to the end
    vals: list = [None] * len(nodes)
    for n in nodes:
        if not needed[n.index]:
            continue
        args = []
        for a in n.args:
            if type(a) is Pending:
                j = a.index
                args.append(vals[j])
                uses[j] -= 1
                if not uses[j]:
                    vals[j] = None
            else:
                args.append(a)
        vals[n.index] = n.entry[0](*args)
        dispatch.ran_alone(n.entry)
    return [vals[i] for i in outs]


def _compile(nodes: list, outs: list, quick: bool = False):
    """One `jax.jit` running the nodes' own executables in order (XLA fuses them; the math is theirs).
    `quick`: compiled with `QUICK_OPTIONS` (a first sighting's executable, replaced if the segment repeats)."""
    # the entries, not only their functions: a live structure key's entry ids can then never be reused
    program = [(n.entry, tuple(a.index if type(a) is Pending else -1 for a in n.args)) for n in nodes]
    outs = tuple(outs)

    def segment(*ext):
        it = iter(ext)
        vals = []
        for entry, wiring in program:
            vals.append(entry[0](*[vals[w] if w >= 0 else next(it) for w in wiring]))
        return [vals[i] for i in outs]

    jitted = jax.jit(segment)
    if not quick:
        return jitted
    done: list = []

    def run(*ext):
        if not done:
            done.append(xla_options.compile_with(jitted.lower(*ext), QUICK_OPTIONS))
        return done[0](*ext)

    return run


def set_enabled(on: bool) -> None:
    """Turn deferral on or off (off: every eager op runs at its call, as before); this thread's pending ops
    run first."""
    flush()
    ENABLED[0] = bool(on)


def enabled() -> bool:
    return ENABLED[0]


def clear() -> None:
    flush()
    with _BOOK:
        _FUSED.clear()
        _SEEN.clear()
        _QUICK.clear()
        _IN_FUSED.clear()
