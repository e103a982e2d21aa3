"""MindSpore's remaining communication class ops over 2 ranks in ONE msrun launch (run by
tests/test_comm_class_ops.py).

`python comm_class_ops_job.py OUT_DIR`: every rank runs each op on rank-dependent values, eagerly and under
msx.jit (where the op works in a graph), and saves the results to OUT_DIR/rank<r>.npz; the test compares them
with numpy."""
import faulthandler
import os
import sys

import numpy as np

import msx as ms
from msx import ops
from msx.communication import get_group_size, get_rank, init

out_dir = sys.argv[1]
faulthandler.dump_traceback_later(int(os.environ.get("MSX_TEST_HANG_S", "240")), exit=True)  # a hang says where
init()
rank, size = get_rank(), get_group_size()
assert size == 2
peer = 1 - rank
res = {}


def t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype))


def both(key, fn, *args):
    """`fn(*args)` eagerly and under msx.jit."""
    res[key] = np.asarray(fn(*args).asnumpy())
    res["jit_" + key] = np.asarray(ms.jit(lambda *a: fn(*[v * 1 for v in a]))(*args).asnumpy())


x = np.arange(8, dtype=np.float32).reshape(4, 2) * (rank + 1) + rank
both("all_gather_v", lambda a: ops.AllGatherV()(a, [1, 2]), t(np.full(rank + 1, rank + 1)))
both("reduce_scatter_v", lambda a: ops.ReduceScatterV(ops.ReduceOp.SUM)(a, [1, 2]), t(np.arange(3) * (rank + 1)))
both("reduce_scatter_v_max", lambda a: ops.ReduceScatterV("max")(a, (2, 1)), t(np.arange(3) * (rank + 1)))
both("all_to_all", lambda a: ops.AlltoAll(2, 1, 0)(a), t(x))
both("all_to_all_neg", lambda a: ops.AlltoAll(2, -2, -1)(a), t(x))
send, recv = ([1, 2], [1, 2]) if rank == 0 else ([2, 1], [2, 1])
res["all_to_all_v"] = ops.AlltoAllV()(t(np.arange(3) + 3 * rank), send, recv).asnumpy()
both("all_to_all_v_even", lambda a: ops.AlltoAllV(block_size=2)(a, [1, 1], [1, 1]), t(np.arange(4) + 10 * rank))
both("all_to_all_v_c", lambda a: ops.AlltoAllVC()(a, [0, 3, 3, 0]), t(np.arange(3) + 10 * rank))
both("all_to_all_v_c_t", lambda a: ops.AlltoAllVC(transpose=True)(a, [1, 0, 3, 0]),
     t(np.arange(4) if rank == 0 else np.zeros(0)))
res["barrier"] = ops.Barrier()().asnumpy()
res["jit_barrier"] = ms.jit(lambda a: ops.Barrier()() + a)(t(np.zeros(1))).asnumpy()
both("collective_gather", lambda a: ops.CollectiveGather(dest_rank=0)(a), t(x))
both("collective_scatter", lambda a: ops.CollectiveScatter(src_rank=1)(a), t(x))
both("reduce", lambda a: ops.Reduce(1, op="max")(a), t(x))
rows = np.arange(6 if rank == 0 else 4, dtype=np.float32).reshape(-1, 2) + 100 * rank


def v_c(a):
    out = t(np.zeros((2 if rank == 0 else 3, 2)))
    ops.all_to_all_v_c(out, a, [1, 2, 1, 1])   # rows: 0->0 1, 0->1 2, 1->0 1, 1->1 1
    return out


both("ops_all_to_all_v_c", v_c, t(rows))
out = t(np.zeros((8, 2)))
ops.gather_into_tensor(out, t(x), dst=1)
res["gather_into_tensor"] = out.asnumpy()
out = t(np.zeros((2, 2)))
ops.scatter_tensor(out, t(x), src=0)
res["scatter_tensor"] = out.asnumpy()

# point-to-point
sv = np.arange(6, dtype=np.float32).reshape(2, 3) + 100 * rank
if rank == 0:
    res["send"] = ops.Send(sr_tag=0, dest_rank=1)(t(sv)).asnumpy()
else:
    res["receive"] = ops.Receive(sr_tag=0, src_rank=0, shape=[2, 3], dtype=ms.float32)().asnumpy()


def jit_p2p(a):
    if rank == 0:
        return ops.depend(a + 1, ops.Send(0, 1)(a * 2))
    return ops.Receive(0, 0, [2, 3], ms.float32)(a) + a * 0


res["jit_send_receive"] = ms.jit(jit_p2p)(t(sv)).asnumpy()
kinds = ("isend", "irecv") if rank == 0 else ("irecv", "isend")
batch = ops.BatchISendIRecv(kinds, [peer, peer], [(2, 3)], (ms.float32,))
got = batch((t(sv),))
res["batch"] = got[kinds.index("irecv")].asnumpy()
res["batch_send_slot"] = got[kinds.index("isend")].asnumpy()
res["jit_batch"] = ms.jit(lambda a: batch((a * 1,))[kinds.index("irecv")])(t(sv + 1)).asnumpy()
exchange = ops.NeighborExchange(send_rank_ids=[peer], recv_rank_ids=[peer], recv_shapes=([2, 2],),
                                send_shapes=([2, 2],), recv_type=ms.float32)
res["neighbor_exchange"] = exchange((t(np.full((2, 2), rank + 1)),))[0].asnumpy()
res["jit_neighbor_exchange"] = ms.jit(lambda a: exchange((a * 1,))[0])(t(np.full((2, 2), rank + 5))).asnumpy()
ids = [-1, -1, -1, -1, 1, -1, -1, -1] if rank == 0 else [0, -1, -1, -1, -1, -1, -1, -1]
lens = [0, 1, 0, 0] if rank == 0 else [1, 0, 0, 0]
v2 = ops.NeighborExchangeV2(send_rank_ids=ids, send_lens=lens, recv_rank_ids=ids, recv_lens=lens, data_format="NCHW")
both("neighbor_exchange_v2", v2, t(np.ones((1, 1, 2, 2)) * (rank + 1)))
np.savez(os.path.join(out_dir, f"rank{rank}.npz.tmp.npz"), **res)
os.replace(os.path.join(out_dir, f"rank{rank}.npz.tmp.npz"), os.path.join(out_dir, f"rank{rank}.npz"))
ops.Barrier()()
