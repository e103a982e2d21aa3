"""MindSpore's controls of its own Ascend/GPU runtime, parameter server, file encryption and fault-tolerance
services. msx runs on XLA, which owns streams, memory pools and kernel launches itself, so these names exist
(imports of MindSpore programs work) and refuse use with `NotAvailableError` naming what to do instead
(`msx.unavailable`). The tables are published by `msx/__init__.py`, `msx.common`, `msx.train`, `msx.amp`."""
from __future__ import annotations

from .unavailable import refuse, refuse_decorators

_SYNC = "XLA orders each device's work itself; wait for it with ms.synchronize()"

TOP_LEVEL = {
    ("a device-stream control of MindSpore's Ascend/GPU runtime", _SYNC): (
        "Stream StreamCtx Event current_stream default_stream communication_stream set_cur_stream"),
    ("an Ascend core-limit control", "XLA schedules the device's cores itself"): (
        "StreamLimitCtx get_stream_limit set_stream_limit reset_stream_limit get_device_limit set_device_limit"),
    ("a kernel-launch control of MindSpore's runtime", _SYNC): (
        "launch_blocking dispatch_threads_num set_kernel_launch_capture set_kernel_launch_group"),
    ("a memory-pool control of MindSpore's runtime",
     "XLA's allocator manages device memory (ms.empty_cache(), ms.memory_stats())"): (
        "MemPool PluggableAllocator use_mem_pool memory_replay ms_memory_recycle"),
    ("MindSpore's parameter-server mode", "train data-parallel with msx.communication (docs/parallel.md)"): (
        "set_ps_context get_ps_context reset_ps_context"),
    ("Ascend's kernel data dump", "print values in PyNative, or record them with ops.TensorSummary and "
     "SummaryRecord"): "set_dump",
    ("MindSpore's file encryption and model obfuscation",
     "msx reads and writes plain files; encrypt them outside msx"): (
        "set_enc_key set_enc_mode set_dec_mode obfuscate_ckpt load_obf_params_into_net"),
    ("the MindIO checkpoint cache service", "load checkpoints with ms.load_checkpoint"): (
        "mindio_preload set_mindio_server_info"),
    ("an Ascend hardware-fault check (silent data corruption, stress test)", "XLA devices need none"): (
        "sdc_detect_start sdc_detect_stop get_sdc_detect_result stress_detect"),
    ("MindSpore's Ascend fault-tolerance service (MindIO TFT)",
     "save checkpoints with train.ModelCheckpoint and resume from them"): (
        "TFTCommValue TrainFaultTolerance RSCPluginHandle"),
    ("an Ascend runtime diagnostic", "inspect graphs with msx.viz and timings with msx.Profiler"): (
        "comm_exec_order_check runtime_execution_order_check EnvProfiler"),
    ("Ascend's FLOPs counter", "measure with msx.Profiler"): "flops_collection FlopsUtilizationCollector",
    ("the raw storage object of MindSpore's runtime (Tensor.untyped_storage)",
     "jax arrays share no mutable storage; exchange tensors with ms.to_dlpack / ms.from_dlpack, or asnumpy()"): (
        "UntypedStorage"),
    ("an internal of MindSpore's jit", "msx.jit decides what it captures itself (docs/jit.md)"): (
        "get_obj_module_and_name_info is_invalid_or_jit_forbidden_method is_jit_forbidden_module"),
}
JIT_DECORATORS = {
    ("an internal of MindSpore's jit", "msx.jit decides what it captures itself (docs/jit.md)"): (
        "jit_forbidden_register jit_view_unsupported"),
}
COMMON = ("set_dump", "mindio_preload", "set_mindio_server_info", "ms_memory_recycle", "flops_collection",
          "UntypedStorage")
TRAIN = ("TrainFaultTolerance", "FlopsUtilizationCollector")
AMP = {
    ("an Ascend float-status kernel", "detect overflow with amp.all_finite"): (
        "AllFinite NPUClearFloatStatusV2 NPUGetFloatStatusV2"),
    ("MindSpore's check of an Ascend installation", "check msx with ms.run_check()"): "AscendEnvChecker",
    ("an object of MindSpore's C++ runtime", "use ms.set_context / ms.get_context and msx.jit"): (
        "JitExecutor_ MSContext"),
}

NAMES: dict = {}
TOP_LEVEL_NAMES = refuse(NAMES, "mindspore", TOP_LEVEL)
AMP_NAMES = refuse(NAMES, "mindspore.amp", AMP)
MINT_NAMES = refuse_decorators(NAMES, "mindspore.mint", JIT_DECORATORS)
