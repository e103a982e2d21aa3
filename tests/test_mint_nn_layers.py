"""msx.mint.nn's convolutions, norms and Embedding.

MindSpore 2.10's CPU backend has no kernels for mint's Conv/BatchNorm/LayerNorm/Embedding, so their
outputs, gradients and state updates are checked against PyTorch's recorded answers (mint follows torch:
tests/golden_nn/torch_cases.py, record_torch.py); GroupNorm and SyncBatchNorm are also checked against
MindSpore itself in test_golden_nn.py. Here too: Parameter names against MindSpore's, initialisation
statistics, the BatchNorm update against a numpy formula, and the errors.
"""
from __future__ import annotations

import ast
import math
import os
import sys

import numpy as np
import pytest

import msx
from msx import mint

HERE = os.path.join(os.path.dirname(__file__), "golden_nn")
sys.path.insert(0, HERE)
from nn_cases import split_grads  # noqa: E402
from torch_cases import CASES, cotangent  # noqa: E402

TORCH = os.path.join(HERE, "torch_answers")  # not "torch": `import torch` would find the folder (it is on sys.path)


def _run(name: str, gold) -> dict:
    spec = CASES[name]
    net = spec["build"](mint.nn)
    net.set_train(spec["train"])
    n_in = len(spec["inputs"])
    inputs = [gold[f"in.{i}"] for i in range(n_in)]
    state = {k[len("state."):] for k in gold.files if k.startswith("state.")}
    named = dict(net.parameters_and_names())
    assert set(named) == state, "Parameter/buffer names differ from torch's (and MindSpore's)"
    for pname, p in named.items():
        want = gold[f"state.{pname}"]
        assert tuple(p.shape) == want.shape, pname
        p.set_data(msx.Tensor(want))
    weights = [p for p in named.values() if p.requires_grad]
    float_pos = tuple(i for i, x in enumerate(inputs) if x.dtype.kind == "f")

    def loss(*xs):
        out = net(*xs)
        return (out * msx.Tensor(cotangent(0, tuple(out.shape)))).sum(), out

    grads, out = msx.grad(loss, grad_position=float_pos or None, weights=weights or None, has_aux=True)(
        *[msx.Tensor(x) for x in inputs])
    g_in, g_w = split_grads(grads, float_pos, weights)
    res = {"out": (out[0] if isinstance(out, tuple) else out).asnumpy()}
    res.update({f"grad_in.{i}": g.asnumpy() for i, g in zip(float_pos, g_in)})
    res.update({f"grad.{n}": g.asnumpy() for n, g in zip([n for n, p in named.items() if p.requires_grad], g_w)})
    res.update({f"after.{n}": p.asnumpy() for n, p in net.parameters_and_names()})
    return res


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    gold = np.load(os.path.join(TORCH, f"{name}.npz"))
    got = _run(name, gold)
    want = {k: gold[k] for k in gold.files if not k.startswith(("in.", "state.", "torch"))}
    assert sorted(got) == sorted(want)
    for key, w in want.items():
        assert got[key].shape == w.shape, f"{key}: shape {got[key].shape} != torch's {w.shape}"
        np.testing.assert_allclose(got[key], w, rtol=1e-4, atol=1e-5, err_msg=f"{name}: {key}")


def test_every_case_recorded():
    missing = [n for n in CASES if not os.path.exists(os.path.join(TORCH, f"{n}.npz"))]
    assert not missing, f"run python tests/golden_nn/record_torch.py {' '.join(missing)}"


# names and shapes as MindSpore 2.10's parameters_and_names() lists them (recorded from /work/.venv-ms)
MS_NAMES = {
    "Conv2d(4, 6, 3, groups=2)": [("weight", (6, 2, 3, 3)), ("bias", (6,))],
    "Conv1d(3, 4, 3)": [("weight", (4, 3, 3)), ("bias", (4,))],
    "Conv3d(3, 4, 3)": [("weight", (4, 3, 3, 3, 3)), ("bias", (4,))],
    "ConvTranspose2d(4, 6, 3, groups=2)": [("weight", (4, 3, 3, 3)), ("bias", (6,))],
    "BatchNorm2d(3)": [("weight", (3,)), ("bias", (3,)), ("running_mean", (3,)), ("running_var", (3,)),
                       ("num_batches_tracked", ())],
    "BatchNorm2d(3, affine=False, track_running_stats=False)": [],
    "BatchNorm2d(3, track_running_stats=False)": [("weight", (3,)), ("bias", (3,))],
    "BatchNorm2d(3, affine=False)": [("running_mean", (3,)), ("running_var", (3,)), ("num_batches_tracked", ())],
    "LayerNorm((3, 4))": [("weight", (3, 4)), ("bias", (3, 4))],
    "LayerNorm(4, bias=False)": [("weight", (4,))],
    "LayerNorm(4, elementwise_affine=False)": [],
    "Embedding(5, 3, padding_idx=1)": [("weight", (5, 3))],
    "GroupNorm(2, 4)": [("weight", (4,)), ("bias", (4,))],
}


@pytest.mark.parametrize("expr", sorted(MS_NAMES))
def test_parameter_names_are_mindspores(expr):
    call = ast.parse(expr, mode="eval").body
    net = getattr(mint.nn, call.func.id)(*[ast.literal_eval(a) for a in call.args],
                                         **{k.arg: ast.literal_eval(k.value) for k in call.keywords})
    assert [(n, tuple(p.shape)) for n, p in net.parameters_and_names()] == MS_NAMES[expr]


def test_parameter_flags_and_dtypes():
    bn = mint.nn.BatchNorm2d(3)
    flags = {n: (p.requires_grad, str(p.dtype)) for n, p in bn.parameters_and_names()}
    assert flags["num_batches_tracked"] == (False, "Int64")
    assert not flags["running_mean"][0] and flags["weight"][0]
    gn = mint.nn.GroupNorm(2, 4, affine=False)  # MindSpore keeps frozen weight/bias
    assert [(n, p.requires_grad) for n, p in gn.parameters_and_names()] == [("weight", False), ("bias", False)]
    emb = mint.nn.Embedding(2, 2, _weight=msx.Tensor(np.ones((2, 2), np.float32)), _freeze=True)
    assert not emb.weight.requires_grad and np.all(emb.weight.asnumpy() == 1)
    assert str(mint.nn.Conv2d(2, 2, 1, dtype=msx.float16).weight.dtype) == "Float16"
    assert str(mint.nn.LayerNorm(3, dtype=msx.float16).bias.dtype) == "Float16"


def test_conv_init_statistics():
    """kaiming-uniform(a=sqrt(5)) weights are U(+-1/sqrt(fan_in)); the bias bound is the same."""
    for net, fan_in in ((mint.nn.Conv2d(16, 32, 3), 16 * 9), (mint.nn.ConvTranspose2d(16, 32, 3), 32 * 9),
                        (mint.nn.Conv1d(8, 64, 5, groups=2), 4 * 5)):
        w, b = net.weight.asnumpy(), net.bias.asnumpy()
        bound = 1 / math.sqrt(fan_in)
        assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
        assert abs(w.std() - bound / math.sqrt(3)) < 0.08 * bound
        assert np.abs(b).max() <= bound
    emb = mint.nn.Embedding(1000, 20, padding_idx=3).weight.asnumpy()
    assert np.all(emb[3] == 0)
    assert abs(emb.mean()) < 0.03 and abs(emb.std() - 1.0) < 0.03


def test_batchnorm_running_stats_follow_torch_formula():
    rng = np.random.default_rng(0)
    bn = mint.nn.BatchNorm1d(3, momentum=0.2)
    bn.set_train(True)
    mean, var = np.zeros(3), np.ones(3)
    for _ in range(3):
        x = rng.standard_normal((6, 3, 4)).astype(np.float32) * 2 + 1
        bn(msx.Tensor(x))
        mean = 0.8 * mean + 0.2 * x.mean((0, 2))
        var = 0.8 * var + 0.2 * x.var((0, 2), ddof=1)
    np.testing.assert_allclose(bn.running_mean.asnumpy(), mean, rtol=1e-5)
    np.testing.assert_allclose(bn.running_var.asnumpy(), var, rtol=1e-5)
    assert int(bn.num_batches_tracked.asnumpy()) == 3
    bn.set_train(False)
    y = bn(msx.Tensor(x)).asnumpy()
    np.testing.assert_allclose(y, (x - mean[None, :, None]) / np.sqrt(var[None, :, None] + 1e-5), rtol=1e-4,
                               atol=1e-5)


def test_embedding_padding_row_gets_no_gradient():
    emb = mint.nn.Embedding(6, 3, padding_idx=4)
    ids = msx.Tensor(np.array([4, 1, 4, 2], np.int64))
    g = msx.grad(lambda i: emb(i).sum(), grad_position=None, weights=[emb.weight])(ids)[0].asnumpy()
    assert np.all(g[4] == 0) and np.all(g[1] == 1) and np.all(g[2] == 1)


@pytest.mark.parametrize("build, match", [
    (lambda: mint.nn.Conv2d(3, 4, 3, padding_mode="symmetric"), "padding_mode"),
    (lambda: mint.nn.Conv2d(3, 4, 3, stride=2, padding="same"), "strided"),
    (lambda: mint.nn.Conv2d(3, 4, 3, padding="foo"), "'valid' or 'same'"),
    (lambda: mint.nn.Conv2d(3, 4, 3, groups=2), "divisible by groups"),
    (lambda: mint.nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect"), "only padding_mode='zeros'"),
    (lambda: mint.nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=2), "output_padding"),
    (lambda: mint.nn.GroupNorm(3, 4), "divisible by num_groups"),
    (lambda: mint.nn.Embedding(5, 3, padding_idx=5), r"range of \[-5, 5\)"),
    (lambda: mint.nn.Embedding(5, 3, sparse=True), "sparse"),
    (lambda: mint.nn.SyncBatchNorm(3, process_group="g1"), "one process"),
    (lambda: mint.nn.BatchNorm2d(3, momentum=1.5), "momentum"),
    (lambda: mint.nn.Fold((1, 1), 3), "smaller than one block"),
    (lambda: mint.nn.UpsamplingNearest2d(), "exactly one of size and scale_factor"),
])
def test_bad_arguments_are_refused(build, match):
    with pytest.raises(ValueError, match=match):
        build()


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="expected 2D or 3D input, but got 4D input"):
        mint.nn.BatchNorm1d(3)(msx.Tensor(np.zeros((2, 3, 2, 2), np.float32)))
    with pytest.raises(ValueError, match="in_channels"):
        mint.nn.Conv2d(3, 4, 3)(msx.Tensor(np.zeros((1, 2, 5, 5), np.float32)))
    with pytest.raises(ValueError, match="integers"):
        mint.nn.Embedding(5, 3)(msx.Tensor(np.zeros((2,), np.float32)))


def test_unbatched_conv_and_output_size():
    conv = mint.nn.Conv2d(3, 4, 3, padding=1)
    x = np.random.default_rng(1).standard_normal((3, 5, 5)).astype(np.float32)
    np.testing.assert_allclose(conv(msx.Tensor(x)).asnumpy(), conv(msx.Tensor(x[None])).asnumpy()[0], rtol=1e-6)
    up = mint.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    assert up(msx.Tensor(x[None]), output_size=(10, 9)).shape == (1, 2, 10, 9)
    with pytest.raises(ValueError, match="not reachable"):
        up(msx.Tensor(x[None]), output_size=(12, 9))


# MindSpore 2.10's inspect.signature(mindspore.mint.nn.X.__init__), recorded from /work/.venv-ms
MS_SIGNATURES = {
    "Conv1d": "in_channels out_channels kernel_size stride=1 padding=0 dilation=1 groups=1 bias=True "
              "padding_mode='zeros' dtype=None",
    "ConvTranspose2d": "in_channels out_channels kernel_size stride=1 padding=0 output_padding=0 groups=1 bias=True "
                       "dilation=1 padding_mode='zeros' dtype=None",
    "BatchNorm2d": "num_features eps=1e-05 momentum=0.1 affine=True track_running_stats=True dtype=None",
    "SyncBatchNorm": "num_features eps=1e-05 momentum=0.1 affine=True track_running_stats=True process_group=None "
                     "dtype=None",
    "LayerNorm": "normalized_shape eps=1e-05 elementwise_affine=True bias=True dtype=None",
    "Embedding": "num_embeddings embedding_dim padding_idx=None max_norm=None norm_type=2.0 scale_grad_by_freq=False "
                 "sparse=False _weight=None _freeze=False dtype=None",
    "GroupNorm": "num_groups num_channels eps=1e-05 affine=True dtype=None",
    "Unfold": "kernel_size dilation=1 padding=0 stride=1",
    "Fold": "output_size kernel_size dilation=1 padding=0 stride=1",
    "UpsamplingBilinear2d": "size=None scale_factor=None",
    "MaxUnpool2d": "kernel_size stride=None padding=0",
}


@pytest.mark.parametrize("name", sorted(MS_SIGNATURES))
def test_signatures_are_mindspores(name):
    import inspect

    params = list(inspect.signature(getattr(mint.nn, name).__init__).parameters.values())[1:]
    ours = " ".join(p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}" for p in params)
    assert ours == MS_SIGNATURES[name]
    for conv in ("Conv2d", "Conv3d"):
        assert inspect.signature(getattr(mint.nn, conv).__init__) == inspect.signature(mint.nn.Conv1d.__init__)
