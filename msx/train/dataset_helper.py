"""`DatasetHelper`, `connect_network_with_dataset` and `data_sink`: MindSpore's dataset-sink helpers.

MindSpore's sink mode moves batches through a device queue; msx has no such
queue (XLA feeds arguments per call), so these iterate the dataset on the host
— the dataset's own prefetch thread already overlaps loading with compute — and
give the same results MindSpore's sink mode gives.
"""
from __future__ import annotations

from typing import Any, Callable

from ..nn.cell import Cell


class DatasetHelper:
    """Iterates `dataset` as tuples of Tensors, `epoch_num` epochs; with `sink_size` > 0 an "epoch" is
    `sink_size` batches (MindSpore's sink_size semantics)."""

    def __init__(self, dataset, dataset_sink_mode: bool = True, sink_size: int = -1, epoch_num: int = 1) -> None:
        if sink_size == 0 or sink_size < -1:
            raise ValueError(f"DatasetHelper: sink_size must be -1 or positive, got {sink_size}")
        self.dataset, self.dataset_sink_mode, self._sink_size, self.epoch_num = (dataset, dataset_sink_mode,
                                                                                sink_size, epoch_num)
        self._iter = dataset.create_tuple_iterator(num_epochs=-1)

    def sink_size(self) -> int:
        """Batches per sink "epoch": the dataset size for sink_size=-1."""
        return self.dataset.get_dataset_size() if self._sink_size == -1 else self._sink_size

    def get_data_info(self):
        """(dtypes, shapes) of one batch."""
        batch = next(iter(self.dataset.create_tuple_iterator(num_epochs=1)))
        return [t.dtype for t in batch], [tuple(t.shape) for t in batch]

    def __len__(self) -> int:
        return self.sink_size() * self.epoch_num

    def next_batch(self) -> tuple:
        try:
            return tuple(next(self._iter))
        except StopIteration:
            self._iter = self.dataset.create_tuple_iterator(num_epochs=-1)
            return tuple(next(self._iter))

    def __iter__(self):
        for _ in range(len(self)):
            yield self.next_batch()


class _DataWrapper(Cell):
    """`network` fed from a DatasetHelper: `construct()` takes no inputs, as in MindSpore's sink mode."""

    def __init__(self, network: Cell, helper: DatasetHelper) -> None:
        super().__init__(auto_prefix=False)
        self.network, self._helper = network, helper

    def construct(self, *args):
        return self.network(*self._helper.next_batch())


def connect_network_with_dataset(network: Cell, dataset_helper: DatasetHelper) -> Cell:
    """A Cell that runs `network` on the helper's next batch on every call (no inputs)."""
    if not isinstance(dataset_helper, DatasetHelper):
        raise TypeError(f"connect_network_with_dataset: expected a DatasetHelper, got {type(dataset_helper).__name__}")
    return _DataWrapper(network, dataset_helper)


def data_sink(fn: Callable, dataset, sink_size: int = 1, jit_config=None, input_signature=None) -> Callable:
    """A function of no inputs that runs `fn` on the next `sink_size` batches and returns the last result."""
    if not callable(fn):
        raise TypeError(f"data_sink: fn must be callable, got {type(fn).__name__}")
    if sink_size < 1:
        raise ValueError(f"data_sink: sink_size must be positive, got {sink_size}")
    helper = DatasetHelper(dataset, sink_size=sink_size)

    def sunk(*_: Any):
        out = None
        for _step in range(sink_size):
            out = fn(*helper.next_batch())
        return out

    return sunk
