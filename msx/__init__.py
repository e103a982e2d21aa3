"""msx: MindSpore-2.x-style deep learning on JAX. `import msx as ms` ports MindSpore code.

Layers, bottom first (ARCHITECTURE rules 10 and 12). Each numbered line is one sub-layer; a name on it is a
package or a module (the longest name that contains a module is its unit). A unit imports only units of
lower lines, never one above and never a peer on its own line, not even inside a function; a lower layer
that must reach a higher one takes a callback or a registry entry (capture's recorder in `recording`,
backends' context-key checks, the backend directory of `passes.registry`, `nn.initializer` for
Tensor(init=), the Cell protocol `cell_protocol` for capture and runtime). `tests/test_layering.py`
(with `msx/tools/import_graph.py`) judges every import between two units; its few exceptions are listed
there, each with its reason.

base
1. errors — the error family; imports nothing of msx
2. versions release atomic hostevents dtype recording compat ignored_args unavailable log import_gc xla_options — leaf modules
3. compile_cache runtime.value_sources runtime.list_iterator runtime.outcomes runtime.entries refused_runtime — leaves: the compile cache, guard sources, markers, the one cache-entry type; refused runtime controls
4. fileread sizes tensorfile communication.management — checked readers, size limits, the launch
tensor
5. tensor cell_protocol — Tensor and Parameter over jax arrays; what the layers below nn know of a Cell
6. parallel stablehlo_file ms_checkpoint run dynamic_spec sparse_tensor — the parallel settings; Tensor-level file formats; Symbol
7. context runtime.guards runtime.signature — settings; the guard classes; the call signature
8. random_state eager — seeds; eager dispatch
ops
9. ops runtime.python_guards — the primitive registry and the op families; guards on Python values
10. numpy communication.comm_func autograd_int parallel.optimizer parallel.local_norm ir — op families over ops; the IR
graphs
11. capture.builder capture.session communication profiler.hlo — the one graph builder; communication's names; HLO text
12. passes — graph -> graph rewrites (the rule engine)
13. backends — build and run graphs (XLA, the simulated Ascend)
nn
14. autograd — grad, value_and_grad over the builder
15. transforms loop_capture — vmap, vjp, jvp and the Jacobians: jax's eagerly, autograd's and a Vmap node inside a capture; ops.WhileLoop/ForiLoop/Scan as While/Scan nodes inside a capture
16. taylor — jet, derivative, linearize over transforms: jax's Taylor mode eagerly, nested jvp inside a capture
17. nn — Cells, layers, losses, optimizers
capture and runtime
18. capture — the capture modes (ast, bytecode, trace), above nn (bytecode calls a Cell's own code)
19. runtime — the pipeline (a mode's capture -> passes -> build), compiled entries and the cache
20. dynamic stages amp experimental mint parallel.nn parallel.auto_parallel rewrite — shapes, stage calls, Cells' uses; rewrite: construct as editable nodes
jit
21. jit parallel.api — the decorator; mindspore.parallel's names
22. graph_hints checkpoint mindir — hints over jit; weights and MindIR files
formats
23. formats parallel.dist_checkpoint — the format registry: graph files (MSXIR, STABLEHLO, MINDIR, NPZ) and checkpoints; distributed checkpoints
24. export — msx.export / msx.load over the registry
25. viz dataset — the graph viewer; the data pipeline
tools
26. train mindrecord common profiler boost — training loops; MindSpore's file and common names; the profiler
27. tools __main__ — developer tools; the command line
"""
from __future__ import absolute_import  # noqa: F401  (MindSpore's top level exports it too)

from . import import_gc as _import_gc

_import_gc.begin()  # fewer garbage collections while msx and jax import; `end()` below freezes what they made
import jax as _jax  # noqa: E402

_jax.config.update("jax_enable_x64", True)  # msx.float64/int64 are real dtypes; defaults stay float32/int64
import importlib
from .communication.management import join_if_launched as _join_if_launched  # noqa: E402

_join_if_launched()  # an msrun worker joins jax's cluster before jax's first computation (jax requires it)

from .dtype import (Type, bfloat16, bool_, complex64, double, float16, float32, float64, float_, half,  # noqa: E402
                    int8, int16, int32, int64, int_, uint8, uint32)
from . import dtype  # noqa: E402
from .tensor import Parameter, Tensor, from_numpy  # noqa: E402
from .context import GRAPH_MODE, PYNATIVE_MODE, get_context, get_seed, set_context, set_seed  # noqa: E402
from . import errors, ops  # noqa: E402
from .autograd import get_grad, grad, value_and_grad  # noqa: E402
from .autograd import GradOperation as _GradOperation  # noqa: E402
ops.GradOperation = ops.composite.GradOperation = _GradOperation  # ops exports it; autograd, above ops, defines it
from . import nn, mint  # noqa: E402
from .jit import jit  # noqa: E402
from .dynamic import Symbol, enable_dynamic  # noqa: E402
from . import backends, ir, passes  # noqa: E402
from .export import export, load  # noqa: E402
from .mindir.split import export_split_mindir  # noqa: E402
from .checkpoint import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: E402
from . import amp, train  # noqa: E402
from .graph_hints import constexpr as _constexpr, jit_class as _jit_class, mutable as _mutable  # noqa: E402
# mindspore.amp exports the graph hints too; they live above amp (graph_hints, jit), so they are added here
amp.jit, amp.jit_class, amp.mutable, amp.constexpr = jit, _jit_class, _mutable, _constexpr
from . import refused_runtime as _refused  # noqa: E402  (MindSpore's Ascend runtime controls: they refuse use)
globals().update({n: _refused.NAMES[n] for n in _refused.TOP_LEVEL_NAMES})
from .train import ConvertModelUtils, ConvertNetUtils  # noqa: E402,F401  (THOR: refused, msx.train.train_thor)

from .parallel.context import (ParallelMode, get_auto_parallel_context, reset_auto_parallel_context,  # noqa: E402
                               set_auto_parallel_context)
from . import communication, parallel  # noqa: E402
from .parallel import api as _parallel_api  # noqa: E402  (mindspore.parallel's names: issue 35)

from .parallel import dist_checkpoint as _dist_checkpoint  # noqa: E402  (distributed checkpoints)

_dist_checkpoint.install(parallel)
_parallel_api.install(parallel)
from .ops.sharding_ops import shard  # noqa: E402,F401  (MindSpore's ms.shard)
from .ops.placement_ops import reshard  # noqa: E402,F401  (MindSpore's ms.reshard)

from .release import __version__  # noqa: E402,F401
from . import profiler, viz  # noqa: E402
from .profiler import Profiler  # noqa: E402

# MindSpore 2.x's wider top level (issue 22): dtype aliases, functional transforms, graph hints, seeds, train
from .dtype import (byte, cdouble, cfloat, complex128, dtype_to_nptype, dtype_to_pytype, float8_e4m3fn,  # noqa: E402
                    float8_e5m2, get_py_obj_dtype, intc, intp, long, pytype_to_dtype, short, single, ubyte, uint16,
                    uint64, uintc, uintp, ushort)
from .dtype import bool as bool, float as float, int as int  # noqa: E402,F401  (MindSpore's ms.float etc.)
from .tensor import ParameterTuple, is_tensor  # noqa: E402
from .sparse_tensor import COOTensor, CSRTensor, RowTensor, SparseTensor  # noqa: E402
from .transforms import jacfwd, jacrev, jvp, vjp, vmap  # noqa: E402
from . import loop_capture as _loop_capture  # noqa: E402,F401  (fills ops.loop_ops.CAPTURE: loops under jit)
for _m in (ops, ops.functional):  # MindSpore's ops and ops.functional export the transforms; they live above ops
    _m.grad, _m.value_and_grad, _m.get_grad, _m.jacfwd, _m.jacrev, _m.jvp, _m.vjp, _m.vmap = (
        grad, value_and_grad, get_grad, jacfwd, jacrev, jvp, vjp, vmap)
from .taylor import derivative, jet, linearize  # noqa: E402  (ops.jet / ops.derivative / ops.linearize)
for _m in (ops, ops.functional):
    _m.derivative, _m.jet, _m.linearize = derivative, jet, linearize
from .graph_hints import (COMPATIBLE, LAX, STRICT, constexpr, jit_class, lazy_inline, ms_function,  # noqa: E402
                          mutable, no_inline)
from .random_state import get_rng_state, initial_seed, manual_seed, seed, set_rng_state  # noqa: E402
from .train import (Accuracy, Callback, CheckpointConfig, DynamicLossScaleManager, EarlyStopping,  # noqa: E402
                    FixedLossScaleManager, History, Loss, LossMonitor, MAE, MSE, Metric, Model, ModelCheckpoint,
                    RunContext, TimeMonitor, get_metric_fn)
from .train import (ConfusionMatrixMetric, HausdorffDistance, MeanSurfaceDistance,  # noqa: E402
                    OcclusionSensitivity, RootMeanSquareDistance)
from . import boost, common  # noqa: E402
# `msx.tensor` (the module) is callable: `msx.tensor([1, 2])` is MindSpore 2.x's lower-case constructor
from . import experimental  # noqa: E402,F401  (MindSpore's mindspore.experimental: torch-style optim)
from . import stages  # noqa: E402,F401  (public stage calls: stages.optimize(graph) -> Lowered)
from . import eager  # noqa: E402,F401  (msx.eager.cache_info(): the compiled eager dispatch cache)
from . import numpy  # noqa: E402,F401  (MindSpore's mindspore.numpy: docs/numpy.md)
# issue 22, more of MindSpore's top level: train re-exports, runtime/device helpers, type kinds, interop
from .train import (BackupAndRestore, BleuScore, ConfusionMatrix, CosineSimilarity, DatasetHelper, Dice, F1,  # noqa: E402
                    Fbeta, LambdaCallback, LearningRateScheduler, LossScaleManager, Perplexity, Precision, ROC, Recall,
                    ReduceLROnPlateau, Top1CategoricalAccuracy, Top5CategoricalAccuracy, TopKCategoricalAccuracy, auc,
                    async_ckpt_thread_status, build_train_network, ckpt_to_safetensors, connect_network_with_dataset,
                    data_sink, load_checkpoint_async, merge_sliced_parameter, names, rearrange_inputs,
                    safetensors_to_ckpt)
from .train import SummaryCollector, SummaryLandscape, SummaryRecord  # noqa: E402  (TensorBoard: docs/summary.md)
from .train import OnRequestExit, get_ckpt_path_with_strategy  # noqa: E402
from .train.callback import ExitByRequest  # noqa: E402
from .common.device import (empty_cache, get_current_device, max_memory_allocated, max_memory_reserved,  # noqa: E402
                            memory_allocated, memory_reserved, memory_stats, memory_summary, run_check,
                            set_cpu_affinity, set_deterministic, set_device, set_recursion_limit, synchronize)
from .common.device import (DeviceCtx, reset_max_memory_allocated, reset_max_memory_reserved,  # noqa: E402
                            reset_peak_memory_stats, set_memory)
from .eager.saved_hooks import register_saved_tensors_hooks, saved_tensors_hooks  # noqa: E402
from .log import get_level, get_log_config  # noqa: E402
from .dtype import hifloat8, qint4x2  # noqa: E402
from .ops.dispatch_mode import MsDispatchMode  # noqa: E402
from .common.generator import Generator, default_generator  # noqa: E402
from .common.jit_config import JitConfig  # noqa: E402
from .common.recompute import recompute  # noqa: E402
from .common.interop import from_dlpack, frombuffer, swap_tensors, to_dlpack  # noqa: E402
from .common.mindir_files import load_mindir, save_mindir  # noqa: E402
from .common.type_kinds import (Int, QuantDtype, TensorType, list_, number, string, tensor_type,  # noqa: E402
                                tuple_, type_none, uint)
from . import rewrite  # noqa: E402,F401  (MindSpore's mindspore.rewrite: docs/rewrite.md)
from .rewrite import Node, NodeType, ScopedValue, SymbolTree  # noqa: E402


# msx.dataset and msx.mindrecord stand on grain (with orbax, ~1 s to import): they load on first use, so
# `import msx` costs what the framework needs (issue 31). `msx.dataset`, `import msx.dataset`,
# `from msx import dataset` and `msx.FileWriter` all work as before.
_LAZY = {"dataset": ("msx.dataset", None), "mindrecord": ("msx.mindrecord", None),
         "FileWriter": ("msx.mindrecord", "FileWriter")}
# MindSpore's top level also names these of mindspore.mindrecord and mindspore.parallel (the same objects)
_LAZY.update({name: ("msx.mindrecord", name) for name in (
    "FileReader", "MindPage", "SUCCESS", "FAILED", "Cifar10ToMR", "Cifar100ToMR", "CsvToMR", "ImageNetToMR",
    "MnistToMR", "TFRecordToMR")})
_LAZY.update({name: ("msx.parallel", name) for name in (
    "Layout", "build_searched_strategy", "get_algo_parameters", "set_algo_parameters", "reset_algo_parameters",
    "load_distributed_checkpoint", "load_segmented_checkpoints", "merge_pipeline_strategys", "parameter_broadcast",
    "rank_list_for_transform", "restore_group_info_list", "sync_pipeline_shared_parameters",
    "transform_checkpoint_by_rank", "transform_checkpoints", "unified_safetensors")})


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'msx' has no attribute {name!r}")
    module_name, attr = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


_import_gc.end()  # the last statement: what the import made goes to the collector's permanent generation
