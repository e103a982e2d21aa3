"""The vision transforms beyond the first golden set (tests/oracle_inputs.VISION_CASES), written once against the
`mindspore.dataset.vision` API: make_golden.py records MindSpore 2.10's outputs (ms210.json), and
tests/test_dataset_vision_transforms.py compares msx's on the same inputs.

Deterministic transforms return their output; random ones are called where their draw cannot matter (prob 0 or 1,
a range of one value) or return properties every valid draw has (shape, dtype, which pixels changed), since
MindSpore's C++ generator cannot be reproduced from Python."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # tests/
from oracle_inputs import IMAGE  # noqa: E402

SMALL = IMAGE[:8, :10].copy()                                      # 8x10x3 uint8
GRAY = IMAGE[:, :, 0].copy()                                       # 12x16 uint8
FLOAT_CHW = (IMAGE.transpose(2, 0, 1)[:, :6, :5] / 255.0).astype(np.float32)
BOXES = np.array([[1, 2, 6, 5], [8, 3, 4, 7]], np.float32)        # x, y, width, height in the 16x12 image


def arr(value):
    return np.asarray(value)


# ---------------------------------------------------------------- colour / tone

def case_adjust_gamma(v, tmp):
    return arr(v.AdjustGamma(0.5, 1.2)(IMAGE))


def case_adjust_gamma_gray(v, tmp):
    return arr(v.AdjustGamma(2.0)(GRAY))


def case_adjust_sharpness(v, tmp):
    return arr(v.AdjustSharpness(2.5)(IMAGE))


def case_adjust_sharpness_blur(v, tmp):
    return arr(v.AdjustSharpness(0.2)(IMAGE))


def case_solarize(v, tmp):
    return arr(v.Solarize(128.0)(IMAGE))


def case_solarize_range(v, tmp):
    return arr(v.Solarize((60.0, 180.0))(IMAGE))


def case_random_solarize_fixed(v, tmp):
    return arr(v.RandomSolarize((100, 100))(IMAGE))


def case_random_posterize_fixed(v, tmp):
    return arr(v.RandomPosterize((3, 3))(IMAGE))


def case_random_invert_always(v, tmp):
    return arr(v.RandomInvert(1.0)(IMAGE))


def case_random_invert_never(v, tmp):
    return arr(v.RandomInvert(0.0)(IMAGE))


def case_random_equalize_always(v, tmp):
    return arr(v.RandomEqualize(1.0)(IMAGE))


def case_random_auto_contrast_always(v, tmp):
    return arr(v.RandomAutoContrast(10.0, None, 1.0)(IMAGE))


def case_random_adjust_sharpness_always(v, tmp):
    return arr(v.RandomAdjustSharpness(3.0, 1.0)(IMAGE))


def case_random_color_fixed(v, tmp):
    return arr(v.RandomColor((1.6, 1.6))(IMAGE))


def case_random_sharpness_fixed(v, tmp):
    return arr(v.RandomSharpness((0.4, 0.4))(IMAGE))


def case_convert_rgb2gray(v, tmp):
    return arr(v.ConvertColor(v.ConvertMode.COLOR_RGB2GRAY)(IMAGE))


def case_convert_bgr2rgb(v, tmp):
    return arr(v.ConvertColor(v.ConvertMode.COLOR_BGR2RGB)(IMAGE))


def case_convert_bgr2rgba(v, tmp):
    return arr(v.ConvertColor(v.ConvertMode.COLOR_BGR2RGBA)(IMAGE))


def case_convert_gray2bgr(v, tmp):
    return arr(v.ConvertColor(v.ConvertMode.COLOR_GRAY2BGR)(GRAY))


def case_rgb_to_hsv(v, tmp):
    return arr(v.RgbToHsv()(FLOAT_CHW))


def case_hsv_roundtrip(v, tmp):
    hwc = FLOAT_CHW.transpose(1, 2, 0).copy()
    return arr(v.HsvToRgb(is_hwc=True)(v.RgbToHsv(is_hwc=True)(hwc)))


def case_hsv_to_rgb(v, tmp):
    hsv = np.stack([FLOAT_CHW[0], FLOAT_CHW[1], FLOAT_CHW[2]])
    return arr(v.HsvToRgb()(hsv))


def case_linear_transformation(v, tmp):
    x = FLOAT_CHW[:, :2, :2].copy()
    n = x.size
    m = (np.arange(n * n, dtype=np.float32).reshape(n, n) % 7 - 3) / 5
    return arr(v.LinearTransformation(m, np.linspace(0, 1, n, dtype=np.float32))(x))


def case_random_lighting_zero(v, tmp):
    return arr(v.RandomLighting(0.0)(IMAGE))


def case_random_lighting_props(v, tmp):
    out = arr(v.RandomLighting(0.5)(IMAGE))
    return {"shape": list(out.shape), "dtype": str(out.dtype)}


# ---------------------------------------------------------------- filters / erasing

def case_gaussian_blur(v, tmp):
    return arr(v.GaussianBlur(3, 1.0)(IMAGE))


def case_gaussian_blur_rect(v, tmp):
    return arr(v.GaussianBlur((5, 3), (1.5, 0.7))(IMAGE))


def case_gaussian_blur_default_sigma(v, tmp):
    return arr(v.GaussianBlur(5)(GRAY))


def case_erase(v, tmp):
    return arr(v.Erase(2, 3, 4, 5, 9)(IMAGE))


def case_erase_rgb(v, tmp):
    return arr(v.Erase(1, 1, 3, 2, (10, 20, 30))(IMAGE))


def case_cutout_props(v, tmp):
    out = arr(v.CutOut(4, 1)(IMAGE))
    zero = np.all(out == 0, axis=2) & np.any(IMAGE != 0, axis=2)
    rows, cols = np.nonzero(zero)
    same = np.all(out == IMAGE, axis=2)
    return {"shape": list(out.shape), "dtype": str(out.dtype), "changed_or_zero": bool(np.all(same | np.all(out == 0, 2))),
            "box_at_most_4": bool(rows.size == 0 or (rows.max() - rows.min() < 4 and cols.max() - cols.min() < 4))}


def case_random_erasing_props(v, tmp):
    x = FLOAT_CHW.copy() + 0.5
    out = arr(v.RandomErasing(1.0, (0.2, 0.3), (0.5, 2.0), 0)(x))
    erased = np.all(out == 0, axis=0)
    return {"shape": list(out.shape), "dtype": str(out.dtype), "some_erased": bool(erased.any()),
            "rest_same": bool(np.all((out == x) | (out == 0)))}


def case_random_erasing_never(v, tmp):
    return arr(v.RandomErasing(0.0)(FLOAT_CHW))


# ---------------------------------------------------------------- geometry

def case_affine(v, tmp):
    return arr(v.Affine(30.0, [0.5, -0.25], 1.1, [10.0, 5.0])(IMAGE))


def case_affine_bilinear(v, tmp):
    return arr(v.Affine(-15.0, [1, 1], 0.9, 0.0, v.Inter.BILINEAR, 7)(IMAGE))


def case_affine_translate_only(v, tmp):
    return arr(v.Affine(0.0, [0.75, -0.5], 1.0, 0.0)(IMAGE))


def case_random_affine_fixed(v, tmp):
    return arr(v.RandomAffine((30, 30), None, (1.1, 1.1), (10.0, 10.0, 5.0, 5.0))(IMAGE))


def case_random_affine_props(v, tmp):
    out = arr(v.RandomAffine(20, (0.1, 0.2), (0.8, 1.2), 5)(IMAGE))
    return {"shape": list(out.shape), "dtype": str(out.dtype)}


def case_perspective(v, tmp):
    start = [[0, 0], [15, 0], [15, 11], [0, 11]]
    end = [[1, 2], [14, 0], [13, 11], [2, 10]]
    return arr(v.Perspective(start, end, v.Inter.BILINEAR)(IMAGE))


def case_perspective_nearest(v, tmp):
    start = [[0, 0], [15, 0], [15, 11], [0, 11]]
    end = [[2, 1], [15, 1], [14, 10], [0, 11]]
    return arr(v.Perspective(start, end, v.Inter.NEAREST)(IMAGE))


def case_random_perspective_never(v, tmp):
    from PIL import Image
    return arr(v.RandomPerspective(0.5, 0.0)(Image.fromarray(IMAGE)))


def case_random_perspective_props(v, tmp):
    from PIL import Image
    out = arr(v.RandomPerspective(0.4, 1.0)(Image.fromarray(IMAGE)))
    return {"shape": list(out.shape), "dtype": str(out.dtype)}


def case_pad_to_size(v, tmp):
    return arr(v.PadToSize((15, 20), fill_value=3)(IMAGE))


def case_pad_to_size_offset(v, tmp):
    return arr(v.PadToSize([14, 18], [1, 2], 0, v.Border.REFLECT)(IMAGE))


def case_five_crop(v, tmp):
    from PIL import Image
    return [arr(c) for c in v.FiveCrop((5, 6))(Image.fromarray(IMAGE))]


def case_ten_crop(v, tmp):
    from PIL import Image
    return [arr(c) for c in v.TenCrop(4, use_vertical_flip=True)(Image.fromarray(IMAGE))]


def case_slice_patches_pad(v, tmp):
    return [arr(p) for p in v.SlicePatches(5, 3, v.SliceMode.PAD, 7)(IMAGE)]


def case_slice_patches_drop(v, tmp):
    return [arr(p) for p in v.SlicePatches(5, 3, v.SliceMode.DROP)(IMAGE)]


def case_random_resize_props(v, tmp):
    return [list(arr(v.RandomResize((6, 9))(IMAGE)).shape) for _ in range(3)] + \
        [list(arr(v.RandomResize(6)(IMAGE)).shape)]


def case_random_crop_decode_resize_props(v, tmp):
    import io
    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(IMAGE).save(buf, "PNG")
    out = arr(v.RandomCropDecodeResize((7, 5))(np.frombuffer(buf.getvalue(), np.uint8)))
    return {"shape": list(out.shape), "dtype": str(out.dtype)}


def case_random_crop_decode_resize_full(v, tmp):
    import io
    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(IMAGE).save(buf, "PNG")
    return arr(v.RandomCropDecodeResize((6, 8), (1.0, 1.0), (4 / 3, 4 / 3))(np.frombuffer(buf.getvalue(), np.uint8)))


# ---------------------------------------------------------------- bounding boxes

def case_resize_with_bbox(v, tmp):
    img, box = v.ResizeWithBBox((6, 8))(IMAGE, BOXES.copy())
    return [arr(img), arr(box)]


def case_resize_with_bbox_int(v, tmp):
    img, box = v.ResizeWithBBox(24, v.Inter.NEAREST)(IMAGE, BOXES.copy())
    return [arr(img), arr(box)]


def case_hflip_with_bbox(v, tmp):
    img, box = v.RandomHorizontalFlipWithBBox(1.0)(IMAGE, BOXES.copy())
    return [arr(img), arr(box)]


def case_vflip_with_bbox(v, tmp):
    img, box = v.RandomVerticalFlipWithBBox(1.0)(IMAGE, BOXES.copy())
    return [arr(img), arr(box)]


def case_random_crop_with_bbox_full(v, tmp):
    img, box = v.RandomCropWithBBox((12, 16))(IMAGE, BOXES.copy())
    return [arr(img), arr(box)]


def case_random_crop_with_bbox_props(v, tmp):
    img, box = v.RandomCropWithBBox((8, 10))(IMAGE, BOXES.copy())
    box = arr(box)
    return {"shape": list(arr(img).shape), "box_dtype": str(box.dtype), "box_cols": int(box.shape[1]),
            "inside": bool(np.all(box[:, 0] >= 0) and np.all(box[:, 1] >= 0) and
                           np.all(box[:, 0] + box[:, 2] <= 10 + 1e-4) and np.all(box[:, 1] + box[:, 3] <= 8 + 1e-4))}


def case_random_resize_with_bbox_props(v, tmp):
    img, box = v.RandomResizeWithBBox((6, 8))(IMAGE, BOXES.copy())
    return {"shape": list(arr(img).shape), "box": arr(box).round(4).tolist()}


def case_random_resized_crop_with_bbox_full(v, tmp):
    img, box = v.RandomResizedCropWithBBox((6, 8), (1.0, 1.0), (4 / 3, 4 / 3))(IMAGE, BOXES.copy())
    return [arr(img), arr(box)]


def case_bounding_box_augment_always(v, tmp):
    img, box = v.BoundingBoxAugment(v.HorizontalFlip(), 1.0)(IMAGE, BOXES.copy())
    return [arr(img), arr(box)]


def case_bounding_box_augment_never(v, tmp):
    img, box = v.BoundingBoxAugment(v.HorizontalFlip(), 0.0)(IMAGE, BOXES.copy())
    return [arr(img), arr(box)]


# ---------------------------------------------------------------- batches

def _batch():
    images = np.stack([IMAGE, 255 - IMAGE, IMAGE[::-1], IMAGE[:, ::-1]]).astype(np.uint8)
    labels = np.eye(3, dtype=np.float32)[[0, 1, 2, 1]]
    return images, labels


def case_mixup_batch_props(v, tmp):
    images, labels = _batch()
    out, mixed = v.MixUpBatch(1.0)(images, labels)
    out, mixed = arr(out), arr(mixed)
    return {"shape": list(out.shape), "dtype": str(out.dtype), "label_dtype": str(mixed.dtype),
            "labels_sum_to_1": bool(np.allclose(mixed.sum(1), 1, atol=1e-5))}


def case_cutmix_batch_props(v, tmp):
    images, labels = _batch()
    out, mixed = v.CutMixBatch(v.ImageBatchFormat.NHWC, 1.0, 1.0)(images, labels)
    out, mixed = arr(out), arr(mixed)
    return {"shape": list(out.shape), "dtype": str(out.dtype), "label_dtype": str(mixed.dtype),
            "labels_sum_to_1": bool(np.allclose(mixed.sum(1), 1, atol=1e-5))}


def case_cutmix_batch_never(v, tmp):
    images, labels = _batch()
    out, mixed = v.CutMixBatch(v.ImageBatchFormat.NHWC, 1.0, 0.0)(images, labels)
    return [arr(out), arr(mixed)]


def case_cutmix_batch_nchw_props(v, tmp):
    images, labels = _batch()
    out, mixed = v.CutMixBatch(v.ImageBatchFormat.NCHW, 0.5, 1.0)(images.transpose(0, 3, 1, 2).copy(), labels)
    return {"shape": list(arr(out).shape), "label_shape": list(arr(mixed).shape)}


# ---------------------------------------------------------------- policies

def case_auto_augment_props(v, tmp):
    shapes = []
    for policy in (v.AutoAugmentPolicy.IMAGENET, v.AutoAugmentPolicy.CIFAR10, v.AutoAugmentPolicy.SVHN):
        out = arr(v.AutoAugment(policy)(IMAGE))
        shapes.append([list(out.shape), str(out.dtype)])
    return shapes


def case_rand_augment_props(v, tmp):
    out = arr(v.RandAugment(3, 5, 11)(IMAGE))
    return [list(out.shape), str(out.dtype)]


def case_rand_augment_bad_magnitude(v, tmp):
    return arr(v.RandAugment(2, 31, 31)(IMAGE))


def case_trivial_augment_props(v, tmp):
    out = arr(v.TrivialAugmentWide(31, v.Inter.BILINEAR, (1, 2, 3))(IMAGE))
    return [list(out.shape), str(out.dtype)]


def case_uniform_augment_all(v, tmp):
    return arr(v.UniformAugment([v.Invert(), v.Invert()], 2)(IMAGE))


def case_uniform_augment_props(v, tmp):
    out = arr(v.UniformAugment([v.Invert(), v.Posterize(2), v.HorizontalFlip()], 1)(IMAGE))
    return [list(out.shape), str(out.dtype)]


def case_random_select_subpolicy_sure(v, tmp):
    return arr(v.RandomSelectSubpolicy([[(v.Invert(), 1.0), (v.Posterize(3), 1.0)]])(IMAGE))


def case_random_select_subpolicy_never(v, tmp):
    return arr(v.RandomSelectSubpolicy([[(v.Invert(), 0.0)]])(IMAGE))


# ---------------------------------------------------------------- image files

def case_image_size(v, tmp):
    from PIL import Image
    return [v.get_image_size(IMAGE), v.get_image_num_channels(IMAGE), v.get_image_size(Image.fromarray(GRAY)),
            v.get_image_num_channels(Image.fromarray(GRAY)), v.get_image_num_channels(GRAY)]


def case_encode_png_roundtrip(v, tmp):
    data = arr(v.encode_png(IMAGE))
    path = os.path.join(tmp, "a.png")
    v.write_png(path, IMAGE, 3)
    return [str(data.dtype), data.ndim, arr(v.read_image(path)), arr(v.read_image(path, v.ImageReadMode.GRAYSCALE))]


def case_encode_jpeg(v, tmp):
    data = arr(v.encode_jpeg(IMAGE, 90))
    path = os.path.join(tmp, "a.jpg")
    v.write_jpeg(path, IMAGE, 90)
    raw = arr(v.read_file(path))
    return [str(data.dtype), data.ndim, bool(data[:2].tolist() == [255, 216]), list(arr(v.read_image(path)).shape),
            str(raw.dtype), bool(raw.tolist() == data.tolist())]


def case_write_file(v, tmp):
    path = os.path.join(tmp, "b.bin")
    v.write_file(path, np.arange(7, dtype=np.uint8))
    return arr(v.read_file(path))


def case_affine_shear_pair(v, tmp):
    return arr(v.Affine(10.0, [0.0, 0.0], 1.0, (0.0, 20.0), v.Inter.NEAREST, (1, 2, 3))(IMAGE))


def case_random_affine_translate_fixed(v, tmp):
    return arr(v.RandomAffine(0, (0.25, 0.25, -0.5, -0.5))(IMAGE))


def case_affine_gray(v, tmp):
    return arr(v.Affine(45.0, [0.0, 0.0], 0.8, 0.0)(GRAY))


VIDEO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny.mp4")  # made by make_video.py


def case_read_video(v, tmp):
    video, audio, meta = v.read_video(VIDEO)
    return [arr(video), arr(audio), meta]


def case_read_video_pts_range(v, tmp):
    return [arr(v.read_video(VIDEO, 2048, 4096)[0]), arr(v.read_video(VIDEO, 0.3, None, "sec")[0])]


def case_read_video_timestamps(v, tmp):
    return [list(v.read_video_timestamps(VIDEO)), list(v.read_video_timestamps(VIDEO, "sec"))]


def case_decode_video(v, tmp):
    video, audio = v.DecodeVideo()(np.fromfile(VIDEO, np.uint8))
    return [arr(video), arr(audio)]


def case_video_decoder_metadata(v, tmp):
    return v.VideoDecoder(VIDEO).metadata
