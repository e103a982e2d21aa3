"""`msx.mindrecord`: MindSpore's `mindspore.mindrecord` — `FileWriter`, `FileReader`, `MindPage`, the `*ToMR`
converters, the exception classes (msx errors with MindSpore's names and codes) and the encryption settings
(plain files only). `msx.dataset.MindDataset` reads the files into a pipeline. docs/dataset.md has the details."""
from ..dataset.readers.mindrecord_config import set_dec_mode, set_enc_key, set_enc_mode  # noqa: F401
from ..dataset.readers.mindrecord_errors import *  # noqa: F401,F403 — MindSpore's exception names
from ..dataset.readers.mindrecord_reader import FileReader, MindPage  # noqa: F401
from ..dataset.readers.mindrecord_writer import FileWriter  # noqa: F401
from ..dataset.readers.mindrecord_convert import CsvToMR, ImageNetToMR, MnistToMR, TFRecordToMR  # noqa: F401
