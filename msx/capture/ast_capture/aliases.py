"""Which object a name is after tensor control flow, where eager execution would say "it depends on the path".

After `h = x` and an `if`/`while` on a tensor that rebinds `h`, eagerly `h` is still the object `x` on the
paths that did not rebind it (the other branch, a loop that ran no iteration), so a later in-place write to
either reaches both. The graph has one value per name, so the results of a construct are recorded with the
objects they are on some paths (`GraphBuilder.may_alias`, with the path's condition), and the builder turns a
write into either into a `Select` of the other. Where the condition is not known the builder refuses the
write; a loop body that writes in place a tensor it also rebinds is refused here.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...tensor import Tensor
from ..builder import GraphBuilder, current_builder
from .failures import Unsupported
from .values import flatten

if TYPE_CHECKING:
    from .control_flow import Branch, _Loop


def cond_results(parent: GraphBuilder, pred: Tensor, results: list[Tensor], values: list) -> None:
    """A Cond's result is the object a branch kept from before where that branch is taken."""
    for result, column in zip(results, values):
        for i, leaf in enumerate(column or ()):
            if isinstance(leaf, Tensor) and parent.knows(leaf):
                parent.may_alias(result, leaf, ((pred, i == 0),))


def _start(loop: "_Loop", key: tuple) -> Any:
    return flatten(loop.start_vars[key[0]])[0][key[1]]


def check_loop_writes(loop: "_Loop", body: "Branch", holders: dict) -> None:
    """Refuse a body that writes in place a carried Tensor, or the object a carried variable started as: on
    the first iteration eagerly they are one object (`h = x` before the loop), in the graph two values."""
    starts = {id(_start(loop, key)): key[0] for key in loop.carried}
    for obj, _ in body.writes:
        name = next((key[0] for key, h in holders.items() if h is obj and isinstance(_start(loop, key), Tensor)),
                    starts.get(id(obj)))
        if name is not None:
            raise Unsupported(f"a tensor that a loop on a tensor rebinds (`{name}`) is also written in place in it; "
                              f"on the first iteration it is still the tensor it was before the loop, so the write "
                              f"would have to reach that one too: write into a copy made before the loop "
                              f"(`h = x.copy()`)")


def loop_results(loop: "_Loop", results: list[Tensor], body: "Branch", holders: dict, no_trip: tuple | None) -> None:
    """A carried variable that started as a Tensor from before is that very object after the loop where it ran
    no iteration (`no_trip`: the condition; None for a scan, which always runs), as eagerly. Call before the
    loop's results replace the variables."""
    parent = current_builder()
    for (key, holder), result in zip(holders.items(), results):
        start = _start(loop, key)
        last = flatten(body.vars[key[0]])[0][key[1]]
        kept = last is holder or any(o is holder for o, _ in body.builder.aliases_of(last)) or (
            isinstance(last, Tensor) and parent.knows(last))
        if kept:  # the body may leave it an object from before: which one is only known when it runs
            for obj in (start, last):
                if isinstance(obj, Tensor) and parent.knows(obj):
                    parent.may_alias(result, obj, None)
        elif no_trip is not None and isinstance(start, Tensor) and parent.knows(start):
            parent.may_alias(result, start, no_trip)
