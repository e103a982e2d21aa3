"""Running Model Explorer's own local server for `msx.viz.show`, without blocking the caller.

`model_explorer.server.start` serves the web app and then waits forever, so
`show` runs it in a daemon thread (it ends with the process) on a free port,
waits until the server answers its health check, and returns the URL that
opens the given files (graph JSON, `.msxir` through msx's adapter extension)
with their node data. `Viewer` displays that page inline in a notebook.
"""
from __future__ import annotations

import html
import threading
import time
import urllib.request

from ..errors import VizError

STARTUP_TIMEOUT_S = 60.0


def serve(models: list[str], node_data: list[str], *, host: str = "localhost", port: int | None = None,
          open_browser: bool = False) -> str:
    """Start a Model Explorer server showing `models` (paths) with `node_data` files; returns the page's URL."""
    from ._me import model_explorer  # optional dependency msx[viz]: Model Explorer loads on first use
    from model_explorer import server  # msx[viz] (optional), as above
    import portpicker  # msx[viz] (optional): comes with Model Explorer

    config = model_explorer.config()
    for path in models:
        config.add_model_from_path(path)
    for path in node_data:
        config.add_node_data_from_path(path)
    port = port or portpicker.pick_unused_port()
    thread = threading.Thread(target=server.start, name=f"model-explorer:{port}", daemon=True,
                              kwargs=dict(host=host, port=port, config=config, no_open_in_browser=not open_browser,
                                          extensions=["msx.viz"]))
    thread.start()
    base = f"http://{host}:{port}"
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while True:
        try:
            with urllib.request.urlopen(f"{base}/check_health", timeout=2) as resp:
                if resp.read() == b"model_explorer_ok":
                    break
        except OSError:
            pass
        if not thread.is_alive() or time.monotonic() > deadline:
            raise VizError(f"Model Explorer did not start on {base} (port in use, or it failed; see its output above)")
        time.sleep(0.1)
    return f"{base}/?data={config.to_url_param_value()}"


class Viewer:
    """A running Model Explorer page: `.url`; shown inline (an iframe) when it is a notebook cell's value."""

    def __init__(self, url: str, models: list[str], node_data: list[str], height: int = 850) -> None:
        self.url, self.models, self.node_data, self.height = url, models, node_data, height

    def wait(self) -> None:
        """Keep this process (and so the server thread) alive until Ctrl+C."""
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass

    def _repr_html_(self) -> str:
        return (f'<iframe src="{html.escape(self.url)}" width="100%" height="{self.height}" '
                f'style="border: 1px solid #ccc"></iframe>')

    def __repr__(self) -> str:
        return f"<Model Explorer at {self.url.split('/?')[0]}/ showing {', '.join(self.models)}>"
