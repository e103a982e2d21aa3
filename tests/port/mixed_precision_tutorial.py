"""MindSpore 2.x's "Automatic Mixed Precision" tutorial (amp.auto_mixed_precision at "O2", a static loss
scale of 2**16, unscale + all_finite + adjust in the training step), as a MindSpore user writes it; MNIST is
replaced by a seeded random batch and the weights are set from a seeded numpy generator so the printed
numbers are reproducible. The scaled loss must stay finite: MindSpore casts an O2/O3 network's outputs back
to float32, so `loss_fn(logits)` and `loss * 2**16` are float32 (in float16 the scaled loss is inf)."""
import numpy as np
import mindspore
from mindspore import nn, Tensor
from mindspore.amp import auto_mixed_precision, StaticLossScaler, all_finite


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 64),
            nn.ReLU(),
            nn.Dense(64, 64),
            nn.ReLU(),
            nn.Dense(64, 10)
        )

    def construct(self, x):
        x = self.flatten(x)
        logits = self.dense_relu_sequential(x)
        return logits


rng = np.random.default_rng(0)
model = Network()
for p in model.trainable_params():
    p.set_data(Tensor(rng.normal(0, 0.05, p.shape).astype(np.float32)))
model = auto_mixed_precision(model, 'O2')

loss_fn = nn.CrossEntropyLoss()
optimizer = nn.SGD(model.trainable_params(), 1e-2)
loss_scaler = StaticLossScaler(scale_value=2**16)


def forward_fn(data, label):
    logits = model(data)
    loss = loss_fn(logits, label)
    loss = loss_scaler.scale(loss)
    return loss, logits


grad_fn = mindspore.value_and_grad(forward_fn, None, model.trainable_params(), has_aux=True)


def train_step(data, label):
    (loss, _), grads = grad_fn(data, label)
    loss = loss_scaler.unscale(loss)
    is_finite = all_finite(grads)
    if is_finite:
        grads = loss_scaler.unscale(grads)
        optimizer(grads)
    loss_scaler.adjust(is_finite)
    return loss, is_finite


data = Tensor(rng.random((16, 1, 28, 28)).astype(np.float32))
label = Tensor(rng.integers(0, 10, (16,)).astype(np.int32))
print("logits dtype", model(data).dtype)
for step in range(3):
    loss, is_finite = train_step(data, label)
    print(f"loss: {loss.asnumpy():>7f} dtype {loss.dtype} finite {bool(is_finite)}")
