"""The iterator reads ahead across epochs: the next epoch's first batches are ready when the current one ends,
with the rows of a pipeline read without any prefetch, `num_epochs`/`stop()` as before, and no thread left behind."""
import gc
import os
import threading
import time

import jax
import numpy as np
import pytest

import msx as ms
from msx import dataset as ds
from msx.dataset import vision
from msx.dataset.pipeline import applied
from msx.errors import DatasetError
from waiting import wait_until


@pytest.fixture(autouse=True)
def _fresh_dataset_seed(monkeypatch):
    monkeypatch.setattr(ds.config, "_seed", None)


def _augmented(seed=5):
    ms.set_seed(seed)
    images = np.random.default_rng(0).integers(0, 255, (30, 8, 8, 3), np.uint8)
    d = ds.NumpySlicesDataset({"image": images, "label": np.arange(30)}, shuffle=True, num_parallel_workers=2)
    d = d.map([vision.RandomCrop(6), vision.RandomHorizontalFlip(), vision.Rescale(1 / 255, 0)], "image")
    return d.batch(4)


def _unprefetched(d, epoch):
    """Epoch `epoch` read in this thread, element by element, from the lowered pipeline: no prefetch at all."""
    lowered = applied(d._pending((epoch,)))
    return [[np.asarray(c) for c in lowered[i]] for i in range(len(lowered))]


def _epochs(it, count):
    return [[[np.asarray(c).copy() for c in row] for row in it] for _ in range(count)]


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert len(x) == len(y)
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)


_EARLIER: set = set()  # reading threads other tests of this process left behind: not this test's to end


@pytest.fixture(autouse=True)
def _earlier_threads():
    gc.collect()
    _EARLIER.clear()
    _EARLIER.update(t for t in threading.enumerate() if "prefetch" in t.name)
    yield


def _reading_threads():
    return [t for t in threading.enumerate() if "prefetch" in t.name and t.is_alive() and t not in _EARLIER]


def _threads_ended(seconds=3.0):
    """True once no reading thread is alive (a row being read when the iterator stopped finishes first)."""
    gc.collect()
    deadline = time.monotonic() + seconds
    while _reading_threads() and time.monotonic() < deadline:
        time.sleep(0.02)
    return not _reading_threads()


def test_prefetched_epochs_equal_the_pipeline_read_without_prefetch_and_set_seed_reproduces_them():
    d = _augmented()
    got = _epochs(d.create_tuple_iterator(num_epochs=3, output_numpy=True), 3)
    for e in range(3):
        _same(got[e], _unprefetched(d, e))
    assert not np.array_equal(got[0][0][1], got[1][0][1])  # every epoch draws a new order
    again = _epochs(_augmented().create_tuple_iterator(num_epochs=3, output_numpy=True), 3)
    for a, b in zip(got, again):
        _same(a, b)
    other = _epochs(_augmented(seed=6).create_tuple_iterator(num_epochs=1, output_numpy=True), 1)
    assert not all(np.array_equal(a[0], b[0]) for a, b in zip(got[0], other[0]))


def test_the_next_epoch_is_read_while_the_current_one_is_consumed():
    read = []

    def record(a):
        read.append(int(a))
        return a

    n = 12
    d = ds.NumpySlicesDataset({"a": np.arange(n)}, shuffle=False).map(record)
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [int(r[0]) for r in it] == list(range(n))
    # the consumer "trains" on the last row; the readers go on with epoch 1
    assert wait_until(lambda: len(read) > n), "the next epoch's rows were not read ahead"
    start = time.perf_counter()
    second = [int(r[0]) for r in it]
    assert second == list(range(n))
    assert len(read) == 2 * n  # ... and nothing beyond num_epochs is ever read
    with pytest.raises(DatasetError, match="num_epochs=2"):
        iter(it)
    assert time.perf_counter() - start < 5


def test_tensor_rows_are_device_arrays_in_every_epoch():
    d = ds.NumpySlicesDataset({"x": np.arange(8.0).reshape(4, 2)}, shuffle=False).batch(2)
    it = d.create_tuple_iterator(num_epochs=2)
    rows = _epochs(it, 2)
    assert [r[0].tolist() for r in rows[1]] == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
    x = next(iter(d.create_tuple_iterator(num_epochs=1)))[0]
    assert type(x) is ms.Tensor and x.dtype == ms.float64  # MindSpore keeps numpy's dtype
    assert isinstance(x._data, jax.Array)  # put on the device by the reading threads


def test_stop_mid_epoch_restarts_that_epoch_and_break_continues_it():
    d = _augmented()
    reference = [_unprefetched(d, e) for e in range(2)]
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    _same(_epochs(it, 1)[0], reference[0])
    first = [np.asarray(c).copy() for c in next(it)]  # epoch 1 begins (it was read ahead) ...
    it.stop()  # ... and is abandoned: iterating again starts epoch 1 from its first batch
    assert _threads_ended()
    restarted = _epochs(it, 1)[0]
    _same(restarted, reference[1])
    _same([first], restarted[:1])
    with pytest.raises(DatasetError, match="num_epochs=2"):
        iter(it)

    it = d.create_tuple_iterator(num_epochs=1, output_numpy=True)
    head = []
    for row in it:
        head.append([np.asarray(c).copy() for c in row])
        if len(head) == 3:
            break  # a break without stop() keeps the epoch's place
    head += [[np.asarray(c).copy() for c in row] for row in it]
    _same(head, reference[0])


def test_no_thread_is_left_when_the_iterator_is_dropped_mid_epoch_or_after_its_epochs():
    assert _threads_ended()
    d = _augmented()
    it = d.create_tuple_iterator(num_epochs=-1, output_numpy=True)
    next(it)
    assert _reading_threads()
    del it
    assert _threads_ended()
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    _epochs(it, 2)
    assert _threads_ended()  # the last epoch's end stops the threads, the iterator still alive
    stream = ds.GeneratorDataset(lambda: ((np.int64(i),) for i in range(50)), ["a"])
    it = stream.create_tuple_iterator(num_epochs=-1, output_numpy=True)
    next(it)
    assert _reading_threads()
    del it
    assert _threads_ended()


def test_a_stream_source_starts_its_next_pass_only_after_the_last_one_ended():
    events = []

    class Restartable:  # the tutorial's IterableDataset: __iter__ resets state shared with __next__
        def __iter__(self):
            events.append("iter")
            self.data = iter(range(5))
            return self

        def __next__(self):
            value = next(self.data, None)
            if value is None:
                events.append("end")
                raise StopIteration
            return (np.int64(value),)

    d = ds.GeneratorDataset(Restartable(), ["a"])  # (reads the first row to check it)
    events.clear()
    it = d.create_tuple_iterator(num_epochs=3, output_numpy=True)
    assert [[int(r[0]) for r in it] for _ in range(3)] == [list(range(5))] * 3
    assert events == ["iter", "end"] * 3


def test_a_source_whose_size_changes_between_epochs_is_a_clear_error():
    class GrowsAtEpochZerosEnd:
        """Six rows when epoch 0 is laid out; seven from the moment its last row is read, so every later
        epoch sees seven (one reading thread reads in order: epoch 1 is laid out after epoch 0's last row)."""

        def __init__(self):
            self.items = list(range(6))

        def __len__(self):
            return len(self.items)

        def __getitem__(self, i):
            if i == 5 and len(self.items) == 6:
                self.items.append(6)
            return (np.int64(self.items[i]),)

    it = ds.GeneratorDataset(GrowsAtEpochZerosEnd(), ["a"], shuffle=False, num_parallel_workers=1) \
        .create_tuple_iterator(num_epochs=3, output_numpy=True)
    with pytest.raises(DatasetError, match=r"had 6 rows .* in epoch 0 but 7 in epoch 1"):
        for _ in range(3):
            list(it)


def test_next_hands_over_a_batch_built_and_put_on_the_device_before_it_was_asked_for(monkeypatch):
    """The consumer's `next()` only takes a finished item: the rows are read, mapped, batched and put on the
    device by the reading threads, ahead of the asks (at a step boundary the reading side has got ahead on
    its own, with the consumer asking for nothing), and never more than the prefetch size ahead."""
    from msx.dataset import iterators

    depth = 6
    monkeypatch.setattr(ds.config, "_prefetch_size", depth)
    main = threading.get_ident()
    asked, built, converted, beyond = [0], [], [], []

    def build(batch):  # a step of the pipeline: runs once per batch, in a reading thread
        built.append((int(batch[0]) // 3, threading.get_ident()))
        if len(built) > asked[0] + depth:  # a build started more than `depth` items ahead of the asks
            beyond.append((len(built), asked[0]))
        return batch

    real = iterators._on_device

    def on_device(values):
        out = real(values)
        converted.append((int(np.asarray(out[0])[0]) // 3, threading.get_ident()))
        return out

    monkeypatch.setattr(iterators, "_on_device", on_device)
    d = ds.NumpySlicesDataset({"a": np.arange(60)}, shuffle=False, num_parallel_workers=2).batch(3).map(build)
    per_epoch, epochs = 20, 2
    it = d.create_tuple_iterator(num_epochs=epochs)
    # the handover holds up to depth - 2 batches (one more is in the making per reading thread) and is refilled
    # once it is down to half: at least `waiting` batches wait in it, `lead` are built ahead
    waiting = (depth - 2) // 2
    lead = waiting + 2
    total = per_epoch * epochs
    got = []
    iter(it)  # the reading starts
    for done in range(total):
        # step boundary: the consumer trains and asks for nothing; the reading side gets ahead on its own
        # (across the epoch's end too)
        assert wait_until(lambda: len(converted) >= min(done + lead, total) and
                          it._shared.ready() >= min(waiting, total - done)), (done, len(converted))
        upcoming, its_epoch = done % per_epoch, done // per_epoch  # the next ask hands over a batch built before it
        assert [b for b, _ in converted].count(upcoming) > its_epoch, (done, converted)
        asked[0] = done + 1
        if done and not upcoming:
            assert next(it, "end") == "end"  # the epoch's end
        (x,) = next(it)
        assert isinstance(x._data, jax.Array)
        got.append(int(x.asnumpy()[0]) // 3)
    assert got == list(range(per_epoch)) * epochs
    assert len(built) == len(converted) == total  # nothing past num_epochs
    assert not beyond, f"builds more than the prefetch size ahead of the consumer: {beyond}"
    assert all(t != main for _, t in built + converted), "a batch was built or put on the device by the consumer"


def test_read_ahead_keeps_order_and_errors_in_place_and_stops_its_thread():
    from msx.dataset.readahead import ReadAhead

    rng = np.random.default_rng(0)
    work = rng.integers(0, 300, 3000)

    def source():  # a producer that is sometimes slower and sometimes faster than the consumer
        for i, w in enumerate(work):
            sum(range(int(w)))
            yield i

    taken = []
    for i in ReadAhead(source(), 3):
        sum(range(int(work[-1 - i])))
        taken.append(i)
    assert taken == list(range(len(work)))  # every item, in order: no wake-up lost, none doubled

    release = threading.Event()

    def late_then_broken():
        yield from range(3)
        release.wait(10)  # the consumer waits for this one (the slow path)
        yield 3
        raise KeyError("source failed after 4 items")

    timer = threading.Timer(0.05, release.set)
    timer.start()
    ahead = ReadAhead(late_then_broken(), 8)
    assert [next(ahead) for _ in range(4)] == [0, 1, 2, 3]
    with pytest.raises(KeyError, match="after 4 items"):
        next(ahead)
    with pytest.raises(StopIteration):
        next(ahead)

    closed = threading.Event()

    def endless():
        try:
            yield from iter(int, 1)
        finally:
            closed.set()

    ahead = ReadAhead(endless(), 4)
    next(ahead)
    assert wait_until(lambda: ahead.ready() >= 3)  # (nearly) full: the thread sleeps
    ahead.close()
    assert closed.wait(5)  # the thread left and closed its source
    assert ahead.ready() == 0
    assert _threads_ended()


EXIT_SCRIPT = """
import sys, time
from msx.dataset import readahead  # (msx.dataset registers the dataset's exit handler, iterators._cleanup)
assert "msx.dataset.iterators" in sys.modules

def endless():  # an iterator of endless epochs, still reading when the program ends
    try:
        while True:
            time.sleep(0.002)
            yield 1
    finally:
        print("source closed while Python ran", flush=True)

items = readahead.ReadAhead(endless(), 4)
next(items)
"""


def test_a_reading_thread_still_running_at_exit_is_stopped_before_python_finalizes(tmp_path):
    """Python ends daemon threads abruptly while it finalizes (one inside jax's C++ then aborts the process), so
    the exit handler stops each reading thread and waits: its source is closed while the interpreter runs."""
    import subprocess
    import sys

    script = tmp_path / "exit.py"
    script.write_text(EXIT_SCRIPT)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "source closed while Python ran"
