"""Cell configuration: graph inputs, flags, jit config, compile, mixed precision, scopes, names and
`to(dtype)`; `ConfigMixin` is part of `Cell`."""
from __future__ import annotations

import warnings
import weakref
from typing import TYPE_CHECKING, Mapping
import inspect
import jax.numpy as jnp

from .. import dtype as mstype
from .. import versions
from ..dynamic_spec import make_spec
from ..tensor import Tensor
from ..context import get_context

if TYPE_CHECKING:
    from .cell import Cell


class ConfigMixin:
    """Inputs, flags, compile and precision methods of `Cell`."""

    global_cells: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # MindSpore's class-level registry

    def set_inputs(self, *inputs, **kwargs) -> None:
        """Declare the inputs the graph is compiled for; `Tensor(shape=[None, 3], dtype=...)` marks dynamic
        dims, so `jit`/GRAPH_MODE compiles one dynamic-shape graph (as `msx.enable_dynamic`). Positional
        inputs are all of construct's inputs (full mode); keyword inputs name some of them (incremental)."""
        if inputs and kwargs:
            raise ValueError(f"{self.cls_name}.set_inputs: give positional inputs or keyword inputs, not both")
        names = [n for n, p in inspect.signature(self.construct).parameters.items()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if inputs:
            if len(inputs) > len(names) and not any(
                    p.kind == p.VAR_POSITIONAL for p in inspect.signature(self.construct).parameters.values()):
                raise ValueError(f"{self.cls_name}.set_inputs: got {len(inputs)} inputs, construct takes "
                                 f"{len(names)} ({', '.join(names)})")
            named = dict(zip(names, inputs))
        else:
            unknown = sorted(set(kwargs) - set(names))
            if unknown:
                raise ValueError(f"{self.cls_name}.set_inputs: {unknown} are not inputs of construct ({names})")
            named = dict(kwargs)
        dynamic = {n: t for n, t in named.items() if isinstance(t, Tensor) and t.is_placeholder()}
        object.__setattr__(self, "_inputs", tuple(inputs) if inputs else named)
        if dynamic:
            object.__setattr__(self, "__msx_dynamic__", make_spec(dynamic))
        object.__setattr__(self, "_jit_cache", None)
        versions.touch()

    def get_inputs(self):
        """What `set_inputs` declared (a tuple in full mode, a dict in incremental mode), or None."""
        return self._inputs

    def add_flags(self, **flags) -> "Cell":
        """Attach flags (plain values) to this Cell: kept in `get_flags()` and readable as attributes."""
        self._flags.update(flags)
        for key, value in flags.items():
            object.__setattr__(self, key, value)
        versions.touch()
        return self

    def add_flags_recursive(self, **flags) -> "Cell":
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self) -> dict:
        return self._flags

    def set_jit_config(self, jit_config) -> None:
        """MindSpore's `JitConfig` (or a dict of its keys) for this Cell's graph (GRAPH_MODE / jit)."""
        conf = getattr(jit_config, "jit_config_dict", jit_config)
        if not isinstance(conf, Mapping):
            raise TypeError(f"set_jit_config: expected a JitConfig or a dict, got {type(jit_config).__name__}")
        object.__setattr__(self, "_jit_config_dict", dict(conf))
        object.__setattr__(self, "_jit_cache", None)
        versions.touch()

    @property
    def jit_config_dict(self) -> dict:
        return self._jit_config_dict

    def compile(self, *args, **kwargs) -> None:
        """Capture and compile this Cell's graph for `args` without running it (MindSpore's `Cell.compile`);
        `compile_cache` collects the phases (mode + input signature) compiled so far."""
        _graph_entry(self).lower(*args, **kwargs).compile()
        self._note_compiled(args)

    def compile_and_run(self, *args, **kwargs):
        """Compile (once per input signature) and run this Cell's graph."""
        out = _graph_entry(self)(*args, **kwargs)
        self._note_compiled(args)
        return out

    def _note_compiled(self, args: tuple) -> None:
        sig = ",".join(f"{a.dtype}{list(a.shape)}" if isinstance(a, Tensor) else repr(a) for a in args)
        phase = f"{self.phase}.{type(self).__name__}.{self.create_time}[{sig}]"
        self.compile_cache.add(phase)
        self.phase_cache[self.phase] = phase
        object.__setattr__(self, "compile_phase", phase)
        object.__setattr__(self, "compiled", True)

    def set_mixed_precision_type(self, mixed_type) -> None:
        """Compute this Cell in float16/bfloat16/float32 (`"FP16"`, `"BF16"`, `"FP32"`, or a dtype), as
        `to_float` does; `"NOTSET"` or None clears it."""
        names = {"FP16": mstype.float16, "BF16": mstype.bfloat16, "FP32": mstype.float32}
        key = getattr(mixed_type, "name", mixed_type)
        if key in (None, "NOTSET"):
            for _, cell in self.cells_and_names():
                object.__setattr__(cell, "_compute_dtype", None)
            object.__setattr__(self, "_mixed_precision", None)
            return
        dst = names.get(key) if isinstance(key, str) else mstype.to_msx(mixed_type)
        if dst is None:
            raise ValueError(f"set_mixed_precision_type: expected 'FP16', 'BF16', 'FP32', 'NOTSET' or a float "
                             f"dtype, got {mixed_type!r}")
        self.to_float(dst)
        object.__setattr__(self, "_mixed_precision", dst)
        versions.touch()

    def get_mixed_precision_type(self):
        """The dtype `set_mixed_precision_type`/`to_float` set for this Cell, or None."""
        return self._compute_dtype

    def to_empty(self, *, device=None, recurse: bool = True) -> "Cell":
        """Give every Parameter fresh storage of its shape and dtype without copying values (torch's meaning:
        the contents are unspecified — here zeros); `device` must be the current target."""
        if device is not None and device != get_context("device_target"):
            raise ValueError(f"{self.cls_name}.to_empty: device {device!r} is not the current device_target")

        for p in self.get_parameters(expand=recurse):
            p.set_data(Tensor._from(jnp.zeros(p.shape, p._data.dtype)))
        return self

    @property
    def pipeline_stage(self) -> int:
        """The pipeline stage this Cell runs in (MindSpore's `Cell.pipeline_stage`; an unset one raises
        AttributeError, as there). `nn.PipelineCell` with `pipeline_stages > 1` cuts the network by it
        (msx.parallel.pipeline)."""
        if "_pipeline_stage" not in self.__dict__:
            raise AttributeError(f"The '{self.cls_name}' object has no attribute 'pipeline_stage'.")
        return self.__dict__["_pipeline_stage"]

    @pipeline_stage.setter
    def pipeline_stage(self, value: int) -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"For 'Cell', the property 'pipeline_stage' must be int type, but got type : "
                            f"{type(value)}")
        if value < 0:
            raise ValueError(f"For 'Cell', the property 'pipeline_stage' can not be less than 0, but got {value}")
        object.__setattr__(self, "_pipeline_stage", value)
        versions.touch()

    @property
    def pipeline_segment(self) -> int:
        """The pipeline segment of this Cell (MindSpore's zero-bubble-V scheduling; unset: AttributeError)."""
        if "_pipeline_segment" not in self.__dict__:
            raise AttributeError(f"The '{self.cls_name}' object has no attribute 'pipeline_segment'.")
        return self.__dict__["_pipeline_segment"]

    @pipeline_segment.setter
    def pipeline_segment(self, value: int) -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"For 'context.set_auto_parallel_context', the argument 'pipeline_stages' must be int "
                            f"type, but got type : {type(value)}")
        if value < 0:
            raise ValueError(f"For 'context.set_auto_parallel_context', the argument 'pipeline_stages' can not be "
                             f"less than 0, but got {value}")
        object.__setattr__(self, "_pipeline_segment", value)

    # MindSpore's bookkeeping of Parameters added as tuples/lists and of merged parallel nets: each Cell's own
    # (empty until set), made on first read as there
    @property
    def exist_names(self) -> set:
        """Names of Parameters added through a tuple or list of Parameters (MindSpore's bookkeeping)."""
        return self.__dict__.setdefault("_exist_names", set())

    @property
    def exist_objs(self) -> set:
        return self.__dict__.setdefault("_exist_objs", set())

    @property
    def parallel_parameter_merge_net_dict(self) -> dict:
        return self.__dict__.setdefault("_parallel_parameter_merge_net_dict", {})

    @parallel_parameter_merge_net_dict.setter
    def parallel_parameter_merge_net_dict(self, value: dict) -> None:
        if not isinstance(value, dict):
            raise TypeError(f"For 'Cell', the property 'parallel_parameter_merge_net_dict' must be dict type, but got "
                            f"type {type(value)}.")
        object.__setattr__(self, "_parallel_parameter_merge_net_dict", value)

    @property
    def parallel_parameter_name_list(self):
        return self.__dict__.setdefault("_parallel_parameter_name_list", ())

    @parallel_parameter_name_list.setter
    def parallel_parameter_name_list(self, value: list) -> None:
        if not isinstance(value, list):
            raise TypeError(f"For 'Cell', the property 'parallel_parameter_name_list' must be list type, but got "
                            f"type {type(value)}.")
        object.__setattr__(self, "_parallel_parameter_name_list", value)

    def set_comm_fusion(self, fusion_type: int, recurse: bool = True) -> "Cell":
        """Set `comm_fusion` (the gradient all-reduce fusion group) on this Cell's trainable Parameters. XLA
        groups collectives itself, so the value is kept on each Parameter for code that reads it back."""
        if not isinstance(fusion_type, int) or isinstance(fusion_type, bool) or fusion_type < 0:
            raise ValueError(f"The input value must be int and must >= 0, but got '{fusion_type}' with type "
                             f"'{type(fusion_type).__name__}'.")
        for p in self.trainable_params(recurse):
            p.comm_fusion = fusion_type
        return self

    def set_data_parallel(self) -> None:
        """Ask auto-parallel strategy search for data-parallel strategies on this Cell's ops (MindSpore: only
        under AUTO_PARALLEL in graph mode). msx shards by the batch under data parallelism already; the request
        is recorded on every Cell of the tree (`_strategy_gen_mode`)."""
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "_strategy_gen_mode", "data_parallel")

    def set_broadcast_flag(self, mode: bool = True) -> "Cell":
        """Set the parameter-broadcast flag on this Cell and its sub-Cells (`get_flags()["broadcast_flag"]`)."""
        self.add_flags_recursive(broadcast_flag=mode)
        return self

    def remove_redundant_parameters(self) -> None:
        """Deprecated in MindSpore (it only warns): msx has no redundant Parameters to remove either."""
        warnings.warn("'remove_redundant_parameters' will be deprecated in future versions.", DeprecationWarning,
                      stacklevel=2)

    def recompute(self, *, use_reentrant: bool = True, output_recompute: bool = False, early_stop: bool = True,
                  context_fn=None, **kwargs) -> None:
        """Rematerialise this Cell's forward in the backward pass instead of keeping its activations:
        `jax.checkpoint` around the Cell, eagerly and (one node per call) inside every compiled graph; values
        and gradients are unchanged, only memory differs (docs/parallel.md)."""
        if self.__dict__.get("_recompute"):
            raise RuntimeError(f"{self.cls_name}.recompute: the recompute interface can be configured only once")
        context_fn = recompute_context(self.cls_name, context_fn, use_reentrant, output_recompute)
        _recompute_options(self.cls_name, kwargs)
        object.__setattr__(self, "_recompute", True)
        object.__setattr__(self, "_recompute_context_fn", context_fn)
        versions.touch()

    def cast_inputs(self, inputs: tuple, dst_type) -> tuple:
        """`inputs` with every floating Tensor cast to `dst_type`."""
        dst = mstype.to_msx(dst_type)
        return tuple(_cast_float(x, dst) for x in inputs)

    def init_parameters_data(self, auto_parallel_mode: bool = False) -> dict:
        """Fill the Parameters made under `nn.no_init_parameters` that nothing filled yet (their initializers run
        now); {Parameter: Parameter}, each mapping to itself."""
        params = list(self.get_parameters())
        for p in params:
            p.init_data()
        return {p: p for p in params}

    def check_names(self) -> None:
        """Raise if two different Parameters of this network share a name (checkpoints would mix them up)."""
        seen: dict[str, int] = {}
        for p in self.get_parameters():
            if p.name in seen and seen[p.name] != id(p):
                raise ValueError(f"{self.cls_name}: the parameter name {p.name!r} is used by two Parameters; "
                                 f"give them different names")
            seen[p.name] = id(p)

    def check_names_and_refresh_name(self) -> None:
        """Re-derive every Parameter name from its attribute path (when auto_prefix), then `check_names`."""
        if self._auto_prefix:
            self.update_parameters_name()
        self.check_names()

    def update_cell_prefix(self) -> None:
        """Set `param_prefix` of every sub-Cell to its attribute path."""
        for name, cell in self.cells_and_names():
            object.__setattr__(cell, "param_prefix", name)

    def update_cell_type(self, cell_type: str) -> None:
        object.__setattr__(self, "cell_type", cell_type)

    def generate_scope(self) -> None:
        """Give every Cell its MindSpore scope name (`Default/fc1-Dense`), returned by `get_scope`."""
        for name, cell in self.cells_and_names():
            path = "/".join(f"{part}-{type(c).__name__}" for part, c in _path_cells(self, name))
            object.__setattr__(cell, "_scope", "Default" + (f"/{path}" if path else ""))

    def get_scope(self) -> str | None:
        return self._scope

    @property
    def cls_name(self) -> str:
        return type(self).__name__

    @property
    def cell_init_args(self) -> str:
        return f"{type(self).__name__}<{self.extend_repr()}>"

    def to(self, *args, **kwargs) -> "Cell":
        """Cast floating Parameters and buffers to a dtype: `to(dtype)`, `to(device=None, dtype=None)` or
        `to(tensor)` (its dtype). msx arrays live on the device of `set_context(device_target=...)`; a device
        other than the current target is refused."""
        device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        if kwargs:
            raise TypeError(f"{self.cls_name}.to: unexpected arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, str):
                device = a
            elif isinstance(a, bool):
                continue
            else:
                dtype = a
        if device is not None and device != get_context("device_target"):
            raise ValueError(f"{self.cls_name}.to: device {device!r} is not the current device_target "
                             f"{get_context('device_target')!r} (change it with set_context(device_target=...))")
        if dtype is None:
            return self
        dst = mstype.to_msx(dtype)
        if not (dst.is_floating or "complex" in str(dst)):
            raise TypeError(f"{self.cls_name}.to: dtype must be floating point or complex, got {dst}")
        for p in self.get_parameters():
            if p.dtype.is_floating:
                p._rebind(p.astype(dst))
        for _, cell in self.cells_and_names():
            for name, b in list(cell._buffers.items()):
                if b is not None and b.dtype.is_floating:
                    cell._buffers[name] = b.astype(dst)
        return self


def _cast_float(x, dtype):
    if isinstance(x, Tensor) and x.dtype.is_floating and x.dtype != dtype:
        return x.astype(dtype)
    return x


def _path_cells(root, path: str) -> list:
    """[(name, Cell)] along a dotted sub-Cell path below `root`."""
    out, cell = [], root
    for part in path.split(".") if path else ():
        cell = cell._cells[part]
        out.append((part, cell))
    return out


# `msx.jit`, handed over by msx.jit at its import: jit sits above nn (it compiles Cells), so nn takes it as a
# registration instead of importing it (ARCHITECTURE rule 10)
_JIT: list = []


def register_jit(jit) -> None:
    """Called once by `msx.jit`: the decorator GRAPH_MODE Cells and `Cell.compile` compile with."""
    _JIT[:] = [jit]


def _graph_entry(cell: Cell):
    """The Cell's cached `jit` entry, with jit's default capture mode ("ast", MindSpore's: `construct` is
    captured from its source) and the jit_level of `set_jit_config`; dynamic dims of `set_inputs` are read
    by jit from the Cell."""
    if cell._jit_cache is None:
        level = cell._jit_config_dict.get("jit_level")  # "" (JitConfig's default): jit's own default
        options = {"jit_level": level} if level else {}
        object.__setattr__(cell, "_jit_cache", _JIT[0](cell, **options))
    return cell._jit_cache


_RECOMPUTE_KWARGS = {"mp_comm_recompute": True, "parallel_optimizer_comm_recompute": False,
                     "recompute_slice_activation": False}


def recompute_context(who: str, context_fn, use_reentrant: bool, output_recompute: bool):
    """MindSpore's `context_fn` (a callable giving (forward context, recomputation context)), checked: as in
    MindSpore it needs `use_reentrant=False` (or `output_recompute=True`, which implies it). msx enters the
    first context around the forward it traces (`msx.nn._backward.pure_construct`); the recomputation is that
    traced forward replayed inside the compiled backward, where no Python context can be entered, so a second
    context other than `contextlib.nullcontext()` is refused when the forward runs."""
    if context_fn is None:
        return None
    if use_reentrant and not output_recompute:
        raise ValueError(f"{who}.recompute: context_fn is only supported when use_reentrant=False.")
    if not callable(context_fn):
        raise TypeError(f"{who}.recompute: context_fn must be a callable returning two context managers, "
                        f"got {type(context_fn).__name__}")
    return context_fn


def _recompute_options(who: str, kwargs: dict) -> None:
    """MindSpore's recompute keywords: what msx honours, warns about, or refuses (never ignored in silence).

    `use_reentrant`, `output_recompute` and `early_stop` choose how MindSpore's PyNative mode implements the
    recompute; jax.checkpoint gives the same values and keeps only the Cell's inputs either way.
    `parallel_optimizer_comm_recompute` is honoured as it stands: msx's parallel optimizer keeps whole
    parameters for the forward pass, so no optimizer all-gather runs inside a recomputed Cell."""
    unknown = sorted(set(kwargs) - set(_RECOMPUTE_KWARGS))
    if unknown:
        raise TypeError(f"{who}.recompute: unknown keyword(s) {unknown}; MindSpore's are {sorted(_RECOMPUTE_KWARGS)}")
    for key, value in kwargs.items():
        if not isinstance(value, bool):
            raise TypeError(f"{who}.recompute: {key} must be a bool, got {value!r}")
    if kwargs.get("mp_comm_recompute", True) is False:
        warnings.warn(f"{who}.recompute: mp_comm_recompute=False is not honoured: XLA inserts the model-parallel "
                      f"collectives after jax.checkpoint, so they are recomputed with the Cell (values unchanged)",
                      stacklevel=3)
    if kwargs.get("recompute_slice_activation", False):
        warnings.warn(f"{who}.recompute: recompute_slice_activation=True is not honoured: the Cell's output is "
                      f"kept whole (values unchanged)", stacklevel=3)
