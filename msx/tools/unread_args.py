"""Arguments msx's MindSpore-facing functions accept and never read, found from the source with `ast`.

A MindSpore argument msx cannot honour must warn or raise (`msx/ignored_args.py`), never be dropped in
silence. An argument a function never reads at all is the first sign of a silent drop, so this scan lists
every public function and method in the MindSpore-facing packages whose parameter is never named in its
body (passing it to `not_honoured` or `only_default` counts as reading it). Each such parameter must be in
`READ_ELSEWHERE` with the reason it needs no reading — the behaviour is the same by construction, or another
layer reads it — and `tests/test_ignored_args.py` fails on any other, and on a listed one that is gone.

`python -m msx.tools.unread_args` prints the ones not listed (`--all`: every one, with its reason).
"""
from __future__ import annotations

import argparse
import ast
import fnmatch
from pathlib import Path

# the MindSpore-facing parts of msx, relative to the package root (the compiler's internals take protocol
# arguments they may not need, which is no one's MindSpore argument)
SCOPE = ("ops", "nn", "mint", "train", "dataset", "common", "parallel", "communication", "profiler", "numpy",
         "experimental", "mindrecord", "boost", "amp.py", "tensor.py", "graph_hints.py", "context.py",
         "export.py", "checkpoint.py", "ms_checkpoint.py", "autograd.py", "loop_capture.py", "sparse_tensor.py",
         "rewrite")

_SAME_VALUES = "values and results are the same either way"
_MS_IGNORES = "MindSpore 2.10 does not use it either (its documentation says so)"
_CHECK = "a `check=`/bounds helper takes the op's arguments and needs only some of them"
_PROTOCOL = "an overridable method of a MindSpore protocol: a subclass may read it"

READ_ELSEWHERE: dict[str, str] = {
    # the graph hints: one graph per call either way (docs/api_surface.md)
    "graph_hints:constexpr(reuse_result)": _SAME_VALUES, "graph_hints:constexpr(check)": _SAME_VALUES,
    "graph_hints:lazy_inline(attrs)": _SAME_VALUES, "graph_hints:lazy_inline(policy)": _SAME_VALUES,
    "ops.composite:constexpr(get_instance)": _SAME_VALUES, "ops.composite:constexpr(name)": _SAME_VALUES,
    "ops.composite:constexpr(reuse_result)": _SAME_VALUES, "ops.composite:constexpr(check)": _SAME_VALUES,
    "ops.composite:MultitypeFuncGraph.__init__(read_value)": "a speed hint of MindSpore's compiler: " + _SAME_VALUES,
    "ops.composite:MultitypeFuncGraph.__init__(doc_url)": "documentation only",
    "tensor:Tensor.__init__(const_arg)": "the tensor is a graph input either way: " + _SAME_VALUES,
    "tensor:Parameter.set_data(slice_shape)": "msx accepts a new shape always (slice_shape=True skips a check)",
    "amp:StaticLossScaler.adjust(grads_finite)": "a static scale never adjusts, as in MindSpore",
    "ops.functional_array:topk(sorted)": "sorted values answer sorted=False too (its order is unspecified)",
    "ops.sort_ops:top_k_(sorted)": "sorted values answer sorted=False too (its order is unspecified)",
    "ops.sort_ops:unique2_(sorted)": "sorted values answer sorted=False too (its order is unspecified)",
    "ops.tensor_overloads:sort(stable)": "msx's sort is always stable",
    "mint:sort(stable)": "msx's sort is always stable", "mint:argsort(stable)": "msx's sort is always stable",
    "ops.functional_array:depend(expr)": "eager ops run in program order and a compiled graph keeps every "
                                         "side effect in order, so the ordering edge holds by construction",
    "ops.flash_attention_ops:flash_attention_score(inner_precise)": "reserved in MindSpore 2.10 (not implemented)",
    "ops.speed_fusion_ops:speed_fusion_attention(inner_precise)": "reserved in MindSpore 2.10 (not implemented)",
    "ops.functional_layers:embedding(norm_type)": "read only with max_norm, which msx refuses",
    "ops.classes:Conv2D.__init__(mode)": _MS_IGNORES, "ops.layer_classes:Conv3D.__init__(mode)": _MS_IGNORES,
    "ops.layer_classes:Conv3DTranspose.__init__(mode)": _MS_IGNORES,
    "ops.layer_classes:DepthwiseConv2dNative.__init__(mode)": _MS_IGNORES,
    "ops.layer_classes:DepthwiseConv2dNative.__init__(group)": _MS_IGNORES,
    "ops.pool_argmax_ops:max_pool_with_argmax(data_format)": "checked by its Attr converter (NCHW only)",
    "ops.deformable_ops:deformable_offsets(data_format)": "checked by its Attr converter (NCHW only)",
    "ops.deformable_ops:deformable_offsets(modulated)": "checked by its Attr converter (True only, as MindSpore)",
    "ops.morphology_patch_ops:dilation2d(data_format)": "checked by its Attr converter (NCHW only)",
    "ops.linalg_ops:pinv_(hermitian)": "the SVD answer equals the Hermitian one on the inputs it is meant for",
    "ops.linalg_ops:lstsq_(fast)": "both of MindSpore's algorithms give the least-squares solution",
    "ops.index_ops:index_add_(use_lock)": "the update is one functional write: " + _SAME_VALUES,
    "ops.index_ops:index_add_(check_index_bound)": "msx checks the indices always (OpIndexError)",
    "ops.tensor_methods:astype(copy)": "arrays are immutable: a copy and a view read the same",
    "ops.bounds:gather(batch_dims)": _CHECK, "ops.bounds:scatter_nd_into(updates)": _CHECK,
    "ops.bounds:scatter_nd(updates)": _CHECK, "ops.bounds:setitem(value)": _CHECK,
    "ops.apply_prim:range_error(attrs)": _CHECK,
    "ops.candidate_sampler_ops:*_candidate_draw(num_true)": "checked against true_classes' shape before the "
                                                            "draw (`_sampler_args`), which needs only the shape",
    "ops.batch_stats_ops:batch_norm_elemt(eps)": "unused in torch and MindSpore too: `invstd` already holds it",
    "ops.comm_p2p_ops:Receive.__call__(input_x)": "MindSpore's placeholder input: the shape and dtype come from "
                                                   "the constructor",
    "ops.sharding_ops:shard_constraint(strategy)": "the strategy is read by the sharding pass from the node",
    "nn.cell:Cell.set_grad(requires_grad)": "msx differentiates any Cell when asked: no flag is needed",
    "nn.cell_config:ConfigMixin.recompute(early_stop)": "memory only: " + _SAME_VALUES,
    "common.recompute:recompute(early_stop)": "memory only: " + _SAME_VALUES,
    "nn.cell_config:ConfigMixin.init_parameters_data(auto_parallel_mode)": "parameters are filled whole in "
                                                                         "every mode: " + _SAME_VALUES,
    "nn.wrap.loss_scale:FixedLossScaleUpdateCell.construct(loss_scale)": "a fixed scale is never updated",
    "nn.wrap.grad_reducer:DistributedGradReducer.__init__(fusion_type)": "XLA fuses the all-reduces itself",
    "parallel.dist_checkpoint:load_distributed_checkpoint(dec_mode)": "read only with dec_key, which is refused",
    "parallel.store:TCPStore.__init__(wait_for_workers)": "a speed/start-up knob of torch's store",
    "parallel.store:TCPStore.__init__(multi_tenant)": "a speed/start-up knob of torch's store",
    "parallel.store:TCPStore.__init__(master_listen_fd)": "a speed/start-up knob of torch's store",
    "parallel.store:TCPStore.__init__(use_libuv)": "a speed/start-up knob of torch's store",
    "profiler.profiler:tensorboard_trace_handler(async_mode)": "the trace is written when the step ends",
    "profiler.profiler:profile.analyse(pretty)": "the trace is jax's own format",
    "profiler.profiler:profile.analyse(mode)": "msx analyses synchronously: " + _SAME_VALUES,
    "train.model:Model.fit(valid_dataset_sink_mode)": "sinking is the same loop done another way "
                                                      "(docs/dataset.md)",
    "train.model:Model.[e]val(dataset_sink_mode)": "sinking is the same loop done another way (docs/dataset.md)",
    "train.serialization:ckpt_to_safetensors(processes_num)": "speed only: " + _SAME_VALUES,
    "train.serialization:safetensors_to_ckpt(processes_num)": "speed only: " + _SAME_VALUES,
    "train.dataset_helper:data_sink(jit_config)": "the step is compiled by msx.jit either way",
    "train.dataset_helper:data_sink(input_signature)": "the step is compiled for the shapes it sees",
    "train.summary:SummaryRecord.__init__(num_process)": "speed only (docs/summary.md)",
    "train.summary:SummaryRecord.record(train_network)": "MindSpore reads it only for its graph proto",
    "dataset.base:Dataset.create_tuple_iterator(do_copy)": "arrays are immutable: " + _SAME_VALUES,
    "dataset.base:Dataset.create_dict_iterator(do_copy)": "arrays are immutable: " + _SAME_VALUES,
    "dataset.base:Dataset.output_shapes(estimate)": "msx reads the first row's shapes, exact either way",
    "dataset.sources:GeneratorDataset.__init__(python_multiprocessing)": "threads (docs/dataset.md)",
    "dataset.sources:GeneratorDataset.__init__(max_rowsize)": "a shared-memory size of MindSpore's workers",
    "dataset.map_batch:*.__init__(max_rowsize)": "a shared-memory size of MindSpore's workers",
    "dataset.sources:*.__init__(max_rowsize)": "a shared-memory size of MindSpore's workers",
    "dataset.sources:*.__init__(python_multiprocessing)": "threads (docs/dataset.md)",
    "dataset.readers.*:*.__init__(cache)": "no reader can get a cache: msx's DatasetCache refuses to be made",
    "dataset.sources:RandomDataset.__init__(cache)": "no reader can get a cache: msx's DatasetCache refuses",
    "dataset.readers.tfrecord:TFRecordDataset.__init__(shard_equal_rows)": "msx shards by rows, so the shards "
                                                                            "hold equal rows (within one)",
    "dataset.readers.mindrecord_reader:FileReader.__init__(operator)": "reserved in MindSpore 2.10",
    "dataset.samplers:RandomSampler.__init__(shuffle)": "every mode is a random order of the same rows",
    "dataset.text.vectors:CharNGram.lookup(lower_case_backup)": "n-gram keys have no case to fall back on",
    "dataset.transforms.ops:TensorOperation.batched(rows)": _PROTOCOL,
    "common.dtype:np_dtype_valid(check)": "msx always has bfloat16 (ml_dtypes): nothing to check",
    "ops.layer_classes:Conv2DBackpropInput.__init__(mode)": _MS_IGNORES,
    "ops.linalg_ops:lu_unpack(unpack_data)": "the class op computes all three, as MindSpore's LuUnpack does "
                                             "(ops.lu_unpack reads them)",
    "ops.linalg_ops:lu_unpack(unpack_pivots)": "the class op computes all three, as MindSpore's LuUnpack does "
                                               "(ops.lu_unpack reads them)",
    "dataset.readers.mindrecord_writer:FileWriter.write_raw_data(parallel_writer)": "speed only: "
                                                                                   + _SAME_VALUES,
}


def reason(key: str) -> str | None:
    """Why `key` (`module:Qualified.name(arg)`) needs no reading, or None when it is not listed."""
    if key in READ_ELSEWHERE:
        return READ_ELSEWHERE[key]
    return next((why for pattern, why in READ_ELSEWHERE.items() if fnmatch.fnmatchcase(key, pattern)), None)


def _unread(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The parameters of `fn` its body never names (nothing when it reads `locals()`, or has no real body)."""
    body = fn.body[1:] if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value,
                                                                                     ast.Constant) else fn.body
    if not body or all(isinstance(b, (ast.Pass, ast.Raise)) or (isinstance(b, ast.Expr) and isinstance(
            b.value, ast.Constant)) for b in body):
        return []  # an abstract method, a stub that refuses, or one a subclass fills
    names = {n.id for b in body for n in ast.walk(b) if isinstance(n, ast.Name)}
    if "locals" in names or "vars" in names:
        return []
    params = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
    return [a.arg for a in params if a.arg not in ("self", "cls") and not a.arg.startswith("_")
            and a.arg not in names]


def _walk(node: ast.AST, prefix: str):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef):
            yield from _walk(child, f"{prefix}{child.name}.")
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            public = not child.name.startswith("_") or child.name in ("__init__", "__call__", "__new__")
            decorators = {ast.unparse(d) for d in child.decorator_list}
            if public and not decorators & {"overload", "abstractmethod", "property"}:
                yield f"{prefix}{child.name}", child


def unread(root: Path | None = None) -> dict[str, str]:
    """{`module:Qualified.name(arg)`: source line} of every unread parameter in SCOPE."""
    root = root or Path(__file__).resolve().parent.parent
    found: dict[str, str] = {}
    for part in SCOPE:
        base = root / part
        if not base.exists():
            continue
        files = sorted(base.rglob("*.py")) if base.is_dir() else [base]
        for path in files:
            module = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
            for qualname, fn in _walk(ast.parse(path.read_text()), ""):
                protocol = fn.name.startswith("on_") or fn.name in ("begin", "end", "epoch_begin", "epoch_end",
                                                                     "step_begin", "step_end")
                for arg in _unread(fn):
                    if not (protocol and arg == "run_context"):
                        found[f"{module}:{qualname}({arg})"] = f"{path.relative_to(root)}:{fn.lineno}"
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--all", action="store_true", help="every unread parameter, with its reason")
    args = parser.parse_args()
    for key, where in sorted(unread().items()):
        why = reason(key)
        if args.all or why is None:
            print(f"{where}: {key}  {why or 'NOT LISTED: read it, warn, or refuse'}")


if __name__ == "__main__":
    main()
