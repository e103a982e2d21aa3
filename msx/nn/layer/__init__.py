"""`msx.nn` layers."""
from .activation import (CELU, ELU, GELU, GLU, FastGelu, Hardtanh, HShrink, HSigmoid, HSwish,  # noqa: F401
                         LeakyReLU, LogSigmoid, LogSoftmax, Mish, PReLU, ReLU, ReLU6, RReLU, SeLU, Sigmoid, SiLU,
                         Softmax, Softmax2d, Softmin, Softsign, SoftShrink, Tanh, Tanhshrink, Threshold,
                         get_activation)
from .basic import Dense, Dropout, Flatten, Identity, Linear  # noqa: F401
from .container import CellList, SequentialCell  # noqa: F401
from .embedding import Embedding  # noqa: F401
from .conv import Conv1d, Conv1dTranspose, Conv2d, Conv2dTranspose, Conv3d, Conv3dTranspose  # noqa: F401
from .basic import (ClipByNorm, Dropout1d, Dropout2d, Dropout3d, L1Regularizer, MatrixDiag,  # noqa: F401
                    MatrixDiagPart, MatrixSetDiag, Norm, OneHot, Roll, Tril, Triu, Unflatten, Upsample)
from .channel_shuffle import ChannelShuffle  # noqa: F401
from .container import CellDict  # noqa: F401
from .dense import BiDense  # noqa: F401
from .embedding import EmbeddingLookup  # noqa: F401
from .embedding_multi_field import MultiFieldEmbeddingLookup  # noqa: F401
from .image import CentralCrop, ImageGradients, PixelShuffle, PixelUnshuffle, PSNR  # noqa: F401
from .math import DiGamma, IGamma, LBeta, LGamma, MatDet, MatInverse, MatMul, Moments, Range, ReduceLogSumExp  # noqa: F401
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, InstanceNorm1d,  # noqa: F401
                            InstanceNorm2d, InstanceNorm3d, LayerNorm, LayerNormExt)
from .padding import (ConstantPad1d, ConstantPad2d, ConstantPad3d, Pad, ReflectionPad1d,  # noqa: F401
                      ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d,
                      ZeroPad2d)
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d,  # noqa: F401
                      AdaptiveMaxPool2d, AdaptiveMaxPool3d, AvgPool1d, AvgPool2d, AvgPool3d, LPPool1d, LPPool2d,
                      MaxPool1d, MaxPool2d, MaxPool3d)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell  # noqa: F401
from .transformer import (MultiheadAttention, Transformer, TransformerDecoder,  # noqa: F401
                          TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer)
from .timedistributed import TimeDistributed  # noqa: F401
# issue 32, third round: more of MindSpore's nn layers
from .activation import LogSoftmaxExt  # noqa: F401,E402
from .normalization import LRN  # noqa: F401,E402
from .combined import Conv2dBnAct, DenseBnAct  # noqa: F401,E402
from .sync_batchnorm import SyncBatchNorm  # noqa: F401,E402
from .unfold import Unfold  # noqa: F401,E402
from .unpool import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d  # noqa: F401,E402
from .fractional_pool import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: F401,E402
from .ext_layers import (AvgPool1dExt, AvgPool2dExt, AvgPool3dExt, Dropout2dExt, DropoutExt,  # noqa: F401,E402
                         EmbeddingExt, MaxPool2dExt, PReLUExt)
from .ssim import MSSSIM, SSIM  # noqa: F401,E402
from .sparse import SparseTensorDenseMatmul, SparseToDense  # noqa: F401,E402
