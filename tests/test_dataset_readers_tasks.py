"""COCO's Stuff / Keypoint / Panoptic / Captioning tasks and extra_metadata, SBDataset and TedliumDataset on tiny
fake copies of their published layouts, against MindSpore 2.10: the cases of
tests/golden/dataset_readers/task_cases.py give the rows, dtypes, column names and sizes MindSpore gave on the same
files (ms210_tasks.json, recorded by make_golden_tasks.py there); damaged files give a DatasetError naming them."""
import json
import os
import sys

import numpy as np
import pytest

import msx.dataset as ds
from msx.errors import DatasetError

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "dataset_readers")
sys.path.insert(0, HERE)
import task_cases as cases  # noqa: E402

GOLDEN = json.load(open(os.path.join(HERE, "ms210_tasks.json"), encoding="utf-8"))


@pytest.fixture(scope="module")
def layouts(tmp_path_factory):
    return str(tmp_path_factory.mktemp("layouts"))


def _run(name, layouts):
    try:
        return {"result": json.loads(json.dumps(getattr(cases, f"case_{name}")(ds, layouts), ensure_ascii=False))}
    except DatasetError as exc:
        return {"error": "ValueError", "message": str(exc)}
    except NotImplementedError as exc:
        return {"error": "RuntimeError", "message": str(exc)}


def _sph_samples(path):
    """The 16-bit samples of a NIST SPHERE file, read independently of msx (numpy, after the 1024-byte header)."""
    with open(path, "rb") as f:
        return np.frombuffer(f.read()[1024:], ">i2")


def _tedlium_waveforms(name, want, layouts):
    """MindSpore 2.10 returns zeros for every TED-LIUM waveform (its reader fills the buffer it never reads into);
    msx returns the segment's samples / 32767. Check those against the file itself, then compare the rest."""
    out = {}
    for key, got in want.items():
        release, _, usage = key.partition("/")
        root = cases.layout_tedlium(layouts, release)
        reader = ds.TedliumDataset(root, release, usage=None if usage in ("", "extensions") else usage,
                                   shuffle=False)
        for row, golden in zip(reader.create_tuple_iterator(output_numpy=True), got["rows"]):
            wave, rate, talk = row[0], int(row[1]), str(row[3])
            part = {"release3": "data"}.get(release) or next(
                p for p in ("train", "test", "dev") if os.path.isfile(os.path.join(root, p, "sph", f"{talk}.sph")))
            samples = _sph_samples(os.path.join(root, part, "sph", f"{talk}.sph"))
            start = next(float(line.split()[3]) for line in open(os.path.join(root, part, "stm", f"{talk}.stm"))
                         if line.split(" ", 6)[6].rstrip("\n") == str(row[2]))
            begin = int(start * rate)
            np.testing.assert_array_equal(wave, (samples[begin:begin + wave.shape[1]] / 32767.0)
                                          .astype(np.float32)[None])
            assert golden[0]["shape"] == list(wave.shape) and golden[0]["dtype"] == "float32"
            golden[0] = "waveform"
        out[key] = got
    return out


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_reader_matches_mindspore(name, layouts):
    want = GOLDEN[name]
    got = _run(name, layouts)
    if "error" in want:  # MindSpore's argument errors are ValueErrors, as msx's; its pipeline-build ones RuntimeErrors
        assert "error" in got, got
        assert want["error"] == "RuntimeError" or got["error"] == want["error"], got
        return
    assert "result" in got, got
    if name == "tedlium":
        want = {"result": _tedlium_waveforms(name, json.loads(json.dumps(want["result"])), layouts)}
        for value in got["result"].values():
            for row in value["rows"]:
                row[0] = "waveform"
    assert got["result"] == want["result"]


def _coco_file(layouts, doc):
    root = cases.layout_coco_tasks(layouts)
    path = os.path.join(layouts, "bad_coco.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))
    return os.path.join(root, "images"), path


@pytest.mark.parametrize("task, doc, match", [
    ("Detection", "{not json", "not a JSON annotation file"),
    ("Detection", {"images": []}, "'images' is not a non-empty list"),
    ("Detection", {"images": [{"id": 1}]}, "image 0 has no 'file_name'"),
    ("Detection", {"images": [{"id": 1, "file_name": "a.jpg"}], "annotations": []}, "no 'categories'"),
    ("Detection", {"images": [{"id": 1, "file_name": "a.jpg"}], "categories": [{"id": 2, "name": "c"}],
                   "annotations": [{"id": 1, "image_id": 4, "bbox": [1, 2, 3, 4], "category_id": 2}]},
     "image_id 4 is not among the images"),
    ("Detection", {"images": [{"id": 1, "file_name": "a.jpg"}], "categories": [{"id": 2, "name": "c"}],
                   "annotations": [{"id": 1, "image_id": 1, "bbox": [1, 2, 3, 4], "category_id": 3}]},
     "category_id 3 is not among the categories"),
    ("Detection", {"images": [{"id": 1, "file_name": "a.jpg"}], "categories": [{"id": 2, "name": "c"}],
                   "annotations": [{"id": 1, "image_id": 1, "bbox": "1,2", "category_id": 2}]},
     "bbox is not a list of numbers"),
    ("Stuff", {"images": [{"id": 1, "file_name": "a.jpg"}],
               "annotations": [{"id": 1, "image_id": 1, "iscrowd": 1, "segmentation": [[1, 2]]}]},
     "segmentation has no 'counts'"),
    ("Keypoint", {"images": [{"id": 1, "file_name": "a.jpg"}],
                  "annotations": [{"id": 1, "image_id": 1, "keypoints": [1, 2, 2]}]}, "no 'num_keypoints'"),
    ("Panoptic", {"images": [{"id": 1, "file_name": "a.jpg"}],
                  "categories": [{"id": 2, "name": "c", "isthing": 1}],
                  "annotations": [{"image_id": 1, "segments_info": [{"bbox": [1, 2, 3, 4], "category_id": 2,
                                                                     "iscrowd": 0}]}]}, "has no 'area'"),
    ("Panoptic", {"images": [{"id": 1, "file_name": "a.jpg"}], "categories": [{"id": 2, "name": "c"}],
                  "annotations": []}, "category 0 has no 'isthing'"),
    ("Captioning", {"images": [{"id": 1, "file_name": "a.jpg"}],
                    "annotations": [{"id": 1, "image_id": 1, "caption": 5}]}, "caption is not a string"),
    ("Captioning", {"images": [{"id": 1, "file_name": "a.jpg"}], "annotations": []}, "annotates none"),
    ("Captioning", [1, 2], "the file has no 'images'"),
])
def test_coco_names_what_is_wrong(layouts, task, doc, match):
    images, path = _coco_file(layouts, doc)
    with pytest.raises(DatasetError, match=match):
        ds.CocoDataset(images, path, task=task)


def test_coco_refuses_what_it_cannot_honour(layouts):
    root = cases.layout_coco_tasks(layouts)
    with pytest.raises(DatasetError, match="task must be one of"):
        ds.CocoDataset(os.path.join(root, "images"), os.path.join(root, "stuff.json"), task="Segmentation")
    with pytest.raises(DatasetError, match="decrypt"):
        ds.CocoDataset(os.path.join(root, "images"), os.path.join(root, "stuff.json"), decrypt=lambda b: b)
    with pytest.raises(DatasetError, match="cannot read"):
        ds.CocoDataset(os.path.join(root, "images"), os.path.join(root, "missing.json"))
    d = ds.CocoDataset(os.path.join(root, "images"), os.path.join(root, "captions.json"), task="Captioning",
                       extra_metadata=True, shuffle=False)
    assert d.get_col_names()[-1] == "_meta-filename"
    assert [str(r[0]) for r in d.create_tuple_iterator(columns=["_meta-filename"], output_numpy=True)] == ["b", "a"]


def test_sbd_and_tedlium_name_damaged_files(layouts):
    root = cases.layout_sbd(layouts)
    with open(os.path.join(root, "cls", "2008_000009.mat"), "wb") as f:
        f.write(b"MATLAB 5.0 but not really" + bytes(200))
    d = ds.SBDataset(root, usage="val", shuffle=False)
    with pytest.raises(DatasetError, match="2008_000009.mat"):
        list(d.create_tuple_iterator(output_numpy=True))
    cases._sbd_mat(os.path.join(root, "cls", "2008_000009.mat"), 72)  # restore it for the golden cases
    with pytest.raises(DatasetError, match="usage must be one of"):
        ds.SBDataset(root, usage="test")
    with pytest.raises(DatasetError, match="nowhere' is not a directory"):
        ds.SBDataset(os.path.join(layouts, "nowhere"))
    os.remove(os.path.join(root, "train_noval.txt"))
    with pytest.raises(DatasetError, match="train_noval.txt"):
        ds.SBDataset(root, usage="train_noval")
    cases.layout_sbd(layouts)

    root = cases.layout_tedlium(layouts, "release1")
    bad = os.path.join(layouts, "ted_bad", "train")
    cases._stm(os.path.join(bad, "stm", "Bad.stm"), "Bad", [("s", "0.0", "0.5", "beyond the end")])
    cases.write_sph(os.path.join(bad, "sph", "Bad.sph"), np.zeros(10, np.int16), 100)
    d = ds.TedliumDataset(os.path.dirname(bad), "release1", usage="train")
    with pytest.raises(DatasetError, match="Bad.sph.*holds 10 samples"):
        list(d.create_tuple_iterator(output_numpy=True))
    for line in ("Bad 1 s zero\n", "Bad 1 s -1 0.5 <o> neg\n", "Bad 1 s 0 inf <o> inf\n", "Bad 1 s 0.2 0.1 <o> x\n"):
        cases._write_text(os.path.join(bad, "stm", "Bad.stm"), line)
        with pytest.raises(DatasetError, match="Bad.stm' line 1"):
            ds.TedliumDataset(os.path.dirname(bad), "release1", usage="train")
    with open(os.path.join(bad, "sph", "Bad.sph"), "wb") as f:
        f.write(b"RIFF....WAVE")
    cases._stm(os.path.join(bad, "stm", "Bad.stm"), "Bad", [("s", "0.0", "0.01", "x")])
    with pytest.raises(DatasetError, match="not a NIST SPHERE file"):
        list(ds.TedliumDataset(os.path.dirname(bad), "release1", usage="train").create_tuple_iterator())
    with pytest.raises(DatasetError, match="extensions"):
        ds.TedliumDataset(root, "release1", extensions=".wav")


def _read_all(make):
    """'refused' (a DatasetError) or 'read' (every row read); anything else escapes and fails the test."""
    try:
        for _ in make().create_tuple_iterator(output_numpy=True):
            pass
    except DatasetError:
        return "refused"
    return "read"


@pytest.mark.parametrize("task", sorted(cases._TASK_FILES))
def test_coco_json_edits_are_refused_or_read(layouts, task):
    """Every small edit of each task's annotation file (a field dropped, a number changed, a list shortened or
    doubled, a string replaced: the file fuzzer's json_edits) is a DatasetError or a file that reads."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))
    from files import json_edits

    root = cases.layout_coco_tasks(layouts)
    doc = json.load(open(os.path.join(root, cases._TASK_FILES[task]), encoding="utf-8"))
    path = os.path.join(layouts, f"edited_{task}.json")
    outcomes = {}
    for label, apply in json_edits(doc):
        with open(path, "w", encoding="utf-8") as f:
            json.dump(apply(doc), f)
        outcomes[label] = _read_all(lambda: ds.CocoDataset(os.path.join(root, "images"), path, task=task,
                                                           shuffle=False, extra_metadata=True))
    assert len(outcomes) > 40 and {"refused", "read"} == set(outcomes.values()), outcomes


def test_damaged_sph_and_mat_files_are_refused_or_read(layouts):
    """Cut and flipped bytes of a SPHERE file and of an SBD .mat file: a DatasetError naming it, or rows."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))
    from files import cuts, flips

    root = cases.layout_tedlium(layouts, "release3")
    sph = os.path.join(root, "data", "sph", "Talk0A_2009.sph")
    blob = open(sph, "rb").read()
    seen = set()
    for _, damaged in list(cuts(blob, 97)) + list(flips(blob[:1100], 13, ("byte",))):
        with open(sph, "wb") as f:
            f.write(damaged)
        seen.add(_read_all(lambda: ds.TedliumDataset(root, "release3", shuffle=False)))
    assert seen == {"refused", "read"}
    cases.layout_tedlium(layouts, "release3")

    root = cases.layout_sbd(layouts)
    mat = os.path.join(root, "cls", "2008_000009.mat")
    blob = open(mat, "rb").read()
    seen = set()
    for _, damaged in list(cuts(blob, 61)) + list(flips(blob, 37, ("byte",))):
        with open(mat, "wb") as f:
            f.write(damaged)
        for task in ("Boundaries", "Segmentation"):
            seen.add(_read_all(lambda: ds.SBDataset(root, task=task, usage="val", shuffle=False)))
    assert "refused" in seen
    cases.layout_sbd(layouts)
