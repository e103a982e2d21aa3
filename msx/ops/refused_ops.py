"""MindSpore's `ops` names that are Ascend-only kernels or internals of its compiler: they exist in `ops`,
`ops.operations` and `ops.functional` so that imports work, and using one raises `NotAvailableError` naming
what to use instead (`msx.unavailable`, the one mechanism). No primitive is declared here: this module only
adds refusing stand-ins to the surface tables (`cls` for class ops, `ops` for functions)."""
from __future__ import annotations

from ..tensor import Tensor
from ..unavailable import refuse, refuse_decorators, refuse_methods
from .api import SURFACE

_ASCEND = "an Ascend-only fused kernel"
_COMPILER = "an internal of MindSpore's graph compiler"

CLASS_OPS = {
    (_ASCEND, "use the unfused ops (nn.GRU, nn.LSTM, ops.topk)"): "GroupTopk DynamicGRUV2 DynamicRNN",
    ("the Ascend pair behind dropout", "use ops.dropout or nn.Dropout"): "DropoutGenMask DropoutDoMask",
    ("an Ascend kernel of THOR or of a model zoo's custom layers",
     "use ops.matmul, ops.cholesky and a first-order optimizer"): (
        "UpdateThorGradient DSDMatmul MatmulDDS ProdForceSeA"),
    ("an op of MindSpore's parameter server and embedding cache",
     "keep the embedding table on the device (nn.Embedding, ops.gather)"): (
        "Push Pull MapUniform"),
    ("the dataset-sink queue op of MindSpore's runtime", "iterate the dataset (dataset.create_tuple_iterator)"): (
        "GetNext"),
    ("an internal view kernel of MindSpore's runtime", "use ops.transpose, ops.select or slicing"): (
        "TransposeExtView TransposeView SelectView CopyWithSlice TransShape"),
    (_COMPILER, "write Python control flow (if/while) inside msx.jit"): "GeSwitch Merge",
    ("MindSpore's base class for Python-defined primitives",
     "write the op as a Python function over msx.ops, or as ops.Custom"): "PrimitiveWithCheck PrimitiveWithInfer",
}

FUNCTIONS = {
    (_ASCEND, "use ops.flash_attention_score or nn.MultiheadAttention"): (
        "fused_infer_attention_score incre_flash_attention prompt_flash_attention "
        "sparse_flash_attention lightning_indexer nsa_compress nsa_compress_attention nsa_select_attention "
        "ring_attention_update multi_scale_deformable_attn_function"),
    (_ASCEND + " for mixture-of-experts routing", "route with ops.topk, ops.gather and ops.scatter"): (
        "moe_distribute_combine moe_distribute_dispatch moe_init_routing_v2 moe_token_permute "
        "moe_token_unpermute"),
    (_ASCEND + " that overlaps a collective with a matmul", "call the collective and ops.matmul"): (
        "all_gather_matmul matmul_reduce_scatter"),
    (_ASCEND + " for rotated boxes", "use ops.iou for axis-aligned boxes"): "rotated_iou",
    (_COMPILER, "write Python control flow (if/while) inside msx.jit"): (
        "switch switch_layer geswitch merge is_tensor_bool_cond"),
    (_COMPILER, "use Python's type(), isinstance and len on the values"): (
        "typeof hastype isconstant array_reduce array_to_scalar broadcast_gradient_args reduced_shape "
        "is_dynamic_sequence_element_unknown is_sequence_shape_unknown is_sequence_value_unknown "
        "SliceGetItem TensorToTuple DtypeToEnum"),
    (_COMPILER, "msx.jit keeps Python state in the graph's inputs and outputs itself"): (
        "environ_add environ_create environ_get environ_set make_map_parameter ref_to_embed embed distribute"),
    (_COMPILER, "differentiate with msx.grad, ops.jvp or ops.vjp"): "J",
    (_COMPILER, "cast with ops.cast (amp.auto_mixed_precision casts a network)"): "mixed_precision_cast",
    ("MindSpore's registry of its CPU/VM kernels", "msx runs every op through its primitive registry "
     "(msx.ops.get_primitive)"): "get_vm_impl_fn vm_impl_registry tensor_operator_registry",
}

DECORATORS = {
    ("a registration decorator for MindSpore's Primitive and kernel definitions",
     "write the op as a Python function over msx.ops, or as ops.Custom"): (
        "prim_attr_register prim_arg_register op_info_register"),
}

_class_ns: dict = {}
_fn_ns: dict = {}
for _name in refuse(_class_ns, "mindspore.ops", CLASS_OPS):
    SURFACE.add("cls", _name, _class_ns[_name])
for _name in refuse(_fn_ns, "mindspore.ops", FUNCTIONS) + refuse_decorators(_fn_ns, "mindspore.ops", DECORATORS):
    SURFACE.add("ops", _name, _fn_ns[_name])

# Tensor methods of MindSpore's C++ runtime (device addresses, parameter-server caches, storage objects)
TENSOR_METHODS = {
    ("an internal of MindSpore's C++ tensor", "msx's Tensor holds a jax array; use asnumpy(), astype() or "
     "Parameter.set_data()"): (
        "assign_value_cpp set_device_address set_param_info set_init_flag set_cast_dtype getitem_index_info "
        "setitem_index_info wait_pipeline convert_bytes_to_tensor"),
    ("Ascend host offloading of a tensor", "keep it on the device (XLA manages memory)"): "offload offload_file_path",
    ("a raw device pointer or storage object of MindSpore's runtime",
     "exchange tensors with ms.to_dlpack / ms.from_dlpack, or asnumpy()"): "data_ptr storage untyped_storage",
}
TENSOR_METHOD_NAMES = refuse_methods(Tensor, "mindspore.Tensor", TENSOR_METHODS)
