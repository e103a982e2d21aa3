"""MindSpore's communication-group file: written when a global-view step compiles with `GROUP_INFO_FILE` set (or
`set_auto_parallel_context(group_ckpt_save_file=...)`), read back by `restore_group_info_list`.

The file is MindSpore's `ParallelGroupMap` (`node_strategy.proto`): one `ParallelGroupItem` (name, ranks) per
communication group the step uses, and `ckpt_restore_rank_list`, the ranks that hold exactly this rank's copy of
every Parameter. After a failure, a rank's weights can be restored from the checkpoint of any rank in that list
(MindSpore's fault-recovery use of it). MindSpore computes the list in `FindCommonMirrorGroup`: the intersection
of the Parameters' mirror groups (the data-parallel replicas a gradient AllReduce joins), or only this rank when
some Parameter is cut over every device (it has no replica).

msx's step is one jax program over the strategy mesh, so the groups are read off the Parameters' shardings: the
mirror group of a Parameter at rank `r` is the ranks whose device holds the same slice as rank `r`'s device (rank
`g` is the mesh's `g`-th device, as in the strategy file). The groups written are those mirror groups (with
more than one rank), named `mirror_<ranks>`; XLA's partitioner chooses the collectives themselves. Each process
writes the file for its first device's rank (rank 0 in a one-process job). MindSpore counts only trainable
Parameters; msx counts every Parameter the step reads (the compiled step does not know which are trainable), so
a ZeRO-cut optimizer state makes the list this rank alone, as MindSpore's fully sharded parallel optimizer does.
"""
from __future__ import annotations

import os
from typing import Any, Iterable, Sequence

import jax

from ..atomic import write_atomic
from ..fileread import open_regular, read_exact
from . import context
from .strategy_file import _classes

ENV = "GROUP_INFO_FILE"
MAX_FILE_BYTES = 64 * 1024 * 1024   # a few bytes per group and rank
_OP = "restore_group_info_list"


# ----------------------------------------------------------------- groups of a compiled step
def _slice_key(index: tuple) -> tuple:
    return tuple((s.start, s.stop, s.step) if isinstance(s, slice) else s for s in index)


def mirror_groups(mesh, arrays: Iterable[tuple[tuple, Any]], rank: int) -> list[tuple[int, ...]]:
    """Per array (shape, sharding): the ranks (mesh order) whose device holds the slice rank `rank`'s device holds."""
    devices = list(mesh.devices.flat)
    mine = devices[rank]
    out = []
    for shape, sharding in arrays:
        where = sharding.devices_indices_map(tuple(shape))
        if mine not in where:
            continue
        key = _slice_key(where[mine])
        out.append(tuple(g for g, d in enumerate(devices) if d in where and _slice_key(where[d]) == key))
    return out


def restore_ranks(groups: Sequence[tuple[int, ...]], rank: int) -> list[int]:
    """MindSpore's `FindCommonMirrorGroup`: this rank alone if some Parameter has no replica, else the
    intersection of the mirror groups of the replicated ones ([] when there is none)."""
    if any(g == (rank,) for g in groups):
        return [rank]
    common: set[int] | None = None
    for g in groups:
        common = set(g) if common is None else common & set(g)
    return sorted(common or ())


def dump(groups: Sequence[tuple[str, Sequence[int]]], restore: Sequence[int]) -> bytes:
    """A `ParallelGroupMap` of (name, ranks) groups and the restore rank list."""
    msg = _classes()["ParallelGroupMap"]()
    for name, ranks in groups:
        item = msg.parallel_group_item.add(group_name=name)
        item.parallel_group_ranks.dim.extend(int(r) for r in ranks)
    msg.ckpt_restore_rank_list.dim.extend(int(r) for r in restore)
    msg.ckpt_restore_rank_list.SetInParent()   # present (MindSpore's field is required) even when empty
    return msg.SerializeToString()


def save(path: str | os.PathLike, groups: Sequence[tuple[str, Sequence[int]]], restore: Sequence[int]) -> None:
    """Write the group file atomically (its folder made, as MindSpore's context does)."""
    path = os.fspath(path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    write_atomic(path, [dump(groups, restore)])


def target() -> str:
    """Where a compiling step writes the group file: `GROUP_INFO_FILE`, else the context's group_ckpt_save_file."""
    return os.environ.get(ENV, "") or context.get_auto_parallel_context("group_ckpt_save_file")


def on_compile(mesh, arrays: Iterable[tuple[tuple, Any]]) -> None:
    """Called by a global-view step as it compiles (msx.parallel.spmd): write the file when one is asked for."""
    path = target()
    if not path:
        return
    devices = list(mesh.devices.flat)
    rank = next((g for g, d in enumerate(devices) if d.process_index == jax.process_index()), 0)
    groups = mirror_groups(mesh, list(arrays), rank)
    named = [(f"mirror_{'_'.join(map(str, g))}", g) for g in dict.fromkeys(groups) if len(g) > 1]
    save(path, named, restore_ranks(groups, rank))


# ----------------------------------------------------------------- read
def _read(group_info_file_name: Any):
    """The file's `ParallelGroupMap`, after MindSpore's checks and the size limit (the file is untrusted)."""
    if not isinstance(group_info_file_name, str):
        raise TypeError(f"For '{_OP}', the argument 'group_info_file_name' should be str, "
                        f"but got {type(group_info_file_name)}.")
    if not os.path.isfile(group_info_file_name):
        raise ValueError(f"For '{_OP}', no such group information file: {group_info_file_name}.")
    f, size = open_regular(group_info_file_name, "group information file")
    with f:
        if size == 0:
            raise ValueError(f"For '{_OP}', the group information file should not be empty.")
        if size > MAX_FILE_BYTES:
            raise ValueError(f"For '{_OP}', the group information file {group_info_file_name} has {size} bytes, "
                             f"more than a group file may ({MAX_FILE_BYTES})")
        blob = read_exact(f, size, group_info_file_name, "the group information file")
    msg = _classes()["ParallelGroupMap"]()
    try:
        msg.ParseFromString(blob)
    except Exception:   # protobuf's DecodeError (and its C++ twin): damage, reported as such
        raise ValueError(f"For '{_OP}', the group information file {group_info_file_name} is incorrect: it is not "
                         f"MindSpore's ParallelGroupMap protobuf") from None
    return msg


def restore_group_info_list(group_info_file_name: str) -> list[int]:
    """MindSpore's `restore_group_info_list(group_info_file_name)`: the restore rank list of a group file.

    MindSpore's checks and messages: a non-str name is a TypeError, a missing file or an empty one a ValueError.
    The file is untrusted: bigger than 64 MiB or not a `ParallelGroupMap` is a ValueError too (MindSpore lets
    protobuf's DecodeError through). A file without the list answers [] (what MindSpore's reader does)."""
    return [int(r) for r in _read(group_info_file_name).ckpt_restore_rank_list.dim]


def group_list(group_info_file_name: str) -> list[tuple[str, list[int]]]:
    """The (name, ranks) groups a group file lists (msx's helper; MindSpore reads only the restore list)."""
    msg = _read(group_info_file_name)
    return [(item.group_name, [int(r) for r in item.parallel_group_ranks.dim]) for item in msg.parallel_group_item]
