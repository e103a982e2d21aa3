"""`msx.dataset.audio`: MindSpore's audio transforms (`mindspore.dataset.audio`) on numpy waveforms (..., time)
and spectrograms (..., freq, time): filters, effects, spectral features, masks and resampling, as torchaudio
and MindSpore define them (numpy and scipy.signal compute them; results are float32)."""
from __future__ import absolute_import  # noqa: F401 (MindSpore's module exports this name too)

from .common import AudioTensorOperation, BorderType, WindowType  # noqa: F401
from .effects import (Contrast, DCShift, DensityFunction, Dither, Fade, FadeShape, Flanger, Gain,  # noqa: F401
                      GainType, Interpolation, Modulation, MuLawDecoding, MuLawEncoding, Overdrive, Phaser, Vol)
from .features import DetectPitchFrequency, SlidingWindowCmn  # noqa: F401
from .filterbanks import MelType, NormMode, NormType, create_dct, linear_fbanks, melscale_fbanks  # noqa: F401
from .filters import (AllpassBiquad, BandBiquad, BandpassBiquad, BandrejectBiquad, BassBiquad, Biquad,  # noqa: F401
                      DeemphBiquad, EqualizerBiquad, Filtfilt, HighpassBiquad, LFilter, LowpassBiquad, RiaaBiquad,
                      TrebleBiquad)
from .masking import FrequencyMasking, MaskAlongAxis, MaskAlongAxisIID, TimeMasking  # noqa: F401
from .resample import PitchShift, Resample, ResampleMethod  # noqa: F401
from .vad import Vad  # noqa: F401
from .spectral import (LFCC, MFCC, AmplitudeToDB, Angle, ComplexNorm, ComputeDeltas, DBToAmplitude,  # noqa: F401
                       GriffinLim, InverseMelScale, InverseSpectrogram, Magphase, MelScale, MelSpectrogram, PhaseVocoder, ScaleType,
                       SpectralCentroid, Spectrogram, TimeStretch)
