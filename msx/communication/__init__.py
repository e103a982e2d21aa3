"""`msx.communication`: MindSpore's distributed API on jax's multi-process runtime (see docs/parallel.md)."""
from .management import (GlobalComm, HCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP,  # noqa: F401
                         create_group, get_group_rank_from_world_rank, get_group_size, get_local_rank,
                         get_local_rank_size, get_rank, get_world_rank_from_group_rank, init, release,
                         destroy_group, get_comm_name, get_process_group_ranks)
