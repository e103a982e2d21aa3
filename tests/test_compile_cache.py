"""The persistent compilation cache (`set_context(enable_compile_cache=True)`, MindSpore's env variables):
a second process compiles nothing, a corrupt entry is recompiled (never loaded wrong), off by default.

Each run is a fresh process (the cache is what survives one); jax's own monitoring events count the hits and
misses, so nothing here is timed."""
from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = r"""
import json, sys
import jax
from jax import monitoring

counts = {"hits": 0, "misses": 0, "msx_hits": 0, "msx_misses": 0, "msx_writes": 0}
EVENTS = {"/jax/compilation_cache/cache_hits": "hits", "/jax/compilation_cache/cache_misses": "misses",
          "/msx/executable_cache/hits": "msx_hits", "/msx/executable_cache/misses": "msx_misses",
          "/msx/executable_cache/writes": "msx_writes"}
def listen(event, **kwargs):
    if event in EVENTS:
        counts[EVENTS[event]] += 1
monitoring.register_event_listener(listen)

import numpy as np
import msx as ms
from msx import nn

if sys.argv[1] == "context":
    ms.set_context(enable_compile_cache=True, compile_cache_path=sys.argv[2])
net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
opt = nn.SGD(net.trainable_params(), 0.1)
grad_fn = ms.value_and_grad(lambda x, y: nn.MSELoss()(net(x), y), None, opt.parameters)

@ms.jit
def step(x, y):
    loss, grads = grad_fn(x, y)
    opt(grads)
    return loss

x, y = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), ms.Tensor(np.ones((2, 2), np.float32))
losses = [float(step(x, y)) for _ in range(3)]
print(json.dumps({"losses": losses, **counts}))
"""


def _start(tmp_path, *args, env=None) -> subprocess.Popen:
    script = tmp_path / "step.py"
    if not script.exists():  # (written once: two processes started together must not see it half-written)
        script.write_text(SCRIPT)
    full_env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]), **(env or {}))
    for key in ("MS_COMPILER_CACHE_ENABLE", "MS_COMPILER_CACHE_PATH"):
        if not env or key not in env:
            full_env.pop(key, None)
    return subprocess.Popen([sys.executable, str(script), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=full_env, cwd=tmp_path)


def _result(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def _run(tmp_path, *args, env=None):
    return _result(_start(tmp_path, *args, env=env))


def _entries(folder):
    """jax's entries and msx's own (the jitted step's executable, in `msx_executables/`)."""
    ours = os.path.join(folder, "msx_executables")
    return [os.path.join(folder, f) for f in os.listdir(folder) if f.endswith("-cache")] + \
        [os.path.join(ours, f) for f in os.listdir(ours) if f.endswith(".msxexe")]


def test_second_process_compiles_nothing_and_corrupt_entries_are_rebuilt(tmp_path):
    cache = tmp_path / "cache"
    first = _run(tmp_path, "context", str(cache))
    folder = cache / "rank_0"                               # MindSpore's layout: one folder per rank
    assert first["misses"] > 0 and _entries(folder)
    assert first["msx_misses"] == 1 and first["msx_hits"] == 0      # the jitted step: one graph, written once
    second = _run(tmp_path, "context", str(cache))
    # nothing compiled: the step's executable came from msx's cache (its graph not even lowered), the eager
    # ops' (the initializers', the inputs') from jax's
    assert second["misses"] == 0 and second["msx_misses"] == 0 and second["msx_hits"] == 1
    assert second["hits"] == first["misses"] - 1
    assert second["losses"] == first["losses"]
    # msx's entry gone, jax's there (an msx upgrade, an eviction): jax loads the step's executable, and msx does
    # not store it (XLA:CPU re-serializes a loaded executable without its kernels: the next run would fail)
    ours = folder / "msx_executables"
    for name in os.listdir(ours):
        os.remove(ours / name)
    jax_warm = _run(tmp_path, "context", str(cache))
    assert jax_warm["misses"] == 0 and jax_warm["msx_misses"] == 1 and jax_warm["msx_writes"] == 0
    assert jax_warm["losses"] == first["losses"] and not os.listdir(ours)
    for path in _entries(folder):                           # every entry damaged: each is compiled again
        blob = bytearray(open(path, "rb").read())
        blob[len(blob) // 2] ^= 0xFF
        del blob[-7:]
        open(path, "wb").write(bytes(blob))
    third = _run(tmp_path, "context", str(cache))
    assert third["losses"] == first["losses"] and third["msx_misses"] == 1 and third["msx_hits"] == 0


def test_mindspore_environment_variables_and_off_by_default(tmp_path):
    cache = tmp_path / "env_cache"
    env = {"MS_COMPILER_CACHE_ENABLE": "1", "MS_COMPILER_CACHE_PATH": str(cache)}
    first = _run(tmp_path, "env", env=env)
    assert first["misses"] > 0 and _entries(cache / "rank_0")
    assert _run(tmp_path, "env", env=env)["misses"] == 0
    plain = _run(tmp_path, "off")
    assert plain["hits"] == 0 and plain["misses"] == 0     # no cache consulted unless asked
    assert plain["losses"] == first["losses"]


def test_processes_filling_one_folder_at_once_leave_whole_entries(tmp_path):
    """Two processes compile and write the same entries at the same time (atomic renames, jax's file lock):
    a third then loads everything and computes the same losses."""
    cache = tmp_path / "shared"
    first, second = [_result(p) for p in [_start(tmp_path, "context", str(cache)) for _ in range(2)]]
    assert first["losses"] == second["losses"]
    third = _run(tmp_path, "context", str(cache))
    assert third["misses"] == 0 and third["msx_hits"] == 1 and third["losses"] == first["losses"]
    assert not [f for f in os.listdir(cache / "rank_0" / "msx_executables") if f.endswith(".tmp")]
