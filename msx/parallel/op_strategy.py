"""Operator strategy files: `AutoParallel.save_operator_strategy_file(path)` /
`.load_operator_strategy_file(path)` (MindSpore's `set_op_strategy_config(mode="SAVE"|"LOAD", path)`).

MindSpore saves, when a `sharding_propagation` step compiles, the strategy of every operator of its graph to a
JSON file (msx: as the step's capture meets them, once per compile) and, loading it, gives each operator the
saved strategy in place of its own (the same network, so a search done once, or on one device by dryrun, is
reused). Its keys are its graph's operator names
(`Default/network-Net/MatMul-op0`), which msx's graphs do not have, so msx names an operator as it is held:
the path of the Cell whose `construct` calls it, as captures name scopes (the outermost Cell's class name,
then attribute names: `Net/block`), then the attribute that holds the primitive: `Net/block/matmul`. The
file is one JSON object keyed by those names:

    {"Net/block/matmul": {"op": "MatMul", "in_strategy": [[2, 1], [1, 4]], "out_strategy": null}}

(`null` for a strategy not given, or for one input's entry: data parallel). A save lists the class-style ops
a capture of the step called with a strategy (their own or a loaded one); the strategies XLA's partitioner
propagates to the other ops are not per-operator values msx sees. A strategy given as a `Layout` is not
saved (MindSpore 2.10: "doesn't support saving strategies using layout"): it warns once. A load gives every
class-style op the file names its strategy (checked as `Primitive.shard` checks one) when a capture calls
it; an operator named in the file that no capture met warns once, when the step compiles. Both act in
global view (semi_auto / auto_parallel) while capturing; `AutoParallel` sets them only in
`sharding_propagation` mode, MindSpore's rule, and warns otherwise.
"""
from __future__ import annotations

import json
import os
import threading
import warnings
from typing import Any

from ..atomic import write_atomic
from ..errors import ContextError
from ..fileread import open_regular, read_exact
from . import context
from .layout import Layout

MAX_BYTES = 64 << 20      # a strategy file of a few thousand operators is a few hundred KB
MAX_INPUTS = 256          # tensors per operator
MAX_DIMS = 32             # dimensions per tensor
_KEYS = ("op", "in_strategy", "out_strategy")


_lock = threading.Lock()
_config = {"save": "", "load": ""}
_seen: dict[str, dict] = {}          # what captures met: name -> {"op", "in_strategy", "out_strategy"}
_loaded: dict[str, Any] = {}         # path -> (mtime, size, {name: (op, ins, outs)})
_warned: set = set()
STATE = {"active": False}            # read at every class op's call (msx.ops.api._honour_strategy)


def configure(mode: str, path: str) -> None:
    """MindSpore's `set_op_strategy_config(mode, path)` after its checks: "SAVE" or "LOAD" `path`."""
    key = "save" if mode == "SAVE" else "load"
    with _lock:
        if _config[key] != path:
            _config[key] = path
            _seen.clear()
    _publish()


def clear() -> None:
    """No file saved or loaded (reset_auto_parallel_context)."""
    with _lock:
        _config.update(save="", load="")
        _seen.clear()
    _publish()


def _publish() -> None:
    STATE["active"] = bool(_config["save"] or _config["load"])


context.ON_RESET.append(clear)


def check_path(what: str, file_path: Any) -> str:
    """MindSpore's checks of a strategy json path: a str (TypeError), absolute and ending in .json (KeyError)."""
    if not isinstance(file_path, str):
        raise TypeError(f"the argument 'file_path' must be str, but got the type : {type(file_path)} .")
    if not os.path.isabs(file_path):
        raise KeyError(f"{what}: the argument 'file_path' must be an absolute path, got {file_path!r}")
    if os.path.splitext(file_path)[1] != ".json":
        raise KeyError(f"{what}: File type must be .json, got {file_path!r}")
    return file_path


_SYSTEM_DIRS = ("/etc", "/usr", "/bin", "/sbin", "/boot", "/proc", "/sys")


def set_op_strategy_config(mode: str = "SAVE", path: str = "") -> None:
    """MindSpore's `mindspore.parallel.set_op_strategy_config(mode="SAVE", path="")`: save the operator
    strategies to `path` when a step compiles ("SAVE"), or give the operators the file's ("LOAD"); acts in
    AUTO_PARALLEL with `search_mode="sharding_propagation"` (module docstring). MindSpore's checks, in its
    order: an absolute path (KeyError), ending in .json (KeyError), not under a system directory
    (PermissionError; the folder is made), then the mode (KeyError)."""
    if not isinstance(path, str) or not os.path.isabs(path):
        raise KeyError(f"set_op_strategy_config: File path must be an absolute path, got {path!r}")
    if os.path.splitext(path)[1] != ".json":
        raise KeyError(f"set_op_strategy_config: File type must be .json, got {path!r}")
    real = os.path.abspath(os.path.realpath(path))
    for folder in _SYSTEM_DIRS:
        if real.startswith(folder):
            raise PermissionError(f"set_op_strategy_config: Writing to system directory '{folder}' is not allowed")
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    if mode not in ("SAVE", "LOAD"):
        raise KeyError(f"set_op_strategy_config: Type must be 'SAVE' or 'LOAD', got {mode!r}")
    configure(mode, path)


# ----------------------------------------------------------------- at each class op's call (capturing)
def name_of(op, scope: str | None, cell) -> str | None:
    """The op's name in strategy files: the scope's path and the attribute of `cell` that holds it."""
    if not scope or cell is None:
        return None
    attr = next((k for k, v in vars(cell).items() if v is op), None)
    return f"{scope}/{attr}" if attr is not None else None


def at_call(op, ins, outs, scope: str | None, cell) -> tuple:
    """(in, out strategies, where they come from or None) of op's call: a loaded file's for it, else its own;
    a save remembers them."""
    if context.get_parallel_mode() != context.ParallelMode.AUTO_PARALLEL or \
            context.get_auto_parallel_context("search_mode") != "sharding_propagation":
        return ins, outs, None   # MindSpore's rule: the files act in sharding_propagation only
    name = name_of(op, scope, cell)
    if name is None:
        if _config["save"] and (ins is not None or outs is not None):
            prim = op.name or type(op).__name__
            _warn_once(("unnamed", scope, prim), f"save_operator_strategy_file: a {prim} with a strategy in {scope} is "
                                                 f"not an attribute of the Cell, so it has no name in the file and is "
                                                 f"not saved (hold it as self.<name>)")
        return ins, outs, None
    where = None
    load, save = _config["load"], _config["save"]
    if load:
        table = _table(load)
        if name in table:
            op_name, ins, outs = table[name]
            where = f"operator strategy file {load}, operator {name!r}"
            if op_name != (op.name or type(op).__name__):
                raise ContextError(f"operator strategy file {load}: {name!r} is a {op_name} in the file, but the "
                                   f"network's {name} is a {op.name or type(op).__name__} (a file saved from "
                                   f"another network?)")
            with _lock:
                _seen.setdefault(name, {})
    if save and (ins is not None or outs is not None):
        entry = {"op": op.name or type(op).__name__, "in_strategy": _plain(ins, name),
                 "out_strategy": _plain(outs, name)}
        with _lock:
            changed, _seen[name] = _seen.get(name) != entry, entry
        if changed:   # written as the capture meets the ops (one device has no global-view compile), and again
            _write(save)   # when the step compiles
    elif load:
        with _lock:
            _seen.setdefault(name, {})
    return ins, outs, where


def _plain(strategies, name: str):
    if strategies is None:
        return None
    if any(isinstance(s, Layout) for s in strategies):
        _warn_once(("layout", name), f"save_operator_strategy_file: {name}'s strategy is a Layout, which is not "
                                     f"saved (MindSpore 2.10 saves no layout strategies either)")
        return None
    return [None if s is None else list(s) for s in strategies]


def _warn_once(key, message: str) -> None:
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, stacklevel=3)


# ----------------------------------------------------------------- when a global-view step compiles
def on_compile() -> None:
    """A global-view step compiles: the save file is written (also when no op has a strategy: `{}`); loaded
    names that no capture met warn (once per file)."""
    load, save = _config["load"], _config["save"]
    if save:
        _write(save)
    with _lock:
        seen = set(_seen)
    if load:
        unmatched = sorted(set(_table(load)) - seen)
        if unmatched:
            _warn_once(("unmatched", load), f"operator strategy file {load}: {len(unmatched)} operator(s) match no "
                                            f"operator of the network, skipped: {unmatched[:5]}"
                                            f"{' ...' if len(unmatched) > 5 else ''}")


def _write(path: str) -> None:
    """The save file: one operator a line, atomically."""
    with _lock:
        entries = {k: v for k, v in _seen.items()
                   if v and (v["in_strategy"] is not None or v["out_strategy"] is not None)}
    lines = [f" {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in sorted(entries.items())]
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    write_atomic(path, [("{\n" + ",\n".join(lines) + "\n}\n" if lines else "{}\n").encode()])


# ----------------------------------------------------------------- reading (untrusted input)
def read(path: str) -> dict[str, tuple[str, tuple | None, tuple | None]]:
    """{name: (op, in_strategy, out_strategy)} of a strategy file, every value checked; a `ContextError`
    naming the file and the key for anything else."""
    try:
        f, size = open_regular(path, "operator strategy file")
    except FileNotFoundError:
        raise ContextError(f"load_operator_strategy_file: {path} does not exist") from None
    with f:
        if size > MAX_BYTES:
            raise ContextError(f"operator strategy file {path} is {size} bytes, more than the {MAX_BYTES} an "
                               f"operator strategy file may have")
        blob = read_exact(f, size, path, "the operator strategy file")
    try:
        data = json.loads(blob.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ContextError(f"operator strategy file {path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ContextError(f"operator strategy file {path}: the file must hold a JSON object keyed by operator "
                           f"name, got a {type(data).__name__}")
    return {name: _entry(path, name, value) for name, value in data.items()}


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number a strategy may hold")


def _entry(path: str, name: str, value: Any) -> tuple:
    where = f"operator strategy file {path}, operator {name!r}"
    if not isinstance(value, dict):
        raise ContextError(f"{where}: must be an object with keys {list(_KEYS)}, got {type(value).__name__}")
    unknown = sorted(set(value) - set(_KEYS))
    if unknown:
        raise ContextError(f"{where}: unknown key(s) {unknown}; an operator has {list(_KEYS)}")
    op = value.get("op")
    if not isinstance(op, str) or not op:
        raise ContextError(f"{where}: 'op' must be the primitive's name (a non-empty str), got {op!r}")
    return op, _strategies(where, "in_strategy", value.get("in_strategy")), \
        _strategies(where, "out_strategy", value.get("out_strategy"))


def _strategies(where: str, key: str, value: Any) -> tuple | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > MAX_INPUTS:
        raise ContextError(f"{where}: {key} must be null or a list of at most {MAX_INPUTS} strategies, got "
                           f"{_short(value)}")
    out = []
    for i, s in enumerate(value):
        if s is None:
            out.append(None)
            continue
        if not isinstance(s, list) or len(s) > MAX_DIMS or not all(
                isinstance(c, int) and not isinstance(c, bool) and 1 <= c <= 1 << 20 for c in s):
            raise ContextError(f"{where}: {key}[{i}] must be null or a list of at most {MAX_DIMS} ints in "
                               f"[1, 2**20] (the cuts of each dimension), got {_short(s)}")
        out.append(tuple(s))
    return tuple(out)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _table(path: str) -> dict:
    """The file at `path`, read once while it does not change."""
    try:
        info = os.stat(path)
    except OSError:
        raise ContextError(f"load_operator_strategy_file: {path} does not exist") from None
    stamp = (info.st_mtime_ns, info.st_size)
    cached = _loaded.get(path)
    if cached is None or cached[0] != stamp:
        cached = _loaded[path] = (stamp, read(path))
    return cached[1]
