"""Named readers on tiny fake copies of their published layouts, against MindSpore 2.10: the cases of
tests/golden/dataset_readers/reader_cases.py give the rows, dtypes, column names and sizes MindSpore gave on the same
files (ms210.json, recorded by make_golden.py there)."""
import json
import os
import sys

import numpy as np
import pytest

import msx.dataset as ds
from msx.errors import DatasetError

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "dataset_readers")
sys.path.insert(0, HERE)
import reader_cases as cases  # noqa: E402

GOLDEN = json.load(open(os.path.join(HERE, "ms210.json"), encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_reader_matches_mindspore(name, tmp_path):
    want = GOLDEN[name]
    assert "result" in want, want
    got = json.loads(json.dumps(getattr(cases, f"case_{name}")(ds, str(tmp_path)), ensure_ascii=False))
    assert got == want["result"]


def test_reader_arguments_and_layouts_are_checked(tmp_path):
    with pytest.raises(DatasetError, match="name must be one of"):
        ds.EMnistDataset(str(tmp_path), "nope")
    with pytest.raises(DatasetError, match="usage must be one of"):
        ds.WikiTextDataset(str(tmp_path), usage="dev")
    with pytest.raises(DatasetError, match="pos"):
        ds.IMDBDataset(str(tmp_path), usage="train")
    with pytest.raises(DatasetError, match="train.csv' does not exist"):
        ds.AGNewsDataset(str(tmp_path), usage="train")
    bad = tmp_path / "qm"
    bad.mkdir()
    cases.write_idx(str(bad / "qmnist-train-images-idx3-ubyte"), np.zeros((2, 28, 28), np.uint8))
    cases.write_idx_int(str(bad / "qmnist-train-labels-idx2-int"), np.zeros((2, 3)))
    with pytest.raises(DatasetError, match="8 columns"):
        ds.QMnistDataset(str(bad), usage="train")


def test_readers_shard_and_sample_like_every_source(tmp_path):
    root = cases.layout_imdb(str(tmp_path))
    shards = [[str(r[0]) for r in ds.IMDBDataset(root, usage="train", num_shards=2, shard_id=k, shuffle=False)
               .create_tuple_iterator(output_numpy=True)] for k in range(2)]
    assert sorted(shards[0] + shards[1]) == sorted(["great film", "loved it <br />", "bad", "awful ending"])
    wiki = ds.WikiTextDataset(cases.layout_wikitext(str(tmp_path)), usage="train", num_samples=2, shuffle=False)
    assert wiki.get_dataset_size() == 2


def test_audio_readers_check_their_files(tmp_path):
    root = cases.layout_yesno(str(tmp_path))
    path = os.path.join(root, "0_1_0_0_1_0_1_1.wav")
    good = open(path, "rb").read()
    for cut in range(0, len(good), 3):  # every truncation reads or is a clean error naming the file
        with open(path, "wb") as f:
            f.write(good[:cut])
        try:
            rows = list(ds.YesNoDataset(root, shuffle=False).create_tuple_iterator(output_numpy=True))
            assert all(r[0].dtype == np.float32 for r in rows)
        except DatasetError as exc:
            assert "0_1_0_0_1_0_1_1.wav" in str(exc)
    with pytest.raises(DatasetError, match="metadata.csv"):
        ds.LJSpeechDataset(str(tmp_path))
    with pytest.raises(DatasetError, match="usage must be one of"):
        ds.SpeechCommandsDataset(str(tmp_path), usage="dev")
    with pytest.raises(DatasetError, match="split lists"):
        ds.GTZANDataset(str(tmp_path), usage="train")
    with pytest.raises(DatasetError, match="txt.done.data"):
        ds.CMUArcticDataset(str(tmp_path))


def test_fake_images_repeat_per_seed():
    a = [r[0] for r in ds.FakeImageDataset(3, (4, 4, 3), 5, 1, shuffle=False).create_tuple_iterator(output_numpy=True)]
    b = [r[0] for r in ds.FakeImageDataset(3, (4, 4, 3), 5, 1, shuffle=False).create_tuple_iterator(output_numpy=True)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    with pytest.raises(DatasetError, match="image_size"):
        ds.FakeImageDataset(image_size=(4, 4))
