"""MindSpore's `JitConfig`: the compile options a Cell's graph uses (`cell.set_jit_config(JitConfig(...))`).

msx reads `jit_level` ("O0"/"O1"; "" is jit's default); the other keys are kept in `jit_config_dict` as
MindSpore keeps them (they steer MindSpore's own graph compiler and have no XLA counterpart).
"""
from __future__ import annotations

from typing import Any

_LEVELS = ("", "O0", "O1", "O2")


class JitConfig:
    """`JitConfig(jit_level='', exc_mode='auto', jit_syntax_level='', debug_level='RELEASE', infer_boost='off')`."""

    def __init__(self, jit_level: str = "", exc_mode: str = "auto", jit_syntax_level: str = "",
                 debug_level: str = "RELEASE", infer_boost: str = "off", **kwargs: Any) -> None:
        checks = {"jit_level": (jit_level, _LEVELS), "exc_mode": (exc_mode, ("auto", "sink", "no_sink")),
                  "jit_syntax_level": (jit_syntax_level, ("", "STRICT", "LAX")),
                  "debug_level": (debug_level, ("RELEASE", "DEBUG")), "infer_boost": (infer_boost, ("on", "off"))}
        for key, (value, allowed) in checks.items():
            if value not in allowed:
                raise ValueError(f"JitConfig: {key} must be one of {list(allowed)}, got {value!r}")
        self.jit_config_dict = {"jit_level": jit_level, "exc_mode": exc_mode, "jit_syntax_level": jit_syntax_level,
                                "debug_level": debug_level, "infer_boost": infer_boost,
                                "backend": kwargs.pop("backend", "ms_backend"), **kwargs}

    def __repr__(self) -> str:
        return f"JitConfig({self.jit_config_dict})"
