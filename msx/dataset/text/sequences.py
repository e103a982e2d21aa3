"""Token-sequence shaping: add a token, truncate (one sequence or a pair, BERT's rule), sliding windows and
n-grams, on the 1-D arrays tokenizers produce (MindSpore's rules, checked against its outputs)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...errors import DatasetError
from ...tensor import Tensor
from ..transforms.ops import TensorOperation
from .ops import _strings


def _array(op: str, x: Any, ndims: tuple[int, ...] = (1,)) -> np.ndarray:
    array = x.asnumpy() if isinstance(x, Tensor) else np.asarray(x)
    if array.ndim not in ndims:
        raise DatasetError(f"{op}: expected a {' or '.join(f'{n}-D' for n in ndims)} array, got shape "
                           f"{list(array.shape)}")
    return array


def _positive(op: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise DatasetError(f"{op}: {name} must be a positive int, got {value!r}")
    return value


class AddToken(TensorOperation):
    """Put `token` before the 1-D string sequence (`begin=True`) or after it."""

    def __init__(self, token: str, begin: bool = True) -> None:
        if not isinstance(token, str):
            raise DatasetError(f"AddToken: token must be a string, got {token!r}")
        self.token, self.begin = token, bool(begin)

    def __call__(self, x: Any) -> np.ndarray:
        array = _strings(_array("AddToken", x), "AddToken")
        items = [self.token] + array.tolist() if self.begin else array.tolist() + [self.token]
        return np.asarray(items, dtype=str)


class Truncate(TensorOperation):
    """Keep the first `max_seq_len` items of a 1-D sequence (the last axis of a 2-D one)."""

    def __init__(self, max_seq_len: int) -> None:
        self.max_seq_len = _positive("Truncate", "max_seq_len", max_seq_len)

    def __call__(self, x: Any) -> np.ndarray:
        return _array("Truncate", x, (1, 2))[..., :self.max_seq_len].copy()


class TruncateSequencePair(TensorOperation):
    """Shorten a pair of 1-D sequences to `max_length` items together, one item at a time from the longer (the
    second on a tie), BERT's rule."""

    def __init__(self, max_length: int) -> None:
        self.max_length = _positive("TruncateSequencePair", "max_length", max_length)

    def __call__(self, first: Any, second: Any) -> tuple[np.ndarray, np.ndarray]:
        a, b = _array("TruncateSequencePair", first), _array("TruncateSequencePair", second)
        la, lb = len(a), len(b)
        while la + lb > self.max_length:
            if la > lb:
                la -= 1
            else:
                lb -= 1
        return a[:la].copy(), b[:lb].copy()


class SlidingWindow(TensorOperation):
    """The windows of `width` consecutive items of a 1-D sequence, as a 2-D array (none when it is shorter)."""

    def __init__(self, width: int, axis: int = 0) -> None:
        self.width = _positive("SlidingWindow", "width", width)
        if axis not in (0, -1):
            raise DatasetError(f"SlidingWindow: axis must be 0 (or -1) for a 1-D sequence, got {axis!r}")
        self.axis = axis

    def __call__(self, x: Any) -> np.ndarray:
        array = _array("SlidingWindow", x)
        if len(array) < self.width:
            return np.zeros((0,), array.dtype)
        return np.lib.stride_tricks.sliding_window_view(array, self.width).copy()


def _pad(op: str, name: str, pad: Any) -> tuple[str, int]:
    if not (isinstance(pad, (list, tuple)) and len(pad) == 2 and isinstance(pad[0], str)
            and isinstance(pad[1], int) and not isinstance(pad[1], bool) and pad[1] >= 0):
        raise DatasetError(f"{op}: {name} must be a (pad token, count >= 0) pair, got {pad!r}")
    return pad[0], pad[1]


class Ngram(TensorOperation):
    """The n-grams of a 1-D string sequence for each n of `n`, joined by `separator`, after padding with up to
    n - 1 `left_pad` / `right_pad` tokens ((token, count)); a sequence too short for an n gives one empty
    string."""

    def __init__(self, n: Any, left_pad: Sequence = ("", 0), right_pad: Sequence = ("", 0),
                 separator: str = " ") -> None:
        ns = [n] if isinstance(n, int) and not isinstance(n, bool) else list(n) if isinstance(n, (list, tuple)) \
            else []
        if not ns or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in ns):
            raise DatasetError(f"Ngram: n must be a positive int or a list of them, got {n!r}")
        self.n = ns
        self.left_pad, self.right_pad = _pad("Ngram", "left_pad", left_pad), _pad("Ngram", "right_pad", right_pad)
        if not isinstance(separator, str):
            raise DatasetError(f"Ngram: separator must be a string, got {separator!r}")
        self.separator = separator

    def __call__(self, x: Any) -> np.ndarray:
        tokens = _strings(_array("Ngram", x), "Ngram").tolist()
        out = []
        for n in self.n:
            padded = [self.left_pad[0]] * min(self.left_pad[1], n - 1) + tokens + \
                [self.right_pad[0]] * min(self.right_pad[1], n - 1)
            if len(padded) < n:
                out.append("")
                continue
            out += [self.separator.join(padded[i:i + n]) for i in range(len(padded) - n + 1)]
        return np.asarray(out, dtype=str)
