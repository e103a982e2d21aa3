"""Counting XLA compiles (jax's monitoring events) around a call: for tests that a path compiles nothing, or
only its graph."""
from jax import monitoring
from jax._src import monitoring as jax_monitoring  # (the public module has no unregister)


def count_xla_compiles(fn) -> int:
    """The number of XLA compiles `fn()` runs."""
    box = [0]

    def count(name: str, _secs: float, **_kw) -> None:
        if name == "/jax/core/compile/backend_compile_duration":
            box[0] += 1

    monitoring.register_event_duration_secs_listener(count)
    try:
        fn()
    finally:
        jax_monitoring.unregister_event_duration_listener(count)
    return box[0]
