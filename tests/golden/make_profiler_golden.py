"""Records MindSpore's profiler API facts the msx tests compare against (run with the MindSpore venv):
`profile`'s parameter names and defaults, and `schedule`'s action for each step of a few configurations."""
import inspect
import json
import os

from mindspore.profiler import profile, schedule

configs = [dict(wait=1, active=2), dict(wait=0, active=1, warmup=1, repeat=2), dict(wait=2, active=3, warmup=1,
           repeat=1, skip_first=2), dict(wait=1, active=1, repeat=0, skip_first=1)]
params = {k: repr(v.default) for k, v in inspect.signature(profile.__init__).parameters.items() if k != "self"}
data = {"profile_params": params,
        "schedules": [{"config": c, "actions": [schedule(**c)(s).name for s in range(14)]} for c in configs]}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "profiler_mindspore.json"), "w") as f:
    json.dump(data, f, indent=1)
