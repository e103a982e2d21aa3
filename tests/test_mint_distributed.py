"""mint.distributed in one process (world size 1): the names MindSpore 2.10 has, the values of the collectives
against numpy, and msx's errors for an unknown group or an out-of-range rank. The 2-rank run is
tests/parallel/dist_ops.py (not yet wired into pytest: its jitted batch_isend_irecv step fails in gloo)."""
from __future__ import annotations

import numpy as np
import pytest

import msx
from msx.errors import CommunicationError, OpError
from msx.mint import distributed as dist

# `dir(mindspore.mint.distributed)` of MindSpore 2.10, public names
MS_NAMES = {"P2POp", "TCPStore", "all_gather", "all_gather_into_tensor", "all_gather_into_tensor_uneven",
            "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "barrier", "batch_isend_irecv",
            "broadcast", "broadcast_object_list", "destroy_process_group", "gather", "gather_object", "get_backend",
            "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size",
            "init_process_group", "irecv", "is_available", "is_initialized", "isend", "new_group", "recv",
            "recv_object_list", "reduce", "reduce_scatter", "reduce_scatter_tensor", "reduce_scatter_tensor_uneven",
            "scatter", "scatter_object_list", "send", "send_object_list"}


@pytest.fixture(scope="module")
def world():
    dist.init_process_group()
    return dist


def test_names_are_mindspores():
    assert set(dist.__all__) == MS_NAMES
    assert all(callable(getattr(dist, n)) for n in MS_NAMES)
    # ops.gather / ops.scatter stay the array ops, as in MindSpore
    assert msx.ops.gather is not dist.gather and msx.ops.scatter is not dist.scatter


def test_world_of_one(world):
    assert (world.get_world_size(), world.get_rank(), world.is_initialized()) == (1, 0, True)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = msx.Tensor(x)
    world.all_reduce(t)
    np.testing.assert_array_equal(t.asnumpy(), x)
    out = [msx.Tensor(np.zeros_like(x))]
    world.all_gather(out, msx.Tensor(x * 2))
    np.testing.assert_array_equal(out[0].asnumpy(), x * 2)
    got = [None]
    world.all_gather_object(got, {"a": (1, 2), 3: None})
    assert got == [{"a": (1, 2), 3: None}] and isinstance(got[0]["a"], tuple)


def test_bad_group_and_rank_are_named(world):
    t = msx.Tensor(np.ones(2, np.float32))
    with pytest.raises(CommunicationError, match="all_reduce: group 'nope' is unknown"):
        world.all_reduce(t, group="nope")
    with pytest.raises(OpError, match="root_rank=5"):
        world.broadcast(t, src=5)
    with pytest.raises(ValueError, match="send: dst=3 is not a member"):
        world.send(t, dst=3)
