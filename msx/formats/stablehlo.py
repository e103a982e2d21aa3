"""STABLEHLO (`.stablehlo`): a `jax.export` artifact with the weights as constants, in msx's checksummed envelope.

Any program with jax runs it (`jax.export.deserialize(bytes)`); msx reads it
with `load_stablehlo(path)`, which checks the trailer (msx.stablehlo_file)
before jax sees a byte and returns the `jax.export.Exported`. It is not a
graph: `msx.load` says so and names `load_stablehlo`. A graph that writes
Parameters cannot be one (the weights are constants).
"""
from __future__ import annotations

import re

import jax
import numpy as np

from .. import stablehlo_file
from ..capture.builder import Captured
from ..errors import BadMagicError, ExportError, MsxError
from ..ir.interpret import evaluate, to_struct
from .graph_capture import capture_for_export
from .registry import ExportRequest, register_format


def export_stablehlo(path: str, request: ExportRequest) -> None:
    """`msx.export(..., file_format="STABLEHLO", platforms=...)`: lowered for `platforms` (default: this machine's)."""
    captured = capture_for_export(request.net, request.inputs, request.training, request.capture_mode)
    write_stablehlo(path, captured, request.options.get("platforms"))


def write_stablehlo(path: str, captured: Captured, platforms: tuple[str, ...] | None = None) -> None:
    """Write a `jax.export` artifact computing the graph's outputs from its inputs, weights baked in."""
    graph = captured.graph
    if graph.updates:
        written = ", ".join(name for name, _ in graph.updates)
        raise ExportError(f"export: graph {graph.name} writes Parameters ({written}); a STABLEHLO artifact holds "
                          f"the weights as constants and cannot carry state. Export in eval mode, or as MSXIR")
    weights = [np.asarray(p._data) for p in captured.params]   # host copies: not laid out over a mesh

    def forward(*inputs):
        outs, _ = evaluate(graph, list(inputs), weights)
        return outs[0] if len(outs) == 1 else tuple(outs)

    try:
        exported = jax.export.export(jax.jit(forward), platforms=platforms)(
            *[to_struct(v.abstract) for v in graph.inputs])
        blob = bytes(exported.serialize())
    except MsxError:
        raise
    except Exception as exc:
        raise ExportError(f"export: jax.export could not export graph {graph.name}: {exc}") from exc
    stablehlo_file.write(path, blob)


def refuse_load(path: str) -> None:
    """What `msx.load` does with a STABLEHLO file: it is a jax artifact, not a graph."""
    raise BadMagicError(f"{path} is a STABLEHLO artifact, not an MSXIR or MindIR file: read it with "
                        f"`from msx.export import load_stablehlo` (it returns a jax.export.Exported)")


def inspect_stablehlo(path: str) -> str:
    """Platforms, signature and module text (long constants elided); jax parses the module in a child process."""
    info = stablehlo_file.describe(path)  # trailer and checksum first
    text = re.sub(r'dense<"0x([0-9A-F]{64,})">', lambda m: f'dense<"0x…({len(m.group(1)) // 2} bytes)">',
                  info["module"])
    return "\n".join([f"STABLEHLO (jax.export) artifact {path}",
                      f"platforms: {', '.join(info['platforms'])}",
                      f"inputs:  {', '.join(info['in_avals'])}",
                      f"outputs: {', '.join(info['out_avals'])}",
                      f"calling convention version {info['calling_convention_version']}", "", text])


def _sniff(path: str, head: bytes) -> bool:
    return stablehlo_file.is_sealed(path)  # the trailer is at the end, whatever the name


register_format("STABLEHLO", suffixes=".stablehlo", sniff=_sniff, export=export_stablehlo, load=refuse_load,
                inspect=inspect_stablehlo, options=("platforms",),
                description="a jax.export artifact, weights as constants, in msx's checksummed envelope")

__all__ = ["export_stablehlo", "write_stablehlo", "inspect_stablehlo"]
