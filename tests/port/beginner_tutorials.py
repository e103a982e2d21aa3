"""MindSpore 2.x beginner tutorials (quick start, tensor, model, autograd, train, save/load, mixed precision),
as a MindSpore user writes them; the download is replaced by a generated dataset and weights are set from a
seeded numpy generator so the printed numbers are reproducible. tests/test_port_tutorials.py runs this file
with only the import lines changed to msx and compares the output with MindSpore 2.10's (recorded once)."""
import os
import sys
import tempfile

import numpy as np
import mindspore
from mindspore import nn, ops, Tensor, Parameter
from mindspore.dataset import GeneratorDataset


def show(label, value):
    if isinstance(value, Tensor):
        value = value.asnumpy()
    if isinstance(value, np.ndarray):
        print(label, value.shape, value.dtype, np.round(value.astype(np.float64), 4).tolist())
    else:
        print(label, value)


# ---------------------------------------------------------------- tensor
data = [1, 0, 1, 0]
x_data = Tensor(data)
show("tensor from list", x_data)
np_array = np.array(data)
show("from numpy", Tensor(np_array))
x_ones = ops.ones_like(x_data)
show("ones_like", x_ones)
x = Tensor(np.array([[0, 1], [2, 3]]).astype(np.float32))
print("shape", x.shape, "dtype", x.dtype)
tensor = Tensor(np.array([[0, 1], [2, 3]]).astype(np.float32))
show("first row", tensor[0])
show("last column", tensor[..., -1])
show("add", x + tensor)
show("concat", ops.concat((x, tensor), axis=0))
show("stack", ops.stack([x, tensor]))
show("mul", x * tensor)
show("matmul", ops.matmul(x, tensor))

# ---------------------------------------------------------------- dataset (generated instead of MNIST)
rng = np.random.default_rng(0)
images = rng.uniform(size=(64, 1, 8, 8)).astype(np.float32)
labels = (images.reshape(64, -1).mean(1) > 0.5).astype(np.int32)


def generator():
    for i in range(64):
        yield images[i], labels[i]


train_dataset = GeneratorDataset(generator, ["image", "label"], shuffle=False).batch(16)
for image, label in train_dataset.create_tuple_iterator():
    print("batch", image.shape, image.dtype, label.shape, label.dtype)
    break
print("dataset size", train_dataset.get_dataset_size())


# ---------------------------------------------------------------- model
class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(8 * 8, 16),
            nn.ReLU(),
            nn.Dense(16, 16),
            nn.ReLU(),
            nn.Dense(16, 2)
        )

    def construct(self, x):
        x = self.flatten(x)
        logits = self.dense_relu_sequential(x)
        return logits


model = Network()
init_rng = np.random.default_rng(1)
for name, param in model.parameters_and_names():
    param.set_data(Tensor((init_rng.standard_normal(param.shape) * 0.3).astype(np.float32)))
    print("param", name, param.shape, param.dtype, param.requires_grad)
X = ops.ones((1, 1, 8, 8), mindspore.float32)
logits = model(X)
show("logits", logits)
pred_probab = nn.Softmax(axis=1)(logits)
show("pred", pred_probab.argmax(1))

# ---------------------------------------------------------------- autograd
x = ops.ones(5, mindspore.float32)
y = ops.zeros(3, mindspore.float32)
w = Parameter(Tensor(np.linspace(-1, 1, 15).reshape(5, 3).astype(np.float32)), name='w')
b = Parameter(Tensor(np.array([0.1, -0.2, 0.3], np.float32)), name='b')


def function(x, y, w, b):
    z = ops.matmul(x, w) + b
    loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
    return loss


show("bce loss", function(x, y, w, b))
grad_fn = mindspore.grad(function, (2, 3))
grads = grad_fn(x, y, w, b)
show("grad w", grads[0])
show("grad b", grads[1])


def function_with_logits(x, y, w, b):
    z = ops.matmul(x, w) + b
    loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
    return loss, z


grad_fn = mindspore.grad(function_with_logits, (2, 3), has_aux=True)
grads, (z,) = grad_fn(x, y, w, b)
show("aux z", z)
show("aux grad b", grads[1])

# ---------------------------------------------------------------- train
loss_fn = nn.CrossEntropyLoss()
optimizer = nn.SGD(model.trainable_params(), 1e-1)


def forward_fn(data, label):
    logits = model(data)
    loss = loss_fn(logits, label)
    return loss, logits


grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)


def train_step(data, label):
    (loss, _), grads = grad_fn(data, label)
    optimizer(grads)
    return loss


def train_loop(model, dataset):
    model.set_train()
    for batch, (data, label) in enumerate(dataset.create_tuple_iterator()):
        loss = train_step(data, label)
        print(f"loss: {loss.asnumpy():>7f}  [{batch:>3d}/{dataset.get_dataset_size():>3d}]")


def test_loop(model, dataset, loss_fn):
    num_batches = dataset.get_dataset_size()
    model.set_train(False)
    total, test_loss, correct = 0, 0, 0
    for data, label in dataset.create_tuple_iterator():
        pred = model(data)
        total += len(data)
        test_loss += loss_fn(pred, label).asnumpy()
        correct += (pred.argmax(1) == label).asnumpy().sum()
    test_loss /= num_batches
    correct /= total
    print(f"Test: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


for t in range(3):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop(model, train_dataset)
    test_loop(model, train_dataset, loss_fn)

# ---------------------------------------------------------------- save and load
folder = tempfile.mkdtemp()
path = os.path.join(folder, "model.ckpt")
mindspore.save_checkpoint(model, path)
model2 = Network()
param_dict = mindspore.load_checkpoint(path)
param_not_load, _ = mindspore.load_param_into_net(model2, param_dict)
print("not loaded", param_not_load)
show("reloaded logits", model2(X))

# ---------------------------------------------------------------- mixed precision
net16 = Network()
mindspore.load_param_into_net(net16, param_dict)
net16 = mindspore.amp.auto_mixed_precision(net16, "O3")
out16 = net16(X)
print("O3 output dtype", out16.dtype)
np.testing.assert_allclose(out16.asnumpy().astype(np.float32), model(X).asnumpy(), rtol=2e-2, atol=2e-2)
print("fp16 close to fp32", True)
sys.stdout.flush()
