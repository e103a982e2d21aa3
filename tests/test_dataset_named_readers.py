"""More named readers on tiny fake copies of their published layouts, against MindSpore 2.10: the cases of
tests/golden/dataset_readers/more_cases.py give the rows, dtypes, column names and sizes MindSpore gave on the same
files (ms210_more.json, recorded by make_golden_more.py there). One module-scoped folder holds every layout."""
import json
import os
import sys

import pytest

import msx.dataset as ds
from msx.errors import DatasetError

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "dataset_readers")
sys.path.insert(0, HERE)
import more_cases as cases  # noqa: E402

GOLDEN = json.load(open(os.path.join(HERE, "ms210_more.json"), encoding="utf-8"))


@pytest.fixture(scope="module")
def layouts(tmp_path_factory):
    return str(tmp_path_factory.mktemp("layouts"))


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_reader_matches_mindspore(name, layouts):
    want = GOLDEN[name]
    assert "result" in want, want
    got = json.loads(json.dumps(getattr(cases, f"case_{name}")(ds, layouts), ensure_ascii=False))
    assert got == want["result"]


def test_text_readers_check_their_files(layouts):
    root = cases.layout_text_csv(layouts, "yelp")
    with pytest.raises(DatasetError, match="usage must be one of"):
        ds.YelpReviewDataset(root, usage="valid")
    bad = os.path.join(layouts, "bad_csv")
    cases._write(os.path.join(bad, "train.csv"), '"1","a","b"\n"2","only two"\n')
    with pytest.raises(DatasetError, match="line 2 has 2 fields"):
        ds.DBpediaDataset(bad, usage="train")
    with pytest.raises(DatasetError, match="test.csv' does not exist"):
        ds.DBpediaDataset(bad, usage="test")
    cases._write(os.path.join(bad, "en-ud-tag.v2.train.txt"), "a\tb\n\n")
    with pytest.raises(DatasetError, match="line 1 has 2 fields"):
        ds.UDPOSDataset(bad, usage="train")
    cases._write(os.path.join(bad, "train-v1.1.json"), '{"data": [{"paragraphs": [{"qas": []}]}]}')
    with pytest.raises(DatasetError, match="not a SQuAD file"):
        ds.SQuADDataset(bad, usage="train")
    with pytest.raises(DatasetError, match="language_pair"):
        ds.Multi30kDataset(cases.layout_multi30k(layouts), language_pair=["en", "fr"])
    with pytest.raises(DatasetError, match="not a directory"):
        ds.EnWik9Dataset(os.path.join(layouts, "nowhere"))
