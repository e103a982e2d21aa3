"""`msx.dataset.vision`: MindSpore's image transforms (`mindspore.dataset.vision`), on numpy HWC arrays and
PIL images; use them in `Dataset.map` or eagerly on one image (`vision.Resize((32, 32))(img)`)."""
from ..transforms.ops import not_random  # noqa: F401
from .augment_policies import (AutoAugment, AutoAugmentPolicy, RandAugment, RandomSelectSubpolicy,  # noqa: F401
                               TrivialAugmentWide, UniformAugment)
from .batch_mixing import CutMixBatch, ImageBatchFormat, MixUp, MixUpBatch  # noqa: F401
from .bboxes import (BoundingBoxAugment, RandomCropWithBBox, RandomHorizontalFlipWithBBox,  # noqa: F401
                     RandomResizedCropWithBBox, RandomResizeWithBBox, RandomVerticalFlipWithBBox, ResizeWithBBox)
from .color import (AdjustBrightness, AdjustContrast, AdjustHue, AdjustSaturation, AutoContrast,  # noqa: F401
                    Equalize, Grayscale, Invert, LinearTransformation, Normalize, NormalizePad, Posterize,
                    RandomColorAdjust, RandomGrayscale, Rescale, ToTensor, ToType)
from .core import Border, Decode, ImageTensorOperation, Inter, ToNumpy, ToPIL  # noqa: F401
from .crops import (FiveCrop, PadToSize, RandomCropDecodeResize, RandomResize, SliceMode,  # noqa: F401
                    SlicePatches, TenCrop)
from .erasing import CutOut, Erase, RandomErasing  # noqa: F401
from .filters import AdjustSharpness, GaussianBlur  # noqa: F401
from .geometry import (HWC2CHW, CenterCrop, Crop, HorizontalFlip, Pad, RandomCrop,  # noqa: F401
                       RandomHorizontalFlip, RandomResizedCrop, RandomRotation, RandomVerticalFlip, Resize,
                       ResizedCrop, Rotate, VerticalFlip)
from .image_files import (ImageReadMode, encode_jpeg, encode_png, get_image_num_channels,  # noqa: F401
                          get_image_size, read_file, read_image, write_file, write_jpeg, write_png)
from .random_color import (RandomAdjustSharpness, RandomAutoContrast, RandomColor, RandomEqualize,  # noqa: F401
                           RandomInvert, RandomLighting, RandomPosterize, RandomSharpness, RandomSolarize)
from .tone import AdjustGamma, ConvertColor, ConvertMode, HsvToRgb, RgbToHsv, Solarize  # noqa: F401
from .video import DecodeVideo, VideoDecoder, read_video, read_video_timestamps  # noqa: F401
from .warps import Affine, Perspective, RandomAffine, RandomPerspective  # noqa: F401
