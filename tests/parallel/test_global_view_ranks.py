"""SEMI_AUTO_PARALLEL (`.shard`, `ms.shard`) and AUTO_PARALLEL over two msrun worker processes (global view).

Each rank feeds its slice of the batch (full_batch=False; with full_batch=True the whole batch, captured by trace:
the process's shapes are the global ones); the jitted step is captured with the global batch and
runs as one program over every device of the job. After 3 steps both ranks' parameters are identical and equal
the one-process, one-device run on the whole batch; with two processes of two devices each as well. A capture that
would see one process's shapes (trace, bytecode) and a PyNative gradient are refused with a ContextError.
"""
import os

import numpy as np
import pytest

import jobs

SCRIPT = os.path.join(jobs.ROOT, "tests", "parallel", "train_semi.py")
MODES = ("semi", "auto", "full", "strategy")
REFUSED = ("refused:trace", "refused:bytecode", "refused:pynative")


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref")
    jobs.one_process(out, ",".join(MODES), script=SCRIPT)
    return out


def _job(tmp_path_factory, name, modes, environ=None):
    out = tmp_path_factory.mktemp(name)
    proc, _ = jobs.msrun(out / "log", "--worker_num=2", "--local_worker_num=2", script=SCRIPT,
                         script_args=(",".join(modes), str(out)), environ=environ)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    return _job(tmp_path_factory, "semi2", MODES + REFUSED)


@pytest.fixture(scope="module")
def two_by_two(tmp_path_factory):
    return _job(tmp_path_factory, "semi2x2", ("semi", "strategy"), jobs.host_devices(2))


def _check(out, reference, mode):
    want = dict(np.load(reference / f"{mode}_rank0.npz"))
    ranks = [dict(np.load(out / f"{mode}_rank{r}.npz")) for r in range(2)]
    for name, value in want.items():
        assert not np.allclose(value, 0)
        np.testing.assert_array_equal(ranks[1][name], ranks[0][name])  # the ranks never drift apart
        np.testing.assert_allclose(ranks[0][name], value, rtol=1e-5, atol=1e-5, err_msg=f"{mode} {name}")
    assert not np.allclose(want["w1"], np.linspace(-1, 1, 32).reshape(4, 8))  # it trained
    return ranks


@pytest.mark.parametrize("mode", MODES)
def test_two_ranks_train_like_one_device_on_the_whole_batch(two_ranks, reference, mode):
    ranks = _check(two_ranks, reference, mode)
    if mode != "auto":  # the strategies are in the program, whose input is the global batch (16 rows)
        assert all(bool(r["_hlo_sharded"]) for r in ranks)


@pytest.mark.parametrize("mode", ("semi", "strategy"))
def test_two_ranks_of_two_devices_train_like_one_device(two_by_two, reference, mode):
    _check(two_by_two, reference, mode)


def test_each_process_writes_its_own_ranks_local_norms(two_ranks, two_by_two):
    for out, ranks in ((two_ranks, 2), (two_by_two, 4)):
        names = [sorted(p.name for p in (out / "norms" / f"rank_{r}").iterdir()) for r in range(ranks)]
        assert names[0] == sorted(f"local_norm__{p}_float32_{3 * s + i}.npy" for s in range(3)
                                  for i, p in enumerate(("w1", "b1", "w2")))   # 3 steps, TensorDump's names
        values = [[float(np.load(out / "norms" / f"rank_{r}" / n, allow_pickle=False)) for n in names[r]]
                  for r in range(ranks)]
        assert all(v > 0 for v in values[0])
        for r in range(1, ranks):   # every Parameter is whole on every device: the same norms
            assert names[r] == names[0]
            np.testing.assert_allclose(values[r], values[0], rtol=1e-6)


@pytest.mark.parametrize("mode", REFUSED)
def test_what_cannot_see_the_global_batch_is_refused(two_ranks, mode):
    for r in range(2):
        message = (two_ranks / f"{mode.replace(':', '_')}_rank{r}.txt").read_text()
        assert message != "ran"
        assert ("capture_mode='ast'" in message) and ("global" in message), message
