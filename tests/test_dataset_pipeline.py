"""msx.dataset on grain: samplers and shards (disjoint, covering), reproducible shuffles and random transforms,
restartable sources, parallel workers equal to one worker, readers' errors naming the file, and vision/transforms
against Pillow/numpy references."""
import os
import threading

import numpy as np
import pytest
from PIL import Image, ImageEnhance

import msx as ms
from msx import dataset as ds
from msx.dataset import transforms, vision
from msx.errors import DatasetError

from dataset_formats import write_cifar, write_idx, write_mnist


@pytest.fixture(autouse=True)
def _fresh_dataset_seed(monkeypatch):
    monkeypatch.setattr(ds.config, "_seed", None)


def values(d, column=0, **kw):
    return [np.asarray(r[column]).tolist() for r in d.create_tuple_iterator(output_numpy=True, **kw)]


# ---------------------------------------------------------------- samplers and shards
@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("make", ["numpy", "generator", "textfile"])
def test_shards_are_disjoint_and_cover_the_data(make, shuffle, tmp_path):
    n, shards = 24, 4
    path = tmp_path / "lines.txt"
    path.write_text("".join(f"{i}\n" for i in range(n)))

    def source(k):
        kw = dict(num_shards=shards, shard_id=k, shuffle=shuffle)
        if make == "numpy":
            return ds.NumpySlicesDataset({"a": np.arange(n)}, **kw)
        if make == "generator":
            return ds.GeneratorDataset([(np.int64(i),) for i in range(n)], ["a"], **kw)
        return ds.TextFileDataset(str(path), **kw).map(lambda t: np.int64(int(str(t))), "text")

    ms.set_seed(5)
    parts = [values(source(k)) for k in range(shards)]
    assert all(len(p) == n // shards for p in parts)
    assert sorted(v for p in parts for v in p) == list(range(n))
    if shuffle:
        assert parts[0] != list(range(0, n, shards))
        ms.set_seed(5)
        assert [values(source(k)) for k in range(shards)] == parts  # every shard draws the same global order


def test_every_shard_sees_the_same_global_permutation_each_epoch():
    n = 30
    ms.set_seed(9)
    its = [ds.NumpySlicesDataset({"a": np.arange(n)}, num_shards=3, shard_id=k).create_tuple_iterator(
        num_epochs=2, output_numpy=True) for k in range(3)]
    for _ in range(2):
        epoch = [[int(r[0]) for r in it] for it in its]
        assert sorted(sum(epoch, [])) == list(range(n))


def test_samplers_draw_what_they_say():
    a = {"a": np.arange(20), "label": np.arange(20) % 4}
    ms.set_seed(3)
    rand = values(ds.NumpySlicesDataset(a, sampler=ds.RandomSampler()))
    assert sorted(rand) == list(range(20)) and rand != list(range(20))
    repl = values(ds.NumpySlicesDataset(a, sampler=ds.RandomSampler(replacement=True, num_samples=50)))
    assert len(repl) == 50 and set(repl) <= set(range(20))  # 50 draws of 20 rows: repeats
    sub = values(ds.NumpySlicesDataset(a, sampler=ds.SubsetRandomSampler([3, 7, 11, 19])))
    assert sorted(sub) == [3, 7, 11, 19]
    weighted = values(ds.NumpySlicesDataset(a, sampler=ds.WeightedRandomSampler([0] * 19 + [1], 10)))
    assert weighted == [19] * 10
    pk = ds.NumpySlicesDataset(a, sampler=ds.PKSampler(2))
    assert [r[1] for r in pk.create_tuple_iterator(output_numpy=True)] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert values(ds.NumpySlicesDataset(a, sampler=[4, 2])) == [4, 2]

    class Evens(ds.Sampler):
        def __iter__(self):
            return iter(range(0, self.dataset_size, 2))

    assert values(ds.NumpySlicesDataset(a, sampler=Evens())) == list(range(0, 20, 2))
    with pytest.raises(DatasetError, match="sampler cannot be combined with shuffle"):
        ds.NumpySlicesDataset(a, sampler=ds.SequentialSampler(), shuffle=True)
    with pytest.raises(DatasetError, match="shard_id must be an int in"):
        ds.NumpySlicesDataset(a, num_shards=2, shard_id=2)
    with pytest.raises(DatasetError, match="num_shards and shard_id go together"):
        ds.NumpySlicesDataset(a, num_shards=2)


# ---------------------------------------------------------------- sources restart, seeds, workers
def test_a_restartable_iterable_restarts_every_epoch_as_in_the_tutorial():
    class IterableDataset:
        def __init__(self, start, end):
            self.start, self.end = start, end

        def __next__(self):
            return (np.int64(next(self.data)),)

        def __iter__(self):
            self.data = iter(range(self.start, self.end))
            return self

    it = ds.GeneratorDataset(IterableDataset(2, 6), ["a"]).create_tuple_iterator(num_epochs=3, output_numpy=True)
    assert [[int(r[0]) for r in it] for _ in range(3)] == [[2, 3, 4, 5]] * 3


def _augmented(workers):
    d = ds.NumpySlicesDataset({"image": np.random.default_rng(0).integers(0, 255, (40, 10, 10, 3), np.uint8),
                               "label": np.arange(40)})
    aug = [vision.RandomCrop(6), vision.RandomHorizontalFlip(), vision.RandomColorAdjust(0.4, 0.4, 0.4),
           vision.Rescale(1 / 255, 0), vision.HWC2CHW()]
    return d.map(aug, "image", num_parallel_workers=workers).batch(8)


def test_four_workers_give_the_same_batches_as_one_and_set_seed_reproduces_them():
    ms.set_seed(21)
    one = [[a.copy() for a in r] for r in _augmented(1).create_tuple_iterator(num_epochs=1, output_numpy=True)]
    ms.set_seed(21)
    four = [[a.copy() for a in r] for r in _augmented(4).create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert len(one) == len(four) == 5
    for a, b in zip(one, four):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    ms.set_seed(22)
    other = next(_augmented(4).create_tuple_iterator(output_numpy=True))
    assert not np.array_equal(other[0], one[0][0])


def test_parallel_workers_really_run_in_parallel():
    seen, lock, barrier = set(), threading.Lock(), threading.Barrier(4, timeout=10)

    def op(a):
        with lock:
            seen.add(threading.get_ident())
        if int(a) < 4:
            barrier.wait()  # passes only when 4 rows are being mapped at the same time
        return a

    d = ds.NumpySlicesDataset({"a": np.arange(16)}, shuffle=False).map(op, num_parallel_workers=4)
    assert values(d) == list(range(16))
    assert len(seen) >= 4


def test_config_and_the_default_worker_count():
    ds.config.set_num_parallel_workers(3)
    try:
        assert ds.config.get_num_parallel_workers() == 3
        assert ds.PaddedDataset([{"a": np.zeros(1)}])._workers() == 3  # no num_parallel_workers given
        assert ds.NumpySlicesDataset([1, 2]).map(lambda a: a, num_parallel_workers=5)._workers() == 5
    finally:
        ds.config.set_num_parallel_workers(8)
    with pytest.raises(DatasetError, match="positive int"):
        ds.config.set_num_parallel_workers(0)


# ---------------------------------------------------------------- readers: layouts and bad files
def test_mnist_reader_decodes_the_idx_layout_and_names_a_corrupt_file(tmp_path):
    images = np.arange(3 * 28 * 28, dtype=np.int64).reshape(3, 28, 28) % 251
    write_mnist(tmp_path, images.astype(np.uint8), [7, 0, 3])
    raw = (tmp_path / "train-images-idx3-ubyte").read_bytes()
    assert raw[:4] == b"\x00\x00\x08\x03" and int.from_bytes(raw[4:8], "big") == 3  # the published header
    rows = list(ds.MnistDataset(str(tmp_path), "train", shuffle=False).create_tuple_iterator(output_numpy=True))
    np.testing.assert_array_equal(rows[1][0][..., 0], images[1])
    assert [int(r[1]) for r in rows] == [7, 0, 3] and rows[0][1].dtype == np.uint32
    (tmp_path / "train-images-idx3-ubyte").write_bytes(raw[:-5])
    with pytest.raises(DatasetError, match="train-images-idx3-ubyte.*corrupt"):
        ds.MnistDataset(str(tmp_path), "train")
    write_idx(tmp_path / "train-images-idx3-ubyte", images[:2].astype(np.uint8))
    with pytest.raises(DatasetError, match="has 2 images but .*train-labels-idx1-ubyte.* has 3 labels"):
        ds.MnistDataset(str(tmp_path), "train")
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(b"\x00\x00\x08\x03" + bytes(12))
    with pytest.raises(DatasetError, match="magic number"):
        ds.MnistDataset(str(tmp_path), "train")
    with pytest.raises(DatasetError, match="cannot read idx file .*t10k-images-idx3-ubyte"):
        ds.MnistDataset(str(tmp_path), "test")
    with pytest.raises(DatasetError, match="no MNIST files"):
        ds.MnistDataset(str(tmp_path / "cifar"), "all") if os.makedirs(tmp_path / "cifar") is None else None


def test_cifar_and_csv_errors_name_the_file_and_line(tmp_path):
    write_cifar(tmp_path / "data_batch_1.bin", np.zeros((2, 32, 32, 3), np.uint8), [1, 2])
    with open(tmp_path / "data_batch_1.bin", "ab") as f:
        f.write(b"xx")
    with pytest.raises(DatasetError, match="data_batch_1.bin.*not a whole number of 3073-byte records"):
        ds.Cifar10Dataset(str(tmp_path))
    (tmp_path / "t.csv").write_text("a,b\n1,2\n3\n")
    with pytest.raises(DatasetError, match="t.csv' line 3 has 1 fields"):
        ds.CSVDataset(str(tmp_path / "t.csv"))
    (tmp_path / "u.csv").write_text("x,1\n")
    with pytest.raises(DatasetError, match="line 1: column 'a' expects int"):
        ds.CSVDataset(str(tmp_path / "u.csv"), column_defaults=[0, ""], column_names=["a", "b"])
    with pytest.raises(DatasetError, match="does not exist"):
        ds.TextFileDataset(str(tmp_path / "missing.txt"))


def test_bad_pipeline_inputs_name_the_column_and_op():
    d = ds.NumpySlicesDataset({"image": np.zeros((4, 3, 8, 8), np.uint8), "label": np.arange(4)}, shuffle=False)
    with pytest.raises(DatasetError, match="input column 'img' is not one of the dataset's columns"):
        d.map(vision.Rescale(1 / 255, 0), "img")
    with pytest.raises(DatasetError, match=r"operation Normalize on columns \['image'\] of row 0.*is_hwc=False"):
        values(d.map(vision.Normalize([0.5] * 3, [0.5] * 3), "image"))
    with pytest.raises(DatasetError, match=r"Normalize: .* 3 values but the HWC image of shape \[3, 8, 8\] has 8 "
                                           r"channels; pass is_hwc=False"):
        vision.Normalize([0.5] * 3, [0.5] * 3)(np.zeros((3, 8, 8), np.float32))
    with pytest.raises(DatasetError, match=r"Grayscale: expected an HWC image with 3 channels.*is it CHW"):
        vision.Grayscale()(np.zeros((3, 8, 8), np.uint8))
    with pytest.raises(DatasetError, match="Decode: expected encoded image bytes"):
        vision.Decode()(np.zeros((8, 8, 3), np.uint8))
    with pytest.raises(DatasetError, match="project: column 'x' is not one of"):
        d.project("x")
    with pytest.raises(DatasetError, match="concat: the datasets' columns differ"):
        d + d.project("label")
    with pytest.raises(DatasetError, match="zip: the datasets share column names"):
        d.zip(d)


# ---------------------------------------------------------------- vision against Pillow and numpy
def _image():
    return np.random.default_rng(3).integers(0, 256, (20, 30, 3), dtype=np.uint8)


def test_vision_on_pil_images_equals_pillow():
    img = _image()
    pil = Image.fromarray(img)
    assert np.array_equal(np.asarray(vision.Resize((10, 12))(pil)), np.asarray(pil.resize((12, 10),
                                                                                           Image.BILINEAR)))
    assert np.array_equal(vision.AdjustBrightness(1.3)(img), np.asarray(ImageEnhance.Brightness(pil).enhance(1.3)))
    assert np.array_equal(vision.AdjustSaturation(0.2)(img), np.asarray(ImageEnhance.Color(pil).enhance(0.2)))
    assert np.array_equal(vision.Grayscale()(img)[..., 0], np.asarray(pil.convert("L")))
    assert np.array_equal(vision.HorizontalFlip()(img), img[:, ::-1])
    assert np.array_equal(np.asarray(vision.VerticalFlip()(pil)), img[::-1])
    assert np.array_equal(vision.Decode()(np.frombuffer(_png(img), np.uint8)), img)
    assert isinstance(vision.Decode(to_pil=True)(_png(img)), Image.Image)


def _png(img):
    import io

    buf = io.BytesIO()
    Image.fromarray(img).save(buf, "PNG")
    return buf.getvalue()


def test_vision_numeric_ops_equal_numpy_and_random_ops_keep_their_contracts():
    img = _image()
    np.testing.assert_allclose(vision.Rescale(1 / 255, -1)(img), img.astype(np.float32) / 255 - 1, atol=1e-6)
    mean, std = [10.0, 20.0, 30.0], [2.0, 4.0, 8.0]
    np.testing.assert_allclose(vision.Normalize(mean, std)(img), (img - np.array(mean)) / np.array(std), rtol=1e-5)
    chw = vision.HWC2CHW()(img)
    np.testing.assert_allclose(vision.Normalize(mean, std, is_hwc=False)(chw),
                               ((img - np.array(mean)) / np.array(std)).transpose(2, 0, 1), rtol=1e-5)
    np.testing.assert_allclose(vision.ToTensor()(img), img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    np.testing.assert_array_equal(vision.Pad([1, 2, 3, 4])(img), np.pad(img, ((2, 4), (1, 3), (0, 0))))
    ms.set_seed(0)
    ds.config.set_seed(0)
    for _ in range(5):
        crop = vision.RandomCrop((7, 9))(img)
        assert crop.shape == (7, 9, 3) and any(
            np.array_equal(img[t:t + 7, l:l + 9], crop) for t in range(14) for l in range(22))
        assert vision.RandomResizedCrop(8)(img).shape == (8, 8, 3)
        assert vision.RandomRotation(30)(img).shape == img.shape
    flips = {vision.RandomHorizontalFlip(0.5)(img).tobytes() for _ in range(20)}
    assert flips == {img.tobytes(), img[:, ::-1].tobytes()}
    assert vision.RandomVerticalFlip(0.0)(img) is img
    out = transforms.Compose([vision.Resize((4, 6)), vision.HWC2CHW(), transforms.TypeCast(ms.float16)])(img)
    assert out.shape == (3, 4, 6) and out.dtype == np.float16
    assert transforms.RandomChoice([vision.HorizontalFlip(), vision.VerticalFlip()])(img).shape == img.shape
    assert np.array_equal(transforms.RandomApply([vision.Invert()], prob=1.0)(img), 255 - img)
    a, b = transforms.Duplicate()(np.arange(3))
    assert a.tolist() == b.tolist() == [0, 1, 2]
