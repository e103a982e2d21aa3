"""Model-zoo data pipelines, unchanged, on msx.dataset against MindSpore 2.10 (issue 34): a COCO detection
pipeline in the shape of the zoo's YOLO / FasterRCNN `create_*_dataset` (CocoDataset -> Decode -> box conversion
-> Resize / Normalize / HWC2CHW -> `batch` with a padding `per_batch_map`, or `padded_batch`), and BERT-style NLP
pipelines (TextFileDataset / GeneratorDataset -> BertTokenizer -> Concatenate -> Lookup -> PadEnd -> TypeCast,
ToNumber labels, Mask -> batch). The code is tests/golden/zoo_pipelines/pipelines.py, run here with `msx.compat`
installed (its `import mindspore` is msx) and by MindSpore 2.10 in its venv (record.py there: ms210.npz).

Compared: column names, batch counts, every batch's shapes and dtypes (exact), token ids, masks, labels and box
rows (float32 rounding); images to one grey level after Normalize (PNG decodes to the same pixels on both sides;
MindSpore's bilinear Resize is OpenCV's fixed-point one, which rounds 11% of these pixels one level away from
msx's: measured at most 1 level, 0.0175 after the division by std = 57.12)."""
import importlib.util
import json
import pathlib
import sys

import numpy as np
import pytest

from msx import compat

ONE_LEVEL = 1.001 / 57.12  # one grey level after Normalize (the smallest std here)

GOLDEN = pathlib.Path(__file__).parent / "golden" / "zoo_pipelines"
_spec = importlib.util.spec_from_file_location("zoo_pipelines_code", GOLDEN / "pipelines.py")
pipelines = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pipelines)
META = json.loads((GOLDEN / "ms210.json").read_text())
ARRAYS = np.load(GOLDEN / "ms210.npz")


@pytest.fixture
def alias():
    compat.install()
    yield
    compat.uninstall()


@pytest.mark.parametrize("name", sorted(pipelines.PIPELINES))
def test_zoo_pipeline_matches_mindspore(name, alias, tmp_path):
    out = pipelines.PIPELINES[name](str(tmp_path))
    assert {k: v for k, v in out.items() if not isinstance(v, np.ndarray)} == META[name]
    want = sorted(k.split("/", 1)[1] for k in ARRAYS.files if k.startswith(name + "/"))
    assert sorted(k for k, v in out.items() if isinstance(v, np.ndarray)) == want
    for key in want:
        got, ref = out[key], ARRAYS[f"{name}/{key}"]
        assert (got.dtype, got.shape) == (ref.dtype, ref.shape), (key, got.dtype, got.shape, ref.dtype, ref.shape)
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, ref, rtol=1e-6, atol=ONE_LEVEL if key.startswith("image") else 1e-5,
                                       err_msg=key)
        else:
            np.testing.assert_array_equal(got, ref, err_msg=key)
