"""Generator, sampler and pipeline semantics against MindSpore 2.10: the cases of
tests/golden/dataset_semantics/semantics_cases.py run on msx.dataset must give the rows (and errors) MindSpore
gave on the same inputs (recorded in ms210.json by make_golden.py there)."""
import json
import os
import sys
import threading
import warnings

import numpy as np
import pytest

import msx.dataset as ds
from msx.errors import DatasetError

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # tests/, for dataset_formats
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "dataset_semantics")
sys.path.insert(0, HERE)
import semantics_cases as cases  # noqa: E402

GOLDEN = json.load(open(os.path.join(HERE, "ms210.json")))
NAMES = sorted(GOLDEN)


def _run(name, tmp):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = getattr(cases, f"case_{name}")(ds, str(tmp))
        if isinstance(result, ds.Dataset):
            result = cases.rows(result)
    return json.loads(json.dumps(result))


@pytest.mark.parametrize("name", NAMES)
def test_case_matches_mindspore(name, tmp_path):
    want = GOLDEN[name]
    if "error" in want:
        # MindSpore raises ValueError for bad arguments and RuntimeError from its pipeline threads; msx raises a
        # DatasetError (a ValueError) naming the step, at build time where it can
        with pytest.raises(DatasetError):
            _run(name, tmp_path)
        return
    assert _run(name, tmp_path) == want["result"]


def test_generator_shuffle_warns_once_per_dataset_and_keeps_the_order():
    with pytest.warns(UserWarning, match="shuffle=True has no effect on a source without __getitem__"):
        d = ds.GeneratorDataset(cases.gen10, ["a"], shuffle=True)
    assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)] == list(range(10))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds.GeneratorDataset(cases.gen10, ["a"], shuffle=False)  # no warning when not asked to shuffle


def test_dict_batches_refuse_rows_whose_keys_differ():
    def rows():
        yield ({"x": 1},)
        yield ({"y": 2},)
    with pytest.raises(DatasetError, match="keys differ between rows"):
        list(ds.GeneratorDataset(rows, ["d"]).batch(2).create_tuple_iterator(output_numpy=True))


def test_pk_sampler_alone_cannot_count_but_its_dataset_can(tmp_path):
    with pytest.raises(DatasetError, match="ask the dataset"):
        ds.PKSampler(2)._count(10)
    d = ds.MnistDataset(cases._mnist(str(tmp_path)), usage="train", sampler=ds.PKSampler(2))
    assert d.get_dataset_size() == len(list(d.create_tuple_iterator(output_numpy=True))) == 6


def test_sync_wait_blocks_until_updated_and_times_out_with_a_warning():
    d = ds.GeneratorDataset(cases.gen10, ["a"]).sync_wait("c", num_batch=2)
    it = d.create_tuple_iterator(num_epochs=1, output_numpy=True)
    got = [int(next(it)[0]), int(next(it)[0])]
    waiting = threading.Event()

    def release():
        waiting.wait(5)
        d.sync_update("c", num_batch=1)
    threading.Thread(target=release).start()
    waiting.set()
    got.append(int(next(it)[0]))  # waits for the release above
    assert got == [0, 1, 2]
    it.stop()
    ds.config.set_callback_timeout(1)
    try:
        d2 = ds.GeneratorDataset(cases.gen10, ["a"]).sync_wait("c")
        with pytest.warns(UserWarning, match="no sync_update came within 1 s"):
            assert [int(r[0]) for r in d2.create_tuple_iterator(num_epochs=1, output_numpy=True)] == list(range(10))
    finally:
        ds.config.set_callback_timeout(60)
    with pytest.raises(DatasetError, match="already in use"):
        d.sync_wait("c")
    with pytest.raises(DatasetError, match="num_batch must be a positive int"):
        d.sync_update("c", num_batch=0)


def test_callbacks_and_bad_map_arguments():
    with pytest.raises(DatasetError, match=r"Argument callbacks\[0\] with value .* is not of type"):
        ds.NumpySlicesDataset(np.arange(3), ["a"]).map(lambda x: x, callbacks=[object()])
    with pytest.raises(DatasetError, match="cache"):
        ds.NumpySlicesDataset(np.arange(3), ["a"]).map(lambda x: x, cache=object())
    with pytest.raises(DatasetError, match="step_size"):
        ds.DSCallback(0)


def test_save_refuses_what_mindrecord_cannot_hold(tmp_path):
    def ragged():
        yield (np.zeros((2, 3)),)
        yield (np.zeros((2, 4)),)
    with pytest.raises(DatasetError, match="only the first dimension may vary"):
        ds.GeneratorDataset(ragged, ["a"]).save(str(tmp_path / "r.mindrecord"))
    with pytest.raises(DatasetError, match="tfrecord dataset format is not supported"):
        ds.NumpySlicesDataset(np.arange(3), ["a"]).save(str(tmp_path / "x"), file_type="tfrecord")
    assert not os.listdir(tmp_path)  # nothing half-written


def test_the_2x_module_paths_are_the_same_classes():
    import msx.dataset.text.transforms as text_t
    import msx.dataset.transforms.transforms as general_t
    import msx.dataset.vision.transforms as vision_t

    assert vision_t.Decode is ds.vision.Decode and vision_t.Resize is ds.vision.Resize
    assert general_t.TypeCast is ds.transforms.TypeCast and text_t.Vocab is ds.text.Vocab


def test_module_level_zip_takes_a_tuple_of_datasets():
    a = ds.NumpySlicesDataset({"a": np.arange(3)}, shuffle=False)
    b = ds.NumpySlicesDataset({"b": np.arange(2) * 10}, shuffle=False)
    assert [[int(x) for x in r] for r in ds.zip((a, b)).create_tuple_iterator(output_numpy=True)] == [[0, 0], [1, 10]]
    with pytest.raises(DatasetError, match="at least two"):
        ds.zip((a,))


def test_cifar10_save_writes_mindspore_s_mapping(tmp_path):
    from dataset_formats import write_cifar
    from msx.dataset.readers.mindrecord_format import read_header

    images = np.random.default_rng(0).integers(0, 256, (3, 32, 32, 3)).astype(np.uint8)
    (tmp_path / "c10").mkdir()
    write_cifar(str(tmp_path / "c10" / "data_batch_1.bin"), images, [4, 0, 9])
    path = str(tmp_path / "cifar.mindrecord")
    ds.Cifar10Dataset(str(tmp_path / "c10"), usage="train", shuffle=False).save(path)
    schema = read_header(path)["schema"][0]
    # what MindSpore 2.10's save writes for Cifar10Dataset's columns (uint8 HWC image, uint32 label)
    assert schema["schema"] == {"image": {"type": "int32", "shape": [-1, 32, 3]}, "label": {"type": "int64"}}
    back = list(ds.MindDataset(path, shuffle=False).create_tuple_iterator(output_numpy=True))
    assert [int(r[1]) for r in back] == [4, 0, 9]
    np.testing.assert_array_equal(np.stack([r[0] for r in back]), images.astype(np.int32))
