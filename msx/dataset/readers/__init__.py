"""Readers of the standard on-disk dataset formats; each takes a `dataset_dir` (or files) the user already has.

No reader downloads anything. Each checks the bytes against the format's
public description and names the file at fault when they do not fit.
"""
from .audio_corpora import (CMUArcticDataset, GTZANDataset, LibriTTSDataset, LJSpeechDataset,  # noqa: F401
                            SpeechCommandsDataset, YesNoDataset)
from .fake_images import FakeImageDataset  # noqa: F401
from .annotated_images import CelebADataset, ManifestDataset, VOCDataset  # noqa: F401
from .coco import CocoDataset  # noqa: F401
from .cifar import Cifar10Dataset, Cifar100Dataset  # noqa: F401
from .idx import EMnistDataset, FashionMnistDataset, KMnistDataset, MnistDataset, QMnistDataset  # noqa: F401
from .image_folder import ImageFolderDataset  # noqa: F401
from .mindrecord import MindDataset  # noqa: F401
from .tfrecord import TFRecordDataset  # noqa: F401
from .stl10 import STL10Dataset  # noqa: F401
from .matlab_sets import Flowers102Dataset, SBDataset, SVHNDataset  # noqa: F401
from .tedlium import TedliumDataset  # noqa: F401
from .text_corpora import (AGNewsDataset, IMDBDataset, PennTreebankDataset, SST2Dataset,  # noqa: F401
                           WikiTextDataset)
from .text_files import CSVDataset, TextFileDataset  # noqa: F401
from .text_sets import (AmazonReviewDataset, CoNLL2000Dataset, DBpediaDataset, EnWik9Dataset,  # noqa: F401
                        Multi30kDataset, SogouNewsDataset, SQuADDataset, UDPOSDataset, YahooAnswersDataset,
                        YelpReviewDataset)
from .image_sets import (Caltech101Dataset, Caltech256Dataset, Food101Dataset, OmniglotDataset, Places365Dataset, RenderedSST2Dataset, SBUDataset, SemeionDataset, SUN397Dataset, USPSDataset)  # noqa: F401
from .annotated_sets import (CityscapesDataset, DIV2KDataset, FlickrDataset, KITTIDataset, LFWDataset, LSUNDataset, PhotoTourDataset, WIDERFaceDataset)  # noqa: F401
from .text_sets import CLUEDataset, IWSLT2016Dataset, IWSLT2017Dataset  # noqa: F401
