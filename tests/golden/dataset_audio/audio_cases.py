"""Audio transforms written once against the `mindspore.dataset.audio` API: make_golden.py records MindSpore 2.10's
outputs (ms210.json), tests/test_dataset_audio.py compares msx's on the same waveforms (float tolerances: MindSpore
computes in float32)."""
import numpy as np

RNG = np.random.default_rng(11)
WAVE = (RNG.uniform(-0.8, 0.8, (2, 48))).astype(np.float32)          # 2 channels, 48 samples
LONG = np.sin(np.arange(400) * 0.07).astype(np.float32) * 0.5 + RNG.normal(0, 0.05, 400).astype(np.float32)
SPEC = RNG.uniform(0.01, 2.0, (2, 9, 7)).astype(np.float32)         # (channel, freq, time)
COMPLEX = RNG.normal(0, 1, (9, 6, 2)).astype(np.float32)             # (freq, time, re/im)
RNG_SPEC = np.random.default_rng(12)


def out(value):
    if isinstance(value, (list, tuple)):
        return [out(v) for v in value]
    a = np.asarray(value)
    return {"dtype": str(a.dtype), "shape": list(a.shape), "value": a.astype(np.float64).round(6).tolist()}


# ---------------------------------------------------------------- filters

def case_biquad(a, tmp):
    return out(a.Biquad(0.4, 0.2, 0.1, 1.0, -0.3, 0.2)(WAVE))


def case_allpass(a, tmp):
    return out(a.AllpassBiquad(8000, 1200.0, 0.9)(WAVE))


def case_band(a, tmp):
    return out(a.BandBiquad(8000, 900.0, 0.8)(WAVE))


def case_band_noise(a, tmp):
    return out(a.BandBiquad(8000, 900.0, 0.8, True)(WAVE))


def case_bandpass(a, tmp):
    return out(a.BandpassBiquad(8000, 1500.0, 0.9)(WAVE))


def case_bandpass_skirt(a, tmp):
    return out(a.BandpassBiquad(8000, 1500.0, 0.6, True)(WAVE))


def case_bandreject(a, tmp):
    return out(a.BandrejectBiquad(8000, 700.0)(WAVE))


def case_bass(a, tmp):
    return out(a.BassBiquad(8000, 6.0, 200.0)(WAVE))


def case_treble(a, tmp):
    return out(a.TrebleBiquad(8000, -4.0, 2500.0, 0.6)(WAVE))


def case_equalizer(a, tmp):
    return out(a.EqualizerBiquad(8000, 1000.0, 5.0, 0.9)(WAVE))


def case_highpass(a, tmp):
    return out(a.HighpassBiquad(8000, 600.0)(WAVE))


def case_lowpass(a, tmp):
    return out(a.LowpassBiquad(8000, 600.0, 0.5)(WAVE))


def case_deemph(a, tmp):
    return out(a.DeemphBiquad(44100)(WAVE))


def case_riaa(a, tmp):
    return out(a.RiaaBiquad(48000)(WAVE))


def case_lfilter(a, tmp):
    return out(a.LFilter([1.0, -0.5, 0.1], [0.3, 0.4, 0.3])(WAVE))


def case_lfilter_noclamp(a, tmp):
    return out(a.LFilter([1.0, -0.9], [2.0, 1.5], False)(WAVE))


def case_filtfilt(a, tmp):
    return out(a.Filtfilt([1.0, -0.5, 0.1], [0.3, 0.4, 0.3])(WAVE))


# ---------------------------------------------------------------- amplitude effects

def case_gain(a, tmp):
    return out(a.Gain(3.5)(WAVE))


def case_vol_amplitude(a, tmp):
    return out(a.Vol(1.8)(WAVE))


def case_vol_db(a, tmp):
    return out(a.Vol(-6.0, a.GainType.DB)(WAVE))


def case_vol_power(a, tmp):
    return out(a.Vol(2.5, a.GainType.POWER)(WAVE))


def case_dc_shift(a, tmp):
    return out(a.DCShift(0.3)(WAVE))


def case_dc_shift_limiter(a, tmp):
    return out(a.DCShift(0.4, 0.05)(WAVE))


def case_dc_shift_limiter_neg(a, tmp):
    return out(a.DCShift(-0.4, 0.05)(WAVE))


def case_contrast(a, tmp):
    return out(a.Contrast(60.0)(WAVE))


def case_overdrive(a, tmp):
    return out(a.Overdrive(15.0, 30.0)(WAVE))


def case_fade_linear(a, tmp):
    return out(a.Fade(10, 7)(WAVE))


def case_fade_shapes(a, tmp):
    return [out(a.Fade(12, 9, shape)(WAVE)) for shape in (a.FadeShape.QUARTER_SINE, a.FadeShape.HALF_SINE,
                                                          a.FadeShape.LOGARITHMIC, a.FadeShape.EXPONENTIAL)]


def case_mu_law_encode(a, tmp):
    return out(a.MuLawEncoding(64)(WAVE))


def case_mu_law_decode(a, tmp):
    return out(a.MuLawDecoding(64)(np.arange(0, 64, 5, dtype=np.int32)))


# ---------------------------------------------------------------- spectra

def case_spectrogram(a, tmp):
    return out(a.Spectrogram(n_fft=16, hop_length=4)(WAVE))


def case_spectrogram_options(a, tmp):
    return out(a.Spectrogram(n_fft=12, win_length=10, hop_length=5, pad=2, window=a.WindowType.HAMMING, power=1.0,
                             normalized=True, center=True, pad_mode=a.BorderType.CONSTANT)(WAVE))


def case_spectrogram_nocenter(a, tmp):
    return out(a.Spectrogram(n_fft=16, hop_length=8, center=False, window=a.WindowType.BLACKMAN)(WAVE))


def case_spectrogram_windows(a, tmp):
    return [out(a.Spectrogram(n_fft=10, hop_length=6, window=w)(WAVE[0])) for w in
            (a.WindowType.BARTLETT, a.WindowType.KAISER)]


def case_melscale_fbanks(a, tmp):
    return out(a.melscale_fbanks(9, 0.0, 4000.0, 5, 8000))


def case_melscale_fbanks_slaney(a, tmp):
    return out(a.melscale_fbanks(9, 100.0, 3500.0, 4, 8000, a.NormType.SLANEY, a.MelType.SLANEY))


def case_linear_fbanks(a, tmp):
    return out(a.linear_fbanks(9, 0.0, 4000.0, 4, 8000))


def case_create_dct(a, tmp):
    return [out(a.create_dct(4, 6)), out(a.create_dct(3, 5, a.NormMode.ORTHO))]


def case_mel_scale(a, tmp):
    return out(a.MelScale(4, 8000, 0.0, None, 9)(SPEC))


def case_mel_spectrogram(a, tmp):
    return out(a.MelSpectrogram(8000, n_fft=16, hop_length=4, n_mels=5)(WAVE))


def case_mel_spectrogram_slaney(a, tmp):
    return out(a.MelSpectrogram(8000, n_fft=16, hop_length=6, n_mels=4, f_min=50.0, power=1.0,
                                norm=a.NormType.SLANEY, mel_scale=a.MelType.SLANEY)(WAVE))


def _mel(a, **kw):
    args = {"n_fft": 16, "win_length": 16, "hop_length": 4, "f_min": 0.0, "f_max": 4000.0, "pad": 0, "n_mels": 6,
            "window": a.WindowType.HANN, "power": 2.0, "normalized": False, "center": True,
            "pad_mode": a.BorderType.REFLECT, "onesided": True, "norm": a.NormType.NONE, "mel_scale": a.MelType.HTK}
    args.update(kw)
    return args


def case_mfcc(a, tmp):
    return out(a.MFCC(8000, n_mfcc=4, melkwargs=_mel(a))(WAVE))


def case_mfcc_log(a, tmp):
    return out(a.MFCC(8000, n_mfcc=3, log_mels=True, norm=a.NormMode.NONE,
                      melkwargs=_mel(a, hop_length=8, n_mels=5))(WAVE))


def case_lfcc(a, tmp):
    spec = {"n_fft": 16, "win_length": 16, "hop_length": 4, "pad": 0, "window": a.WindowType.HANN, "power": 2.0,
            "normalized": False, "center": True, "pad_mode": a.BorderType.REFLECT, "onesided": True}
    return out(a.LFCC(8000, n_filter=6, n_lfcc=4, speckwargs=spec)(WAVE))


def case_lfcc_log(a, tmp):
    spec = {"n_fft": 16, "win_length": 16, "hop_length": 8, "pad": 0, "window": a.WindowType.HAMMING, "power": 2.0,
            "normalized": False, "center": True, "pad_mode": a.BorderType.REFLECT, "onesided": True}
    return out(a.LFCC(8000, n_filter=5, n_lfcc=3, f_min=100.0, log_lf=True, speckwargs=spec)(WAVE))


def case_amplitude_to_db(a, tmp):
    return out(a.AmplitudeToDB()(SPEC))


def case_amplitude_to_db_mag(a, tmp):
    return out(a.AmplitudeToDB(a.ScaleType.MAGNITUDE, 2.0, 1e-4, 10.0)(SPEC))


def case_db_to_amplitude(a, tmp):
    return out(a.DBToAmplitude(0.5, 0.7)(SPEC))


def case_complex_norm(a, tmp):
    return out(a.ComplexNorm(1.5)(COMPLEX))


def case_angle(a, tmp):
    return out(a.Angle()(COMPLEX))


def case_magphase(a, tmp):
    return out(a.Magphase(2.0)(COMPLEX))


def case_compute_deltas(a, tmp):
    return out(a.ComputeDeltas()(SPEC))


def case_compute_deltas_win(a, tmp):
    return out(a.ComputeDeltas(3, a.BorderType.REFLECT)(SPEC))


def case_spectral_centroid(a, tmp):
    return out(a.SpectralCentroid(8000, n_fft=16, hop_length=4)(WAVE))


def case_time_stretch(a, tmp):
    return out(a.TimeStretch(4, 9, 1.3)(COMPLEX))


def case_phase_vocoder(a, tmp):
    advance = np.linspace(0, np.pi * 4, 9, dtype=np.float32)[:, None]
    return out(a.PhaseVocoder(0.8, advance)(COMPLEX))


def case_inverse_spectrogram(a, tmp):
    spec = RNG_SPEC.normal(0, 1, (2, 9, 13, 2)).astype(np.float32)
    return out(a.InverseSpectrogram(length=48, n_fft=16, hop_length=4)(spec))


def case_griffin_lim(a, tmp):
    spec = np.asarray(a.Spectrogram(n_fft=16, hop_length=4)(LONG[:64]))
    return out(a.GriffinLim(n_fft=16, n_iter=4, hop_length=4, rand_init=False)(spec))


# ---------------------------------------------------------------- masks

def case_mask_along_axis_time(a, tmp):
    return out(a.MaskAlongAxis(2, 3, 9.0, 2)(SPEC))


def case_mask_along_axis_freq(a, tmp):
    return out(a.MaskAlongAxis(1, 4, -1.0, 1)(SPEC))


def case_time_masking_zero(a, tmp):
    return out(a.TimeMasking(False, 0)(SPEC))


def case_frequency_masking_props(a, tmp):
    got = np.asarray(a.FrequencyMasking(False, 3, 2, 0.0)(SPEC))
    masked = np.all(got == 0, axis=(0, 2))
    return {"shape": list(got.shape), "rows_masked_at_most_3": int(masked.sum()) <= 3,
            "mask_starts_at_2": bool(not masked.any() or np.flatnonzero(masked)[0] == 2)}


def case_mask_iid_props(a, tmp):
    got = np.asarray(a.MaskAlongAxisIID(3, 5.0, 2)(SPEC))
    masked = np.all(got == 5.0, axis=1)
    return {"shape": list(got.shape), "width_at_most_3": bool(masked.sum(axis=1).max() <= 3)}


# ---------------------------------------------------------------- resampling and the rest

def case_resample_down(a, tmp):
    return out(a.Resample(16000, 12000)(WAVE))


def case_resample_up(a, tmp):
    return out(a.Resample(8000, 11025, lowpass_filter_width=4)(WAVE[0]))


def case_resample_kaiser(a, tmp):
    return out(a.Resample(48000, 32000, a.ResampleMethod.KAISER_WINDOW, 5, 0.95, 12.0)(WAVE))


def case_sliding_window_cmn(a, tmp):
    return out(a.SlidingWindowCmn(4, 2)(SPEC[0]))


def case_sliding_window_cmn_center_vars(a, tmp):
    return out(a.SlidingWindowCmn(5, 3, True, True)(SPEC[0]))


def case_detect_pitch(a, tmp):
    t = np.arange(4000) / 8000
    wave = (0.5 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
    return out(a.DetectPitchFrequency(8000, 0.02, 5, 85, 3400)(wave))


def case_dither_props(a, tmp):
    got = np.asarray(a.Dither()(WAVE))
    return {"shape": list(got.shape), "dtype": str(got.dtype), "close": bool(np.abs(got - WAVE).max() < 1e-3)}


def case_flanger(a, tmp):
    return out(a.Flanger(8000, 1.0, 3.0, 20.0, 60.0, 2.0, 40.0)(WAVE))


def case_flanger_triangle_quadratic(a, tmp):
    return out(a.Flanger(8000, modulation=a.Modulation.TRIANGULAR, interpolation=a.Interpolation.QUADRATIC)(WAVE))


def case_phaser(a, tmp):
    return out(a.Phaser(8000, 0.5, 0.8, 2.0, 0.5, 1.5)(WAVE))


def case_phaser_triangle(a, tmp):
    return out(a.Phaser(8000, sinusoidal=False)(WAVE[0]))


def case_pitch_shift(a, tmp):
    return out(a.PitchShift(1000, 3, n_fft=64)(LONG[:300]))


def case_pitch_shift_down(a, tmp):
    return out(a.PitchShift(1000, -2, 12, 32, 24, 6, a.WindowType.HAMMING)(np.stack([LONG[:200], LONG[100:300]])))


def case_inverse_mel_scale_props(a, tmp):
    spec = np.asarray(a.Spectrogram(n_fft=16, hop_length=8)(LONG[:64]))            # (9, 9)
    mel = np.asarray(a.MelScale(6, 8000, n_stft=9)(spec))
    back = np.asarray(a.InverseMelScale(9, 6, 8000, max_iter=2000)(mel))
    again = np.asarray(a.MelScale(6, 8000, n_stft=9)(back))
    return {"shape": list(back.shape), "dtype": str(back.dtype), "non_negative": bool((back >= 0).all()),
            "mel_close": bool(np.abs(again - mel).max() <= 0.05 * np.abs(mel).max())}


# ---------------------------------------------------------------- voice activity detection (sample rate 1000 Hz)

VAD_RNG = np.random.default_rng(34)
VAD_NOISE = VAD_RNG.normal(0, 0.05, 1500).astype(np.float32)                  # stationary: never triggers
_T = np.arange(2400) / 4000.0                                                  # 0.6 s of a 150 Hz voiced sound
VAD_VOICE = (0.3 * np.sin(np.pi * _T / 0.6) * sum(np.sin(2 * np.pi * 150 * k * _T) / k for k in range(1, 12)))
VAD_SPEECH = np.concatenate([VAD_RNG.normal(0, 1e-3, 2000), VAD_VOICE,               # at 4000 Hz: voice from 0.5 s
                             VAD_RNG.normal(0, 1e-3, 1600)]).astype(np.float32)       # to 1.1 s of 1.5 s


def kept(x, y):
    """How much of the waveform Vad kept, and whether it is the waveform's tail."""
    y = np.asarray(y)
    return {"kept": int(y.shape[-1]), "dtype": str(y.dtype), "tail": bool(np.array_equal(x[..., x.shape[-1] - y.shape[-1]:], y))}


def case_vad_noise(a, tmp):
    return out(a.Vad(1000)(VAD_NOISE))


def case_vad_noise_short_search(a, tmp):
    return out(a.Vad(1000, search_time=0.3, pre_trigger_time=0.05)(np.stack([VAD_NOISE, VAD_NOISE[::-1]])))


def case_vad_float64(a, tmp):
    return out(a.Vad(1000, search_time=0.2, measure_duration=0.05)(VAD_NOISE[:900].astype(np.float64)))


def case_vad_shorter_than_buffer(a, tmp):
    return out(a.Vad(1000)(VAD_NOISE[:600]))         # 600 of the 1100 samples SoX buffers: its last 500


def case_vad_tiny(a, tmp):
    return out(a.Vad(1000)(VAD_NOISE[:400]))         # under half the buffer: all of it


def case_vad_int_input(a, tmp):
    return out(a.Vad(1000, search_time=0.2)((VAD_NOISE[:500] * 1000).astype(np.int16)))


def case_vad_speech(a, tmp):
    return kept(VAD_SPEECH, a.Vad(4000, search_time=0.3)(VAD_SPEECH))


def case_vad_speech_reversed(a, tmp):                # the end trimmed: SoX's `reverse vad reverse`
    backwards = VAD_SPEECH[::-1].copy()
    return kept(backwards, a.Vad(4000, search_time=0.3)(backwards))


def case_vad_empty_spectrum(a, tmp):
    return out(a.Vad(1000, hp_filter_freq=900.0, lp_filter_freq=950.0)(VAD_NOISE))


def case_vad_empty_cepstrum(a, tmp):
    return out(a.Vad(1000, hp_lifter_freq=400.0, lp_lifter_freq=450.0)(VAD_NOISE))


def case_vad_noise_times(a, tmp):
    return out(a.Vad(1000, noise_up_time=0.01, noise_down_time=0.1)(VAD_NOISE))


def case_vad_negative_time(a, tmp):
    return out(a.Vad(1000, trigger_time=-0.1)(VAD_NOISE))


def case_vad_sample_rate(a, tmp):
    return out(a.Vad(0)(VAD_NOISE))


def case_vad_scalar(a, tmp):
    return out(a.Vad(1000)(np.float32(0.5)))
