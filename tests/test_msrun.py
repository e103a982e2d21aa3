"""msrun's fault handling (issue 30.11, 33.7): process groups reaped on every exit, workers that die with msrun,
hung ranks named within `--timeout`, a raising rank's own exception first, a missing script refused.

The workers are `tests/parallel/faults.py` (the standard library only: no jax, no cluster), run by msrun in this
process (`msx.run.main`), except where msrun itself must be a process to SIGKILL; one test runs the real case of
two jax ranks, one raising while the other waits in a gloo collective.
"""
import os
import signal
import subprocess
import sys
import time

import pytest

from msx import run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAULTS = os.path.join(ROOT, "tests", "parallel", "faults.py")
sys.path.insert(0, os.path.join(ROOT, "tests", "parallel"))
from jobs import env as clean_env, free_port  # noqa: E402


def msrun(tmp_path, mode, *flags, script=FAULTS):
    """msrun --join=True of `script MODE OUT` on 2 local ranks, in this process; its exit code."""
    return run.main(["--worker_num=2", "--local_worker_num=2", f"--master_port={free_port()}",
                     f"--log_dir={tmp_path / 'log'}", "--join=True", *flags, script, mode, str(tmp_path)])


def gone(pid: int) -> bool:
    """The process has exited (a zombie whose parent has not reaped it yet counts as exited)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False


def all_gone(pids, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if all(gone(p) for p in pids):
            return True
        time.sleep(0.05)
    return all(gone(p) for p in pids)


def pids(tmp_path, ranks=(0, 1)) -> list[int]:
    return [int(p) for r in ranks for p in (tmp_path / f"pids_{r}").read_text().split()]


def test_a_dead_workers_children_are_reaped(tmp_path, capsys):
    assert msrun(tmp_path, "die") == 3
    err = capsys.readouterr().err
    assert "worker 1 " in err and "exited with code 3 (no Python exception)" in err
    assert all_gone(pids(tmp_path))  # both workers and both children, the dead worker's child included


def test_children_left_by_successful_workers_are_reaped(tmp_path, capsys):
    assert msrun(tmp_path, "leftover") == 0
    assert "all 2 workers exited successfully" in capsys.readouterr().out
    assert all_gone(pids(tmp_path))


def test_sigkill_of_msrun_leaves_no_worker(tmp_path):
    cmd = [sys.executable, "-m", "msx.run", "--worker_num=2", "--local_worker_num=2", f"--master_port={free_port()}",
           f"--log_dir={tmp_path / 'log'}", "--join=True", FAULTS, "wait", str(tmp_path)]
    proc = subprocess.Popen(cmd, env=clean_env(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        while not all((tmp_path / f"pids_{r}").exists() for r in (0, 1)):
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        proc.kill()
        proc.wait()
        assert all_gone(pids(tmp_path))  # the workers (PR_SET_PDEATHSIG) and their children (the guard)
    finally:
        proc.kill()
        proc.stderr.close()


def test_a_hung_worker_fails_the_job_within_the_timeout_naming_it(tmp_path, capsys):
    start = time.monotonic()
    assert msrun(tmp_path, "hang", "--timeout=2") == 124
    took = time.monotonic() - start
    err = capsys.readouterr().err
    hung = [line for line in err.splitlines() if "is hung" in line]
    assert len(hung) == 1 and hung[0].startswith("msrun: worker 1 ") and "--timeout=2" in hung[0], err
    assert "in wait_forever" in err and "time.sleep(600)" in err  # where its main thread stands
    assert "worker 0 stood still too" in err  # the peer that waited for it is not named as the hung one
    assert took < 120  # the ranks would sleep 600 s
    assert all_gone(pids(tmp_path))


def test_a_rank_done_with_its_script_is_not_hung_while_it_waits_for_the_others(tmp_path, capsys):
    assert msrun(tmp_path, "linger", "--timeout=1") == 0, capsys.readouterr().err
    # its heartbeat kept working after the script returned (CPython had deleted the wrapper's `__file__` then)
    assert "Traceback" not in (tmp_path / "log" / "worker_0.log").read_text()


def test_a_raising_worker_is_reported_first_and_fast(tmp_path, capsys):
    assert msrun(tmp_path, "raise") == 1
    returned = time.time()
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert first.startswith("msrun: worker 1 ") and first.endswith("failed: ValueError: rank 1 got a bad value")
    assert 'in check\n    raise ValueError(f"rank {value} got a bad value")' in err  # its own traceback
    assert err.index("ValueError") < err.index("stopping the other workers (0)")
    assert "faults.py" in err and "worker.py" not in err and "runpy" not in err  # the script's frames only
    assert returned - float((tmp_path / "raised_at").read_text()) < 5  # rank 0 sleeps 600 s: it was stopped


@pytest.mark.parametrize("form", [["missing.py"], ["python", "missing.py"]])
def test_a_missing_script_is_refused_before_any_worker_starts(tmp_path, form):
    with pytest.raises(SystemExit, match="'missing.py' is not a file .*no worker was started"):
        run.main(["--worker_num=2", "--local_worker_num=2", f"--log_dir={tmp_path / 'log'}", "--join=True", *form])
    assert not (tmp_path / "log").exists()


def test_mindspore_command_forms_run_the_script(tmp_path, capsys):
    assert run.main(["--worker_num=2", "--local_worker_num=2", f"--log_dir={tmp_path / 'log'}", "--join=True",
                     "python", FAULTS, "leftover", str(tmp_path)]) == 0
    assert all_gone(pids(tmp_path))
    with pytest.raises(SystemExit, match="interpreter options"):
        run.command(run.parser().parse_args(["python", "-u", FAULTS]))
    assert run.command(run.parser().parse_args(["pytest", "-q", "t.py"])) == ["-m", "pytest", "-q", "t.py"]


RAISE_IN_COLLECTIVE = """\
import numpy as np
import msx as ms
from msx import ops
from msx.communication import get_rank, init

init()
x = ms.Tensor(np.ones(3, np.float32))
ops.AllReduce()(x)
if get_rank() == 1:
    raise ValueError("bad value on rank 1")
ops.AllReduce()(x)  # rank 0 waits here for rank 1
"""


def test_a_rank_raising_while_its_peer_waits_in_a_collective(tmp_path):
    """The issue's case: reported first, not after the peer's gloo time-out or jax's shutdown barrier."""
    script = tmp_path / "train.py"
    script.write_text(RAISE_IN_COLLECTIVE)
    proc = subprocess.run([sys.executable, "-m", "msx.run", "--worker_num=2", "--local_worker_num=2",
                           f"--master_port={free_port()}", f"--log_dir={tmp_path / 'log'}", "--join=True",
                           str(script)], env=clean_env(), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first.startswith("msrun: worker 1 ") and first.endswith("failed: ValueError: bad value on rank 1")
    assert "DEADLINE_EXCEEDED" not in proc.stderr and "had not joined" not in proc.stderr


def test_the_cluster_forming_is_cluster_time_outs_not_timeouts(tmp_path):
    """A rank waiting in jax.distributed.initialize for a peer that never comes is not 'hung' (--timeout=1):
    it fails by --cluster_time_out, and msrun says it had not joined."""
    script = tmp_path / "join.py"
    script.write_text("import msx\n")
    proc = subprocess.run([sys.executable, "-m", "msx.run", "--worker_num=2", "--local_worker_num=1", "--node_rank=0",
                           "--cluster_time_out=4", "--timeout=1", f"--master_port={free_port()}",
                           f"--log_dir={tmp_path / 'log'}", "--join=True", str(script)],
                          env=clean_env(), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert "worker 0 had not joined the cluster" in proc.stderr and "is hung" not in proc.stderr, proc.stderr


def test_the_default_timeout_is_mindspores_collective_time_out(monkeypatch):
    monkeypatch.delenv("HCCL_EXEC_TIMEOUT", raising=False)
    assert run._default_timeout() == 1836
    monkeypatch.setenv("HCCL_EXEC_TIMEOUT", "90")
    assert run._default_timeout() == 90
    monkeypatch.setenv("HCCL_EXEC_TIMEOUT", "soon")
    with pytest.raises(SystemExit, match="HCCL_EXEC_TIMEOUT"):
        run._default_timeout()


def test_a_finished_rank_still_does_what_pythons_exit_does(tmp_path):
    # msrun's worker ends a rank with os._exit after the threads, the atexit handlers and the script's globals
    # (no interpreter finalization, where a thread inside jax's C++ aborted a CI run): nothing is lost by it
    assert msrun(tmp_path, "tidy") == 0
    for rank in (0, 1):
        assert (tmp_path / f"atexit_{rank}").read_text() == "done"
        assert (tmp_path / f"thread_{rank}").read_text() == "done"
        assert (tmp_path / f"unclosed_{rank}").read_text().startswith("buffered")


def test_a_workers_exit_status_is_pythons():
    from msx.run import worker

    assert [worker._exit_code(c) for c in (None, 0, 3, 256 + 7)] == [0, 0, 3, 7]
    assert worker._exit_code("bye") == 1
