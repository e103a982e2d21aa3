"""Training callbacks (MindSpore's `mindspore.train` callback names, plus msx's `ProgressBar`)."""
from ._backup import BackupAndRestore  # noqa: F401
from ._callback import Callback, CallbackParams, RunContext  # noqa: F401
from ._checkpoint import CheckpointConfig, ModelCheckpoint  # noqa: F401
from ._early_stop import EarlyStopping  # noqa: F401
from ._history import History  # noqa: F401
from ._lr import LambdaCallback, LearningRateScheduler, ReduceLROnPlateau  # noqa: F401
from ._monitors import LossMonitor, TimeMonitor  # noqa: F401
from ._on_request_exit import ExitByRequest, OnRequestExit  # noqa: F401
from ._progress import ProgressBar  # noqa: F401
from ._summary_collector import SummaryCollector  # noqa: F401
from ._landscape import SummaryLandscape  # noqa: F401

__all__ = ["Callback", "RunContext", "CallbackParams", "LossMonitor", "TimeMonitor", "ModelCheckpoint",
           "CheckpointConfig", "EarlyStopping", "History", "ProgressBar", "LambdaCallback", "LearningRateScheduler",
           "ReduceLROnPlateau", "BackupAndRestore", "SummaryCollector", "OnRequestExit", "SummaryLandscape"]
