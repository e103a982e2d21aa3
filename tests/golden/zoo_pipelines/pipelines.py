"""Model-zoo data pipelines, written as the model zoo writes them (`import mindspore.dataset as ds`), run by
MindSpore 2.10 in its venv (`record.py` here: ms210.npz / ms210.json) and by msx with `msx.compat` installed
(tests/test_zoo_pipelines.py). Each `pipeline_*` takes a scratch folder and returns {name: array} of every batch.

* `coco_*`: the shape of the zoo's YOLOv3/v4 and FasterRCNN `create_*_dataset` on COCO: CocoDataset(task=
  "Detection", decode=False) -> Decode -> a Python step that drops crowd boxes, turns [x, y, w, h] into
  [x1, y1, x2, y2, label] rows scaled to the output size (the zoo's `_preprocess_true_boxes` / `coco_to_fasterrcnn`
  work, without their anchor matching) -> Resize -> Normalize -> HWC2CHW -> `batch` with a `per_batch_map` that pads
  every image's boxes to the batch's largest count (YOLO's multi-scale collate), or `padded_batch` padding to a
  fixed box count (FasterRCNN's fixed 128 boxes, here 4).
* `nlp_*`: the shape of the zoo's BERT fine-tuning data prep: TextFileDataset / GeneratorDataset -> BertTokenizer
  (a small vocab) -> Concatenate [CLS] ... [SEP] -> Lookup -> PadEnd -> TypeCast int32, labels by ToNumber -> batch.
Images are PNGs (lossless, so both sides decode the same pixels); the fake COCO copy is written by `write_coco`.
"""
import json
import os

import numpy as np

OUT = 16  # the output image side
MEAN, STD = [123.675, 116.28, 103.53], [58.395, 57.12, 57.375]
_SIZES = {"a.png": (20, 24), "b.png": (18, 30), "c.png": (24, 16), "d.png": (22, 22), "e.png": (16, 20)}
_BOXES = {  # file -> [(x, y, w, h, category, iscrowd)]
    "a.png": [(1, 2, 10, 8, 1, 0), (4, 4, 6, 6, 3, 0)],
    "b.png": [(0, 0, 15, 9, 3, 0)],
    "c.png": [(2, 3, 5, 7, 1, 0), (0, 0, 16, 24, 1, 1), (6, 10, 8, 9, 2, 0), (1, 1, 3, 3, 3, 0)],
    "d.png": [(5, 5, 11, 3.5, 2, 0)],
    "e.png": [(3, 2, 7, 9, 1, 1), (8, 6, 4.5, 4, 2, 0)],
}
CATEGORIES = [{"id": 1, "name": "person"}, {"id": 2, "name": "car"}, {"id": 3, "name": "dog"}]


def write_coco(tmp):
    from PIL import Image

    root = os.path.join(tmp, "coco")
    os.makedirs(os.path.join(root, "train2017"), exist_ok=True)
    rng = np.random.default_rng(34)
    images, annotations = [], []
    for i, (name, (h, w)) in enumerate(_SIZES.items()):
        Image.fromarray(rng.integers(0, 256, (h, w, 3)).astype(np.uint8)).save(os.path.join(root, "train2017", name))
        images.append({"id": 100 + i, "file_name": name, "height": h, "width": w})
        for x, y, bw, bh, cat, crowd in _BOXES[name]:
            annotations.append({"id": len(annotations) + 1, "image_id": 100 + i, "bbox": [x, y, bw, bh],
                                "category_id": cat, "iscrowd": crowd, "area": bw * bh})
    with open(os.path.join(root, "instances_train2017.json"), "w", encoding="utf-8") as f:
        json.dump({"images": images, "annotations": annotations, "categories": CATEGORIES}, f)
    return root


def _boxes(image, bbox, category_id, iscrowd):
    """Crowd boxes dropped; [x, y, w, h] -> [x1, y1, x2, y2, label] in the OUT x OUT image (float32 (n, 5))."""
    h, w = image.shape[:2]
    keep = iscrowd[:, 0] == 0
    box, label = bbox[keep], category_id[keep].astype(np.float32)
    scale = np.array([OUT / w, OUT / h, OUT / w, OUT / h], np.float32)
    corners = np.concatenate([box[:, :2], box[:, :2] + box[:, 2:]], 1) * scale
    return image, np.concatenate([corners, label], 1).astype(np.float32)


def _pad_boxes(images, annotations, batch_info):
    """YOLO's collate: every image's boxes padded (zeros, label -1) to the batch's largest count."""
    most = max(len(a) for a in annotations)
    padded = []
    for a in annotations:
        fill = np.zeros((most - len(a), 5), np.float32)
        fill[:, 4] = -1
        padded.append(np.concatenate([a, fill]))
    return images, padded


def _coco(tmp):
    import mindspore.dataset as ds
    import mindspore.dataset.vision as vision

    root = write_coco(tmp)
    d = ds.CocoDataset(os.path.join(root, "train2017"), os.path.join(root, "instances_train2017.json"),
                       task="Detection", decode=False, shuffle=False, num_parallel_workers=2)
    d = d.map(operations=[vision.Decode()], input_columns=["image"])
    d = d.map(operations=_boxes, input_columns=["image", "bbox", "category_id", "iscrowd"],
              output_columns=["image", "annotation"])
    d = d.project(["image", "annotation"])
    return d.map(operations=[vision.Resize((OUT, OUT)), vision.Normalize(MEAN, STD), vision.HWC2CHW()],
                 input_columns=["image"], num_parallel_workers=2)


def _batches(d, names):
    out = {"col_names": d.get_col_names(), "dataset_size": d.get_dataset_size()}
    for i, row in enumerate(d.create_dict_iterator(num_epochs=1, output_numpy=True)):
        for name in names:
            out[f"{name}{i}"] = row[name]
    return out


def pipeline_coco_per_batch_map(tmp):
    d = _coco(tmp).batch(2, per_batch_map=_pad_boxes, input_columns=["image", "annotation"],
                         drop_remainder=False)
    return _batches(d, ["image", "annotation"])


def pipeline_coco_padded(tmp):
    d = _coco(tmp).padded_batch(2, drop_remainder=True, pad_info={"annotation": ([4, 5], -1.0)})
    return _batches(d, ["image", "annotation"])


_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat", "on", "mat", "a", "dog", "ran", "##s", "run",
          "fast", ",", ".", "!", "good", "bad", "movie", "not"]
_LINES = ["The cat sat on the mat.", "A dog runs fast!", "good movie , not bad", "The cats ran", "Zebras run."]
MAX_LEN = 8


def _bert_ops():
    import mindspore.dataset.text as text
    import mindspore.dataset.transforms as transforms
    from mindspore import dtype as mstype

    vocab = text.Vocab.from_list(_VOCAB)
    return [text.BertTokenizer(vocab=vocab, lower_case=True),
            transforms.Concatenate(prepend=np.array(["[CLS]"]), append=np.array(["[SEP]"])),
            transforms.Slice(slice(0, MAX_LEN)),
            text.Lookup(vocab, unknown_token="[UNK]"),
            transforms.PadEnd([MAX_LEN], pad_value=0),
            transforms.TypeCast(mstype.int32)]


def pipeline_nlp_textfile(tmp):
    import mindspore.dataset as ds

    path = os.path.join(tmp, "sentences.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(_LINES) + "\n")
    d = ds.TextFileDataset(path, shuffle=False)
    d = d.map(operations=_bert_ops(), input_columns=["text"], output_columns=["input_ids"])
    return _batches(d.batch(2, drop_remainder=False), ["input_ids"])


def _labelled():
    for i, line in enumerate(_LINES):
        yield np.array(line), np.array(str(i % 2))


def pipeline_nlp_generator(tmp):
    import mindspore.dataset as ds
    import mindspore.dataset.text as text
    import mindspore.dataset.transforms as transforms
    from mindspore import dtype as mstype

    d = ds.GeneratorDataset(_labelled, column_names=["sentence", "label"], shuffle=False)
    d = d.map(operations=_bert_ops(), input_columns=["sentence"], output_columns=["input_ids"])
    d = d.map(operations=[text.ToNumber(mstype.int32)], input_columns=["label"])
    d = d.map(operations=[transforms.Duplicate()], input_columns=["input_ids"],
              output_columns=["input_ids", "input_mask"])
    d = d.map(operations=[transforms.Mask(transforms.Relational.NE, 0, mstype.bool_),
                          transforms.TypeCast(mstype.int32)], input_columns=["input_mask"])
    return _batches(d.batch(2, drop_remainder=True), ["input_ids", "input_mask", "label"])


PIPELINES = {n[len("pipeline_"):]: f for n, f in sorted(globals().items()) if n.startswith("pipeline_")}
