"""Video files: read_video, read_video_timestamps, DecodeVideo and VideoDecoder, decoded by FFmpeg through PyAV
(an optional dependency: `pip install av`), as MindSpore decodes with its bundled FFmpeg. Frames are RGB uint8
(T, H, W, 3); audio is float32 (channels, samples) ((1, 0) without an audio stream). FFmpeg's YUV -> RGB
conversion options differ between the builds, so pixels can differ from MindSpore's by a few grey levels."""
from __future__ import annotations

import io
import os
from typing import Any, Sequence

import numpy as np

from ...errors import DatasetError
from .core import ImageTensorOperation


def _av() -> Any:
    try:
        import av  # optional: only the video functions need FFmpeg
    except ImportError:
        raise DatasetError("video decoding needs the 'av' package (PyAV, FFmpeg's bindings): pip install av") \
            from None
    return av


def _open(op: str, source: Any) -> Any:
    av = _av()
    if isinstance(source, (str, os.PathLike)):
        if not os.path.isfile(source):
            raise DatasetError(f"{op}: {os.fspath(source)!r} is not a file")
        target = os.fspath(source)
    else:
        array = np.asarray(source)
        if array.dtype != np.uint8 or array.ndim != 1:
            raise DatasetError(f"{op}: expected a path or the file's bytes (uint8, 1-D), got dtype {array.dtype} "
                               f"shape {list(array.shape)}")
        target = io.BytesIO(array.tobytes())
    try:
        return av.open(target)
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        raise DatasetError(f"{op}: cannot open the video: {exc}") from None


def _decode(op: str, source: Any, start: float, end: float | None, in_seconds: bool) -> tuple:
    av = _av()
    container = _open(op, source)
    try:
        if not container.streams.video:
            raise DatasetError(f"{op}: the file has no video stream")
        vstream = container.streams.video[0]
        frames, audio, audio_rate = [], [], None

        def inside(frame: Any, stream: Any) -> bool:
            t = frame.pts if frame.pts is not None else 0
            t = float(t * stream.time_base) if in_seconds else t
            return t >= start and (end is None or t <= end)
        streams = [vstream] + list(container.streams.audio[:1])
        for frame in container.decode(*streams):
            if isinstance(frame, av.VideoFrame):
                if inside(frame, vstream):
                    frames.append(frame.to_ndarray(format="rgb24"))
            elif inside(frame, container.streams.audio[0]):
                audio_rate = frame.sample_rate
                samples = frame.to_ndarray().astype(np.float32)
                audio.append(samples.reshape(len(frame.layout.channels), -1) if frame.format.is_planar else
                             samples.reshape(-1, len(frame.layout.channels)).T)
        h, w, fps = vstream.codec_context.height, vstream.codec_context.width, _fps(vstream)  # freed by close()
    except av.error.FFmpegError as exc:
        raise DatasetError(f"{op}: cannot decode the video: {exc}") from None
    finally:
        container.close()
    video = np.stack(frames) if frames else np.zeros((0, h, w, 3), np.uint8)
    sound = np.concatenate(audio, axis=1) if audio else np.zeros((1, 0), np.float32)
    meta = {"video_fps": fps}
    if audio_rate is not None:
        meta["audio_fps"] = float(audio_rate)
    return video, sound, meta


def _fps(stream: Any) -> float:
    return float(stream.average_rate) if stream.average_rate else 0.0  # a damaged stream may not say


def _unit(op: str, pts_unit: str) -> bool:
    if pts_unit not in ("pts", "sec"):
        raise DatasetError(f"{op}: pts_unit must be 'pts' or 'sec', got {pts_unit!r}")
    return pts_unit == "sec"


def read_video(filename: str, start_pts: float = 0, end_pts: float | None = None,
               pts_unit: str = "pts") -> tuple[np.ndarray, np.ndarray, dict]:
    """(frames, audio, {'video_fps', 'audio_fps'}) of the frames with start_pts <= pts <= end_pts (in the stream's
    time base, or seconds with `pts_unit='sec'`)."""
    in_seconds = _unit("read_video", pts_unit)
    if not isinstance(filename, (str, os.PathLike)):
        raise DatasetError(f"read_video: filename must be a path, got {type(filename).__name__}")
    return _decode("read_video", filename, float(start_pts), None if end_pts is None else float(end_pts), in_seconds)


def read_video_timestamps(filename: str, pts_unit: str = "pts") -> tuple[list, float]:
    """([the video frames' timestamps], fps), timestamps in the stream's time base or in seconds (MindSpore's
    seconds are float32-rounded, so they differ from these in the 8th digit)."""
    in_seconds = _unit("read_video_timestamps", pts_unit)
    container = _open("read_video_timestamps", filename)
    try:
        if not container.streams.video:
            raise DatasetError("read_video_timestamps: the file has no video stream")
        stream = container.streams.video[0]
        pts = sorted(p.pts for p in container.demux(stream) if p.pts is not None)
        fps, time_base = _fps(stream), stream.time_base  # read before close() frees the stream
    except _av().error.FFmpegError as exc:
        raise DatasetError(f"read_video_timestamps: cannot read the video: {exc}") from None
    finally:
        container.close()
    if in_seconds:
        return [float(p * time_base) for p in pts], fps
    return pts, fps


class DecodeVideo(ImageTensorOperation):
    """A video file's bytes (uint8, 1-D) -> (frames (T, H, W, 3) uint8, audio (channels, samples) float32)."""

    def __call__(self, video: Any) -> tuple[np.ndarray, np.ndarray]:
        frames, audio, _ = _decode("DecodeVideo", video, 0.0, None, False)
        return frames, audio


class VideoDecoder:
    """A video file opened for random access: `metadata` (width, height, duration_seconds, num_frames,
    average_fps) and `get_frames_at(indices)` (MindSpore has it on Ascend only; msx decodes on the CPU)."""

    def __init__(self, source: str) -> None:
        self.source = source
        container = _open("VideoDecoder", source)
        try:
            if not container.streams.video:
                raise DatasetError("VideoDecoder: the file has no video stream")
            stream = container.streams.video[0]
            self._frames = [f.to_ndarray(format="rgb24") for f in container.decode(stream)]
            fps = _fps(stream)
            self.metadata = {"width": stream.codec_context.width, "height": stream.codec_context.height,
                             "duration_seconds": round(len(self._frames) / fps, 6) if fps else 0.0,
                             "num_frames": len(self._frames), "average_fps": fps}
        except _av().error.FFmpegError as exc:
            raise DatasetError(f"VideoDecoder: cannot decode the video: {exc}") from None
        finally:
            container.close()

    def get_frames_at(self, indices: Sequence[int]) -> np.ndarray:
        """The frames at `indices`, (N, H, W, 3) uint8."""
        idx = list(indices)
        bad = [i for i in idx if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or
               not 0 <= i < len(self._frames)]
        if bad:
            raise DatasetError(f"VideoDecoder.get_frames_at: indices {bad} are outside [0, {len(self._frames)})")
        return np.stack([self._frames[i] for i in idx]) if idx else \
            np.zeros((0, self.metadata["height"], self.metadata["width"], 3), np.uint8)
