"""The generator/sampler/pipeline semantics cases, written once against the `mindspore.dataset` API: the golden
script runs them on MindSpore 2.10, tests/test_dataset_semantics.py on msx.dataset, and the rows must agree.

Each case takes the dataset module (`mindspore.dataset` or `msx.dataset`) and a scratch folder and returns plain
JSON data; a case that raises records the builtin class its error is (msx's DatasetError is a ValueError, as
MindSpore's argument errors are).
"""
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # tests/
from dataset_formats import write_mnist  # noqa: E402


def plain(value):
    """numpy / Tensor values (nested in lists, tuples, dicts) as JSON data."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "asnumpy"):
        value = value.asnumpy()
    array = np.asarray(value)
    if array.dtype.kind == "S":
        return {"bytes": [b.decode("latin-1") for b in array.reshape(-1).tolist()], "shape": list(array.shape)}
    if array.dtype.kind == "U":
        return {"str": array.tolist()}
    return {"dtype": str(array.dtype), "value": array.tolist()}


def rows(d, **kw):
    return [plain(list(r)) for r in d.create_tuple_iterator(output_numpy=True, **kw)]


def gen10():
    for i in range(10):
        yield (np.array(i, np.int32),)


class Iterable6:
    """An iterable source with __len__ but no __getitem__ (MindSpore's "iterable dataset" tutorial shape)."""

    def __init__(self):
        self.i = 0

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i >= 6:
            raise StopIteration
        self.i += 1
        return (np.array(self.i - 1, np.int32),)

    def __len__(self):
        return 6


class Accessible:
    def __init__(self, n=8):
        self.n = n

    def __getitem__(self, i):
        return (np.array(i * 10, np.int64),)

    def __len__(self):
        return self.n


def case_generator_shuffle(ds, tmp):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = ds.GeneratorDataset(gen10, ["a"], shuffle=True)
        e = ds.GeneratorDataset(gen10, ["a"], shuffle=True, num_samples=4)
        f = ds.GeneratorDataset(Iterable6(), ["a"], shuffle=True)
    return {"gen": rows(d), "gen_size": d.get_dataset_size(), "num_samples": rows(e), "ns_size": e.get_dataset_size(),
            "iterable": rows(f), "iterable_size": f.get_dataset_size(), "two_epochs": rows(f.repeat(2))}


def case_generator_shards(ds, tmp):
    return ds.GeneratorDataset(gen10, ["a"], num_shards=2, shard_id=0)


def case_generator_sampler(ds, tmp):
    return ds.GeneratorDataset(gen10, ["a"], sampler=ds.SequentialSampler())


def dict_rows():
    for i in range(5):
        yield ({"x": np.array([i, i + 1], np.int64), "y": i * 2.0, "z": [i, -i]},)


def case_dict_batch(ds, tmp):
    d = ds.GeneratorDataset(dict_rows, ["d"]).batch(2)
    return {"tuple": rows(d), "dict": [plain(r) for r in d.create_dict_iterator(output_numpy=True)],
            "tensors": [plain(r) for r in d.create_dict_iterator()]}


def case_nested_dict_batch(ds, tmp):
    def nested():
        for i in range(3):
            yield ({"x": {"p": np.array([i])}},)
    return rows(ds.GeneratorDataset(nested, ["d"]).batch(2))


def case_user_samplers(ds, tmp):
    class Every3(ds.Sampler):
        def __iter__(self):
            for i in range(0, self.dataset_size, 3):
                yield i

    class Plain:
        def __iter__(self):
            return iter([7, 1, 1])

    data = np.arange(10, dtype=np.int32)
    out = {}
    for name, sampler in (("subclass", Every3()), ("subclass_num_samples", Every3(num_samples=2)),
                          ("iterable", Plain()), ("tuple", (5, 2, 2)), ("list", [9, 0])):
        d = ds.NumpySlicesDataset(data, ["a"], sampler=sampler)
        out[name] = {"rows": rows(d), "size": d.get_dataset_size()}
    g = ds.GeneratorDataset(Accessible(), ["a"], sampler=Every3())
    out["generator"] = {"rows": rows(g), "size": g.get_dataset_size()}
    return out


def case_float_sampler(ds, tmp):
    class Floats(ds.Sampler):
        def __iter__(self):
            return iter([1.0, 2.0])
    return rows(ds.NumpySlicesDataset(np.arange(4), ["a"], sampler=Floats()))


def _mnist(tmp):
    folder = os.path.join(tmp, "mnist")
    if not os.path.isdir(folder):
        images = np.arange(9 * 28 * 28, dtype=np.int64).reshape(9, 28, 28) % 251
        write_mnist(folder, images.astype(np.uint8), [2, 0, 1, 2, 0, 2, 1, 2, 2], "train")
    return folder


def case_pk_sampler(ds, tmp):
    out = {}
    for name, sampler in (("pk2", ds.PKSampler(2)), ("pk4", ds.PKSampler(4)),
                          ("pk3_limited", ds.PKSampler(3, num_samples=5))):
        d = ds.MnistDataset(_mnist(tmp), usage="train", sampler=sampler)
        out[name] = {"labels": [r[1]["value"] for r in rows(d)], "size": d.get_dataset_size(),
                     "batches": d.batch(2).get_dataset_size()}
    return out


def case_sync_wait(ds, tmp):
    """MindSpore's sync_wait docstring example, logging what the map saw and what the callback got."""
    def gen():
        for i in range(20):
            yield (np.array(i),)

    log = []

    class Augment:
        def __init__(self):
            self.loss = 0

        def preprocess(self, x):
            log.append(["map", int(x), self.loss])
            return x

        def update(self, data):
            self.loss = data["loss"]
            log.append(["update", data["loss"]])

    aug = Augment()
    d = ds.GeneratorDataset(gen, column_names=["input"])
    d = d.sync_wait(condition_name="policy", callback=aug.update)
    d = d.map(operations=[aug.preprocess], input_columns=["input"])
    d = d.batch(4)
    seen, count = [], 0
    for data in d.create_dict_iterator(num_epochs=1, output_numpy=True):
        seen.append(data["input"].tolist())
        count += 4
        d.sync_update(condition_name="policy", data={"loss": count})
    groups, group = [], []  # MindSpore's map threads may log a batch's rows in any order: sort between updates
    for entry in log:
        if entry[0] == "update":
            groups += [sorted(group), entry]
            group = []
        else:
            group.append(entry)
    return {"batches": seen, "log": groups + [sorted(group)], "size": d.get_dataset_size()}


def case_sync_update_unknown(ds, tmp):
    d = ds.GeneratorDataset(gen10, ["a"]).sync_wait("c")
    d.sync_update("other")


def case_shuffle_after_sync(ds, tmp):
    return ds.GeneratorDataset(gen10, ["a"]).sync_wait("c").shuffle(4)


def case_steps(ds, tmp):
    def zipped():  # MindSpore's pipeline must be a tree: a fresh one per use
        return ds.NumpySlicesDataset({"a": np.arange(5, dtype=np.int32)}, shuffle=False).zip(
            ds.NumpySlicesDataset({"b": np.arange(3, dtype=np.float32) * 0.5}, shuffle=False))

    def seqs():
        for n in (1, 4, 2, 5, 3, 1, 6):
            yield (np.arange(n, dtype=np.int32) + n,)

    bucket = ds.GeneratorDataset(seqs, ["s"]).bucket_batch_by_length(["s"], [3, 5], [2, 2, 2],
                                                                    pad_info={"s": ([None], -1)})
    padded = ds.GeneratorDataset(seqs, ["s"]).padded_batch(3, pad_info={"s": ([None], 0)})
    padded_fixed = ds.GeneratorDataset(seqs, ["s"]).padded_batch(2, drop_remainder=True, pad_info={"s": ([7], 9)})
    return {"zip": rows(zipped()), "zip_names": zipped().get_col_names(), "zip_size": zipped().get_dataset_size(),
            "bucket": rows(bucket), "padded": rows(padded), "padded_fixed": rows(padded_fixed)}


def case_ds_callback(ds, tmp):
    log = []

    class Record(ds.DSCallback):
        def ds_begin(self, c):
            log.append(["begin", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num])

        def ds_epoch_begin(self, c):
            log.append(["epoch_begin", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num])

        def ds_epoch_end(self, c):
            log.append(["epoch_end", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num])

        def ds_step_begin(self, c):
            log.append(["step_begin", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num])

        def ds_step_end(self, c):
            log.append(["step_end", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num])

    d = ds.NumpySlicesDataset(np.arange(5, dtype=np.int32), ["a"], shuffle=False)
    d = d.map(lambda x: x * 2, callbacks=[Record(2)])
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    got = [[r[0].tolist() for r in it] for _ in range(2)]
    if ds.__name__.startswith("mindspore"):
        import time
        time.sleep(0.2)  # MindSpore runs the hooks on its pipeline threads; let the last ones land
    return {"rows": got, "log": sorted(log)}  # MindSpore's pipeline threads interleave the hooks; compare the set


def case_save(ds, tmp):
    path = os.path.join(tmp, "saved.mindrecord")
    rng = np.random.default_rng(3)
    data = {"image": rng.integers(0, 256, (3, 4, 4, 3)).astype(np.uint8),
            "label": np.array([3, 1, 2], np.uint32), "score": np.array([0.5, 1.25, -2.0], np.float16),
            "name": np.array(["a", "bc", "d"]), "big": np.array([2 ** 40, -1, 7], np.int64),
            "vec": np.arange(6, dtype=np.float64).reshape(3, 2), "flag": np.array([True, False, True])}
    ds.NumpySlicesDataset(data, shuffle=False).save(path)
    back = ds.MindDataset(path, shuffle=False)
    return {"columns": back.get_col_names(), "rows": rows(back)}


def case_gan_tutorial_first_block(ds, tmp):
    """MindSpore's GAN tutorial reads MNIST through a GeneratorDataset with shuffle=True (a Dataset source: no
    __getitem__, so read in order) and maps one column to two."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train = ds.MnistDataset(dataset_dir=_mnist(tmp), shuffle=False)
        d = ds.GeneratorDataset(train, ["image", "label"], shuffle=True, python_multiprocessing=False, num_samples=6)
    d = d.map(operations=lambda x: (x.astype("float32"), np.ones(3, np.float32)),
              output_columns=["image", "latent_code"])
    d = d.project(["image", "latent_code"]).batch(4, True)
    return {"sums": [r[0].sum(axis=(1, 2, 3)).tolist() for r in d.create_tuple_iterator(output_numpy=True)],
            "size": d.get_dataset_size(), "columns": d.get_col_names()}
