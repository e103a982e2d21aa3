"""mindcv 0.3.0's data pipeline code, unchanged, on msx.dataset (issue 34): `create_dataset` (ImageFolder, no
shuffle), `create_transforms` (eval: Decode, Resize, CenterCrop, Normalize, HWC2CHW) and `create_loader`
(label TypeCast to int32, batch 4, remainder kept) run with `msx.compat` installed (`import mindspore` is msx)
on the 9 committed JPEGs of `tests/golden/zoo_dataset/imagefolder`, and every batch is compared with MindSpore
2.10's (`ms210.npz`, recorded by `tests/golden/zoo_dataset/record.py` in the MindSpore venv).

mindcv's files come from two places: `tests/golden/zoo_dataset/mindcv_data/` holds verbatim copies of
mindcv/data/{constants,dataset_factory,transforms_factory,loader}.py (Apache-2.0; stand-ins only for the modules
the eval path does not use), so the test runs without mindcv or MindSpore installed; where mindcv is installed
(the test extra has it) the same pipeline also runs from the installed package, and the copies are checked to be
byte-identical to its files.

Compared: column names, batch count, number of classes, every batch's shapes and dtypes (exact) and labels
(exact). Images: decoding the same JPEG bytes may differ by a grey level between libjpeg builds (measured: at most
1 grey level, 0.0175 after Normalize's division by std = 57.1..58.4), so the tolerance is 2 grey levels,
atol = 2 / 57.12 after normalization.
"""
import importlib.util
import json
import pathlib
import sys

import numpy as np
import pytest

from msx import compat

GOLDEN = pathlib.Path(__file__).parent / "golden" / "zoo_dataset"
VENDORED = GOLDEN / "mindcv_data"
VERBATIM = ("constants.py", "dataset_factory.py", "transforms_factory.py", "loader.py")
ATOL = 2 / (0.224 * 255)  # 2 grey levels after Normalize (smallest std of IMAGENET_DEFAULT_STD)
HAS_MINDCV = importlib.util.find_spec("mindcv") is not None


def _load(name: str, path: pathlib.Path, package: bool = False):
    spec = importlib.util.spec_from_file_location(
        name, path / "__init__.py" if package else path,
        submodule_search_locations=[str(path)] if package else None)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    if not package:
        spec.loader.exec_module(module)
    return module


record = _load("zoo_dataset_record", GOLDEN / "record.py")


def _vendored_data():
    """The verbatim mindcv files imported as the package `zoo_mindcv_data` (their `from .x import` resolve there)."""
    name = "zoo_mindcv_data"
    pkg = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(name, None, is_package=True))
    pkg.__path__ = [str(VENDORED)]
    sys.modules[name] = pkg
    for mod in ("dataset_factory", "transforms_factory", "loader"):
        sub = importlib.import_module(f"{name}.{mod}")
        for fn in sub.__all__:
            setattr(pkg, fn, getattr(sub, fn))
    return pkg


@pytest.fixture
def alias():
    compat.install()
    yield
    for name in [n for n in sys.modules if n.startswith("zoo_mindcv_data")]:
        del sys.modules[name]
    compat.uninstall()


def _check(result: dict) -> None:
    meta = json.loads((GOLDEN / "ms210.json").read_text())
    golden = np.load(GOLDEN / "ms210.npz")
    for key in ("col_names", "dataset_size", "num_classes"):
        assert result[key] == meta[key], key
    assert sorted(k for k in result if isinstance(result[k], np.ndarray)) == sorted(golden.files)
    for key in golden.files:
        got, want = result[key], golden[key]
        assert got.dtype == want.dtype and got.shape == want.shape, (key, got.dtype, got.shape, want.dtype,
                                                                     want.shape)
        if key.startswith("label"):
            np.testing.assert_array_equal(got, want, err_msg=key)
        else:
            np.testing.assert_allclose(got, want, rtol=0, atol=ATOL, err_msg=key)


def _case() -> dict:
    return {**record.CASE, "root": str(GOLDEN / "imagefolder")}


def test_vendored_mindcv_pipeline_matches_mindspore(alias):
    _check(record.run_pipeline(_case(), _vendored_data()))


@pytest.mark.skipif(not HAS_MINDCV, reason="mindcv is not installed (`pip install mindcv==0.3.0`)")
def test_installed_mindcv_pipeline_matches_mindspore(alias):
    import mindcv.data

    _check(record.run_pipeline(_case(), mindcv.data))


@pytest.mark.skipif(not HAS_MINDCV, reason="mindcv is not installed (`pip install mindcv==0.3.0`)")
def test_vendored_files_are_mindcvs():
    spec = importlib.util.find_spec("mindcv")
    installed = pathlib.Path(spec.origin).parent / "data"
    for name in VERBATIM:
        assert (VENDORED / name).read_bytes() == (installed / name).read_bytes(), name
