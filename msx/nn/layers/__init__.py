"""`msx.nn` layers."""
from .activation import (CELU, ELU, GELU, GLU, FastGelu, Hardtanh, HShrink, HSigmoid, HSwish,  # noqa: F401
                         LeakyReLU, LogSigmoid, LogSoftmax, Mish, PReLU, ReLU, ReLU6, RReLU, SeLU, Sigmoid, SiLU,
                         Softmax, Softmax2d, Softmin, Softsign, SoftShrink, Tanh, Tanhshrink, Threshold,
                         get_activation)
from .basic import Dense, Dropout, Embedding, Flatten, Identity, Linear  # noqa: F401
from .container import CellList, SequentialCell  # noqa: F401
from .conv import Conv1d, Conv1dTranspose, Conv2d, Conv2dTranspose, Conv3d, Conv3dTranspose  # noqa: F401
from .misc import (BiDense, CellDict, CentralCrop, ChannelShuffle, ClipByNorm, Dropout1d, Dropout2d,  # noqa: F401
                   Dropout3d, EmbeddingLookup, ImageGradients, L1Regularizer, MatMul, MatrixDiag, MatrixDiagPart,
                   MatrixSetDiag, Moments, Norm, OneHot, PixelShuffle, PixelUnshuffle, PSNR, Range, ReduceLogSumExp,
                   Roll, TimeDistributed, Tril, Triu, Unflatten, Upsample)
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
