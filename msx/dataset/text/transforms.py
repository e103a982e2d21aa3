"""`mindspore.dataset.text.transforms`, MindSpore 2.x's module path: the same classes as `msx.dataset.text`
(`import msx.dataset.text.transforms as T` runs code written for either spelling)."""
from msx.dataset.text import *  # noqa: F401,F403
