"""More named readers on tiny fake copies of their published layouts (the text classification CSVs, SQuAD,
CoNLL-style token files, Multi30k, EnWik9, image folders with their annotation files), written once against the
`mindspore.dataset` API: make_golden_more.py records MindSpore 2.10's rows (ms210_more.json),
tests/test_dataset_named_readers.py compares msx's. Each `layout_*` writes its files under `tmp` (idempotent, so one
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


# ---- image sets with annotation files

def layout_lfw(tmp):
    root = os.path.join(tmp, "lfw")
    people = {"Aaron_Eckhart": 1, "Abbas_Kiarostami": 2, "Zico": 3}
    _write(os.path.join(root, "lfw-names.txt"), "".join(f"{n}\t{c}\n" for n, c in people.items()))
    for k, folder in enumerate(("lfw", "lfw_funneled", "lfw-deepfunneled")):
        for n, c in people.items():
            _imgs(os.path.join(root, folder, n), [f"{n}_{i:04d}.jpg" for i in range(1, c + 1)], 260 + 10 * k + c)
    _write(os.path.join(root, "peopleDevTrain.txt"), "2\nAbbas_Kiarostami\t2\nZico\t1\n")
    _write(os.path.join(root, "peopleDevTest.txt"), "1\nAaron_Eckhart\t1\n")
    _write(os.path.join(root, "people.txt"), "2\n1\nZico\t2\n2\nAaron_Eckhart\t1\nAbbas_Kiarostami\t1\n")
    _write(os.path.join(root, "pairsDevTrain.txt"), "1\nZico\t1\t3\nAaron_Eckhart\t1\tZico\t2\n")
    _write(os.path.join(root, "pairsDevTest.txt"), "1\nAbbas_Kiarostami\t1\t2\nAbbas_Kiarostami\t2\tZico\t1\n")
    _write(os.path.join(root, "pairs.txt"), "2\t1\nZico\t2\t3\nAaron_Eckhart\t1\tAbbas_Kiarostami\t1\n"
                                            "Abbas_Kiarostami\t1\t2\nZico\t3\tAbbas_Kiarostami\t2\n")
    return root


def case_lfw(ds, tmp):
    root = layout_lfw(tmp)
    out = {}
    for task in ("people", "pairs"):
        for usage in ("train", "test", "all", "10fold"):
            out[f"{task}/{usage}"] = read(ds.LFWDataset(root, task=task, usage=usage, shuffle=False))
    out["original"] = read(ds.LFWDataset(root, usage="test", image_set="original", shuffle=False))
    out["deep"] = read(ds.LFWDataset(root, usage="test", image_set="deepfunneled", shuffle=False, decode=True))
    return out


def layout_kitti(tmp):
    root = os.path.join(tmp, "kitti")
    labels = ["Car 0.00 0 -1.58 587.01 173.33 614.12 200.12 1.65 1.67 3.64 -0.65 1.71 46.70 -1.59\n"
              "Pedestrian 0.50 2 0.21 100.5 120.25 130.75 180.0 1.80 0.60 0.90 3.10 1.60 10.20 0.35\n",
              "DontCare -1 -1 -10 503.89 169.71 590.61 190.13 -1 -1 -1 -1000 -1000 -1000 -10\n"]
    for i, text in enumerate(labels):
        _jpg(os.path.join(root, "data_object_image_2", "training", "image_2", f"{i:06d}.png"), 280 + i)
        _write(os.path.join(root, "data_object_label_2", "training", "label_2", f"{i:06d}.txt"), text)
    _jpg(os.path.join(root, "data_object_image_2", "testing", "image_2", "000000.png"), 290)
    return root


def case_kitti(ds, tmp):
    root = layout_kitti(tmp)
    return {u: read(ds.KITTIDataset(root, usage=u, shuffle=False)) for u in ("train", "test")}


def layout_wider_face(tmp):
    root = os.path.join(tmp, "wider")
    gt = {"train": [("0--Parade/0_Parade_marchingband_1_849.jpg", ["449 330 122 149 0 0 0 0 0 0 "]),
                    ("1--Handshaking/1_Handshaking_1_1.jpg", ["1 2 3 4 2 1 0 1 0 0 ", "5 6 7 8 0 0 1 0 2 1 "])],
           "val": [("0--Parade/0_Parade_marchingband_1_465.jpg", ["10 20 30 40 1 0 0 0 0 0 "]),
                   ("0--Parade/0_Parade_marchingband_1_500.jpg", ["0 0 0 0 0 0 0 0 0 0 "])]}
    for part, items in gt.items():
        lines = []
        for k, (name, boxes) in enumerate(items):
            _jpg(os.path.join(root, f"WIDER_{part}", "images", name), 300 + k + len(part))
            lines += [name, str(len(boxes)) if boxes[0][:8] != "0 0 0 0 " else "0"] + boxes
        _write(os.path.join(root, "wider_face_split", f"wider_face_{part}_bbx_gt.txt"), "\n".join(lines) + "\n")
    _jpg(os.path.join(root, "WIDER_test", "images", "0--Parade", "0_Parade_marchingband_1_9.jpg"), 310)
    os.makedirs(os.path.join(root, "WIDER_val", "images", "1--Handshaking"), exist_ok=True)  # MindSpore lists it
    _write(os.path.join(root, "wider_face_split", "wider_face_test_filelist.txt"),
           "0--Parade/0_Parade_marchingband_1_9.jpg\n")
    return root


def case_wider_face(ds, tmp):
    root = layout_wider_face(tmp)
    return {u: read(ds.WIDERFaceDataset(root, usage=u, shuffle=False)) for u in ("train", "valid", "test", "all")}


def layout_flickr(tmp):
    root = os.path.join(tmp, "Flickr8k")
    names = ["1000268201_693b08cb0e.jpg", "1001773457_577c3a7d70.jpg"]
    _imgs(os.path.join(root, "Flickr8k_Dataset"), names, 320)
    lines = [f"{n}#{i}\tcaption {i} of {n[:4]} ." for n in names for i in range(5)]
    _write(os.path.join(root, "Flickr8k.token.txt"), "\n".join(lines[::-1]) + "\n")
    return root


def case_flickr(ds, tmp):
    root = layout_flickr(tmp)
    return read(ds.FlickrDataset(os.path.join(root, "Flickr8k_Dataset"), os.path.join(root, "Flickr8k.token.txt"),
                                 shuffle=False, decode=True))


def layout_div2k(tmp):
    root = os.path.join(tmp, "div2k")
    for part, ids in (("train", ["0001", "0002"]), ("valid", ["0801"])):
        for k, i in enumerate(ids):
            _jpg(os.path.join(root, f"DIV2K_{part}_HR", f"{i}.png"), 330 + k, (8, 8))
            _jpg(os.path.join(root, f"DIV2K_{part}_LR_bicubic", "X2", f"{i}x2.png"), 340 + k, (4, 4))
            _jpg(os.path.join(root, f"DIV2K_{part}_LR_mild", f"{i}x4m.png"), 350 + k, (2, 2))
    return root


def case_div2k(ds, tmp):
    root = layout_div2k(tmp)
    out = {u: read(ds.DIV2KDataset(root, usage=u, downgrade="bicubic", scale=2, shuffle=False, decode=True))
           for u in ("train", "valid", "all")}
    out["mild"] = read(ds.DIV2KDataset(root, usage="train", downgrade="mild", scale=4, shuffle=False))
    return out


def layout_cityscapes(tmp):
    root = os.path.join(tmp, "cityscapes")
    for part, cities in (("train", {"aachen": 2, "bochum": 1}), ("val", {"frankfurt": 1}), ("test", {"bonn": 1})):
        for city, n in cities.items():
            for i in range(n):
                stem = f"{city}_{i:06d}_000019"
                _jpg(os.path.join(root, "leftImg8bit", part, city, f"{stem}_leftImg8bit.png"), 360 + i, (4, 3))
                for k, kind in enumerate(("color", "instanceIds", "labelIds")):
                    _jpg(os.path.join(root, "gtFine", part, city, f"{stem}_gtFine_{kind}.png"), 370 + i + k, (4, 3))
                _write(os.path.join(root, "gtFine", part, city, f"{stem}_gtFine_polygons.json"),
                       json.dumps({"imgHeight": 3, "imgWidth": 4, "objects": [{"label": "road", "polygon":
                                                                                [[0, 0], [1, i]]}]}))
    return root


def case_cityscapes(ds, tmp):
    root = layout_cityscapes(tmp)
    out = {}
    for task in ("instance", "semantic", "color", "polygon"):
        out[task] = read(ds.CityscapesDataset(root, usage="train", task=task, shuffle=False, decode=True))
    out["val"] = read(ds.CityscapesDataset(root, usage="val", shuffle=False))
    out["all"] = read(ds.CityscapesDataset(root, usage="all", task="semantic", shuffle=False))
    return out


def layout_photo_tour(tmp):
    from PIL import Image

    root = os.path.join(tmp, "phototour")
    base = os.path.join(root, "liberty")
    os.makedirs(base, exist_ok=True)
    pixels = (np.arange(1024 * 1024, dtype=np.int64).reshape(1024, 1024) * 7 % 251).astype(np.uint8)
    Image.fromarray(pixels).save(os.path.join(base, "patches0000.bmp"))
    _write(os.path.join(base, "info.txt"), "".join(f"{i // 2} 0\n" for i in range(6)))
    _write(os.path.join(base, "m50_100000_100000_0.txt"), "0 0 0 1 0 0 0\n2 1 0 5 2 0 0\n4 2 0 3 1 0 0\n")
    return root


def case_photo_tour(ds, tmp):
    root = layout_photo_tour(tmp)
    return {u: read(ds.PhotoTourDataset(root, "liberty", usage=u, shuffle=False)) for u in ("train", "test")}


def layout_lsun(tmp):
    root = os.path.join(tmp, "lsun")
    for k, folder in enumerate(("bedroom_train", "classroom_train", "bedroom_val", "classroom_val", "test")):
        _imgs(os.path.join(root, folder), [f"{k}_{i}.jpg" for i in range(1 + k % 2)], 380 + 2 * k)
    return root


def case_lsun(ds, tmp):
    root = layout_lsun(tmp)
    out = {u: read(ds.LSUNDataset(root, usage=u, classes=["bedroom", "classroom"], shuffle=False))
           for u in ("train", "valid", "test", "all")}
    out["one_class"] = read(ds.LSUNDataset(root, usage="train", classes=["classroom"], shuffle=False))
    out["test"]["size"] = len(out["test"]["rows"])  # MindSpore 2.10 sizes usage test at 0 and yields its rows
    return out


# ---- CLUE (JSON lines), IWSLT (tagged text and XML)

_CLUE = {
    "AFQMC": {"train": [{"sentence1": "双十一花呗提额在哪", "sentence2": "哪里能提额", "label": "0"}],
              "test": [{"id": 0, "sentence1": "a", "sentence2": "b"}, {"id": 1, "sentence1": "c", "sentence2": "d"}],
              "eval": [{"sentence1": "e", "sentence2": "f", "label": "1"}]},
    "TNEWS": {"train": [{"label": "102", "label_desc": "news_entertainment", "sentence": "江疏影甜甜圈自拍",
                         "keywords": "江疏影,美少女"}],
              "test": [{"id": 3, "sentence": "s", "keywords": ""}],
              "eval": [{"label": "110", "label_desc": "news_military", "sentence": "t", "keywords": "k"}]},
    "IFLYTEK": {"train": [{"label": "11", "label_des": "休闲益智", "sentence": "游戏"}],
                "test": [{"id": 5, "sentence": "x"}], "eval": [{"label": "7", "label_des": "d", "sentence": "y"}]},
    "CMNLI": {"train": [{"sentence1": "p", "sentence2": "h", "label": "neutral"}],
              "test": [{"id": 2, "sentence1": "p2", "sentence2": "h2"}],
              "eval": [{"sentence1": "p3", "sentence2": "h3", "label": "entailment"}]},
    "WSC": {"train": [{"target": {"span2_index": 37, "span1_index": 5, "span1_text": "床", "span2_text": "它"},
                       "idx": 0, "label": "false", "text": "这张床"}],
            "test": [{"target": {"span2_index": 1, "span1_index": 0, "span1_text": "a", "span2_text": "b"},
                      "idx": 4, "text": "ab"}],
            "eval": [{"target": {"span2_index": 2, "span1_index": 1, "span1_text": "c", "span2_text": "d"},
                      "idx": 6, "label": "true", "text": "cd"}]},
    "CSL": {"train": [{"id": 1, "abst": "摘要", "keyword": ["水", "土"], "label": "1"}],
            "test": [{"id": 2, "abst": "b", "keyword": ["k"]}],
            "eval": [{"id": 3, "abst": "c", "keyword": ["x", "y", "z"], "label": "0"}]}}


def layout_clue(tmp):
    root = os.path.join(tmp, "clue")
    for task, parts in _CLUE.items():
        for usage, rows in parts.items():
            _write(os.path.join(root, task, f"{usage}.json"),
                   "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return root


def case_clue(ds, tmp):
    root = layout_clue(tmp)
    return {f"{task}/{usage}": read(ds.CLUEDataset(os.path.join(root, task, f"{usage}.json"), task=task, usage=usage,
                                                   shuffle=False))
            for task, parts in _CLUE.items() for usage in parts}


def _iwslt_files(folder, prefix, src, tgt, sets):
    for lang in (src, tgt):
        _write(os.path.join(folder, f"train.tags.{src}-{tgt}.{lang}"),
               f"<url>http://www.ted.com/talks/x</url>\n<keywords>talks</keywords>\n  {lang} line one \n"
               f"<talkid>1</talkid>\n{lang} line two\n")
        for k, name in enumerate(sets):
            _write(os.path.join(folder, f"{prefix}.TED.{name}.{src}-{tgt}.{lang}.xml"),
                   f'<?xml version="1.0" encoding="UTF-8"?>\n<mteval>\n<srcset setid="iwslt" srclang="english">\n'
                   f'<doc docid="535" genre="lectures">\n<url>http://x</url>\n<talkid>535</talkid>\n'
                   f'<seg id="1"> {lang} {name} first </seg>\n<seg id="2">{lang} {name} second</seg>\n'
                   f'</doc>\n</srcset>\n</mteval>\n')


def layout_iwslt2016(tmp):
    root = os.path.join(tmp, "iwslt2016")
    _iwslt_files(os.path.join(root, "texts", "de", "en", "de-en"), "IWSLT16", "de", "en",
                 ["dev2010", "tst2013", "tst2014"])
    return root


def case_iwslt2016(ds, tmp):
    root = layout_iwslt2016(tmp)
    out = {u: read(ds.IWSLT2016Dataset(root, usage=u, shuffle=False)) for u in ("train", "valid", "test", "all")}
    out["dev2010"] = read(ds.IWSLT2016Dataset(root, usage="valid", valid_set="dev2010", test_set="tst2013",
                                              shuffle=False))
    return out


def layout_iwslt2017(tmp):
    root = os.path.join(tmp, "iwslt2017")
    _iwslt_files(os.path.join(root, "texts", "DeEnItNlRo", "DeEnItNlRo", "DeEnItNlRo-DeEnItNlRo"), "IWSLT17", "de", "en",
                 ["dev2010", "tst2010"])
    return root


def case_iwslt2017(ds, tmp):
    root = layout_iwslt2017(tmp)
    return {u: read(ds.IWSLT2017Dataset(root, usage=u, shuffle=False)) for u in ("train", "valid", "test", "all")}
