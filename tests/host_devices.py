"""Run a script in a fresh Python process of N host devices (`XLA_FLAGS=--xla_force_host_platform_device_count=N`:
jax fixes its device count when it starts, so a test process of one device cannot make more) and return the
JSON object it prints on its last line."""
from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_json(script: str | None = None, path: str | None = None, devices: int = 8) -> dict:
    """`python -c script` (or `python path`) from the repository root, not under msrun."""
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=ROOT,
               XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}")
    for key in ("RANK_SIZE", "RANK_ID", "MS_SCHED_HOST", "MSX_CLUSTER_PID"):
        env.pop(key, None)
    command = [sys.executable, "-c", script] if path is None else [sys.executable, path]
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])
