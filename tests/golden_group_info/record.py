"""Record the group-file goldens with MindSpore 2.10 (run with /work/main/.venv-ms/bin/python from the repository
root): `ms_written.pb`, a `ParallelGroupMap` built and serialized by MindSpore's own `node_strategy_pb2`, and
`answers.json`, what MindSpore's `restore_group_info_list` answers for it and for `msx_written.pb` (the file
tests/test_group_info.py makes msx write; committed, so MindSpore reads exactly msx's bytes)."""
import json
import os

import mindspore as ms
from mindspore.train.node_strategy_pb2 import ParallelGroupMap

HERE = os.path.dirname(os.path.abspath(__file__))

msg = ParallelGroupMap()
for name, ranks in (("2-5004544844489628105", [0, 2]), ("4-6301172352641561019", [0, 1, 2, 3])):
    item = msg.parallel_group_item.add(group_name=name)
    item.parallel_group_ranks.dim.extend(ranks)
msg.ckpt_restore_rank_list.dim.extend([0, 2])
with open(os.path.join(HERE, "ms_written.pb"), "wb") as f:
    f.write(msg.SerializeToString())

answers = {"version": ms.__version__}
for name in ("ms_written.pb", "msx_written.pb"):
    path = os.path.join(HERE, name)
    back = ParallelGroupMap()
    with open(path, "rb") as f:
        back.ParseFromString(f.read())
    answers[name] = {"restore": ms.restore_group_info_list(path),
                     "groups": [[i.group_name, list(i.parallel_group_ranks.dim)] for i in back.parallel_group_item]}
errors = {}
for arg in (3, "no_such_group_info.pb"):   # relative: the message names it as given
    try:
        ms.restore_group_info_list(arg)
    except Exception as exc:   # noqa: BLE001  (the class and message are the golden)
        errors[repr(arg) if not isinstance(arg, str) else "missing"] = [type(exc).__name__, str(exc)]
empty = os.path.join(HERE, "_empty.pb")
open(empty, "wb").close()
try:
    ms.restore_group_info_list(empty)
except ValueError as exc:
    errors["empty"] = [type(exc).__name__, str(exc)]
os.remove(empty)
answers["errors"] = errors
with open(os.path.join(HERE, "answers.json"), "w") as f:
    json.dump(answers, f, indent=1)
print(json.dumps(answers))
