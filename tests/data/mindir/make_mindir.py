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
        self.fc = nn.Dense(4, 3, weight_init=ms.Tensor(np.linspace(-1, 1.2, 12).reshape(3, 4).astype(np.float32)),
                           bias_init=ms.Tensor(np.array([0.1, -0.2, 0.3], np.float32)))

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


class GrowingW(nn.Cell):
    """The loop cases' weight, diag(1.2 ... 1.8) + 0.05: x @ w grows x each pass, so tensor conditions flip after
    a few passes."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor((np.diag(np.linspace(1.2, 1.8, 4)) + 0.05).astype(np.float32)), name="w")


class WhileBreak(GrowingW):
    """A tensor while loop left through `break` inside a tensor `if` (MindSpore: the breaking branch's graph runs
    a copy of the code after the loop, the other branch calls the loop header again)."""

    def construct(self, x):
        i = ms.Tensor(0, ms.int32)
        while i < 6:
            x = ops.matmul(x, self.w) + 0.1
            if x.sum() > 10.0:
                break
            i = i + 1
        return x * 2.0 + ops.cast(i, ms.float32)


class WhileContinue(GrowingW):
    """A tensor while loop whose `continue` (in a tensor `if`) skips the rest of the body."""

    def construct(self, x):
        i = ms.Tensor(0, ms.int32)
        while i < 5:
            i = i + 1
            x = ops.tanh(-ops.matmul(x, self.w)) + 0.05
            if x.mean() > 0.0:
                continue
            x = x - 0.2
        return x


class ForBreak(GrowingW):
    """`for` over a Python range with `break` in a tensor `if` (MindSpore unrolls the range)."""

    def construct(self, x):
        for _ in range(4):
            x = ops.matmul(x, self.w) * 0.9 + 0.25
            if x.max() > 2.0:
                break
        return ops.sigmoid(x)


class IfElifElse(nn.Cell):
    """An if/elif/else chain on tensors, each branch returning something else."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3, weight_init=ms.Tensor(np.linspace(-1, 1.2, 12).reshape(3, 4).astype(np.float32)),
                           bias_init=ms.Tensor(np.array([0.1, -0.2, 0.3], np.float32)))

    def construct(self, x):
        y = self.fc(x)
        s = y.sum()
        if s > 1.0:
            out = y * 2.0
        elif s > -1.0:
            out = ops.sigmoid(y) - 0.5
        else:
            out = -y + 3.0
        return out


class NestedBreak(GrowingW):
    """`break` out of an inner tensor while loop (the branch that breaks goes on with the outer loop's body and
    calls the outer header), and a `return` from inside the outer loop."""

    def construct(self, x):
        i = ms.Tensor(0, ms.int32)
        while i < 4:
            j = ms.Tensor(0, ms.int32)
            while j < 3:
                x = ops.matmul(x, self.w) - 0.1
                if x.sum() > 6.0:
                    break
                j = j + 1
            if x.sum() > 20.0:
                return x * 0.5 - ops.cast(i, ms.float32)
            x = x * 0.25 + ops.cast(j, ms.float32) * 0.1
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
    if only - set(LATER):
        raise SystemExit(f"make_mindir.py [{' '.join(LATER)}]: unknown case(s) {sorted(only - set(LATER))}")
    if only:
        for name in sorted(only):
            cases.update(LATER[name]())
        return _write_index(cases)
    cases.update(run_case("resblock", ResBlock(), [rng.standard_normal((2, 4, 6, 6)).astype(np.float32)]))
    cases.update(run_case("transformer", TransformerBlock(), [rng.integers(0, 11, (2, 5)).astype(np.int32)]))
    cases.update(run_case("ops_mix", OpsMix(), [rng.standard_normal((2, 3, 4, 4)).astype(np.float32)]))
    cases.update(run_case("while_loop", WhileLoop(), [rng.standard_normal((2, 4)).astype(np.float32)],
                          [("while_loop_big", [np.full((2, 4), 9.0, np.float32)])]))
    for make in LATER.values():
        cases.update(make())
    _write_index(cases)


def _x(seed, scale=1.0):
    return (np.random.default_rng(seed).standard_normal((2, 4)) * scale).astype(np.float32)


# Cases added after the first batch, each with its own seeded inputs, so that any one can be remade alone
# (`make_mindir.py while_break`) without changing the others' files.
LATER = {
    "nested_while": lambda: run_case("nested_while", NestedWhile(), [_x(8)]),
    # inputs on both sides of each tensor condition: the loop left by break / run to its end, continue taken or not
    "while_break": lambda: run_case("while_break", WhileBreak(), [_x(9, 0.1)],      # break after 4 passes
                                    [("while_break_never", [np.full((2, 4), -0.5, np.float32)])]),
    "while_continue": lambda: run_case("while_continue", WhileContinue(), [_x(10, 0.5)],  # continue 1st, 3rd, 5th
                                       [("while_continue_odd", [_x(11, 0.3)])]),         # continue 2nd, 4th
    "for_break": lambda: run_case("for_break", ForBreak(), [_x(11, 0.3)],             # break in the 3rd pass
                                  [("for_break_never", [np.full((2, 4), -0.5, np.float32)])]),
    "nested_break": lambda: run_case("nested_break", NestedBreak(), [_x(15, 0.3)],
                                     [("nested_break_return", [np.full((2, 4), 2.0, np.float32)]),
                                      ("nested_break_neg", [np.full((2, 4), -0.5, np.float32)])]),
    # the sum the chain tests is 0.4 + 1.2 * x.sum(): inputs near 1, 0 and -1 take the if, the elif, the else
    "if_elif_else": lambda: run_case("if_elif_else", IfElifElse(), [_x(12, 0.05) + 1],
                                     [("if_elif_else_mid", [_x(13, 0.05)]), ("if_elif_else_low", [_x(14, 0.05) - 1])]),
}


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
