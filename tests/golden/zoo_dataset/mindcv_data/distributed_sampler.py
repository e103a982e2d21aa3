"""NOT mindcv source: a stand-in for mindcv/data/distributed_sampler.py, imported by the verbatim
dataset_factory.py; only repeated augmentation (num_aug_repeats > 0) would call it."""


def RepeatAugSampler(*args, **kwargs):  # noqa: N802 - mindcv's name
    raise NotImplementedError("tests/golden/zoo_dataset/mindcv_data: repeated augmentation is not part of the test")
