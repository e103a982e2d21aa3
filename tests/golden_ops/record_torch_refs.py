"""Record torch's answers for the ops MindSpore 2.10's CPU build has no kernel for and that are torch's own ops
(`tests/test_mint_torch_ref_ops.py`): `mint.conv_tbc`,
`mint.addr_`, `mint.equal_ext_op` (torch.equal), `ops.conv_transpose2d` (= mint.nn.functional's) and
`mint.nn.upsample_bilinear2d_op` (torch's upsample_bilinear2d), each with torch's gradients where it has one.
(torch's CPU build has no batch_norm_stats / batch_norm_elemt / batch_norm_gather_stats_with_counts either:
CUDA only; the test checks those against numpy's formulas.) Run with any Python that has torch 2.x (CPU) from
the repository root:

    python tests/golden_ops/record_torch_refs.py

Writes `torch_refs.npz`: plain arrays `<case>/<name>` (inputs too, so the test reads exactly what torch saw).
"""
from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "torch_refs.npz")


def main() -> None:
    import torch
    import torch.nn.functional as tf

    rng = np.random.default_rng(11)
    saved: dict[str, np.ndarray] = {}

    def put(case: str, **arrays) -> None:
        for k, v in arrays.items():
            saved[f"{case}/{k}"] = v.detach().numpy() if isinstance(v, torch.Tensor) else np.asarray(v)

    # conv_tbc, with gradients of sum(y * w_out)
    xt = torch.tensor(rng.standard_normal((6, 2, 3)), requires_grad=True)
    wt = torch.tensor(rng.standard_normal((3, 3, 4)), requires_grad=True)
    bt = torch.tensor(rng.standard_normal(4), requires_grad=True)
    for pad in (0, 2):
        y = torch.conv_tbc(xt, wt, bt, pad)
        w_out = torch.tensor(rng.standard_normal(tuple(y.shape)))
        gx, gw, gb = torch.autograd.grad((y * w_out).sum(), (xt, wt, bt))
        put(f"conv_tbc_pad{pad}", x=xt, w=wt, b=bt, y=y, w_out=w_out, gx=gx, gw=gw, gb=gb)
    # addr_
    a = rng.standard_normal((3, 4)).astype(np.float32)
    v1, v2 = rng.standard_normal(3).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    put("addr_", a=a, v1=v1, v2=v2, y=torch.tensor(a).addr_(torch.tensor(v1), torch.tensor(v2), beta=0.5, alpha=2.0))
    # conv_transpose2d (weight (C_in, C_out / groups, kH, kW))
    configs = {"plain": dict(), "stride_pad": dict(stride=2, padding=1, output_padding=1),
               "groups_dilation": dict(stride=(1, 2), padding=(0, 1), groups=2, dilation=(2, 1))}
    for name, kw in configs.items():
        xt = torch.tensor(rng.standard_normal((2, 4, 3, 4)), requires_grad=True)
        wt = torch.tensor(rng.standard_normal((4, 3 if kw.get("groups", 1) == 1 else 2, 3, 2)), requires_grad=True)
        bt = torch.tensor(rng.standard_normal(wt.shape[1] * kw.get("groups", 1)), requires_grad=True)
        y = tf.conv_transpose2d(xt, wt, bt, **kw)
        w_out = torch.tensor(rng.standard_normal(tuple(y.shape)))
        gx, gw, gb = torch.autograd.grad((y * w_out).sum(), (xt, wt, bt))
        put(f"conv_transpose2d_{name}", x=xt, w=wt, b=bt, y=y, w_out=w_out, gx=gx, gw=gw, gb=gb)
    # upsample_bilinear2d
    img = torch.tensor(rng.standard_normal((1, 2, 3, 4)), requires_grad=True)
    for name, (size, scales, align) in {"size": ((5, 7), None, False), "align": ((4, 6), None, True),
                                        "scales": (None, (1.5, 2.0), False)}.items():
        if size is not None:
            y = torch.ops.aten.upsample_bilinear2d(img, list(size), align)
        else:
            y = torch.ops.aten.upsample_bilinear2d(img, None, align, list(scales))
        w_out = torch.tensor(rng.standard_normal(tuple(y.shape)))
        (gx,) = torch.autograd.grad((y * w_out).sum(), (img,))
        put(f"upsample_bilinear2d_{name}", x=img, y=y, w_out=w_out, gx=gx)
    np.savez(OUT, **saved)
    print(f"{len(saved)} arrays -> {OUT} (torch {torch.__version__})")


if __name__ == "__main__":
    main()
