"""MindSpore 2.x's NLP tutorials and `tests/st` patterns in small, as a MindSpore user writes them: a Transformer
(nn.Transformer with masks) trained a step, a BiLSTM-CRF tagger whose CRF is written with `mindspore.numpy`
(the sequence-labelling tutorial's way), `Parameter` behaviours the `tests/st` files check (clone, names,
`requires_grad`, `set_data`, `ParameterTuple`), a network exported to MINDIR and run back through
`nn.GraphCell`, and `ops.GradOperation` over all inputs and weights. Weights come from a seeded numpy
generator so the printed numbers are reproducible. tests/test_port_tutorials.py runs this file with only the
import lines changed to msx and compares the output with MindSpore 2.10's (recorded once)."""
import os
import tempfile

import numpy as np
import mindspore
import mindspore.numpy as mnp
from mindspore import nn, ops, Tensor, Parameter, ParameterTuple

rng = np.random.default_rng(0)


def seeded(net, scale=0.2):
    for p in net.trainable_params():
        if not p.name.endswith(("gamma", "beta")):
            p.set_data(Tensor(rng.normal(0, scale, p.shape).astype(np.float32)))
    return net


def show(label, value):
    if isinstance(value, Tensor):
        value = value.asnumpy()
    value = np.asarray(value, np.float64)
    print(label, value.shape, np.round(value, 4).tolist())


# ---------------------------------------------------------------- Transformer
transformer = seeded(nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                    dim_feedforward=16, dropout=0.0, batch_first=True))
src = Tensor(rng.normal(size=(2, 5, 8)).astype(np.float32))
tgt = Tensor(rng.normal(size=(2, 4, 8)).astype(np.float32))
tgt_mask = Tensor(np.triu(np.full((4, 4), -np.inf, np.float32), 1))
out = transformer(src, tgt, tgt_mask=tgt_mask)
show("transformer out[0, 0]", out[0, 0])
opt = nn.Adam(transformer.trainable_params(), learning_rate=1e-2)


def t_loss(s, t):
    return ops.mean(ops.square(transformer(s, t, tgt_mask=tgt_mask) - t))


t_grad = mindspore.value_and_grad(t_loss, None, opt.parameters)
for step in range(2):
    loss, grads = t_grad(src, tgt)
    opt(grads)
    show(f"transformer step {step} loss", loss)


# ---------------------------------------------------------------- BiLSTM-CRF with mindspore.numpy
def log_sum_exp(x, axis):
    top = mnp.amax(x, axis=axis, keepdims=True)
    return mnp.squeeze(top, axis) + mnp.log(mnp.sum(mnp.exp(x - top), axis=axis))


class CRF(nn.Cell):
    def __init__(self, num_tags):
        super().__init__()
        self.transitions = Parameter(Tensor(rng.normal(0, 0.3, (num_tags, num_tags)).astype(np.float32)),
                                     name="transitions")

    def construct(self, emissions, tags):
        # emissions (seq, batch, tags); tags (seq, batch): the negative log-likelihood, summed over the batch
        seq_len = emissions.shape[0]
        score = mnp.take_along_axis(emissions[0], tags[0][:, None], 1)[:, 0]
        alpha = emissions[0]
        for i in range(1, seq_len):
            score = score + self.transitions[tags[i - 1], tags[i]] \
                + mnp.take_along_axis(emissions[i], tags[i][:, None], 1)[:, 0]
            alpha = log_sum_exp(alpha[:, :, None] + self.transitions[None] + emissions[i][:, None, :], 1)
        return mnp.sum(log_sum_exp(alpha, 1) - score)


class BiLSTMCRF(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(12, 6)
        self.lstm = nn.LSTM(6, 4, bidirectional=True)
        self.hidden2tag = nn.Dense(8, 3)
        self.crf = CRF(3)

    def construct(self, tokens, tags):
        feats, _ = self.lstm(self.embedding(tokens))
        return self.crf(self.hidden2tag(feats), tags)


tagger = seeded(BiLSTMCRF())
tokens = Tensor(rng.integers(0, 12, size=(5, 2)).astype(np.int32))
tags = Tensor(rng.integers(0, 3, size=(5, 2)).astype(np.int32))
crf_opt = nn.SGD(tagger.trainable_params(), learning_rate=0.05)
crf_grad = mindspore.value_and_grad(tagger, None, crf_opt.parameters)


@mindspore.jit
def crf_step(tok, tg):
    loss, grads = crf_grad(tok, tg)
    crf_opt(grads)
    return loss


for step in range(3):
    show(f"bilstm-crf step {step} nll", crf_step(tokens, tags))
show("crf transitions", tagger.crf.transitions)
show("mnp helpers", mnp.concatenate((mnp.arange(3, dtype=mnp.float32), mnp.linspace(0, 1, 3),
                                     mnp.cumsum(mnp.ones(3)), mnp.diff(mnp.array([1.0, 4.0, 9.0]), append=16.0))))


# ---------------------------------------------------------------- Parameter behaviours (tests/st style)
weight = Parameter(Tensor(np.ones((2, 3), np.float32)), name="weight")
copy = weight.clone(init="same")
copy.name = "copy"
print("param", weight.name, weight.shape, weight.dtype, weight.requires_grad, copy.name)
weight.requires_grad = False
weight.set_data(Tensor(np.full((2, 3), 2.0, np.float32)))
show("after set_data", weight)
show("the clone kept its value", copy)
pair = ParameterTuple((Parameter(Tensor(np.zeros(2, np.float32)), name="a"),
                       Parameter(Tensor(np.ones(2, np.float32)), name="b")))
print("tuple", [p.name for p in pair], [p.name for p in pair.clone(prefix="m", init="zeros")])


# ---------------------------------------------------------------- export to MINDIR, run through GraphCell
class Small(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        return ops.softmax(self.fc(x), axis=-1)


small = seeded(Small())
sample = Tensor(rng.normal(size=(2, 4)).astype(np.float32))
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "small")
    mindspore.export(small, sample, file_name=path, file_format="MINDIR")
    graph = mindspore.load(path + ".mindir")
    loaded = nn.GraphCell(graph)
    show("graph cell", loaded(sample))
    show("eager", small(sample))


# ---------------------------------------------------------------- GradOperation over inputs and weights
class Product(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.5, -2.0], np.float32)), name="w")

    def construct(self, x, y):
        return ops.sum(x * self.w * y)


product = Product()
grad_all = ops.GradOperation(get_all=True, get_by_list=True)(product, product.trainable_params())
inputs_grads, weight_grads = grad_all(Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([3.0, 4.0],
                                                                                                 np.float32)))
show("grad x", inputs_grads[0])
show("grad y", inputs_grads[1])
show("grad w", weight_grads[0])
