"""`msx.dataset`: MindSpore's `mindspore.dataset` — sources, on-disk readers, samplers, pipeline steps, on grain.

    from msx.dataset import vision, transforms
    ds = msx.dataset.MnistDataset("MNIST_Data/train")
    ds = ds.map(vision.Rescale(1 / 255, 0), "image").map(vision.HWC2CHW(), "image")
    ds = ds.map(transforms.TypeCast(msx.int32), "label").batch(64)
    for image, label in ds.create_tuple_iterator(): ...

Shuffles and random transforms are reproducible with `msx.set_seed` or
`msx.dataset.config.set_seed`; grain's threads read `num_parallel_workers`
rows at once with the same results as one worker. docs/dataset.md has it all.
"""
from . import config  # noqa: F401
from .config import get_callback_timeout, get_num_parallel_workers, get_seed, set_seed  # noqa: F401
from .callbacks import DSCallback  # noqa: F401
from .iterators import DictIterator, TupleIterator  # noqa: F401
from .pipeline import (BatchDataset, BatchInfo, BucketBatchByLengthDataset, BucketBatchDataset, PaddedBatchDataset, ConcatDataset, Dataset,  # noqa: F401
                       FilterDataset, MapDataset, ProjectDataset, RenameDataset, RepeatDataset, ShuffleDataset,
                       SkipDataset, TakeDataset, TransferDataset, ZipDataset)
from .pipeline import zip_datasets as zip  # noqa: F401,A001 — MindSpore's module-level name
from .sync import SyncWaitDataset  # noqa: F401
from .samplers import (BuiltinSampler, DistributedSampler, IterSampler, PKSampler, RandomSampler,  # noqa: F401
                       Sampler, SequentialSampler, SubsetRandomSampler, SubsetSampler, WeightedRandomSampler)
from .sources import (GeneratorDataset, MappableSource, NumpySlicesDataset, PaddedDataset,  # noqa: F401
                      RandomDataset)
from .readers import (AGNewsDataset, CelebADataset, Cifar10Dataset, Cifar100Dataset, CMUArcticDataset,  # noqa: F401
                      CocoDataset, CSVDataset, GTZANDataset, LibriTTSDataset, EMnistDataset, FakeImageDataset, FashionMnistDataset, Flowers102Dataset,
                      ImageFolderDataset, IMDBDataset, KMnistDataset, LJSpeechDataset, ManifestDataset, MindDataset,
                      MnistDataset, PennTreebankDataset, QMnistDataset, SpeechCommandsDataset, SST2Dataset,
                      STL10Dataset, SVHNDataset, TextFileDataset, TFRecordDataset, VOCDataset, WikiTextDataset,
                      YesNoDataset)
from .readers.text_sets import (AmazonReviewDataset, CoNLL2000Dataset, DBpediaDataset, EnWik9Dataset,  # noqa: F401
                                Multi30kDataset, SogouNewsDataset, SQuADDataset, UDPOSDataset, YahooAnswersDataset,
                                YelpReviewDataset)
from .readers.image_sets import (Caltech101Dataset, Caltech256Dataset, Food101Dataset, OmniglotDataset, Places365Dataset, RenderedSST2Dataset, SBUDataset, SemeionDataset, SUN397Dataset, USPSDataset)  # noqa: F401
from .readers.annotated_sets import (CityscapesDataset, DIV2KDataset, FlickrDataset, KITTIDataset, LFWDataset, LSUNDataset, PhotoTourDataset, WIDERFaceDataset)  # noqa: F401
from .readers.text_sets import CLUEDataset, IWSLT2016Dataset, IWSLT2017Dataset  # noqa: F401
from .readers import SBDataset, TedliumDataset  # noqa: F401
from .readers.text_files import Shuffle  # noqa: F401
from .schema import Schema  # noqa: F401
from .helpers import (AudioBaseDataset, MappableDataset, ShuffleToShuffleMode, SourceDataset,  # noqa: F401
                      TextBaseDataset, UnionBaseDataset, VisionBaseDataset, flatten_single_lists, replace_none,
                      shuffle_to_shuffle_mode, to_list)
from .config import (ErrorSamplesMode, get_debug_mode, get_enable_watchdog, get_error_samples_mode,  # noqa: F401
                     get_multiprocessing_start_method, get_multiprocessing_timeout_interval, get_video_backend,
                     set_video_backend)
from .callbacks import WaitedDSCallback  # noqa: F401
from .sync import BlockReleasePair  # noqa: F401
from .iterators import ITERATORS_LIST  # noqa: F401
from .engine_names import (DE_C_INTER_SENTENCEPIECE_MODE, MAX_METADATA_LENGTH, Enum, ExceptionHandler,  # noqa: F401
                           FuncWrapper, GeneratorType, Implementation, LineReader, SentencePieceModel, Tensor,
                           import_module, int_to_mstype, mstype_to_detype, mstype_to_int, select_sampler)
from .validators import (check_add_column, check_batch, check_bucket_batch_by_length, check_concat,  # noqa: F401
                         check_device_send, check_dict_iterator, check_filter, check_iterator_cleanup, check_map,
                         check_output_shape, check_padded_batch, check_project, check_recv, check_rename,
                         check_repeat, check_save, check_schema, check_send, check_shuffle, check_skip, check_split,
                         check_sync_update, check_sync_wait, check_take, check_to_device_send, check_total_batch,
                         check_tuple_iterator, check_zip, check_zip_dataset)
from .serializer import DeserializedDataset, compare, deserialize, serialize, show  # noqa: F401
from .vision import ToNumpy  # noqa: F401 — MindSpore's top level has it too
from . import transforms, vision  # noqa: F401,E402
from . import text  # noqa: F401,E402
from . import audio  # noqa: F401,E402

from ..unavailable import refuse  # noqa: E402

# MindSpore's names that need its C++ engine's services, cloud storage or its worker-process internals
_UNAVAILABLE = {
    ("a client of MindSpore's tensor cache server (cache_admin)",
     "msx has no cache server; drop cache= (readers refuse it), or keep decoded rows in memory with "
     "NumpySlicesDataset"): "DatasetCache",
    ("a hook of MindSpore's dataset debug mode", "call the map's transforms eagerly on one sample "
     "(vision.Resize((32, 32))(img)) to inspect each step"): "DebugHook",
    ("an iterator for MindSpore's parameter-server roles (MS_ROLE=MS_PSERVER/MS_SCHED)",
     "msx has no parameter server; iterate the dataset as usual"): "DummyIterator",
    ("MindSpore's offload of map transforms to the device", "keep the transforms in map"): (
        "GetOffloadModel OffloadToManualOffloadMode"),
    ("a reader of MindRecord files in Huawei OBS cloud storage", "download the files and read them with "
     "MindDataset"): "OBSMindDataset sync_wait_for_dataset",
    ("an internal of MindSpore's map/batch worker processes", "set python_multiprocessing=True on map; msx "
     "manages its workers"): "WorkerTarget close_worker worker_is_alive",
    ("MindRecord file encryption", "msx reads and writes plain MindRecord files (mindrecord.set_enc_key(None))"):
        "encrypt",
}
refuse(globals(), "mindspore.dataset", _UNAVAILABLE)
