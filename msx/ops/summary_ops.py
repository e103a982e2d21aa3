"""MindSpore's summary ops: `ops.ScalarSummary`, `ImageSummary`, `HistogramSummary`, `TensorSummary`.

In a Cell's `construct` (`self.summary = ops.ScalarSummary()`, then `self.summary("loss", loss)`) they hand a
value to the active `SummaryRecord` (`msx.train.summary`), which writes it at its next `record(step)`. One
primitive, `Summary` (attrs `kind`, `tag`), does it eagerly and inside a compiled graph alike: its
implementation is a `jax.debug.callback` (ordered, so values arrive in program order), which runs on the host
when the op runs, so a jitted step delivers the values of that step. The value reaches the host only while a
SummaryRecord is open; without one the op does nothing, as nothing would read it (MindSpore would cache it).
As in MindSpore the latest value of a tag wins until the record.
"""
from __future__ import annotations

import functools
import threading
from typing import Callable

import jax
import numpy as np

from ..errors import OpError, OpTypeError
from ..tensor import Tensor
from .api import PrimitiveOp
from .primitive import apply, primitive

KINDS = ("scalar", "image", "histogram", "tensor")

_lock = threading.Lock()
_sink: list[Callable[[str, str, np.ndarray], None]] = []  # the open SummaryRecord's receiver, at most one


def set_sink(receiver: Callable[[str, str, np.ndarray], None] | None) -> None:
    """Install (or with None remove) the receiver of the summary ops' values: `receiver(kind, tag, value)`."""
    with _lock:
        _sink[:] = [] if receiver is None else [receiver]


def wait() -> None:
    """Block until every summary value of the programs run so far has reached the receiver."""
    jax.effects_barrier()


def _deliver(kind: str, tag: str, value) -> None:
    with _lock:
        receivers = list(_sink)
    for receive in receivers:
        receive(kind, tag, np.array(value))


@primitive("Summary", attrs=("kind", "tag"), multiple_results=True, differentiable=False,
           internal=("what ops.ScalarSummary, ImageSummary, TensorSummary and HistogramSummary record, each checking "
                     "its own tag and value"))
def summary(x, *, kind, tag):
    """Send `x` to the open SummaryRecord under `tag` (a scalar, image, histogram or tensor), in program order."""
    jax.debug.callback(functools.partial(_deliver, kind, tag), x, ordered=True)
    return ()


def _check(op: str, kind: str, name, value) -> None:
    """MindSpore's checks of a summary op's inputs (`check_summary_param`), at the call."""
    if not isinstance(name, str) or not name:
        raise OpTypeError(f"{op}: the name must be a non-empty string, got {name!r}")
    if not isinstance(value, Tensor):
        raise OpTypeError(f"{op}: the value must be a Tensor, got {type(value).__name__}")
    shape = tuple(value.shape)
    if kind == "scalar" and int(np.prod(shape)) != 1:
        raise OpError(f"{op}: the value of {name!r} must hold one element (dim 0 or 1), got shape {shape}")
    if kind == "image" and len(shape) != 4:
        raise OpError(f"{op}: the value of {name!r} must be an NCHW image batch (4-D), got shape {shape}")
    if kind in ("histogram", "tensor") and not shape:
        raise OpError(f"{op}: the value of {name!r} must not be 0-D, got shape {shape}")


class _SummaryOp(PrimitiveOp):
    kind = ""

    def __call__(self, name: str, value: Tensor) -> None:
        _check(self.name, self.kind, name, value)
        if self.kind == "scalar" and value.ndim:
            value = value.reshape(())
        apply(summary, (value,), {"kind": self.kind, "tag": name})


class ScalarSummary(_SummaryOp):
    """`ops.ScalarSummary()(name, value)`: a one-element value, drawn as a curve over the steps."""

    name, kind = "ScalarSummary", "scalar"


class ImageSummary(_SummaryOp):
    """`ops.ImageSummary()(name, value)`: an NCHW batch (C of 1 or 3), shown as one image of up to 8 columns."""

    name, kind = "ImageSummary", "image"


class HistogramSummary(_SummaryOp):
    """`ops.HistogramSummary()(name, value)`: the distribution of the values of a tensor."""

    name, kind = "HistogramSummary", "histogram"


class TensorSummary(_SummaryOp):
    """`ops.TensorSummary()(name, value)`: the whole tensor."""

    name, kind = "TensorSummary", "tensor"
