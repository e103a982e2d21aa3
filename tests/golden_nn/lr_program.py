"""Learning-rate lists and schedules, run as `python lr_program.py mindspore` (recorded: data/lr.json) or msx."""
import sys, json, numpy as np
ms = __import__(sys.argv[1]); nn = ms.nn
out = {}
out["natural"] = nn.natural_exp_decay_lr(0.1, 0.5, 10, 2, 2, True)
out["natural_ns"] = nn.natural_exp_decay_lr(0.1, 0.5, 10, 2, 2)
out["inverse"] = nn.inverse_decay_lr(0.1, 0.5, 10, 2, 2, True)
out["poly"] = nn.polynomial_decay_lr(0.1, 0.01, 10, 2, 2, 0.5)
out["poly_upd"] = nn.polynomial_decay_lr(0.1, 0.01, 10, 2, 2, 0.5, True)
out["warmup"] = nn.warmup_lr(0.1, 10, 2, 3)
for cls in ["NaturalExpDecayLR", "InverseDecayLR"]:
    for stair in (False, True):
        s = getattr(nn, cls)(0.1, 0.9, 4, stair)
        out[f"{cls}_{stair}"] = [float(s(ms.Tensor(i, ms.int32)).asnumpy()) for i in range(9)]
print(json.dumps(out))
