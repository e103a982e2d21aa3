"""`mindspore.dataset.transforms.transforms`, MindSpore 2.x's module path: the same classes as `msx.dataset.transforms`
(`import msx.dataset.transforms.transforms as T` runs code written for either spelling)."""
from msx.dataset.transforms import *  # noqa: F401,F403
