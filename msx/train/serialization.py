"""`msx.train.serialization`: MindSpore's checkpoint and graph I/O names (`save_checkpoint`, `load_checkpoint`,
`load_param_into_net`, `export`, `load`, `async_ckpt_thread_status`)."""
from ..checkpoint import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: F401
from ..export import export, load  # noqa: F401


def async_ckpt_thread_status() -> bool:
    """Whether an asynchronous checkpoint write is still running: never, msx writes checkpoints synchronously
    (atomically, before `save_checkpoint` returns)."""
    return False


__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "export", "load", "async_ckpt_thread_status"]


def load_checkpoint_async(ckpt_file_name, net=None, strict_load: bool = False, filter_prefix=None, dec_key=None,
                          dec_mode: str = "AES-GCM", specify_prefix=None, choice_func=None):
    """Start `load_checkpoint` on a background thread; returns a future whose `result()` is the
    {name: Parameter} dict (MindSpore's way to overlap checkpoint reading with network building)."""
    import concurrent.futures

    if dec_key is not None:
        raise ValueError("load_checkpoint_async: encrypted checkpoints (dec_key) are not supported by msx")
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="msx-ckpt-load")
    future = pool.submit(load_checkpoint, ckpt_file_name, net, strict_load, filter_prefix, specify_prefix, choice_func)
    pool.shutdown(wait=False)
    return future


__all__.append("load_checkpoint_async")
