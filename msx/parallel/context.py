"""MindSpore's auto-parallel context (`set_auto_parallel_context` and friends) and `ParallelMode`.

Only what msx really does is accepted: `stand_alone`, `data_parallel`
(per-rank programs joined by `AllReduce`, see `msx.parallel.spmd`) and the
global-view modes `semi_auto_parallel` / `auto_parallel` (`.shard` strategies
over a `jax.sharding.Mesh`, see `msx.parallel.sharding`). A key or value msx
cannot honour yet (`hybrid_parallel`, interleaved pipelines, ...) is refused with a `ContextError` that says so, never
stored and ignored. Keys that only tune communication performance
(`all_reduce_fusion_config`, `comm_fusion`) are accepted: XLA schedules and
fuses the collectives itself, and results do not depend on them.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

import jax

from ..communication.management import GlobalComm, on_init
from ..errors import ContextError
from .sharding import check_strategy, clear_plans


class ParallelMode:
    """Parallel mode options (MindSpore's `ParallelMode`)."""

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


GLOBAL_VIEW_MODES = (ParallelMode.SEMI_AUTO_PARALLEL, ParallelMode.AUTO_PARALLEL)
HONOURED_MODES = (ParallelMode.STAND_ALONE, ParallelMode.DATA_PARALLEL, *GLOBAL_VIEW_MODES)
SEARCH_MODES = ("recursive_programming", "sharding_propagation", "dynamic_programming")

_DEFAULTS: dict[str, Any] = {
    "parallel_mode": ParallelMode.STAND_ALONE,
    "device_num": 1,
    "global_rank": 0,
    "gradients_mean": False,
    "gradient_fp32_sync": True,
    "parameter_broadcast": False,
    "full_batch": False,
    "dataset_strategy": "data_parallel",
    "enable_parallel_optimizer": False,
    "parallel_optimizer_config": {},
    "search_mode": "recursive_programming",
    "pipeline_stages": 1,
    "pipeline_config": {"pipeline_interleave": False, "pipeline_scheduler": "1f1b"},
    "grad_accumulation_step": 1,
    "all_reduce_fusion_config": [],
    "comm_fusion": {},
    "strategy_ckpt_load_file": "",
    "strategy_ckpt_save_file": "",
    "strategy_ckpt_config": {"only_trainable_params": True},   # its load/save files are the two keys above
    "group_ckpt_save_file": "",
    "loss_repeated_mean": True,
    "enable_alltoall": False,
    "force_fp32_communication": False,
    "sharding_propagation": False,
    "auto_pipeline": False,
    "pipeline_result_broadcast": False,
    "pipeline_segments": 1,
    "optimizer_weight_shard_aggregated_save": False,
    "init_param_in_compile": True,
    "dump_local_norm": False,
    "dump_local_norm_path": "",
    "dump_device_local_norm": False,
    "communi_parallel_mode": "all_group_parallel",
    "auto_parallel_new_interface": False,
}
_set: dict[str, Any] = {}  # keys the user set explicitly (device_num/global_rank otherwise follow the cluster)


def _not_yet(key: str, value: Any, what: str) -> ContextError:
    return ContextError(f"set_auto_parallel_context: {key}={value!r} is not supported by msx yet ({what}); "
                        f"msx runs stand_alone, data_parallel, semi_auto_parallel and auto_parallel (see docs/parallel.md)")


def _mode(v):
    if v not in ParallelMode.MODE_LIST:
        raise ContextError(f"set_auto_parallel_context: parallel_mode={v!r} is not valid; choose one of "
                           f"{ParallelMode.MODE_LIST}")
    if v not in HONOURED_MODES:
        raise _not_yet("parallel_mode", v, "hybrid parallelism is not implemented")


def _positive_int(key: str) -> Callable:
    def check(v):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ContextError(f"set_auto_parallel_context: {key} must be an int >= 1, got {v!r}")
    return check


def _bool(key: str) -> Callable:
    def check(v):
        if not isinstance(v, bool):
            raise ContextError(f"set_auto_parallel_context: {key} must be a bool, got {v!r}")
    return check


def _only(key: str, allowed: Any, what: str) -> Callable:
    """Accept only the value msx implements; any other is refused as not supported."""
    def check(v):
        if v != allowed:
            raise _not_yet(key, v, what)
    return check


def _search_mode(v):
    if v not in SEARCH_MODES:
        raise ContextError(f"set_auto_parallel_context: search_mode={v!r} is not valid; choose one of {SEARCH_MODES}")


def _kind(key: str, types: tuple) -> Callable:
    def check(v):
        if not isinstance(v, types):
            raise ContextError(f"set_auto_parallel_context: {key} must be a {types[0].__name__}, got {v!r}")
    return check


def _global_rank(v):
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise ContextError(f"set_auto_parallel_context: global_rank must be an int >= 0, got {v!r}")


OPTIMIZER_LEVELS = ("level1", "level2", "level3")
_OPTIMIZER_CONFIG_KEYS = ("gradient_accumulation_shard", "parallel_optimizer_threshold",
                          "optimizer_weight_shard_size", "optimizer_level")
DEFAULT_THRESHOLD_KB = 64   # parallel_optimizer_threshold's default: smaller Parameters stay whole


def _known_keys(key: str, config: Any, keys: tuple) -> None:
    """A dict-valued key's value must be a dict of the keys MindSpore names (`keys`), each refused by name else."""
    if not isinstance(config, dict):
        raise ContextError(f"set_auto_parallel_context: {key} must be a dict, got {config!r}")
    unknown = sorted(set(config) - set(keys))
    if unknown:
        raise ContextError(f"set_auto_parallel_context: {key} has unknown keys {unknown}; valid keys are "
                           f"{list(keys)}")


def _optimizer_config(config: Any) -> None:
    """MindSpore's `parallel_optimizer_config` keys (msx.parallel.optimizer implements them); what msx cannot
    honour is refused, not ignored."""
    _known_keys("parallel_optimizer_config", config, _OPTIMIZER_CONFIG_KEYS)
    _shard_size(config.get("optimizer_weight_shard_size", -1))
    threshold = config.get("parallel_optimizer_threshold", DEFAULT_THRESHOLD_KB)
    if not isinstance(threshold, int) or isinstance(threshold, bool) or threshold < 0:
        raise ContextError(f"set_auto_parallel_context: parallel_optimizer_threshold must be an int >= 0 (KB), "
                           f"got {threshold!r}")
    level = config.get("optimizer_level", "level1")
    if level not in OPTIMIZER_LEVELS:
        raise ContextError(f"set_auto_parallel_context: optimizer_level must be one of {OPTIMIZER_LEVELS}, "
                           f"got {level!r}")
    if config.get("gradient_accumulation_shard", False) is not False:
        raise ContextError("set_auto_parallel_context: gradient_accumulation_shard=True is not supported by msx "
                           "(nn.GradAccumulationCell keeps its accumulated gradients whole)")


COMMUNI_PARALLEL_MODES = ("all_group_parallel", "same_server_group_parallel", "no_group_parallel")
_STRATEGY_CKPT_KEYS = ("load_file", "save_file", "only_trainable_params")


def _one_of(key: str, values: tuple) -> Callable:
    def check(v):
        if v not in values:
            raise ContextError(f"set_auto_parallel_context: {key} must be one of {values}, got {v!r}")
    return check


def _shard_size(v):
    if not isinstance(v, int) or isinstance(v, bool) or (v < 1 and v != -1):
        raise ContextError(f"set_auto_parallel_context: optimizer_weight_shard_size must be -1 or an int >= 1, "
                           f"got {v!r}")


def _strategy_ckpt_config(config: Any) -> None:
    """MindSpore's `strategy_ckpt_config` ({"load_file", "save_file", "only_trainable_params"}): one dict over
    `strategy_ckpt_load_file` and `strategy_ckpt_save_file` (setting either changes it, as in MindSpore)."""
    _known_keys("strategy_ckpt_config", config, _STRATEGY_CKPT_KEYS)
    for key in ("load_file", "save_file"):
        if not isinstance(config.get(key, ""), str):
            raise ContextError(f"set_auto_parallel_context: strategy_ckpt_config's {key} must be a str, got "
                               f"{config[key]!r}")
    if not isinstance(config.get("only_trainable_params", True), bool):
        raise ContextError(f"set_auto_parallel_context: strategy_ckpt_config's only_trainable_params must be a "
                           f"bool, got {config['only_trainable_params']!r}")


def _dataset_strategy(v: Any) -> None:
    """"data_parallel" (each rank feeds its slice of the batch), "full_batch" (each feeds the whole batch) or one
    strategy per network input (tuples of ints or `Layout`s: how each input is cut over the devices)."""
    if v in ("data_parallel", "full_batch"):
        return
    if isinstance(v, str) or not isinstance(v, (tuple, list)) or not v:
        raise ContextError(f"set_auto_parallel_context: dataset_strategy must be 'full_batch' or 'data_parallel' "
                           f"or a tuple of strategies (one per input), got {v!r}")
    for i, strategy in enumerate(v):
        check_strategy(strategy, f"set_auto_parallel_context: dataset_strategy[{i}]")


def _spelled(kwargs: dict) -> dict:
    """`kwargs` with MindSpore's other spellings written as the keys msx keeps: strategy_ckpt_config's files,
    the old `optimizer_weight_shard_size` and `auto_parallel_search_mode`."""
    out = dict(kwargs)
    config = out.pop("strategy_ckpt_config", None)
    if config is not None:
        for key in ("load_file", "save_file"):
            if key in config:
                out.setdefault(f"strategy_ckpt_{key}", config[key])
        if "only_trainable_params" in config:
            out["strategy_ckpt_config"] = {"only_trainable_params": config["only_trainable_params"]}
    if "optimizer_weight_shard_size" in out:
        size = out.pop("optimizer_weight_shard_size")
        base = out.get("parallel_optimizer_config", get_auto_parallel_context("parallel_optimizer_config"))
        out["parallel_optimizer_config"] = {**base, "optimizer_weight_shard_size": size}
    if "full_batch" in out:   # one key in MindSpore: full_batch=True is dataset_strategy="full_batch"
        full = out.pop("full_batch")
        out.setdefault("dataset_strategy", "full_batch" if full else "data_parallel")
    if isinstance(out.get("dataset_strategy"), list):
        out["dataset_strategy"] = tuple(tuple(s) if isinstance(s, list) else s for s in out["dataset_strategy"])
    if "auto_parallel_search_mode" in out:
        out.setdefault("search_mode", out.pop("auto_parallel_search_mode"))
    return out


PIPELINE_SCHEDULERS = ("1f1b", "gpipe")
_MS_SCHEDULERS = ("1f1b", "gpipe", "seqpipe", "seqvpp", "seqsmartvpp", "zero_bubble_v")


def _pipeline_config(config: Any) -> None:
    """MindSpore's `pipeline_config` ({"pipeline_interleave": bool, "pipeline_scheduler": str}); msx runs the
    "1f1b" and "gpipe" schedules without interleaving (msx.parallel.pipeline), the rest is refused."""
    _known_keys("pipeline_config", config, ("pipeline_interleave", "pipeline_scheduler"))
    interleave = config.get("pipeline_interleave", False)
    if not isinstance(interleave, bool):
        raise ContextError(f"set_auto_parallel_context: pipeline_interleave must be a bool, got {interleave!r}")
    if interleave:
        raise _not_yet("pipeline_config", config, "interleaved (virtual) pipeline stages are not implemented")
    scheduler = config.get("pipeline_scheduler", "1f1b")
    if scheduler not in _MS_SCHEDULERS:
        raise ContextError(f"set_auto_parallel_context: pipeline_scheduler must be one of {_MS_SCHEDULERS}, "
                           f"got {scheduler!r}")
    if scheduler not in PIPELINE_SCHEDULERS:
        raise _not_yet("pipeline_config", config, f"msx schedules {PIPELINE_SCHEDULERS}")


_CHECKS: dict[str, Callable] = {
    "parallel_mode": _mode,
    "device_num": _positive_int("device_num"),
    "global_rank": _global_rank,
    "gradients_mean": _bool("gradients_mean"),
    "gradient_fp32_sync": _bool("gradient_fp32_sync"),
    "parameter_broadcast": _only("parameter_broadcast", False, "ranks start equal by seeding, set_seed"),
    "full_batch": _bool("full_batch"),   # dataset_strategy="full_batch" (set_auto_parallel_context writes it there)
    "dataset_strategy": _dataset_strategy,
    "enable_parallel_optimizer": _bool("enable_parallel_optimizer"),   # msx.parallel.optimizer: ZeRO-1
    "parallel_optimizer_config": _optimizer_config,
    "search_mode": _search_mode,
    "pipeline_stages": _positive_int("pipeline_stages"),   # msx.parallel.pipeline, run by nn.PipelineCell
    "pipeline_config": _pipeline_config,
    "grad_accumulation_step": _only("grad_accumulation_step", 1, "wrap the network in nn.GradAccumulationCell "
                                    "(parallel.nn.GradAccumulation), which msx accumulates over"),
    "all_reduce_fusion_config": _kind("all_reduce_fusion_config", (list, tuple)),
    "comm_fusion": _kind("comm_fusion", (dict,)),
    # read when a global-view step compiles: the Parameters are laid out as the file says (strategy_file)
    "strategy_ckpt_load_file": _kind("strategy_ckpt_load_file", (str,)),
    "strategy_ckpt_config": _strategy_ckpt_config,
    # written when a global-view step compiles and by save_checkpoint(integrated_save=False) (strategy_file)
    "strategy_ckpt_save_file": _kind("strategy_ckpt_save_file", (str,)),
    # the communication-group file, written when a global-view step compiles (GROUP_INFO_FILE wins; group_info)
    "group_ckpt_save_file": _kind("group_ckpt_save_file", (str,)),
    "loss_repeated_mean": _bool("loss_repeated_mean"),
    "enable_alltoall": _bool("enable_alltoall"),   # XLA's partitioner picks the collectives of a redistribution
    "force_fp32_communication": _only("force_fp32_communication", False, "use gradient_fp32_sync"),
    "sharding_propagation": _bool("sharding_propagation"),  # XLA's partitioner always propagates
    "auto_pipeline": _only("auto_pipeline", False, "msx does not choose the stage count: set pipeline_stages"),
    # every rank gets the pipeline's whole result already (a global-view step's outputs are replicated)
    "pipeline_result_broadcast": _bool("pipeline_result_broadcast"),
    "pipeline_segments": _only("pipeline_segments", 1, "interleaved (virtual) pipeline stages are not implemented"),
    # the old spelling of parallel_optimizer_config's key, written there (set_auto_parallel_context)
    "optimizer_weight_shard_size": _shard_size,
    # an integrated save_checkpoint always writes whole Parameters, the parallel optimizer's cut gathered
    "optimizer_weight_shard_aggregated_save": _bool("optimizer_weight_shard_aggregated_save"),
    # msx initialises a Parameter when it is made; where the initial values are computed changes no value
    "init_param_in_compile": _bool("init_param_in_compile"),
    # each gradient's local norm, printed or dumped by the compiled step (msx.parallel.local_norm)
    "dump_local_norm": _bool("dump_local_norm"),
    "dump_local_norm_path": _kind("dump_local_norm_path", (str,)),
    "dump_device_local_norm": _bool("dump_device_local_norm"),
    # how MindSpore runs its gradient communication groups side by side: XLA schedules the collectives itself
    "communi_parallel_mode": _one_of("communi_parallel_mode", COMMUNI_PARALLEL_MODES),
    "auto_parallel_search_mode": _search_mode,   # the old spelling of search_mode, written there
    "auto_parallel_new_interface": _bool("auto_parallel_new_interface"),   # set by mindspore.parallel's AutoParallel
}


def set_auto_parallel_context(**kwargs: Any) -> None:
    """Set auto-parallel keys (MindSpore's names); all are checked before any is applied."""
    for key, value in kwargs.items():
        if key not in _CHECKS:
            raise ContextError(f"set_auto_parallel_context: unknown key {key!r}; valid keys are {sorted(_CHECKS)}")
        _CHECKS[key](value)
    kwargs = _spelled(kwargs)
    global_view = kwargs.get("parallel_mode", get_parallel_mode()) in GLOBAL_VIEW_MODES
    config = kwargs.get("parallel_optimizer_config", get_auto_parallel_context("parallel_optimizer_config"))
    if config.get("optimizer_level", "level1") == "level3" and not global_view and \
            kwargs.get("parallel_mode", get_parallel_mode()) != ParallelMode.STAND_ALONE:
        raise ContextError("set_auto_parallel_context: optimizer_level='level3' is not supported by msx in "
                           "data_parallel (per-rank programs keep every weight whole; level1 and level2 are); it is "
                           "in semi_auto_parallel and auto_parallel, where weights are laid out over the mesh "
                           "(msx.parallel.zero)")
    if "device_num" in kwargs and (GlobalComm.INITED or global_view):
        check_device_num(kwargs["device_num"])
    _set.update(copy.deepcopy(kwargs))


def check_device_num(device_num: int | None = None) -> None:
    """`device_num`, when set, must be the job's ranks times the devices each drives (1 up to all its local
    devices, `XLA_FLAGS=--xla_force_host_platform_device_count=8` gives a CPU process 8): msx does not run part
    of a job's ranks."""
    device_num = _set.get("device_num") if device_num is None else device_num
    ranks, local = jax.process_count(), jax.local_device_count()
    if device_num is not None and (device_num % ranks or not 1 <= device_num // ranks <= local):
        raise ContextError(f"set_auto_parallel_context: device_num={device_num} but the job has {ranks} rank(s) "
                           f"(msrun --worker_num) of {local} device(s) each; device_num must be {ranks} times a "
                           f"number from 1 to {local}, or left unset")


on_init(check_device_num)   # communication.init() checks device_num against the group it joined


def stage_count(device_num: int | None = None) -> int:
    """`pipeline_stages`, checked against `device_num` (each stage gets `device_num / pipeline_stages` devices)."""
    stages = get_auto_parallel_context("pipeline_stages")
    device_num = get_auto_parallel_context("device_num") if device_num is None else device_num
    if device_num % stages:
        raise ContextError(f"pipeline_stages={stages} must divide device_num={device_num} (every stage gets "
                           f"device_num / pipeline_stages devices)")
    return stages


def get_auto_parallel_context(attr_key: str) -> Any:
    """The current value of a key; `device_num`/`global_rank` follow the cluster unless set explicitly."""
    if attr_key in ("pipeline_scheduler", "pipeline_interleave"):   # MindSpore reads pipeline_config's keys by name
        config = {**_DEFAULTS["pipeline_config"], **_set.get("pipeline_config", {})}
        return config[attr_key]
    if attr_key not in _CHECKS:
        raise ContextError(f"get_auto_parallel_context: unknown key {attr_key!r}; valid keys are {sorted(_CHECKS)}")
    if attr_key == "strategy_ckpt_config":   # one dict over the two file keys
        return {"load_file": get_auto_parallel_context("strategy_ckpt_load_file"),
                "save_file": get_auto_parallel_context("strategy_ckpt_save_file"),
                **_set.get(attr_key, _DEFAULTS[attr_key])}
    if attr_key == "full_batch":
        return get_auto_parallel_context("dataset_strategy") == "full_batch"
    if attr_key == "optimizer_weight_shard_size":
        return get_auto_parallel_context("parallel_optimizer_config").get("optimizer_weight_shard_size", -1)
    if attr_key == "auto_parallel_search_mode":
        return get_auto_parallel_context("search_mode")
    if attr_key in _set:
        return copy.deepcopy(_set[attr_key])
    if attr_key in ("device_num", "global_rank"):
        if GlobalComm.INITED or (attr_key == "device_num" and get_parallel_mode() in GLOBAL_VIEW_MODES):
            return jax.device_count() if attr_key == "device_num" else jax.process_index()
    return copy.deepcopy(_DEFAULTS[attr_key])


def reset_auto_parallel_context() -> None:
    """Every key back to its default (and no Parameter keeps a `parameter_plan` layout)."""
    _set.clear()
    clear_plans()
    for hook in ON_RESET:
        hook()


ON_RESET: list[Callable[[], None]] = []   # what else a reset clears (msx.parallel.op_strategy's files)


def get_parallel_mode() -> str:
    return get_auto_parallel_context("parallel_mode")
