"""Record MindSpore 2.10's image summary (its adapter's canvas and scaling, PNG-encoded) for tests/test_summary.py.

Run with MindSpore's interpreter: `/work/main/.venv-ms/bin/python tests/golden_summary/make_image_golden.py`.
Writes image.npz: the NCHW inputs and the decoded HWC uint8 images MindSpore's `_fill_image_summary` makes."""
import io
import os

import numpy as np
from PIL import Image
from mindspore.train.summary._summary_adapter import _fill_image_summary
from mindspore.train.summary_pb2 import Summary

rng = np.random.default_rng(0)
cases = {"unit": rng.random((3, 3, 4, 5)).astype(np.float32),        # in [0, 1]: scaled by 255
         "wide": (rng.standard_normal((10, 1, 3, 2)) * 4).astype(np.float32)}  # 10 images, 1 channel: 2 rows of 8
out = {}
for name, value in cases.items():
    image = Summary.Image()
    assert _fill_image_summary(name, value, image)
    out[f"{name}_input"] = value
    out[f"{name}_image"] = np.asarray(Image.open(io.BytesIO(image.encoded_image)))
np.savez(os.path.join(os.path.dirname(os.path.abspath(__file__)), "image.npz"), **out)
