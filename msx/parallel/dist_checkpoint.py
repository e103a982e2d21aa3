"""Distributed checkpoints: MindSpore 2.10's `transform_checkpoints`, `transform_checkpoint_by_rank`,
`rank_list_for_transform`, `load_distributed_checkpoint`, `unified_safetensors`, `load_segmented_checkpoints`,
`build_searched_strategy`, `merge_pipeline_strategys` (and the `convert_*` names, MindSpore's aliases).

A distributed checkpoint is one folder per rank, `<dir>/rank_<r>/<file>` (`.ckpt` or `.safetensors`; the last
name in lexicographic order when a folder has several, as in MindSpore), each holding the slices rank `r` keeps,
and a strategy file saying how they were cut (`msx.parallel.strategy_file`). `save_checkpoint(...,
integrated_save=False)` in a global-view run writes both. Re-sharding is slice arithmetic in numpy: a
destination rank's slice of each Parameter is copied from the source slices that overlap it, read from just
the ranks `rank_list_for_transform` names; a strategy of `None` is one device (every Parameter whole). Every
rank file is read through msx's checked readers (sizes before bytes, checksums when the format has them), and
a missing file, an unreadable one, or a slice whose name, shape or dtype is not what the strategy says is
refused with a `CheckpointError` naming the rank, before anything is written. Every file written is atomic.

msx's Parameters in a global-view run are global `jax.Array`s (each device keeps its slice), so
`load_distributed_checkpoint` loads each Parameter's whole value and the next compiled step lays it out by the
run's own strategy: `predict_strategy` is checked, never needed to cut. msx works in this one process:
`process_num` / `max_process_num` other than MindSpore's defaults warn that they change nothing.
"""
from __future__ import annotations

import glob
import json
import math
import os
import re
from typing import Any, Callable

import numpy as np

from .. import checkpoint
from ..atomic import write_atomic
from ..communication.management import GlobalComm, get_rank
from ..errors import CheckpointError, LoadError
from ..ignored_args import not_honoured
from ..nn.cell import Cell
from ..tensor import Parameter, Tensor
from . import strategy_file as sf

PART_BYTES = 3 * 1024 ** 3   # unified_safetensors' part size (MindSpore's)
_FORMATS = ("ckpt", "safetensors")


# ----------------------------------------------------------------- the rank files
def collect(src_dir: str, what: str, fmt: str | None = None, file_suffix: str | None = None) -> dict[int, str]:
    """{rank: its checkpoint file} of the `rank_<r>` folders under `src_dir` (both kinds of file: refused)."""
    if not isinstance(src_dir, (str, os.PathLike)):
        raise TypeError(f"{what}: the checkpoint directory must be a str, got {type(src_dir).__name__}")
    src_dir = os.fspath(src_dir)
    if not os.path.isdir(src_dir):
        raise NotADirectoryError(f"{what}: {src_dir} is not a directory")
    found: dict[str, dict[int, str]] = {"ckpt": {}, "safetensors": {}}
    for folder in glob.glob(os.path.join(glob.escape(src_dir), "rank_[0-9]*")):
        tail = os.path.basename(folder)[len("rank_"):]
        if not os.path.isdir(folder) or not tail.isdigit():
            continue
        for kind in found:
            suffix = f"*{file_suffix}.{kind}" if file_suffix and kind == "safetensors" else f"*.{kind}"
            names = sorted(n for n in glob.glob(os.path.join(glob.escape(folder), suffix)) if os.path.isfile(n))
            if names:
                found[kind][int(tail)] = names[-1]
    if found["ckpt"] and found["safetensors"]:
        raise CheckpointError(f"{what}: {src_dir} holds both .ckpt and .safetensors rank files; keep one kind")
    files = found[fmt] if fmt else found["ckpt"] or found["safetensors"]
    if not files:
        kinds = f".{fmt}" if fmt else ".ckpt or .safetensors"
        raise CheckpointError(f"{what}: {src_dir} has no rank_<r>/*{kinds} checkpoint files")
    return files


class _Source:
    """The source side of a transform: the rank files and their strategy, each file read (and checked) once."""

    def __init__(self, files: dict[int, str], strategy: Any, what: str) -> None:
        self.files, self.what = files, what
        self.layouts = sf.read(strategy) if strategy is not None else None
        self._read: dict[int, checkpoint.CheckpointFile] = {}

    def file(self, rank: int, wanted_by: str) -> checkpoint.CheckpointFile:
        if rank not in self.files:
            raise CheckpointError(f"{self.what}: the checkpoint of rank {rank} is needed for {wanted_by}, but it is "
                                  f"missing")
        if rank not in self._read:
            path = self.files[rank]
            if not os.path.isfile(path):
                raise CheckpointError(f"{self.what}: the checkpoint file {path} of rank {rank} does not exist")
            try:
                self._read[rank] = checkpoint.read_checkpoint(path)
            except (LoadError, OSError) as exc:
                raise CheckpointError(f"{self.what}: the checkpoint of rank {rank} ({path}) cannot be read: "
                                      f"{exc}") from None
        return self._read[rank]

    def names(self) -> list[tuple[str, int]]:
        """(name, rank) of every Parameter: the strategy's, then those of the lowest rank's file (whole)."""
        first = self.file(min(self.files), "listing the Parameters")
        out = {n: len(lay.tensor_map) for n, lay in (self.layouts or {}).items()}
        for n in first.order:
            if n not in out and n in first.arrays:
                out[n] = first.arrays[n].ndim
        return list(out.items())

    def slices(self, dst: dict[str, sf.ParamLayout] | None, rank: int, names=None) -> dict[str, np.ndarray]:
        """Destination rank `rank`'s slice of every Parameter its stage holds."""
        names = self.names() if names is None else names
        needed = sf.ranks_needed(rank, self.layouts, dst, names)
        devices, _ = sf.geometry(dst)
        pieces: dict[str, dict] = {}
        for src_rank, wanted in needed.items():
            ckpt = self.file(src_rank, f"rank {rank}")
            for name, block in wanted:
                if name not in ckpt.arrays:
                    raise CheckpointError(f"{self.what}: the checkpoint of rank {src_rank} "
                                          f"({self.files[src_rank]}) has no parameter {name!r}, which its strategy "
                                          f"says it holds")
                pieces.setdefault(name, {})[block] = (src_rank, ckpt.arrays[name])
        out = {}
        for name, ndim in names:
            if name not in pieces:
                continue
            src = sf.layout_for(self.layouts, name, ndim)
            got = pieces[name]
            first_rank, first = next(iter(got.values()))
            for src_rank, piece in got.values():
                if piece.shape != first.shape or piece.dtype != first.dtype:
                    raise CheckpointError(f"{self.what}: parameter {name!r} of rank {src_rank} has shape "
                                          f"{piece.shape} ({piece.dtype}), rank {first_rank}'s slice has "
                                          f"{first.shape} ({first.dtype}); the checkpoint of rank {src_rank} does "
                                          f"not match its strategy")
            if first.ndim != ndim:
                raise CheckpointError(f"{self.what}: parameter {name!r} of rank {first_rank} has {first.ndim} "
                                      f"dimensions, its strategy lays out {ndim}")
            full = tuple(n * c for n, c in zip(first.shape, src.cuts()))
            out[name] = sf.fill(full, src, {b: p for b, (_, p) in got.items()},
                                sf.layout_for(dst, name, ndim), rank % devices, name)
        return out

    def trainable(self, names) -> list[str]:
        flags: dict[str, bool] = {}
        for ckpt in self._read.values():
            flags.update(ckpt.requires_grad)
        return [n for n in names if flags.get(n, True)]


def _strategy_arg(value: Any, what: str, arg: str) -> None:
    if value is not None and not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{what}: {arg} must be a str (a strategy file) or None, got {type(value).__name__}")


def _write_ranks(source: _Source, dst: Any, out_path: Callable[[int], str], fmt: str, ranks=None) -> None:
    """Every destination rank's file (all checked before the first is written)."""
    devices, stages = sf.geometry(dst)
    names = source.names()
    ranks = range(devices * stages) if ranks is None else ranks
    for r in ranks:   # refuse a missing rank before anything is written
        for src_rank in sf.ranks_needed(r, source.layouts, dst, names):
            source.file(src_rank, f"rank {r}")
    for r in ranks:
        arrays = source.slices(dst, r, names)
        checkpoint.write_arrays(out_path(r), arrays, fmt, source.trainable(arrays))


# ----------------------------------------------------------------- MindSpore's functions
def rank_list_for_transform(rank_id: int, src_strategy_file: str | None = None,
                            dst_strategy_file: str | None = None) -> list[int]:
    """The source ranks whose checkpoints destination rank `rank_id` needs (highest first, as MindSpore lists
    them): one holder of every source slice that overlaps a slice rank `rank_id` keeps."""
    if not isinstance(rank_id, int) or isinstance(rank_id, bool):
        raise TypeError("The rank_id should be a int.")
    _strategy_arg(src_strategy_file, "rank_list_for_transform", "src_strategy_file")
    _strategy_arg(dst_strategy_file, "rank_list_for_transform", "dst_strategy_file")
    if src_strategy_file is None:
        return [0]
    src, dst = sf.read(src_strategy_file), sf.read(dst_strategy_file)
    return sorted(sf.ranks_needed(rank_id, src, dst), reverse=True)


def transform_checkpoint_by_rank(rank_id: int, checkpoint_files_map: dict, save_checkpoint_file_name: str,
                                 src_strategy_file: str | None = None, dst_strategy_file: str | None = None) -> None:
    """Write destination rank `rank_id`'s checkpoint (`save_checkpoint_file_name`, a MindSpore .ckpt) from the
    source ranks' files in `checkpoint_files_map` ({rank: file}; `rank_list_for_transform` says which)."""
    what = "transform_checkpoint_by_rank"
    if not isinstance(checkpoint_files_map, dict):
        raise TypeError("The checkpoint_files_map should be a dict.")
    if not isinstance(rank_id, int) or isinstance(rank_id, bool):
        raise TypeError("The rank_id should be a int.")
    if not isinstance(save_checkpoint_file_name, str):
        raise TypeError("The save_checkpoint_file_name should be a str.")
    if not save_checkpoint_file_name.endswith(".ckpt"):
        raise ValueError(f"The save_checkpoint_file_name {save_checkpoint_file_name} should end with .ckpt")
    _strategy_arg(src_strategy_file, what, "src_strategy_file")
    _strategy_arg(dst_strategy_file, what, "dst_strategy_file")
    for rank, name in checkpoint_files_map.items():
        if not isinstance(rank, int) or not isinstance(name, (str, os.PathLike)):
            raise TypeError(f"{what}: checkpoint_files_map maps a rank (int) to a file name, got {rank!r}: {name!r}")
        if not os.path.exists(name):
            raise CheckpointError(f"{what}: the checkpoint file {name} of rank {rank} does not exist")
    source = _Source({r: os.fspath(p) for r, p in checkpoint_files_map.items()}, src_strategy_file, what)
    _write_ranks(source, sf.read(dst_strategy_file), lambda r: save_checkpoint_file_name, "ckpt", [rank_id])


def transform_checkpoints(src_checkpoints_dir: str, dst_checkpoints_dir: str, ckpt_prefix: str,
                          src_strategy_file: str | None = None, dst_strategy_file: str | None = None,
                          process_num: int = 1, output_format: str = "ckpt") -> None:
    """Re-shard the distributed checkpoint in `src_checkpoints_dir` (`rank_<r>/` folders, cut by
    `src_strategy_file`) to `dst_strategy_file`'s ranks: `dst_checkpoints_dir/rank_<r>/<ckpt_prefix><r>.<fmt>`.
    A `dst_strategy_file` of None is one device: `rank_0` gets every Parameter whole."""
    what = "transform_checkpoints"
    if not isinstance(ckpt_prefix, str):
        raise TypeError("The ckpt_prefix should be a str.")
    if output_format not in _FORMATS:
        raise ValueError(f"{what}: output_format must be 'ckpt' or 'safetensors', got {output_format!r}")
    if not isinstance(process_num, int) or isinstance(process_num, bool) or process_num < 1:
        raise ValueError(f"{what}: process_num must be an int >= 1, got {process_num!r}")
    not_honoured(what, "process_num", process_num, 1, "it transforms in this process")
    _strategy_arg(src_strategy_file, what, "src_strategy_file")
    _strategy_arg(dst_strategy_file, what, "dst_strategy_file")
    if not isinstance(dst_checkpoints_dir, (str, os.PathLike)):
        raise TypeError(f"{what}: dst_checkpoints_dir must be a str, got {type(dst_checkpoints_dir).__name__}")
    source = _Source(collect(src_checkpoints_dir, what), src_strategy_file, what)
    dst = os.fspath(dst_checkpoints_dir)
    _write_ranks(source, sf.read(dst_strategy_file),
                 lambda r: os.path.join(dst, f"rank_{r}", f"{ckpt_prefix}{r}.{output_format}"), output_format)


def load_distributed_checkpoint(network: Cell, checkpoint_filenames: list | None = None, predict_strategy: Any = None,
                                train_strategy_filename: str | None = None, strict_load: bool = False,
                                dec_key: bytes | None = None, dec_mode: str = "AES-GCM", format: str = "ckpt",
                                unified_safetensors_dir: str | None = None, dst_safetensors_dir: str | None = None,
                                rank_id: int | None = None, output_format: str = "safetensors",
                                name_map: dict | None = None, max_process_num: int = 64,
                                return_param_dict: bool = False) -> dict | None:
    """Load a distributed checkpoint (`checkpoint_filenames[r]` is rank r's file, cut by
    `train_strategy_filename`; or the merged files of `unified_safetensors_dir`) into `network`: each
    Parameter's whole value, which the network's next compiled step lays out by its own strategy (so
    `predict_strategy`, a strategy file or MindSpore's `{name: [dev_matrix, tensor_map, ...]}`, is checked but
    not needed to cut). `name_map` renames checkpoint entries; `return_param_dict=True` returns
    `{name: Parameter}` instead of loading."""
    what = "load_distributed_checkpoint"
    if not isinstance(network, Cell) and not return_param_dict:
        raise TypeError(f"{what}: network must be a Cell, got {type(network).__name__}")
    if format not in _FORMATS or output_format not in _FORMATS:
        raise ValueError(f"{what}: format and output_format must be 'ckpt' or 'safetensors', got {format!r}, "
                         f"{output_format!r}")
    checkpoint._refuse_encryption(what, "dec_key", dec_key)
    if dst_safetensors_dir is not None:
        raise CheckpointError(f"{what}: dst_safetensors_dir (writing each rank's safetensors of a unified "
                              f"checkpoint) is not supported by msx; use transform_checkpoints to write rank files, "
                              f"or load the unified files directly with unified_safetensors_dir")
    if rank_id is not None and (not isinstance(rank_id, int) or isinstance(rank_id, bool) or rank_id < 0):
        raise TypeError(f"{what}: rank_id must be an int >= 0 or None, got {rank_id!r}")
    if predict_strategy is not None and not isinstance(predict_strategy, (dict, str, os.PathLike)):
        raise TypeError(f"{what}: predict_strategy must be None, a strategy file or a dict of layouts, got "
                        f"{type(predict_strategy).__name__}")
    if isinstance(predict_strategy, (str, os.PathLike)):
        sf.read(predict_strategy)
    elif isinstance(predict_strategy, dict) and not all(isinstance(k, str) and isinstance(v, (list, tuple))
                                                        for k, v in predict_strategy.items()):
        raise TypeError(f"{what}: predict_strategy maps Parameter names to MindSpore's layout lists")
    if name_map is not None and not (isinstance(name_map, dict) and
                                     all(isinstance(k, str) and isinstance(v, str) for k, v in name_map.items())):
        raise TypeError(f"{what}: name_map must map checkpoint names (str) to network names (str)")
    not_honoured(what, "max_process_num", max_process_num, 64, "it loads in this process")
    _strategy_arg(train_strategy_filename, what, "train_strategy_filename")
    if unified_safetensors_dir is not None:
        files = sorted(glob.glob(os.path.join(glob.escape(os.fspath(unified_safetensors_dir)), "*.safetensors")))
        if not files:
            raise CheckpointError(f"{what}: {unified_safetensors_dir} has no .safetensors files")
        arrays: dict[str, np.ndarray] = {}
        for name in files:
            arrays.update(checkpoint.read_checkpoint(name).arrays)
    else:
        if not isinstance(checkpoint_filenames, (list, tuple)) or not checkpoint_filenames or \
                not all(isinstance(n, (str, os.PathLike)) for n in checkpoint_filenames):
            raise TypeError(f"{what}: checkpoint_filenames must be a non-empty list of file names (index: rank)")
        files_map = {r: os.fspath(n) for r, n in enumerate(checkpoint_filenames)}
        arrays = _Source(files_map, train_strategy_filename, what).slices(None, 0)
    arrays = {(name_map or {}).get(k, k): v for k, v in arrays.items()}
    params = {k: Parameter(Tensor(v), name=k) for k, v in arrays.items()}
    if return_param_dict:
        return params
    checkpoint.load_param_into_net(network, params, strict_load)
    return None


def unified_safetensors(src_dir: str, src_strategy_file: str, dst_dir: str, merge_with_redundancy: bool = True,
                        file_suffix: str | None = None, max_process_num: int = 64,
                        choice_func: Callable[[str], bool | str] | None = None, split_dst_file: tuple = ()) -> None:
    """Merge the rank safetensors files under `src_dir` (cut by `src_strategy_file`) into whole Parameters:
    `dst_dir/part<i>.safetensors` (about 3 GiB each), `param_name_map.json` (MindSpore's `weight_map`), and
    `hyper_param.safetensors` for rank 0's entries the strategy does not list. `choice_func(name)` returns a bool
    (keep it?) or a new name; `split_dst_file=(k, n)` writes only the k-th of n shares of the parts."""
    what = "unified_safetensors"
    if not isinstance(merge_with_redundancy, bool):
        raise TypeError(f"{what}: merge_with_redundancy must be a bool")
    if not merge_with_redundancy:
        raise CheckpointError(f"{what}: merge_with_redundancy=False (files saved with remove_redundancy) is not "
                              f"supported by msx; save the rank files with redundancy")
    if split_dst_file and not (isinstance(split_dst_file, tuple) and len(split_dst_file) == 2 and
                               all(isinstance(v, int) for v in split_dst_file) and
                               1 <= split_dst_file[0] <= split_dst_file[1]):
        raise ValueError(f"{what}: split_dst_file must be () or (k, n) with 1 <= k <= n, got {split_dst_file!r}")
    not_honoured(what, "max_process_num", max_process_num, 64, "it merges in this process")
    _strategy_arg(src_strategy_file, what, "src_strategy_file")
    if os.path.isfile(src_dir):
        raise ValueError(f"For '{what}', the 'src_dir' can not be a file.")
    files = collect(src_dir, what, "safetensors", file_suffix)
    source = _Source(files, src_strategy_file, what)
    strategy = set(source.layouts or {})
    names = [(n, d) for n, d in source.names() if n in strategy and not n.startswith("accu_grads")]
    for ckpt in (source.file(r, "the merge") for r in files):
        if ckpt.metadata.get("remove_redundancy") == "True":
            raise CheckpointError(f"{what}: the rank files were saved with remove_redundancy=True, which msx does "
                                  f"not merge")
    whole = source.slices(None, 0, names)
    kept: dict[str, np.ndarray] = {}
    for name in [n for n, _ in names]:
        choice = choice_func(name) if choice_func is not None else True
        if choice is False:
            continue
        kept[choice if isinstance(choice, str) else name] = whole[name]
    parts: list[list[str]] = [[]]
    size = 0
    for name, value in kept.items():
        if parts[-1] and size + value.nbytes > PART_BYTES:
            parts.append([])
            size = 0
        parts[-1].append(name)
        size += value.nbytes
    k, n = split_dst_file or (1, 1)
    share = math.ceil(len(parts) / n)
    os.makedirs(dst_dir, exist_ok=True)
    for i, part in enumerate(parts):
        if (k - 1) * share <= i < k * share:
            checkpoint.write_arrays(os.path.join(dst_dir, f"part{i}.safetensors"), {m: kept[m] for m in part},
                                    "safetensors")
    if k == 1:
        first = source.file(min(files), "the merge")
        hyper = {m: first.arrays[m] for m in first.order if m in first.arrays and m not in strategy}
        if hyper:
            checkpoint.write_arrays(os.path.join(dst_dir, "hyper_param.safetensors"), hyper, "safetensors")
        weight_map = {m: f"part{i}.safetensors" for i, part in enumerate(parts) for m in part}
        total = sum(v.nbytes for v in kept.values())
        write_atomic(os.path.join(dst_dir, "param_name_map.json"),
                     [json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map}, indent=4).encode()])


def load_segmented_checkpoints(ckpt_file_dir: str, net: Cell | None = None, strict_load: bool = False,
                               filter_prefix=None, dec_key: bytes | None = None, dec_mode: str = "AES-GCM",
                               specify_prefix=None, choice_func: Callable[[str], bool] | None = None) -> dict:
    """Every `.ckpt` in `ckpt_file_dir` loaded (each into `net` when given, as in MindSpore) and the entries
    combined into one dict (a checkpoint saved in segments: MindSpore's layout of a large model's weights)."""
    if not isinstance(ckpt_file_dir, str):
        raise TypeError("The ckpt_file_dir should be a str.")
    if not os.path.isdir(ckpt_file_dir):
        raise CheckpointError(f"load_segmented_checkpoints: {ckpt_file_dir} doesn't exist or is not a directory")
    out: dict = {}
    for name in sorted(glob.glob(os.path.join(glob.escape(ckpt_file_dir), "*.ckpt"))):
        out.update(checkpoint.load_checkpoint(name, net, strict_load, filter_prefix, dec_key, dec_mode,
                                              specify_prefix, choice_func))
    if not out:
        raise CheckpointError(f"load_segmented_checkpoints: {ckpt_file_dir} has no .ckpt files")
    return out


def _redundant_ranks(layouts: dict, rank: int) -> tuple[int, ...]:
    """The ranks holding the same slices as `rank` for every Parameter (MindSpore's `_get_cur_rank_dp`): the
    smallest redundancy group of `rank` that every other group of it contains; `(rank,)` when they disagree."""
    size, smallest = None, ()
    group_set: set[int] = set()
    for name, lay in layouts.items():
        if name.startswith("accu_grads") or name.startswith("inputs"):
            continue
        devices = lay.stage_devices
        stage, local = divmod(rank, devices)
        if stage not in lay.stages:
            continue
        block = lay.block(local)
        group = tuple(stage * devices + r for r in range(devices) if lay.block(r) == block)
        if size is None or len(group) < size:
            if group_set and not set(group).issubset(group_set):
                return (rank,)
            size, group_set, smallest = len(group), set(group), group
        elif not group_set.issubset(set(group)):
            return (rank,)
    return smallest


def get_ckpt_path_with_strategy(cur_ckpt_path: str, cur_strategy_path: str) -> str | None:
    """A checkpoint file this rank can load: `cur_ckpt_path` itself when it names this rank (`rank_<id>`) and
    exists, else the same path for another rank holding the same slices under the strategy file
    `cur_strategy_path` (a data-parallel replica's backup); None when none exists."""

    if not isinstance(cur_ckpt_path, str) or not isinstance(cur_strategy_path, str):
        raise TypeError("get_ckpt_path_with_strategy: cur_ckpt_path and cur_strategy_path must be str")
    rank = get_rank() if GlobalComm.INITED else 0  # no communication set up: the one process is rank 0
    if f"rank_{rank}" in cur_ckpt_path and os.path.isfile(cur_ckpt_path):
        return cur_ckpt_path
    if not os.path.exists(cur_strategy_path):
        raise FileNotFoundError(f"[Errno 2] No such file or directory: '{cur_strategy_path}'")
    for other in _redundant_ranks(sf.read(cur_strategy_path), rank):
        candidate = re.sub(r"rank_\d+", f"rank_{other}", cur_ckpt_path)
        if os.path.isfile(candidate):
            return candidate
    return None


def build_searched_strategy(strategy_filename: str) -> dict:
    """{Parameter name: MindSpore's `ParallelLayouts` message} of a strategy file (`.dev_matrix[0].dim`,
    `.tensor_map[0].dim`, ... as in MindSpore)."""
    if not isinstance(strategy_filename, str):
        raise TypeError(f"For 'build_searched_strategy', the argument 'strategy_filename' should be string, but got "
                        f"{type(strategy_filename)}.")
    return sf.messages(strategy_filename)[0]


def merge_pipeline_strategys(src_strategy_dirs: str, dst_strategy_file: str) -> None:
    """One strategy file of every pipeline stage's (`src_strategy_dirs`: each stage's `.ckpt`, or `.json`, file):
    each layout renamed `"<stage>-<name>"` by the stage its file's strategy items name (a stage already merged is
    skipped), MindSpore's merge."""
    if not os.path.isdir(src_strategy_dirs):
        raise NotADirectoryError(f"src_strategy_dirs {src_strategy_dirs} is not a directory.")
    protobuf = sorted(glob.glob(os.path.join(glob.escape(src_strategy_dirs), "*.ckpt")))
    texts = sorted(glob.glob(os.path.join(glob.escape(src_strategy_dirs), "*.json")))
    if protobuf and texts:
        raise ValueError("The strategys format should be all '.ckpt' or all '.json'")
    if not protobuf and not texts:
        raise CheckpointError(f"merge_pipeline_strategys: {src_strategy_dirs} has no strategy files")
    c = sf._classes()
    merged, done, layouts = c["ParallelStrategyMap"](current_stage=1), set(), {}
    for name in protobuf or texts:
        found, stages = sf.messages(name)
        if not stages or not found:
            raise CheckpointError(f"The strategy file {name} is empty")
        if stages[0] in done:
            continue
        done.add(stages[0])
        merged.parallel_strategy_item.add(node_name=f"msx_stage_{stages[0]}").parallel_strategys.stage = stages[0]
        for param, msg in found.items():
            layouts[f"{stages[0]}-{param}"] = msg
    for param, msg in layouts.items():
        merged.parallel_layout_item.add(param_name=param).parallel_layouts.CopyFrom(msg)
    dst = os.path.abspath(dst_strategy_file)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if texts:
        body = {"current_stage": 1,
                "parallel_strategy_item": {f"msx_stage_{s}": {"stage": s, "parallel_strategy": []} for s in done},
                "parallel_layout_item": {p: {"dev_matrix": list(m.dev_matrix[0].dim),
                                             "tensor_map": list(m.tensor_map[0].dim), "field": m.field,
                                             "opt_weight_shard_step": m.opt_weight_shard_step,
                                             "opt_weight_shard_size": m.opt_weight_shard_size}
                                         for p, m in layouts.items()}}
        write_atomic(dst, [json.dumps(body).encode()])
    else:
        write_atomic(dst, [merged.SerializeToString()])


PUBLIC: dict[str, Any] = {
    "rank_list_for_transform": rank_list_for_transform, "transform_checkpoint_by_rank": transform_checkpoint_by_rank,
    "transform_checkpoints": transform_checkpoints, "load_distributed_checkpoint": load_distributed_checkpoint,
    "unified_safetensors": unified_safetensors, "load_segmented_checkpoints": load_segmented_checkpoints,
    "build_searched_strategy": build_searched_strategy, "merge_pipeline_strategys": merge_pipeline_strategys,
    # MindSpore 2.10's newer names for the same functions (mindspore.parallel.checkpoint_convert)
    "rank_list_for_convert": rank_list_for_transform, "convert_checkpoint_by_rank": transform_checkpoint_by_rank,
    "convert_checkpoints": transform_checkpoints,
}


def install(package) -> None:
    """Put the names on the `msx.parallel` package (before `parallel.api.install`, whose refusals they replace)."""
    for name, value in PUBLIC.items():
        setattr(package, name, value)
