"""NOT mindcv source: a stand-in for mindcv/data/dataset_download.py (which needs mindcv.utils to download
MNIST/CIFAR), so that the verbatim dataset_factory.py imports. The ImageFolder path never calls it."""


def _unused(*args, **kwargs):
    raise NotImplementedError("tests/golden/zoo_dataset/mindcv_data: downloads are not part of the test")


Cifar10Download = Cifar100Download = MnistDownload = get_dataset_download_root = _unused
