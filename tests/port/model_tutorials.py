"""MindSpore 2.x's model tutorials in small, as a MindSpore user writes them: a DCGAN step (a discriminator with
BatchNorm in train mode, differentiated under jit, a generator trained through it), a VAE (reparameterised
with fixed noise, KL + reconstruction loss), a bidirectional-LSTM sentiment classifier trained with Adam, gradient
accumulation over micro-batches, the learning-rate schedules (`nn.piecewise_constant_lr`, `nn.cosine_decay_lr`,
`nn.warmup_lr`, `CosineDecayLR`), and `Model.fit` with `sink_size`. Data and weights come from a seeded numpy
generator so the printed numbers are reproducible. tests/test_port_tutorials.py runs this file with only the
import lines changed to msx and compares the output with MindSpore 2.10's (recorded once)."""
import numpy as np
import mindspore
from mindspore import nn, ops, Tensor
from mindspore.dataset import GeneratorDataset
from mindspore.train import Model, LossMonitor

rng = np.random.default_rng(0)


def seeded(net, scale=0.1):
    for p in net.trainable_params():
        if not p.name.endswith(("gamma", "beta")):  # BatchNorm keeps its initial 1 and 0
            p.set_data(Tensor(rng.normal(0, scale, p.shape).astype(np.float32)))
    return net


def show(label, value):
    if isinstance(value, Tensor):
        value = value.asnumpy()
    value = np.asarray(value, np.float64)
    print(label, value.shape, np.round(value, 4).tolist())


# ---------------------------------------------------------------- DCGAN: BatchNorm in train mode, two optimisers
# (a layer before BatchNorm has no bias, as in DCGAN: BatchNorm cancels a bias's gradient to rounding noise, which
# Adam would scale into full-size steps of arbitrary sign)
class Generator(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = nn.SequentialCell(nn.Dense(4, 16, has_bias=False), nn.BatchNorm1d(16), nn.ReLU(), nn.Dense(16, 8), nn.Tanh())

    def construct(self, z):
        return self.net(z)


class Discriminator(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = nn.SequentialCell(nn.Dense(8, 16, has_bias=False), nn.BatchNorm1d(16), nn.LeakyReLU(0.2), nn.Dense(16, 1))

    def construct(self, x):
        return self.net(x)


generator, discriminator = seeded(Generator()), seeded(Discriminator())
generator.update_parameters_name("generator.")
discriminator.update_parameters_name("discriminator.")
generator.set_train(True)
discriminator.set_train(True)
adversarial = nn.BCEWithLogitsLoss()
opt_g = nn.Adam(generator.trainable_params(), learning_rate=2e-3, beta1=0.5)
opt_d = nn.Adam(discriminator.trainable_params(), learning_rate=2e-3, beta1=0.5)


def d_forward(real, z):
    fake = ops.stop_gradient(generator(z))
    real_out, fake_out = discriminator(real), discriminator(fake)
    return adversarial(real_out, ops.ones_like(real_out)) + adversarial(fake_out, ops.zeros_like(fake_out))


def g_forward(z):
    out = discriminator(generator(z))
    return adversarial(out, ops.ones_like(out))


d_grad = mindspore.value_and_grad(d_forward, None, opt_d.parameters)
g_grad = mindspore.value_and_grad(g_forward, None, opt_g.parameters)


@mindspore.jit
def d_step(real, z):
    d_loss, d_grads = d_grad(real, z)
    opt_d(d_grads)
    return d_loss


@mindspore.jit
def g_step(z):
    g_loss, g_grads = g_grad(z)
    opt_g(g_grads)
    return g_loss


for step in range(3):
    real = Tensor(rng.normal(size=(8, 8)).astype(np.float32))
    z = Tensor(rng.normal(size=(8, 4)).astype(np.float32))
    d_loss = d_step(real, z)
    g_loss = g_step(z)
    show(f"gan step {step} losses", np.array([d_loss.asnumpy(), g_loss.asnumpy()]))
show("gan moving mean", discriminator.net[1].moving_mean)
show("gan moving variance", generator.net[1].moving_variance)


# ---------------------------------------------------------------- VAE
class VAE(nn.Cell):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Dense(8, 6)
        self.mean, self.log_var = nn.Dense(6, 2), nn.Dense(6, 2)
        self.decoder = nn.SequentialCell(nn.Dense(2, 6), nn.ReLU(), nn.Dense(6, 8), nn.Sigmoid())

    def construct(self, x, noise):
        h = ops.relu(self.encoder(x))
        mu, log_var = self.mean(h), self.log_var(h)
        z = mu + ops.exp(0.5 * log_var) * noise
        return self.decoder(z), mu, log_var


vae = seeded(VAE())
vae_opt = nn.SGD(vae.trainable_params(), learning_rate=0.5)


def vae_loss(x, noise):
    recon, mu, log_var = vae(x, noise)
    bce = ops.binary_cross_entropy(recon, x, reduction="sum")
    kld = -0.5 * ops.sum(1 + log_var - ops.square(mu) - ops.exp(log_var))
    return (bce + kld) / x.shape[0]


vae_grad = mindspore.value_and_grad(vae_loss, None, vae_opt.parameters)
data = Tensor(rng.uniform(size=(6, 8)).astype(np.float32))
for step in range(3):
    noise = Tensor(rng.normal(size=(6, 2)).astype(np.float32))
    loss, grads = vae_grad(data, noise)
    vae_opt(grads)
    show(f"vae step {step} loss", loss)


# ---------------------------------------------------------------- bidirectional-LSTM sentiment classifier
class Sentiment(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(20, 6)
        self.rnn = nn.LSTM(6, 5, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Dense(10, 1)

    def construct(self, tokens):
        embedded = self.embedding(tokens)
        _, (hidden, _) = self.rnn(embedded)
        hidden = ops.concat((hidden[-2, :, :], hidden[-1, :, :]), axis=1)
        return self.fc(hidden)


sentiment = seeded(Sentiment(), 0.3)
bce = nn.BCEWithLogitsLoss()
lstm_opt = nn.Adam(sentiment.trainable_params(), learning_rate=1e-2)


def lstm_forward(tokens, label):
    return bce(sentiment(tokens), label)


lstm_grad = mindspore.value_and_grad(lstm_forward, None, lstm_opt.parameters)


@mindspore.jit
def lstm_step(tokens, label):
    loss, grads = lstm_grad(tokens, label)
    lstm_opt(grads)
    return loss


tokens = Tensor(rng.integers(0, 20, size=(4, 7)).astype(np.int32))
labels = Tensor(rng.integers(0, 2, size=(4, 1)).astype(np.float32))
for step in range(3):
    show(f"lstm step {step} loss", lstm_step(tokens, labels))
show("lstm logits", sentiment(tokens))


# ---------------------------------------------------------------- gradient accumulation over micro-batches
acc_net = seeded(nn.Dense(5, 3))
acc_opt = nn.Momentum(acc_net.trainable_params(), learning_rate=0.1, momentum=0.9)
mse = nn.MSELoss()
acc_grad = mindspore.value_and_grad(lambda x, y: mse(acc_net(x), y), None, acc_opt.parameters)
accumulated = [ops.zeros_like(p) for p in acc_opt.parameters]
xs = rng.normal(size=(8, 5)).astype(np.float32)
ys = rng.normal(size=(8, 3)).astype(np.float32)
for micro in range(4):
    loss, grads = acc_grad(Tensor(xs[2 * micro:2 * micro + 2]), Tensor(ys[2 * micro:2 * micro + 2]))
    accumulated = [a + g / 4 for a, g in zip(accumulated, grads)]
acc_opt(tuple(accumulated))
show("accumulated step weight", acc_net.weight)


# ---------------------------------------------------------------- learning-rate schedules
print("piecewise", np.round(nn.piecewise_constant_lr([2, 5, 8], [0.1, 0.05, 0.01]), 6).tolist())
print("cosine", np.round(nn.cosine_decay_lr(0.01, 0.1, 6, 2, 3), 6).tolist())
print("warmup", np.round(nn.warmup_lr(0.1, 6, 2, 2), 6).tolist())
print("exponential", np.round(nn.exponential_decay_lr(0.1, 0.9, 6, 2, 2, is_stair=True), 6).tolist())
schedule = nn.CosineDecayLR(min_lr=0.01, max_lr=0.1, decay_steps=4)
show("CosineDecayLR", np.array([schedule(Tensor(s, mindspore.int32)).asnumpy() for s in range(5)]))
warm = nn.WarmUpLR(learning_rate=0.1, warmup_steps=3)
show("WarmUpLR", np.array([warm(Tensor(s, mindspore.int32)).asnumpy() for s in range(1, 5)]))


# ---------------------------------------------------------------- Model.fit with sink_size
fit_x = rng.normal(size=(24, 5)).astype(np.float32)
fit_y = (fit_x @ rng.normal(size=(5, 1))).astype(np.float32)


def rows():
    for i in range(24):
        yield fit_x[i], fit_y[i]


train_set = GeneratorDataset(rows, ["x", "y"], shuffle=False).batch(4)
fit_net = seeded(nn.Dense(5, 1))
model = Model(fit_net, nn.MSELoss(), nn.SGD(fit_net.trainable_params(), learning_rate=0.05), metrics={"mse"})


class Record(LossMonitor):
    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        print("fit epoch", cb.cur_epoch_num, "step", cb.cur_step_num, "loss",
              round(float(np.asarray(cb.net_outputs.asnumpy())), 4))


model.fit(2, train_set, callbacks=[Record()], dataset_sink_mode=True, sink_size=3)
print("fit eval", {k: round(float(v), 4) for k, v in model.eval(train_set).items()})
