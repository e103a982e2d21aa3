"""`TedliumDataset`: the TED-LIUM corpus (releases 1, 2, 3) in its published layout, segments cut from NIST SPHERE
audio by the STM transcripts.

* release1 / release2: `dataset_dir/<train|test|dev>/stm/<talk>.stm` and `.../sph/<talk>.sph`; usage train, test,
  dev or all (None: all). release3: `dataset_dir/data/stm/`, `data/sph/`, usage all only.
* An STM line is `<talk> <channel> <speaker> <start> <end> <identifier> <transcript...>` (single spaces; the
  transcript is the rest of the line); each line is a row.
* A SPHERE file is a text header (`NIST_1A`, its size — 1024 — then `name -type value` lines up to `end_head`)
  and 16-bit PCM samples (`sample_byte_format` 10: big-endian, 01: little-endian); `sample_rate` comes from the
  header. Compressed (shorten) files are refused with a clear error.

Rows are ordered as MindSpore 2.10 orders them: by (line number as text, talk, usage), so every talk's first line
comes first. Columns: `waveform` float32 (1, n) — the samples from `int(start * rate)` to `int(end * rate)`,
divided by 32767 — `sample_rate` int32, `transcript`, `talk_id`, `speaker_id`, `identifier` (strings).

MindSpore 2.10's reader returns zeros for every waveform (it decodes a buffer it never reads into); msx returns
the segment's samples, with the same shape and dtype. Every file is untrusted: a line, header or segment that does
not fit is a DatasetError naming the file.
"""
from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from ...errors import DatasetError
from ..pipeline import Row
from ..sources import MappableSource
from .common import check_dir, listdir_sorted, read_lines

_RELEASES = {"release1": ("train", "test", "dev"), "release2": ("train", "test", "dev"), "release3": ("data",)}
_WHERE = "TedliumDataset"


def _stm_lines(path: str) -> list[list[str]]:
    """The lines of an STM file as 7 fields each (the last one the transcript)."""
    rows = []
    for number, line in enumerate(read_lines(_WHERE, path), 1):
        fields = line.split(" ", 6)
        try:
            ok = len(fields) == 7 and 0 <= float(fields[3]) <= float(fields[4]) < math.inf
        except ValueError:
            ok = False
        if not ok:
            raise DatasetError(f"{_WHERE}: {path!r} line {number} is not '<talk> <channel> <speaker> <start> <end> "
                               f"<identifier> <transcript>' (0 <= start <= end): {line[:80]!r}")
        rows.append(fields)
    return rows


def _sph_header(path: str, head: bytes) -> tuple[int, int, str]:
    """(header size, sample rate, numpy dtype of a sample) from the start of a NIST SPHERE file."""
    lines = head.split(b"\n")
    try:
        size = int(lines[1]) if lines[0] == b"NIST_1A" else 0
    except (ValueError, IndexError):
        size = 0
    end = head.find(b"end_head")
    if size < 16 or not 0 < end < size:
        raise DatasetError(f"{_WHERE}: {path!r} is not a NIST SPHERE file (no 'NIST_1A' header ending in end_head)")
    fields = {}
    for line in head[:end].decode("ascii", "replace").split("\n")[2:]:
        parts = line.split(None, 2)
        if len(parts) == 3:
            fields[parts[0]] = parts[2].strip()
    try:
        rate = int(fields["sample_rate"])
    except (KeyError, ValueError):
        raise DatasetError(f"{_WHERE}: {path!r}'s header has no integer sample_rate") from None
    coding, width = fields.get("sample_coding", "pcm"), fields.get("sample_n_bytes", "2")
    if coding != "pcm" or width != "2" or fields.get("channel_count", "1") != "1" or rate <= 0:
        raise DatasetError(f"{_WHERE}: {path!r} holds {fields.get('channel_count', '1')}-channel {coding} samples of "
                           f"{width} bytes at {rate} Hz; msx reads 16-bit mono PCM (decompress shorten files with "
                           f"sph2pipe)")
    return size, rate, ">i2" if fields.get("sample_byte_format", "10") != "01" else "<i2"


def read_sph_segment(path: str, start: float, end: float) -> tuple[np.ndarray, int]:
    """(int16 samples from `int(start * rate)` to `int(end * rate)`, sample rate) of a NIST SPHERE file of 16-bit
    mono PCM; only the header and the segment's bytes are read (a talk's file holds all of its segments)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
            size, rate, dtype = _sph_header(path, head)
            total = (os.fstat(f.fileno()).st_size - size) // 2
            begin, stop = int(start * rate), int(end * rate)
            if stop > total:
                raise DatasetError(f"{_WHERE}: {path!r} holds {total} samples; the segment {start}-{end} s ends at "
                                   f"sample {stop}")
            f.seek(size + 2 * begin)
            data = f.read(2 * (stop - begin))
    except OSError as exc:
        raise DatasetError(f"{_WHERE}: cannot read {path!r}: {exc.strerror}") from None
    return np.frombuffer(data, dtype), rate


class TedliumDataset(MappableSource):
    def __init__(self, dataset_dir: str, release: str, usage: str | None = None, extensions: str | None = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        if release not in _RELEASES:
            raise DatasetError(f"{_WHERE}: release must be one of {list(_RELEASES)}, got {release!r}")
        allowed = ("all",) if release == "release3" else ("train", "test", "dev", "all")
        usage = "all" if usage is None else usage
        if usage not in allowed:
            raise DatasetError(f"{_WHERE}: usage must be one of {list(allowed)} for {release}, got {usage!r}")
        if extensions not in (None, ".sph"):
            raise DatasetError(f"{_WHERE}: extensions must be '.sph' (the only format TED-LIUM ships), got "
                               f"{extensions!r}")
        self._root = check_dir(_WHERE, dataset_dir)
        parts = _RELEASES[release] if usage == "all" else (usage,)
        self._stm: dict[str, list[list[str]]] = {}
        entries = []
        for part in parts:
            folder = os.path.join(self._root, part, "stm")
            for name in listdir_sorted(_WHERE, folder, dirs=False):
                if name.endswith(".stm"):
                    path = os.path.join(folder, name)
                    self._stm[path] = _stm_lines(path)
                    entries += [(str(n), fields[0], part) for n, fields in enumerate(self._stm[path])]
        if not entries:
            raise DatasetError(f"{_WHERE}: no .stm transcripts under {self._root!r} for usage {usage!r}")
        self._entries = sorted(entries)
        super().__init__(_WHERE, ["waveform", "sample_rate", "transcript", "talk_id", "speaker_id", "identifier"],
                         num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)

    def _length(self) -> int:
        return len(self._entries)

    def _row(self, index: int) -> Row:
        number, talk, part = self._entries[index]
        stm = os.path.join(self._root, part, "stm", f"{talk}.stm")
        if stm not in self._stm:
            self._stm[stm] = _stm_lines(stm)
        lines = self._stm[stm]
        if int(number) >= len(lines):
            raise DatasetError(f"{_WHERE}: {stm!r} has {len(lines)} lines; a transcript names line {int(number) + 1}")
        talk_id, _, speaker, start, end, identifier, transcript = lines[int(number)]
        sph = os.path.join(self._root, part, "sph", f"{talk}.sph")
        samples, rate = read_sph_segment(sph, float(start), float(end))
        wave = (samples / 32767.0).astype(np.float32)[None]
        return (wave, np.array(rate, np.int32), np.array(transcript), np.array(talk_id), np.array(speaker),
                np.array(identifier))
