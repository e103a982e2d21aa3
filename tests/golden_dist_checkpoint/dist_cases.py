"""The distributed checkpoint both msx and MindSpore 2.10 re-shard in tests/test_dist_checkpoint.py: 8 source
ranks over 2 pipeline stages of 4 devices, 4 destination ranks, Parameters of known values (arange) cut
several ways (two axes, a merged axis, a multi-stage and a one-stage Parameter). `make(folder)` writes the
source rank files (MindSpore's .ckpt) and both strategy files with msx's writers; record.py runs MindSpore's
transform on them and stores what it wrote in mindspore.json."""
import os

import numpy as np

SHAPES = {"w": (4, 6), "b": (8,), "e": (4, 6), "h": (4, 6)}
SRC = {"w": ((2, 2), (1, 0), (0, 1)), "b": ((4,), (0,), (0, 1)), "e": ((2, 2), (-1, 1), (0, 1)),
       "h": ((2, 2), (0, -1), (1,))}
DST = {"w": ((2, 2), (0, 1), (0,)), "b": ((4,), (-1,), (0,)), "e": ((2, 2), (1, -1), (0,)),
       "h": ((4,), (-1, -1), (0,))}


def whole(name):
    return np.arange(np.prod(SHAPES[name]), dtype=np.float32).reshape(SHAPES[name]) + 100 * list(SHAPES).index(name)


def make(folder):
    from msx import checkpoint
    from msx.parallel import strategy_file as sf

    src = {n: sf.ParamLayout(*v) for n, v in SRC.items()}
    dst = {n: sf.ParamLayout(*v) for n, v in DST.items()}
    sf.save(os.path.join(folder, "src_strategy.ckpt"), src)
    sf.save(os.path.join(folder, "dst_strategy.ckpt"), dst)
    for rank in range(8):
        stage, local = divmod(rank, 4)
        arrays = {}
        for name, lay in src.items():
            if stage in lay.stages:
                full, cuts, block = whole(name), lay.cuts(), lay.block(local)
                arrays[name] = full[tuple(slice(b * n // c, (b + 1) * n // c)
                                          for b, n, c in zip(block, full.shape, cuts))]
        checkpoint.write_arrays(os.path.join(folder, "src", f"rank_{rank}", "net.ckpt"), arrays)
    return os.path.join(folder, "src_strategy.ckpt"), os.path.join(folder, "dst_strategy.ckpt")
