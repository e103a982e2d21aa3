"""Writers of the on-disk dataset formats, from their public descriptions (not from msx's readers).

Used by the dataset tests, the MindSpore oracle script and the benchmark to
make small real files: MNIST idx, CIFAR-10/100 binary batches, image folders.
"""
import os
import struct

import numpy as np


def write_idx(path, array):
    """An idx file of unsigned bytes: 0, 0, 0x08, ndim, then big-endian uint32 dims, then the data."""
    array = np.ascontiguousarray(array, np.uint8)
    with open(path, "wb") as f:
        f.write(bytes([0, 0, 0x08, array.ndim]))
        f.write(struct.pack(">" + "I" * array.ndim, *array.shape))
        f.write(array.tobytes())


def write_mnist(folder, images, labels, part="train"):
    """`images` uint8 [N, rows, cols], `labels` [N] as MNIST's two idx files for `part` ('train' or 'test')."""
    os.makedirs(folder, exist_ok=True)
    prefix = "train" if part == "train" else "t10k"
    write_idx(os.path.join(folder, f"{prefix}-images-idx3-ubyte"), images)
    write_idx(os.path.join(folder, f"{prefix}-labels-idx1-ubyte"), labels)


def digits_as_mnist(folder):
    """scikit-learn's 8x8 digits as 28x28 MNIST files: train = the first 1437, test = the rest (360)."""
    from sklearn.datasets import load_digits

    d = load_digits()
    images = np.clip(d.images * 16, 0, 255).astype(np.uint8).repeat(3, 1).repeat(3, 2)  # 24x24
    images = np.pad(images, ((0, 0), (2, 2), (2, 2)))  # 28x28, like MNIST's margin
    write_mnist(folder, images[:1437], d.target[:1437], "train")
    write_mnist(folder, images[1437:], d.target[1437:], "test")
    return images, d.target


def write_cifar(path, images, *labels):
    """CIFAR binary records: the label byte(s), then the R, G, B 32x32 planes of each HWC uint8 image."""
    images = np.asarray(images, np.uint8)
    planes = images.transpose(0, 3, 1, 2).reshape(len(images), -1)
    heads = np.stack([np.asarray(lb, np.uint8) for lb in labels], 1)
    np.concatenate([heads, planes], 1).astype(np.uint8).tofile(path)


def write_image_folder(root, images_by_class, ext=".png"):
    """`{class: [HWC uint8 image, ...]}` as root/<class>/<index>.png (PNG: lossless, decodes exactly)."""
    from PIL import Image

    for cls, images in images_by_class.items():
        os.makedirs(os.path.join(root, cls), exist_ok=True)
        for i, im in enumerate(images):
            Image.fromarray(im).save(os.path.join(root, cls, f"{i:03d}{ext}"))


# ---------------------------------------------------------------- TFRecord (tf.train.Example), by hand
def _crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli), bit by bit: the test's own, independent of the reader's library."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _masked(data: bytes) -> bytes:
    crc = _crc32c(data)
    return struct.pack("<I", (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF)


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:  # a length-delimited field
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def example_bytes(features: dict) -> bytes:
    """A serialized tf.train.Example: {name: list of bytes | list of float | list of int} (protobuf wire format,
    tensorflow/core/example/{example,feature}.proto: Example.features=1, Features.feature=1 (map), Feature
    bytes_list=1 / float_list=2 / int64_list=3, each list's value=1, numbers packed)."""
    entries = b""
    for name, values in features.items():
        if values and isinstance(values[0], bytes):
            feature = _field(1, b"".join(_field(1, v) for v in values))
        elif values and isinstance(values[0], float):
            feature = _field(2, _field(1, struct.pack(f"<{len(values)}f", *values)))
        else:
            feature = _field(3, _field(1, b"".join(_varint(v) for v in values)))
        entries += _field(1, _field(1, name.encode()) + _field(2, feature))
    return _field(1, entries)


def write_tfrecord(path: str, examples: list) -> None:
    """A TFRecord file: per record a little-endian uint64 length, its masked CRC-32C, the bytes, their masked
    CRC-32C (tensorflow/core/lib/io/record_writer.cc's layout)."""
    with open(path, "wb") as f:
        for ex in examples:
            data = example_bytes(ex)
            length = struct.pack("<Q", len(data))
            f.write(length + _masked(length) + data + _masked(data))


def tfrecord_examples(n: int = 7, offset: int = 0) -> list:
    return [{"label": [i + offset], "coords": [0.5 * i, -1.25, 3.0], "name": [f"ex{i + offset}".encode()],
             "ids": list(range(-1, i))} for i in range(n)]
