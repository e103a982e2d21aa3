"""`mindrecord.set_enc_key` / `set_enc_mode` / `set_dec_mode`: MindSpore's encryption of MindRecord files.

msx writes and reads plain MindRecord files only. `set_enc_key(None)` (no encryption, MindSpore's default) and
the modes' defaults are accepted; a key, or a custom encryption/decryption function, is refused with a clear error
rather than writing plain files the user believes are encrypted (or failing later on an encrypted one).
"""
from __future__ import annotations

from typing import Any

from .mindrecord_errors import ParamValueError

_MODES = {"enc": ("AES-GCM", "SM4-CBC"), "dec": ("AES-GCM",)}
_state = {"enc_key": None, "enc_mode": "AES-GCM", "dec_mode": "AES-GCM"}


def set_enc_key(enc_key: str | None) -> None:
    """Only None (no encryption) is supported by msx."""
    if enc_key is None:
        _state["enc_key"] = None
        return
    if not isinstance(enc_key, str) or len(enc_key) not in (16, 24, 32):
        raise ParamValueError("The input enc_key must be None or a str of length 16, 24 or 32.")
    raise ParamValueError("set_enc_key: msx does not encrypt or decrypt MindRecord files; encrypt them with another "
                          "tool after writing, or call set_enc_key(None)")


def _set_mode(kind: str, mode: Any) -> None:
    if mode is None or (isinstance(mode, str) and mode in _MODES[kind]):
        _state[f"{kind}_mode"] = mode
        return
    if callable(mode):
        raise ParamValueError(f"set_{kind}_mode: a custom {kind}ryption function is not supported by msx (it reads "
                              f"and writes plain MindRecord files only)")
    raise ParamValueError(f"set_{kind}_mode: the mode must be one of {list(_MODES[kind])} or None, got {mode!r}")


def set_enc_mode(enc_mode: Any = "AES-GCM") -> None:
    """Accepted for MindSpore's modes (without a key they change nothing); a custom function is refused."""
    _set_mode("enc", enc_mode)


def set_dec_mode(dec_mode: Any = "AES-GCM") -> None:
    """Accepted for MindSpore's modes (without a key they change nothing); a custom function is refused."""
    _set_mode("dec", dec_mode)
