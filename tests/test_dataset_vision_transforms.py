"""The vision transforms of tests/golden/dataset_vision/vision_cases.py against MindSpore 2.10 (ms210.json, recorded
by make_golden.py there): deterministic outputs equal (within the grey levels listed in TOLERANCE, where MindSpore's
OpenCV kernels round in fixed point), random transforms through their deterministic settings and the properties
every draw has; plus msx's own seeded-equality and argument checks."""
import json
import os
import sys

import numpy as np
import pytest

from msx.dataset import vision
from msx.errors import DatasetError

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "dataset_vision")
sys.path.insert(0, HERE)
import vision_cases as cases  # noqa: E402

GOLDEN = json.load(open(os.path.join(HERE, "ms210.json"), encoding="utf-8"))

# the largest difference allowed per case (grey levels for uint8, absolute for float); absent: exact
ONE_LEVEL = ("adjust_sharpness", "adjust_sharpness_blur", "encode_png_roundtrip", "gaussian_blur",
             "gaussian_blur_default_sigma", "gaussian_blur_rect", "perspective", "random_auto_contrast_always",
             "random_color_fixed", "random_crop_decode_resize_full", "random_resized_crop_with_bbox_full",
             "random_sharpness_fixed", "resize_with_bbox", "random_adjust_sharpness_always")
TOLERANCE = dict.fromkeys(ONE_LEVEL, 1)
TOLERANCE.update(dict.fromkeys(("read_video", "read_video_pts_range", "decode_video"), 4))  # FFmpeg builds' YUV->RGB
VIDEO_CASES = ("read_video", "read_video_pts_range", "read_video_timestamps", "decode_video", "video_decoder_metadata")


def plain(result):
    if isinstance(result, np.ndarray):
        return {"dtype": str(result.dtype), "shape": list(result.shape), "value": result.tolist()}
    if isinstance(result, (list, tuple)):
        return [plain(r) for r in result]
    if isinstance(result, (np.integer, np.floating, np.bool_)):
        return result.item()
    return result


def compare(name, got, want, tol):
    if isinstance(want, dict) and set(want) == {"dtype", "shape", "value"}:
        assert got["dtype"] == want["dtype"] and got["shape"] == want["shape"], (name, got["dtype"], got["shape"])
        a, b = np.asarray(got["value"], np.float64), np.asarray(want["value"], np.float64)
        diff = np.abs(a - b).max() if a.size else 0.0
        assert diff <= tol + 1e-6 * (1 + np.abs(b).max(initial=0)), f"{name}: max difference {diff}"
    elif isinstance(want, list) and isinstance(got, list):
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            compare(name, g, w, tol)
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-7), name  # MindSpore's video seconds are float32-rounded
    else:
        assert got == want, name


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_vision_matches_mindspore(name, tmp_path):
    want = GOLDEN[name]
    if name in VIDEO_CASES:
        pytest.importorskip("av", reason="video decoding needs PyAV (pip install av)")
    if "error" in want:
        with pytest.raises(DatasetError):
            getattr(cases, f"case_{name}")(vision, str(tmp_path))
        return
    got = json.loads(json.dumps(plain(getattr(cases, f"case_{name}")(vision, str(tmp_path)))))
    compare(name, got, want["result"], TOLERANCE.get(name, 0))


IMAGE = cases.IMAGE
BATCH, LABELS = cases._batch()


def seeded(op, *args, seed=5):
    """`op(*args)` with the eager generator seeded (the same seed gives the same draw)."""
    from msx import dataset as ds
    ds.config.set_seed(seed)
    return op(*args)


@pytest.mark.parametrize("op", [
    vision.AutoAugment(vision.AutoAugmentPolicy.CIFAR10), vision.RandAugment(3, 9), vision.TrivialAugmentWide(),
    vision.RandomAffine(30, (0.2, 0.2), (0.8, 1.2), (-10, 10, -5, 5)), vision.CutOut(3, 2), vision.RandomLighting(),
    vision.UniformAugment([vision.Invert(), vision.Equalize(), vision.HorizontalFlip()]), vision.RandomResize(7),
    vision.RandomSolarize(), vision.RandomPosterize((1, 8)), vision.RandomColor(), vision.RandomSharpness()],
    ids=lambda op: type(op).__name__)
def test_random_transforms_repeat_under_a_seed(op):
    a, b = seeded(op, IMAGE), seeded(op, IMAGE)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert np.asarray(a).dtype == np.uint8


def test_policies_change_the_image_and_keep_its_form():
    outs = [np.asarray(seeded(vision.RandAugment(2, 20), IMAGE, seed=s)) for s in range(6)]
    assert all(o.shape == IMAGE.shape for o in outs) and sum(not np.array_equal(o, IMAGE) for o in outs) >= 5
    assert len({o.tobytes() for o in outs}) >= 4  # different seeds, different draws


def test_mixup_batch_mixes_labels_with_the_pixel_weight():
    images, eye = BATCH.astype(np.float64), np.eye(4, dtype=np.float32)  # one class per image: labels name the mix
    out, labels = seeded(vision.MixUpBatch(0.7), images, eye)
    assert out.dtype == np.float64 and labels.dtype == np.float32 and np.allclose(labels.sum(1), 1)
    for i in range(4):
        lam = labels[i, i]
        partner = int(np.argmax(np.where(np.arange(4) == i, -1, labels[i]))) if lam < 1 - 1e-6 else i
        np.testing.assert_allclose(out[i], lam * images[i] + (1 - lam) * images[partner], atol=1e-3)


def test_cutmix_label_share_is_the_pasted_area():
    out, labels = seeded(vision.CutMixBatch(vision.ImageBatchFormat.NHWC, 1.0, 1.0), BATCH, LABELS, seed=3)
    for i in range(len(BATCH)):
        changed = np.any(out[i] != BATCH[i], axis=2).mean()
        own = labels[i] @ LABELS[i] if not np.array_equal(LABELS[i], LABELS[(i + 2) % 4]) else None
        assert changed <= 1 - own + 1e-6 if own is not None else True
        assert np.isclose(labels[i].sum(), 1)


def test_random_erasing_area_within_scale():
    x = cases.FLOAT_CHW + 1
    for seed in range(5):
        out = seeded(vision.RandomErasing(1.0, (0.2, 0.3), (0.5, 2.0)), x, seed=seed)
        share = np.all(out == 0, axis=0).mean()
        assert share == 0 or 0.1 <= share <= 0.45  # the box's integer sides round the drawn area


def test_mixup_single_and_across_batches():
    images, labels = BATCH.astype(np.float64), LABELS
    out, mixed = seeded(vision.MixUp(4, 0.5), images, labels)
    assert out.dtype == np.float64 and np.allclose(mixed.sum(1), 1)
    across = vision.MixUp(4, 0.5, is_single=False)
    first, first_labels = across(images, labels)
    np.testing.assert_array_equal(first, images)  # the first batch has nothing before it
    second, _ = across(images[::-1], labels[::-1])
    assert second.shape == images.shape


def test_bbox_transforms_in_a_pipeline_and_box_clipping():
    from msx import dataset as ds
    d = ds.GeneratorDataset(lambda: iter([(IMAGE, cases.BOXES), (IMAGE, cases.BOXES[:1])]), ["image", "bbox"])
    d = d.map(vision.RandomCropWithBBox((6, 6)), ["image", "bbox"])
    for image, box in d.create_tuple_iterator(output_numpy=True):
        assert image.shape == (6, 6, 3) and box.dtype == np.float32
        assert (box[:, 0] + box[:, 2] <= 6 + 1e-5).all() and (box[:, 1] + box[:, 3] <= 6 + 1e-5).all()
    from msx.dataset.vision.bboxes import crop_boxes
    np.testing.assert_allclose(crop_boxes(cases.BOXES, 4, 3, 4, 6), [[0, 0, 4, 3], [5, 0, 1, 4]])


def test_five_crops_to_numpy_and_slice_patches_count():
    from PIL import Image
    crops = vision.TenCrop(5)(Image.fromarray(IMAGE))
    assert len(crops) == 10 and all(c.size == (5, 5) for c in crops)
    assert len(vision.SlicePatches(2, 4)(IMAGE)) == 8


@pytest.mark.parametrize("make, match", [
    (lambda: vision.GaussianBlur(4), "odd"), (lambda: vision.GaussianBlur(3, -1), "sigma"),
    (lambda: vision.Affine(0, [2, 0], 1, 0), "translate"), (lambda: vision.RandAugment(2, 40), "magnitude"),
    (lambda: vision.UniformAugment([vision.Invert()], 2), "num_ops"), (lambda: vision.Solarize((200, 100)), "min"),
    (lambda: vision.RandomErasing(scale=(0.5, 0.1)), "scale"), (lambda: vision.CutMixBatch(7), "image_batch_format"),
    (lambda: vision.AutoAugment("imagenette"), "policy"), (lambda: vision.ConvertColor(99), "convert_mode"),
    (lambda: vision.RandomPosterize((0, 9)), "bits"), (lambda: vision.PadToSize((4, 4), (-1, 0)), "offset"),
    (lambda: vision.RandomSelectSubpolicy([[vision.Invert()]]), "pairs"),
    (lambda: vision.LinearTransformation(np.eye(3), np.zeros(2)), "D x D")])
def test_bad_arguments_name_the_transform(make, match):
    with pytest.raises(DatasetError, match=match):
        make()


@pytest.mark.parametrize("call, match", [
    (lambda: vision.ResizeWithBBox(4)(IMAGE, np.array([[10, 0, 9, 2]], np.float32)), "outside"),
    (lambda: vision.ResizeWithBBox(4)(IMAGE, np.zeros((2, 3), np.float32)), "bboxes"),
    (lambda: vision.MixUpBatch()(IMAGE, LABELS), "batch"),
    (lambda: vision.CutMixBatch(vision.ImageBatchFormat.NHWC)(BATCH, LABELS[:2]), "one-hot"),
    (lambda: vision.FiveCrop(3)(IMAGE), "PIL"), (lambda: vision.RandomPerspective()(IMAGE), "PIL"),
    (lambda: vision.AutoAugment()(IMAGE.astype(np.float32)), "uint8"),
    (lambda: vision.PadToSize((4, 4))(IMAGE), "does not fit"),
    (lambda: vision.ConvertColor(vision.ConvertMode.COLOR_RGBA2GRAY)(IMAGE), "4 channels"),
    (lambda: vision.read_image("/nonexistent.png"), "not a file"),
    (lambda: vision.encode_png(IMAGE.astype(np.float32)), "uint8")])
def test_bad_inputs_name_the_transform(call, match):
    with pytest.raises(DatasetError, match=match):
        call()


def test_read_image_rejects_a_non_image(tmp_path):
    path = tmp_path / "x.png"
    path.write_bytes(b"\x89PNG not really")
    with pytest.raises(DatasetError, match="cannot decode"):
        vision.read_image(str(path))


def test_not_random_marks_a_function():
    from msx.dataset import transforms
    f = transforms.not_random(lambda x: x)
    assert f.random is False and vision.not_random is transforms.not_random


def test_video_bytes_truncated_or_flipped_give_clean_errors():
    pytest.importorskip("av", reason="video decoding needs PyAV (pip install av)")
    data = np.fromfile(cases.VIDEO, np.uint8)
    variants = [data[:cut] for cut in range(0, len(data), 41)]
    for pos in range(0, len(data), 53):
        flipped = data.copy()
        flipped[pos] ^= 0xFF
        variants.append(flipped)
    for variant in variants:
        try:
            frames, _ = vision.DecodeVideo()(variant)
            assert frames.dtype == np.uint8 and frames.ndim == 4
        except DatasetError:
            pass
    with pytest.raises(DatasetError, match="not a file"):
        vision.read_video("/nonexistent.mp4")
    with pytest.raises(DatasetError, match="pts_unit"):
        vision.read_video(cases.VIDEO, pts_unit="ms")
    with pytest.raises(DatasetError, match="outside"):
        vision.VideoDecoder(cases.VIDEO).get_frames_at([9])
    assert vision.VideoDecoder(cases.VIDEO).get_frames_at([0, 3]).shape == (2, 12, 16, 3)


def test_a_detection_pipeline_with_box_transforms(tmp_path):
    """The model-zoo detection shape: boxes ride with the image through random box transforms and a batch."""
    from msx import dataset as ds
    rows = [(IMAGE, cases.BOXES), (IMAGE[::-1].copy(), cases.BOXES[:1])]
    d = ds.GeneratorDataset(lambda: iter(rows), ["image", "bbox"], shuffle=False)
    d = d.map([vision.RandomHorizontalFlipWithBBox(1.0), vision.ResizeWithBBox((6, 8))], ["image", "bbox"])
    d = d.map([vision.Normalize([0, 0, 0], [255, 255, 255]), vision.HWC2CHW()], "image")
    d = d.padded_batch(2, pad_info={"bbox": ([2, 4], -1)})
    (images, boxes), = [tuple(r) for r in d.create_tuple_iterator(output_numpy=True)]
    assert images.shape == (2, 3, 6, 8) and images.dtype == np.float32
    np.testing.assert_allclose(boxes[0], [[4.5, 1, 3, 2.5], [2, 1.5, 2, 3.5]])  # flipped, then halved
    np.testing.assert_allclose(boxes[1, 1], [-1, -1, -1, -1])
