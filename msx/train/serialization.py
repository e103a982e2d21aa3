"""`msx.train.serialization`: MindSpore's checkpoint and graph I/O names (`save_checkpoint`, `load_checkpoint`,
`load_param_into_net`, `export`, `load`, `async_ckpt_thread_status`)."""
import concurrent.futures
import os
import re

import numpy as np

from ..checkpoint import _refuse_encryption
from ..checkpoint import async_ckpt_thread_status, load_checkpoint, load_param_into_net, save_checkpoint  # noqa: F401
from ..export import export, load  # noqa: F401
from ..tensor import Parameter, Tensor


__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "export", "load", "async_ckpt_thread_status"]


def load_checkpoint_async(ckpt_file_name, net=None, strict_load: bool = False, filter_prefix=None, dec_key=None,
                          dec_mode: str = "AES-GCM", specify_prefix=None, choice_func=None):
    """Start `load_checkpoint` on a background thread; returns a future whose `result()` is the
    {name: Parameter} dict (MindSpore's way to overlap checkpoint reading with network building)."""

    _refuse_encryption("load_checkpoint_async", "dec_key", dec_key)  # at the call, not in the future
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="msx-ckpt-load")
    future = pool.submit(load_checkpoint, ckpt_file_name, net, strict_load, filter_prefix, dec_key, dec_mode,
                         specify_prefix, choice_func)
    pool.shutdown(wait=False)
    return future


__all__.append("load_checkpoint_async")


def _convert_files(what: str, file_path, save_path, name_map, file_name_regex, src_suffix: str, dst_suffix: str):
    """[(source file, destination file)] of one file or of a directory's `src_suffix` files (filtered by
    `file_name_regex`); destinations go to `save_path` (default: beside the source)."""
    if name_map is not None and not isinstance(name_map, dict):
        raise TypeError(f"{what}: name_map must be a dict {{old name: new name}}, got {type(name_map).__name__}")
    path = os.fspath(file_path)
    if os.path.isdir(path):
        sources = sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(src_suffix)
                         and (file_name_regex is None or re.search(file_name_regex, f)))
    elif os.path.isfile(path):
        sources = [path]
    else:
        raise ValueError(f"{what}: {path!r} is neither a file nor a directory")
    out_dir = os.fspath(save_path) if save_path is not None else None
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)
    pairs = []
    for src in sources:
        stem = os.path.splitext(os.path.basename(src))[0]
        pairs.append((src, os.path.join(out_dir or os.path.dirname(src), stem + dst_suffix)))
    return pairs


def ckpt_to_safetensors(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num: int = 1):
    """Write each checkpoint (`.ckpt`, a file or a directory of them) as MindSpore's safetensors
    (`<name>.safetensors`, tagged "ms": readable by any safetensors tool); `name_map` renames entries.
    `append_dict` strings are dropped (safetensors holds tensors only)."""
    _convert("ckpt_to_safetensors", file_path, save_path, name_map, file_name_regex, ".ckpt", "safetensors")


def safetensors_to_ckpt(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num: int = 1):
    """Write each safetensors file (a file or a directory of `.safetensors`) as MindSpore's protobuf checkpoint
    (`<name>.ckpt`, which MindSpore loads); `name_map` renames entries."""
    _convert("safetensors_to_ckpt", file_path, save_path, name_map, file_name_regex, ".safetensors", "ckpt")


def _convert(what: str, file_path, save_path, name_map, file_name_regex, src_suffix: str, dst_format: str) -> None:
    for src, dst in _convert_files(what, file_path, save_path, name_map, file_name_regex, src_suffix,
                                   "." + dst_format):
        params = load_checkpoint(src)
        save_checkpoint({(name_map or {}).get(k, k): v for k, v in params.items() if not isinstance(v, str)}, dst,
                        format=dst_format)


__all__ += ["ckpt_to_safetensors", "safetensors_to_ckpt"]


def merge_sliced_parameter(sliced_parameters, strategy=None):
    """One Parameter from the slices of a data-parallel/model-parallel run, concatenated along axis 0 in rank
    order (MindSpore's rule without `strategy`). The slices must share the name and all dims but the first."""

    if strategy is not None:
        raise ValueError("merge_sliced_parameter: merging by a strategy layout is not supported by msx; give "
                         "strategy=None (slices are joined along axis 0)")
    if not isinstance(sliced_parameters, (list, tuple)) or not sliced_parameters:
        raise TypeError("merge_sliced_parameter: sliced_parameters must be a non-empty list of Parameters")
    first = sliced_parameters[0]
    for i, p in enumerate(sliced_parameters):
        if not isinstance(p, Parameter):
            raise TypeError(f"merge_sliced_parameter: element {i} is a {type(p).__name__}, not a Parameter")
        if p.name != first.name or len(p.shape) != len(first.shape) or tuple(p.shape[1:]) != tuple(first.shape[1:]):
            raise ValueError(f"merge_sliced_parameter: the slices must have the same name, rank and shape except "
                             f"axis 0: {first.name}, {len(first.shape)}, {tuple(first.shape[1:])} expected, got "
                             f"{p.name}, {len(p.shape)}, {tuple(p.shape[1:])} at index {i}")
    merged = np.concatenate([p.asnumpy().astype(first.asnumpy().dtype) for p in sliced_parameters], axis=0)
    return Parameter(Tensor(merged), name=first.name, requires_grad=first.requires_grad)


__all__ += ["merge_sliced_parameter"]
