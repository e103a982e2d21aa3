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
signature and module (long constants elided). The file is checked as `load`
checks it; a damaged file prints the error and exits with status 1.
"""
from __future__ import annotations

import argparse
import re
import os
import sys
import tempfile

from . import compat
from .errors import MsxError
from .export import MAGIC, is_mindir, load
from .mindir.reader import load_mindir, op_census, parse, supported
from .checkpoint import FORMAT, MINDSPORE_CKPT, read_checkpoint
from .ms_checkpoint import SAFETENSORS_TAG, looks_like_ckpt
from .stablehlo_file import describe, is_sealed
from .fileread import open_regular
from .viz import graph_of, save
from .viz.server import Viewer, serve


def _table(rows: list[tuple], header: tuple) -> str:
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header] + rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def inspect_msxir(path: str) -> str:
    graph = load(path)  # checks everything first: what is printed below has been validated
    manifest = graph.manifest
    info = manifest.get("graph") if isinstance(manifest.get("graph"), dict) else {}
    params = [(v.name, v.abstract.dtype, list(v.abstract.shape), graph.requires_grad[v.name]) for v in graph.params]
    total = sum(w.nbytes for w in graph.weights.values())
    lines = [f"MSXIR file {path}",
             f"format version {manifest['format_version']}, written by msx {manifest.get('msx_version')} "
             f"(jax {manifest.get('jax_version')})",
             f"graph {graph.name}: capture_mode={info.get('capture_mode')}, training={info.get('training')}",
             f"inputs:  {', '.join(f'{v.name}: {v.abstract}' for v in graph.inputs) or '()'}",
             f"outputs: {', '.join(str(o.abstract) for o in graph.outputs) or '()'}",
             f"primitives: {', '.join(manifest['primitives'])}", "",
             f"parameters: {len(params)} tensors, {total} bytes",
             _table(params, ("name", "dtype", "shape", "requires_grad")), "",
             _table([(p["name"], p["offset"], p["length"], p["sha256"][:16] + "…") for p in manifest["parts"]],
                    ("part", "offset", "length", "sha256")), "", str(graph)]
    return "\n".join(lines)


def inspect_mindir(path: str) -> str:
    """The model's producer, its MindSpore ops (supported or not) and, when msx can run it, graph and weights."""
    model = parse(path)
    census = op_census(model)
    rows = [(op, count, "yes" if supported(op) else "NO") for op, count in sorted(census.items())]
    lines = [f"MindIR file {path}", f"made by {model.producer_name or '?'} {model.model_version} (ir_version "
             f"{model.ir_version!r}, mind_ir_version {model.mind_ir_version}), {1 + len(model.functions)} graph(s)", "",
             f"MindSpore ops: {len(census)} kinds, {sum(census.values())} nodes",
             _table(rows, ("op", "nodes", "msx runs it"))]
    missing = [op for op, _, ok in rows if ok == "NO"]
    if missing:
        lines += ["", f"msx cannot run this file: unsupported op(s) {', '.join(missing)}"]
        return "\n".join(lines)
    graph = load_mindir(path)
    params = [(v.name, v.abstract.dtype, list(v.abstract.shape)) for v in graph.params]
    total = sum(w.nbytes for w in graph.weights.values())
    lines += ["", f"inputs:  {', '.join(f'{v.name}: {v.abstract}' for v in graph.inputs) or '()'}",
              f"outputs: {', '.join(str(o.abstract) for o in graph.outputs) or '()'}", "",
              f"parameters: {len(params)} tensors, {total} bytes", _table(params, ("name", "dtype", "shape")), "",
              "as an msx graph:", str(graph)]
    return "\n".join(lines)


def inspect_checkpoint(path: str) -> str:
    ckpt = read_checkpoint(path)  # every check first, a CRC the file has included
    metadata = ckpt.metadata
    if ckpt.writer == FORMAT:
        head = (f"checkpoint {path} ({FORMAT} version {metadata.get('format_version')}, written by msx "
                f"{metadata.get('msx_version')}; SHA-256 of every entry and the header: valid)")
    elif ckpt.writer in (MINDSPORE_CKPT, SAFETENSORS_TAG):
        kind = "protobuf .ckpt" if ckpt.writer == MINDSPORE_CKPT else "safetensors (tagged 'ms')"
        crc = "valid" if "crc32" in metadata or "crc_num" in metadata else "none (saved without crc_check)"
        head = f"MindSpore checkpoint {path} ({kind}; CRC-32: {crc})"
    else:
        head = f"safetensors file {path} (not written by msx{f'; tagged {ckpt.writer!r}' if ckpt.writer else ''})"
    rows = [(name, "str", repr(ckpt.texts[name]), len(ckpt.texts[name].encode()), "") if name in ckpt.texts else
            (name, ckpt.arrays[name].dtype.name, list(ckpt.arrays[name].shape), ckpt.arrays[name].nbytes,
             ckpt.requires_grad.get(name, "-")) for name in ckpt.order]  # "-": the format does not store it
    total = sum(r[3] for r in rows)
    return "\n".join([head, f"{len(rows)} entries, {total} bytes", "",
                      _table(rows, ("name", "dtype", "shape", "bytes", "requires_grad"))])


def inspect_stablehlo(path: str) -> str:
    info = describe(path)  # trailer and checksum first; jax parses the module in a child process
    text = re.sub(r'dense<"0x([0-9A-F]{64,})">', lambda m: f'dense<"0x…({len(m.group(1)) // 2} bytes)">',
                  info["module"])
    return "\n".join([f"STABLEHLO (jax.export) artifact {path}",
                      f"platforms: {', '.join(info['platforms'])}",
                      f"inputs:  {', '.join(info['in_avals'])}",
                      f"outputs: {', '.join(info['out_avals'])}",
                      f"calling convention version {info['calling_convention_version']}", "", text])


def inspect(path: str) -> str:
    """The text `python -m msx inspect` prints for the file at `path`."""
    f, _ = open_regular(path)
    with f:
        head = f.read(4096)
    if is_sealed(path):
        return inspect_stablehlo(path)
    if looks_like_ckpt(head):  # before is_mindir: both are protobuf
        return inspect_checkpoint(path)
    if is_mindir(path):
        return inspect_mindir(path)
    if head[:len(MAGIC)] == MAGIC[:len(head)]:
        return inspect_msxir(path)
    if head[8:9] == b"{":
        return inspect_checkpoint(path)
    return inspect_stablehlo(path)


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
    cmd = sub.add_parser("inspect", help="print the manifest and graph of an exported file, or a checkpoint's tensors")
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
