"""`msx.mint.distributed`: MindSpore 2.10's `mindspore.mint.distributed` (torch.distributed's names) on jax's
multi-process runtime — the same functions as `msx.ops`' collectives (`msx.ops.comm_func`), see docs/distributed.md."""
from __future__ import absolute_import, annotations  # noqa: F401  (mindspore.mint.distributed exports absolute_import)

from ..ops.comm_func import (P2POp, TCPStore, all_gather, all_gather_into_tensor,  # noqa: F401
                             all_gather_into_tensor_uneven, all_reduce, all_to_all, all_to_all_single, barrier,
                             batch_isend_irecv, broadcast, destroy_process_group, gather, get_backend,
                             get_global_rank, get_group_rank, get_process_group_ranks, get_rank, get_world_size,
                             init_process_group, irecv, is_available, is_initialized, isend, new_group, recv, reduce,
                             reduce_scatter, reduce_scatter_tensor, reduce_scatter_tensor_uneven, scatter, send)
from ..ops.comm_func_objects import (all_gather_object, broadcast_object_list, gather_object,  # noqa: F401
                                     recv_object_list, scatter_object_list, send_object_list)

__all__ = ["P2POp", "TCPStore", "all_gather", "all_gather_into_tensor", "all_gather_into_tensor_uneven",
           "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "barrier", "batch_isend_irecv",
           "broadcast", "broadcast_object_list", "destroy_process_group", "gather", "gather_object", "get_backend",
           "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size",
           "init_process_group", "irecv", "is_available", "is_initialized", "isend", "new_group", "recv",
           "recv_object_list", "reduce", "reduce_scatter", "reduce_scatter_tensor", "reduce_scatter_tensor_uneven",
           "scatter", "scatter_object_list", "send", "send_object_list"]
