"""The parallel optimizer (ZeRO-1) over ranks that each drive several devices: one process of 8 host devices,
and two msrun ranks of 2 host devices each.

The Adam (and RMSProp) state is cut over every device of the data-parallel group (processes x local devices): each device holds
only its rows, the compiled step's StableHLO takes and returns the state cut over the local devices, training
equals the unsharded one-device run (PyNative and each capture mode), and the checkpoint holds full tensors that
load on one device.
"""
import numpy as np
import pytest


import jobs

# zero2: optimizer_weight_shard_size=2, below the process's 8 devices: sharded over all of them
# zero-1+rmsprop: an elementwise rule of its own (msx.nn.optim.elementwise), not optax's
MODES = ("zero-1:pynative", "zero-1:jit:ast", "zero-1:jit:bytecode", "zero-1:jit:trace", "zero2:jit:ast",
         "zero-1+rmsprop:pynative", "zero-1+rmsprop:jit:ast")
MODES_2X2 = ("zero-1:pynative", "zero-1:jit:ast", "zero-1+l2:jit:ast", "zero-1+lamb+l2:pynative")  # +l2: level2
# train_dp.py's MLP: Dense(4, 8) weight/bias, Dense(8, 2) weight/bias; the last two (2 rows) stay whole
WHOLE_ROWS = [8, 8, 2, 2]


def _name(mode: str) -> str:
    return mode.replace(":", "_")


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref")
    jobs.one_process(out, "adam:pynative,rmsprop:pynative,lamb:pynative")  # one device, no parallel optimizer
    return out


@pytest.fixture(scope="module")
def eight_devices(tmp_path_factory):
    out = tmp_path_factory.mktemp("local8")
    jobs.one_process(out, ",".join(MODES), environ=jobs.host_devices(8))
    return out


@pytest.fixture(scope="module")
def two_by_two(tmp_path_factory):
    out = tmp_path_factory.mktemp("zero2x2")
    proc, _ = jobs.msrun(out / "log", "--worker_num=2", "--local_worker_num=2",
                         script_args=(",".join(MODES_2X2), str(out)), environ=jobs.host_devices(2))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def _check(out, mode, ranks, rows, device_rows, reference):
    kind = "rmsprop" if "rmsprop" in mode else "lamb" if "lamb" in mode else "adam"
    want = dict(np.load(reference / f"{kind}_pynative_rank0.npz"))
    got = [dict(np.load(out / f"{_name(mode)}_rank{r}.npz")) for r in range(ranks)]
    for name, value in want.items():
        if name.startswith("_"):
            continue
        assert not np.allclose(value, 0)
        for g in got:
            np.testing.assert_array_equal(g[name], got[0][name])  # the ranks never drift apart
            np.testing.assert_allclose(g[name], value, rtol=1e-5, atol=1e-5, err_msg=f"{mode} {name}")
    assert list(want["_moment1_device_rows"]) == WHOLE_ROWS  # the reference's state is whole
    for g in got:
        assert list(g["_moment1_rows"]) == rows  # the rank's rows of the state...
        assert list(g["_moment1_device_rows"]) == device_rows  # ... cut over its local devices
        if "+l2" in mode:  # level2: the reducer hands each rank only its rows of the reduced gradients
            assert list(g["_reduced_rows"]) == rows
        if "pynative" not in mode:
            assert int(g["_xla_compiles"]) == 1
            assert int(g["_hlo_cut_state"]) >= 2  # moment1 and moment2 of the (8, 4) weight enter cut
    if kind == "adam":
        jobs.check_zero_checkpoints(out, _name(mode), ranks, reference)


@pytest.mark.parametrize("mode", MODES)
def test_one_process_of_eight_devices_shards_the_state_over_them_and_trains_like_one_device(
        eight_devices, reference, mode):
    _check(eight_devices, mode, 1, WHOLE_ROWS, [1, 1, 2, 2], reference)


@pytest.mark.parametrize("mode", MODES_2X2)
def test_two_ranks_of_two_devices_shard_the_state_over_all_four(two_by_two, reference, mode):
    _check(two_by_two, mode, 2, [4, 4, 2, 2], [2, 2, 2, 2], reference)
