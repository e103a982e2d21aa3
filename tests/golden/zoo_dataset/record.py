"""Record MindSpore 2.10's rows for mindcv 0.3.0's data pipeline on a tiny ImageFolder:

    /work/main/.venv-ms/bin/python tests/golden/zoo_dataset/record.py

The images (`imagefolder/train/<class>/*.jpg`, written here by Pillow from a fixed numpy seed the first time and
committed, so both sides decode the same bytes) go through mindcv's own `create_dataset` (ImageFolder, no
shuffle), `create_transforms` (eval: Decode, Resize, CenterCrop, Normalize, HWC2CHW) and `create_loader`
(label TypeCast to int32, batch 4, remainder kept). Every batch is saved to `ms210.npz` (`image<i>`,
`label<i>`) and the case to `ms210.json`. tests/test_zoo_dataset_pipeline.py runs the same mindcv functions on
msx.dataset and compares.
"""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "imagefolder")
# class folder -> image (height, width) per file; 9 images make batches of 4, 4 and 1
IMAGES = {"cat": [(32, 40)] * 4 + [(40, 32)], "dog": [(32, 40)] * 3 + [(36, 44)]}
CASE = dict(name="", root=ROOT, split="train", shuffle=False, image_resize=24, batch_size=4,
            drop_remainder=False, is_training=False)


def write_images() -> None:
    from PIL import Image

    rng = np.random.default_rng(34)
    for cls, sizes in IMAGES.items():
        os.makedirs(os.path.join(ROOT, "train", cls), exist_ok=True)
        for i, (h, w) in enumerate(sizes):
            path = os.path.join(ROOT, "train", cls, f"{i:03d}.jpg")
            if os.path.exists(path):
                continue
            # a smooth gradient plus a little noise: JPEG keeps it close, so decoders agree to a few grey levels
            yy, xx = np.mgrid[0:h, 0:w]
            base = np.stack([xx * 255 / w, yy * 255 / h, (xx + yy) * 127 / (h + w) + 64 * (cls == "dog")], -1)
            img = np.clip(base + rng.normal(0, 8, (h, w, 3)), 0, 255).astype(np.uint8)
            Image.fromarray(img).save(path, quality=90)


def run_pipeline(case: dict, data) -> dict:
    """mindcv's functions (`data`: the module `mindcv.data`, or one holding its files), called as a mindcv
    training script calls them."""
    create_dataset, create_transforms, create_loader = data.create_dataset, data.create_transforms, data.create_loader
    dataset = create_dataset(name=case["name"], root=case["root"], split=case["split"], shuffle=case["shuffle"],
                             num_parallel_workers=1)
    transform = create_transforms(dataset_name=case["name"], image_resize=case["image_resize"],
                                  is_training=case["is_training"])
    loader = create_loader(dataset=dataset, batch_size=case["batch_size"], drop_remainder=case["drop_remainder"],
                           is_training=case["is_training"], transform=transform, num_parallel_workers=1)
    out = {"col_names": loader.get_col_names(), "dataset_size": loader.get_dataset_size(),
           "num_classes": dataset.num_classes()}
    for i, row in enumerate(loader.create_dict_iterator(num_epochs=1, output_numpy=True)):
        out[f"image{i}"], out[f"label{i}"] = row["image"], row["label"]
    return out


if __name__ == "__main__":
    import mindcv
    import mindcv.data
    import mindspore

    write_images()
    result = run_pipeline(CASE, mindcv.data)
    arrays = {k: v for k, v in result.items() if isinstance(v, np.ndarray)}
    np.savez_compressed(os.path.join(HERE, "ms210.npz"), **arrays)
    meta = {"mindspore": mindspore.__version__, "mindcv": mindcv.__version__,
            "case": {**CASE, "root": "imagefolder"}, "images": IMAGES,
            **{k: v for k, v in result.items() if k not in arrays},
            "arrays": {k: {"dtype": str(v.dtype), "shape": list(v.shape)} for k, v in arrays.items()}}
    with open(os.path.join(HERE, "ms210.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(json.dumps(meta["arrays"]))
