"""Record real MindSpore 2.10 dataset outputs as golden data for tests/test_dataset_golden.py.

Run with the MindSpore venv (numpy < 2), from the repository root:

    /work/.venv-ms/bin/python tests/oracle/make_dataset_golden.py

It writes tests/golden/dataset_ms210.npz (arrays) and
tests/golden/dataset_ms210.json (row lists, strings, sizes); the msx test
suite reads them without MindSpore. Inputs are made from fixed seeds by
code shared with the test (`oracle_inputs` below and tests/dataset_formats.py).
"""
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/, for dataset_formats
from dataset_formats import write_cifar, write_image_folder, write_mnist  # noqa: E402
from oracle_inputs import IMAGE, VISION_CASES, make_text_files  # noqa: E402

import mindspore as ms  # noqa: E402
import mindspore.dataset as ds  # noqa: E402
from mindspore.dataset import transforms, vision  # noqa: E402
from PIL import Image  # noqa: E402

arrays, facts = {}, {}


def rows(d):
    return [[np.asarray(v) for v in r] for r in d.create_tuple_iterator(output_numpy=True)]


def listed(d):
    return [[v.tolist() for v in r] for r in rows(d)]


def build(spec):
    """A vision op from its spec: (name, args, kwargs) with Inter/Border named by strings."""
    name, args, kwargs = spec
    kwargs = dict(kwargs)
    for k in ("interpolation", "resample"):
        if k in kwargs:
            kwargs[k] = getattr(vision.Inter, kwargs[k])
    if "padding_mode" in kwargs:
        kwargs["padding_mode"] = getattr(vision.Border, kwargs["padding_mode"])
    return getattr(vision, name)(*args, **kwargs)


def vision_goldens():
    for key, spec, as_pil in VISION_CASES:
        img = Image.fromarray(IMAGE) if as_pil else IMAGE.copy()
        try:
            out = build(spec)(img)
        except Exception as exc:  # recorded: msx must refuse it too
            facts[f"vision/{key}"] = {"error": type(exc).__name__}
            continue
        arrays[f"vision/{key}"] = np.asarray(out)
    arrays["transforms/TypeCast_int32"] = transforms.TypeCast(ms.int32)(np.array([1.7, -2.2, 3.0]))
    arrays["transforms/OneHot"] = transforms.OneHot(4)(np.array([0, 3, 1]))
    arrays["transforms/OneHot_smooth"] = transforms.OneHot(4, 0.2)(np.array([2]))
    arrays["transforms/Concatenate"] = transforms.Concatenate(0, np.array([9, 8]), np.array([7]))(np.array([1, 2]))
    arrays["transforms/Fill"] = transforms.Fill(5)(np.zeros((2, 3), np.int16))
    arrays["transforms/PadEnd"] = transforms.PadEnd([4], -1)(np.array([1, 2]))
    arrays["transforms/Slice"] = transforms.Slice(slice(1, 3))(np.arange(5))
    arrays["transforms/Mask_gt"] = transforms.Mask(transforms.Relational.GT, 2)(np.arange(5))


def reader_goldens(tmp):
    rng = np.random.default_rng(7)
    images = rng.integers(0, 256, (6, 28, 28), dtype=np.uint8)
    write_mnist(os.path.join(tmp, "mnist"), images[:4], [3, 1, 4, 1], "train")
    write_mnist(os.path.join(tmp, "mnist"), images[4:], [5, 9], "test")
    for usage in ("train", "test", "all"):
        got = rows(ds.MnistDataset(os.path.join(tmp, "mnist"), usage=usage, shuffle=False))
        arrays[f"mnist/{usage}/image"] = np.stack([r[0] for r in got])
        arrays[f"mnist/{usage}/label"] = np.stack([r[1] for r in got])
    cifar = rng.integers(0, 256, (5, 32, 32, 3), dtype=np.uint8)
    # MindSpore reads CIFAR files in blocks of 10000 records (the real files' size): pad with zero records,
    # read the first rows only; the msx test writes just those rows
    fill = np.zeros((10000 - 3, 32, 32, 3), np.uint8)
    os.makedirs(os.path.join(tmp, "c10"))
    write_cifar(os.path.join(tmp, "c10", "data_batch_1.bin"), np.concatenate([cifar[:3], fill]),
                [1, 2, 3] + [0] * len(fill))
    fill2 = np.zeros((10000 - 2, 32, 32, 3), np.uint8)
    write_cifar(os.path.join(tmp, "c10", "test_batch.bin"), np.concatenate([cifar[3:], fill2]),
                [4, 5] + [0] * len(fill2))
    for usage in ("train", "test"):
        got = rows(ds.Cifar10Dataset(os.path.join(tmp, "c10"), usage=usage, shuffle=False).take(3))
        arrays[f"cifar10/{usage}/image"] = np.stack([r[0] for r in got])
        arrays[f"cifar10/{usage}/label"] = np.stack([r[1] for r in got])
    os.makedirs(os.path.join(tmp, "c100"))
    fill = np.zeros((50000 - 4, 32, 32, 3), np.uint8)
    write_cifar(os.path.join(tmp, "c100", "train.bin"), np.concatenate([cifar[:4], fill]),
                [1, 2, 3, 4] + [0] * len(fill), [11, 12, 13, 14] + [0] * len(fill))
    d = ds.Cifar100Dataset(os.path.join(tmp, "c100"), usage="train", shuffle=False)
    facts["cifar100/columns"] = d.get_col_names()
    got = rows(d.take(4))
    for j, name in enumerate(d.get_col_names()):
        arrays[f"cifar100/{name}"] = np.stack([r[j] for r in got])
    folder = {"zebra": [cifar[0][:8, :6]], "ant": [cifar[1][:5, :7], cifar[2][:4, :4]]}
    write_image_folder(os.path.join(tmp, "folder"), folder)
    d = ds.ImageFolderDataset(os.path.join(tmp, "folder"), shuffle=False, decode=True)
    facts["imagefolder/class_indexing"] = d.get_class_indexing()
    got = rows(d)
    for i, r in enumerate(got):
        arrays[f"imagefolder/{i}/image"], arrays[f"imagefolder/{i}/label"] = r[0], r[1]
    text_files, csv_file = make_text_files(tmp)
    facts["textfile"] = [[str(r[0])] for r in rows(ds.TextFileDataset(text_files, shuffle=False))]
    d = ds.CSVDataset(csv_file, column_defaults=[0, 0.0, ""], column_names=["a", "b", "c"], shuffle=False)
    facts["csv/typed"] = [[(str(v.dtype), v.item()) for v in r] for r in rows(d)]
    d = ds.CSVDataset(csv_file, column_names=["a", "b", "c"], shuffle=False)
    facts["csv/strings"] = [[str(v) for v in r] for r in rows(d)]


def pipeline_goldens():
    def d10():
        return ds.NumpySlicesDataset({"a": np.arange(10), "b": np.arange(10) * 10}, shuffle=False)

    facts["shards"] = {f"{s}/{k}": [r[0] for r in listed(ds.NumpySlicesDataset(
        {"a": np.arange(10)}, shuffle=False, num_shards=s, shard_id=k))] for s in (3, 4) for k in range(s)}
    facts["sampler/sequential"] = [r[0] for r in listed(ds.NumpySlicesDataset(
        {"a": np.arange(10)}, sampler=ds.SequentialSampler(2, 5)))]
    facts["sampler/subset"] = [r[0] for r in listed(ds.NumpySlicesDataset(
        {"a": np.arange(10)}, sampler=ds.SubsetSampler([5, 1, 3, 8], num_samples=3)))]
    facts["sampler/distributed_2_of_3"] = [r[0] for r in listed(ds.NumpySlicesDataset(
        {"a": np.arange(7)}, sampler=ds.DistributedSampler(3, 2, shuffle=False)))]
    facts["batch/drop"] = listed(d10().batch(4, drop_remainder=True))
    facts["batch/keep"] = listed(d10().batch(4))
    facts["skip_take"] = listed(d10().skip(3).take(4))
    facts["filter"] = listed(d10().filter(lambda a: a % 3 == 0, input_columns=["a"]))
    facts["project_rename"] = {"cols": d10().project(["b"]).rename("b", "z").get_col_names(),
                               "rows": listed(d10().project(["b"]).rename("b", "z"))}
    facts["concat"] = listed(d10().take(2) + d10().skip(8))
    z = d10().project("a").zip(d10().project("b").take(3))
    facts["zip"] = {"cols": z.get_col_names(), "rows": listed(z)}
    facts["split"] = [listed(p) for p in d10().split([0.3, 0.7], randomize=False)]
    facts["per_batch_map"] = listed(d10().batch(
        4, per_batch_map=lambda a, b, info: ([x + info.get_batch_num() for x in a], [x * 2 for x in b]),
        input_columns=["a", "b"]))
    facts["per_batch_map_rename"] = {"rows": listed(d10().batch(
        3, per_batch_map=lambda a, b, info: ([x + y for x, y in zip(a, b)],), input_columns=["a", "b"],
        output_columns=["s"])), "cols": d10().batch(
        3, per_batch_map=lambda a, b, info: ([x + y for x, y in zip(a, b)],), input_columns=["a", "b"],
        output_columns=["s"]).get_col_names()}

    def ragged():
        return ds.GeneratorDataset(lambda: ((np.arange(n),) for n in [1, 2, 3, 4, 5, 6, 7]), ["x"])

    facts["padded_batch"] = listed(ragged().padded_batch(3, pad_info={"x": ([8], -1)}))
    facts["padded_batch_longest"] = listed(ragged().padded_batch(3, pad_info={"x": None}))
    facts["bucket"] = listed(ragged().bucket_batch_by_length(["x"], [3, 5], [2, 2, 3]))
    facts["bucket_boundary"] = listed(ragged().bucket_batch_by_length(
        ["x"], [3, 5], [2, 2, 3], pad_info={"x": (None, 9)}, pad_to_bucket_boundary=True))
    facts["map_multi"] = {"cols": d10().map(lambda a, b: (a + b, a - b, a * b), ["a", "b"], ["s", "d", "p"])
                          .get_col_names(),
                          "rows": listed(d10().map(lambda a, b: (a + b, a - b, a * b), ["a", "b"], ["s", "d", "p"]))}
    facts["sizes"] = {"batch_take": d10().batch(3).take(2).get_dataset_size(),
                      "repeat_skip": d10().repeat(2).skip(3).get_dataset_size(),
                      "shard_size_3": ds.NumpySlicesDataset({"a": np.arange(10)}, num_shards=3,
                                                            shard_id=0).get_dataset_size()}


if __name__ == "__main__":
    ds.config.set_seed(0)
    vision_goldens()
    with tempfile.TemporaryDirectory() as tmp:
        reader_goldens(tmp)
    pipeline_goldens()
    out = os.path.join(os.path.dirname(HERE), "golden")
    np.savez_compressed(os.path.join(out, "dataset_ms210.npz"), **arrays)
    with open(os.path.join(out, "dataset_ms210.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, **facts}, f, indent=1, sort_keys=True, default=str)
    print(f"wrote {len(arrays)} arrays and {len(facts)} facts")
