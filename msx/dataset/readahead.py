"""The handover between the reading threads and the training loop: finished items, taken without a wake-up.

One thread pulls finished items (rows or batches, already device Tensors:
grain's reading threads read, transform and `device_put` them) from a source
iterator into a deque of up to `depth` items. The consumer's `next()` pops an
item that is already built — a few µs. It signals nobody on the way: waking a
blocked thread costs the waker 10–40 µs on a busy machine (the kernel's wake-up,
often a preemption), several times the pop itself, so the reading side refills
in bursts: it sleeps while the deque is full and is woken once the consumer has
taken it down to half (`depth // 2` items left), one wake-up per `depth / 2`
items. grain's own handovers (`PrefetchDatasetIterator`,
`ThreadPrefetchIterDataset`) do their per-element bookkeeping (stats, the next
future's submission, a lock and a wake-up) in the consumer's `next()`: 50–160 µs
a batch here, which is why this small queue exists (bench/bench_dataset.py).

Only the consumer's slow path (the deque empty: data arriving late) and the
refill signal take the lock. The deque's `append`/`popleft`/`len` are atomic
under the GIL; the flags the two sides read without the lock are re-checked
under it before anyone sleeps, so no wake-up is lost.

The thread holds no reference to its `ReadAhead`, so a consumer that drops
the iterator collects it; `close()` (or the collection) stops the thread,
which closes the source when it leaves. Errors raised by the source reach the
consumer at the place of the item that failed.

An iterator of endless epochs keeps reading the next epoch after the loop
that used it ended, so at exit a reading thread may still be making device
arrays. Python ends daemon threads abruptly once it finalizes (a thread that
then wants the GIL is unwound through jax's C++ frames, and the process
aborts: "FATAL: exception not rethrown"), so the dataset's one exit handler
(`iterators._cleanup`) calls `stop_all`, which stops every reading thread and
waits for it while the interpreter still runs.
"""
from __future__ import annotations

import collections
import threading
import time
import weakref
from typing import Any, Iterator

_END = object()  # the source is exhausted
EXIT_WAIT_S = 10.0  # how long the exit handler waits, in all, for the reading threads to leave
_READING: dict[threading.Thread, "_State"] = {}  # the reading threads still running, and what they share


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error


class _State:
    """What the reading thread and the consumer share (not the `ReadAhead`, so that it can be collected)."""

    def __init__(self, depth: int) -> None:
        self.items: collections.deque = collections.deque()
        self.depth, self.low = depth, depth // 2
        self.lock = threading.Condition(threading.Lock())
        self.reader_sleeping = False  # the reader waits for the deque to go down to `low`
        self.consumer_waiting = False  # the consumer waits for an item
        self.stop = False


def _pull(source: Iterator, state: _State) -> None:
    items, lock = state.items, state.lock
    try:
        while True:
            if len(items) >= state.depth:
                with lock:
                    while len(items) > state.low and not state.stop:
                        state.reader_sleeping = True
                        lock.wait()
                    state.reader_sleeping = False
            if state.stop:
                return
            try:
                item = next(source)
            except StopIteration:
                item = _END
            except BaseException as error:  # noqa: B902 — every error reaches the consumer, in its place
                item = _Failed(error)
            items.append(item)
            with lock:
                if state.consumer_waiting:
                    lock.notify()
            if item is _END or type(item) is _Failed:
                return
    finally:
        try:
            close = getattr(source, "close", None)
            if close is not None:
                close()
        finally:
            _READING.pop(threading.current_thread(), None)


class ReadAhead:
    """The items of `source`, read up to `depth` ahead of the consumer by one thread (started at once)."""

    def __init__(self, source: Iterator, depth: int) -> None:
        self._state = _State(max(depth, 1))
        self._items = self._state.items
        self._done = False
        thread = threading.Thread(target=_pull, args=(source, self._state), daemon=True, name="msx-dataset-prefetch")
        _READING[thread] = self._state
        thread.start()
        self._stop = weakref.finalize(self, _stop, self._state)  # collected without close(): the thread ends too

    def __iter__(self) -> "ReadAhead":
        return self

    def __next__(self) -> Any:
        if self._done:
            raise StopIteration
        state = self._state
        try:
            item = self._items.popleft()
        except IndexError:
            item = self._wait(state)
        if state.reader_sleeping and len(self._items) <= state.low:
            with state.lock:
                state.reader_sleeping = False  # (one wake-up: the next pops do not signal again)
                state.lock.notify()
        if item is _END:
            self._done = True
            raise StopIteration
        if type(item) is _Failed:
            self._done = True
            raise item.error
        return item

    def _wait(self, state: _State) -> Any:
        """The slow path: no item is ready (data arriving late); sleep until the reader appends one."""
        with state.lock:
            while not self._items:
                state.consumer_waiting = True
                state.lock.notify()  # (a reader asleep on a deque emptied meanwhile)
                state.lock.wait()
            state.consumer_waiting = False
        return self._items.popleft()

    def ready(self) -> int:
        """Items built and waiting for the consumer (msx: to check the read-ahead)."""
        return len(self._items)

    def close(self) -> None:
        """Stop the thread: it ends after the item it is reading (then closes the source); items are dropped."""
        self._done = True
        self._stop()


def _stop(state: _State) -> None:
    with state.lock:
        state.stop = True
        state.lock.notify_all()
    state.items.clear()


def stop_all() -> None:
    """Stop every reading thread and wait for it (bounded), so none runs while the interpreter finalizes."""
    for state in list(_READING.values()):
        _stop(state)
    deadline = time.monotonic() + EXIT_WAIT_S
    for thread in list(_READING):
        thread.join(max(0.0, deadline - time.monotonic()))

