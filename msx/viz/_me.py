"""Model Explorer (`ai-edge-model-explorer`, the `msx[viz]` extra), imported once, with a clear error if absent."""
from __future__ import annotations

from ..errors import VizUnavailableError

try:
    import model_explorer
    from model_explorer import graph_builder, node_data_builder
except ImportError as exc:  # pragma: no cover - exercised where the extra is missing
    raise VizUnavailableError(f"msx.viz needs Google's Model Explorer: pip install \"msx[viz]\" "
                              f"(or ai-edge-model-explorer); importing it failed: {exc}") from None

__all__ = ["model_explorer", "graph_builder", "node_data_builder"]
