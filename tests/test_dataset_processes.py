"""`python_multiprocessing=True` runs the pipeline in real worker processes (grain's `mp_prefetch`), with the rows
of one thread.

The map records the id of the process that ran it: the rows must come from at least two processes other than the
test's, the same processes serve every epoch of the iterator, and the values (a random crop included) equal those
of the same pipeline on one thread. An error in a worker reaches the consumer as the DatasetError naming the op.
"""
import os

import numpy as np
import pytest

import msx as ms
from msx import dataset as ds
from msx.dataset import vision
from msx.errors import DatasetError


def with_pid(image):
    return image, np.int64(os.getpid())


def fail_on_five(a):
    if int(a) == 5:
        raise ValueError("row five is bad")
    return a


def pipeline(processes: bool):
    ms.set_seed(7)
    images = np.random.default_rng(1).integers(0, 256, (24, 8, 8, 3), np.uint8)
    d = ds.NumpySlicesDataset({"image": images, "label": np.arange(24)}, shuffle=True)
    d = d.map([vision.RandomCrop(5), with_pid], "image", ["image", "pid"], num_parallel_workers=2,
              python_multiprocessing=processes)
    return d.batch(4)


def read(d, epochs):
    it = d.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    out = [[[np.array(a) for a in row] for row in it] for _ in range(epochs)]
    it.stop()
    return out


@pytest.fixture(scope="module")
def both():
    return read(pipeline(True), 2), read(pipeline(False), 2)


def test_rows_come_from_worker_processes_that_serve_every_epoch(both):
    processes, _ = both
    pids = [{int(p) for row in epoch for p in row[1]} for epoch in processes]
    assert os.getpid() not in pids[0] and len(pids[0]) >= 2
    assert pids[0] == pids[1]  # the workers were not restarted for the second epoch


def test_processes_give_exactly_the_rows_of_one_thread(both):
    processes, threads = both
    assert [len(e) for e in processes] == [len(e) for e in threads] == [6, 6]
    for epoch_p, epoch_t in zip(processes, threads):
        for row_p, row_t in zip(epoch_p, epoch_t):
            np.testing.assert_array_equal(row_p[0], row_t[0])  # the random crops too
            np.testing.assert_array_equal(row_p[2], row_t[2])
    assert not np.array_equal(processes[0][0][2], processes[1][0][2])  # each epoch reshuffles


def test_an_error_in_a_worker_names_the_op_and_row():
    d = ds.NumpySlicesDataset({"a": np.arange(8)}, shuffle=False)
    d = d.map(fail_on_five, "a", num_parallel_workers=2, python_multiprocessing=True)
    with pytest.raises(Exception, match=r"fail_on_five failed on columns \['a'\] of row 5: ValueError: row five"):
        read(d, 1)
    with pytest.raises(DatasetError, match="python_multiprocessing with value yes is not of type"):
        d.map(fail_on_five, python_multiprocessing="yes")
