"""Make MindIR test files with real MindSpore 2.10 (run in its own venv: /work/.venv-ms/bin/python make_mindir.py).

Each case is exported with `mindspore.export(..., file_format="MINDIR")` in eval mode,
loaded back with `mindspore.load` + `nn.GraphCell`, and run on its inputs; the file, the
inputs and MindSpore's outputs are written beside this script and listed in index.json
(merged with the entries already there: mlp, lenetish and branchy come from ../shared/mindir).
"""
import json
import os
import sys

import numpy as np
import mindspore as ms
from mindspore import nn, ops

HERE = os.path.dirname(os.path.abspath(__file__))


class ResBlock(nn.Cell):
    """conv-BN-ReLU-conv-BN + identity, ReLU, global average pool, Dense."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(4, 4, 3, pad_mode="same", has_bias=False)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 4, 3, pad_mode="pad", padding=1, has_bias=False)
        self.bn2 = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        y = self.relu(y + x)
        y = ops.mean(y, (2, 3))
        return self.fc(y)


class TransformerBlock(nn.Cell):
    """Embedding, pre-LN multi-head self-attention and a GELU MLP, the first token's logits."""

    def __init__(self, vocab=11, d=8, heads=2):
        super().__init__()
        self.heads, self.d = heads, d
        self.scale = float(1.0 / np.sqrt(d // heads))
        self.emb = nn.Embedding(vocab, d)
        self.ln1 = nn.LayerNorm((d,))
        self.qkv = nn.Dense(d, 3 * d)
        self.proj = nn.Dense(d, d)
        self.ln2 = nn.LayerNorm((d,))
        self.fc1 = nn.Dense(d, 2 * d)
        self.fc2 = nn.Dense(2 * d, d)
        self.gelu = nn.GELU(approximate=False)
        self.head = nn.Dense(d, 5)

    def construct(self, ids):
        x = self.emb(ids)
        b, t, _ = x.shape
        h = self.ln1(x)
        qkv = self.qkv(h).reshape(b, t, 3, self.heads, self.d // self.heads)
        qkv = qkv.transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = ops.matmul(q, k.swapaxes(-1, -2)) * self.scale
        att = ops.softmax(att, -1)
        o = ops.matmul(att, v).transpose(0, 2, 1, 3).reshape(b, t, self.d)
        x = x + self.proj(o)
        x = x + self.fc2(self.gelu(self.fc1(self.ln2(x))))
        return self.head(x[:, 0])


class WhileLoop(nn.Cell):
    """A tensor-dependent while loop: double and shift until the sum passes a bound."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32)), name="w")

    def construct(self, x):
        y = ops.matmul(x, self.w)
        while y.sum() < 50.0:
            y = y * 2.0 + 1.0
        return ops.sigmoid(y)


class NestedWhile(nn.Cell):
    """Two tensor while loops, one inside the other (MindSpore shares the constant 1 between the loops' graphs)."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.linspace(-0.5, 0.5, 16).reshape(4, 4).astype(np.float32)), name="w")

    def construct(self, x):
        i = ms.Tensor(0, ms.int32)
        while i < 3:
            j = ms.Tensor(0, ms.int32)
            while j < i + 1:
                x = ops.matmul(x, self.w) + 1.0
                j = j + 1
            x = x * 0.5
            i = i + 1
        return x


class OpsMix(nn.Cell):
    """Shape, elementwise, reduction and pooling ops MindSpore's exports use, on one 4-D input."""

    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool2d(2, 2)
        self.maxpool = nn.MaxPool2d(3, 1, pad_mode="same")
        self.gelu = nn.GELU()
        self.silu = nn.SiLU()

    def construct(self, x):
        a = self.pool(x)                                    # (2, 3, 2, 2)
        b = self.maxpool(x)[:, :, ::2, 1::2]                # (2, 3, 2, 2)
        c = ops.concat((a, b), 1)                           # (2, 6, 2, 2)
        c = ops.maximum(c, ops.exp(-ops.abs(c))) - ops.minimum(c, 0.5)
        c = ops.sqrt(ops.square(c) + 1.0) + ops.log(ops.abs(c) + 1.0) ** 2
        d = c.reshape(2, 6, 4).astype(ms.float16).astype(ms.float32)
        e = ops.expand_dims(ops.max(d, -1)[0], 2) + ops.squeeze(d[:, :, 1:2], 2).sum(1, keepdims=True).unsqueeze(2)
        f = ops.where(e > 1.5, self.gelu(e), self.silu(e))
        g = ops.log_softmax(ops.tile(f, (1, 1, 3)), -1) + ops.tanh(d.mean(-1, keep_dims=True))
        idx = ops.argmax(g.reshape(2, -1), 1)
        return g.reshape(2, -1) * ops.cast(idx, ms.float32).reshape(2, 1) / 10.0 + ops.transpose(g, (0, 2, 1)).sum()


def run_case(name, net, inputs, extra_inputs=()):
    net.set_train(False)
    path = os.path.join(HERE, name)
    ms.export(net, *[ms.Tensor(a) for a in inputs], file_name=path, file_format="MINDIR")
    cell = nn.GraphCell(ms.load(path + ".mindir"))
    entries = {}
    for tag, args in [(name, inputs)] + list(extra_inputs):
        out = cell(*[ms.Tensor(a) for a in args])
        direct = net(*[ms.Tensor(a) for a in args])
        assert np.allclose(out.asnumpy(), direct.asnumpy(), atol=1e-6), tag
        np.save(os.path.join(HERE, f"{tag}.input.npy"), args[0])
        np.save(os.path.join(HERE, f"{tag}.output.npy"), out.asnumpy())
        entries[tag] = {"file": name + ".mindir", "input": f"{tag}.input.npy", "output": f"{tag}.output.npy",
                        "shape_in": list(args[0].shape), "shape_out": list(out.shape)}
    return entries


def main():
    ms.set_seed(7)
    rng = np.random.default_rng(7)
    cases = {}
    only = set(sys.argv[1:])  # case names: make only those (the other files stay as they are)
    if only - {"nested_while"}:
        raise SystemExit(f"make_mindir.py [nested_while]: unknown case(s) {sorted(only - {'nested_while'})}")
    if only:
        return _write_index(_nested_while())
    cases.update(run_case("resblock", ResBlock(), [rng.standard_normal((2, 4, 6, 6)).astype(np.float32)]))
    cases.update(run_case("transformer", TransformerBlock(), [rng.integers(0, 11, (2, 5)).astype(np.int32)]))
    cases.update(run_case("ops_mix", OpsMix(), [rng.standard_normal((2, 3, 4, 4)).astype(np.float32)]))
    cases.update(run_case("while_loop", WhileLoop(), [rng.standard_normal((2, 4)).astype(np.float32)],
                          [("while_loop_big", [np.full((2, 4), 9.0, np.float32)])]))
    cases.update(_nested_while())
    _write_index(cases)


def _nested_while():
    return run_case("nested_while", NestedWhile(), [np.random.default_rng(8).standard_normal((2, 4)).astype(np.float32)])


def _write_index(cases):
    index_path = os.path.join(HERE, "index.json")
    index = json.load(open(index_path)) if os.path.exists(index_path) else {"cases": {}}
    index["made_with"] = f"mindspore {ms.__version__}, CPU"
    index["cases"].update(cases)
    with open(index_path, "w") as f:
        json.dump(index, f, indent=1)
    print("wrote", sorted(cases), file=sys.stderr)


if __name__ == "__main__":
    main()
