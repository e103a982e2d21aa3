"""`msx.mindrecord`: MindSpore's `mindspore.mindrecord` — `FileWriter`, `FileReader`, `MindPage`, the `*ToMR`
converters, the exception classes (msx errors with MindSpore's names and codes) and the encryption settings
(plain files only). `msx.dataset.MindDataset` reads the files into a pipeline. docs/dataset.md has the details."""
from ..dataset.readers.mindrecord_config import set_dec_mode, set_enc_key, set_enc_mode  # noqa: F401
from ..dataset.readers.mindrecord_errors import *  # noqa: F401,F403 — MindSpore's exception names
from ..dataset.readers.mindrecord_reader import FileReader, MindPage  # noqa: F401
from ..dataset.readers.mindrecord_writer import FileWriter  # noqa: F401
from ..dataset.readers.mindrecord_convert import CsvToMR, ImageNetToMR, MnistToMR, TFRecordToMR  # noqa: F401
from ..unavailable import refuse

refuse(globals(), "mindspore.mindrecord", {
    ("a converter of CIFAR's python-pickle batches, which msx never unpickles (readers treat files as untrusted)",
     "read the binary CIFAR files (cifar-10-batches-bin, cifar-100-binary) with msx.dataset.Cifar10Dataset / "
     "Cifar100Dataset and write them with .save('cifar.mindrecord') (columns image and label, or coarse_label and fine_label)"):
        "Cifar10ToMR Cifar100ToMR"})
