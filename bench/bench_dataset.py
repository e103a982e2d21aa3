"""Images/second of an MNIST-style pipeline in msx.dataset, beside the same pipeline written directly with grain
(and with torch's DataLoader where torch is installed), and how long a training loop waits for data.

The pipeline is decode-free: MnistDataset (idx files of N random 28x28 images) -> Rescale -> Normalize ->
HWC2CHW -> batch 64, read as numpy (no device copy) for 1 and 2 workers. The wait is measured on the
quick-start network training on scikit-learn's digits (as MNIST files), the digits demo loop: the seconds the
loop spent in the iterator's `next()` (`iterator.wait_seconds`: handing the batch over, device copies and the
next epoch's start included), per batch and as a share of the whole run of 3 epochs after a warm-up epoch;
medians of `--wait-runs` runs. The warm-up epoch (it compiles the step) runs the same loop as the measured ones;
`--async-warmup` does not wait for its steps, as this bench did before: jax dispatches the step asynchronously,
so that epoch asks for batches faster than the pipeline makes them (a data-bound loop) and starts the measured
epochs with the read-ahead empty.

    python bench/bench_dataset.py [--images 20000] [--repeats 3] [--wait-runs 9] [--wait-only] [--async-warmup]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import grain
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import msx as ms  # noqa: E402
from msx import nn  # noqa: E402
from msx.dataset import MnistDataset, transforms, vision  # noqa: E402

from dataset_formats import digits_as_mnist, write_mnist  # noqa: E402

MEAN, STD = 0.1307, 0.3081


def msx_pipeline(folder: str, workers: int):
    d = MnistDataset(folder, usage="train", shuffle=False, num_parallel_workers=workers)
    d = d.map([vision.Rescale(1 / 255, 0), vision.Normalize((MEAN,), (STD,)), vision.HWC2CHW()], "image",
              num_parallel_workers=workers)
    return d.map(transforms.TypeCast(ms.int32), "label").batch(64)


def grain_pipeline(images: np.ndarray, labels: np.ndarray, workers: int):
    def row(i):
        image = images[i][..., None].astype(np.float32) * np.float32(1 / 255)
        image = ((image - np.float32(MEAN)) / np.float32(STD)).transpose(2, 0, 1)
        return image, np.int32(labels[i])

    def stack(rows):
        return np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows])

    ds = grain.MapDataset.range(len(images)).map(row).batch(64, batch_fn=stack)
    return ds.to_iter_dataset(grain.ReadOptions(num_threads=workers, prefetch_buffer_size=16))


def torch_loader(images: np.ndarray, labels: np.ndarray, workers: int):
    import torch.utils.data as tud

    class Source(tud.Dataset):
        def __len__(self):
            return len(images)

        def __getitem__(self, i):
            image = images[i][..., None].astype(np.float32) * np.float32(1 / 255)
            return ((image - np.float32(MEAN)) / np.float32(STD)).transpose(2, 0, 1), np.int32(labels[i])

    return tud.DataLoader(Source(), batch_size=64, num_workers=0 if workers == 1 else workers)


def seconds(make, count: int) -> float:
    start = time.perf_counter()
    n = sum(len(b[1]) for b in make())
    assert n == count
    return time.perf_counter() - start


def paired(ours, reference, count: int, repeats: int) -> tuple[float, float, float]:
    """(msx images/s, reference images/s, median of the pairs' time ratios), the two run alternately."""
    a, b = [], []
    for _ in range(repeats):
        a.append(seconds(ours, count))
        b.append(seconds(reference, count))
    ratio = statistics.median(x / y for x, y in zip(a, b))
    return count / statistics.median(a), count / statistics.median(b), ratio


def rate(make, count: int, repeats: int) -> float:
    return count / statistics.median(seconds(make, count) for _ in range(repeats))


def training_wait(folder: str, epochs: int = 3, async_warmup: bool = False) -> tuple[float, float, list[float]]:
    """(seconds waiting for data, seconds of training, each `next()`'s wait) over `epochs` of the quick-start on
    digits, after a warm-up epoch."""
    ms.set_seed(0)
    data = msx_pipeline(folder, 2)
    net = nn.SequentialCell(nn.Flatten(), nn.Dense(784, 128), nn.ReLU(), nn.Dense(128, 10))
    loss_fn, opt = nn.CrossEntropyLoss(), nn.Adam(net.trainable_params(), 1e-3)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    @ms.jit(capture_mode="trace")
    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    it = data.create_tuple_iterator(num_epochs=epochs + 1)
    for x, y in it:  # warm-up epoch: compiles the step
        if x.shape[0] == 64:
            loss = step(x, y)
            if not async_warmup:
                loss.asnumpy()
    it.wait_seconds, waits, before = 0.0, [], 0.0
    start = time.perf_counter()
    for _ in range(epochs):
        for x, y in it:
            waits.append(it.wait_seconds - before)  # this batch's next() (and an epoch end's before it)
            before = it.wait_seconds
            if x.shape[0] == 64:
                step(x, y).asnumpy()
    total = time.perf_counter() - start
    return it.wait_seconds, total, waits


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--wait-runs", type=int, default=9)
    parser.add_argument("--wait-only", action="store_true", help="only the digits demo loop's wait")
    parser.add_argument("--async-warmup", action="store_true", help="a warm-up epoch that does not wait for its steps")
    args = parser.parse_args()
    if not args.wait_only:
        throughput(args)
    with tempfile.TemporaryDirectory() as tmp:
        digits_as_mnist(tmp)
        runs = [training_wait(tmp, async_warmup=args.async_warmup) for _ in range(args.wait_runs)]
    shares = sorted(100 * wait / total for wait, total, _ in runs)
    per_batch = sorted(1e6 * statistics.median(waits) for _, _, waits in runs)
    longest = sorted(1e3 * max(waits) for _, _, waits in runs)
    wait = statistics.median(w for w, _, _ in runs)
    total = statistics.median(t for _, t, _ in runs)
    print(f"wait, digits demo loop (3 epochs of {len(runs[0][2])} batches, {total:.3f} s; "
          f"{'async' if args.async_warmup else 'same-loop'} warm-up; load average {os.getloadavg()[0]:.1f}): "
          f"share median {statistics.median(shares):.2f}% ({wait * 1000:.2f} ms waiting for data), min "
          f"{shares[0]:.2f}%, max {shares[-1]:.2f}%; per batch median {statistics.median(per_batch):.1f} us "
          f"(runs' medians {per_batch[0]:.1f}-{per_batch[-1]:.1f}); longest single wait median "
          f"{statistics.median(longest):.2f} ms (max {longest[-1]:.2f}) of {len(runs)} runs")


def throughput(args: argparse.Namespace) -> None:
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (args.images, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, args.images, dtype=np.uint8)
    with tempfile.TemporaryDirectory() as tmp:
        write_mnist(tmp, images, labels, "train")
        print(f"{args.images} MNIST-style images, Rescale + Normalize + HWC2CHW + batch 64 (images/s, medians of "
              f"{args.repeats} alternating runs; time ratio msx / grain, median of the pairs)")
        for workers in (1, 2):
            ours, plain, ratio = paired(
                lambda: msx_pipeline(tmp, workers).create_tuple_iterator(num_epochs=1, output_numpy=True),
                lambda: grain_pipeline(images, labels, workers), args.images, args.repeats)
            line = f"  workers={workers}: msx.dataset {ours:9.0f}   plain grain {plain:9.0f}   time ratio {ratio:.2f}x"
            try:
                line += f"   torch DataLoader {rate(lambda: torch_loader(images, labels, workers), args.images, 1):9.0f}"
            except ImportError:
                line += "   (torch not installed)"
            print(line)


if __name__ == "__main__":
    main()
