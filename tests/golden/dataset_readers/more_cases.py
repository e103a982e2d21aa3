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
