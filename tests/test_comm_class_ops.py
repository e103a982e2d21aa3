"""MindSpore 2.10's remaining communication names (`ops.AllGatherV` ... `ops.NeighborExchangeV2`, `ops.Reshard`,
`ops.MoveTo`, `ops.all_to_all_v_c` / `gather_into_tensor` / `scatter_tensor`, `ops.reshard`, `ms.reshard`,
`ops.move_to`, `Tensor.move_to` / `Tensor.to_`).

MindSpore's CPU build runs no collective without a cluster, so the references are numpy: what each rank must
receive. Three settings: this process (world size 1), eagerly and under msx.jit, with msx's errors; one process
of 8 host devices (`tests/sharding/comm_host_devices.py`: a one-rank job on 8 devices, and `reshard` as a
sharding constraint over them in SEMI_AUTO_PARALLEL); two msrun ranks in one launch
(`tests/parallel/comm_class_ops_job.py`), every op eager and (where it works in a graph) jitted.
"""
from __future__ import annotations

import inspect
import os
import sys
import warnings

import numpy as np
import pytest

import msx as ms
from msx import ops
from msx.errors import CommunicationError

# inspect.signature(...) in MindSpore 2.10's venv: class ops' __init__ (without self), and the functions
MS_SIGNATURES = {
    "AllGatherV": "(group='hccl_world_group')",
    "AlltoAll": "(split_count, split_dim, concat_dim, group='hccl_world_group')",
    "AlltoAllV": "(group='hccl_world_group', block_size=1)",
    "AlltoAllVC": "(group='hccl_world_group', block_size=1, transpose=False)",
    "Barrier": "(group='hccl_world_group')",
    "BatchISendIRecv": "(op_types, remote_ranks, receive_shapes=None, receive_dtypes=None, group='hccl_world_group')",
    "CollectiveGather": "(dest_rank, group='hccl_world_group')",
    "CollectiveScatter": "(src_rank=0, group='hccl_world_group')",
    "NeighborExchange": "(send_rank_ids, recv_rank_ids, recv_shapes, send_shapes, recv_type, "
                        "group='hccl_world_group')",
    "NeighborExchangeV2": "(send_rank_ids, send_lens, recv_rank_ids, recv_lens, data_format, "
                          "group='hccl_world_group')",
    "Receive": "(sr_tag, src_rank, shape, dtype, group='hccl_world_group', group_back='hccl_world_group')",
    "Send": "(sr_tag, dest_rank, group='hccl_world_group', group_back='hccl_world_group')",
    "Reduce": "(dest_rank, op='sum', group='hccl_world_group')",
    "ReduceScatterV": "(op='sum', group='hccl_world_group')",
    "Reshard": "(in_layout, out_layout, in_strategy)",
    "MoveTo": "()",
}
MS_FUNCTIONS = {
    "all_to_all_v_c": "(output, input, send_count_matrix, group=None, async_op=False)",
    "gather_into_tensor": "(output_tensor, input_tensor, dst=0, group=None, async_op=False)",
    "scatter_tensor": "(output_tensor, input_tensor, src=0, group=None, async_op=False)",
    "reshard": "(tensor, layout)",
    "move_to": "(input, to='CPU', blocking=True)",
}


def _sig(fn, drop_self: bool) -> str:
    s = inspect.signature(fn)
    params = [p.replace(annotation=inspect.Parameter.empty) for p in s.parameters.values()][int(drop_self):]
    return str(s.replace(parameters=params, return_annotation=inspect.Signature.empty))


@pytest.fixture(scope="module")
def world():
    from msx.communication import init

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        init()


def t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype))


def test_names_and_signatures_are_mindspores():
    for name, sig in MS_SIGNATURES.items():
        cls = getattr(ops, name)
        assert cls is getattr(ops.operations, name), name
        init = cls.__init__ if "__init__" in vars(cls) else (lambda self: None)
        assert _sig(init, True) == sig, name
    for name, sig in MS_FUNCTIONS.items():
        assert _sig(getattr(ops, name), False) == sig, name
    assert ms.reshard is ops.reshard
    assert _sig(ms.Tensor.move_to, True) == "(to, blocking=True)"
    assert _sig(ms.Tensor.to_, True) == "(device=None, non_blocking=False)"


X = np.arange(12, dtype=np.float32).reshape(3, 4)
NCHW = np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2)
_V2 = np.zeros((1, 2, 3, 4), np.float32)
_V2[:, :, 1:, 1:3] = NCHW   # recv_lens [1, 0, 1, 1] with no neighbour: zero halos around x

# (what, the call on this process's one rank, its input, numpy's answer)
ONE_RANK = [
    ("AllGatherV", lambda a: ops.AllGatherV()(a, [12]), X.reshape(-1), X.reshape(-1)),
    ("ReduceScatterV", lambda a: ops.ReduceScatterV("min")(a, (12,)), X.reshape(-1), X.reshape(-1)),
    ("AlltoAll", lambda a: ops.AlltoAll(1, 1, 0)(a), X, X),
    ("AlltoAllV", lambda a: ops.AlltoAllV(block_size=3)(a, [4], [4]), X.reshape(-1), X.reshape(-1)),
    ("AlltoAllVC", lambda a: ops.AlltoAllVC(transpose=True)(a, [12]), X, X.reshape(-1)),
    ("CollectiveGather", lambda a: ops.CollectiveGather(0)(a), X, X),
    ("CollectiveScatter", lambda a: ops.CollectiveScatter()(a), X, X),
    ("Reduce", lambda a: ops.Reduce(0, "prod")(a), X, X),
    ("NeighborExchangeV2", lambda a: ops.NeighborExchangeV2([-1] * 8, [1, 0, 0, 1], [-1] * 8, [1, 0, 1, 1],
                                                            "NCHW")(a), NCHW, _V2),
    ("NeighborExchange", lambda a: a + len(ops.NeighborExchange([], [], (), (), ms.float32)(())), X, X),
    ("Barrier", lambda a: ops.Barrier()() + a, X[0], X[0]),
    ("empty ReduceScatterV", lambda a: ops.ReduceScatterV()(a[:0], [0]), X.reshape(-1), np.float32(0)),
]


@pytest.mark.parametrize("case", ONE_RANK, ids=[c[0] for c in ONE_RANK])
def test_world_of_one_eager_and_jit_equal_numpy(world, case):
    _, fn, x, want = case
    for run in (fn, ms.jit(fn)):
        got = run(t(x)).asnumpy()
        assert got.shape == np.shape(want)
        np.testing.assert_array_equal(got, want)


def test_world_of_one_functions_write_in_place(world):
    out = t(np.zeros((3, 4)))
    assert ops.all_to_all_v_c(out, t(X), [3]) is None
    np.testing.assert_array_equal(out.asnumpy(), X)
    out = t(np.zeros((3, 4)))
    ops.gather_into_tensor(out, t(X * 2))
    np.testing.assert_array_equal(out.asnumpy(), X * 2)
    out = t(np.zeros((3, 4)), np.int32)
    handle = ops.scatter_tensor(out, t(X + 1), src=0, async_op=True)
    handle.wait()
    np.testing.assert_array_equal(out.asnumpy(), (X + 1).astype(np.int32))

    def jitted(a, o):
        ops.all_to_all_v_c(o, a * 3, [3])
        return o

    np.testing.assert_array_equal(ms.jit(jitted)(t(X), t(np.zeros((3, 4)))).asnumpy(), X * 3)


BAD = [
    (lambda: ops.AlltoAll(1, 0, 0, group="nope"), CommunicationError, "AlltoAll: group 'nope' is unknown"),
    (lambda: ops.AlltoAll(2, 0, 0), ValueError, "AlltoAll: split_count=2 must equal the size of group"),
    (lambda: ops.AlltoAll(1, 2, 0)(t(X)), ValueError, "AlltoAll: split_dim=2 is out of range"),
    (lambda: ops.AllGatherV()(t(X), [6, 6]), ValueError, "AllGatherV: output_split_sizes must hold 1 sizes"),
    (lambda: ops.AllGatherV()(t(X), [5]), ValueError, r"AllGatherV: this rank's input has 12 elements, "
                                                       r"output_split_sizes\[0\] says 5"),
    (lambda: ops.AllGatherV()(t(X), [-1]), ValueError, "AllGatherV: output_split_sizes must be non-negative"),
    (lambda: ops.ReduceScatterV("prod"), ValueError, "ReduceScatterV: op must be one of"),
    (lambda: ops.ReduceScatterV()(t(X), [11]), ValueError, "ReduceScatterV: input has 12 elements, "
                                                           "input_split_sizes sum to 11"),
    (lambda: ops.AlltoAllV()(t(X), [10], [12]), ValueError, "AlltoAllV: input_x has 12 elements"),
    (lambda: ops.AlltoAllV(block_size=0), TypeError, "AlltoAllV: block_size must be a positive int"),
    (lambda: ops.AlltoAllVC()(t(X), [6, 6]), ValueError, "AlltoAllVC: send_count_matrix must hold 1x1"),
    (lambda: ops.AlltoAllVC()(t(X), [13]), ValueError, "AlltoAllVC: this rank's input has 12 elements"),
    (lambda: ops.CollectiveGather(dest_rank=3), ValueError, "CollectiveGather: dest_rank=3 is not a rank of "
                                                           "group 'hccl_world_group'"),
    (lambda: ops.CollectiveScatter()(t(np.float32(1))), ValueError, r"CollectiveScatter: axis 0 of shape \(\)"),
    (lambda: ops.Reduce(1), ValueError, "Reduce: dest_rank=1 is not a rank of group"),
    (lambda: ops.Barrier(group="nope")(), CommunicationError, "Barrier: group 'nope' is unknown"),
    (lambda: ops.Send(0, 1)(t(X)), ValueError, "Send: dest_rank=1 is not a rank of group 'hccl_world_group' of "
                                              "size 1"),
    (lambda: ops.Send(0, 0)(t(X)), ValueError, "Send: dest_rank=0 is this process's own rank"),
    (lambda: ops.Send(-1, 0), TypeError, "Send: sr_tag must be a non-negative int"),
    (lambda: ops.Receive(0, 2, [2], ms.float32)(), ValueError, "Receive: src_rank=2 is not a rank"),
    (lambda: ops.Receive(0, 1, [2], ms.bool_), TypeError, "Receive: dtype must be one of"),
    (lambda: ops.BatchISendIRecv(("isend",), (1, 1)), ValueError, r"BatchISendIRecv: op_types \(1\) and "
                                                                    r"remote_ranks \(2\)"),
    (lambda: ops.BatchISendIRecv(("irecv",), (1,), [(2,)], ()), ValueError, "receive_shapes .1. and "
                                                                              "receive_dtypes .0."),
    (lambda: ops.BatchISendIRecv(("send",), (1,)), ValueError, "BatchISendIRecv: op_types must hold"),
    (lambda: ops.BatchISendIRecv(("isend",), (1,))((t(X), t(X))), CommunicationError,
     "BatchISendIRecv: op_types holds 1 'isend', but input_x gives 2 tensors"),
    (lambda: ops.NeighborExchange([1], [], (), ([2], [2]), ms.float32), ValueError,
     r"NeighborExchange: send_rank_ids \(1\) / send_shapes \(2\)"),
    (lambda: ops.NeighborExchange([0], [], (), ([2],), ms.float32)((t(X),)), ValueError,
     r"NeighborExchange: input_x\[0\] has shape \(3, 4\), send_shapes\[0\] is \(2,\)"),
    (lambda: ops.NeighborExchangeV2([0, 0] + [-1] * 6, [0] * 4, [-1] * 8, [0] * 4, "NCHW"), ValueError,
     "NeighborExchangeV2: send_rank_ids .* has repeated values"),
    (lambda: ops.NeighborExchangeV2([-1] * 8, [0] * 4, [-1] * 8, [0] * 4, "NHWC"), ValueError,
     "NeighborExchangeV2: data_format must be 'NCHW'"),
    (lambda: ops.NeighborExchangeV2([-1] * 8, [0] * 4, [1] + [-1] * 7, [0] * 4, "NCHW"), ValueError,
     r"NeighborExchangeV2: recv_rank_ids entry 1 must be -1 \(no neighbour\) or a rank in \[0, 1\)"),
    (lambda: ops.NeighborExchangeV2([-1] * 8, [3, 0, 0, 0], [-1] * 8, [0] * 4, "NCHW")(t(NCHW)), ValueError,
     "NeighborExchangeV2: send_lens .* exceed the input's H x W"),
    (lambda: ops.all_to_all_v_c(t(X), t(X), (3,)), TypeError, "all_to_all_v_c: send_count_matrix must be a list"),
    (lambda: ops.all_to_all_v_c(t(X.reshape(6, 2)), t(X), [3]), ValueError,
     "all_to_all_v_c: the input and output dimensions except 0 must be of equal size"),
    (lambda: ops.all_to_all_v_c(t(X), t(X), [2]), ValueError, "all_to_all_v_c: this rank's input has 12 elements, "
                                                               "its row 0 of send_count_matrix sums to 8"),
    (lambda: ops.gather_into_tensor(t(X[:1]), t(X)), ValueError, r"gather_into_tensor: the output tensor has "
                                                                  r"shape \(1, 4\), the result \(3, 4\)"),
    (lambda: ops.gather_into_tensor(t(X), t(X), dst=1), ValueError, "gather_into_tensor: dst=1 is not a rank"),
    (lambda: ops.scatter_tensor(t(X), X), TypeError, "For scatter_tensor, the input tensor"),
    (lambda: ops.scatter_tensor(t(X), t(X), group=3), TypeError, "group must be a str"),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_input_names_the_op(world, i):
    call, kind, message = BAD[i]
    with pytest.raises(kind, match=message):
        call()


def test_non_inplace_mode_is_refused_as_in_mindspore(world):
    ops.set_comm_ops_inplace(False, ["gather_into_tensor"])
    try:
        with pytest.raises(ValueError, match="gather_into_tensor: Non-inplace mode is currently not supported"):
            ops.gather_into_tensor(t(X), t(X))
        ops.scatter_tensor(t(X), t(X))  # the others stay in place
    finally:
        ops.set_comm_ops_inplace(True)


def test_uneven_all_to_all_v_inside_a_graph_is_refused(world):
    # one rank: the counts are one; a graph still refuses what would need an agreed width with more ranks
    with pytest.raises(CommunicationError, match="AlltoAllV: uneven counts inside a compiled graph"):
        ms.jit(lambda a: ops.AlltoAllV()(a, [12], [11]))(t(X.reshape(-1)))


# ----------------------------------------------------------------------------------------------- placement
def test_move_to_and_to_(world):
    x = t(X)
    for moved in (x.move_to("CPU"), ops.move_to(x), ops.MoveTo()(x, "CPU", False)):
        assert moved is not x and moved.device == "CPU"
        np.testing.assert_array_equal(moved.asnumpy(), X)
    np.testing.assert_array_equal(ops.move_to([1, 2]).asnumpy(), [1, 2])
    assert x.to_("CPU") is x and x.device == "CPU"
    np.testing.assert_array_equal(ms.jit(lambda a: ops.move_to(a * 2, "CPU"))(x).asnumpy(), X * 2)
    target = ms.get_context("device_target")
    other = "GPU" if target != "GPU" else "Ascend"
    with pytest.raises(RuntimeError, match=f"Tensor.move_to: to='{other}' must be 'CPU' or the device target"):
        x.move_to(other)
    with pytest.raises(ValueError, match="The value of 'to' must be one of \\['Ascend', 'GPU', 'CPU'\\]"):
        x.move_to("cpu")
    with pytest.raises(ValueError, match="The type of 'blocking' must be bool"):
        x.move_to("CPU", blocking=1)
    with pytest.raises(ValueError, match="must be one of \\['Ascend', 'CPU'\\], but got None"):
        x.to_()
    with pytest.raises(ValueError, match="move_to: to must be one of \\['Ascend', 'CPU'\\]"):
        ops.move_to(x, "GPU")
    if target == "CPU":
        with pytest.raises(RuntimeError, match="move_to: to='Ascend' must be 'CPU' or the device target"):
            ms.jit(lambda a: ops.move_to(a, "Ascend"))(x)


def test_reshard_on_one_device_is_the_tensor():
    x = t(X)
    layout = ms.Layout((2, 2), ("dp", "mp"))
    assert ms.reshard(x, layout("dp", "mp")) is x and ops.reshard(x, "not a layout") is x   # MindSpore's rule
    r = ops.Reshard((layout("dp", "mp"),), (layout("dp", "mp"),), ((2, 2),))
    assert r(x) is x
    with pytest.raises(ValueError, match=r"Reshard: in_strategy \(4, 1\) is not the strategy of its layout"):
        ops.Reshard((layout("dp", "mp"),), (layout("dp", "mp"),), ((4, 1),))
    with pytest.raises(TypeError, match="Reshard: in_layout must be a tuple of mindspore.parallel.Layout"):
        ops.Reshard(((2, 2),), (layout("dp", "mp"),), ((2, 2),))


# ----------------------------------------------------------------------------------------------- 8 host devices
sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "parallel"))
from host_devices import run_json  # noqa: E402
from jobs import ROOT, msrun  # noqa: E402


@pytest.fixture(scope="module")
def eight():
    return run_json(path=os.path.join(ROOT, "tests", "sharding", "comm_host_devices.py"), devices=8)


def test_one_rank_on_8_host_devices(eight):
    assert eight["devices"] == 8
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    want = np.stack([x] * 8)
    np.testing.assert_array_equal(eight["one_rank"], want)
    np.testing.assert_array_equal(eight["jit_one_rank"], want)
    assert eight["move_to"] == ["CPU", True]


def test_reshard_is_a_sharding_constraint_over_8_devices(eight):
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    for key, want in (("reshard", x * 2 + 1), ("Reshard", x * 3)):
        np.testing.assert_array_equal(eight[key], want)
        np.testing.assert_array_equal(eight[f"{key}_eager"], want)
    # Layout((4, 2), ("dp", "mp")): dp takes the mesh's axes of 2 s0, s1 and mp s2 (msx.parallel.sharding)
    assert eight["reshard_shardings"] == ['[{"s0", "s1"}, {"s2"}]']
    assert eight["Reshard_shardings"] == ['[{"s0", "s1"}, {"s2"}]', '[{"s0", "s1", "s2"}, {}]']   # in, then out
    assert eight["bad_layout"].startswith("OpError") and "reshard: layout[0]" in eight["bad_layout"]


# ----------------------------------------------------------------------------------------------- two ranks
@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    out = tmp_path_factory.mktemp("comm_class_ops")
    proc, _ = msrun(out / "log", "--worker_num=2", "--local_worker_num=2",
                    script=os.path.join(ROOT, "tests", "parallel", "comm_class_ops_job.py"), script_args=(str(out),))
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return [dict(np.load(out / f"rank{r}.npz")) for r in range(2)]


def _expected(rank: int) -> dict:
    """What each rank must hold, from numpy (the values comm_class_ops_job.py gives each rank)."""
    xs = [np.arange(8, dtype=np.float32).reshape(4, 2) * (r + 1) + r for r in range(2)]
    sv = [np.arange(6, dtype=np.float32).reshape(2, 3) + 100 * r for r in range(2)]
    rows = [np.arange(6, dtype=np.float32).reshape(3, 2), np.arange(4, dtype=np.float32).reshape(2, 2) + 100]
    peer = 1 - rank
    total = np.arange(3) * 3
    even = [np.arange(4) + 10 * r for r in range(2)]
    matrix = np.array([[1, 2], [1, 1]])   # rows of ops.all_to_all_v_c: r -> j
    starts = [np.cumsum([0, *matrix[r]]) for r in range(2)]
    out = dict(
        all_gather_v=[1, 2, 2], reduce_scatter_v=total[:1] if rank == 0 else total[1:],
        reduce_scatter_v_max=np.maximum(np.arange(3), np.arange(3) * 2)[:2] if rank == 0 else [4],
        all_to_all=np.concatenate([xs[j][:, rank:rank + 1] for j in range(2)], 0),
        all_to_all_neg=np.concatenate([xs[j][2 * rank:2 * rank + 2] for j in range(2)], 1),
        all_to_all_v=[0, 3, 4] if rank == 0 else [1, 2, 5],
        all_to_all_v_even=np.concatenate([even[j][2 * rank:2 * rank + 2] for j in range(2)]),
        all_to_all_v_c=np.arange(3) + 10 if rank == 0 else np.arange(3),
        all_to_all_v_c_t=[0] if rank == 0 else [1, 2, 3], barrier=[0],
        collective_gather=np.concatenate(xs) if rank == 0 else [0], collective_scatter=xs[1][2 * rank:2 * rank + 2],
        reduce=np.maximum(xs[0], xs[1]) if rank == 1 else [0],
        ops_all_to_all_v_c=np.concatenate([rows[j][starts[j][rank]:starts[j][rank + 1]] for j in range(2)]),
        neighbor_exchange_v2=np.concatenate([np.ones((1, 1, 2, 2)), np.full((1, 1, 1, 2), 2)], 2) if rank == 0
        else np.concatenate([np.ones((1, 1, 1, 2)), np.full((1, 1, 2, 2), 2)], 2),
    )
    out = {**out, **{"jit_" + k: v for k, v in out.items()}}
    out.update(gather_into_tensor=np.concatenate(xs) if rank == 1 else np.zeros((8, 2)),
               scatter_tensor=xs[0][2 * rank:2 * rank + 2], batch=sv[peer], batch_send_slot=np.float32(0),
               jit_batch=sv[peer] + 1, neighbor_exchange=np.full((2, 2), peer + 1),
               jit_neighbor_exchange=np.full((2, 2), peer + 5),
               jit_send_receive=sv[0] + 1 if rank == 0 else sv[0] * 2)
    del out["jit_all_to_all_v"]   # uneven counts: eager only
    if rank == 0:
        out["send"] = sv[0]
    else:
        out["receive"] = sv[0]
    return {k: np.asarray(v, np.float32) for k, v in out.items()}


@pytest.mark.parametrize("rank", [0, 1])
def test_two_ranks_equal_numpy_eager_and_jitted(two_ranks, rank):
    got, expected = two_ranks[rank], _expected(rank)
    assert sorted(got) == sorted(expected)
    for key, want in expected.items():
        assert got[key].shape == want.shape, key
        np.testing.assert_array_equal(got[key].astype(np.float32), want, err_msg=key)

