"""NOT mindcv source: a stand-in for mindcv/data/mixup.py, imported by the verbatim loader.py; only training
with mixup/cutmix would call it."""


def Mixup(*args, **kwargs):  # noqa: N802 - mindcv's name
    raise NotImplementedError("tests/golden/zoo_dataset/mindcv_data: mixup is not part of the test")
