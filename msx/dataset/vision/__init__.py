"""`msx.dataset.vision`: MindSpore's image transforms (`mindspore.dataset.vision`), on numpy HWC arrays and
PIL images; use them in `Dataset.map` or eagerly on one image (`vision.Resize((32, 32))(img)`)."""
from .color import (AdjustBrightness, AdjustContrast, AdjustHue, AdjustSaturation, AutoContrast,  # noqa: F401
                    Equalize, Grayscale, Invert, Normalize, NormalizePad, Posterize, RandomColorAdjust,
                    RandomGrayscale, Rescale, ToTensor, ToType)
from .core import Border, Decode, ImageTensorOperation, Inter, ToNumpy, ToPIL  # noqa: F401
from .geometry import (HWC2CHW, CenterCrop, Crop, HorizontalFlip, Pad, RandomCrop,  # noqa: F401
                       RandomHorizontalFlip, RandomResizedCrop, RandomRotation, RandomVerticalFlip, Resize,
                       ResizedCrop, Rotate, VerticalFlip)
