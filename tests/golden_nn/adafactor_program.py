"""AdaFactor on fixed Parameters and gradients, three steps per configuration. Recorded with MindSpore 2.10 as
`.venv-ms/bin/python tests/golden_nn/adafactor_program.py > tests/golden_nn/data/adafactor.json`;
`tests/test_adafactor.py` runs `results(msx)` in-process and compares."""
import json

import numpy as np

W = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4)
B = np.array([0.5, -0.25, 0.125, 2.0], np.float32)
GRADS = [(np.cos(np.arange(12, dtype=np.float32) * (k + 1)).reshape(3, 4) * 0.3,
          np.sin(np.arange(4, dtype=np.float32) + k).astype(np.float32)) for k in range(3)]
CONFIGS = {
    "default": {},
    "no_scale": dict(scale_parameter=False),
    "warmup": dict(warmup_init=True),
    "fixed_lr": dict(learning_rate=0.05, relative_step=False, scale_parameter=False),
    "fixed_lr_scaled": dict(learning_rate=0.05, relative_step=False),
    "no_first_moment": dict(beta1=None),
    "weight_decay": dict(weight_decay=0.1),
    "clip": dict(clip_threshold=0.5, decay_rate=0.5, eps=(1e-20, 1e-2)),
}


def results(ms) -> dict:
    out = {}
    for name, cfg in CONFIGS.items():
        w = ms.Parameter(ms.Tensor(W.copy()), name="w")
        b = ms.Parameter(ms.Tensor(B.copy()), name="b")
        opt = ms.nn.AdaFactor([w, b], **cfg)
        steps = []
        for gw, gb in GRADS:
            opt((ms.Tensor(gw), ms.Tensor(gb)))
            steps.append([w.asnumpy().tolist(), b.asnumpy().tolist()])
        out[name] = steps
    return out


if __name__ == "__main__":
    import mindspore

    print(json.dumps(results(mindspore)))
