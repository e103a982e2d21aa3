"""mint.distributed / comm_func over 2 ranks in ONE msrun launch (run by tests/test_mint_distributed.py).

`python dist_ops.py OUT_DIR`: every rank computes each op on rank-dependent values, eagerly and (where the op
works in a graph) under msx.jit, and saves the results to OUT_DIR/rank<r>.npz plus the object results to
OUT_DIR/objects<r>.json; the test compares them with numpy."""
import faulthandler
import json
import os
import sys

import numpy as np

import msx as ms
from msx import mint
from msx.communication import comm_func
from msx.mint import distributed as dist

out_dir = sys.argv[1]
faulthandler.dump_traceback_later(int(os.environ.get("MSX_TEST_HANG_S", "240")), exit=True)  # a hang says where
dist.init_process_group()
rank, size = dist.get_rank(), dist.get_world_size()
peer = 1 - rank
res = {}


def t(a):
    return ms.Tensor(np.asarray(a))


x = np.arange(8, dtype=np.float32).reshape(4, 2) * (rank + 1) + rank  # the rank's value

# collectives, in place, eager and jit
for op in ("sum", "max", "min", "prod", "avg"):
    y = t(x)
    dist.all_reduce(y, op=op)
    res[f"all_reduce_{op}"] = y.asnumpy()


def jit_reduce(a):
    a = a * 1.0
    dist.all_reduce(a)
    return a


res["jit_all_reduce"] = ms.jit(jit_reduce)(t(x)).asnumpy()
parts = [t(np.zeros((4, 2), np.float32)) for _ in range(size)]
dist.all_gather(parts, t(x))
res["all_gather"] = np.stack([p.asnumpy() for p in parts])
out = t(np.zeros((8, 2), np.float32))
dist.all_gather_into_tensor(out, t(x))
res["all_gather_into_tensor"] = out.asnumpy()
out = t(np.zeros((2, 2), np.float32))
dist.reduce_scatter_tensor(out, t(x))
res["reduce_scatter_tensor"] = out.asnumpy()
out = t(np.zeros((4, 2), np.float32))
dist.reduce_scatter(out, [t(x), t(x * 2)])
res["reduce_scatter"] = out.asnumpy()
y = t(x)
dist.broadcast(y, src=1)
res["broadcast"] = y.asnumpy()
gl = [t(np.zeros((4, 2), np.float32)) for _ in range(size)]
dist.gather(t(x), gl, dst=0)
res["gather"] = np.stack([g.asnumpy() for g in gl])
y = t(np.zeros((4, 2), np.float32))
dist.scatter(y, [t(x), t(x + 100)] if rank == 1 else None, src=1)
res["scatter"] = y.asnumpy()
y = t(x)
dist.reduce(y, dst=1, op="max")
res["reduce"] = y.asnumpy()
# uneven: rank r holds r + 1 rows
mine = np.full((rank + 1, 2), rank + 1, np.float32)
out = t(np.zeros((3, 2), np.float32))
dist.all_gather_into_tensor_uneven(out, t(mine), output_split_sizes=[1, 2])
res["all_gather_uneven"] = out.asnumpy()
out = t(np.zeros((rank + 1, 2), np.float32))
dist.reduce_scatter_tensor_uneven(out, t(np.arange(6, dtype=np.float32).reshape(3, 2) * (rank + 1)),
                                  input_split_sizes=[1, 2])
res["reduce_scatter_uneven"] = out.asnumpy()
# all-to-all: even, list (different shapes), single with uneven splits
outs = [t(np.zeros((2,), np.float32)), t(np.zeros((2,), np.float32))]
dist.all_to_all(outs, [t(np.full(2, 10 * rank + j, np.float32)) for j in range(2)])
res["all_to_all"] = np.stack([o.asnumpy() for o in outs])
ins = [t(np.full(j + 1, 10 * rank + j, np.float32)) for j in range(2)]  # to rank j: j + 1 values
outs = [t(np.zeros(rank + 1, np.float32)) for _ in range(2)]
dist.all_to_all(outs, ins)
res["all_to_all_uneven"] = np.concatenate([o.asnumpy() for o in outs])
out = t(np.zeros((4, 2), np.float32))
dist.all_to_all_single(out, t(x))
res["all_to_all_single"] = out.asnumpy()
splits_in = [1, 3] if rank == 0 else [2, 2]  # rank 0 sends 1 row to 0, 3 to 1; rank 1 sends 2 and 2
splits_out = [1, 2] if rank == 0 else [3, 2]
out = t(np.zeros((sum(splits_out), 2), np.float32))
dist.all_to_all_single(out, t(x), splits_out, splits_in)
res["all_to_all_single_uneven"] = out.asnumpy()
got, _ = comm_func.all_to_all_single_with_output_shape((sum(splits_out), 2), t(x), splits_out, splits_in)
res["cf_all_to_all_single"] = got.asnumpy()
got, _ = comm_func.all_to_all_with_output_shape([(2,), (2,)], [t(np.full(2, 10 * rank + j, np.float32))
                                                               for j in range(2)])
res["cf_all_to_all"] = np.stack([g.asnumpy() for g in got])
matrix = [1, 2, 3, 1]  # 0->0: 1, 0->1: 2, 1->0: 3, 1->1: 1
flat = np.arange(3 if rank == 0 else 4, dtype=np.float32) + 10 * rank
out = t(np.zeros(4 if rank == 0 else 3, np.float32))
comm_func.all_to_all_v_c(out, t(flat), matrix)
res["all_to_all_v_c"] = out.asnumpy()


def jit_v_c(a, o):
    comm_func.all_to_all_v_c(o, a * 1.0, matrix)
    return o


res["jit_all_to_all_v_c"] = ms.jit(jit_v_c)(t(flat), t(np.zeros(4 if rank == 0 else 3, np.float32))).asnumpy()
res["cf_reduce_scatter"] = comm_func.reduce_scatter_tensor(t(x)).asnumpy()
res["cf_scatter_tensor"] = comm_func.scatter_tensor(t(x), src=1).asnumpy()

# point-to-point: blocking, the irecv-then-send pattern, a batch listed in opposite orders, tags, jit
send_val = np.arange(6, dtype=np.float32).reshape(2, 3) + 100 * rank
if rank == 0:
    dist.send(t(send_val), dst=1)
    buf = t(np.zeros((2, 3), np.float32))
    dist.recv(buf, src=1)
else:
    buf = t(np.zeros((2, 3), np.float32))
    dist.recv(buf, src=0)
    dist.send(t(send_val), dst=0)
res["send_recv"] = buf.asnumpy()
buf = t(np.zeros((2, 3), np.float32))
handle = dist.irecv(buf, src=peer)  # both ranks post the receive first
dist.send(t(send_val + 1), dst=peer)
handle.wait()
res["irecv_then_send"] = buf.asnumpy()
a, b = t(np.zeros((2, 3), np.float32)), t(np.zeros(3, np.int32))
ops_list = [dist.P2POp("isend", t(send_val + 2), peer), dist.P2POp(dist.irecv, a, peer),
            dist.P2POp(dist.isend, t(np.arange(3, dtype=np.int32) * (rank + 1)), peer), dist.P2POp("irecv", b, peer)]
for h in dist.batch_isend_irecv(ops_list if rank == 0 else [ops_list[i] for i in (1, 0, 3, 2)]):
    h.wait()
res["batch"] = a.asnumpy()
res["batch_int"] = b.asnumpy()
# tags: two messages in flight, received in the opposite order of sending
if rank == 0:
    comm_func.send(t(np.float32([1.0])), dst=1, tag=7)
    comm_func.send(t(np.float32([2.0])), dst=1, tag=3)
else:
    res["tag3"] = comm_func.recv(t(np.zeros(1, np.float32)), src=0, tag=3).asnumpy()
    res["tag7"] = comm_func.recv(t(np.zeros(1, np.float32)), src=0, tag=7).asnumpy()
got, h = comm_func.irecv(t(np.zeros((2, 3), np.float32)), src=peer)
comm_func.isend(t(send_val * 3), dst=peer).wait()
h.wait()
res["cf_irecv"] = got.asnumpy()
res["cf_batch"] = np.asarray(comm_func.batch_isend_irecv(
    [comm_func.P2POp("isend", t(send_val), peer), comm_func.P2POp("irecv", t(send_val), peer)])[1].asnumpy())
# dtype/shape mismatch is refused, naming both
if rank == 0:
    dist.send(t(np.zeros(3, np.float64)), dst=1)
else:
    try:
        dist.recv(t(np.zeros(3, np.float32)), src=0)
        res["mismatch"] = np.array("no error")
    except Exception as exc:  # noqa: BLE001
        res["mismatch"] = np.array(str(exc))


# point-to-point under jit: rank 0 sends (its program discards the permute), rank 1 receives
def jit_p2p(a):
    if rank == 0:
        dist.send(a * 2.0, dst=1)
        return a + 1.0
    dist.recv(a, src=0)
    return a


res["jit_send_recv"] = ms.jit(jit_p2p)(t(send_val)).asnumpy()


def jit_exchange(a, b):  # both directions, listed in different orders by the two ranks
    recv = dist.P2POp("irecv", b, peer)
    sent = dist.P2POp("isend", a * 1.0, peer)
    dist.batch_isend_irecv([sent, recv] if rank == 0 else [recv, sent])
    return b


res["jit_batch"] = ms.jit(jit_exchange)(t(send_val), t(np.zeros((2, 3), np.float32))).asnumpy()

# groups: a group of rank 1 alone, a world-spanning group, ranks and sizes
solo = dist.new_group([1])
both = dist.new_group([1, 0])
res["groups"] = np.array([dist.get_rank(solo), dist.get_world_size(solo), dist.get_rank(both),
                          dist.get_world_size(both), dist.get_global_rank(solo, 0), dist.get_group_rank(both, 1),
                          len(dist.get_process_group_ranks(solo))])
if rank == 1:
    y = t(x)
    dist.all_reduce(y, group=solo)  # only rank 1 takes part
    res["solo_all_reduce"] = y.asnumpy()
y = t(x)
dist.all_reduce(y, group=both)
res["both_all_reduce"] = y.asnumpy()
res["jit_both"] = ms.jit(lambda a: comm_func.all_reduce(a * 1.0, group=both))(t(x)).asnumpy()
if rank == 1:
    try:
        ms.jit(lambda a: comm_func.all_reduce(a * 1.0, group=solo))(t(x))
        res["jit_solo"] = np.array("no error")
    except Exception as exc:  # noqa: BLE001
        res["jit_solo"] = np.array(str(exc))

# Python objects (tagged JSON) and the store
objs = {}
gathered = [None, None]
dist.all_gather_object(gathered, {"rank": rank, "t": (rank, "x"), 3: [1.5, None]})
objs["all_gather_object"] = repr(gathered)
lst = [{"from": rank}, (rank,)]
dist.broadcast_object_list(lst, src=1)
objs["broadcast_object_list"] = repr(lst)
g = [None, None] if rank == 0 else None
dist.gather_object(("g", rank), g, dst=0)
objs["gather_object"] = repr(g)
o = [None]
dist.scatter_object_list(o, [b"zero", {"one": 1}] if rank == 0 else None, src=0)
objs["scatter_object_list"] = repr(o)
if rank == 0:
    dist.send_object_list(["foo", 12, {1: 2}], dst=1)
else:
    r = [None, None, None]
    dist.recv_object_list(r, src=0)
    objs["recv_object_list"] = repr(r)
try:
    dist.all_gather_object([None, None], object())
except Exception as exc:  # noqa: BLE001
    objs["refused"] = str(exc)
store = dist.TCPStore("127.0.0.1", 1)
store.set(f"k{rank}", f"v{rank}")
objs["store_get"] = store.get(f"k{peer}").decode()
objs["store_add"] = store.add("counter", rank + 1)
dist.barrier()
objs["store_total"] = store.add("counter", 0)
np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **res)
with open(os.path.join(out_dir, f"objects{rank}.json.tmp"), "w") as f:
    json.dump(objs, f)
os.replace(os.path.join(out_dir, f"objects{rank}.json.tmp"), os.path.join(out_dir, f"objects{rank}.json"))
dist.barrier()
