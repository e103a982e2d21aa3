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
