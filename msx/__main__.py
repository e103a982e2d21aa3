"""`python -m msx inspect FILE`: what an exported graph, a StableHLO artifact or a checkpoint holds.

`python -m msx run script.py [args]` (or `run -m package.module [args]`): runs a program written for
MindSpore unchanged, every `import mindspore...` resolving to msx (`msx.compat`, docs/api_surface.md).

`python -m msx view FILE`: the graph of an `.msxir` file (or of a graph JSON
written by `msx.viz.save`) in Google's Model Explorer on localhost; it prints
the URL and serves until Ctrl+C (see docs/viz.md).

For a MindSpore `.mindir` file: its producer, every MindSpore op it uses
with a count and whether msx runs it, and (when msx can) the graph msx
builds from it and its parameter table. For an MSXIR file: the manifest (versions, inputs, outputs, primitives,
parameters, parts with checksums) and the graph's text form; for a
checkpoint (msx's, or MindSpore's protobuf `.ckpt` / safetensors, with whether
its CRC-32 is there): its metadata and tensor table; for a STABLEHLO artifact: its
signature and module (long constants elided). Each text is its format's
`inspect` hook (msx.formats: the format is told by content, then by name). The
file is checked as `load` checks it; a damaged file prints the error and
exits with status 1.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

from . import compat
from .errors import LoadError, MsxError
from .formats import formats, recognise
from .viz import graph_of, save
from .viz.server import Viewer, serve


def inspect(path: str) -> str:
    """The text `python -m msx inspect` prints for the file at `path`: its format's `inspect` (msx.formats)."""
    fmt = recognise(path, "inspect")
    if fmt.inspect is None:
        raise LoadError(f"{path} is a {fmt.name} file, which `python -m msx inspect` cannot show")
    return fmt.inspect(path)


def view(path: str, node_data: list[str], host: str, port: int | None, open_browser: bool) -> int:
    """Serve `path` (.msxir, a MindSpore .mindir, or a graph JSON from msx.viz.save) in Model Explorer until
    interrupted."""
    if not os.path.exists(path):
        raise MsxError(f"no such file: {path}", stage="viz")
    model = os.path.abspath(path)
    if not path.endswith((".json", ".msxir")):        # .mindir: msx's reader, shown as its msx graph

        model = save(graph_of(path), os.path.join(tempfile.mkdtemp(prefix="msx_view_"), "graph.json"))["graph"]
    url = serve([model], [os.path.abspath(p) for p in node_data], host=host, port=port, open_browser=open_browser)
    print(f"Model Explorer is showing {path} at\n{url}\n(Ctrl+C stops it)", flush=True)
    Viewer(url, [model], node_data).wait()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m msx", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    known = "; ".join(f"{f.name} ({'/'.join(f.suffixes)}): {f.description}" for f in formats() if f.inspect)
    cmd = sub.add_parser("inspect", help="print the manifest and graph of an exported file, or a checkpoint's tensors",
                         description=f"Formats (told by content, then by name): {known}.")
    cmd.add_argument("file")
    show = sub.add_parser("view", help="show an .msxir file (or msx.viz.save JSON) in Model Explorer on localhost")
    show.add_argument("file")
    show.add_argument("--node-data", action="append", default=[], help="a node-data JSON overlay (repeatable)")
    show.add_argument("--host", default="localhost")
    show.add_argument("--port", type=int, default=None, help="default: a free port")
    show.add_argument("--browser", action="store_true", help="also open it in the default web browser")
    runner = sub.add_parser("run", help="run a script written for MindSpore, `import mindspore` giving msx (msx.compat)")
    runner.add_argument("-m", dest="module", action="store_true", help="TARGET is a module, as `python -m TARGET`")
    runner.add_argument("target", help="the script (or, with -m, the module) to run")
    runner.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    args = parser.parse_args(argv)
    if args.command == "run":
        try:
            compat.run(args.target, args.args, module=args.module)
        except (FileNotFoundError, IsADirectoryError) as exc:
            print(f"python -m msx run: cannot run {args.target!r}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        except ImportError as exc:
            if not args.module or getattr(exc, "name", None) != args.target:
                raise
            print(f"python -m msx run -m: no module named {args.target!r}", file=sys.stderr)
            return 2
        return 0
    if args.command == "view":
        try:
            return view(args.file, args.node_data, args.host, args.port, args.browser)
        except MsxError as exc:
            print(f"python -m msx view: {exc}", file=sys.stderr)
            return 1
    try:
        print(inspect(args.file))
    except (MsxError, OSError) as exc:
        print(f"python -m msx inspect: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
