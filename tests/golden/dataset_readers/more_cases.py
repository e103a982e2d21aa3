"""More named readers on tiny fake copies of their published layouts (the text classification CSVs, SQuAD,
CoNLL-style token files, Multi30k, EnWik9, image folders with their annotation files), written once against the
`mindspore.dataset` API: make_golden_more.py records MindSpore 2.10's rows (ms210_more.json),
tests/test_dataset_readers_more.py compares msx's. Each `layout_*` writes its files under `tmp` (idempotent, so one
module-scoped folder serves every case)."""
import json
import os

import numpy as np

from reader_cases import _jpg, read, write_wav  # noqa: F401 — shared with the first set of cases


def _write(path, text, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
        f.write(text)


# ---- text classification CSVs (Zhang et al. 2015): train.csv, test.csv of quoted fields

_CSV = {"amazon": ['"2","Great","Works well, ""really"""', '"1","Bad ""fake""","Broke\\nin a day"',
                   '"2","Ok","fine"'],
        "dbpedia": ['1,"E. D. Abbott Ltd"," Abbott of Farnham"', '14,"Curse","A 2008 ""film"""'],
        "yahoo": ['"5","why?","","because"', '"2","What is x","x, y","z\\n w"', '"1","a","b","c"'],
        "yelp": ['"1","Unfortunately, the ""frustration"""', '"2","Been going to Dr. Goldberg\\nfor years"'],
        "sogou": ['"1","zhong guo","li shi"', '"3","ti yu","zu qiu, lan qiu"']}
_CSV_TEST = {"amazon": ['"1","T","t1"'], "dbpedia": ['3,"Test","c"', '4,"T2","d"'], "yahoo": ['"9","q","c","a"'],
             "yelp": ['"2","good"', '"1","bad"', '"2","ok"'], "sogou": ['"5","x","y"']}


def layout_text_csv(tmp, name):
    root = os.path.join(tmp, f"{name}_csv")
    _write(os.path.join(root, "train.csv"), "\n".join(_CSV[name]) + "\n")
    _write(os.path.join(root, "test.csv"), "\n".join(_CSV_TEST[name]) + "\n")
    _write(os.path.join(root, "readme.txt"), "readme\n")
    return root


def _csv_case(ds, tmp, name, cls):
    root = layout_text_csv(tmp, name)
    reader = getattr(ds, cls)
    out = {u: read(reader(root, usage=u, shuffle=False)) for u in ("train", "test", "all")}
    out["all_1_worker"] = read(reader(root, usage="all", shuffle=False, num_parallel_workers=1))
    out["default_usage_size"] = reader(root, shuffle=False).get_dataset_size()
    return out


def case_amazon_review(ds, tmp):
    return _csv_case(ds, tmp, "amazon", "AmazonReviewDataset")


def case_dbpedia(ds, tmp):
    return _csv_case(ds, tmp, "dbpedia", "DBpediaDataset")


def case_yahoo_answers(ds, tmp):
    return _csv_case(ds, tmp, "yahoo", "YahooAnswersDataset")


def case_yelp_review(ds, tmp):
    return _csv_case(ds, tmp, "yelp", "YelpReviewDataset")


def case_sogou_news(ds, tmp):
    return _csv_case(ds, tmp, "sogou", "SogouNewsDataset")


# ---- line and token files

def layout_enwik9(tmp):
    root = os.path.join(tmp, "EnWik9")
    _write(os.path.join(root, "enwik9"), "<mediawiki>\n  <page>\n\n    <title>AA</title>\n  </page>\n")
    return root


def case_enwik9(ds, tmp):
    root = layout_enwik9(tmp)
    return _sized({"one": read(ds.EnWik9Dataset(root, shuffle=False)),
                   "two_workers": read(ds.EnWik9Dataset(root, shuffle=False, num_parallel_workers=2))})


def layout_multi30k(tmp):
    root = os.path.join(tmp, "multi30k")
    for folder, stem, pairs in (("training", "train", [("Zwei Männer", "Two men"), ("Ein Hund", "A dog"),
                                                         ("Kinder", "Kids")]),
                                ("validation", "val", [("V1", "v1")]),
                                ("mmt16_task1_test", "test", [("T1 de", "T1 en"), ("T2 de", "T2 en")])):
        _write(os.path.join(root, folder, f"{stem}.de"), "".join(p[0] + "\n" for p in pairs))
        _write(os.path.join(root, folder, f"{stem}.en"), "".join(p[1] + "\n" for p in pairs))
    return root


def case_multi30k(ds, tmp):
    root = layout_multi30k(tmp)
    out = {u: read(ds.Multi30kDataset(root, usage=u, shuffle=False)) for u in ("train", "valid", "test", "all")}
    out["de_en"] = read(ds.Multi30kDataset(root, usage="train", language_pair=["de", "en"], shuffle=False))
    return out


_TOKENS = {"udpos": "Al\tPROPN\tNNP\n-\tPUNCT\tHYPH\nZaman\tPROPN\tNNP\n\nThe\tDET\tDT\nend\tNOUN\tNN\n",
           "conll": "Confidence NN B-NP\nin IN B-PP\n\nChancellor NNP O\n"}


def layout_tokens(tmp, name):
    root = os.path.join(tmp, name)
    files = ("train", "dev", "test") if name == "udpos" else ("train", "test")
    for i, part in enumerate(files):
        sep = "\t" if name == "udpos" else " "
        text = _TOKENS[name] if i == 0 else f"w{i} T{i} X{i}\nv{i} U{i} Y{i}\n\nz{i} V{i} Z{i}\n\n".replace(" ", sep)
        _write(os.path.join(root, f"en-ud-tag.v2.{part}.txt" if name == "udpos" else f"{part}.txt"), text)
    return root


def case_udpos(ds, tmp):
    root = layout_tokens(tmp, "udpos")
    return _sized({u: read(ds.UDPOSDataset(root, usage=u, shuffle=False)) for u in ("train", "valid", "test", "all")})


def _sized(out):
    """MindSpore 2.10's get_dataset_size of the line readers counts non-empty lines, not the rows it yields: the
    rows are what msx matches, and its size is their count."""
    for v in out.values():
        v["size"] = len(v["rows"])
    return out


def case_conll2000(ds, tmp):
    root = layout_tokens(tmp, "conll")
    return _sized({u: read(ds.CoNLL2000Dataset(root, usage=u, shuffle=False)) for u in ("train", "test", "all")})


def layout_squad(tmp, version=1):
    root = os.path.join(tmp, f"SQuAD{version}")
    doc = {"version": "1.1", "data": [{"title": "T", "paragraphs": [
        {"context": "Architecturally, the school has a Catholic character.",
         "qas": [{"id": "a1", "question": "What character?", "answers": [{"text": "Catholic", "answer_start": 34},
                                                                        {"text": "a Catholic", "answer_start": 32}]},
                 {"id": "a2", "question": "Unanswerable?", "answers": [], "is_impossible": True}]},
        {"context": "Second para", "qas": [{"id": "b1", "question": "Q2", "answers": [{"text": "para",
                                                                                        "answer_start": 7}]}]}]}]}
    suffix = "v1.1" if version == 1 else "v2.0"
    _write(os.path.join(root, f"train-{suffix}.json"), json.dumps(doc))
    doc["data"][0]["paragraphs"] = doc["data"][0]["paragraphs"][1:]
    _write(os.path.join(root, f"dev-{suffix}.json"), json.dumps(doc))
    return root


def case_squad(ds, tmp):
    out = {}
    for version in (1, 2):
        root = layout_squad(tmp, version)
        for u in ("train", "dev", "all"):
            out[f"v{version}/{u}"] = read(ds.SQuADDataset(root, usage=u, shuffle=False))
    return out


# ---- image folders with their lists

def _imgs(root, names, seed, size=(6, 5)):
    for i, name in enumerate(names):
        _jpg(os.path.join(root, name), seed + i, size)


def layout_caltech101(tmp):
    import scipy.io

    root = os.path.join(tmp, "caltech101")
    cats = {"Faces": "Faces_2", "Motorbikes": "Motorbikes_16", "airplanes": "Airplanes_Side_2", "ant": "ant"}
    for k, (cat, ann) in enumerate(cats.items()):
        for i in (1, 2):
            _jpg(os.path.join(root, "101_ObjectCategories", cat, f"image_{i:04d}.jpg"), 100 + 3 * k + i)
            contour = (np.arange(2 * (3 + i), dtype=np.float64).reshape(2, 3 + i) + k * 10 + i)
            os.makedirs(os.path.join(root, "Annotations", ann), exist_ok=True)
            scipy.io.savemat(os.path.join(root, "Annotations", ann, f"annotation_{i:04d}.mat"),
                             {"obj_contour": contour, "box_coord": np.array([[1, 2, 3, 4]], np.uint16)})
    _jpg(os.path.join(root, "101_ObjectCategories", "BACKGROUND_Google", "image_0001.jpg"), 99)
    return root


def case_caltech101(ds, tmp):
    root = layout_caltech101(tmp)
    return {t: read(ds.Caltech101Dataset(root, target_type=t, shuffle=False))
            for t in ("category", "annotation", "all")}


def layout_caltech256(tmp):
    root = os.path.join(tmp, "caltech256")
    for k, cat in enumerate(["001.ak47", "002.american-flag", "257.clutter"]):
        _imgs(os.path.join(root, cat), [f"{cat[:3]}_000{i}.jpg" for i in (1, 2)], 120 + 2 * k)
    return root


def case_caltech256(ds, tmp):
    root = layout_caltech256(tmp)
    return {"plain": read(ds.Caltech256Dataset(root, shuffle=False)),
            "decoded": read(ds.Caltech256Dataset(root, shuffle=False, decode=True, num_samples=2))}


def layout_food101(tmp):
    root = os.path.join(tmp, "food101")
    items = {"train": ["apple_pie/1005649", "baby_back_ribs/1005293", "apple_pie/1014775"],
             "test": ["baby_back_ribs/1007102", "apple_pie/1011328"]}
    for part, names in items.items():
        _imgs(os.path.join(root, "images"), [n + ".jpg" for n in names], 140 + len(part))
        _write(os.path.join(root, "meta", f"{part}.txt"), "".join(n + "\n" for n in names))
    _write(os.path.join(root, "meta", "classes.txt"), "apple_pie\nbaby_back_ribs\n")
    return root


def case_food101(ds, tmp):
    root = layout_food101(tmp)
    return {u: read(ds.Food101Dataset(root, usage=u, shuffle=False)) for u in ("train", "test", "all")}


def layout_sun397(tmp):
    root = os.path.join(tmp, "sun397")
    classes = ["/a/abbey", "/a/apartment_building/outdoor", "/b/balcony/interior"]
    _write(os.path.join(root, "ClassName.txt"), "".join(c + "\n" for c in classes))
    for k, c in enumerate(classes):
        _imgs(root + c, [f"sun_{k}{i}.jpg" for i in range(2)], 160 + 2 * k)
    return root


def case_sun397(ds, tmp):
    return read(ds.SUN397Dataset(layout_sun397(tmp), shuffle=False))


def layout_rendered_sst2(tmp):
    root = os.path.join(tmp, "rsst2")
    for k, part in enumerate(("train", "valid", "test")):
        for j, label in enumerate(("negative", "positive")):
            _imgs(os.path.join(root, part, label), [f"{i:04d}.png" for i in range(1 + (k + j) % 2, 3)], 180 + k + j)
    return root


def case_rendered_sst2(ds, tmp):
    root = layout_rendered_sst2(tmp)
    return {u: read(ds.RenderedSST2Dataset(root, usage=u, shuffle=False)) for u in ("train", "val", "test", "all")}


def layout_places365(tmp):
    root = os.path.join(tmp, "places365")
    _write(os.path.join(root, "categories_places365.txt"), "/a/airfield 0\n/a/alley 1\n/b/bar 2\n")
    for kind, lst, folder in (("train-standard", "places365_train_standard.txt", "data_256_standard"),
                              ("train-challenge", "places365_train_challenge.txt", "data_256_challenge")):
        names = ["/a/airfield/00000001.jpg 0", "/b/bar/00000002.jpg 2", "/a/alley/00000003.jpg 1"]
        _write(os.path.join(root, lst), "".join(n + "\n" for n in names))
        _imgs(os.path.join(root, folder), [n.split()[0][1:] for n in names], 200 + len(kind), (8, 8))
    _write(os.path.join(root, "places365_val.txt"), "Places365_val_00000001.jpg 2\nPlaces365_val_00000002.jpg 0\n")
    _imgs(os.path.join(root, "val_256"), ["Places365_val_00000001.jpg", "Places365_val_00000002.jpg"], 210, (8, 8))
    return root


def case_places365(ds, tmp):
    root = layout_places365(tmp)
    return {u: read(ds.Places365Dataset(root, usage=u, small=True, shuffle=False))
            for u in ("train-standard", "train-challenge", "val")}


def layout_omniglot(tmp):
    root = os.path.join(tmp, "omniglot")
    for part, alphabets in (("images_background", {"Greek": ["character01", "character02"], "Arcadian": ["character01"]}),
                            ("images_evaluation", {"Atemayar": ["character01"]})):
        for a, chars in alphabets.items():
            for c in chars:
                _imgs(os.path.join(root, part, a, c), [f"{c[-2:]}{i:02d}_{i}.png" for i in (1, 2)], 220 + len(a))
    return root


def case_omniglot(ds, tmp):
    root = layout_omniglot(tmp)
    return {str(b): read(ds.OmniglotDataset(root, background=b, shuffle=False)) for b in (True, False)}


def layout_sbu(tmp):
    root = os.path.join(tmp, "sbu")
    urls = ["http://static.flickr.com/3326/3596303505_3ce4c20529.jpg",
            "http://farm3.static.flickr.com/2522/4182181099_c3c23ab1cc.jpg",  # another host: not found, skipped
            "http://static.flickr.com/1/2_3.jpg",  # no image file: skipped
            "http://static.flickr.com/9/8_7.jpg"]
    _write(os.path.join(root, "SBU_captioned_photo_dataset_urls.txt"), "".join(u + "\n" for u in urls))
    _write(os.path.join(root, "SBU_captioned_photo_dataset_captions.txt"),
           "Man sits in a chair \nA dog on grass\nnot there\nthe last one\n")
    _imgs(os.path.join(root, "sbu_images"), ["m_3326_3596303505_3ce4c20529.jpg", "m_2522_4182181099_c3c23ab1cc.jpg",
                                             "m_9_8_7.jpg"], 240)
    return root


def case_sbu(ds, tmp):
    return read(ds.SBUDataset(layout_sbu(tmp), shuffle=False))


def layout_semeion(tmp):
    root = os.path.join(tmp, "semeion")
    rng = np.random.default_rng(3)
    lines = []
    for k in range(3):
        pixels = " ".join(f"{v:.4f}" for v in rng.integers(0, 2, 256).astype(float))
        onehot = " ".join("1" if j == (k * 3) % 10 else "0" for j in range(10))
        lines.append(f"{pixels} {onehot} \n")
    _write(os.path.join(root, "semeion.data"), "".join(lines))
    return root


def case_semeion(ds, tmp):
    return read(ds.SemeionDataset(layout_semeion(tmp), shuffle=False))


def layout_usps(tmp):
    root = os.path.join(tmp, "usps")
    rng = np.random.default_rng(4)
    for name, n in (("usps", 3), ("usps.t", 2)):
        lines = []
        for k in range(n):
            values = rng.uniform(-1, 1, 256)
            lines.append(f"{k + 1} " + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(values)) + " \n")
        _write(os.path.join(root, name), "".join(lines))
    return root


def case_usps(ds, tmp):
    root = layout_usps(tmp)
    return {u: read(ds.USPSDataset(root, usage=u, shuffle=False)) for u in ("train", "test", "all")}
