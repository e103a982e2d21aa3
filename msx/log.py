"""MindSpore's logger configuration (`mindspore.log`): `get_level()` and `get_log_config()`.

MindSpore configures its Python logger once from glog-style environment variables: `GLOG_v` (the level,
0 DEBUG .. 4 CRITICAL, default 2 WARNING), `GLOG_logtostderr` (1: log to stderr, the default; 0: to rotating
files in `GLOG_log_dir`, `logger_maxBytes` each, `logger_backupCount` kept, and to stderr from
`GLOG_stderrthreshold` up). msx's logger ("msx") reads the same variables the first time it is asked for.
"""
from __future__ import annotations

import logging
import logging.handlers
import os
import threading

_GLOG_TO_NAME = {"0": "DEBUG", "1": "INFO", "2": "WARNING", "3": "ERROR", "4": "CRITICAL"}
_LEVEL_TO_GLOG = {getattr(logging, name): glog for glog, name in _GLOG_TO_NAME.items()}
_LOCK = threading.Lock()
_LOGGER: list[logging.Logger] = []


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return value.strip() if value else default


def _check_glog(name: str, value: str) -> str:
    if value not in _GLOG_TO_NAME:
        raise ValueError(f"Incorrect log level: {name}={value!r}; it must be one of 0 (DEBUG), 1 (INFO), "
                         f"2 (WARNING), 3 (ERROR), 4 (CRITICAL)")
    return value


def _positive(name: str, value: str) -> int:
    if not value.isdigit() or int(value) <= 0:
        raise ValueError(f"Incorrect logger setting: {name}={value!r} must be a positive integer")
    return int(value)


def _setup() -> logging.Logger:
    level = getattr(logging, _GLOG_TO_NAME[_check_glog("GLOG_v", _env("GLOG_v", "2"))])
    to_stderr = _env("GLOG_logtostderr", "1")
    if to_stderr not in ("0", "1"):
        raise ValueError(f"Incorrect logger setting: GLOG_logtostderr={to_stderr!r} must be 0 or 1")
    logger = logging.getLogger("msx")
    logger.setLevel(level)
    logger.propagate = False
    for h in list(logger.handlers):
        logger.removeHandler(h)
    fmt = logging.Formatter("[%(levelname)s] %(name)s(%(process)d):%(asctime)s [%(filename)s:%(lineno)d] %(message)s")
    if to_stderr == "1":
        stream = logging.StreamHandler()
        stream.name = "StreamHandler"
        stream.setLevel(level)
        stream.setFormatter(fmt)
        logger.addHandler(stream)
        return logger
    log_dir = _env("GLOG_log_dir")
    if log_dir is None:
        raise ValueError("Incorrect logger setting: GLOG_logtostderr=0 needs GLOG_log_dir (the directory of the "
                         "log files)")
    os.makedirs(os.path.realpath(log_dir), exist_ok=True)
    max_bytes = _positive("logger_maxBytes", _env("logger_maxBytes", str(50 * 1024 * 1024)))
    backups = _positive("logger_backupCount", _env("logger_backupCount", "30"))
    files = logging.handlers.RotatingFileHandler(os.path.join(os.path.realpath(log_dir), "msx.log"),
                                                 maxBytes=max_bytes, backupCount=backups, encoding="utf-8")
    files.name = "FileHandler"
    files.setLevel(level)
    files.setFormatter(fmt)
    stderr = logging.StreamHandler()
    stderr.name = "StreamHandler"
    stderr.setLevel(getattr(logging, _GLOG_TO_NAME[_check_glog("GLOG_stderrthreshold",
                                                              _env("GLOG_stderrthreshold", "2"))]))
    stderr.setFormatter(fmt)
    logger.addHandler(files)
    logger.addHandler(stderr)
    return logger


def get_logger() -> logging.Logger:
    """msx's logger, configured from the glog environment variables on first use (MindSpore's `_get_logger`)."""
    with _LOCK:
        if not _LOGGER:
            _LOGGER.append(_setup())
        return _LOGGER[0]


def get_level() -> str:
    """The logger level as MindSpore's glog digit: '0' DEBUG, '1' INFO, '2' WARNING, '3' ERROR, '4' CRITICAL."""
    return _LEVEL_TO_GLOG.get(get_logger().getEffectiveLevel(), "2")


def get_log_config() -> dict:
    """The logger's configuration, keyed as MindSpore's environment variables: `GLOG_v` and `GLOG_logtostderr`,
    and for file logging `GLOG_log_dir`, `logger_maxBytes`, `logger_backupCount`, `GLOG_stderrthreshold`."""
    logger = get_logger()
    handler = logger.handlers[0]
    config = {"GLOG_v": get_level(), "GLOG_logtostderr": "1"}
    if handler.name == "FileHandler":
        config["GLOG_logtostderr"] = "0"
        config["GLOG_log_dir"] = os.path.split(handler.baseFilename)[0]
        config["logger_maxBytes"] = handler.maxBytes
        config["logger_backupCount"] = handler.backupCount
        config["GLOG_stderrthreshold"] = _LEVEL_TO_GLOG.get(logger.handlers[1].level)
    return config
