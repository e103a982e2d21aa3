"""`msx.mindrecord`: MindSpore's `mindspore.mindrecord` — `FileWriter`, the exception classes (msx errors with
MindSpore's names and codes). Read the files with `msx.dataset.MindDataset`."""
from ..dataset.readers.mindrecord_errors import *  # noqa: F401,F403 — MindSpore's exception names
from ..dataset.readers.mindrecord_writer import FileWriter  # noqa: F401
