"""The dataset's fast path gives exactly the rows of the row-by-row path.

A `map` of elementwise msx transforms right before a `batch` runs once on the stacked batch, and a source that
can index many rows at once (MNIST, CIFAR, NumpySlices) reads a batch in one go. These tests compare that path
with a numpy computation per row (the independent reference) and with msx's own row-by-row path (forced by a
Python map before the batch, which the fast path never takes), value for value and dtype for dtype, and check that the
cases it must not take (ragged rows, mixed dtypes, a failing op) give the row-by-row result or error.
"""
import numpy as np
import pytest

import msx as ms
from msx import dataset as ds
from msx.dataset import transforms, vision
from msx.errors import DatasetError

from dataset_formats import write_mnist

MEAN, STD = (0.1307,), (0.3081,)


def batches(d):
    return [[a.copy() for a in r] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def same(a, b):
    assert len(a) == len(b)
    for ra, rb in zip(a, b):
        assert len(ra) == len(rb)
        for x, y in zip(ra, rb):
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y)


def row_by_row(d, column, slow):
    """`d`, kept off the fast path (when `slow`) by an identity Python map on top, below the batch."""
    return d.map(lambda x: x, column) if slow else d


def reference_rows(images, labels, shift=0.0):
    out = []
    for im, lb in zip(images, labels):
        x = im[..., None].astype(np.float32) * np.float32(1 / 255) + np.float32(shift)
        x = ((x - np.float32(MEAN[0])) / np.float32(STD[0])).transpose(2, 0, 1)
        out.append((x, np.int32(lb)))
    return out


@pytest.fixture(scope="module")
def mnist(tmp_path_factory):
    rng = np.random.default_rng(3)
    images = rng.integers(0, 256, (70, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, 70, dtype=np.uint8)
    folder = tmp_path_factory.mktemp("mnist")
    write_mnist(str(folder), images, labels, "train")
    return str(folder), images, labels


@pytest.mark.parametrize("shift", [0.0, -0.5])
def test_the_mnist_pipeline_equals_numpy_per_row_and_the_row_by_row_path(mnist, shift, monkeypatch):
    folder, images, labels = mnist
    calls = []
    rescale = vision.Rescale.__call__
    monkeypatch.setattr(vision.Rescale, "__call__", lambda self, img: calls.append(img.shape) or rescale(self, img))

    def pipeline(slow=False):
        d = ds.MnistDataset(folder, usage="train", shuffle=False)
        d = d.map([vision.Rescale(1 / 255, shift), vision.Normalize(MEAN, STD), vision.HWC2CHW()], "image")
        return row_by_row(d.map(transforms.TypeCast(ms.int32), "label"), "image", slow).batch(32)

    fast = batches(pipeline())
    assert sorted(calls) == [(6, 28, 28, 1), (32, 28, 28, 1), (32, 28, 28, 1)]  # the fast path: once per batch
    slow = batches(pipeline(slow=True))
    assert len(calls) == 3 + 70
    same(fast, slow)
    ref = reference_rows(images, labels, shift)
    for b, batch in enumerate(fast):
        rows = ref[32 * b:32 * (b + 1)]
        np.testing.assert_array_equal(batch[0], np.stack([r[0] for r in rows]))
        np.testing.assert_array_equal(batch[1], np.stack([r[1] for r in rows]))
    assert [len(b[1]) for b in fast] == [32, 32, 6]


def test_shuffled_sharded_and_chw_pipelines_equal_the_row_by_row_path():
    rng = np.random.default_rng(5)
    data = {"image": rng.integers(0, 256, (45, 6, 5, 3), dtype=np.uint8), "label": np.arange(45, dtype=np.int64)}

    def pipeline(slow=False):
        ms.set_seed(11)
        d = ds.NumpySlicesDataset(data, shuffle=True, num_shards=2, shard_id=1)
        d = d.map([vision.Rescale(2.0, 1.0), vision.HWC2CHW(), vision.Normalize((1, 2, 3), (2, 4, 8), is_hwc=False)],
                  "image")
        d = d.map(transforms.TypeCast(ms.float16), "label")
        return row_by_row(d, "label", slow).batch(4, drop_remainder=True)

    fast = batches(pipeline())
    same(fast, batches(pipeline(slow=True)))
    assert fast[0][1].dtype == np.float16 and fast[0][0].shape == (4, 3, 6, 5)


def test_grey_hw_images_and_float64_inputs_equal_the_row_by_row_path():
    rng = np.random.default_rng(6)
    for images in (rng.integers(0, 256, (10, 4, 4), dtype=np.uint8), rng.normal(size=(10, 4, 4, 1))):
        def pipeline(slow=False):
            d = ds.NumpySlicesDataset({"image": images}, shuffle=False)
            d = d.map([vision.Rescale(0.5, 0.0), vision.Normalize(MEAN, STD), vision.HWC2CHW()], "image")
            return row_by_row(d, "image", slow).batch(3)

        same(batches(pipeline()), batches(pipeline(slow=True)))


def test_rows_that_do_not_stack_alike_take_the_row_by_row_path():
    rows = [np.full((2, 2, 1), 7, np.uint8) if i % 2 else np.full((2, 2, 1), 7.0, np.float64) for i in range(6)]
    d = ds.GeneratorDataset(lambda: ((r,) for r in rows), ["image"]).map(vision.Rescale(1 / 255, 0), "image")
    out = batches(d.batch(3))
    ref = np.stack([r.astype(np.float32) * np.float32(1 / 255) for r in rows[:3]])
    np.testing.assert_array_equal(out[0][0], ref)
    assert out[0][0].dtype == np.float32


def test_an_op_that_fails_on_the_batch_reports_the_row_as_the_row_by_row_path_does(mnist):
    folder, _, _ = mnist
    d = ds.MnistDataset(folder, usage="train", shuffle=False).map(vision.Normalize((1, 2, 3), (1, 1, 1)), "image")
    with pytest.raises(DatasetError, match=r"Normalize on columns \['image'\] of row 0: .*3 values.*1 channels"):
        batches(d.batch(8))
