"""Launching msrun jobs of `train_dp.py` from the tests (a clean environment, a free port, a time limit)."""
import os
import socket
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tests", "parallel", "train_dp.py")
JOB_TIMEOUT = 600  # a loaded 2-core machine; a healthy 4-rank job takes ~1-2 min


def env(**extra) -> dict:
    out = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=ROOT)
    for key in ("RANK_SIZE", "RANK_ID", "MS_SCHED_HOST", "MSX_CLUSTER_PID", "XLA_FLAGS"):
        out.pop(key, None)
    out.update(extra)
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def msrun(log_dir, *flags, script=SCRIPT, script_args=(), environ=None):
    """Run `msrun --join=True` on `script`; returns (CompletedProcess, seconds)."""
    cmd = [sys.executable, "-m", "msx.run", *flags, f"--master_port={free_port()}", f"--log_dir={log_dir}",
           "--join=True", script, *script_args]
    start = time.monotonic()
    proc = subprocess.run(cmd, env=environ or env(), capture_output=True, text=True, timeout=JOB_TIMEOUT, cwd=ROOT)
    return proc, time.monotonic() - start


def one_process(out_dir, modes: str, script=SCRIPT, environ=None) -> None:
    """The reference: the script without a launcher, one process on the whole batch."""
    proc = subprocess.run([sys.executable, script, modes, str(out_dir)], env=environ or env(), capture_output=True,
                          text=True, timeout=JOB_TIMEOUT, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-4000:]


def host_devices(n: int) -> dict:
    """The environment of a CPU process that drives `n` devices."""
    return env(XLA_FLAGS=f"--xla_force_host_platform_device_count={n}")


def check_zero_checkpoints(out, name: str, ranks: int, reference) -> None:
    """Every rank's checkpoint of a parallel-optimizer run (OUT/ckpt_<r>/<name>.ckpt) holds full tensors equal to
    the unsharded run's, and loads into an optimizer on one device."""
    import msx as ms
    from msx import nn

    whole = ms.load_checkpoint(str(reference / "ckpt_0" / "adam_pynative.ckpt"))
    for r in range(ranks):  # every rank wrote its own file (MindSpore: one directory per rank), with full tensors
        saved = ms.load_checkpoint(str(out / f"ckpt_{r}" / f"{name}.ckpt"))
        assert set(saved) == set(whole)
        for key, value in whole.items():
            assert saved[key].shape == value.shape
            np.testing.assert_allclose(saved[key].asnumpy(), value.asnumpy(), rtol=1e-5, atol=1e-6, err_msg=key)
    net = nn.SequentialCell(nn.Dense(4, 8), nn.Tanh(), nn.Dense(8, 2))  # train_dp.py's MLP
    optimizer = nn.Adam(net.trainable_params(), learning_rate=0.05)
    not_loaded, unused = ms.load_param_into_net(optimizer, saved)
    assert not not_loaded and not unused
    np.testing.assert_allclose(optimizer.moment2[0].asnumpy(), whole["moment2.0.weight"].asnumpy(), rtol=1e-5)
