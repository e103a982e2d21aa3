"""MindSpore's quick-start data pipeline, written as the tutorial has it, on MNIST idx files made from
scikit-learn's digits, trains an msx network to >= 95% test accuracy."""
import numpy as np
import pytest

import msx as ms
from msx import nn
from msx.dataset import MnistDataset, transforms, vision

from dataset_formats import digits_as_mnist


EPOCHS = 8


def datapipe(path, batch_size):
    image_transforms = [vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,), std=(0.3081,)),
                        vision.HWC2CHW()]
    label_transform = transforms.TypeCast(ms.int32)
    dataset = MnistDataset(path)
    dataset = dataset.map(image_transforms, "image")
    dataset = dataset.map(label_transform, "label")
    return dataset.batch(batch_size)


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(nn.Dense(28 * 28, 128), nn.ReLU(), nn.Dense(128, 10))

    def construct(self, x):
        return self.dense_relu_sequential(self.flatten(x))


@pytest.fixture(scope="module")
def mnist_dir(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("MNIST_Data"))
    digits_as_mnist(folder)
    return folder


def test_the_tutorial_pipeline_yields_what_mindspore_does(mnist_dir):
    train = MnistDataset(mnist_dir, usage="train", shuffle=False)
    assert train.get_col_names() == ["image", "label"] and train.get_dataset_size() == 1437
    assert train.output_shapes() == [[28, 28, 1], []] and train.output_types() == [np.uint8, np.uint32]
    pipe = MnistDataset(mnist_dir, usage="train", shuffle=False).map(vision.Rescale(1 / 255, 0), "image") \
        .map(vision.HWC2CHW(), "image").map(transforms.TypeCast(ms.int32), "label").batch(64)
    image, label = next(pipe.create_tuple_iterator())
    assert type(image) is ms.Tensor and image.shape == (64, 1, 28, 28) and image.dtype == ms.float32
    assert label.shape == (64,) and label.dtype == ms.int32
    from sklearn.datasets import load_digits

    digits = load_digits()
    expected = np.pad(np.clip(digits.images[:64] * 16, 0, 255).astype(np.uint8).repeat(3, 1).repeat(3, 2),
                      ((0, 0), (2, 2), (2, 2)))
    np.testing.assert_allclose(image.asnumpy()[:, 0], expected.astype(np.float32) / 255, rtol=1e-6)
    np.testing.assert_array_equal(label.asnumpy(), digits.target[:64])
    assert pipe.get_dataset_size() == 23  # ceil(1437 / 64)


def test_the_quickstart_trains_an_msx_network_to_95_percent(mnist_dir):
    ms.set_seed(1)
    train_dataset = datapipe(mnist_dir + "", 64)
    test_dataset = MnistDataset(mnist_dir, usage="test").map(
        [vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,), std=(0.3081,)), vision.HWC2CHW()],
        "image").map(transforms.TypeCast(ms.int32), "label").batch(64)
    model = Network()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.Adam(model.trainable_params(), 1e-3)

    def forward_fn(data, label):
        logits = model(data)
        return loss_fn(logits, label), logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    @ms.jit(capture_mode="trace")
    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    iterator = train_dataset.create_tuple_iterator(num_epochs=EPOCHS)
    for _ in range(EPOCHS):
        model.set_train()
        for data, label in iterator:
            if data.shape[0] == 64:  # one compiled shape; the short last batch runs eagerly below
                train_step(data, label)
            else:
                (_, _), grads = grad_fn(data, label)
                optimizer(grads)
    model.set_train(False)
    correct = total = 0
    for data, label in test_dataset.create_tuple_iterator():
        pred = model(data).asnumpy().argmax(1)
        correct += int((pred == label.asnumpy()).sum())
        total += len(pred)
    assert total == 360
    assert correct / total >= 0.95, f"test accuracy {correct / total:.3f}"
