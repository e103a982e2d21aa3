"""`mindspore.parallel.auto_parallel.AutoParallel(network, parallel_mode="semi_auto")`: MindSpore 2.x's
per-network parallel configuration, on msx's one auto-parallel context.

msx reads the parallel configuration when a step compiles (`msx.parallel.context`), so an `AutoParallel`
holds its settings and writes them into that context whenever it is called, before the network (a Cell, or
a function such as a `msx.jit` train step) runs and compiles; every method checks its values at once, with
the context's own checks, and what msx cannot honour is refused by name (issue 35), never stored and
ignored. The modes: `"semi_auto"` is SEMI_AUTO_PARALLEL (`.shard` strategies and `Layout`s over XLA's
partitioner), `"sharding_propagation"` and `"recursive_programming"` are AUTO_PARALLEL with that search
mode (the propagation is XLA's in both).
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

from ..errors import ContextError
from ..nn.cell import Cell
from . import op_strategy
from .context import ParallelMode, _CHECKS, set_auto_parallel_context
from .layout import Layout  # noqa: F401  (mindspore.parallel.auto_parallel exports it too)

_MODES = {"semi_auto": (ParallelMode.SEMI_AUTO_PARALLEL, None),
          "sharding_propagation": (ParallelMode.AUTO_PARALLEL, "sharding_propagation"),
          "recursive_programming": (ParallelMode.AUTO_PARALLEL, "recursive_programming")}
_SCHEDULERS = ("1f1b", "gpipe", "seqpipe", "seqvpp", "seqsmartvpp", "zero_bubble_v")


class AutoParallel(Cell):
    """The network (a Cell or a function) run under its own parallel configuration (see the module docstring)."""

    def __init__(self, network: Cell | Callable, parallel_mode: str = "semi_auto") -> None:
        super().__init__(auto_prefix=False)
        if parallel_mode not in _MODES:
            raise ValueError(f"the argument 'parallel_mode' must be one of {list(_MODES)}, but got the value : "
                             f"{parallel_mode!r} .")
        if not callable(network):
            raise TypeError(f"AutoParallel: network must be a Cell or a function, got {type(network).__name__}")
        if isinstance(network, Cell):
            self.network = network
        else:
            object.__setattr__(self, "network", network)
        mode, search = _MODES[parallel_mode]
        object.__setattr__(self, "_parallel_mode", parallel_mode)
        object.__setattr__(self, "_config", {"parallel_mode": mode, **({"search_mode": search} if search else {})})
        object.__setattr__(self, "_operator_files", {})   # "SAVE"/"LOAD" -> path (msx.parallel.op_strategy)

    # -------------------------------------------------------------- the context it writes
    def _set(self, **keys: Any) -> None:
        for key, value in keys.items():   # the context's own checks, now, not at the first step
            _CHECKS[key](value)
        self._config.update(keys)

    def apply(self) -> None:
        """Write this configuration into msx's auto-parallel context (done by every call)."""
        set_auto_parallel_context(**self._config)
        for mode, path in self._operator_files.items():
            op_strategy.configure(mode, path)

    def __call__(self, *args, **kwargs):
        self.apply()
        return self.network(*args, **kwargs)

    def construct(self, *args, **kwargs):
        return self.network(*args, **kwargs)

    # -------------------------------------------------------------- honoured
    def dataset_strategy(self, config) -> None:
        """`"data_parallel"` (each rank feeds its slice of the batch), `"full_batch"` (each feeds the whole batch)
        or one strategy per input (the context's `dataset_strategy`; per-input strategies in one process only)."""
        if config == "full_batch":
            self._set(full_batch=True)
        self._set(dataset_strategy=config)

    def comm_fusion(self, config: dict) -> None:
        self._set(comm_fusion=config)   # accepted: XLA schedules and fuses the collectives itself

    def enable_gradients_mean(self) -> None:
        self._set(gradients_mean=True)

    def disable_gradient_fp32_sync(self) -> None:
        self._set(gradient_fp32_sync=False)

    def disable_loss_repeated_mean(self) -> None:
        self._set(loss_repeated_mean=False)

    def enable_fp32_communication(self) -> None:
        self._set(force_fp32_communication=True)   # refused by the context: use gradient_fp32_sync

    def no_init_parameters_in_compile(self) -> None:
        """Accepted: msx Parameters hold their values from creation, nothing is initialised at compile time."""

    def pipeline(self, stages: int = 1, output_broadcast: bool = False, interleave: bool = False,
                 scheduler: str = "1f1b") -> None:
        """`pipeline_stages=stages` with `pipeline_config={"pipeline_scheduler": scheduler}` ("1f1b", "gpipe"):
        an `nn.PipelineCell` in the network runs its stages over the mesh's `pipe` axis (msx.parallel.pipeline).
        `output_broadcast` is accepted either way: the pipeline's output is summed over `pipe`, so every stage
        holds it. `interleave=True` (virtual stages) and the other schedulers are refused."""
        if scheduler not in _SCHEDULERS:
            raise ValueError(f"AutoParallel.pipeline: scheduler must be one of {_SCHEDULERS}, got {scheduler!r}")
        if not isinstance(stages, int) or isinstance(stages, bool) or stages < 1:
            raise ValueError(f"AutoParallel.pipeline: stages must be an int >= 1, got {stages!r}")
        if not isinstance(output_broadcast, bool) or not isinstance(interleave, bool):
            raise TypeError("AutoParallel.pipeline: output_broadcast and interleave must be bools")
        self._set(pipeline_stages=stages,
                  pipeline_config={"pipeline_interleave": interleave, "pipeline_scheduler": scheduler})

    def get_pipeline_stages(self) -> int:
        return self._config.get("pipeline_stages", 1)

    # -------------------------------------------------------------- the parallel optimizer and strategy files
    def hsdp(self, shard_size: int = -1, threshold: int = 64, optimizer_level: str = "level1") -> None:
        """The parallel optimizer over the data-parallel devices (MindSpore's hybrid sharded data parallel):
        `enable_parallel_optimizer` with `optimizer_weight_shard_size=shard_size`,
        `parallel_optimizer_threshold=threshold` and `optimizer_level` ("level1" state, "level2" also gradients,
        "level3" also weights; msx.parallel.zero)."""
        self._set(enable_parallel_optimizer=True,
                  parallel_optimizer_config={"optimizer_weight_shard_size": shard_size,
                                             "parallel_optimizer_threshold": threshold,
                                             "optimizer_level": optimizer_level})

    def save_param_strategy_file(self, file_path: str) -> None:
        """Where the strategy file goes (`strategy_ckpt_save_file`): written, as in MindSpore, when the network's
        step compiles (MindSpore's `ParallelStrategyMap`, msx.parallel.strategy_file)."""
        if not isinstance(file_path, str) or not file_path:
            raise TypeError(f"AutoParallel.save_param_strategy_file: file_path must be a non-empty str, got "
                            f"{file_path!r}")
        self._set(strategy_ckpt_save_file=file_path)

    def load_param_strategy_file(self, file_path: str) -> None:
        """The strategy file to lay the Parameters out by (`strategy_ckpt_load_file`): read when the network's step
        compiles; each Parameter it lists is cut as the file says (msx.parallel.strategy_file)."""
        if not isinstance(file_path, str):
            raise TypeError(f"the argument 'file_path' must be str, but got the type : {type(file_path)} .")
        self._set(strategy_ckpt_load_file=file_path)

    def save_operator_strategy_file(self, file_path: str) -> None:
        """Save the operators' strategies to `file_path` (absolute, `.json`) when the step compiles, in
        `sharding_propagation` mode (MindSpore's rule; other modes warn and save nothing): msx.parallel.op_strategy
        (the file's names are msx's: the Cell path and the attribute holding the op)."""
        self._operator_file("SAVE", op_strategy.check_path("AutoParallel.save_operator_strategy_file", file_path))

    def load_operator_strategy_file(self, file_path: str) -> None:
        """Give the operators the strategies a saved file (absolute, `.json`) names for them, in
        `sharding_propagation` mode (MindSpore's rule; other modes warn and load nothing): msx.parallel.op_strategy."""
        self._operator_file("LOAD", op_strategy.check_path("AutoParallel.load_operator_strategy_file", file_path))

    def _operator_file(self, mode: str, path: str) -> None:
        if self._parallel_mode != "sharding_propagation":
            what = "save_operator_strategy_file" if mode == "SAVE" else "load_operator_strategy_file"
            warnings.warn(f"AutoParallel.{what}({path!r}) does nothing in parallel_mode={self._parallel_mode!r}: "
                          f"operator strategy files work only with parallel_mode='sharding_propagation' (MindSpore's "
                          f"rule)", stacklevel=3)
            return
        self._operator_files[mode] = path

    def disable_strategy_file_only_for_trainable_params(self) -> None:
        """`strategy_ckpt_config={"only_trainable_params": False}`: msx's strategy files list every Parameter of
        the step either way (docs/parallel.md "Loading a strategy file")."""
        self._set(strategy_ckpt_config={"only_trainable_params": False})

    def set_group_ckpt_save_file(self, file_path: str) -> None:
        """Where the communication-group file goes (`group_ckpt_save_file`; the GROUP_INFO_FILE variable wins, as
        in MindSpore): written when the step compiles, read by `restore_group_info_list` (msx.parallel.group_info)."""
        if not isinstance(file_path, str) or not file_path:
            raise TypeError(f"AutoParallel.set_group_ckpt_save_file: file_path must be a non-empty str, got "
                            f"{file_path!r}")
        self._set(group_ckpt_save_file=file_path)

    def print_local_norm(self) -> None:
        """`dump_local_norm=True`: each step prints every trainable Parameter's gradient norm on each device,
        `dump local norm:  <name> <norm>` (msx.parallel.local_norm)."""
        self._set(dump_local_norm=True)

    def dump_local_norm(self, file_path: str) -> None:
        """`dump_local_norm=True, dump_local_norm_path=file_path`: the norms go to
        `<file_path>/rank_<rank>/local_norm__<name>_<dtype>_<id>.npy` instead of the console."""
        if not isinstance(file_path, str):
            raise TypeError(f"the argument 'file_path' must be str, but got the type : {type(file_path)} .")
        self._set(dump_local_norm=True, dump_local_norm_path=file_path)

    def enable_device_local_norm(self) -> None:
        """`dump_device_local_norm=True`: each step also prints (or dumps, as `device_local_norm`) each device's
        norm over all its gradients."""
        self._set(dump_device_local_norm=True)

    def transformer_opt(self, file_path) -> None:
        """MindSpore's Ascend communication/computation overlap switches (`parallel_speed_up.json`): `None` or ""
        turns them off, which is what msx runs (XLA schedules and overlaps the collectives itself); a file is
        refused, its switches being Ascend graph passes msx does not have."""
        if file_path is None or file_path == "":
            return
        raise ContextError(f"AutoParallel.transformer_opt({file_path!r}) is not available in msx (issue 35): its "
                           f"parallel_speed_up.json switches (recomputation_communication_overlap, "
                           f"grad_matmul_communication_overlap, dataset_broadcast_opt_level, ...) drive MindSpore's "
                           f"Ascend graph passes; XLA schedules and overlaps msx's collectives itself. Pass None")
