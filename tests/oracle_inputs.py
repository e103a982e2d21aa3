"""The inputs shared by the MindSpore oracle script (tests/oracle/make_dataset_golden.py) and the golden test."""
import os

import numpy as np

IMAGE = np.random.default_rng(0).integers(0, 256, (12, 16, 3), dtype=np.uint8)

# (key, (vision op name, args, kwargs), input as PIL?)
VISION_CASES = [
    ("Rescale", ("Rescale", (1 / 255, -0.5), {}), False),
    ("Normalize", ("Normalize", ([120.0, 110.0, 100.0], [50.0, 60.0, 70.0]), {}), False),
    ("HWC2CHW", ("HWC2CHW", (), {}), False),
    ("ToTensor", ("ToTensor", (), {}), False),
    ("ToTensor_pil", ("ToTensor", (), {}), True),
    ("Resize_bilinear", ("Resize", ((6, 8),), {}), False),
    ("Resize_bilinear_up", ("Resize", ((17, 21),), {}), False),
    ("Resize_nearest", ("Resize", ((6, 8),), {"interpolation": "NEAREST"}), False),
    ("Resize_nearest_up", ("Resize", ((20, 30),), {"interpolation": "NEAREST"}), False),
    ("Resize_bicubic", ("Resize", ((9, 11),), {"interpolation": "BICUBIC"}), False),
    ("Resize_area", ("Resize", ((6, 8),), {"interpolation": "AREA"}), False),
    ("Resize_int", ("Resize", (6,), {}), False),
    ("Resize_pil_bilinear", ("Resize", ((6, 8),), {}), True),
    ("Resize_pil_nearest", ("Resize", ((9, 5),), {"interpolation": "NEAREST"}), True),
    ("CenterCrop", ("CenterCrop", ((5, 7),), {}), False),
    ("CenterCrop_big", ("CenterCrop", ((15, 19),), {}), False),
    ("CenterCrop_pil", ("CenterCrop", (5,), {}), True),
    ("Crop", ("Crop", ((2, 3), (4, 5)), {}), False),
    ("Pad_constant", ("Pad", ([1, 2, 3, 4],), {"fill_value": 7}), False),
    ("Pad_edge", ("Pad", (2,), {"padding_mode": "EDGE"}), False),
    ("Pad_reflect", ("Pad", ([2, 1],), {"padding_mode": "REFLECT"}), False),
    ("Pad_symmetric", ("Pad", (2,), {"padding_mode": "SYMMETRIC"}), False),
    ("HorizontalFlip", ("HorizontalFlip", (), {}), False),
    ("VerticalFlip", ("VerticalFlip", (), {}), False),
    ("Rotate_90", ("Rotate", (90,), {"expand": True}), False),
    ("Rotate_180", ("Rotate", (180,), {}), False),
    ("Rotate_pil_30", ("Rotate", (30,), {}), True),
    ("Grayscale_pil", ("Grayscale", (), {}), True),
    ("Grayscale3_pil", ("Grayscale", (3,), {}), True),
    ("Invert", ("Invert", (), {}), False),
    ("AdjustBrightness", ("AdjustBrightness", (1.4,), {}), False),
    ("AdjustContrast", ("AdjustContrast", (0.6,), {}), False),
    ("AdjustSaturation", ("AdjustSaturation", (1.7,), {}), False),
    ("AdjustHue", ("AdjustHue", (0.2,), {}), False),
    ("Posterize", ("Posterize", (3,), {}), False),
    ("ResizedCrop", ("ResizedCrop", (1, 2, 8, 10, (5, 5)), {}), False),
    ("Normalize_chw_bad", ("Normalize", ([1.0, 2.0, 3.0], [1.0, 1.0, 1.0]), {"is_hwc": False}), False),
]


def make_text_files(folder):
    """Two text files and one CSV file; returns ([text files], csv file)."""
    a, b, c = (os.path.join(folder, n) for n in ("a.txt", "b.txt", "table.csv"))
    with open(a, "w") as f:
        f.write("hello world\nsecond line\n")
    with open(b, "w") as f:
        f.write("third\n")
    with open(c, "w") as f:
        f.write("1,2.5,x\n3,4.25,yz\n7,0.5,w\n")
    return [a, b], c


def mindrecord_groups():
    """{name: (schema, index fields, rows, shard count)} written by MindSpore's FileWriter for the mindrecord
    goldens (tests/oracle/make_mindrecord_golden.py) and by msx's FileWriter in tests/test_mindrecord.py."""
    rng = np.random.default_rng(4)
    mixed = {"label": {"type": "int32"}, "data": {"type": "float32", "shape": [2, 3]}, "name": {"type": "string"},
             "img": {"type": "bytes"}, "score": {"type": "float64"}, "ids": {"type": "int64", "shape": [-1]},
             "big": {"type": "int64"}, "small": {"type": "int32", "shape": [3]}}
    mixed_rows = [{"label": i - 3, "data": rng.normal(size=(2, 3)).astype(np.float32), "name": f"row {i} é",
                   "img": bytes(rng.integers(0, 256, 3 + i, dtype=np.uint8)), "score": float(i) / 7,
                   "ids": (np.arange(i % 4 + 1, dtype=np.int64) - 1) * 1000 ** (i % 4),
                   "big": 2 ** 40 + i, "small": np.array([-1, 127 + i, -70000 * i], np.int32)} for i in range(9)]
    images = {"file_name": {"type": "string"}, "label": {"type": "int64"}, "data": {"type": "bytes"}}
    image_rows = [{"file_name": f"{i:03d}.png", "label": i % 3, "data": bytes(rng.integers(0, 256, 40, np.uint8))}
                  for i in range(12)]
    scalars = {"x": {"type": "float32"}, "y": {"type": "int32"}, "s": {"type": "string"}}
    scalar_rows = [{"x": i / 3, "y": i * i, "s": "ab" * i} for i in range(5)]  # x: doubles, stored as given
    return {"mixed": (mixed, ["label", "name"], mixed_rows, 1),
            "images": (images, ["file_name", "label"], image_rows, 3),
            "scalars": (scalars, [], scalar_rows, 1)}
