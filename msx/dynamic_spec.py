"""The declared side of dynamic shapes: MindSpore's `Symbol` and the `enable_dynamic` / `Cell.set_inputs`
declaration (`DynamicSpec`), checked against a call. They hold only Tensors' shapes and dtypes, so `nn` (whose
`Cell.set_inputs` declares them) and `dynamic` (which captures shape families from them) both stand on this."""
from __future__ import annotations

from dataclasses import dataclass

from .tensor import Tensor

Position = tuple[int, int]  # (index of the Tensor among the call's Tensor leaves, axis)


class Symbol:
    """MindSpore's `Symbol`: a dynamic dim with constraints, `min <= d`, `d <= max` (0: no bound),
    `d % divisor == remainder`. One Symbol object used in several places means those dims are equal."""

    def __init__(self, max: int = 0, min: int = 1, divisor: int = 1, remainder: int = 0) -> None:
        for label, v in (("max", max), ("min", min), ("divisor", divisor), ("remainder", remainder)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"Symbol: {label} must be a non-negative int, got {v!r}")
        if min < 1 or divisor < 1:
            raise ValueError(f"Symbol: min and divisor must be >= 1, got min={min}, divisor={divisor}")
        if max and max < min:
            raise ValueError(f"Symbol: max={max} is below min={min}")
        if remainder >= divisor and divisor > 1:
            raise ValueError(f"Symbol: remainder={remainder} must be below divisor={divisor}")
        self.max, self.min, self.divisor, self.remainder = max, min, divisor, remainder

    def violation(self, value: int) -> str | None:
        """Which constraint `value` breaks, in words; None when it meets them all."""
        if value < self.min:
            return f"min={self.min}"
        if self.max and value > self.max:
            return f"max={self.max}"
        if value % self.divisor != self.remainder % self.divisor:
            return f"divisor={self.divisor}" + (f", remainder={self.remainder}" if self.remainder else "")
        return None

    def __repr__(self) -> str:
        shown = [f"max={self.max}"] if self.max else []
        shown += [f"min={self.min}"] if self.min != 1 else []
        shown += [f"divisor={self.divisor}"] if self.divisor != 1 else []
        shown += [f"remainder={self.remainder}"] if self.remainder else []
        return f"Symbol({', '.join(shown)})"


# ---------------------------------------------------------------- enable_dynamic
@dataclass(frozen=True)
class DynamicSpec:
    """The declared inputs: argument name -> (shape with None/Symbol dims, or None for dynamic rank; dtype)."""

    args: dict

    def positions(self, fn_name: str, names: list[str], tensors: list[Tensor]) -> tuple[dict, dict]:
        """Check a call against the declaration; returns ({position: Symbol or None}, {name: index})."""
        index = {n: i for i, n in enumerate(names)}
        missing = [n for n in self.args if n not in index]
        if missing:
            raise ValueError(f"enable_dynamic: {fn_name} has no Tensor argument named {missing} in this call "
                             f"(its Tensor arguments: {names})")
        dims: dict[Position, Symbol | None] = {}
        for name, (shape, dtype) in self.args.items():
            t = tensors[index[name]]
            got = tuple(t._data.shape)
            if dtype is not None and t.dtype != dtype:
                raise ValueError(f"enable_dynamic: argument '{name}' of {fn_name} is declared {dtype}, got {t.dtype}")
            if shape is None:  # dynamic rank: every dim symbolic
                dims.update({(index[name], a): None for a in range(len(got))})
                continue
            if len(shape) != len(got):
                raise ValueError(f"enable_dynamic: argument '{name}' of {fn_name} is declared with rank {len(shape)} "
                                 f"(shape {_show(shape)}), got shape {list(got)}")
            for axis, (want, have) in enumerate(zip(shape, got)):
                if isinstance(want, Symbol):
                    broken = want.violation(have)
                    if broken is not None:
                        raise ValueError(f"enable_dynamic: argument '{name}' of {fn_name}: dim {axis} is {have}, "
                                         f"which breaks its constraint {broken} ({want!r})")
                    dims[(index[name], axis)] = want
                elif want is None:
                    dims[(index[name], axis)] = None
                elif want != have:
                    raise ValueError(f"enable_dynamic: argument '{name}' of {fn_name}: dim {axis} is declared static "
                                     f"{want}, got {have} (shape {list(got)})")
        return dims, index


def _show(shape) -> str:
    return "[" + ", ".join("None" if d is None else repr(d) if isinstance(d, Symbol) else str(d) for d in shape) + "]"


def make_spec(kwargs: dict) -> DynamicSpec:
    args = {}
    for name, t in kwargs.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"enable_dynamic: argument '{name}' must be declared with a Tensor(shape=..., dtype=...), "
                            f"got {type(t).__name__}")
        shape = t.shape
        if shape is not None:
            shape = tuple(None if d is None or (isinstance(d, int) and d == -1) else d for d in shape)
            bad = [d for d in shape if not (d is None or isinstance(d, Symbol) or
                                            (isinstance(d, int) and not isinstance(d, bool) and d >= 0))]
            if bad:
                raise TypeError(f"enable_dynamic: argument '{name}': dims must be ints, None or msx.Symbol, got {bad}")
        args[name] = (shape, t.dtype)
    if not args:
        raise ValueError("enable_dynamic: name at least one argument, e.g. enable_dynamic(x=Tensor(shape=[None, 784], "
                         "dtype=msx.float32))")
    return DynamicSpec(args)
