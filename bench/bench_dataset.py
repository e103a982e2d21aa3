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

The image row (`--image-pipeline`): an ImageFolder of `--jpegs` generated JPEGs (4 classes, 320x256..400x300)
-> Decode -> RandomResizedCrop(224) -> Normalize -> HWC2CHW -> batch 32 with 4 workers, in msx.dataset, in plain
grain (4 threads) and in torch's DataLoader (4 worker processes), the references with torchvision's transforms
written on PIL / numpy (`pil_row`: torchvision's RandomResizedCrop parameters, PIL's bilinear resize of the box,
ToTensor + Normalize), since torchvision does not import beside this torch.

    python bench/bench_dataset.py [--images 20000] [--repeats 3] [--wait-runs 9] [--wait-only] [--async-warmup]
    python bench/bench_dataset.py --image-pipeline [--jpegs 320] [--repeats 5]
"""
from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import tempfile
import time

import grain
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import msx as ms  # noqa: E402
from msx import nn  # noqa: E402
from msx.dataset import ImageFolderDataset, MnistDataset, transforms, vision  # noqa: E402

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


IMAGE_MEAN, IMAGE_STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def write_jpegs(folder: str, count: int) -> list[tuple[str, int]]:
    """`count` JPEGs in 4 class folders (smooth colour fields plus noise, 320x256 to 400x300), as (path, label)."""
    from PIL import Image

    rng = np.random.default_rng(0)
    items = []
    for i in range(count):
        label, (w, h) = i % 4, [(320, 256), (400, 300), (360, 270), (300, 300)][i % 4]
        yy, xx = np.mgrid[0:h, 0:w]
        base = np.stack([xx * 255 / w, yy * 255 / h, np.full((h, w), 40.0 * label)], -1)
        pixels = np.clip(base + rng.normal(0, 12, (h, w, 3)), 0, 255).astype(np.uint8)
        path = os.path.join(folder, f"class{label}", f"{i:05d}.jpg")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        Image.fromarray(pixels).save(path, quality=90)
        items.append((path, label))
    return sorted(items)


def msx_image_pipeline(folder: str, workers: int = 4):
    d = ImageFolderDataset(folder, shuffle=False, num_parallel_workers=workers)
    d = d.map([vision.Decode(), vision.RandomResizedCrop(224),
               vision.Normalize([255 * m for m in IMAGE_MEAN], [255 * s for s in IMAGE_STD]), vision.HWC2CHW()],
              "image", num_parallel_workers=workers)
    return d.batch(32)


def pil_row(item: tuple[str, int], rng: random.Random = random.Random(0)) -> tuple[np.ndarray, np.int32]:
    """torchvision's RandomResizedCrop(224) + ToTensor + Normalize, written on PIL and numpy."""
    from PIL import Image

    path, label = item
    with Image.open(path) as f:
        image = f.convert("RGB")
    w, h = image.size
    for _ in range(10):  # torchvision's get_params: scale (0.08, 1), ratio (3/4, 4/3), 10 tries
        area = w * h * rng.uniform(0.08, 1.0)
        ratio = math.exp(rng.uniform(math.log(3 / 4), math.log(4 / 3)))
        cw, ch = round(math.sqrt(area * ratio)), round(math.sqrt(area / ratio))
        if 0 < cw <= w and 0 < ch <= h:
            left, top = rng.randint(0, w - cw), rng.randint(0, h - ch)
            break
    else:
        cw, ch = min(w, h), min(w, h)
        left, top = (w - cw) // 2, (h - ch) // 2
    image = image.resize((224, 224), Image.BILINEAR, box=(left, top, left + cw, top + ch))
    array = np.asarray(image, np.float32) * np.float32(1 / 255)
    array = (array - np.array(IMAGE_MEAN, np.float32)) / np.array(IMAGE_STD, np.float32)
    return array.transpose(2, 0, 1), np.int32(label)


def _stack(rows):
    return np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows])


def grain_image_pipeline(items: list[tuple[str, int]], workers: int = 4):
    ds = grain.MapDataset.source(items).map(pil_row).batch(32, batch_fn=_stack)
    return ds.to_iter_dataset(grain.ReadOptions(num_threads=workers, prefetch_buffer_size=8))


class _PilSource:
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return pil_row(self.items[i])


def torch_image_loader(items: list[tuple[str, int]], workers: int = 4):
    import torch.utils.data as tud

    return tud.DataLoader(_PilSource(items), batch_size=32, num_workers=workers, persistent_workers=False)


def image_pipeline(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        items = write_jpegs(tmp, args.jpegs)
        runs = {"msx.dataset": lambda: msx_image_pipeline(tmp).create_tuple_iterator(num_epochs=1, output_numpy=True),
                "plain grain": lambda: grain_image_pipeline(items)}
        try:
            import torch  # noqa: F401

            runs["torch DataLoader"] = lambda: torch_image_loader(items)
        except ImportError:
            pass
        for make in runs.values():  # warm-up: imports, thread pools
            seconds(make, args.jpegs)
        times: dict[str, list[float]] = {k: [] for k in runs}
        for _ in range(args.repeats):  # alternating, so that load changes hit every pipeline alike
            for name, make in runs.items():
                times[name].append(seconds(make, args.jpegs))
        print(f"{args.jpegs} JPEGs, ImageFolder -> Decode -> RandomResizedCrop(224) -> Normalize -> HWC2CHW -> batch "
              f"32, 4 workers (images/s, medians of {args.repeats} alternating runs; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
        best = min(statistics.median(times[k]) for k in runs if k != "msx.dataset")
        for name, t in times.items():
            print(f"  {name:17s} {args.jpegs / statistics.median(t):8.0f}   (median {statistics.median(t):.3f} s)")
        print(f"  msx / best reference time ratio: {statistics.median(times['msx.dataset']) / best:.2f}x")


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
    parser.add_argument("--image-pipeline", action="store_true", help="only the ImageFolder JPEG pipeline row")
    parser.add_argument("--jpegs", type=int, default=320)
    args = parser.parse_args()
    if args.image_pipeline:
        image_pipeline(args)
        return
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
