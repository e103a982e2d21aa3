"""NOT mindcv source: a stand-in for mindcv/data/auto_augment.py, imported by the verbatim transforms_factory.py;
only training transforms with auto_augment would call these."""


def _unused(*args, **kwargs):
    raise NotImplementedError("tests/golden/zoo_dataset/mindcv_data: auto-augment is not part of the test")


augment_and_mix_transform = auto_augment_transform = rand_augment_transform = _unused
trivial_augment_wide_transform = _unused
