"""Checkpoints: MindSpore's `save_checkpoint` / `load_checkpoint` / `load_param_into_net` on safetensors.

A checkpoint is a plain safetensors file (readable by any safetensors tool),
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
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import jax.numpy as jnp
import numpy as np

from . import tensorfile
from .atomic import write_atomic
from .fileread import open_regular, read_exact
from .errors import (BadMagicError, ChecksumError, CheckpointError, FormatVersionError, MalformedFileError,
                     TruncatedFileError)
from .parallel import optimizer as parallel_optimizer
from .tensor import Parameter, Tensor

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


def _msx_version() -> str:
    from . import __version__

    return __version__


# ---------------------------------------------------------------- save
def save_checkpoint(save_obj: Any, ckpt_file_name: str | os.PathLike, append_dict: dict | None = None,
                    choice_func: Callable[[str], bool] | None = None, *, integrated_save: bool = True) -> None:
    """Save Parameters to `ckpt_file_name` (".ckpt" is appended if it has no checkpoint suffix).

    `save_obj`: a Cell (all its Parameters, optimizer state included when the
    Cell holds the optimizer), a list of Parameters, Cells or MindSpore's
    `{"name": ..., "data": ...}` dicts, or a dict `{name: Tensor}`.
    `append_dict`: extra entries (e.g. `epoch_num`): numbers and Tensors are
    stored as tensors, strings in the metadata (load_checkpoint returns them as str).
    `choice_func(name) -> bool` picks which entries to keep.

    In a parallel job every rank writes the file it names (MindSpore's behaviour: give each rank its own
    directory); with `integrated_save` (the default) optimizer state sharded by the parallel optimizer is
    all-gathered into full tensors first — a collective, so every rank must call `save_checkpoint`.
    """
    entries, texts = _collect(save_obj), {}
    for name, value in (append_dict or {}).items():
        if isinstance(value, str) and isinstance(name, str) and name not in entries:
            texts[name] = value
        elif isinstance(name, str) and isinstance(value, (bool, int, float, Tensor)):
            _add(entries, name, value if isinstance(value, Tensor) else Tensor(value), requires_grad=False)
        else:
            raise CheckpointError(f"save_checkpoint: append_dict entries must map a new str name to an int, float, "
                                  f"bool, str or Tensor, got {name!r}: {type(value).__name__}")
    if choice_func is not None:
        entries = {k: v for k, v in entries.items() if choice_func(k)}
        texts = {k: v for k, v in texts.items() if choice_func(k)}
    whole = parallel_optimizer.full_array if integrated_save else (lambda t: t._data)
    arrays = {name: np.asarray(whole(t)) for name, (t, _) in entries.items()}
    digests = {k: _digest(a) for k, a in arrays.items()}  # in saving order
    digests.update({k: hashlib.sha256(v.encode()).hexdigest() for k, v in texts.items()})
    metadata = {"format": FORMAT, "format_version": str(FORMAT_VERSION), "msx_version": _msx_version(),
                "sha256": json.dumps(digests), "strings": json.dumps(texts),
                "requires_grad": json.dumps(sorted(k for k, (_, g) in entries.items() if g)), HEADER_DIGEST: "0" * 64}
    try:
        blob = _seal(tensorfile.dump(arrays, metadata))
    except TypeError as exc:
        raise CheckpointError(f"save_checkpoint: {exc}") from None
    path = os.fspath(ckpt_file_name)
    if not path.endswith(_SUFFIXES):
        path += ".ckpt"
    write_atomic(path, [blob])


def _collect(save_obj: Any) -> dict[str, tuple[Tensor, bool]]:
    """{name: (tensor, requires_grad)} of everything `save_obj` holds; two objects with one name is an error."""
    from .nn.cell import Cell

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


def read_checkpoint(path: str) -> CheckpointFile:
    """Read and check the checkpoint at `path`; a `LoadError` subclass names the first defect.

    The size the file's header declares is checked against the real size
    before the rest is read, so a wrong path (`/dev/zero`, a huge foreign file
    with a bad header) fails at once.
    """
    f, size = open_regular(path, "checkpoint")
    with f:
        if size == 0:
            raise TruncatedFileError(f"{path} is empty")
        head = f.read(min(size, 9))
        if len(head) > 8 and head[8:9] != b"{":
            hint = " (it looks like a Python pickle; msx never unpickles files)" if head[:1] == b"\x80" else \
                " (it is an MSXIR graph file: use msx.load)" if head.startswith(b"\x89MSXIR") else \
                " (it looks like a MindSpore protobuf checkpoint, which msx does not read: re-save it in MindSpore " \
                "with save_checkpoint(..., format='safetensors'))" if head[:1] == b"\x0a" else ""
            raise BadMagicError(f"{path} is not a safetensors checkpoint{hint}")
        if size >= 8 and 8 + int.from_bytes(head[:8], "little") > size:
            raise TruncatedFileError(f"{path} is truncated: its header says {int.from_bytes(head[:8], 'little')} "
                                     f"header bytes, the file has {size} bytes in all")
        blob = head + read_exact(f, size - len(head), path, "the checkpoint")
    arrays, metadata = tensorfile.parse(blob, path)
    if HEADER_DIGEST in metadata:  # first: damage anywhere in the header (the format tag too) is reported as such
        _check_header_digest(path, blob, metadata[HEADER_DIGEST])
    writer = _writer(path, metadata)
    if writer != FORMAT:
        return CheckpointFile(arrays, {}, list(arrays), {}, metadata, writer)
    order, requires_grad, texts = _check_metadata(path, blob, arrays, metadata)
    return CheckpointFile(arrays, texts, order, requires_grad, metadata, writer)


def load_checkpoint(ckpt_file_name: str | os.PathLike, net=None, strict_load: bool = False,
                    filter_prefix: str | Iterable[str] | None = None, specify_prefix: str | Iterable[str] | None = None,
                    choice_func: Callable[[str], bool] | None = None) -> dict[str, Parameter | str]:
    """`{name: Parameter}` from a checkpoint (str for strings saved with append_dict); with `net`, also
    `load_param_into_net(net, ..., strict_load)`.

    `filter_prefix` drops names with these prefixes, `specify_prefix` keeps only
    names with them, `choice_func(name) -> bool` keeps the names it accepts.
    """
    ckpt = read_checkpoint(os.fspath(ckpt_file_name))
    drop = (filter_prefix,) if isinstance(filter_prefix, str) else tuple(filter_prefix or ())
    keep = (specify_prefix,) if isinstance(specify_prefix, str) else tuple(specify_prefix or ())
    params = {}
    for name in ckpt.order:
        if (drop and name.startswith(drop)) or (keep and not name.startswith(keep)) or \
                (choice_func is not None and not choice_func(name)):
            continue
        params[name] = ckpt.texts[name] if name in ckpt.texts else \
            Parameter(Tensor(ckpt.arrays[name]), name=name, requires_grad=ckpt.requires_grad.get(name, True))
    if net is not None:
        load_param_into_net(net, params, strict_load)
    return params


def _writer(path: str, metadata: dict[str, str]) -> str:
    """Who wrote the file, recognised positively: msx (its tag), or a safetensors writer whose tag is known.

    A file carrying any of msx's metadata keys is an msx checkpoint whatever
    its tag says, so damage to the tag cannot make a file skip its checks.
    """
    tag = metadata.get("format")
    if tag == FORMAT:
        return FORMAT
    ours = sorted(set(metadata) & _ALL_KEYS - {"format"})
    if ours:
        raise MalformedFileError(f"{path}: the file carries msx checkpoint metadata ({', '.join(ours)}) but its "
                                 f"format tag is {tag!r}, not {FORMAT!r}; the file is damaged")
    if tag is None or tag in FOREIGN_TAGS:
        return tag or ""
    raise BadMagicError(f"{path}: unknown safetensors format tag {str(tag)[:40]!r}; msx reads {FORMAT!r} files and "
                        f"safetensors files tagged {', '.join(sorted(FOREIGN_TAGS))} or untagged")


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


def load_param_into_net(net, parameter_dict: dict, strict_load: bool = False) -> tuple[list[str], list[str]]:
    """Load `parameter_dict` into `net`'s Parameters (by `Parameter.name`); returns (param_not_load, ckpt_not_load).

    With `strict_load=False` (MindSpore's default) a Parameter missing by its
    exact name takes a checkpoint entry whose name ends with it (or that it
    ends with, the shortest such), and floats convert to the Parameter's float
    dtype (ints to its int dtype). Shapes must match, and with
    `strict_load=True` dtypes too; every mismatch is reported before anything
    is loaded.
    """
    from .nn.cell import Cell

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
        p.set_data(Tensor._from(value._data.astype(p._data.dtype)))
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
