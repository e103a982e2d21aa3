"""`msx.viz`: see an msx graph in Google's Model Explorer instead of reading its text.

    msx.viz.save(graph, "g.json", overlays=[msx.viz.ascend_cost(graph)])   # files Model Explorer loads
    msx.viz.show(train_step, x, y, stage="optimized")                    # a local Model Explorer, its URL
    msx.viz.show("model.msxir")                                          # an exported graph (or a .mindir)
    python -m msx view model.msxir

The graph side (`convert`) maps the IR onto Model Explorer's graph JSON: Cell
layers as namespaces, subgraphs, fused groups, shapes and source lines; the
overlays (`overlays`) become its node data. Model Explorer is an optional
dependency (`pip install "msx[viz]"`): it is imported on first use, and its
absence is a `VizUnavailableError` saying so, never an import failure of msx.
"""
from __future__ import annotations

import json
import os
import re
import tempfile
from typing import Any, Sequence
from dataclasses import asdict
import sys

from ..atomic import write_atomic
from ..errors import VizError, VizUnavailableError
from ..export import load
from ..ir.graph import Graph
from ..jit import JitFunction, jit
from ..runtime.compile_pipeline import register_graph_view
from .overlays import Overlay, ascend_cost, ascend_memory, hlo_ops, pass_diff
from .server import Viewer, serve

STAGES = ("captured", "optimized", "optimised")


def graph_of(target: Any, *args, stage: str = "captured", **kwargs) -> Graph:
    """The msx Graph `target` stands for: a Graph; a path to an `.msxir` file; or a function, Cell or `msx.jit`
    function with example arguments, captured (`stage="captured"`) or after the passes (`"optimized"`)."""
    if isinstance(target, Graph):
        return target
    if isinstance(target, (str, os.PathLike)):
        loaded = load(os.fspath(target))
        if not isinstance(loaded, Graph):  # a weights-only format (NPZ): msx.load gives its Parameters
            raise VizError(f"{os.fspath(target)} holds no graph (msx.load gives a {type(loaded).__name__}): view an "
                           f".msxir or .mindir file, or a graph JSON from msx.viz.save")
        return loaded
    if stage not in STAGES:
        raise VizError(f"stage must be one of {STAGES}, got {stage!r}")
    jitted = target if isinstance(target, JitFunction) else jit(target)
    if stage == "captured":
        return jitted.capture(*args, **kwargs)
    return jitted.lower(*args, **kwargs).graph


def to_model_explorer(graph: Graph, label: str | None = None, stage: str = ""):
    """`graph` as a `msx.viz.explorer_graph.Converted`: the Model Explorer `GraphCollection` plus the IR-node mapping."""
    from .explorer_graph import convert  # optional dependency msx[viz]: Model Explorer loads on first use

    return convert(graph, label, stage)


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "overlay"


def save(graph: Graph | str, path: str, overlays: Sequence[Overlay] | Overlay | None = None, *,
         label: str | None = None, stage: str = "") -> dict[str, str]:
    """Write `graph` as Model Explorer graph JSON at `path`, and each overlay as a node-data JSON file next to it
    (`g.json` -> `g.<overlay name>.nodedata.json`). Files are written atomically. Returns {what: path}:
    "graph" and one entry per overlay name. Model Explorer opens `path` by itself (its JSON adapter) and
    loads the node-data files in its "node data" panel (or `python -m msx view g.json --node-data FILE`)."""
    graph = graph_of(graph)
    converted = to_model_explorer(graph, label, stage)
    from ._me import model_explorer  # noqa: F401  (a clear error if the extra is missing)

    written = {"graph": os.fspath(path)}
    write_atomic(path, [json.dumps(asdict(converted.collection)).encode()])
    stem = os.fspath(path)[:-5] if os.fspath(path).endswith(".json") else os.fspath(path)
    for overlay in _overlay_list(overlays):
        target = f"{stem}.{_safe_name(overlay.name)}.nodedata.json"
        write_atomic(target, [overlay.node_data(converted).to_json_string().encode()])
        written[overlay.name] = target
    return written


def _overlay_list(overlays) -> list[Overlay]:
    if overlays is None:
        return []
    items = [overlays] if isinstance(overlays, Overlay) else list(overlays)
    bad = [o for o in items if not isinstance(o, Overlay)]
    if bad:
        raise VizError(f"overlays must be msx.viz.Overlay objects (ascend_cost(graph), ...), got {type(bad[0]).__name__}")
    return items


def save_stage(folder: str, stem: str, graph: Graph, stage: str) -> str:
    """`set_context(save_graphs=3)`: the stage's graph as `<stem>.json` in `folder`, with the simulated Ascend's
    time overlay as `<stem>.Ascend_est._time_us.nodedata.json` (skipped where the simulator refuses the graph)."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{stem}.json")
    try:
        overlays = [ascend_cost(graph)]
    except Exception:  # the simulator refuses some graphs (float64, ...): the picture is still worth writing
        overlays = []
    save(graph, path, overlays, stage=stage)
    return path


def show(target: Any, *args, stage: str = "captured", overlays: Sequence[Overlay] | Overlay | None = None,
         host: str = "localhost", port: int | None = None, open_browser: bool = False, block: bool | None = None,
         **kwargs):
    """Start Model Explorer on `host` and show `target` (anything `graph_of` takes: a Graph, a function or Cell
    with example arguments, an `.msxir` or MindSpore `.mindir` file; or a saved graph `.json`).

    Returns a `Viewer` (its `.url`; in a notebook it displays the page inline). The server runs in a
    background thread of this process. `block=None` waits until Ctrl+C where a person is at a terminal (a
    script run from a shell, as `plt.show()` would), and returns at once in a notebook or without a terminal
    (a pipe, CI); `block=True`/`False` decides. `.msxir` files open through msx's adapter extension; a
    `.mindir` is read by msx's MindIR reader and shown as its msx graph.
    """
    folder = tempfile.mkdtemp(prefix="msx_viz_")
    files: list[str] = []
    node_data: list[str] = []
    path = os.fspath(target) if isinstance(target, (str, os.PathLike)) else None
    if path is not None and path.endswith(".json"):
        files.append(os.path.abspath(path))
    elif path is not None and path.endswith(".msxir") and not overlays:
        files.append(os.path.abspath(path))   # the adapter converts it in the server
    else:
        graph = graph_of(target, *args, stage=stage, **kwargs)
        written = save(graph, os.path.join(folder, f"{_safe_name(graph.name)}.json"), overlays, stage=stage)
        files.append(written.pop("graph"))
        node_data += list(written.values())
    viewer = Viewer(url=serve(files, node_data, host=host, port=port, open_browser=open_browser), models=files,
                    node_data=node_data)
    if _at_a_terminal() if block is None else block:
        print(f"Model Explorer is showing {path or 'the graph'} at\n{viewer.url}\n(Ctrl+C stops it)", flush=True)
        viewer.wait()
    return viewer


def _at_a_terminal() -> bool:
    """A plain script run from a shell (not a notebook kernel, not piped): where `show` should wait."""
    in_kernel = "ipykernel" in sys.modules or hasattr(sys, "ps1")
    return not in_kernel and sys.stdin is not None and sys.stdin.isatty() and sys.stdout.isatty()


__all__ = ["graph_of", "to_model_explorer", "save", "save_stage", "show", "Overlay", "ascend_cost",
           "ascend_memory", "hlo_ops", "pass_diff", "VizError", "VizUnavailableError"]


register_graph_view(save_stage)  # set_context(save_graphs=3) writes Model Explorer graphs through it
