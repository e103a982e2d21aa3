"""`msx.mindrecord`: MindSpore's `mindspore.mindrecord` writer, `FileWriter` (read the files with
`msx.dataset.MindDataset`)."""
from ..dataset.readers.mindrecord_writer import FileWriter  # noqa: F401
