"""Checkpoints: MindSpore's `save_checkpoint` / `load_checkpoint` / `load_param_into_net`.

Three formats are written (`format=`) and read (told apart by the content):
MindSpore's protobuf `.ckpt` (the default, as in MindSpore 2.10, so a file
saved by msx loads in MindSpore), MindSpore's safetensors tagged `ms` (both in
`ms_checkpoint`) and msx's own (`format="msx"`, below), which adds what
MindSpore's formats lack: a SHA-256 of every entry and of the header (the
ckpt has only an optional CRC-32), the `requires_grad` flags (a ckpt's
Parameters load with `requires_grad=True`, as in MindSpore), and complex
dtypes (which the default refuses, naming the entry, instead of losing them).

msx's checkpoint is a plain safetensors file (readable by any safetensors tool),
keyed by `Parameter.name`, written atomically. Its metadata records the
format (`msx.checkpoint`, version 2), the msx version, each tensor's
SHA-256, which Parameters have `requires_grad`, and the SHA-256 of the whole
header (names, dtypes, shapes, offsets and the metadata itself); loading
checks them all, so a damaged file raises a `LoadError` instead of loading
wrong numbers or wrong flags. A safetensors file from elsewhere loads too
when it is recognised as such: untagged, or tagged by a known writer
(`pt`, `tf`, `flax`, `np`, `mlx`); any other tag is refused. Version-1 files
(msx 0.1.0, no header checksum) still load, with their exact key set checked.

Optimizer state is ordinary Parameters: save an optimizer (or a
`TrainOneStepCell` holding one) and load the dict back into it with
`load_param_into_net(optimizer, params)`.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable

import jax
import jax.numpy as jnp
import numpy as np

from . import ms_checkpoint, tensorfile
from .atomic import write_atomic
from .fileread import open_regular, read_exact
from .errors import (BadMagicError, ChecksumError, CheckpointError, FormatVersionError, MalformedFileError,
                     TruncatedFileError)
from .parallel import optimizer as parallel_optimizer
from .parallel import context as parallel_context
from .parallel import strategy_file
from .release import __version__
from .tensor import Parameter, Tensor
from .nn.cell import Cell

if TYPE_CHECKING:
    from .nn.cell import Cell

FORMAT = "msx.checkpoint"
FORMAT_VERSION = 2
_SUFFIXES = (".ckpt", ".safetensors")
HEADER_DIGEST = "header_sha256"
_PLACEHOLDER = f'"{HEADER_DIGEST}":"{"0" * 64}"'.encode()
# metadata keys (required, optional) of each format version: any other key is damage
_KEYS = {1: ({"format", "format_version", "sha256", "requires_grad"}, {"msx_version", "strings"}),
         2: ({"format", "format_version", "msx_version", "sha256", "requires_grad", "strings", HEADER_DIGEST}, set())}
_ALL_KEYS = set().union(*(r | o for r, o in _KEYS.values()))
# safetensors writers whose files load "as is" (no msx checks): torch, TensorFlow, flax, numpy, MLX
FOREIGN_TAGS = frozenset({"pt", "tf", "flax", "np", "mlx"})
MINDSPORE_CKPT = "mindspore.ckpt"  # CheckpointFile.writer of a MindSpore protobuf checkpoint


def _msx_version() -> str:
    return __version__


# ---------------------------------------------------------------- save
_async = {"thread": None, "error": None}  # the one checkpoint write in flight (MindSpore: one at a time)
_async_lock = threading.Lock()


def save_checkpoint(save_obj: Any, ckpt_file_name: str | os.PathLike, integrated_save: bool = True,
                    async_save: bool | str = False, append_dict: dict | None = None, enc_key: bytes | None = None,
                    enc_mode: str = "AES-GCM", choice_func: Callable[[str], bool] | None = None,
                    crc_check: bool = False, format: str = "ckpt", **kwargs: Any) -> None:
    """Save Parameters to `ckpt_file_name`, in msx's format or one of MindSpore's (MindSpore's arguments, in order).

    `save_obj`: a Cell (all its Parameters, optimizer state included when the
    Cell holds the optimizer), a list of Parameters, Cells or MindSpore's
    `{"name": ..., "data": ...}` dicts, or a dict `{name: Tensor}`.
    `append_dict`: extra entries (e.g. `epoch_num`): numbers and Tensors are
    stored as tensors, strings as strings (load_checkpoint returns them as str).
    `choice_func(name) -> bool` picks which of `save_obj`'s entries to keep
    (append_dict's are always kept, as in MindSpore).

    `format`: "ckpt" (the default, MindSpore's: its protobuf checkpoint, which
    MindSpore's `load_checkpoint` reads; `crc_check=True` appends its CRC-32),
    "safetensors" (MindSpore's safetensors, tagged "ms") - as in MindSpore, the
    name gets ".<format>" appended unless it ends with it - or "msx" (msx's
    safetensors with SHA-256 checksums, `requires_grad` and complex dtypes;
    ".ckpt" is appended unless the name ends in .ckpt or .safetensors). A
    dtype MindSpore's formats cannot hold (complex) is refused, naming the entry.
    `async_save` (True, "thread" or "process") returns once the values are
    copied and writes the file on a background thread (msx never forks: a
    process is a thread here); the next save waits for it, and
    `async_ckpt_thread_status()` says whether it still runs. `enc_key`
    (MindSpore's encryption) is refused. Every write is atomic.

    In a parallel job every rank writes the file it names (MindSpore's behaviour: give each rank its own
    directory); with `integrated_save` (the default) optimizer state sharded by the parallel optimizer is
    all-gathered into full tensors first — a collective, so every rank must call `save_checkpoint`.
    With `integrated_save=False` in a global-view run (SEMI_AUTO/AUTO_PARALLEL: the Parameters are laid out
    over the devices of the strategy mesh) each rank's own slices go to its own file, `<dir>/rank_<r>/<name>`,
    with the strategy file that says how they were cut (`strategy_ckpt_save_file`, else `<dir>/strategy.ckpt`);
    `msx.parallel.transform_checkpoints` / `load_distributed_checkpoint` read them back (docs/parallel.md).
    """
    path, remove_redundancy = _check_save_args(ckpt_file_name, format, async_save, enc_key, enc_mode, crc_check,
                                               kwargs)
    entries, texts = _collect(save_obj), {}
    if choice_func is not None:  # as in MindSpore, on save_obj's entries only: append_dict's are always kept
        entries = {k: v for k, v in entries.items() if choice_func(k)}
    if append_dict is not None and not isinstance(append_dict, dict):
        raise TypeError(f"save_checkpoint: append_dict must be a dict, got {type(append_dict).__name__}")
    for name, value in (append_dict or {}).items():
        if isinstance(value, str) and isinstance(name, str) and name not in entries:
            texts[name] = value
        elif isinstance(name, str) and isinstance(value, (bool, int, float, Tensor)):
            _add(entries, name, value if isinstance(value, Tensor) else Tensor(value), requires_grad=False)
        else:
            raise CheckpointError(f"save_checkpoint: append_dict entries must map a new str name to an int, float, "
                                  f"bool, str or Tensor, got {name!r}: {type(value).__name__}")
    trainable = sorted(k for k, (_, g) in entries.items() if g)
    mesh = None if integrated_save else strategy_file.mesh_of(t._data for t, _ in entries.values())
    if mesh is not None:   # a global-view run's Parameters: each rank's own slices, and the strategy file
        files = _distributed(entries, texts, append_dict, mesh, path, format, crc_check, remove_redundancy,
                             trainable)
    else:
        whole = parallel_optimizer.full_array if integrated_save else (lambda t: t._data)
        arrays = {name: np.asarray(whole(t)) for name, (t, _) in entries.items()}  # immutable: async-safe
        files = [(path, _serialize(_ordered(arrays, texts, append_dict), format, crc_check, remove_redundancy,
                                   trainable))]
    wait_async_save()
    if not async_save:
        for name, chunks in files:
            write_atomic(name, chunks)
        return
    files = [(name, list(chunks)) for name, chunks in files]  # serialized now: later steps cannot change them
    thread = threading.Thread(target=_write_in_background, args=(files,), name="msx-async-save-ckpt")
    with _async_lock:
        _async["thread"] = thread
    thread.start()


def _check_save_args(ckpt_file_name: Any, format: Any, async_save: Any, enc_key: Any, enc_mode: Any, crc_check: Any,
                     kwargs: dict) -> tuple[str, bool | None]:
    """The file name to write and `remove_redundancy`, after MindSpore's checks of save_checkpoint's arguments."""
    if format not in FORMATS:
        raise ValueError(f"save_checkpoint: format must be one of {', '.join(map(repr, FORMATS))}, got {format!r}")
    if not isinstance(async_save, (bool, str)) or (isinstance(async_save, str) and
                                                   async_save not in ("thread", "process")):
        raise ValueError(f"save_checkpoint: async_save must be a bool, 'thread' or 'process', got {async_save!r}")
    _check_types("save_checkpoint", crc_check=(crc_check, bool), enc_mode=(enc_mode, str))
    _refuse_encryption("save_checkpoint", "enc_key", enc_key)
    unknown = set(kwargs) - {"remove_redundancy", "incremental", "global_step_num"}
    if unknown:
        raise TypeError(f"save_checkpoint() got unexpected keyword arguments {sorted(unknown)}")
    if kwargs.get("incremental") or kwargs.get("global_step_num") is not None:
        raise CheckpointError("save_checkpoint: incremental (MapParameter) saves and global_step_num (AITurbo) are "
                              "not supported by msx")
    remove_redundancy = kwargs.get("remove_redundancy")
    if remove_redundancy is not None and not isinstance(remove_redundancy, bool):
        raise TypeError(f"save_checkpoint: remove_redundancy must be a bool, got {type(remove_redundancy).__name__}")
    if remove_redundancy is not None and format != "safetensors":
        raise CheckpointError("save_checkpoint: remove_redundancy is recorded only in format='safetensors' files")
    if not isinstance(ckpt_file_name, (str, os.PathLike)):
        raise TypeError(f"save_checkpoint: ckpt_file_name must be a str or path, got {type(ckpt_file_name).__name__}")
    path = os.fspath(ckpt_file_name)
    if os.path.isdir(path):
        raise IsADirectoryError(f"save_checkpoint: ckpt_file_name {path!r} is a directory, it must be a file name")
    if format == "msx" and not path.endswith(_SUFFIXES):
        path += ".ckpt"
    elif format != "msx" and not path.endswith(format):  # MindSpore's test: the format's name, with a dot or not
        path += f".{format}"
    return path, remove_redundancy


def _check_types(fn: str, **args: tuple[Any, type]) -> None:
    """MindSpore's type checks of plain arguments: `name=(value, type)`."""
    for name, (value, kind) in args.items():
        if not isinstance(value, kind):
            raise TypeError(f"{fn}: {name} must be a {kind.__name__}, got {type(value).__name__}")


def _refuse_encryption(fn: str, arg: str, key: Any) -> None:
    if key is not None:
        raise CheckpointError(f"{fn}: encrypted checkpoints ({arg}) are not supported by msx: MindSpore encrypts "
                              f"with its own native cipher framing (AES-GCM, AES-CBC, SM4-CBC), which msx does not "
                              f"implement; decrypt the file with MindSpore (load_checkpoint(..., dec_key=...)) and "
                              f"save it unencrypted")


def _msx_blob(ordered: dict[str, np.ndarray | str], trainable: list[str]) -> bytes:
    """msx's own checkpoint: safetensors with each entry's SHA-256 (in saving order), the strings, requires_grad,
    the header digest."""
    arrays = {k: v for k, v in ordered.items() if not isinstance(v, str)}
    texts = {k: v for k, v in ordered.items() if isinstance(v, str)}
    digests = {k: hashlib.sha256(v.encode()).hexdigest() if isinstance(v, str) else _digest(v)
               for k, v in ordered.items()}
    metadata = {"format": FORMAT, "format_version": str(FORMAT_VERSION), "msx_version": _msx_version(),
                "sha256": json.dumps(digests), "strings": json.dumps(texts),
                "requires_grad": json.dumps(trainable), HEADER_DIGEST: "0" * 64}
    return _seal(tensorfile.dump(arrays, metadata))


def _write_in_background(files: list[tuple[str, list[bytes]]]) -> None:
    for path, chunks in files:
        try:
            write_atomic(path, chunks)
        except BaseException as exc:  # warned now, raised by the next save_checkpoint / wait_async_save
            _async["error"] = exc
            warnings.warn(f"save_checkpoint(async_save=...): writing {path} failed: {type(exc).__name__}: {exc}",
                          RuntimeWarning, stacklevel=1)
            return


def _ordered(arrays: dict[str, np.ndarray], texts: dict[str, str], append_dict: dict | None) -> dict:
    """MindSpore's order: save_obj's entries, then append_dict's as given (strings among them)."""
    return {**{k: arrays[k] for k in arrays if k not in (append_dict or {})},
            **{k: texts[k] if k in texts else arrays[k] for k in (append_dict or {})}}


def _write_msx(ordered: dict, crc_check: bool, remove_redundancy: bool | None, trainable: list[str]) -> list:
    return [_msx_blob(ordered, trainable)]


def _write_ckpt(ordered: dict, crc_check: bool, remove_redundancy: bool | None, trainable: list[str]) -> Any:
    return ms_checkpoint.dump_ckpt(ordered, crc_check)


def _write_safetensors(ordered: dict, crc_check: bool, remove_redundancy: bool | None, trainable: list[str]) -> list:
    texts = [k for k, v in ordered.items() if isinstance(v, str)]
    if texts:
        raise TypeError(f"append_dict strings ({', '.join(map(repr, texts))}) cannot be stored in "
                        f"format='safetensors' (MindSpore cannot either); use format='ckpt' or 'msx'")
    return [ms_checkpoint.dump_safetensors(ordered, crc_check, remove_redundancy)]


# save_checkpoint's `format=` -> its writer `(ordered, crc_check, remove_redundancy, trainable) -> chunks`; the
# files themselves are told apart by content, in the format registry (`msx/formats/checkpoints.py`)
WRITERS: dict[str, Callable[..., Any]] = {"msx": _write_msx, "ckpt": _write_ckpt, "safetensors": _write_safetensors}
FORMATS = tuple(WRITERS)


def _serialize(ordered: dict[str, np.ndarray | str], format: str, crc_check: bool, remove_redundancy: bool | None,
               trainable: list[str]) -> Any:
    """The chunks of one checkpoint file of `ordered` in `format` (a dtype or string the format cannot hold
    raises CheckpointError now, before anything is written)."""
    try:
        return WRITERS[format](ordered, crc_check, remove_redundancy, trainable)
    except TypeError as exc:
        raise CheckpointError(f"save_checkpoint: {exc}") from None


def write_arrays(path: str, arrays: dict[str, np.ndarray], format: str = "ckpt", trainable: Iterable[str] = ()) -> None:
    """One checkpoint file of plain arrays, written atomically (what distributed checkpoints' transforms write)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    write_atomic(path, _serialize(dict(arrays), format, False, None, sorted(trainable)))


RANK_DIR = re.compile(r"rank_[0-9]+\Z")


def rank_path(path: str, rank: int) -> str:
    """Rank `rank`'s file of a distributed save to `path`: `<dir>/rank_<rank>/<name>`, MindSpore's layout (a
    `path` already in a `rank_<k>` folder, as a per-rank script names it, has that folder replaced)."""
    folder, name = os.path.split(path)
    if RANK_DIR.match(os.path.basename(folder)):
        folder = os.path.dirname(folder)
    return os.path.join(folder, f"rank_{rank}", name)


def _distributed(entries: dict, texts: dict, append_dict: dict | None, mesh, path: str, format: str, crc_check: bool,
                 remove_redundancy: bool | None, trainable: list[str]) -> list[tuple[str, Any]]:
    """`save_checkpoint(..., integrated_save=False)` of Parameters laid out over `mesh` (a global-view step's):
    rank r (the r-th device of the mesh) gets `rank_path(path, r)` with the slices it holds, in the format asked
    for, and the strategy file (MindSpore's `ParallelStrategyMap`) goes to the context's
    `strategy_ckpt_save_file`, else `strategy.ckpt` beside the rank folders. This process writes the ranks whose
    devices it drives (all of them in one process); process 0 writes the strategy file."""
    layouts = {name: strategy_file.layout_of(t._data.sharding, t._data.ndim, mesh)
               for name, (t, _) in entries.items() if name not in (append_dict or {})}
    files = []
    for rank, device in enumerate(mesh.devices.flat):
        if device.process_index != jax.process_index():
            continue
        arrays = {name: strategy_file.rank_piece(t._data, device) for name, (t, _) in entries.items()}
        files.append((rank_path(path, rank), _serialize(_ordered(arrays, texts, append_dict), format, crc_check,
                                                        remove_redundancy, trainable)))
    if jax.process_index() == 0:
        target = parallel_context.get_auto_parallel_context("strategy_ckpt_save_file") or \
            os.path.join(os.path.dirname(os.path.dirname(rank_path(path, 0))), "strategy.ckpt")
        files.append((target, [strategy_file.dump(layouts, target.endswith(".json"))]))
    for name, _ in files:
        os.makedirs(os.path.dirname(os.path.abspath(name)), exist_ok=True)
    return files


def _join_async_save() -> None:
    with _async_lock:
        thread = _async["thread"]
    if thread is not None:
        thread.join()


def wait_async_save() -> None:
    """Wait for the checkpoint write `async_save` started, and raise its error if it failed."""
    _join_async_save()
    with _async_lock:
        _async["thread"] = None
        error, _async["error"] = _async["error"], None
    if error is not None:
        raise CheckpointError(f"save_checkpoint: the asynchronous checkpoint write failed: "
                              f"{type(error).__name__}: {error}") from error


def async_ckpt_thread_status() -> bool:
    """Whether a checkpoint write started with `async_save` is still running."""
    thread = _async["thread"]
    return thread is not None and thread.is_alive()


def _collect(save_obj: Any) -> dict[str, tuple[Tensor, bool]]:
    """{name: (tensor, requires_grad)} of everything `save_obj` holds; two objects with one name is an error."""
    entries: dict[str, tuple[Tensor, bool]] = {}
    items: Iterable = save_obj.items() if isinstance(save_obj, dict) else [save_obj] if isinstance(save_obj, Cell) \
        else save_obj if isinstance(save_obj, (list, tuple)) else None
    if items is None:
        raise TypeError(f"save_checkpoint: save_obj must be a Cell, a list or a dict, got {type(save_obj).__name__}")
    for item in items:
        if isinstance(save_obj, dict):
            name, value = item
            _add(entries, name, value, getattr(value, "requires_grad", False))
        elif isinstance(item, Cell):
            for p in item.get_parameters():
                _add(entries, p.name, p, p.requires_grad)
        elif isinstance(item, Parameter):
            _add(entries, item.name, item, item.requires_grad)
        elif isinstance(item, dict) and set(item) == {"name", "data"}:
            _add(entries, item["name"], item["data"], getattr(item["data"], "requires_grad", False))
        else:
            raise TypeError(f"save_checkpoint: list items must be Parameters, Cells or {{'name', 'data'}} dicts, "
                            f"got {type(item).__name__}")
    return entries


def _add(entries: dict, name: Any, value: Any, requires_grad: bool) -> None:
    if not isinstance(name, str) or not name:
        raise CheckpointError(f"save_checkpoint: names must be non-empty strings, got {name!r}")
    tensor = value if isinstance(value, Tensor) else Tensor(np.asarray(value))
    if tensor._data is None:
        raise CheckpointError(f"save_checkpoint: {name!r} is a placeholder Tensor with no data")
    if name in entries and entries[name][0] is not value:
        raise CheckpointError(f"save_checkpoint: two different tensors are named {name!r}; give them distinct "
                              f"Parameter names so the checkpoint can tell them apart")
    entries[name] = (tensor, bool(requires_grad))


def _digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).reshape(-1).view(np.uint8)).hexdigest()


# ---------------------------------------------------------------- load
@dataclass
class CheckpointFile:
    """A checkpoint file after every check: its tensors, strings, metadata, and what wrote it."""

    arrays: dict[str, np.ndarray]
    texts: dict[str, str]
    order: list[str]  # entry names in saving order
    requires_grad: dict[str, bool]
    metadata: dict[str, str]
    writer: str  # "msx.checkpoint", or the foreign safetensors tag ("" when the file has none)


def read_checkpoint(path: str, crc_check: bool = False) -> CheckpointFile:
    """Read and check the checkpoint at `path` (msx's, MindSpore's protobuf or a safetensors file); a `LoadError`
    subclass names the first defect.

    The format is told by the content, not the name. The size the file's
    header declares is checked against the real size before the rest is read,
    so a wrong path (`/dev/zero`, a huge foreign file with a bad header) fails
    at once. `crc_check=True` warns (as MindSpore does) when a MindSpore file
    has no CRC; a CRC the file has is always checked.
    """
    f, size = open_regular(path, "checkpoint")
    with f:
        if size == 0:
            raise TruncatedFileError(f"{path} is empty")
        head = f.read(min(size, 9))
        declared = int.from_bytes(head[:8], "little")
        safetensors_like = head[8:9] == b"{"
        if ms_checkpoint.is_ckpt(head) and not (safetensors_like and 8 + declared <= size):
            ms_checkpoint.check_memory(path, size)
            blob = head + read_exact(f, size - len(head), path, "the checkpoint")
            entries, has_crc = ms_checkpoint.parse_ckpt(blob, path, crc_check)
            texts = {k: v for k, v in entries.items() if isinstance(v, str)}
            arrays = {k: v for k, v in entries.items() if not isinstance(v, str)}
            return CheckpointFile(arrays, texts, list(entries), {}, {"crc32": "checked"} if has_crc else {},
                                  MINDSPORE_CKPT)
        if len(head) > 8 and not safetensors_like:
            hint = " (it looks like a Python pickle; msx never unpickles files)" if head[:1] == b"\x80" else \
                " (it is an MSXIR graph file: use msx.load)" if head.startswith(b"\x89MSXIR") else ""
            raise BadMagicError(f"{path} is not a checkpoint (neither safetensors nor MindSpore's protobuf){hint}")
        if size >= 8 and 8 + declared > size:
            raise TruncatedFileError(f"{path} is truncated: its header says {declared} "
                                     f"header bytes, the file has {size} bytes in all")
        blob = head + read_exact(f, size - len(head), path, "the checkpoint")
    arrays, metadata = tensorfile.parse(blob, path)
    if HEADER_DIGEST in metadata:  # first: damage anywhere in the header (the format tag too) is reported as such
        _check_header_digest(path, blob, metadata[HEADER_DIGEST])
    writer = _writer(path, metadata)
    if writer == ms_checkpoint.SAFETENSORS_TAG:
        order = ms_checkpoint.check_safetensors(arrays, metadata, path, crc_check)
        return CheckpointFile(arrays, {}, order, {}, metadata, writer)
    if writer != FORMAT:
        return CheckpointFile(arrays, {}, list(arrays), {}, metadata, writer)
    order, requires_grad, texts = _check_metadata(path, blob, arrays, metadata)
    return CheckpointFile(arrays, texts, order, requires_grad, metadata, writer)


def load_checkpoint(ckpt_file_name: str | os.PathLike, net: Cell | None = None, strict_load: bool = False,
                    filter_prefix: str | Iterable[str] | None = None, dec_key: bytes | None = None,
                    dec_mode: str = "AES-GCM", specify_prefix: str | Iterable[str] | None = None,
                    choice_func: Callable[[str], bool] | None = None, crc_check: bool = False,
                    remove_redundancy: bool = False, format: str = "ckpt") -> dict[str, Parameter | str]:
    """`{name: Parameter}` from a checkpoint (str for strings saved with append_dict); with `net`, also
    `load_param_into_net(net, ..., strict_load, remove_redundancy)`. MindSpore's arguments, in its order.

    Reads msx's checkpoints, MindSpore's protobuf `.ckpt` and MindSpore's (or
    any known writer's) safetensors, told apart by the content: `format`
    ("ckpt" or "safetensors") is checked but needs not match the file.
    `filter_prefix` drops names with these prefixes, `specify_prefix` keeps only
    names with them, `choice_func(name) -> bool` keeps the names it accepts.
    `crc_check=True` warns when a MindSpore file has no CRC (a CRC a file has
    is always verified). `dec_key` (MindSpore's encryption) is refused. As
    in MindSpore, nothing left after the filters is an error.
    """
    if format not in FORMATS:
        raise ValueError(f"load_checkpoint: format must be one of {', '.join(map(repr, FORMATS))}, got {format!r}")
    _check_types("load_checkpoint", strict_load=(strict_load, bool), crc_check=(crc_check, bool),
                 remove_redundancy=(remove_redundancy, bool), dec_mode=(dec_mode, str))
    _refuse_encryption("load_checkpoint", "dec_key", dec_key)
    drop, keep = _prefixes(filter_prefix, "filter_prefix"), _prefixes(specify_prefix, "specify_prefix")
    if not isinstance(ckpt_file_name, (str, os.PathLike)):
        raise TypeError(f"load_checkpoint: ckpt_file_name must be a str or path, got {type(ckpt_file_name).__name__}")
    _join_async_save()  # a file an async save is still writing is read once it is complete
    path = os.fspath(ckpt_file_name)
    if not os.path.exists(path):  # MindSpore: a ValueError saying so (CheckpointError is one), not an OSError
        raise CheckpointError(f"load_checkpoint: the checkpoint file {os.path.realpath(path)} does not exist; check "
                              f"ckpt_file_name")
    ckpt = read_checkpoint(path, crc_check)
    params = {}
    for name in ckpt.order:
        if (drop and name.startswith(drop)) or (keep and not name.startswith(keep)) or \
                (choice_func is not None and not choice_func(name)):
            continue
        params[name] = ckpt.texts[name] if name in ckpt.texts else \
            Parameter(Tensor(ckpt.arrays[name]), name=name, requires_grad=ckpt.requires_grad.get(name, True))
    if not params and ckpt.order:
        raise CheckpointError(f"load_checkpoint: nothing of {path} is left after filter_prefix, "
                              f"specify_prefix and choice_func; check them")
    if net is not None:
        load_param_into_net(net, params, strict_load, remove_redundancy)
    return params


def _prefixes(prefix: Any, what: str) -> tuple[str, ...]:
    """MindSpore's check of specify_prefix / filter_prefix: a non-empty str, or a non-empty list/tuple of them."""
    if prefix is None:
        return ()
    prefix = (prefix,) if isinstance(prefix, str) else prefix
    if not isinstance(prefix, (list, tuple)) or not all(isinstance(p, str) for p in prefix):
        raise TypeError(f"load_checkpoint: {what} must be a str or a list/tuple of str, got {prefix!r}")
    if not prefix or "" in prefix:
        raise ValueError(f"load_checkpoint: {what} must not be empty nor contain '', got {prefix!r}")
    return tuple(prefix)


def _writer(path: str, metadata: dict[str, str]) -> str:
    """Who wrote the file, recognised positively: msx (its tag), or a safetensors writer whose tag is known.

    A file carrying any of msx's metadata keys is an msx checkpoint whatever
    its tag says (one carrying MindSpore's `crc_num`/`remove_redundancy` is
    MindSpore's), so damage to the tag cannot make a file skip its checks.
    """
    tag = metadata.get("format")
    if tag == FORMAT:
        return FORMAT
    ours = sorted(set(metadata) & _ALL_KEYS - {"format"})
    if ours:
        raise MalformedFileError(f"{path}: the file carries msx checkpoint metadata ({', '.join(ours)}) but its "
                                 f"format tag is {tag!r}, not {FORMAT!r}; the file is damaged")
    if tag == ms_checkpoint.SAFETENSORS_TAG:
        return tag
    theirs = sorted(set(metadata) & ms_checkpoint.SAFETENSORS_KEYS - {"format"})
    if theirs:
        raise MalformedFileError(f"{path}: the file carries MindSpore checkpoint metadata ({', '.join(theirs)}) but "
                                 f"its format tag is {str(tag)[:40]!r}, not 'ms'; the file is damaged")
    if tag is None or tag in FOREIGN_TAGS:
        return tag or ""
    raise BadMagicError(f"{path}: unknown safetensors format tag {str(tag)[:40]!r}; msx reads {FORMAT!r} files and "
                        f"safetensors files tagged {', '.join(sorted(FOREIGN_TAGS | {ms_checkpoint.SAFETENSORS_TAG}))} or untagged")


def _check_metadata(path: str, blob: bytes, arrays: dict[str, np.ndarray],
                    metadata: dict[str, str]) -> tuple[list[str], dict[str, bool], dict[str, str]]:
    """Verify an msx checkpoint's version, its metadata keys, the header checksum and every entry's checksum.

    Returns the names in saving order, {name: requires_grad} and the saved strings.
    """
    version = metadata.get("format_version", "")
    if not isinstance(version, str) or not version.isdigit() or int(version) < 1:
        raise MalformedFileError(f"{path}: bad checkpoint format version {str(version)[:20]!r}")
    if int(version) > FORMAT_VERSION:
        raise FormatVersionError(f"{path} has checkpoint format version {version}; this msx ({_msx_version()}) reads "
                                 f"versions 1 to {FORMAT_VERSION}; upgrade msx to read it")
    required, optional = _KEYS[int(version)]
    if not required <= set(metadata) <= required | optional:
        raise MalformedFileError(f"{path}: a version-{version} checkpoint's metadata has the keys {sorted(metadata)}, "
                                 f"expected {sorted(required)}{f' (optionally {sorted(optional)})' if optional else ''}"
                                 f"; the file is damaged")
    try:
        digests = json.loads(metadata["sha256"])
        trainable = json.loads(metadata["requires_grad"])
        texts = json.loads(metadata.get("strings", "{}"))
    except (ValueError, RecursionError):
        raise MalformedFileError(f"{path}: the checkpoint's metadata is not valid JSON") from None
    if not isinstance(texts, dict) or not all(isinstance(v, str) for v in texts.values()) or set(texts) & set(arrays):
        raise MalformedFileError(f"{path}: the checkpoint's string entries are not a table of strings")
    if not isinstance(digests, dict) or set(digests) != set(arrays) | set(texts):
        raise MalformedFileError(f"{path}: the checkpoint's checksum table does not list exactly its entries")
    if not isinstance(trainable, list) or not all(isinstance(k, str) for k in trainable) or \
            not set(trainable) <= set(arrays):
        raise MalformedFileError(f"{path}: the checkpoint's requires_grad list names entries it does not have")
    actual = {**{k: _digest(a) for k, a in arrays.items()}, **{k: hashlib.sha256(v.encode()).hexdigest()
                                                               for k, v in texts.items()}}
    for name, digest in actual.items():
        if digest != digests[name]:
            raise ChecksumError(f"{path}: entry {name!r} does not match its SHA-256 checksum; the file is corrupted")
    return list(digests), {name: name in trainable for name in arrays}, texts


def _seal(blob: bytes) -> bytes:
    """`blob` with the header checksum filled in: SHA-256 of the whole header with the digest's digits zeroed."""
    end = 8 + int.from_bytes(blob[:8], "little")
    header = blob[:end]
    assert header.count(_PLACEHOLDER) == 1, "the header-checksum placeholder must occur exactly once"
    digest = hashlib.sha256(header).hexdigest()
    return header.replace(_PLACEHOLDER, _digest_field(digest)) + blob[end:]


def _check_header_digest(path: str, blob: bytes, digest: str) -> None:
    """The header (length, names, dtypes, shapes, offsets and all metadata) must match its recorded SHA-256."""
    if not isinstance(digest, str) or not re.fullmatch("[0-9a-f]{64}", digest):
        raise MalformedFileError(f"{path}: the checkpoint's header checksum is not a SHA-256 hex digest")
    header = blob[:8 + int.from_bytes(blob[:8], "little")]
    field_bytes = _digest_field(digest)
    if header.count(field_bytes) != 1:
        raise MalformedFileError(f"{path}: the checkpoint's header checksum is not stored as msx writes it")
    if hashlib.sha256(header.replace(field_bytes, _PLACEHOLDER)).hexdigest() != digest:
        raise ChecksumError(f"{path}: the checkpoint's header (its names, dtypes, shapes, offsets and metadata, "
                            f"requires_grad flags included) does not match its SHA-256 checksum; the file is "
                            f"corrupted")


def _digest_field(digest: str) -> bytes:
    return f'"{HEADER_DIGEST}":"{digest}"'.encode()


def load_param_into_net(net: Cell, parameter_dict: dict, strict_load: bool = False,
                        remove_redundancy: bool = False) -> tuple[list[str], list[str]]:
    """Load `parameter_dict` into `net`'s Parameters (by `Parameter.name`); returns (param_not_load, ckpt_not_load).

    With `strict_load=False` (MindSpore's default) a Parameter missing by its
    exact name takes a checkpoint entry whose name ends with it (or that it
    ends with, the shortest such), and floats convert to the Parameter's float
    dtype (ints to its int dtype). Shapes must match, and with
    `strict_load=True` dtypes too; every mismatch is reported before anything
    is loaded. `remove_redundancy=True` (a checkpoint deduplicated across
    ranks) is refused: msx does not redistribute deduplicated slices.
    """
    if not isinstance(strict_load, bool) or not isinstance(remove_redundancy, bool):
        raise TypeError("load_param_into_net: strict_load and remove_redundancy must be bools")
    if remove_redundancy:
        raise CheckpointError("load_param_into_net: remove_redundancy=True (a checkpoint saved with redundancy "
                              "removed across ranks) is not supported by msx; save the checkpoint with "
                              "remove_redundancy=False")

    if not isinstance(net, Cell):
        raise TypeError(f"load_param_into_net: net must be a Cell, got {type(net).__name__}")
    if not isinstance(parameter_dict, dict) or not all(isinstance(k, str) and isinstance(v, (Tensor, str))
                                                       for k, v in parameter_dict.items()):
        raise TypeError("load_param_into_net: parameter_dict must map names (str) to Parameters")
    unused = {k: v for k, v in parameter_dict.items() if isinstance(v, Tensor)}  # saved strings load into nothing
    plan, not_loaded, problems = [], [], []
    for p in net.get_parameters():
        key = p.name if p.name in unused else None if strict_load else _suffix_match(p.name, unused)
        if key is None:
            not_loaded.append(p.name)
            continue
        value = unused.pop(key)
        value = Tensor._from(parallel_optimizer.local_rows(p, value._data))  # a sharded buffer takes its rows
        problem = _mismatch(p, key, value, strict_load)
        if problem:
            problems.append(problem)
        else:
            plan.append((p, value))
    if problems:
        raise CheckpointError("load_param_into_net: nothing was loaded:\n  " + "\n  ".join(problems))
    for p, value in plan:
        p.set_data(Tensor._from(value._data.astype(p.dtype.np_dtype)))  # (p may be unfilled)
    return not_loaded, [k for k in parameter_dict if k in unused or isinstance(parameter_dict[k], str)]


def _suffix_match(name: str, candidates: dict) -> str | None:
    """The checkpoint name that differs from `name` only by a leading prefix (the shortest such), if unique."""
    found = sorted((k for k in candidates if k.endswith("." + name) or name.endswith("." + k)), key=len)
    if len(found) > 1 and len(found[0]) == len(found[1]):
        raise CheckpointError(f"load_param_into_net: parameter {name!r} matches several checkpoint entries by "
                              f"suffix ({found}); rename them or use strict_load=True")
    return found[0] if found else None


def _mismatch(p: Parameter, key: str, value: Tensor, strict: bool) -> str | None:
    have, want = value._data, p._data
    where = f"parameter {p.name!r}" + (f" (from checkpoint entry {key!r})" if key != p.name else "")
    if tuple(have.shape) != tuple(want.shape):
        return (f"{where}: the checkpoint has shape {tuple(have.shape)} ({np.dtype(have.dtype).name}), the network "
                f"has {tuple(want.shape)} ({np.dtype(want.dtype).name})")
    if have.dtype == want.dtype:
        return None
    if strict or _family(have.dtype) != _family(want.dtype):
        why = "strict_load=True" if strict else "only float<->float and int<->int convert"
        return (f"{where}: the checkpoint has dtype {np.dtype(have.dtype).name}, the network "
                f"{np.dtype(want.dtype).name} ({why})")
    return None


def _family(dtype) -> str:
    for family in (jnp.floating, jnp.integer, jnp.complexfloating, jnp.bool_):
        if jnp.issubdtype(dtype, family):
            return family.__name__
    return str(dtype)
