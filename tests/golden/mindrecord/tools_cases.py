"""`mindrecord` tool cases written once against MindSpore's API: make_tools_golden.py runs them on MindSpore 2.10
(`mindspore.mindrecord`, `mindspore.dataset`), tests/test_mindrecord_tools.py on msx; results must agree."""
import json
import os

import numpy as np

GOLDEN = os.path.dirname(os.path.abspath(__file__))


def plain(value):
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "S":
            return {"bytes_array": [v.hex() for v in value.reshape(-1).tolist()]}
        if value.dtype.kind == "U":
            return {"str": value.tolist()}
        return {"dtype": str(value.dtype), "shape": list(value.shape), "value": value.tolist()}
    return {type(value).__name__: value}


def case_file_reader(mr, ds, tmp):
    out = {}
    for name, first in (("mixed", "mixed.mindrecord"), ("images", "images.mindrecord0"),
                        ("scalars", "scalars.mindrecord")):
        reader = mr.FileReader(os.path.join(GOLDEN, first))
        out[name] = {"schema": reader.schema(), "len": reader.len(), "rows": plain(list(reader.get_next()))}
        reader.close()
    reader = mr.FileReader(os.path.join(GOLDEN, "mixed.mindrecord"), columns=["name", "ids"])
    out["columns"] = plain(list(reader.get_next()))
    shards = [os.path.join(GOLDEN, f"images.mindrecord{i}") for i in (2, 0)]
    out["list"] = [r["file_name"] for r in mr.FileReader(shards).get_next()]
    return out


def case_mind_page(mr, ds, tmp):
    page = mr.MindPage(os.path.join(GOLDEN, "images.mindrecord0"))
    out = {"candidates": page.candidate_fields}
    for field in ("label", "file_name"):
        page.category_field = field
        out[field] = {"info": json.loads(page.read_category_info()), "field": page.category_field}
    page.category_field = "label"
    out["by_id"] = [plain(page.read_at_page_by_id(c, p, 3)) for c in range(3) for p in range(2)]
    out["by_name"] = [plain(page.read_at_page_by_name(n, 0, 10)) for n in ("0", "2")]
    mixed = mr.MindPage(os.path.join(GOLDEN, "mixed.mindrecord"))
    mixed.category_field = "name"
    out["mixed_name"] = json.loads(mixed.read_category_info())
    out["mixed_page"] = plain(mixed.read_at_page_by_name("row 3 é", 0, 1))
    return out


def case_page_past_the_end(mr, ds, tmp):
    page = mr.MindPage(os.path.join(GOLDEN, "images.mindrecord0"))
    page.category_field = "label"
    return page.read_at_page_by_id(1, 2, 3)


def case_unknown_name(mr, ds, tmp):
    page = mr.MindPage(os.path.join(GOLDEN, "images.mindrecord0"))
    page.category_field = "label"
    return plain(page.read_at_page_by_name("7", 0, 3))


def case_bad_category(mr, ds, tmp):
    page = mr.MindPage(os.path.join(GOLDEN, "images.mindrecord0"))
    page.category_field = "data"


def imagenet_layout(tmp):
    """A tiny ImageNet layout: a map file naming 2 of 3 folders, JPEG-named files of fixed bytes, one .png skipped."""
    root = os.path.join(tmp, "imagenet")
    for folder, files in (("n01", ["a.JPEG", "b.jpg", "c.png"]), ("n02", ["d.JPEG"]), ("n03", ["e.JPEG"])):
        os.makedirs(os.path.join(root, "train", folder), exist_ok=True)
        for i, f in enumerate(files):
            with open(os.path.join(root, "train", folder, f), "wb") as out:
                out.write(bytes([i + 1]) * (5 + len(folder) + i) + folder.encode())
    with open(os.path.join(root, "map.txt"), "w") as f:
        f.write("n01 0\nn02 1\nn09 2\n")  # n09 does not exist: skipped, as MindSpore does
    return root


def case_imagenet_to_mr(mr, ds, tmp):
    root = imagenet_layout(tmp)
    dest = os.path.join(tmp, "imagenet.mindrecord")
    mr.ImageNetToMR(os.path.join(root, "map.txt"), os.path.join(root, "train"), dest, 2).transform()
    rows = []
    for shard in (dest + "0", dest + "1"):
        for r in mr.FileReader([shard]).get_next():
            rows.append([os.path.basename(r["file_name"]), r["label"], r["image"].hex()])
    return {"schema": mr.FileReader(dest + "0").schema(), "rows": sorted(rows), "files": sorted(
        f for f in os.listdir(tmp) if f.startswith("imagenet.mindrecord"))}
