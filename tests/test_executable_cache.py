"""msx's own executable cache (msx/backends/executable_cache.py): a graph built again loads its executable with
nothing lowered and computes what the compiled one did (donated Parameters included); the key moves with every
input the lowering reads; a user's custom op is never cached; a damaged, truncated or foreign entry is a miss,
never an error or a wrong program; eviction keeps the newest entries. The second *process* is
tests/test_compile_cache.py's."""
from __future__ import annotations

import hashlib
import json
import os
import struct

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from jax import monitoring

import msx as ms
from msx import nn
from msx.backends import executable_cache as cache
from msx.backends import xla

EVENTS: list[str] = []
monitoring.register_event_listener(lambda event, **kw: EVENTS.append(event) if event.startswith("/msx/") else None)


@pytest.fixture
def folder(tmp_path):
    ms.set_context(enable_compile_cache=True, compile_cache_path=str(tmp_path))
    EVENTS.clear()
    yield cache.folder()
    ms.set_context(enable_compile_cache=False)


def _train(steps: int = 2):
    """Fresh Dense + SGD, a fresh `jit` of its step (a capture and a build each time): losses and weights."""
    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    opt = nn.SGD(net.trainable_params(), 0.01)
    grad_fn = ms.value_and_grad(lambda x, y: nn.MSELoss()(net(x), y), None, opt.parameters)

    @ms.jit
    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    x, y = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), ms.Tensor(np.ones((2, 2), np.float32))
    losses = [float(step(x, y)) for _ in range(steps)]
    _train.last = step  # kept alive: its compiled entry (and executable) live as long as it does
    return losses, net.weight.asnumpy()


def test_a_second_build_of_a_graph_loads_its_executable_and_lowers_nothing(folder, monkeypatch):
    losses, weight = _train()
    assert EVENTS.count(cache.MISS) == 1 and EVENTS.count(cache.WRITE) == 1
    assert len([f for f in os.listdir(folder) if f.endswith(cache.SUFFIX)]) == 1
    lowered = []
    monkeypatch.setattr(xla.XlaBackend, "_lower", lambda *a: lowered.append(a) or pytest.fail("lowered"))
    EVENTS.clear()
    again, weight_again = _train()
    assert EVENTS == [cache.HIT] and not lowered
    assert again == losses and losses[1] < losses[0]   # the written (donated) Parameters were updated in place
    np.testing.assert_array_equal(weight_again, weight)
    monkeypatch.undo()
    handle = [h for h in (r() for r in xla.BUILT) if h is not None][-1]
    assert callable(handle.lowered) and "stablehlo" in handle.as_text()   # lowered when its text is asked for


def test_the_key_moves_with_what_the_lowering_reads(folder, monkeypatch):
    graphs = []
    real = cache.key
    monkeypatch.setattr(cache, "key", lambda g, *a: graphs.append((g, a)) or real(g, *a))
    x = ms.Tensor(np.ones((2, 3), np.float32))
    for k in (2.0, 3.0, 2.0):
        ms.jit(lambda t, k=k: t * k)(x)
    (g2, a2), (g3, _), (g2b, _) = graphs
    assert real(g2, *a2) == real(g2b, *a2) != real(g3, *a2)           # a constant's value is in the key
    assert EVENTS.count(cache.HIT) == 1                               # the third build loaded the first's
    assert real(g2, (0,), a2[1], a2[2]) != real(g2, *a2)              # which Parameters are written
    assert real(g2, a2[0], not a2[1], a2[2]) != real(g2, *a2)         # donation
    plain = real(g2, *a2)
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_enable_fast_math=false")
    assert real(g2, *a2) != plain                                     # XLA's own flags


def test_a_graph_with_an_op_that_is_not_msxs_is_not_cached(folder, monkeypatch):
    graphs = []
    real = cache.key
    monkeypatch.setattr(cache, "key", lambda g, *a: graphs.append((g, a)) or real(g, *a))
    ms.jit(lambda t: t * 2.0)(ms.Tensor(np.ones(3, np.float32)))
    graph, args = graphs[0]
    assert cache.key(graph, *args) is not None
    prim = cache.REGISTRY[graph.nodes[0].op]
    user = type("UserPrim", (), {"attrs": prim.attrs, "category": prim.category,
                                 "impl": staticmethod(lambda *a, **k: None)})()  # defined in this test module
    monkeypatch.setitem(cache.REGISTRY, graph.nodes[0].op, user)        # the op's lowering is now a user's code
    assert cache.key(graph, *args) is None
    ms.set_context(enable_compile_cache=False)
    monkeypatch.undo()
    assert cache.key(graph, *args) is None                              # the cache off: nothing is keyed


def _entry(folder) -> tuple[str, bytes]:
    _train.result = _train(1)
    (name,) = [f for f in os.listdir(folder) if f.endswith(cache.SUFFIX)]
    with open(os.path.join(folder, name), "rb") as f:
        return name[:-len(cache.SUFFIX)], f.read()


def _rewrite(blob: bytes, header: dict) -> bytes:
    """The entry with another header, its checksum made right again: only the header's checks stand."""
    head = len(cache.MAGIC) + 40
    (size,) = struct.unpack("<Q", blob[head - 8:head])
    new = json.dumps(header).encode()
    body = struct.pack("<Q", len(new)) + new + blob[head + size:]
    return cache.MAGIC + hashlib.sha256(body).digest() + body


def test_damaged_or_foreign_entries_are_misses(folder, tmp_path):
    name, blob = _entry(folder)
    reference = _train.result
    path = os.path.join(folder, name + cache.SUFFIX)
    head = len(cache.MAGIC) + 40
    (size,) = struct.unpack("<Q", blob[head - 8:head])
    header = json.loads(blob[head:head + size])
    assert cache._read(path, name) is not None
    assert cache._read(path, "0" * 64) is None                           # another key's file under this name
    sig = header["signature"]
    bad = [dict(sig, args=[[[-1], "float32", False, False]] + sig["args"][1:]),   # a negative dim
           dict(sig, outputs=[[[2], "object", False]] + sig["outputs"][1:]),      # not a dtype msx knows
           dict(sig, kept=[len(sig["args"])]),                                   # a kept input out of range
           dict(sig, groups=[1, 1, 1]), dict(sig, name=3), {k: v for k, v in sig.items() if k != "kept"},
           dict(sig, kept=[[0]]), dict(sig, outputs=[[[2], ["float32"], False]] + sig["outputs"][1:]),  # unhashable
           dict(sig, groups=[True, 0, len(sig["args"]) - 1])]                                       # a bool count
    for wrong in bad:
        with open(path, "wb") as f:
            f.write(_rewrite(blob, dict(header, signature=wrong)))
        assert cache._read(path, name) is None
    with open(path, "wb") as f:
        f.write(_rewrite(blob, dict(header, format="msx-executable-0")))
    assert cache._read(path, name) is None
    with open(path, "wb") as f:                                          # a damaged file: a miss, compiled again
        f.write(blob[:len(blob) // 2])
    EVENTS.clear()
    losses, weight = _train(1)
    assert losses == reference[0] and EVENTS[0] == cache.MISS
    np.testing.assert_array_equal(weight, reference[1])


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_byte_flipped_or_cut_is_a_miss(data, tmp_path_factory):
    blob = _ENTRY[1]
    where = tmp_path_factory.mktemp("fuzz")
    path = os.path.join(where, "e" + cache.SUFFIX)
    damaged = bytearray(blob)
    if data.draw(st.booleans()):
        at = data.draw(st.integers(0, len(blob) - 1))
        damaged[at] ^= data.draw(st.integers(1, 255))
    else:
        del damaged[data.draw(st.integers(0, len(blob) - 1)):]
    with open(path, "wb") as f:
        f.write(bytes(damaged))
    assert cache._read(path, _ENTRY[0]) is None


_ENTRY: list = []


@pytest.fixture(autouse=True, scope="module")
def _one_entry(tmp_path_factory):
    """One real entry for the fuzz test (the cache is switched on only while it is made)."""
    where = tmp_path_factory.mktemp("entry")
    ms.set_context(enable_compile_cache=True, compile_cache_path=str(where))
    try:
        _ENTRY.extend(_entry(cache.folder()))
    finally:
        ms.set_context(enable_compile_cache=False)
    yield


def test_eviction_removes_the_least_recently_used_first(tmp_path):
    for i, name in enumerate("abcd"):
        path = tmp_path / (name + cache.SUFFIX)
        path.write_bytes(b"x" * 100)
        os.utime(path, ns=(10 ** 18 + i * 10 ** 9, 10 ** 18 + i * 10 ** 9))   # a is the oldest, d the newest
    (tmp_path / "user.txt").write_bytes(b"y" * 1000)                        # not an entry: never touched
    cache.evict(str(tmp_path), keep="a" + cache.SUFFIX, max_bytes=250)
    assert sorted(os.listdir(tmp_path)) == ["a.msxexe", "d.msxexe", "user.txt"]
