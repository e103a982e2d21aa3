"""COCO's other tasks (Stuff, Keypoint, Panoptic, Captioning, extra_metadata), SBDataset and TedliumDataset on tiny
fake copies of their published layouts, written once against the `mindspore.dataset` API: make_golden_tasks.py
records MindSpore 2.10's rows (ms210_tasks.json), tests/test_dataset_readers_tasks.py compares msx's. Each
`layout_*` writes its files under `tmp` (idempotent, so one module-scoped folder serves every case)."""
import json
import os

import numpy as np

from reader_cases import _jpg, read  # noqa: F401 — shared with the first set of cases


def _json(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


_IMAGES = [{"id": 7, "file_name": "b.jpg", "height": 5, "width": 6},
           {"id": 3, "file_name": "a.jpg", "height": 5, "width": 6},
           {"id": 9, "file_name": "c.jpg", "height": 5, "width": 6}]  # c.jpg has no annotation: left out
_CATEGORIES = [{"id": 2, "name": "cat", "supercategory": "animal", "isthing": 1},
               {"id": 5, "name": "grass", "supercategory": "plant", "isthing": 0}]


def layout_coco_tasks(tmp):
    root = os.path.join(tmp, "coco_tasks")
    for i, name in enumerate(["b.jpg", "a.jpg", "c.jpg"]):
        _jpg(os.path.join(root, "images", name), 40 + i)
    _json(os.path.join(root, "stuff.json"), {
        "images": _IMAGES, "categories": _CATEGORIES,
        "annotations": [{"id": 1, "image_id": 7, "category_id": 5, "iscrowd": 0, "area": 4, "bbox": [0, 0, 2, 2],
                         "segmentation": [[1, 1, 2, 2, 3, 3.5], [0.5, 0, 4, 4]]},
                        {"id": 2, "image_id": 7, "category_id": 2, "iscrowd": 1, "area": 3, "bbox": [0, 0, 1, 1],
                         "segmentation": {"counts": [3, 2, 1, 4, 5, 6, 9], "size": [5, 6]}},
                        {"id": 3, "image_id": 3, "category_id": 5, "iscrowd": 0, "area": 1, "bbox": [1, 1, 1, 1],
                         "segmentation": [[2, 2, 3, 3, 4, 4, 5, 5]]}]})
    _json(os.path.join(root, "keypoints.json"), {
        "images": _IMAGES, "categories": _CATEGORIES[:1],
        "annotations": [{"id": 1, "image_id": 3, "category_id": 2, "iscrowd": 0, "num_keypoints": 2,
                         "keypoints": [1, 2, 2, 3, 4, 1, 0, 0, 0], "bbox": [0, 0, 4, 4], "area": 16},
                        {"id": 2, "image_id": 3, "category_id": 2, "iscrowd": 0, "num_keypoints": 1,
                         "keypoints": [5, 1, 2, 0, 0, 0], "bbox": [0, 0, 4, 4], "area": 16},
                        {"id": 3, "image_id": 7, "category_id": 2, "iscrowd": 0, "num_keypoints": 0,
                         "keypoints": [0, 0, 0, 0, 0, 0, 0, 0, 0], "bbox": [1, 1, 2, 2], "area": 4}]})
    _json(os.path.join(root, "panoptic.json"), {
        "images": _IMAGES, "categories": _CATEGORIES,
        "annotations": [{"image_id": 7, "file_name": "b.png",
                         "segments_info": [{"id": 11, "category_id": 2, "iscrowd": 0, "bbox": [1, 2, 3, 4],
                                            "area": 12},
                                           {"id": 12, "category_id": 5, "iscrowd": 1, "bbox": [0, 0, 6, 1],
                                            "area": 6}]},
                        {"image_id": 3, "file_name": "a.png",
                         "segments_info": [{"id": 13, "category_id": 5, "iscrowd": 0, "bbox": [0.5, 1, 2, 2.5],
                                            "area": 5}]}]})
    _json(os.path.join(root, "captions.json"), {
        "images": _IMAGES,
        "annotations": [{"id": 1, "image_id": 3, "caption": "A cat sits on grass."},
                        {"id": 2, "image_id": 7, "caption": "Two animals, one \u00e9t\u00e9."},
                        {"id": 3, "image_id": 3, "caption": "a second caption"}]})
    _json(os.path.join(root, "detection.json"), {
        "images": _IMAGES, "categories": _CATEGORIES,
        "annotations": [{"id": 1, "image_id": 3, "category_id": 2, "iscrowd": 0, "bbox": [1, 2, 3, 4], "area": 1}]})
    return root


def _coco(ds, root, task, ann, **kw):
    return ds.CocoDataset(os.path.join(root, "images"), os.path.join(root, ann), task=task, shuffle=False, **kw)


_TASK_FILES = {"Stuff": "stuff.json", "Keypoint": "keypoints.json", "Panoptic": "panoptic.json",
               "Captioning": "captions.json", "Detection": "detection.json"}


def case_coco_tasks(ds, tmp):
    root = layout_coco_tasks(tmp)
    out = {}
    for task, ann in _TASK_FILES.items():
        out[task] = read(_coco(ds, root, task, ann))
        out[f"{task}/decode"] = read(_coco(ds, root, task, ann, decode=True))
        try:
            out[f"{task}/class_indexing"] = _coco(ds, root, task, ann).get_class_indexing()
        except (NotImplementedError, RuntimeError) as exc:
            out[f"{task}/class_indexing"] = type(exc).__name__
    return out


def case_coco_extra_metadata(ds, tmp):
    root = layout_coco_tasks(tmp)
    out = {}
    for task, ann in _TASK_FILES.items():
        hidden = _coco(ds, root, task, ann, extra_metadata=True)
        out[f"{task}/hidden"] = read(hidden)
        shown = _coco(ds, root, task, ann, extra_metadata=True).rename(["_meta-filename"], ["filename"])
        out[f"{task}/renamed"] = read(shown)
    return out


def case_coco_sharded(ds, tmp):
    root = layout_coco_tasks(tmp)
    return {"shard1": read(ds.CocoDataset(os.path.join(root, "images"), os.path.join(root, "stuff.json"),
                                          task="Stuff", num_shards=2, shard_id=1, shuffle=False)),
            "num_samples": read(_coco(ds, root, "Captioning", "captions.json", num_samples=1))}


# ---- SBD (Hariharan et al.): img/<id>.jpg, cls/<id>.mat (GTcls: Boundaries, Segmentation), <usage>.txt

def _sbd_mat(path, seed, shape=(5, 6)):
    import scipy.io
    import scipy.sparse

    rng = np.random.default_rng(seed)
    boundaries = np.empty((20, 1), dtype=object)
    for k in range(20):
        boundaries[k, 0] = scipy.sparse.csc_matrix((rng.random(shape) > 0.8).astype(np.float64))
    segmentation = rng.integers(0, 21, shape).astype(np.uint8)
    gt = np.empty((1, 1), dtype=[("Boundaries", object), ("Segmentation", object), ("CategoriesPresent", object)])
    gt[0, 0] = (boundaries, segmentation, np.unique(segmentation[segmentation > 0]).astype(np.uint8)[:, None])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    scipy.io.savemat(path, {"GTcls": gt})


def layout_sbd(tmp):
    root = os.path.join(tmp, "sbd")
    ids = {"train": ["2008_000002", "2008_000003"], "val": ["2008_000009"], "train_noval": ["2008_000003"]}
    for seed, name in enumerate(sorted({i for v in ids.values() for i in v})):
        _jpg(os.path.join(root, "img", f"{name}.jpg"), 60 + seed)
        _sbd_mat(os.path.join(root, "cls", f"{name}.mat"), 70 + seed)
    for usage, names in ids.items():
        with open(os.path.join(root, f"{usage}.txt"), "w", encoding="utf-8") as f:
            f.write("".join(n + "\n" for n in names))
    return root


def case_sbd(ds, tmp):
    root = layout_sbd(tmp)
    out = {}
    for task in ("Boundaries", "Segmentation"):
        for usage in ("train", "val", "train_noval", "all"):
            out[f"{task}/{usage}"] = read(ds.SBDataset(root, task=task, usage=usage, shuffle=False))
        out[f"{task}/decode"] = read(ds.SBDataset(root, task=task, usage="val", decode=True, shuffle=False))
    out["default_size"] = ds.SBDataset(root).get_dataset_size()
    return out


def case_sbd_bad_task(ds, tmp):
    return read(ds.SBDataset(layout_sbd(tmp), task="Detection"))


def case_sbd_bad_usage(ds, tmp):
    return read(ds.SBDataset(layout_sbd(tmp), usage="test"))


# ---- TED-LIUM: <usage>/stm/<talk>.stm (one segment a line) and <usage>/sph/<talk>.sph (NIST SPHERE, 16-bit)

def write_sph(path, samples, rate=16000):
    """A NIST SPHERE file: the 1024-byte text header (NUL-padded), then big-endian 16-bit PCM."""
    header = (f"NIST_1A\n   1024\nsample_count -i {len(samples)}\nsample_n_bytes -i 2\nchannel_count -i 1\n"
              f"sample_byte_format -s2 10\nsample_rate -i {rate}\nsample_coding -s3 pcm\nend_head\n").encode()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(header + b"\0" * (1024 - len(header)) + np.asarray(samples, ">i2").tobytes())


def _stm(path, talk, segments):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(f"{talk} 1 {speaker} {start} {end} <o,f0,male> {text}\n"
                        for speaker, start, end, text in segments))


def layout_tedlium(tmp, release):
    root = os.path.join(tmp, {"release1": "TEDLIUM_release1", "release2": "TEDLIUM_release2",
                              "release3": "TEDLIUM_release-3"}[release])
    parts = ("data",) if release == "release3" else ("train", "test", "dev")
    rng = np.random.default_rng(len(release))
    for k, part in enumerate(parts):
        for j, talk in enumerate([f"Talk{k}B_2010", f"Talk{k}A_2009"][:1 + (k == 0)]):
            rate = 1000 if j == 0 else 800
            write_sph(os.path.join(root, part, "sph", f"{talk}.sph"), rng.integers(-30000, 30000, 2 * rate), rate)
            segments = [(f"{talk}_spk", "0.0", "0.01", f"hello {part} {talk}"),
                        (f"{talk}_spk", "0.5", "0.52", "second  segment, spaced"),
                        ("inter_segment_gap", "1.0", "1.005", "ignore_time_segment_in_scoring")][:2 + j]
            _stm(os.path.join(root, part, "stm", f"{talk}.stm"), talk, segments)
    return root


def case_tedlium(ds, tmp):
    out = {}
    for release in ("release1", "release2"):
        root = layout_tedlium(tmp, release)
        for usage in ("train", "test", "dev", "all"):
            out[f"{release}/{usage}"] = read(ds.TedliumDataset(root, release, usage=usage, shuffle=False))
    root = layout_tedlium(tmp, "release3")
    out["release3"] = read(ds.TedliumDataset(root, "release3", shuffle=False))
    out["release3/extensions"] = read(ds.TedliumDataset(root, "release3", usage="all", extensions=".sph",
                                                        shuffle=False))
    return out


def case_tedlium_bad_usage(ds, tmp):
    return read(ds.TedliumDataset(layout_tedlium(tmp, "release3"), "release3", usage="train"))


def case_tedlium_bad_release(ds, tmp):
    return read(ds.TedliumDataset(layout_tedlium(tmp, "release1"), "release4"))


def case_tedlium_bad_extension(ds, tmp):
    return read(ds.TedliumDataset(layout_tedlium(tmp, "release1"), "release1", extensions=".wav"))


def _write_text(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
