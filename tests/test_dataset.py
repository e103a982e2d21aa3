"""msx.dataset: pipeline semantics against numpy references, reproducible shuffling, iterators, prefetch, errors."""
import threading
import time

import numpy as np
import pytest

import msx as ms
from msx import dataset as ds
from msx.errors import DatasetError
from waiting import wait_until


@pytest.fixture(autouse=True)
def _fresh_dataset_seed(monkeypatch):
    monkeypatch.setattr(ds.config, "_seed", None)


def _data(n=10):
    x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    y = (np.arange(n) % 4).astype(np.int32)
    return x, y


def _rows(dataset, **kw):
    return [[np.asarray(a) for a in row] for row in dataset.create_tuple_iterator(output_numpy=True, **kw)]


# ---------------------------------------------------------------- sources
def test_numpy_slices_columns_from_tuple_dict_and_list():
    x, y = _data()
    by_tuple = ds.NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False)
    by_dict = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False)
    one = ds.NumpySlicesDataset(list(y), shuffle=False)
    assert by_tuple.get_col_names() == by_dict.get_col_names() == ["x", "y"]
    assert one.get_col_names() == ["column_0"]
    assert ds.NumpySlicesDataset((x, y), shuffle=False).get_col_names() == ["column_0", "column_1"]
    for d in (by_tuple, by_dict):
        rows = _rows(d)
        assert len(rows) == d.get_dataset_size() == 10
        np.testing.assert_array_equal(np.stack([r[0] for r in rows]), x)
        np.testing.assert_array_equal([r[1] for r in rows], y)
    assert [int(r[0]) for r in _rows(one)] == list(y)


def test_generator_dataset_from_function_random_access_and_list():
    x, y = _data(7)

    def gen():
        for i in range(7):
            yield x[i], y[i]

    class Source:
        def __getitem__(self, i):
            return x[i], y[i]

        def __len__(self):
            return 7

    pairs = [(x[i], y[i]) for i in range(7)]
    for source, kw in ((gen, {}), (Source(), {"shuffle": False}), (pairs, {"shuffle": False})):
        d = ds.GeneratorDataset(source, column_names=["x", "y"], **kw)
        assert d.get_dataset_size() == 7
        rows = _rows(d)
        np.testing.assert_array_equal(np.stack([r[0] for r in rows]), x)
        np.testing.assert_array_equal([r[1] for r in rows], y)
    d = ds.GeneratorDataset(gen, ["x", "y"], column_types=[ms.float16, ms.int64])
    assert [a.dtype for a in _rows(d)[0]] == [np.float16, np.int64]
    assert isinstance(ds.GeneratorDataset(Source(), ["x", "y"]), ds.GeneratorDataset)


def test_num_samples_limits_rows():
    x, y = _data()
    assert ds.NumpySlicesDataset((x, y), num_samples=4, shuffle=False).get_dataset_size() == 4
    assert len(_rows(ds.NumpySlicesDataset((x, y), num_samples=4))) == 4
    gen = ds.GeneratorDataset(lambda: iter(list(y)), ["y"], num_samples=3)
    assert [int(r[0]) for r in _rows(gen)] == list(y[:3])


# ---------------------------------------------------------------- pipeline steps
@pytest.mark.parametrize("drop_remainder, sizes", [(False, [3, 3, 3, 1]), (True, [3, 3, 3])])
def test_batch_sizes_and_values(drop_remainder, sizes):
    x, y = _data()
    d = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(3, drop_remainder=drop_remainder)
    assert d.get_dataset_size() == len(sizes) and d.get_batch_size() == 3
    batches = _rows(d)
    assert [b[0].shape[0] for b in batches] == sizes
    assert batches[0][0].shape == (3, 3) and batches[0][1].dtype == np.int32
    np.testing.assert_array_equal(np.concatenate([b[0] for b in batches]), x[:sum(sizes)])
    np.testing.assert_array_equal(np.concatenate([b[1] for b in batches]), y[:sum(sizes)])


def test_batching_arrays_directly_equals_batching_row_by_row():
    x, y = _data(23)
    ms.set_seed(4)
    direct = ds.NumpySlicesDataset({"x": x, "y": y}, num_samples=21)  # batch gathers whole batches at once
    ms.set_seed(4)
    by_rows = ds.NumpySlicesDataset({"x": x, "y": y}, num_samples=21).map(lambda a: a)  # map: one row at a time
    for drop in (False, True):
        a = direct.batch(5, drop_remainder=drop).create_tuple_iterator(num_epochs=2, output_numpy=True)
        b = by_rows.batch(5, drop_remainder=drop).create_tuple_iterator(num_epochs=2, output_numpy=True)
        for _ in range(2):
            batches_a, batches_b = list(a), list(b)
            assert [len(r[0]) for r in batches_a] == ([5] * 4 if drop else [5] * 4 + [1])
            for ra, rb in zip(batches_a, batches_b, strict=True):
                np.testing.assert_array_equal(ra[0], rb[0])
                np.testing.assert_array_equal(ra[1], rb[1])


def test_map_one_column_many_columns_and_renames():
    x, y = _data()
    d = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False)
    scaled = d.map(lambda a: a / 2.0, input_columns="x")
    assert scaled.get_col_names() == ["x", "y"]
    np.testing.assert_allclose(np.stack([r[0] for r in _rows(scaled)]), x / 2.0)
    # default input column is the first; a list of operations runs in order
    chained = d.map([lambda a: a + 1, lambda a: a * 10])
    np.testing.assert_allclose(np.stack([r[0] for r in _rows(chained)]), (x + 1) * 10)
    # two columns in, three out, renamed, placed where the first input was
    split = d.map(lambda a, b: (a.sum(), a.max(), b * 2), input_columns=["x", "y"],
                  output_columns=["s", "m", "y2"])
    assert split.get_col_names() == ["s", "m", "y2"]
    rows = _rows(split)
    np.testing.assert_allclose([r[0] for r in rows], x.sum(1))
    np.testing.assert_allclose([r[1] for r in rows], x.max(1))
    np.testing.assert_array_equal([r[2] for r in rows], y * 2)
    # an msx op returning a Tensor works too
    via_ops = d.map(lambda a: ms.ops.relu(ms.Tensor(a - 10)), input_columns="x")
    np.testing.assert_allclose(np.stack([r[0] for r in _rows(via_ops)]), np.maximum(x - 10, 0))


def test_repeat_take_and_sizes():
    x, y = _data(4)
    d = ds.NumpySlicesDataset({"y": y}, shuffle=False)
    assert [int(r[0]) for r in _rows(d.repeat(3))] == list(y) * 3
    assert d.repeat(3).get_dataset_size() == 12 and d.repeat(3).get_repeat_count() == 3
    assert [int(r[0]) for r in _rows(d.repeat().take(6))] == (list(y) * 2)[:6]
    assert d.repeat().take(6).get_dataset_size() == 6
    assert d.take(2).get_dataset_size() == 2
    assert d.batch(3).repeat(2).get_dataset_size() == 4
    with pytest.raises(DatasetError, match="without end"):
        d.repeat(-1).get_dataset_size()


# ---------------------------------------------------------------- shuffling
def _order(d, epochs=1):
    it = d.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    return [[int(r[0]) for r in it] for _ in range(epochs)]


def test_global_shuffle_is_a_permutation_reproducible_by_msx_set_seed():
    y = np.arange(50)
    ms.set_seed(7)
    first = _order(ds.NumpySlicesDataset({"y": y}), epochs=3)
    ms.set_seed(7)
    again = _order(ds.NumpySlicesDataset({"y": y}), epochs=3)
    assert first == again
    assert all(sorted(e) == list(range(50)) for e in first)
    assert first[0] != list(range(50)) and first[0] != first[1] != first[2]  # shuffled, anew each epoch
    ms.set_seed(8)
    assert _order(ds.NumpySlicesDataset({"y": y}), epochs=3) != first


def test_dataset_config_seed_overrides_the_global_seed():
    y = np.arange(40)
    ds.config.set_seed(3)
    assert ds.config.get_seed() == 3
    ms.set_seed(1)
    a = _order(ds.NumpySlicesDataset({"y": y}))
    ms.set_seed(2)
    b = _order(ds.NumpySlicesDataset({"y": y}))
    assert a == b
    ds.config.set_seed(4)
    assert _order(ds.NumpySlicesDataset({"y": y})) != a
    with pytest.raises(DatasetError, match="seed"):
        ds.config.set_seed(-1)


def test_buffer_shuffle_of_a_generator_is_reproducible_and_complete():
    def gen():
        for i in range(30):
            yield (np.int64(i),)

    ms.set_seed(11)
    first = _order(ds.GeneratorDataset(gen, ["i"]).shuffle(8), epochs=2)
    ms.set_seed(11)
    assert _order(ds.GeneratorDataset(gen, ["i"]).shuffle(8), epochs=2) == first
    assert all(sorted(e) == list(range(30)) for e in first) and first[0] != first[1]
    assert first[0] != list(range(30))
    # a buffer of 8: the p-th row out was picked from the rows read so far, 0 .. p + 7
    assert all(v <= p + 7 for p, v in enumerate(first[0][:22]))
    # a full-size buffer is a uniform shuffle, repeat passes differ
    ms.set_seed(11)
    reps = [int(r[0]) for r in ds.GeneratorDataset(gen, ["i"]).shuffle(100).repeat(2).create_tuple_iterator(
        output_numpy=True)]
    assert sorted(reps[:30]) == sorted(reps[30:]) == list(range(30)) and reps[:30] != reps[30:]


# ---------------------------------------------------------------- iterators
def test_iterator_types_and_dtypes():
    x, y = _data(6)
    d = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(2)
    row = next(iter(d.create_tuple_iterator()))
    assert isinstance(row, list) and all(type(t) is ms.Tensor for t in row)
    assert row[0].dtype == ms.float32 and row[1].dtype == ms.int32
    np.testing.assert_array_equal(row[0].asnumpy(), x[:2])
    as_dict = next(iter(d.create_dict_iterator()))
    assert list(as_dict) == ["x", "y"] and type(as_dict["y"]) is ms.Tensor
    np.testing.assert_array_equal(as_dict["y"].asnumpy(), y[:2])
    as_numpy = next(iter(d.create_dict_iterator(output_numpy=True)))
    assert isinstance(as_numpy["x"], np.ndarray)
    only_y = next(iter(d.create_tuple_iterator(columns=["y"], output_numpy=True)))
    assert len(only_y) == 1 and only_y[0].tolist() == [0, 1]
    assert [len(b) for b in d] == [2, 2, 2]  # iterating the dataset itself gives tuple rows
    assert d.output_shapes() == [[2, 3], [2]] and d.output_types() == [np.float32, np.int32]


def test_iterator_epochs_are_limited_by_num_epochs():
    d = ds.NumpySlicesDataset({"y": np.arange(3)}, shuffle=False)
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [[int(r[0]) for r in it] for _ in range(2)] == [[0, 1, 2], [0, 1, 2]]
    with pytest.raises(DatasetError, match="num_epochs=2"):
        iter(it)


# ---------------------------------------------------------------- background prefetch
def test_prefetch_runs_the_pipeline_ahead_and_overlaps_the_consumer():
    produced = []

    def slow(a):
        time.sleep(0.02)
        produced.append(int(a))
        return a

    d = ds.NumpySlicesDataset({"i": np.arange(10)}, shuffle=False).map(slow)
    it = d.create_tuple_iterator(output_numpy=True)
    seen = [int(next(it)[0])]
    # the consumer is "training" on row 0 and asks for nothing: a pipeline that overlaps it maps the next rows
    # meanwhile (one that waited for the consumer would stay at the one row asked for)
    assert wait_until(lambda: len(produced) >= 4), f"the pipeline did not run ahead: {produced}"
    seen += [int(row[0]) for row in it]
    assert seen == list(range(10))
    it.stop()  # (num_epochs=-1: it is reading the next epoch ahead)
    time.sleep(0.1)  # a row being mapped when the iterator stopped finishes

    ds.config.set_prefetch_size(2)
    try:
        produced.clear()
        it = d.create_tuple_iterator(output_numpy=True)
        next(it)
        assert wait_until(lambda: len(produced) >= 2)  # ahead of the consumer ...
        time.sleep(0.3)
        assert len(produced) <= 4  # ... bounded by the prefetch size
    finally:
        it.stop()
        ds.config.set_prefetch_size(16)


def test_early_stop_ends_the_thread_and_errors_reach_the_consumer():
    d = ds.NumpySlicesDataset({"i": np.arange(1000)}, shuffle=False)
    others = set(threading.enumerate())  # threads other tests of this process may have left

    def reading_threads():
        return [t for t in threading.enumerate() if "prefetch" in t.name and t.is_alive() and t not in others]

    it = d.create_tuple_iterator(output_numpy=True)
    next(it)
    assert reading_threads()  # grain's threads read ahead ...
    it.stop()
    assert wait_until(lambda: not reading_threads())  # ... and end with the iterator

    def broken():
        yield (np.zeros(2),)
        raise KeyError("source failed at row 1")

    it = ds.GeneratorDataset(broken, ["a"]).create_tuple_iterator()
    for _ in range(2):  # the failed epoch restarts instead of hanging
        with pytest.raises(KeyError, match="source failed"):
            list(it)


# ---------------------------------------------------------------- errors that name the column
def test_bad_data_is_rejected_at_construction_naming_the_column():
    x, y = _data()
    with pytest.raises(DatasetError, match=r"different lengths.*'x': 10.*'y': 3"):
        ds.NumpySlicesDataset({"x": x, "y": y[:3]})
    with pytest.raises(DatasetError, match="column 'seq' is ragged"):
        ds.NumpySlicesDataset({"seq": [[1, 2], [3]], "y": [0, 1]})
    # MindSpore holds strings in columns (TextFileDataset, text transforms): they are data, not an error
    assert [str(r[0]) for r in _rows(ds.NumpySlicesDataset({"name": ["a", "b"]}, shuffle=False))] == ["a", "b"]
    with pytest.raises(DatasetError, match="column 'obj' holds Python objects"):
        ds.NumpySlicesDataset({"obj": np.array([{}, {}], dtype=object)})
    with pytest.raises(DatasetError, match="column_names has 3 names"):
        ds.NumpySlicesDataset((x, y), column_names=["a", "b", "c"])
    with pytest.raises(DatasetError, match="row 0 has 2 values, but column_names has 3"):
        ds.GeneratorDataset(lambda: iter([(x[0], y[0])]), ["a", "b", "c"])
    with pytest.raises(DatasetError, match="column 'label' holds"):
        ds.GeneratorDataset(lambda: iter([(x[0], object())]), ["image", "label"])
    # a one-shot iterator is read once and replayed, as MindSpore does (it used to be refused)
    once = ds.GeneratorDataset(iter([(1,), (2,)]), ["a"]).create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [[int(r[0]) for r in once] for _ in range(2)] == [[1, 2], [1, 2]]
    with pytest.raises(DatasetError, match="num_shards is not supported if source does not have attribute"):
        ds.GeneratorDataset(lambda: iter([(1,)]), ["a"], num_shards=2, shard_id=0)
    with pytest.raises(DatasetError, match="give column_names"):
        ds.GeneratorDataset(lambda: iter([(1,)]))


def test_bad_rows_later_and_bad_steps_name_the_column_row_and_step():
    def late():
        for i in range(5):
            yield (np.zeros(2) if i != 3 else object(),)

    with pytest.raises(DatasetError, match="row 3: column 'v' holds"):
        list(ds.GeneratorDataset(late, ["v"]))
    ragged = ds.GeneratorDataset(lambda: (np.zeros(i + 1) for i in range(4)), ["v"])
    with pytest.raises(DatasetError, match=r"batch: column 'v' has rows of different shapes \[\(1,\), \(2,\)\]"):
        list(ragged.batch(2))
    d = ds.NumpySlicesDataset({"x": np.arange(4.0)}, shuffle=False)

    def fails_on_two(a):
        if a == 2:
            raise ZeroDivisionError("bad value")
        return a

    with pytest.raises(DatasetError, match="operation fails_on_two failed on columns \\['x'\\] of row 2"):
        list(d.map(fails_on_two))
    with pytest.raises(DatasetError, match="returned 2 values for row 0, but output_columns names 1"):
        list(d.map(lambda a: (a, a)))
    with pytest.raises(DatasetError, match="input column 'nope' is not one of"):
        d.map(lambda a: a, input_columns="nope")
    with pytest.raises(DatasetError, match="Input batch_size is not within the required interval of \\[1, 2147483647\\]"):
        d.batch(0)
    with pytest.raises(DatasetError, match="Input buffer_size is not within the required interval of \\[2, 2147483647\\]"):
        d.shuffle(1)


def test_ops_run_by_the_prefetch_thread_stay_out_of_a_graph_being_captured():
    tracing = threading.Event()

    def with_ops(a):
        if a > 0:
            tracing.wait(5)  # rows after the first run their ops while the main thread is capturing
        return ms.ops.relu(ms.ops.mul(ms.Tensor(a), 2.0))

    d = ds.NumpySlicesDataset({"a": np.arange(40.0)}, shuffle=False).map(with_ops)
    it = d.create_tuple_iterator(output_numpy=True)
    first = next(it)  # the prefetch thread is running

    def step(x):
        tracing.set()
        time.sleep(0.2)  # the prefetch thread maps rows meanwhile
        return x + 1

    try:
        graph = ms.jit(step, capture_mode="trace").capture(ms.Tensor(np.zeros(2, np.float32)))
        assert [n.op for n in graph.nodes] == ["Add"]
        assert [float(first[0])] + [float(r[0]) for r in it] == [2.0 * i for i in range(40)]
    finally:
        it.stop()
