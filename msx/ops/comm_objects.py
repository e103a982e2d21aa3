"""The bytes of a Python object for the object collectives (`all_gather_object`, `send_object_list`, ...).

MindSpore (and torch) pickle the objects, so a peer can run code in this process. msx encodes plain Python
data only, as tagged JSON: every value is `[tag, payload]` — None, bool, int, float (nan/inf too), str, bytes
(base64), list, tuple, dict with any such hashable keys — so the decoded object has the sender's types
(a tuple stays a tuple, `{1: 2}` keeps its int key). Anything else is refused with its type named.
"""
from __future__ import annotations

import base64
import json
import math
from typing import Any

from ..errors import CommunicationError

_MAX_DEPTH = 100


def _pack(obj: Any, what: str, depth: int) -> list:
    if depth > _MAX_DEPTH:
        raise CommunicationError(f"{what}: the object nests deeper than {_MAX_DEPTH} levels")
    if obj is None:
        return ["n", None]
    if isinstance(obj, bool):
        return ["b", obj]
    if isinstance(obj, int):
        return ["i", str(obj)]  # any size, exactly
    if isinstance(obj, float):
        return ["f", repr(obj) if not math.isfinite(obj) else obj]
    if isinstance(obj, str):
        return ["s", obj]
    if isinstance(obj, bytes):
        return ["y", base64.b64encode(obj).decode("ascii")]
    if isinstance(obj, list):
        return ["l", [_pack(v, what, depth + 1) for v in obj]]
    if isinstance(obj, tuple):
        return ["t", [_pack(v, what, depth + 1) for v in obj]]
    if isinstance(obj, dict):
        return ["d", [[_pack(k, what, depth + 1), _pack(v, what, depth + 1)] for k, v in obj.items()]]
    raise CommunicationError(f"{what}: cannot send an object of type {type(obj).__name__}: msx sends plain Python "
                             f"data only (None, bool, int, float, str, bytes, list, tuple, dict), never pickle; "
                             f"send tensors with the tensor collectives")


def _unpack(item: Any, what: str) -> Any:
    try:
        tag, value = item
    except (TypeError, ValueError):
        raise CommunicationError(f"{what}: the received bytes are not an msx object encoding") from None
    if tag == "n":
        return None
    if tag == "b" and isinstance(value, bool):
        return value
    if tag == "i" and isinstance(value, str):
        return int(value)
    if tag == "f" and isinstance(value, (float, int, str)):
        return float(value)
    if tag == "s" and isinstance(value, str):
        return value
    if tag == "y" and isinstance(value, str):
        return base64.b64decode(value.encode("ascii"), validate=True)
    if tag in ("l", "t") and isinstance(value, list):
        items = [_unpack(v, what) for v in value]
        return items if tag == "l" else tuple(items)
    if tag == "d" and isinstance(value, list):
        return {_unpack(k, what): _unpack(v, what) for k, v in value}
    raise CommunicationError(f"{what}: the received bytes are not an msx object encoding (tag {tag!r})")


def encode(obj: Any, what: str = "encode") -> bytes:
    """`obj` as UTF-8 tagged JSON; a CommunicationError naming the type of anything that is not plain data."""
    return json.dumps(_pack(obj, what, 0), separators=(",", ":")).encode("utf-8")


def decode(data: bytes, what: str = "decode") -> Any:
    """The object `encode` made (JSON parsing only: nothing of the bytes is ever run)."""
    try:
        tree = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise CommunicationError(f"{what}: the received bytes are not an msx object encoding ({exc})") from None
    return _unpack(tree, what)
