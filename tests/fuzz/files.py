"""File fuzzer: every kind of file msx writes, damaged every way we can enumerate, must be refused or load the same.

For a tiny file of each kind (MSXIR, checkpoint, STABLEHLO, MINDIR, NPZ) it runs

- `flip`:  every single-byte flip (byte i XOR 1 << (i % 8); with `--all` also XOR 0xFF),
- `cut`:   truncations at many lengths (every length with `--all`),
- `edit`:  structural edits with the checksums recomputed, so that the checks
           behind them are reached: every field of the JSON parts of an MSXIR
           file (graph and manifest) and of a checkpoint's header, fields of a
           MINDIR model, the length/version fields and payload bytes of a
           STABLEHLO artifact, the `.npy` header fields, member names and
           data lengths of an NPZ (re-zipped, so every CRC-32 is right),

and sorts each outcome as `refused` (an `msx.errors.LoadError`), `identical`
(loaded exactly what was written), `valid` (an edit behind recomputed
checksums that loaded a different but self-consistent file: the verifier
passed and, for graphs, running it gives the declared shapes and dtypes), or
`escaped` (anything else: another exception, or an inconsistent result).
Flips and cuts must be 100% refused or identical; nothing may escape.

STABLEHLO is parsed by jax's C++ code, which can abort the process, so its
fuzz runs in a child process (`--kind stablehlo`): an abort is a failure the
parent sees, not a crash of the caller.

    python -m tests.fuzz.files --all            # every byte, every length; prints the counts and times
    python -m tests.fuzz.files --stride 7       # a deterministic subset (what CI runs)
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from typing import Any, Callable, Iterator

import numpy as np

KINDS = ("msxir", "checkpoint", "stablehlo", "mindir", "npz")


# ---------------------------------------------------------------- the tiny files
def make_file(kind: str, folder: str) -> str:
    """Write the tiny file of `kind` into `folder` (deterministic); returns its path."""
    import msx
    from msx import nn

    msx.set_seed(0)
    x = msx.Tensor(np.ones((2, 2), np.float32))
    if kind == "msxir":  # BatchNorm in training mode: the graph updates Parameters
        net = nn.SequentialCell([nn.Dense(2, 2), nn.BatchNorm1d(2)])
        return msx.export(net, x, training=True, file_name=os.path.join(folder, "tiny"))
    net = nn.Dense(2, 2)
    if kind == "checkpoint":
        net.bias.requires_grad = False
        path = os.path.join(folder, "tiny.ckpt")
        msx.save_checkpoint(net, path, append_dict={"epoch": 3, "note": "hi"}, format="msx")  # its checksums
        return path
    if kind == "npz":
        return msx.export(net, file_name=os.path.join(folder, "tiny"), file_format="NPZ")
    return msx.export(net, x, file_name=os.path.join(folder, "tiny"), file_format=kind.upper())


# ---------------------------------------------------------------- what a load gives
def load(kind: str, path: str) -> Any:
    """A comparable fingerprint of what msx loads from `path` (raises what the loader raises)."""
    import msx

    if kind in ("checkpoint", "npz"):
        params = msx.load_checkpoint(path) if kind == "checkpoint" else msx.load(path)
        return [(k, v) if isinstance(v, str) else (k, v._data.dtype.name, tuple(v.shape), v.asnumpy().tobytes(),
                                                   v.requires_grad) for k, v in params.items()]
    if kind == "stablehlo":
        from msx.export import load_stablehlo
        from msx.stablehlo_file import read_payload

        exported = load_stablehlo(path)
        return (read_payload(path), tuple(map(str, exported.in_avals)), tuple(map(str, exported.out_avals)))
    graph = msx.load(path)
    return (str(graph), [(v.name, str(v.abstract)) for v in graph.params],
            sorted((k, w.dtype.name, w.shape, w.tobytes()) for k, w in graph.weights.items()),
            sorted(graph.requires_grad.items()), [(n, str(x)) for n, x in graph.updates])


def consistent(kind: str, path: str) -> None:
    """A loaded edit must be self-consistent: run the graph on zeros; outputs and updates match their declarations."""
    import msx
    from msx.ir.interpret import evaluate

    if kind in ("checkpoint", "npz"):
        for name, value in (msx.load_checkpoint(path) if kind == "checkpoint" else msx.load(path)).items():
            if not isinstance(value, str):
                assert value.asnumpy().nbytes == value.asnumpy().size * value.asnumpy().itemsize, name
        return
    if kind == "stablehlo":
        from msx.stablehlo_file import describe

        describe(path)  # jax parses the module, in a child process
        return
    graph = msx.load(path)
    if not all(isinstance(d, int) for v in graph.inputs for d in v.abstract.shape):
        return  # symbolic inputs: verified at load, not run here
    inputs = [np.zeros(v.abstract.shape, v.abstract.dtype) for v in graph.inputs]
    outs, updates = evaluate(graph, inputs, [graph.weights[v.name] for v in graph.params])
    for declared, value in zip(list(graph.outputs) + [x for _, x in graph.updates], list(outs) + list(updates)):
        want = declared.abstract
        got = np.asarray(value)
        assert (tuple(got.shape), got.dtype.name) == (tuple(want.shape), want.dtype), (want, got.shape, got.dtype)
    by_name = {v.name: v.abstract for v in graph.params}
    for name, x in graph.updates:
        assert by_name[name].shape == x.abstract.shape, name


def outcome(kind: str, path: str, reference: Any, edited: bool) -> str:
    from msx.errors import LoadError

    try:
        got = load(kind, path)
    except LoadError:
        return "refused"
    except Exception as exc:  # noqa: BLE001 — the point: anything but a LoadError escapes
        return f"escaped: {type(exc).__name__}: {str(exc)[:200]}"
    if got == reference:
        return "identical"
    if not edited:
        return "escaped: a damaged file loaded different contents"
    try:
        consistent(kind, path)
    except LoadError:
        return "refused"
    except Exception as exc:  # noqa: BLE001
        return f"escaped: loaded, then {type(exc).__name__}: {str(exc)[:200]}"
    return "valid"


# ---------------------------------------------------------------- corruptions
def flips(blob: bytes, stride: int, masks: tuple[str, ...]) -> Iterator[tuple[str, bytes]]:
    for i in range(0, len(blob), stride):
        for mask in masks:
            damaged = bytearray(blob)
            damaged[i] ^= (1 << (i % 8)) if mask == "bit" else 0xFF
            yield f"flip {mask} @{i}", bytes(damaged)


def cuts(blob: bytes, stride: int) -> Iterator[tuple[str, bytes]]:
    lengths = sorted(set(range(0, len(blob), stride)) | {0, 1, 7, 8, 9, 51, 52, 53, len(blob) - 1} -
                     {len(blob)})
    for n in lengths:
        if 0 <= n < len(blob):
            yield f"cut @{n}", blob[:n]


def json_edits(obj: Any, where: str = "") -> Iterator[tuple[str, Callable[[Any], Any]]]:
    """(label, apply) for each small edit of a JSON tree: `apply(tree)` returns an edited deep copy."""
    def at(path: list, change: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def apply(tree: Any) -> Any:
            tree = copy.deepcopy(tree)
            if not path:
                return change(tree)
            node = tree
            for key in path[:-1]:
                node = node[key]
            result = change(node[path[-1]])
            if result is _DROP:
                del node[path[-1]]
            else:
                node[path[-1]] = result
            return tree
        return apply

    def walk(node: Any, path: list, label: str) -> Iterator[tuple[str, Callable[[Any], Any]]]:
        if isinstance(node, dict):
            for k in list(node):
                yield f"{label}.{k} dropped", at(path + [k], lambda v: _DROP)
                yield from walk(node[k], path + [k], f"{label}.{k}")
        elif isinstance(node, list):
            if node:
                yield f"{label} last dropped", at(path, lambda v: v[:-1])
                yield f"{label} last doubled", at(path, lambda v: v + [copy.deepcopy(v[-1])])
            for i, v in enumerate(node):
                yield from walk(v, path + [i], f"{label}[{i}]")
        elif isinstance(node, bool):
            yield f"{label} negated", at(path, lambda v: not v)
        elif isinstance(node, int):
            for new in (node + 1, node - 1, 0, -1, 2 ** 40):
                if new != node:
                    yield f"{label} = {new}", at(path, lambda v, new=new: new)
        elif isinstance(node, float):
            yield f"{label} doubled", at(path, lambda v: v * 2 + 1)
        elif isinstance(node, str):
            for new in ("", node + "x", "int32" if node != "int32" else "float32"):
                yield f"{label} = {new!r}", at(path, lambda v, new=new: new)
        elif node is None:
            yield f"{label} = 0", at(path, lambda v: 0)

    yield from walk(obj, [], where)


_DROP = object()


def edits(kind: str, path: str, stride: int) -> Iterator[tuple[str, bytes]]:
    """Structural edits of the file at `path`, each re-signed so that every checksum in it is right."""
    return {"msxir": _msxir_edits, "checkpoint": _checkpoint_edits, "stablehlo": _stablehlo_edits,
            "mindir": _mindir_edits, "npz": _npz_edits}[kind](path, stride)


def _msxir_edits(path: str, stride: int) -> Iterator[tuple[str, bytes]]:
    from msx.export import FORMAT_VERSION, HEADER, MAGIC, read_container

    manifest, parts = read_container(path)

    def pack(manifest: dict, parts: dict[str, bytes]) -> bytes:
        manifest, offset, blobs = copy.deepcopy(manifest), 0, []
        for entry in manifest["parts"]:
            blob = parts[entry["name"]]
            entry.update(offset=offset, length=len(blob), sha256=hashlib.sha256(blob).hexdigest())
            offset += len(blob)
            blobs.append(blob)
        text = json.dumps(manifest).encode()
        return HEADER.pack(MAGIC, FORMAT_VERSION, len(text), hashlib.sha256(text).digest()) + text + b"".join(blobs)

    def raw(manifest: Any, parts: dict[str, bytes]) -> bytes:
        text = json.dumps(manifest).encode()
        return HEADER.pack(MAGIC, FORMAT_VERSION, len(text), hashlib.sha256(text).digest()) + text + \
            b"".join(parts[p] for p in ("graph", "weights", "constants"))

    graph = json.loads(parts["graph"])
    for k, (label, apply) in enumerate(json_edits(graph, "graph")):
        if k % stride == 0:
            yield label, pack(manifest, {**parts, "graph": json.dumps(apply(graph)).encode()})
    for k, (label, apply) in enumerate(json_edits(manifest, "manifest")):
        if k % stride == 0:  # the parts are unchanged, so their digests are right: only the manifest's is redone
            yield label, raw(apply(manifest), parts)


def _checkpoint_edits(path: str, stride: int) -> Iterator[tuple[str, bytes]]:
    from msx.checkpoint import HEADER_DIGEST, _seal

    blob = open(path, "rb").read()
    n = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8:8 + n])
    meta = header["__metadata__"]
    # the metadata's JSON-in-strings too: edit the decoded tables, then re-encode them
    trees = {"header": header, **{f"meta.{k}": json.loads(v) for k, v in meta.items() if k in ("sha256", "strings",
                                                                                                "requires_grad")}}
    for name, tree in trees.items():
        for k, (label, apply) in enumerate(json_edits(tree, name)):
            if k % stride:
                continue
            edited = apply(tree)
            if name != "header":
                edited = {**header, "__metadata__": {**meta, name[5:]: json.dumps(edited)}}
            if isinstance(edited, dict) and isinstance(edited.get("__metadata__"), dict) and \
                    HEADER_DIGEST in edited["__metadata__"]:
                edited["__metadata__"] = {**edited["__metadata__"], HEADER_DIGEST: "0" * 64}
            text = json.dumps(edited, separators=(",", ":")).encode()
            text += b" " * (-len(text) % 8)
            damaged = len(text).to_bytes(8, "little") + text + blob[8 + n:]
            try:
                damaged = _seal(damaged)
            except AssertionError:  # the edit removed the checksum field: nothing to re-sign
                pass
            yield label, damaged


def _stablehlo_edits(path: str, stride: int) -> Iterator[tuple[str, bytes]]:
    from msx.stablehlo_file import MAGIC, TRAILER, seal

    blob = open(path, "rb").read()
    payload = blob[:-TRAILER.size]
    for field, value in (("version", 2), ("version", 0), ("length", len(payload) - 1), ("length", 2 ** 40)):
        fields = bytearray(blob[-TRAILER.size:-32])
        if field == "version":
            fields[8:12] = value.to_bytes(4, "little")
        else:
            fields[12:20] = value.to_bytes(8, "little")
        yield f"trailer {field} = {value} (re-signed)", payload + bytes(fields) + \
            hashlib.sha256(payload + bytes(fields)).digest()
    yield "payload empty (re-signed)", seal(b"")
    yield "payload doubled (re-signed)", seal(payload + payload)
    yield "trailer twice", blob + blob[-TRAILER.size:]
    assert blob[-TRAILER.size:].startswith(MAGIC)
    # payload bytes behind a recomputed checksum: what only a crafted file can hold; jax parses it in a child
    for i in range(0, len(payload), max(stride, 1) * 97):
        damaged = bytearray(payload)
        damaged[i] ^= 0xFF
        yield f"payload flip @{i} (re-signed)", seal(bytes(damaged))


def _mindir_edits(path: str, stride: int) -> Iterator[tuple[str, bytes]]:
    from msx.mindir import mind_ir_pb2 as pb
    from msx.mindir.reader import DIGEST_PREFIX, digest

    base = pb.ModelProto()
    base.ParseFromString(open(path, "rb").read())

    def signed(model: pb.ModelProto) -> bytes:
        model.doc_string = DIGEST_PREFIX + digest(model)
        return model.SerializeToString(deterministic=True)

    changes: list[tuple[str, Callable[[pb.ModelProto], None]]] = []
    for i in range(len(base.graph.node)):
        changes += [(f"node {i} op_type = REF::nothing", lambda m, i=i: setattr(m.graph.node[i], "op_type",
                                                                                "REF::nothing")),
                    (f"node {i} dropped", lambda m, i=i: m.graph.node.__delitem__(i)),
                    (f"node {i} extra output", lambda m, i=i: m.graph.node[i].output.append("extra"))]
        for k in range(len(base.graph.node[i].input)):
            changes.append((f"node {i} input {k} = graph input", lambda m, i=i, k=k: m.graph.node[i].input.__setitem__(
                k, m.graph.input[0].name)))
            changes.append((f"node {i} input {k} = nowhere", lambda m, i=i, k=k: m.graph.node[i].input.__setitem__(
                k, "nowhere")))
    for i in range(len(base.graph.parameter)):
        changes += [(f"parameter {i} dims[0] += 1", lambda m, i=i: m.graph.parameter[i].dims.__setitem__(
                         0, m.graph.parameter[i].dims[0] + 1)),
                    (f"parameter {i} dims appended", lambda m, i=i: m.graph.parameter[i].dims.append(1)),
                    (f"parameter {i} data_type = INT32", lambda m, i=i: setattr(m.graph.parameter[i], "data_type",
                                                                                pb.TensorProto.INT32)),
                    (f"parameter {i} data_type = 99", lambda m, i=i: setattr(m.graph.parameter[i], "data_type", 99)),
                    (f"parameter {i} raw_data short", lambda m, i=i: setattr(m.graph.parameter[i], "raw_data",
                                                                             m.graph.parameter[i].raw_data[:-1]))]
    for i in range(len(base.graph.input)):
        changes.append((f"input {i} dims appended", lambda m, i=i: m.graph.input[i].tensor[0].dims.append(3)))
    for i in range(len(base.primitives)):
        changes.append((f"primitive {i} op_type = Exp", lambda m, i=i: setattr(m.primitives[i], "op_type", "Exp")))
        changes.append((f"primitive {i} doubled", lambda m, i=i: m.primitives.add().CopyFrom(m.primitives[i])))
    changes.append(("graph output dropped", lambda m: m.graph.ClearField("output")))
    for k, (label, change) in enumerate(changes):
        if k % stride == 0:
            model = pb.ModelProto()
            model.CopyFrom(base)
            change(model)
            yield label + " (re-signed)", signed(model)


def _npz_edits(path: str, stride: int) -> Iterator[tuple[str, bytes]]:
    """Each member's `.npy` header fields, its name and its data length edited, the zip rebuilt (CRCs right)."""
    import io
    import zipfile

    with zipfile.ZipFile(path) as zf:
        members = [(info.filename, zf.read(info)) for info in zf.infolist()]

    def rezip(items: list[tuple[str, bytes]]) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as out, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zipfile warns about the duplicate names some edits make
            for name, data in items:
                out.writestr(name, data)
        return buffer.getvalue()

    def npy(header: dict, data: bytes) -> bytes:
        buffer = io.BytesIO()
        np.lib.format.write_array_header_1_0(buffer, header)
        return buffer.getvalue() + data

    changes = [("descr", d) for d in ("<f8", "|O", "<U2", "|V4", ">f4", "<c8", "|b1", "<i2", "bogus")] + \
        [("fortran_order", True), ("fortran_order", "yes")] + \
        [("shape", s) for s in ((), (4,), (2, 3), (-1, 2), (2 ** 40,), (2.0,), "2")]
    for k, (name, data) in enumerate(members):
        stream = io.BytesIO(data)
        version = np.lib.format.read_magic(stream)
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)  # what npz.py writes
        header, body = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": fortran, "shape": shape}, \
            data[stream.tell():]
        others = members[:k] + members[k + 1:]
        for field, value in changes[::stride]:
            yield f"{name} {field} = {value!r} (re-zipped)", rezip(others + [(name, npy({**header, field: value}, body))])
        for label, new in (("data + 1 byte", body + b"\0"), ("data - 1 byte", body[:-1]), ("no data", b"")):
            yield f"{name} {label} (re-zipped)", rezip(others + [(name, npy(header, new))])
        for new_name in (".npy", "x", "x.npz", name.upper(), members[-1 - k][0], "dir/"):
            yield f"{name} renamed {new_name!r} (re-zipped)", rezip(others + [(new_name, data)])
        yield f"{name} header only (re-zipped)", rezip(others + [(name, data[:stream.tell()])])
        yield f"{name} dropped (re-zipped)", rezip(others)


# ---------------------------------------------------------------- the run
def fuzz(kind: str, folder: str, stride: int = 1, every: bool = False, log=None) -> dict:
    """Run every corruption of the tiny `kind` file; returns {"counts": {mode: {outcome: n}}, "escapes", "seconds"}."""
    path = make_file(kind, folder)
    blob = open(path, "rb").read()
    reference = load(kind, path)
    target = os.path.join(folder, "damaged" + os.path.splitext(path)[1])
    counts: dict[str, Counter] = {"flip": Counter(), "cut": Counter(), "edit": Counter()}
    escapes: list[str] = []
    start = time.perf_counter()
    modes = (("flip", flips(blob, stride, ("bit", "ff") if every else ("bit",))),
             ("cut", cuts(blob, stride)), ("edit", edits(kind, path, 1 if every else stride)))
    for mode, cases in modes:
        for label, data in cases:
            if log:
                print(f"{kind} {label}", file=log, flush=True)  # the last line names the case if the process dies
            with open(target, "wb") as f:
                f.write(data)
            result = outcome(kind, target, reference, edited=mode == "edit")
            counts[mode][result.split(":")[0]] += 1
            if result.startswith("escaped"):
                escapes.append(f"{mode} {label}: {result}")
    return {"kind": kind, "bytes": len(blob), "counts": {m: dict(c) for m, c in counts.items()},
            "escapes": escapes, "seconds": round(time.perf_counter() - start, 2)}


def fuzz_in_child(kind: str, stride: int = 1, every: bool = False, timeout: float = 1800) -> dict:
    """`fuzz` in a child process: a process abort (jax's C++ parser) shows up as a failed result, not a crash."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cmd = [sys.executable, "-m", "tests.fuzz.files", "--kind", kind, "--stride", str(stride), "--json"]
    proc = subprocess.run(cmd + (["--all"] if every else []), cwd=root, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "JAX_PLATFORMS": os.environ.get("JAX_PLATFORMS", "cpu")})
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-3:]
        return {"kind": kind, "counts": {}, "escapes": [f"the fuzz process died (status {proc.returncode}) after: "
                                                        f"{' | '.join(last)}"], "seconds": None}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--all", action="store_true", help="every byte (two flips each), every length, every edit")
    parser.add_argument("--stride", type=int, default=1)
    parser.add_argument("--kind", choices=KINDS, action="append")
    parser.add_argument("--json", action="store_true", help="one JSON line per kind (used by fuzz_in_child)")
    args = parser.parse_args(argv)
    failed = False
    for kind in args.kind or KINDS:
        if kind == "stablehlo" and not args.json:
            result = fuzz_in_child(kind, args.stride, args.all)
        else:
            with tempfile.TemporaryDirectory() as folder:
                result = fuzz(kind, folder, args.stride, args.all, log=sys.stderr if args.json else None)
        failed |= bool(result["escapes"])
        if args.json:
            print(json.dumps(result))
        else:
            total = sum(sum(c.values()) for c in result["counts"].values())
            print(f"{kind:10} {result.get('bytes', '?')} bytes: {total} corruptions in {result['seconds']} s: "
                  + "; ".join(f"{m} {dict(c)}" for m, c in result["counts"].items()))
            for e in result["escapes"]:
                print(f"  ESCAPED {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
