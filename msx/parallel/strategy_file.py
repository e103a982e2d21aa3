"""MindSpore's strategy files, and where each rank's slice of a sharded Parameter lies.

A strategy file says, per Parameter, how it is cut over one pipeline stage's devices: MindSpore's
`ParallelLayouts` (`node_strategy.proto`): a device matrix `dev_matrix` (the stage's devices, rank-major: the
last axis varies fastest, so local rank `r` has the coordinates `np.unravel_index(r, dev_matrix)`) and a
`tensor_map`, per tensor dimension the device-matrix axis it is cut over counted from the right (-1: not
cut; in MindSpore's multi-axis form one list per dimension). A Parameter held by pipeline stage `s` is named
`"s-name"` in a file of several stages (`merge_pipeline_strategys`' form); rank `g` is local rank
`g % stage_devices` of stage `g // stage_devices`. The protobuf file (`ParallelStrategyMap`, any name not
ending in `.json`) and MindSpore's JSON form are both read and written.

msx's layouts are jax's: a Parameter of a global-view step is a `jax.Array` with a `NamedSharding` over the
strategy mesh (`msx.parallel.sharding.strategy_mesh`: a `pipe` axis when there are stages, then the strategy
axes), so `layout_of` turns a sharding into a `ParamLayout` directly: the mesh's strategy axes are the device
matrix (consecutive axes one dimension is cut over merged into one, MindSpore's usual form), the spec is the
tensor map, and every stage lists every Parameter with its stage view (a Parameter msx keeps cut over `pipe`,
msx.parallel.stage_params, is read whole by its stage: `pipe` is left out, and `rank_piece` gives the stage
view's slice). Rank `g` is the
`g`-th device of the mesh in its (row-major) order, so rank files and strategy file agree by construction.

The rest is slice arithmetic on untrusted layouts (`ParamLayout.check`): the block of each rank, which source
ranks a destination rank's slice needs (`needed_blocks`), and copying the overlap of blocks (`fill`).
MindSpore's optimizer-shard fields (`opt_weight_shard_size` > 0) and uneven splits (`param_split_shape`) are
refused by name: msx writes ZeRO's cut into the tensor map itself.
"""
from __future__ import annotations

import functools
import json
import math
import os
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np
from jax.sharding import NamedSharding

from ..atomic import write_atomic
from ..errors import CheckpointError, MalformedFileError
from ..fileread import open_regular, read_exact
from .layout import Layout
from .sharding import PIPE, layout_spec, partition_spec

MAX_FILE_BYTES = 256 * 1024 * 1024   # a strategy file is a few bytes per Parameter
MAX_DEVICES = 1 << 20                # devices of one stage (a larger device matrix is damage)
MAX_RANK = 64
Entry = Any  # a tensor-map entry: -1, an axis (counted from the right), or a tuple of axes (major first)


@dataclass(frozen=True)
class ParamLayout:
    """One Parameter's layout over one pipeline stage's devices, and the stages that hold it."""

    dev_matrix: tuple[int, ...]
    tensor_map: tuple[Entry, ...]
    stages: tuple[int, ...] = (0,)

    @property
    def stage_devices(self) -> int:
        return math.prod(self.dev_matrix)

    def axes(self, entry: Entry) -> tuple[int, ...]:
        """The device-matrix positions (from the left) a tensor-map entry cuts over, major first."""
        picked = () if entry == -1 else (entry,) if isinstance(entry, int) else tuple(entry)
        return tuple(len(self.dev_matrix) - 1 - a for a in picked)

    def cuts(self) -> tuple[int, ...]:
        """Slices per tensor dimension."""
        return tuple(math.prod(self.dev_matrix[p] for p in self.axes(e)) for e in self.tensor_map)

    def block(self, local_rank: int) -> tuple[int, ...]:
        """Which slice (per dimension) local rank `local_rank` holds."""
        coords = np.unravel_index(local_rank, self.dev_matrix)
        out = []
        for entry in self.tensor_map:
            index = 0
            for p in self.axes(entry):
                index = index * self.dev_matrix[p] + int(coords[p])
            out.append(index)
        return tuple(out)

    def holders(self) -> dict[tuple[int, ...], int]:
        """{block: the lowest local rank holding it}."""
        out: dict[tuple[int, ...], int] = {}
        for r in range(self.stage_devices):
            out.setdefault(self.block(r), r)
        return out

    def check(self, name: str, where: str) -> "ParamLayout":
        """Refuse a layout that does not describe slices msx can cut (untrusted files), naming the Parameter."""
        bad = None
        if not self.dev_matrix or not all(isinstance(d, int) and d >= 1 for d in self.dev_matrix):
            bad = f"dev_matrix {list(self.dev_matrix)} must be a non-empty list of ints >= 1"
        elif self.stage_devices > MAX_DEVICES or len(self.tensor_map) > MAX_RANK:
            bad = f"dev_matrix {list(self.dev_matrix)} / tensor_map of {len(self.tensor_map)} dims is too large"
        elif not self.stages or not all(isinstance(s, int) and 0 <= s < MAX_DEVICES for s in self.stages):
            bad = f"pipeline stages {list(self.stages)} are not stage numbers"
        else:
            used: list[int] = []
            for entry in self.tensor_map:
                picked = [entry] if isinstance(entry, int) else list(entry)
                if not picked or not all(isinstance(a, int) for a in picked) or \
                        any(a < -1 or a >= len(self.dev_matrix) for a in picked) or (-1 in picked and len(picked) > 1):
                    bad = f"tensor_map {list(self.tensor_map)} names an axis outside dev_matrix {list(self.dev_matrix)}"
                    break
                used += [a for a in picked if a != -1]
            if bad is None and len(set(used)) != len(used):
                bad = f"tensor_map {list(self.tensor_map)} cuts two dimensions over one device axis"
        if bad:
            raise CheckpointError(f"{where}: the layout of parameter {name!r} is not valid: {bad}")
        return self

    # -------------------------------------------------------------- MindSpore's message
    def _fill(self, msg) -> None:
        msg.dev_matrix.add().dim.extend(self.dev_matrix)
        if any(isinstance(e, tuple) for e in self.tensor_map):   # MindSpore's multi-axis form: one map per dim
            for entry in self.tensor_map:
                msg.tensor_map.add().dim.extend(list(entry) if isinstance(entry, tuple) else [entry])
        else:
            msg.tensor_map.add().dim.extend(self.tensor_map)
        msg.param_split_shape.add()
        msg.indices_offset.add()
        msg.field = msg.opt_weight_shard_step = msg.opt_weight_shard_size = 0

    def to_json(self) -> dict:
        if any(isinstance(e, tuple) for e in self.tensor_map):
            raise CheckpointError(f"a JSON strategy file cannot hold the multi-axis tensor map "
                                  f"{list(self.tensor_map)} (MindSpore's JSON form has one list); use a .ckpt name")
        return {"dev_matrix": list(self.dev_matrix), "tensor_map": list(self.tensor_map), "param_split_shape": [],
                "indices_offset": [], "field": 0, "opt_weight_shard_step": 0, "opt_weight_shard_size": 0}


# ----------------------------------------------------------------- to and from jax's shardings
def spec_of(layout: ParamLayout, device_num: int, name: str, where: str) -> tuple[tuple[str, ...], ...]:
    """The mesh axes each dimension of Parameter `name` is cut over when laid out as `layout` says, on the
    strategy mesh of `device_num` devices per stage (`sharding.layout_spec`: the device matrix's axes laid in
    order onto the mesh's prime-factor axes); a device matrix that does not line up is refused by name."""
    aliases = tuple(f"d{i}" for i in range(len(layout.dev_matrix)))
    entries = [tuple(aliases[p] for p in layout.axes(e)) or "None" for e in layout.tensor_map]
    try:
        return layout_spec(Layout(layout.dev_matrix, aliases)(*entries), device_num)
    except ValueError as exc:
        raise CheckpointError(f"{where}: parameter {name!r} is laid out over the device matrix "
                              f"{list(layout.dev_matrix)}, which msx cannot place on {device_num} devices per stage "
                              f"({exc})") from None


def _spec_axes(sharding, ndim: int) -> list[tuple[str, ...]]:
    spec = tuple(sharding.spec) + (None,) * (ndim - len(sharding.spec))
    return [() if s is None else (s,) if isinstance(s, str) else tuple(s) for s in spec]


def layout_of(sharding, ndim: int, mesh=None) -> ParamLayout:
    """The layout of an array placed by `sharding` (a `NamedSharding` over a strategy mesh, or anything else:
    whole on every device of `mesh`)."""
    mesh = getattr(sharding, "mesh", None) if mesh is None else mesh
    names, sizes = tuple(mesh.axis_names), tuple(mesh.devices.shape)
    stages = tuple(range(mesh.shape[PIPE])) if PIPE in names else (0,)
    axes = [(n, s) for n, s in zip(names, sizes) if n != PIPE]
    if not axes:
        axes = [("_", 1)]
    spec = _spec_axes(sharding, ndim) if getattr(sharding, "mesh", None) == mesh else [()] * ndim
    # a pipeline stage's Parameter is kept cut over `pipe` (each stage 1/N, msx.parallel.pipeline) but read whole
    # by its stage: MindSpore's layout is that stage view (and `rank_piece` writes it)
    spec = [tuple(a for a in dim if a != PIPE) for dim in spec]
    order = [n for n, _ in axes]
    # a run of consecutive axes one dimension is cut over (major first) becomes one device-matrix axis
    joined: set[int] = set()
    for dim in spec:
        pos = [order.index(a) for a in dim]
        if len(pos) > 1 and pos == list(range(pos[0], pos[0] + len(pos))):
            joined.update(pos[1:])
    runs: list[list[int]] = []
    for p in range(len(axes)):
        if p in joined:
            runs[-1].append(p)
        else:
            runs.append([p])
    dev_matrix = tuple(math.prod(axes[p][1] for p in run) for run in runs)
    run_of = {p: i for i, run in enumerate(runs) for p in run}
    tensor_map: list = []
    for dim in spec:
        found = list(dict.fromkeys(run_of[order.index(a)] for a in dim))
        right = [len(runs) - 1 - i for i in found]
        tensor_map.append(-1 if not right else right[0] if len(right) == 1 else tuple(right))
    return ParamLayout(dev_matrix, tuple(tensor_map), stages)


def mesh_of(arrays: Iterable[Any]):
    """The device mesh the sharded arrays among `arrays` are laid out over (None: none is sharded over several
    devices); arrays over two different meshes are refused (one strategy file describes one mesh)."""
    mesh = None
    for a in arrays:
        m = getattr(getattr(a, "sharding", None), "mesh", None)
        if m is None or getattr(m, "size", 1) <= 1 or not hasattr(m, "devices"):
            continue
        if mesh is None:
            mesh = m
        elif m != mesh:
            raise CheckpointError(f"the Parameters are laid out over two device meshes ({dict(mesh.shape)} and "
                                  f"{dict(m.shape)}); a distributed checkpoint describes one")
    return mesh


def rank_piece(array: Any, device) -> np.ndarray:
    """The slice of `array` device `device` holds (the whole array when it is not laid out over devices); for an
    array kept cut over `pipe`, the slice its stage's layout (`layout_of`) gives the device."""
    sharding = getattr(array, "sharding", None)
    spec = _spec_axes(sharding, array.ndim) if hasattr(sharding, "spec") else []
    if any(PIPE in dim for dim in spec):
        stage = NamedSharding(sharding.mesh, partition_spec([tuple(a for a in d if a != PIPE) for d in spec]))
        return np.asarray(array)[stage.devices_indices_map(tuple(array.shape))[device]]
    for shard in getattr(array, "addressable_shards", ()):
        if shard.device == device:
            return np.asarray(shard.data)
    return np.asarray(array)


# ----------------------------------------------------------------- the protobuf messages
@functools.lru_cache(maxsize=None)
def _classes() -> dict[str, type]:
    """MindSpore's `node_strategy.proto` messages, built from a descriptor in a private pool (no MindSpore
    import), on first use: `import msx` holds protobuf's runtime (the MindIR tables) but not `descriptor_pb2`."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # on first use: descriptor_pb2 is 1.4 ms

    F = descriptor_pb2.FieldDescriptorProto
    pkg = "msx_node_strategy"
    fdp = descriptor_pb2.FileDescriptorProto(name="msx_node_strategy.proto", package=pkg, syntax="proto2")
    rep, req = F.LABEL_REPEATED, F.LABEL_REQUIRED

    def message(name: str, *fields: tuple) -> None:
        m = fdp.message_type.add(name=name)
        for number, (field, label, kind) in enumerate(fields, 1):
            if isinstance(kind, str):
                m.field.add(name=field, number=number, label=label, type=F.TYPE_MESSAGE, type_name=f".{pkg}.{kind}")
            else:
                m.field.add(name=field, number=number, label=label, type=kind)

    message("ParallelStrategy", ("dim", rep, F.TYPE_UINT32))
    message("ParallelStrategys", ("stage", req, F.TYPE_UINT32), ("parallel_strategy", rep, "ParallelStrategy"))
    message("ParallelStrategyItem", ("node_name", req, F.TYPE_STRING), ("parallel_strategys", req, "ParallelStrategys"))
    message("DevMatrix", ("dim", rep, F.TYPE_UINT32))
    message("TensorMap", ("dim", rep, F.TYPE_INT32))
    message("ParamSplitShape", ("dim", rep, F.TYPE_INT64))
    message("IndicesOffset", ("dim", rep, F.TYPE_INT64))
    message("ParallelLayouts", ("dev_matrix", rep, "DevMatrix"), ("tensor_map", rep, "TensorMap"),
            ("param_split_shape", rep, "ParamSplitShape"), ("indices_offset", rep, "IndicesOffset"),
            ("field", req, F.TYPE_INT32), ("opt_weight_shard_step", req, F.TYPE_INT32),
            ("opt_weight_shard_size", req, F.TYPE_INT32))
    message("ParallelLayoutItem", ("param_name", req, F.TYPE_STRING), ("parallel_layouts", req, "ParallelLayouts"))
    message("ParallelStrategyMap", ("current_stage", req, F.TYPE_UINT32),
            ("parallel_strategy_item", rep, "ParallelStrategyItem"),
            ("parallel_layout_item", rep, "ParallelLayoutItem"))
    # the communication-group file (GROUP_INFO_FILE, msx.parallel.group_info); MindSpore's fields are required,
    # but its reader parses a file without them (an absent restore list reads as []): optional here, the same bytes
    opt = F.LABEL_OPTIONAL
    message("ParallelGroupRanks", ("dim", rep, F.TYPE_UINT32))
    message("ParallelGroupItem", ("group_name", opt, F.TYPE_STRING),
            ("parallel_group_ranks", opt, "ParallelGroupRanks"))
    message("ParallelGroupMap", ("parallel_group_item", rep, "ParallelGroupItem"),
            ("ckpt_restore_rank_list", opt, "ParallelGroupRanks"))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return {m.name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{pkg}.{m.name}"))
            for m in fdp.message_type}


# ----------------------------------------------------------------- write
def dump(layouts: dict[str, ParamLayout], json_form: bool = False) -> bytes:
    """A strategy file of `layouts`: plain names for one stage, `"s-name"` per holding stage for several."""
    stages = sorted({s for lay in layouts.values() for s in lay.stages})
    several = stages != [0]
    named = [(f"{s}-{n}" if several else n, lay) for n, lay in layouts.items() for s in lay.stages]
    if json_form:
        return json.dumps({"current_stage": 1 if several else 0,
                           "parallel_strategy_item": {f"msx_stage_{s}": {"stage": s, "parallel_strategy": []}
                                                      for s in stages},
                           "parallel_layout_item": {n: lay.to_json() for n, lay in named}}, indent=1).encode()
    c = _classes()
    out = c["ParallelStrategyMap"](current_stage=1 if several else 0)
    for s in stages:   # one item per stage: MindSpore reads a file's stage from its first strategy item
        out.parallel_strategy_item.add(node_name=f"msx_stage_{s}").parallel_strategys.stage = s
    for n, lay in named:
        item = out.parallel_layout_item.add(param_name=n)
        lay._fill(item.parallel_layouts)
    return out.SerializeToString()


def save(path: str | os.PathLike, layouts: dict[str, ParamLayout]) -> None:
    """Write a strategy file atomically (JSON when the name ends in .json, as MindSpore decides)."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    write_atomic(path, [dump(layouts, path.endswith(".json"))])


# ----------------------------------------------------------------- read
def _read_bytes(path: str) -> bytes:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"a strategy file name must be a str, got {type(path).__name__}")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise CheckpointError(f"no such strategy file: {path}; check the strategy file name")
    f, size = open_regular(path, "strategy file")
    with f:
        if size == 0:
            raise CheckpointError(f"the strategy file {path} is empty")
        if size > MAX_FILE_BYTES:
            raise MalformedFileError(f"{path} has {size} bytes, more than a strategy file may ({MAX_FILE_BYTES})")
        return read_exact(f, size, path, "the strategy file")


def messages(path: str | os.PathLike) -> tuple[dict[str, Any], list[int]]:
    """({layout name: ParallelLayouts message}, the stages of its strategy items) of a protobuf or JSON file."""
    path = os.fspath(path)
    blob = _read_bytes(path)
    c = _classes()
    if path.endswith(".json"):
        try:
            content = json.loads(blob)
        except (ValueError, RecursionError):
            raise MalformedFileError(f"{path} is not a JSON strategy file") from None
        if not isinstance(content, dict) or not isinstance(content.get("parallel_layout_item", {}), dict):
            raise MalformedFileError(f"{path}: a JSON strategy file is an object with a 'parallel_layout_item' table")
        out = {}
        for name, item in content.get("parallel_layout_item", {}).items():
            try:
                msg = c["ParallelLayouts"](field=int(item.get("field", 0)),
                                           opt_weight_shard_step=int(item.get("opt_weight_shard_step", 0)),
                                           opt_weight_shard_size=int(item.get("opt_weight_shard_size", 0)))
                msg.dev_matrix.add().dim.extend(item["dev_matrix"])
                msg.tensor_map.add().dim.extend(item["tensor_map"])
                msg.param_split_shape.add().dim.extend(item.get("param_split_shape", []))
                msg.indices_offset.add().dim.extend(item.get("indices_offset", []))
            except (AttributeError, KeyError, TypeError, ValueError):
                raise MalformedFileError(f"{path}: the layout of {str(name)[:80]!r} is not MindSpore's "
                                         f"(dev_matrix, tensor_map, ... lists of ints)") from None
            out[name] = msg
        items = content.get("parallel_strategy_item", {})
        stages = [int(v.get("stage", 0)) for v in items.values()] if isinstance(items, dict) else []
        return out, stages
    msg = c["ParallelStrategyMap"]()
    try:
        msg.ParseFromString(blob)
    except Exception:   # protobuf's DecodeError (and its C++ twin): damage, reported as such
        raise MalformedFileError(f"{path} is not a strategy file (MindSpore's ParallelStrategyMap protobuf, or "
                                 f"JSON when the name ends in .json)") from None
    return ({item.param_name: item.parallel_layouts for item in msg.parallel_layout_item},
            [item.parallel_strategys.stage for item in msg.parallel_strategy_item])


def _layout(name: str, msg, stage: int, where: str) -> ParamLayout:
    if msg.opt_weight_shard_size > 0:
        raise CheckpointError(f"{where}: parameter {name!r} uses MindSpore's optimizer-shard layout "
                              f"(opt_weight_shard_size={msg.opt_weight_shard_size}), which msx does not re-shard "
                              f"(issue 35); msx writes the optimizer's cut into the tensor map")
    if any(list(p.dim) for p in msg.param_split_shape):
        raise CheckpointError(f"{where}: parameter {name!r} is split unevenly (param_split_shape), which msx does "
                              f"not re-shard (issue 35)")
    if len(msg.dev_matrix) != 1:
        raise MalformedFileError(f"{where}: parameter {name!r} has {len(msg.dev_matrix)} device matrices, not 1")
    maps = [list(m.dim) for m in msg.tensor_map]
    if len(maps) == 1:
        tensor_map: tuple = tuple(maps[0])
    else:   # MindSpore's multi-axis form: one list per dimension
        tensor_map = tuple(m[0] if len(m) == 1 else tuple(m) for m in maps if m)
    return ParamLayout(tuple(int(d) for d in msg.dev_matrix[0].dim), tensor_map, (stage,)).check(name, where)


def read(path: str | os.PathLike | None) -> dict[str, ParamLayout] | None:
    """{Parameter name: layout} of a strategy file (None for None: every Parameter whole on one device). The
    `"s-name"` entries of a file of several stages become one layout held by those stages (the lowest stage's)."""
    if path is None:
        return None
    where = os.fspath(path)
    found, _ = messages(where)
    out: dict[str, ParamLayout] = {}
    for key, msg in found.items():
        stage, name = 0, key
        head, sep, rest = key.partition("-")
        if sep and head.isdigit():
            stage, name = int(head), rest
        lay = _layout(name, msg, stage, where)
        if name in out:
            have = out[name]
            first = have if min(have.stages) <= stage else lay
            lay = ParamLayout(first.dev_matrix, first.tensor_map, tuple(sorted({*have.stages, stage})))
        out[name] = lay
    if not out:
        raise CheckpointError(f"the strategy file {where} lists no parameter layouts")
    devices = {lay.stage_devices for lay in out.values()}
    if len(devices) != 1:
        raise CheckpointError(f"{where}: the layouts span different device counts {sorted(devices)}; a strategy "
                              f"file describes one stage's devices")
    stages = sorted({s for lay in out.values() for s in lay.stages})
    if stages != list(range(len(stages))):
        raise CheckpointError(f"{where}: the strategy file does not hold every pipeline stage (it has {stages})")
    return out


def geometry(layouts: dict[str, ParamLayout] | None) -> tuple[int, int]:
    """(devices per stage, stages) of a strategy; (1, 1) for None (one device)."""
    if layouts is None:
        return 1, 1
    first = next(iter(layouts.values()))
    return first.stage_devices, 1 + max(s for lay in layouts.values() for s in lay.stages)


# ----------------------------------------------------------------- slices
def layout_for(layouts: dict[str, ParamLayout] | None, name: str, ndim: int) -> ParamLayout:
    """`name`'s layout (whole on every rank of every stage when the strategy does not list it)."""
    lay = None if layouts is None else layouts.get(name)
    if lay is None:
        devices, stages = geometry(layouts)
        return ParamLayout((devices,), (-1,) * ndim, tuple(range(stages)))
    if len(lay.tensor_map) != ndim:
        raise CheckpointError(f"the strategy lays parameter {name!r} out over {len(lay.tensor_map)} dimensions, its "
                              f"checkpoint slices have {ndim}")
    return lay


def needed_blocks(src: ParamLayout, dst: ParamLayout, dst_local: int) -> list[tuple[int, ...]]:
    """The source blocks whose slices overlap destination local rank `dst_local`'s slice (exact, in
    fractions of each dimension: block b of c covers [b/c, (b+1)/c))."""
    want = dst.block(dst_local)
    cs, cd = src.cuts(), dst.cuts()
    out = []
    for block in src.holders():
        if all(b * d < (k + 1) * s and k * s < (b + 1) * d for b, k, s, d in zip(block, want, cs, cd)):
            out.append(block)
    return out


def fill(full_shape: tuple[int, ...], src: ParamLayout, pieces: dict[tuple[int, ...], np.ndarray],
         dst: ParamLayout, dst_local: int, name: str) -> np.ndarray:
    """Destination local rank `dst_local`'s slice of the `full_shape` tensor, copied from the source `pieces`
    ({block: array}) that overlap it."""
    cs, cd = src.cuts(), dst.cuts()
    for n, c in zip(full_shape, cd):
        if n % c:
            raise CheckpointError(f"parameter {name!r} of shape {full_shape} cannot be cut into {cd} equal slices "
                                  f"(the destination strategy)")
    want = dst.block(dst_local)
    size = tuple(n // c for n, c in zip(full_shape, cd))
    first = next(iter(pieces.values()))
    out = np.empty(size, first.dtype)
    for block, piece in pieces.items():
        src_sl, dst_sl = [], []
        for b, k, n, s, d in zip(block, want, full_shape, cs, cd):
            lo, hi = max(b * (n // s), k * (n // d)), min((b + 1) * (n // s), (k + 1) * (n // d))
            src_sl.append(slice(lo - b * (n // s), hi - b * (n // s)))
            dst_sl.append(slice(lo - k * (n // d), hi - k * (n // d)))
        out[tuple(dst_sl)] = piece[tuple(src_sl)]
    return out


def rank_of(layout: ParamLayout, local: int, stage: int) -> int:
    return stage * layout.stage_devices + local


def ranks_needed(rank_id: int, src: dict[str, ParamLayout] | None, dst: dict[str, ParamLayout] | None,
                 names: Iterable[tuple[str, int]] | None = None) -> dict[int, list[tuple[str, tuple[int, ...]]]]:
    """{source rank: [(Parameter, block), ...]} that destination rank `rank_id` needs. `names` ((name, ndim))
    defaults to the Parameters of the source strategy."""
    devices, stages = geometry(dst)
    if not isinstance(rank_id, int) or isinstance(rank_id, bool):
        raise TypeError(f"rank_id must be an int, got {type(rank_id).__name__}")
    if not 0 <= rank_id < devices * stages:
        raise CheckpointError(f"rank_id {rank_id} is not a rank of the destination strategy ({devices * stages} "
                              f"ranks)")
    stage, local = divmod(rank_id, devices)
    if names is None:
        names = [(n, len(lay.tensor_map)) for n, lay in (src or {}).items()]
    out: dict[int, list] = {}
    for name, ndim in names:
        d = layout_for(dst, name, ndim)
        if stage not in d.stages:
            continue
        s = layout_for(src, name, ndim)
        holders = s.holders()
        for block in needed_blocks(s, d, local):
            out.setdefault(rank_of(s, holders[block], min(s.stages)), []).append((name, block))
    return out
