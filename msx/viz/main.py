"""The Model Explorer adapter extension that opens `.msxir` files.

Model Explorer loads a custom extension `X` by importing `X.main` (its
convention), so this module is `msx.viz.main` and `extensions=["msx.viz"]`
(what `msx.viz.show` and `python -m msx view` pass) makes `.msxir` files open
in the web app: the file is checked by `msx.load` (nothing in it runs) and
converted by `msx.viz.explorer_graph`.
"""
from __future__ import annotations

from typing import Dict

from ..export import load
from ._me import model_explorer
from .explorer_graph import convert


class MsxirAdapter(model_explorer.Adapter):
    """`.msxir` (an exported msx graph) -> Model Explorer graphs, with Cell layers and subgraphs."""

    metadata = model_explorer.AdapterMetadata(
        id="msx_msxir", name="msx MSXIR adapter",
        description="Opens graphs exported by msx (ms.export(..., file_format='MSXIR')): ops, shapes, source "
                    "lines, Cell layers, control-flow and gradient subgraphs.",
        source_repo="", fileExts=["msxir"])

    def convert(self, model_path: str, settings: Dict) -> model_explorer.ModelExplorerGraphs:
        graph = load(model_path)
        return {"graphCollections": [convert(graph, stage="exported").collection]}
