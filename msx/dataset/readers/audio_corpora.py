"""Speech corpora in their published layouts, read from local WAV files (stdlib `wave`, PCM 8/16/32-bit; samples
scaled by the format's largest value, 32767 for 16-bit, as MindSpore's reader). Every row's `waveform` is float32
(channels, samples) and `sample_rate` int32.

* LJSpeech (`LJSpeech-1.1`): `dataset_dir/metadata.csv` lines `id|transcription|normalized transcription` and
  `dataset_dir/wavs/<id>.wav`; columns waveform, sample_rate, transcription, normalized_transcription, in the
  file's order.
* YesNo (`waves_yesno`): `dataset_dir/<8 digits joined by _>.wav`; columns waveform, sample_rate, label (int32, the
  8 digits), files in name order (MindSpore: the directory's order).
* SpeechCommands: `dataset_dir/<label>/<speaker>_nohash_<n>.wav` with `testing_list.txt` and
  `validation_list.txt`; usage test / valid (the listed files), train (the rest), all; `_background_noise_` is
  not read. Columns waveform, sample_rate, label, speaker_id (strings), utterance_number (int32), in path order.
* CMUArctic: `dataset_dir/cmu_us_<name>_arctic/etc/txt.done.data` (lines `( arctic_a0001 "text" )`) and
  `.../wav/<id>.wav`; columns waveform, sample_rate, transcript, utterance_id (`a0001`), in the file's order.
* LibriTTS: `dataset_dir/<usage>/<speaker>/<chapter>/<speaker>_<chapter>.trans.tsv` (lines `utterance\toriginal\t
  normalized`) beside the WAVs; columns waveform, sample_rate, original_text, normalized_text, speaker_id,
  chapter_id (uint32), utterance_id; parts, speakers and chapters in name order.
* GTZAN: `dataset_dir/<genre>/<genre>.000NN.wav`; columns waveform, sample_rate, label (the genre); usage 'all'
  only (MindSpore's train/valid/test use the filtered split lists, which msx does not ship: a clear error).
"""
from __future__ import annotations

import os
import re
import wave
from typing import Any

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource
from .common import check_dir, reader_prelude

_PCM = {1: (np.uint8, 127.0), 2: (np.dtype("<i2"), 32767.0), 4: (np.dtype("<i4"), 2147483647.0)}


def read_wav(where: str, path: str) -> tuple[np.ndarray, int]:
    """(float32 (channels, samples), sample rate) of a PCM WAV file; anything else is a DatasetError naming it."""
    try:
        with wave.open(path, "rb") as w:
            channels, width, rate, frames = w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()
            if width not in _PCM:
                raise DatasetError(f"{where}: {path!r} has {8 * width}-bit samples; PCM 8, 16 or 32-bit is read")
            data = w.readframes(frames)
    except (OSError, EOFError, wave.Error) as exc:
        raise DatasetError(f"{where}: cannot read the WAV file {path!r}: {exc}") from None
    dtype, scale = _PCM[width]
    samples = np.frombuffer(data[:len(data) - len(data) % (width * channels)], dtype).astype(np.float64)
    if width == 1:
        samples = samples - 128
    return (samples.reshape(-1, channels).T / scale).astype(np.float32), rate


class _WavRows(MappableSource):
    """Rows of (wav path, other columns...), the WAV read when the row is."""

    rate_dtype: Any = np.int32  # MindSpore's sample_rate column type differs between the readers

    def __init__(self, where: str, names: list[str], rows: list[tuple], num_samples: Any, shuffle: Any, sampler: Any,
                 num_shards: Any, shard_id: Any, num_parallel_workers: Any) -> None:
        self._rows = rows
        super().__init__(where, names, num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)

    def _length(self) -> int:
        return len(self._rows)

    def _row(self, index: int) -> Row:
        path, *rest = self._rows[index]
        waveform, rate = read_wav(self._where, path)
        return (waveform, np.array(rate, self.rate_dtype)) + tuple(np.array(v, np.int32) if type(v) is int else
                                                            np.asarray(v) for v in rest)


class LJSpeechDataset(_WavRows):
    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        where = "LJSpeechDataset"
        root = check_dir(where, dataset_dir)
        meta = os.path.join(root, "metadata.csv")
        try:
            with open(meta, encoding="utf-8") as f:
                lines = [line.rstrip("\n") for line in f if line.strip()]
        except (OSError, UnicodeDecodeError) as exc:
            raise DatasetError(f"{where}: cannot read {meta!r} ({exc}); LJSpeech's layout is "
                               f"<dataset_dir>/metadata.csv and <dataset_dir>/wavs/<id>.wav") from None
        rows = []
        for number, line in enumerate(lines, 1):
            parts = line.split("|")
            if len(parts) != 3:
                raise DatasetError(f"{where}: line {number} of {meta!r} is not 'id|transcription|normalized'")
            rows.append((os.path.join(root, "wavs", parts[0] + ".wav"), parts[1], parts[2]))
        super().__init__(where, ["waveform", "sample_rate", "transcription", "normalized_transcription"], rows,
                         num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)


class YesNoDataset(_WavRows):
    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        where = "YesNoDataset"
        root = check_dir(where, dataset_dir)
        rows = []
        for name in sorted(os.listdir(root)):
            stem, ext = os.path.splitext(name)
            digits = stem.split("_")
            if ext != ".wav" or len(digits) != 8 or not all(d in ("0", "1") for d in digits):
                continue
            rows.append((os.path.join(root, name), np.array([int(d) for d in digits], np.int32)))
        super().__init__(where, ["waveform", "sample_rate", "label"], rows, num_samples, shuffle, sampler,
                         num_shards, shard_id, num_parallel_workers)


class SpeechCommandsDataset(_WavRows):
    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "SpeechCommandsDataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "test", "valid", "all"))
        lists = {}
        for part, name in (("test", "testing_list.txt"), ("valid", "validation_list.txt")):
            path = os.path.join(root, name)
            if usage != "all" and not os.path.isfile(path):
                raise DatasetError(f"{where}: {path!r} does not exist (usage {usage!r} needs it)")
            lists[part] = set(open(path).read().split()) if os.path.isfile(path) else set()
        rows = []
        for label in sorted(os.listdir(root)):
            folder = os.path.join(root, label)
            if label == "_background_noise_" or not os.path.isdir(folder):
                continue
            for name in sorted(os.listdir(folder)):
                if not name.endswith(".wav"):
                    continue
                rel = f"{label}/{name}"
                part = "test" if rel in lists["test"] else "valid" if rel in lists["valid"] else "train"
                if usage not in ("all", part):
                    continue
                speaker, _, number = name[:-4].partition("_nohash_")
                if not number.isdigit():
                    raise DatasetError(f"{where}: {rel!r} is not named <speaker>_nohash_<n>.wav")
                rows.append((os.path.join(folder, name), label, speaker, int(number)))
        super().__init__(where, ["waveform", "sample_rate", "label", "speaker_id", "utterance_number"], rows,
                         num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)



_CMU_NAMES = ("aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem", "gka", "jmk", "ksp", "ljm", "lnh", "rms",
              "rxr", "slp", "slt")


class CMUArcticDataset(_WavRows):
    rate_dtype = np.uint32

    def __init__(self, dataset_dir: str, name: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "CMUArcticDataset"
        root = check_dir(where, dataset_dir)
        name = "aew" if name is None else name
        if name not in _CMU_NAMES:
            raise DatasetError(f"{where}: name must be one of {list(_CMU_NAMES)}, got {name!r}")
        base = os.path.join(root, f"cmu_us_{name}_arctic")
        labels = os.path.join(base, "etc", "txt.done.data")
        try:
            with open(labels, encoding="utf-8") as f:
                lines = [line.strip() for line in f if line.strip()]
        except (OSError, UnicodeDecodeError) as exc:
            raise DatasetError(f"{where}: cannot read {labels!r} ({exc}); CMU Arctic's layout is "
                               f"<dataset_dir>/cmu_us_<name>_arctic/etc/txt.done.data and .../wav/*.wav") from None
        rows = []
        for number, line in enumerate(lines, 1):
            m = re.fullmatch(r'\(\s*(\S+)\s+"(.*)"\s*\)', line)
            if m is None:
                raise DatasetError(f"{where}: line {number} of {labels!r} is not '( id \"text\" )'")
            utterance = m.group(1)
            rows.append((os.path.join(base, "wav", utterance + ".wav"), m.group(2), utterance.replace("arctic_", "", 1)))
        super().__init__(where, ["waveform", "sample_rate", "transcript", "utterance_id"], rows, num_samples,
                         shuffle, sampler, num_shards, shard_id, num_parallel_workers)


_LIBRITTS_PARTS = ("dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100", "train-clean-360",
                   "train-other-500")


class LibriTTSDataset(_WavRows):
    rate_dtype = np.uint32

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "LibriTTSDataset"
        root, usage = reader_prelude(where, dataset_dir, usage, _LIBRITTS_PARTS + ("all",))
        rows = []
        for part in (_LIBRITTS_PARTS if usage == "all" else (usage,)):
            part_dir = os.path.join(root, part)
            if not os.path.isdir(part_dir):
                if usage == "all":
                    continue
                raise DatasetError(f"{where}: {part_dir!r} does not exist")
            for speaker in sorted(os.listdir(part_dir)):
                for chapter in sorted(os.listdir(os.path.join(part_dir, speaker))):
                    folder = os.path.join(part_dir, speaker, chapter)
                    tsv = os.path.join(folder, f"{speaker}_{chapter}.trans.tsv")
                    if not os.path.isfile(tsv):
                        continue
                    with open(tsv, encoding="utf-8") as f:
                        for number, line in enumerate(f, 1):
                            fields = line.rstrip("\n").split("\t")
                            if len(fields) != 3 or not speaker.isdigit() or not chapter.isdigit():
                                raise DatasetError(f"{where}: line {number} of {tsv!r} is not "
                                                   f"'utterance<TAB>original<TAB>normalized'")
                            rows.append((os.path.join(folder, fields[0] + ".wav"), fields[1], fields[2],
                                         np.uint32(speaker), np.uint32(chapter), fields[0]))
        super().__init__(where, ["waveform", "sample_rate", "original_text", "normalized_text", "speaker_id",
                                 "chapter_id", "utterance_id"], rows, num_samples, shuffle, sampler, num_shards,
                         shard_id, num_parallel_workers)


class GTZANDataset(_WavRows):
    rate_dtype = np.uint32

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        where = "GTZANDataset"
        root, usage = reader_prelude(where, dataset_dir, usage, ("train", "valid", "test", "all"))
        if usage != "all":
            raise DatasetError(f"{where}: usage {usage!r} needs the filtered GTZAN split lists, which msx does not "
                               f"ship; read usage='all' and split it (Dataset.split)")
        rows = [(os.path.join(root, genre, name), genre) for genre in sorted(os.listdir(root))
                if os.path.isdir(os.path.join(root, genre))
                for name in sorted(os.listdir(os.path.join(root, genre))) if name.endswith(".wav")]
        super().__init__(where, ["waveform", "sample_rate", "label"], rows, num_samples, shuffle, sampler,
                         num_shards, shard_id, num_parallel_workers)
