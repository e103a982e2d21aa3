"""Recurrent layers: `RNN`, `LSTM`, `GRU` (multi-layer, bidirectional, variable length) and their cells.

Each layer and direction runs as one op, `RecurrentLayer` (`msx/ops/recurrent_ops.py`: one `lax.scan` over
time), so neither an eager call nor a captured graph grows with the sequence length; the single-step cells
(`LSTMCell`, ...) are one step of the same op. Gate layouts and parameter names
follow MindSpore (= torch): LSTM gates (i, f, g, o), GRU gates (r, z, n),
`weight_ih_l{k}[_reverse]`, `weight_hh_...`, `bias_ih_...`, `bias_hh_...`;
initial values U(-1/sqrt(hidden), 1/sqrt(hidden)) drawn as MindSpore draws them (numpy's global stream).
"""
from __future__ import annotations

import math

import numpy as np

from ... import dtype as mstype
from ...ops import functional as F
from ...ops.primitive import apply
from ...ops.recurrent_ops import recurrent_layer_
from ...tensor import Parameter, ParameterTuple, Tensor
from ..cell import Cell
from ..initializer import Uniform
from ._utils import check_input, make_param

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _step(mode: str, x: Tensor, h, w_ih, w_hh, b_ih, b_hh):
    """One time step of a cell: a one-step `RecurrentLayer`, the layers' own op and gate math. `h` is a Tensor,
    (h, c) for LSTM, or None (zeros); `x` is (batch, input) or (input,). Returns the new state."""
    unbatched = x.ndim == 1
    state = () if h is None else (tuple(h) if mode == "LSTM" else (h,))
    if unbatched:
        x, state = F.expand_dims(x, 0), tuple(F.expand_dims(s, 0) for s in state)
    operands = (F.expand_dims(x, 0),) + state + (w_ih, w_hh) + (() if b_ih is None else (b_ih, b_hh))
    results = apply(recurrent_layer_, operands, {"mode": mode, "has_bias": b_ih is not None, "masked": False,
                                                 "zero_state": h is None, "reverse": False})
    new = tuple(F.squeeze(r, 0) for r in results[1:]) if unbatched else tuple(results[1:])
    return new if mode == "LSTM" else new[0]


class _RNNBase(Cell):
    """Shared by RNN/LSTM/GRU: (seq, batch, input) input (batch_first: (batch, seq, input)), optional initial
    state and `seq_length` (batch,) of valid lengths: past its length a sequence's outputs are zero and its
    final state is the one at its last valid step."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, has_bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 dtype=mstype.float32) -> None:
        super().__init__()
        name = f"{type(self).__name__}(input_size={input_size}, hidden_size={hidden_size})"
        if num_layers < 1:
            raise ValueError(f"{name}: num_layers must be >= 1, got {num_layers}")
        if not 0.0 <= float(dropout) < 1.0:
            raise ValueError(f"{name}: dropout must be in [0, 1), got {dropout}")
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, int(input_size), int(hidden_size), num_layers
        self.has_bias, self.batch_first, self.dropout = bool(has_bias), bool(batch_first), float(dropout)
        self.bidirectional, self.num_directions = bool(bidirectional), 2 if bidirectional else 1
        gate = _GATES[mode] * hidden_size
        stdv = 1 / math.sqrt(hidden_size)
        drawn: dict[str, Tensor] = {}
        for layer in range(num_layers):
            in_size = input_size if layer == 0 else hidden_size * self.num_directions
            for sfx in ["", "_reverse"][:self.num_directions]:
                # MindSpore's nn.RNN/LSTM/GRU draw numpy's global stream directly, in this order
                shapes = [("weight_ih", (gate, in_size)), ("weight_hh", (gate, hidden_size))]
                shapes += [("bias_ih", (gate,)), ("bias_hh", (gate,))] if has_bias else []
                for kind, shape in shapes:
                    drawn[f"{kind}_l{layer}{sfx}"] = Tensor(np.random.uniform(-stdv, stdv, shape).astype(np.float32),
                                                            dtype)
        # and hold them kind by kind (its w_ih_list, w_hh_list, b_ih_list, b_hh_list): the Parameters' order, which
        # trainable_params(), optimizers and code zipping weights with them see
        for kind in ("weight_ih", "weight_hh") + (("bias_ih", "bias_hh") if has_bias else ()):
            for name in self._slot_names(kind):
                setattr(self, name, Parameter(drawn[name], name=name))

    def _weights(self, layer: int, direction: int):
        sfx = "_reverse" if direction else ""
        get = lambda k: getattr(self, f"{k}_l{layer}{sfx}")  # noqa: E731
        return (get("weight_ih"), get("weight_hh"), get("bias_ih") if self.has_bias else None,
                get("bias_hh") if self.has_bias else None)

    def _name(self) -> str:
        return f"{type(self).__name__}(input_size={self.input_size}, hidden_size={self.hidden_size})"

    # MindSpore keeps an RNN's weights in ParameterTuples `w_ih_list`, `w_hh_list`, `b_ih_list`, `b_hh_list` (one
    # per layer and direction) and its own tests assign them (`net.lstm.w_ih_list = ParameterTuple(...)`): here
    # they are views of the named Parameters, and assigning one replaces those Parameters, so the weights given
    # are the ones every call (eager or jitted) uses and trains.
    def _slot_names(self, kind: str) -> list[str]:
        return [f"{kind}_l{layer}{sfx}" for layer in range(self.num_layers)
                for sfx in ["", "_reverse"][:self.num_directions]]

    def _get_list(self, kind: str) -> ParameterTuple:
        if kind.startswith("bias") and not self.has_bias:
            return ParameterTuple()
        return ParameterTuple(getattr(self, n) for n in self._slot_names(kind))

    def _set_list(self, kind: str, params) -> None:
        names = self._slot_names(kind)
        params = list(params)
        if kind.startswith("bias") and not self.has_bias:
            raise ValueError(f"{self._name()}: has_bias=False, so it has no {kind} Parameters to replace")
        if len(params) != len(names):
            raise ValueError(f"{self._name()}: {kind} needs {len(names)} Parameters (num_layers x directions), "
                             f"got {len(params)}")
        for name, p in zip(names, params):
            if not isinstance(p, Parameter):
                raise TypeError(f"{self._name()}: {kind} items must be Parameters, got {type(p).__name__}")
            old = getattr(self, name)
            if tuple(p.shape) != tuple(old.shape):
                raise ValueError(f"{self._name()}: {name} must have shape {tuple(old.shape)}, got {tuple(p.shape)}")
            setattr(self, name, p)

    w_ih_list = property(lambda self: self._get_list("weight_ih"), lambda self, v: self._set_list("weight_ih", v))
    w_hh_list = property(lambda self: self._get_list("weight_hh"), lambda self, v: self._set_list("weight_hh", v))
    b_ih_list = property(lambda self: self._get_list("bias_ih"), lambda self, v: self._set_list("bias_ih", v))
    b_hh_list = property(lambda self: self._get_list("bias_hh"), lambda self, v: self._set_list("bias_hh", v))

    def construct(self, x: Tensor, hx=None, seq_length: Tensor | None = None):
        check_input(x.ndim == 3 and x.shape[-1] == self.input_size, self._name(), x,
                    f"expected a 3-D input whose last dim is input_size {self.input_size}")
        if self.batch_first:
            x = F.transpose(x, (1, 0, 2))
        steps = x.shape[0]
        lstm = self.mode == "LSTM"
        if hx is not None:
            h0, c0 = (hx[0], hx[1]) if lstm else (hx, None)
        mask = None
        if seq_length is not None:
            lengths = F.cast(seq_length, mstype.int32)
            t = F.expand_dims(F.arange(0, steps, dtype=mstype.int32), 1)
            mask = F.expand_dims(F.cast(t < F.expand_dims(lengths, 0), x.dtype), -1)  # (steps, batch, 1)
            rev_index = self._reverse_index(lengths, steps)
        h_n, c_n = [], []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(self.num_directions):
                k = layer * self.num_directions + d
                state = None if hx is None else ((h0[k], c0[k]) if lstm else (h0[k],))
                # backward: the scan runs from the last step, or (with seq_length) over each sequence reversed
                # within its own length
                within = d == 1 and mask is not None
                seq = self._reverse(layer_in, rev_index) if within else layer_in
                out, state = self._run(seq, state, self._weights(layer, d), mask, d == 1 and mask is None)
                outs.append(self._reverse(out, rev_index) if within else out)
                h_n.append(state[0])
                if lstm:
                    c_n.append(state[1])
            layer_in = outs[0] if len(outs) == 1 else F.concat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_in = F.dropout(layer_in, self.dropout, True)
        output = F.transpose(layer_in, (1, 0, 2)) if self.batch_first else layer_in
        h = F.stack(h_n, 0)
        return (output, (h, F.stack(c_n, 0))) if lstm else (output, h)

    def _run(self, seq: Tensor, state, weights, mask, reverse: bool):
        """One layer in one direction: (outputs, (h_T,) or (h_T, c_T)); `state` None starts from zeros."""
        w_ih, w_hh, b_ih, b_hh = weights
        operands = (seq,) + (state or ()) + (w_ih, w_hh)
        operands += (b_ih, b_hh) if self.has_bias else ()
        operands += (mask,) if mask is not None else ()
        results = apply(recurrent_layer_, operands, {"mode": self.mode, "has_bias": self.has_bias,
                                                     "masked": mask is not None, "zero_state": state is None,
                                                     "reverse": reverse})
        return results[0], tuple(results[1:])

    @staticmethod
    def _reverse_index(lengths: Tensor, steps: int) -> Tensor:
        """(steps, batch) indices reversing each sequence within its own length (padding stays in place)."""
        t = F.expand_dims(F.arange(0, steps, dtype=mstype.int32), 1)
        lens = F.expand_dims(lengths, 0)
        return F.where(t < lens, lens - 1 - t, t)

    @staticmethod
    def _reverse(seq: Tensor, index: Tensor) -> Tensor:
        idx = F.broadcast_to(F.expand_dims(index, -1), tuple(seq.shape))
        return F.gather_d(seq, 0, idx)

    def extend_repr(self) -> str:
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, num_layers={self.num_layers}, "
                f"has_bias={self.has_bias}, batch_first={self.batch_first}, dropout={self.dropout}, "
                f"bidirectional={self.bidirectional}")


class RNN(_RNNBase):
    """Elman RNN, `h' = tanh(W_ih x + b_ih + W_hh h + b_hh)` (or relu with nonlinearity='relu')."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 has_bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 dtype=mstype.float32) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        super().__init__(f"RNN_{nonlinearity.upper()}", input_size, hidden_size, num_layers, has_bias, batch_first,
                         dropout, bidirectional, dtype)


class LSTM(_RNNBase):
    """Long short-term memory; returns `output, (h_n, c_n)`."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, has_bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 dtype=mstype.float32) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, has_bias, batch_first, dropout, bidirectional,
                         dtype)


class GRU(_RNNBase):
    """Gated recurrent unit; returns `output, h_n`."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, has_bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 dtype=mstype.float32) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, has_bias, batch_first, dropout, bidirectional,
                         dtype)


class _CellBase(Cell):
    mode = "RNN_TANH"

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, dtype=mstype.float32,
                 mode: str | None = None) -> None:
        super().__init__()
        if mode is not None:
            self.mode = mode
        name = f"{type(self).__name__}(input_size={input_size}, hidden_size={hidden_size})"
        self.input_size, self.hidden_size, self.has_bias = int(input_size), int(hidden_size), bool(has_bias)
        gate = _GATES[self.mode] * hidden_size
        # MindSpore's RNN cells make each Parameter from np.random.randn, then refill every one with
        # Uniform(1/sqrt(hidden)): both draws advance numpy's stream, so both are made here
        shapes = [("weight_ih", (gate, input_size)), ("weight_hh", (gate, hidden_size))]
        shapes += [("bias_ih", (gate,)), ("bias_hh", (gate,))] if has_bias else []
        for kind, shape in shapes:
            np.random.randn(*shape)
        init = Uniform(1 / math.sqrt(hidden_size))
        for kind, shape in shapes:
            setattr(self, kind, make_param(name, kind, init, shape, dtype))
        if not has_bias:
            self.bias_ih = self.bias_hh = None

    def _args(self):
        return (self.weight_ih, self.weight_hh, self.bias_ih if self.has_bias else None,
                self.bias_hh if self.has_bias else None)

    def _check(self, x: Tensor) -> None:
        check_input(x.ndim in (1, 2) and x.shape[-1] == self.input_size, type(self).__name__, x,
                    f"expected (batch, {self.input_size}) or ({self.input_size},)")

    def construct(self, x: Tensor, hx: Tensor | None = None) -> Tensor:
        self._check(x)
        return _step(self.mode, x, hx, *self._args())

    def extend_repr(self) -> str:
        return f"input_size={self.input_size}, hidden_size={self.hidden_size}, has_bias={self.has_bias}"


class RNNCell(_CellBase):
    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, nonlinearity: str = "tanh",
                 dtype=mstype.float32) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        super().__init__(input_size, hidden_size, has_bias, dtype, mode=f"RNN_{nonlinearity.upper()}")
        self.nonlinearity = nonlinearity


class GRUCell(_CellBase):
    mode = "GRU"


class LSTMCell(_CellBase):
    """One LSTM step: `(h', c') = cell(x, (h, c))`."""

    mode = "LSTM"

    def construct(self, x: Tensor, hx=None):
        self._check(x)
        return _step("LSTM", x, None if hx is None else (hx[0], hx[1]), *self._args())
