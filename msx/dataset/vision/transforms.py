"""`mindspore.dataset.vision.transforms`, MindSpore 2.x's module path: the same classes as `msx.dataset.vision`
(`import msx.dataset.vision.transforms as T` runs code written for either spelling)."""
from msx.dataset.vision import *  # noqa: F401,F403
