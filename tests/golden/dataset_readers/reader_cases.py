"""Named readers on tiny fake copies of each dataset's published on-disk layout, written once against the
`mindspore.dataset` API: make_golden.py records MindSpore 2.10's rows (ms210.json), tests/test_dataset_readers.py
compares msx's. Each `layout_*` writes the files (the real formats: idx, csv, text); each case reads them."""
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # tests/
from dataset_formats import write_idx  # noqa: E402


def plain(value):
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    array = np.asarray(value)
    if array.dtype.kind == "U":
        return {"str": array.tolist()}
    if array.dtype.kind == "S":
        return {"bytes": [b.hex() for b in array.reshape(-1).tolist()]}
    return {"dtype": str(array.dtype), "shape": list(array.shape), "sum": int(array.astype(np.int64).sum())
            if array.size > 16 else None, "value": array.tolist() if array.size <= 16 else None}


def read(d, **kw):
    return {"columns": d.get_col_names(), "size": d.get_dataset_size(),
            "rows": [plain(list(r)) for r in d.create_tuple_iterator(output_numpy=True)]}


def _images(n, seed):
    return np.random.default_rng(seed).integers(0, 256, (n, 28, 28)).astype(np.uint8)


def write_idx_int(path, array):
    """An idx file of big-endian int32 (type 0x0C), as QMNIST's label files."""
    array = np.ascontiguousarray(array, ">i4")
    with open(path, "wb") as f:
        f.write(bytes([0, 0, 0x0C, array.ndim]))
        f.write(struct.pack(">" + "I" * array.ndim, *array.shape))
        f.write(array.tobytes())


def layout_kmnist(tmp):
    root = os.path.join(tmp, "kmnist")
    os.makedirs(root, exist_ok=True)
    for part, n, seed in (("train", 3, 1), ("t10k", 2, 2)):
        write_idx(os.path.join(root, f"{part}-images-idx3-ubyte"), _images(n, seed))
        write_idx(os.path.join(root, f"{part}-labels-idx1-ubyte"), np.arange(n, dtype=np.uint8) + seed)
    return root


def case_kmnist(ds, tmp):
    root = layout_kmnist(tmp)
    return {u: read(ds.KMnistDataset(root, usage=u, shuffle=False)) for u in ("train", "test", "all")}


def layout_emnist(tmp):
    root = os.path.join(tmp, "emnist")
    os.makedirs(root, exist_ok=True)
    for name, seed in (("letters", 3), ("digits", 4)):
        for part, n in (("train", 3), ("test", 2)):
            write_idx(os.path.join(root, f"emnist-{name}-{part}-images-idx3-ubyte"), _images(n, seed + n))
            write_idx(os.path.join(root, f"emnist-{name}-{part}-labels-idx1-ubyte"),
                      np.arange(n, dtype=np.uint8) * seed + n)
    return root


def case_emnist(ds, tmp):
    root = layout_emnist(tmp)
    return {f"{name}/{u}": read(ds.EMnistDataset(root, name, usage=u, shuffle=False))
            for name in ("letters", "digits") for u in ("train", "test", "all")}


def layout_qmnist(tmp):
    root = os.path.join(tmp, "qmnist")
    os.makedirs(root, exist_ok=True)
    for part, n, seed in (("qmnist-train", 3, 5), ("qmnist-test", 4, 6), ("xnist", 2, 7)):
        write_idx(os.path.join(root, f"{part}-images-idx3-ubyte"), _images(n, seed))
        labels = np.arange(n * 8, dtype=np.int64).reshape(n, 8) * (seed + 1) % 1000
        write_idx_int(os.path.join(root, f"{part}-labels-idx2-int"), labels)
    return root


def case_qmnist(ds, tmp):
    root = layout_qmnist(tmp)
    out = {}
    for usage in ("train",):  # MindSpore reads the test and nist files at their real sizes only (10000+ rows)
        for compat in (True, False):
            out[f"{usage}/{compat}"] = read(ds.QMnistDataset(root, usage=usage, compat=compat, shuffle=False))
    return out


def layout_imdb(tmp):
    root = os.path.join(tmp, "aclImdb")
    texts = {("train", "pos"): ["great film", "loved it <br />"], ("train", "neg"): ["bad", "awful ending"],
             ("test", "pos"): ["fine"], ("test", "neg"): ["meh", "no", "worst é"]}
    for (part, label), items in texts.items():
        os.makedirs(os.path.join(root, part, label), exist_ok=True)
        for i, text in enumerate(items):
            with open(os.path.join(root, part, label, f"{i}_{7 - i}.txt"), "w", encoding="utf-8") as f:
                f.write(text)
    os.makedirs(os.path.join(root, "train", "unsup"), exist_ok=True)
    with open(os.path.join(root, "train", "unsup", "0_0.txt"), "w") as f:
        f.write("unlabelled")
    return root


def case_imdb(ds, tmp):
    root = layout_imdb(tmp)
    return {u: read(ds.IMDBDataset(root, usage=u, shuffle=False)) for u in ("train", "test", "all")}


def layout_agnews(tmp):
    root = os.path.join(tmp, "ag_news")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "train.csv"), "w", encoding="utf-8") as f:
        f.write('"3","Wall St. Bears","Reuters - Short-sellers, Wall Street\'s ""dwindling"" band"\n'
                '"4","Space","A new probe, launched"\n"1","World","Talks"\n')
    with open(os.path.join(root, "test.csv"), "w", encoding="utf-8") as f:
        f.write('"2","Sports","Goal!"\n"3","Biz","Stocks \\ up"\n')
    return root


def case_agnews(ds, tmp):
    root = layout_agnews(tmp)
    out = {u: read(ds.AGNewsDataset(root, usage=u, shuffle=False)) for u in ("train", "test", "all")}
    out["all_1_worker"] = read(ds.AGNewsDataset(root, usage="all", shuffle=False, num_parallel_workers=1))
    return out


def layout_wikitext(tmp):
    root = os.path.join(tmp, "wikitext-2")
    os.makedirs(root, exist_ok=True)
    for part, lines in (("train", [" = Title = ", "", " some text here ", " more"]), ("valid", [" v1", " v2 "]),
                        ("test", [" t1", "", " t3"])):
        with open(os.path.join(root, f"wiki.{part}.tokens"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    return root


def case_wikitext(ds, tmp):
    root = layout_wikitext(tmp)
    out = {u: read(ds.WikiTextDataset(root, usage=u, shuffle=False, num_parallel_workers=2))
           for u in ("train", "valid", "test", "all")}
    out["all_1_worker"] = read(ds.WikiTextDataset(root, usage="all", shuffle=False, num_parallel_workers=1))
    return out


def _jpg(path, seed, size=(6, 5)):
    from PIL import Image

    os.makedirs(os.path.dirname(path), exist_ok=True)
    pixels = np.random.default_rng(seed).integers(0, 256, (size[1], size[0], 3)).astype(np.uint8)
    Image.fromarray(pixels).save(path, "PNG" if path.endswith(".png") else "JPEG")


def layout_coco(tmp):
    root = os.path.join(tmp, "coco")
    for i, name in enumerate(["b.jpg", "a.jpg", "c.jpg"]):
        _jpg(os.path.join(root, "images", name), i)
    ann = {"images": [{"id": 7, "file_name": "b.jpg", "height": 5, "width": 6},
                      {"id": 3, "file_name": "a.jpg", "height": 5, "width": 6},
                      {"id": 9, "file_name": "c.jpg", "height": 5, "width": 6}],  # no annotations: left out
           "annotations": [{"id": 1, "image_id": 7, "bbox": [1, 2, 3, 4.5], "category_id": 2, "iscrowd": 0,
                            "area": 4, "segmentation": [[1, 1, 2, 2, 3, 3]]},
                           {"id": 2, "image_id": 7, "bbox": [0, 0, 1, 1], "category_id": 5, "iscrowd": 1,
                            "area": 1, "segmentation": [[1, 1, 2, 2, 3, 3]]},
                           {"id": 3, "image_id": 3, "bbox": [2, 2, 2, 2], "category_id": 5, "iscrowd": 0,
                            "area": 4, "segmentation": [[1, 1, 2, 2, 3, 3]]}],
           "categories": [{"id": 2, "name": "cat"}, {"id": 5, "name": "dog"}]}
    import json
    with open(os.path.join(root, "ann.json"), "w") as f:
        json.dump(ann, f)
    return root


def case_coco(ds, tmp):
    root = layout_coco(tmp)
    out = {}
    for decode in (False, True):
        d = ds.CocoDataset(os.path.join(root, "images"), os.path.join(root, "ann.json"), task="Detection",
                           shuffle=False, decode=decode)
        out[f"decode={decode}"] = read(d)
        out["class_indexing"] = d.get_class_indexing()
    return out


def layout_voc(tmp):
    root = os.path.join(tmp, "voc")
    os.makedirs(os.path.join(root, "Annotations"), exist_ok=True)
    for i, n in enumerate(["000002", "000001"]):
        _jpg(os.path.join(root, "JPEGImages", f"{n}.jpg"), 10 + i)
        _jpg(os.path.join(root, "SegmentationClass", f"{n}.png"), 30 + i)
        objs = "".join(f"<object><name>{c}</name><pose>Left</pose><truncated>{t}</truncated><difficult>{d}"
                       f"</difficult><bndbox><xmin>{1 + k}</xmin><ymin>2</ymin><xmax>4</xmax><ymax>5</ymax>"
                       f"</bndbox></object>" for k, (c, t, d) in enumerate([("dog", 0, 1), ("cat", 1, 0)][:i + 1]))
        with open(os.path.join(root, "Annotations", f"{n}.xml"), "w") as f:
            f.write(f"<annotation><filename>{n}.jpg</filename><size><width>6</width><height>5</height>"
                    f"<depth>3</depth></size>{objs}</annotation>")
    for task in ("Main", "Segmentation"):
        os.makedirs(os.path.join(root, "ImageSets", task), exist_ok=True)
        with open(os.path.join(root, "ImageSets", task, "train.txt"), "w") as f:
            f.write("000002\n000001\n")
    return root


def case_voc(ds, tmp):
    root = layout_voc(tmp)
    det = ds.VOCDataset(root, task="Detection", usage="train", shuffle=False)
    own = ds.VOCDataset(root, task="Detection", usage="train", shuffle=False, class_indexing={"cat": 7, "dog": 1})
    seg = ds.VOCDataset(root, task="Segmentation", usage="train", shuffle=False, decode=True)
    return {"detection": read(det), "indexing": det.get_class_indexing(), "own": read(own), "segmentation": read(seg)}


def layout_celeba(tmp):
    root = os.path.join(tmp, "celeba")
    for i in range(3):
        _jpg(os.path.join(root, f"{i:06d}.jpg"), 20 + i)
    with open(os.path.join(root, "list_attr_celeba.txt"), "w") as f:
        f.write("3\n5_o_Clock_Shadow Arched_Eyebrows Bald\n000000.jpg -1  1 -1\n000001.jpg  1  1 -1\n"
                "000002.jpg -1 -1  1\n")
    with open(os.path.join(root, "list_eval_partition.txt"), "w") as f:
        f.write("000000.jpg 0\n000001.jpg 1\n000002.jpg 0\n")
    return root


def case_celeba(ds, tmp):
    root = layout_celeba(tmp)
    return {u: read(ds.CelebADataset(root, shuffle=False, usage=u, decode=u == "train"))
            for u in ("all", "train", "valid")}  # MindSpore refuses an empty partition


def layout_svhn(tmp):
    import scipy.io

    root = os.path.join(tmp, "svhn")
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(0)
    for part, n in (("train", 3), ("test", 2), ("extra", 2)):
        scipy.io.savemat(os.path.join(root, f"{part}_32x32.mat"),
                         {"X": rng.integers(0, 256, (32, 32, 3, n)).astype(np.uint8),
                          "y": np.array([[10], [1], [5]][:n], np.uint8)})
    return root


def case_svhn(ds, tmp):
    root = layout_svhn(tmp)
    return {u: read(ds.SVHNDataset(root, usage=u, shuffle=False)) for u in ("train", "test", "extra", "all")}


def layout_manifest(tmp):
    import json

    root = os.path.join(tmp, "manifest")
    for i in range(4):
        _jpg(os.path.join(root, f"{i}.jpg"), 40 + i)
    labels = [["dog"], ["cat", "dog"], ["bird"], ["cat"]]
    usages = ["train", "TRAIN", "eval", "train"]
    with open(os.path.join(root, "m.json"), "w") as f:
        for i, (names, usage) in enumerate(zip(labels, usages)):
            f.write(json.dumps({"source": os.path.join(root, f"{i}.jpg"), "usage": usage,
                                "annotation": [{"type": "label", "name": n} for n in names]}) + "\n")
    return os.path.join(root, "m.json")


def case_manifest(ds, tmp):
    path = layout_manifest(tmp)
    out = {}
    for usage in ("train", "eval"):
        d = ds.ManifestDataset(path, usage=usage, shuffle=False)
        out[usage] = read(d)
        out[f"{usage}_indexing"] = d.get_class_indexing()
    out["own"] = read(ds.ManifestDataset(path, usage="train", shuffle=False, class_indexing={"dog": 5, "cat": 2},
                                         decode=True))
    return out


def layout_ptb(tmp):
    root = os.path.join(tmp, "ptb")
    os.makedirs(root, exist_ok=True)
    for part, lines in (("train", [" a b ", "", " c"]), ("valid", [" v"]), ("test", [" t1", " t2"])):
        with open(os.path.join(root, f"ptb.{part}.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
    return root


def case_penn_treebank(ds, tmp):
    root = layout_ptb(tmp)
    return {u: read(ds.PennTreebankDataset(root, usage=u, shuffle=False, num_parallel_workers=2))
            for u in ("train", "valid", "test", "all")}


def layout_sst2(tmp):
    root = os.path.join(tmp, "sst2")
    os.makedirs(root, exist_ok=True)
    for name, text in (("train", "sentence\tlabel\nhide new secretions \t0\ngood film\t1\n"),
                       ("dev", "sentence\tlabel\nit 's fine\t1\n"), ("test", "index\tsentence\n0\tuneasy\n1\tyes\n")):
        with open(os.path.join(root, f"{name}.tsv"), "w") as f:
            f.write(text)
    return root


def case_sst2(ds, tmp):
    root = layout_sst2(tmp)
    return {u: read(ds.SST2Dataset(root, usage=u, shuffle=False)) for u in ("train", "dev", "test")}


def layout_stl10(tmp):
    root = os.path.join(tmp, "stl10_binary")
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(0)
    for part, n in (("train", 3), ("test", 2), ("unlabeled", 2)):
        rng.integers(0, 256, (n, 3, 96, 96)).astype(np.uint8).tofile(os.path.join(root, f"{part}_X.bin"))
        if part != "unlabeled":
            np.array([1, 10, 4][:n], np.uint8).tofile(os.path.join(root, f"{part}_y.bin"))
    return root


def case_stl10(ds, tmp):
    root = layout_stl10(tmp)
    return {u: read(ds.STL10Dataset(root, usage=u, shuffle=False))
            for u in ("train", "test", "unlabeled", "train+unlabeled", "all")}


def layout_flowers102(tmp):
    import scipy.io

    root = os.path.join(tmp, "flowers102")
    for i in range(1, 6):
        _jpg(os.path.join(root, "jpg", f"image_{i:05d}.jpg"), 50 + i)
        _jpg(os.path.join(root, "segmim", f"segmim_{i:05d}.jpg"), 60 + i)
    scipy.io.savemat(os.path.join(root, "imagelabels.mat"), {"labels": np.array([[3, 1, 102, 7, 1]])})
    scipy.io.savemat(os.path.join(root, "setid.mat"), {"trnid": np.array([[2, 4]]), "valid": np.array([[5]]),
                                                       "tstid": np.array([[1, 3]])})
    return root


def case_flowers102(ds, tmp):
    root = layout_flowers102(tmp)
    out = {u: read(ds.Flowers102Dataset(root, usage=u, shuffle=False)) for u in ("train", "valid", "test", "all")}
    out["segmentation"] = read(ds.Flowers102Dataset(root, task="Segmentation", usage="train", shuffle=False,
                                                    decode=True))
    return out


def write_wav(path, samples, rate=8000, width=2):
    """A PCM WAV file (stdlib wave) of int samples (channels last: (n,) or (n, channels))."""
    import wave

    samples = np.asarray(samples)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with wave.open(path, "wb") as w:
        w.setnchannels(1 if samples.ndim == 1 else samples.shape[1])
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(samples.astype({1: np.uint8, 2: "<i2", 4: "<i4"}[width]).tobytes())


def _tone(n, seed):
    return np.random.default_rng(seed).integers(-20000, 20000, n)


def layout_ljspeech(tmp):
    root = os.path.join(tmp, "LJSpeech-1.1")
    rows = [("LJ001-0001", "Printing, in the only sense", "printing, in the only sense"),
            ("LJ001-0002", "in being comparatively modern.", "in being comparatively modern."),
            ("LJ002-0010", "Dr. Smith paid $5", "Doctor Smith paid five dollars")]
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "metadata.csv"), "w", encoding="utf-8") as f:
        f.write("".join("|".join(r) + "\n" for r in rows))
    for i, (name, _, _) in enumerate(rows):
        write_wav(os.path.join(root, "wavs", name + ".wav"), _tone(5 + i, i), 22050)
    return root


def case_ljspeech(ds, tmp):
    return read(ds.LJSpeechDataset(layout_ljspeech(tmp), shuffle=False))


def layout_yesno(tmp):
    root = os.path.join(tmp, "waves_yesno")
    for i, name in enumerate(["0_1_0_0_1_0_1_1", "1_1_1_0_0_0_0_1", "0_0_0_0_1_1_1_1"]):
        write_wav(os.path.join(root, name + ".wav"), _tone(4 + i, 10 + i), 8000)
    return root


def case_yesno(ds, tmp):
    got = read(ds.YesNoDataset(layout_yesno(tmp), shuffle=False))
    got["rows"].sort(key=lambda r: r[2]["value"])  # MindSpore reads the folder in directory order, msx sorted
    return got


def layout_speech_commands(tmp):
    root = os.path.join(tmp, "speech_commands")
    files = ["yes/0a7c2a8d_nohash_0.wav", "yes/0b09edd3_nohash_1.wav", "no/0a7c2a8d_nohash_2.wav",
             "no/1b4c9b89_nohash_0.wav", "up/0c2ca723_nohash_0.wav", "_background_noise_/white_noise.wav"]
    for i, f in enumerate(files):
        write_wav(os.path.join(root, f), _tone(3 + i, 20 + i), 16000)
    with open(os.path.join(root, "testing_list.txt"), "w") as f:
        f.write("no/1b4c9b89_nohash_0.wav\n")
    with open(os.path.join(root, "validation_list.txt"), "w") as f:
        f.write("up/0c2ca723_nohash_0.wav\n")
    return root


def case_speech_commands(ds, tmp):
    root = layout_speech_commands(tmp)
    out = {u: read(ds.SpeechCommandsDataset(root, usage=u, shuffle=False)) for u in ("train", "test", "valid", "all")}
    for u in ("train", "test", "valid"):  # MindSpore 2.10's get_dataset_size counts every file whatever the usage
        out[u]["size"] = len(out[u]["rows"])
    return out


def case_fake_image(ds, tmp):
    d = ds.FakeImageDataset(num_images=4, image_size=(5, 6, 3), num_classes=3, base_seed=7, shuffle=False)
    rows = list(d.create_tuple_iterator(output_numpy=True))
    labels = [int(row[1]) for row in rows]
    return {"columns": d.get_col_names(), "size": d.get_dataset_size(),
            "shapes": [list(row[0].shape) for row in rows], "dtypes": [str(rows[0][0].dtype), str(rows[0][1].dtype)],
            "labels_in_range": min(labels) >= 0 and max(labels) < 3}


def layout_cmu_arctic(tmp):
    root = os.path.join(tmp, "cmu")
    base = os.path.join(root, "cmu_us_aew_arctic")
    os.makedirs(os.path.join(base, "etc"), exist_ok=True)
    with open(os.path.join(base, "etc", "txt.done.data"), "w") as f:
        f.write('( arctic_a0001 "Author of the danger trail, Philip Steels, etc." )\n'
                '( arctic_a0002 "Not at this particular case, Tom, apologized Whittemore." )\n')
    for i in (1, 2):
        write_wav(os.path.join(base, "wav", f"arctic_a000{i}.wav"), _tone(4 + i, 30 + i), 16000)
    return root


def case_cmu_arctic(ds, tmp):
    return read(ds.CMUArcticDataset(layout_cmu_arctic(tmp), name="aew", shuffle=False))


def layout_libritts(tmp):
    root = os.path.join(tmp, "libritts")
    for part, speaker, chapter in (("dev-clean", "116", "288045"), ("train-clean-100", "19", "198")):
        base = os.path.join(root, part, speaker, chapter)
        os.makedirs(base, exist_ok=True)
        lines = []
        for i in range(2):
            stem = f"{speaker}_{chapter}_00000{i}_000000"
            write_wav(os.path.join(base, stem + ".wav"), _tone(5 + i, 40 + i + int(speaker)), 24000)
            lines.append(f"{stem}\tOriginal text {i}, Mr. Smith.\tNormalized text {i}, Mister Smith.\n")
        with open(os.path.join(base, f"{speaker}_{chapter}.trans.tsv"), "w") as f:
            f.write("".join(lines))
    return root


def case_libritts(ds, tmp):
    root = layout_libritts(tmp)
    return {u: read(ds.LibriTTSDataset(root, usage=u, shuffle=False)) for u in ("train-clean-100", "dev-clean", "all")}


def layout_gtzan(tmp):
    root = os.path.join(tmp, "gtzan")
    for genre in ("blues", "disco"):
        for i in range(2):
            write_wav(os.path.join(root, genre, f"{genre}.0000{i}.wav"), _tone(3 + i, 50 + i + len(genre)), 22050)
    return root


def case_gtzan(ds, tmp):
    return read(ds.GTZANDataset(layout_gtzan(tmp), usage="all", shuffle=False))
