"""MindSpore's communication-group file (msx/parallel/group_info.py): `restore_group_info_list` reads a file
MindSpore's own protobuf code wrote, MindSpore 2.10 reads the file msx writes (goldens of
tests/golden_group_info/record.py), the errors are MindSpore's, and a global-view step on 4 host devices writes
the file when GROUP_INFO_FILE is set, with the mirror groups of its Parameters' layouts."""
import json
import os
import textwrap

import pytest

import msx
from msx.parallel import group_info
from host_devices import run_json

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_group_info")
ANSWERS = json.load(open(os.path.join(GOLDEN, "answers.json")))
MSX_GROUPS = [("mirror_0_2", [0, 2]), ("mirror_0_1_2_3", [0, 1, 2, 3])]


def test_reads_the_file_mindspore_wrote():
    path = os.path.join(GOLDEN, "ms_written.pb")
    assert msx.restore_group_info_list(path) == ANSWERS["ms_written.pb"]["restore"] == [0, 2]
    assert [list(g) for g in group_info.group_list(path)] == ANSWERS["ms_written.pb"]["groups"]
    assert msx.parallel.restore_group_info_list is msx.restore_group_info_list


def test_mindspore_reads_the_file_msx_writes(tmp_path):
    path = str(tmp_path / "g.pb")
    group_info.save(path, MSX_GROUPS, [0, 2])
    with open(path, "rb") as f, open(os.path.join(GOLDEN, "msx_written.pb"), "rb") as g:
        assert f.read() == g.read()   # the bytes MindSpore 2.10 read
    assert ANSWERS["msx_written.pb"] == {"restore": [0, 2], "groups": [list(g) for g in MSX_GROUPS]}
    assert msx.restore_group_info_list(path) == [0, 2]


def test_mindspores_errors(tmp_path):
    errors = ANSWERS["errors"]
    with pytest.raises(TypeError) as e:
        msx.restore_group_info_list(3)
    assert [type(e.value).__name__, str(e.value)] == errors["3"]
    missing = "no_such_group_info.pb"
    with pytest.raises(ValueError) as e:
        msx.restore_group_info_list(missing)
    assert [type(e.value).__name__, str(e.value)] == errors["missing"]
    empty = tmp_path / "empty.pb"
    empty.write_bytes(b"")
    with pytest.raises(ValueError) as e:
        msx.restore_group_info_list(str(empty))
    assert [type(e.value).__name__, str(e.value)] == errors["empty"]


def test_untrusted_files(tmp_path, monkeypatch):
    junk = tmp_path / "junk.pb"
    junk.write_bytes(b"\xff\xff\xff")
    with pytest.raises(ValueError, match="is incorrect: it is not MindSpore's ParallelGroupMap"):
        msx.restore_group_info_list(str(junk))
    big = tmp_path / "big.pb"
    big.write_bytes(b"\x00" * 64)
    monkeypatch.setattr(group_info, "MAX_FILE_BYTES", 16)
    with pytest.raises(ValueError, match="has 64 bytes, more than a group file may"):
        msx.restore_group_info_list(str(big))
    partial = tmp_path / "partial.pb"   # no restore list: MindSpore's reader answers [] too
    partial.write_bytes(b"\x0a\x03\x0a\x01a")
    assert msx.restore_group_info_list(str(partial)) == []


def test_restore_ranks_is_mindspores_common_mirror_group():
    assert group_info.restore_ranks([(0, 1, 2, 3), (0, 2)], 0) == [0, 2]
    assert group_info.restore_ranks([(0, 1, 2, 3), (1,)], 1) == [1]     # a Parameter with no replica
    assert group_info.restore_ranks([], 0) == []


STEP = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    import msx as ms
    from msx import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(4, 8)
            self.fc1.shard(in_strategy=((4, 1),), parameter_plan={"self.fc1.weight": (2, 1)})
            self.fc2 = nn.Dense(8, 2)

        def construct(self, x):
            return self.fc2(ops.tanh(self.fc1(x)))

    out = {}
    for how in ("env", "context"):
        ms.reset_auto_parallel_context()
        path = os.path.join(sys.argv[1] if len(sys.argv) > 1 else ".", f"{how}/group_info.pb")
        if how == "env":
            os.environ["GROUP_INFO_FILE"] = path
        else:
            os.environ.pop("GROUP_INFO_FILE")
        ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=4,
                                     strategy_ckpt_save_file=path + ".strategy",
                                     **({"group_ckpt_save_file": path} if how == "context" else {}))
        ms.set_seed(0)
        net = Net()
        ms.jit(lambda x: net(x))(ms.Tensor(np.ones((8, 4), np.float32)))
        from msx.parallel import group_info
        from msx.parallel import strategy_file
        layout = strategy_file.read(path + ".strategy")["fc1.weight"]   # the strategy file's view of the cut
        same = [g for g in range(4) if layout.block(g) == layout.block(0)]
        out[how] = {"restore": ms.restore_group_info_list(path), "groups": group_info.group_list(path),
                    "same_block_as_rank0": same}
    print(json.dumps(out))
""")


def test_a_global_view_step_writes_the_file(tmp_path):
    """fc1.weight cut in 2 on dim 0 over 4 devices: two ranks hold each half (which two is the strategy file's
    layout: ranks 0 and 1 hold the first, on msx's mesh), so rank 0's mirror group is those two; the other
    Parameters are whole everywhere ([0..3]); the restore list is their intersection."""
    out = run_json(STEP.replace('sys.argv[1] if len(sys.argv) > 1 else "."', repr(str(tmp_path))), devices=4)
    for how in ("env", "context"):
        pair = out[how]["same_block_as_rank0"]
        assert len(pair) == 2 and out[how]["restore"] == pair, out
        assert sorted(tuple(r) for _, r in out[how]["groups"]) == [tuple(pair), (0, 1, 2, 3)], out
