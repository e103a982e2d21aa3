"""`OnRequestExit`: stop training (or evaluation) cleanly on request, saving a checkpoint and a MindIR first
(MindSpore's callback).

A request is the registered signal (`sig`, SIGTERM by default) arriving, or `{"GracefulExit": 1}` appearing
in the JSON `config_file`. Training finishes the step it is in; then the train network's checkpoint
(`<directory>/rank_<id>/<file_name>_train.ckpt`, with `epoch_num`, `step_num`, `batch_num` and `global_step`
appended) and, with `save_mindir`, its MindIR on the step's inputs are written, and the run stops. A run that
starts while that checkpoint exists resumes from it (MindSpore's `on_train_begin`). Evaluation stops after
its current step and saves `<file_name>_eval.ckpt` likewise.
"""
from __future__ import annotations

import json
import os
import signal
import threading
import warnings
from typing import Any

from ... import context, ops
from ...checkpoint import load_checkpoint, save_checkpoint
from ...communication.management import GlobalComm, get_group_size
from ...export import export
from ...tensor import Tensor
from ._callback import Callback, RunContext


class OnRequestExit(Callback):
    """`OnRequestExit(save_ckpt=True, save_mindir=True, file_name='Net', directory='./', config_file=None,
    sig=signal.SIGTERM)` (module docstring)."""

    def __init__(self, save_ckpt: bool = True, save_mindir: bool = True, file_name: str = "Net",
                 directory: str = "./", config_file: str | None = None, sig: int = signal.SIGTERM) -> None:
        super().__init__()
        for name, value in (("save_ckpt", save_ckpt), ("save_mindir", save_mindir)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'OnRequestExit', the '{name}' must be a bool, but got {type(value).__name__}.")
        if not isinstance(sig, int) or isinstance(sig, bool):
            raise TypeError(f"For 'OnRequestExit', the 'sig' must be an int, but got {type(sig).__name__}.")
        if hasattr(signal, "SIGKILL") and sig == signal.SIGKILL:
            raise ValueError("Not support send exit request by signal SIGKILL.")
        if not isinstance(file_name, str):
            raise TypeError(f"For 'OnRequestExit', the 'file_name' must be a str, but got {type(file_name).__name__}.")
        if directory is not None and not isinstance(directory, str):
            raise TypeError(f"For 'OnRequestExit', the 'directory' must be a str, but got {type(directory).__name__}.")
        self.save_ckpt, self.save_mindir, self.sig = save_ckpt, save_mindir, sig
        self.remote_config_file = config_file
        self.key = "GracefulExit"
        self.exit = False
        self.stop_train = False
        self.lock = threading.Lock()
        self._previous_handler: Any = None
        self.save_path = directory
        self.train_name, self.eval_name = self._get_save_path(file_name)

    def _get_save_path(self, file_name: str) -> tuple[str, str]:
        rank_dir = os.path.join(os.getcwd() if self.save_path is None else self.save_path,
                                f"rank_{context.get_context('device_id')}")
        return os.path.join(rank_dir, f"{file_name}_train"), os.path.join(rank_dir, f"{file_name}_eval")

    # ------------------------------------------------------------ the request
    def _handle_signal(self, signum, frame) -> None:
        self.exit = True

    def _listen(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            warnings.warn("OnRequestExit: signals can only be caught in the main thread; only config_file "
                          "requests are seen in this run", UserWarning, stacklevel=3)
            return
        previous = signal.signal(self.sig, self._handle_signal)
        if self._previous_handler is None:
            self._previous_handler = previous

    def _stop_listening(self) -> None:
        if self._previous_handler is not None and threading.current_thread() is threading.main_thread():
            signal.signal(self.sig, self._previous_handler)
            self._previous_handler = None

    def _check_config_info(self) -> bool:
        path = self.remote_config_file
        if path is None or not os.path.exists(path):
            return False
        try:
            with open(path, encoding="utf-8") as f:
                info = json.load(f)
        except (OSError, json.JSONDecodeError) as exc:
            warnings.warn(f"OnRequestExit: cannot read config_file {path!r} ({exc}); no exit request seen",
                          UserWarning, stacklevel=3)
            return False
        return isinstance(info, dict) and info.get(self.key) == 1

    def _requested(self) -> bool:
        with self.lock:
            if not self.exit and self._check_config_info():
                self.exit = True
            return self.exit

    # ------------------------------------------------------------ saving
    def _save(self, net, name: str, inputs, append: dict | None) -> None:
        os.makedirs(os.path.dirname(name), exist_ok=True)
        if self.save_ckpt:
            if append:  # the optimizer's `global_step` Parameter is saved already, under that name
                names = {p.name for p in net.get_parameters()}
                append = {k: v for k, v in append.items() if k not in names}
            save_checkpoint(net, f"{name}.ckpt", append_dict=append or None)
        if self.save_mindir and inputs is not None:
            export(net, *inputs, file_name=name, file_format="MINDIR")

    @staticmethod
    def _progress(cb) -> dict:
        append = {"epoch_num": cb.cur_epoch_num, "step_num": cb.cur_step_num, "batch_num": cb.batch_num}
        optimizer = getattr(cb, "optimizer", None)
        step = getattr(optimizer, "global_step", None)
        if step is not None:
            append["global_step"] = int(step.asnumpy().reshape(-1)[0])
        return append

    # ------------------------------------------------------------ training
    def on_train_begin(self, run_context: RunContext) -> None:
        self._listen()
        if self.save_ckpt and os.path.isfile(f"{self.train_name}.ckpt"):
            load_checkpoint(f"{self.train_name}.ckpt", net=run_context.original_args().train_network)

    def on_train_step_begin(self, run_context: RunContext) -> None:
        self._requested()

    def on_train_step_end(self, run_context: RunContext) -> None:
        self._stop_after_step(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        self._stop_after_step(run_context)

    def _stop_after_step(self, run_context: RunContext) -> None:
        if self.stop_train or not self._requested():
            return
        cb = run_context.original_args()
        self._save(cb.train_network, self.train_name, getattr(cb, "train_dataset_element", None),
                   self._progress(cb))
        self.stop_train = True
        run_context.request_stop()

    def on_train_end(self, run_context: RunContext) -> None:
        self._stop_listening()
        if self.exit and not self.stop_train:  # the request came after the last step
            cb = run_context.original_args()
            self._save(cb.train_network, self.train_name, getattr(cb, "train_dataset_element", None),
                       self._progress(cb))
            self.stop_train = True

    # ------------------------------------------------------------ evaluation
    def on_eval_begin(self, run_context: RunContext) -> None:
        self._listen()
        if not self.save_ckpt:
            return
        net = run_context.original_args().eval_network
        for name in (self.eval_name, self.train_name):
            if os.path.isfile(f"{name}.ckpt"):
                load_checkpoint(f"{name}.ckpt", net=net)
                break

    def on_eval_step_end(self, run_context: RunContext) -> None:
        if self._requested():
            run_context.request_stop()

    def on_eval_end(self, run_context: RunContext) -> None:
        self._stop_listening()
        if self.exit:
            cb = run_context.original_args()
            self._save(cb.eval_network, self.eval_name, getattr(cb, "eval_dataset_element", None), None)


class ExitByRequest:
    """MindSpore's graceful-exit step helper (`mindspore.ExitByRequest`): `exit_by_request(grad, init_value,
    exit_value)` is called by a training step with this rank's exit request (`init_value`, 1 when requested);
    across several ranks it writes into `exit_value` whether every rank asked (an all-reduce of the requests
    compared with the group size), so all of them stop at the same step, and returns `grad` unchanged. In a
    one-rank job there is nothing to agree on and `exit_value` is left alone."""

    def __init__(self) -> None:
        self.group_size = get_group_size() if GlobalComm.INITED else 1  # no communication set up: one rank
        self.is_distributed = self.group_size > 1
        if self.is_distributed:
            self.base = Tensor([self.group_size], dtype="int32")

    def exit_by_request(self, grad, init_value, exit_value):
        if self.is_distributed:
            status = ops.AllReduce()(init_value)
            agreed = ops.ReduceAll(keep_dims=False)(ops.equal(status, self.base))
            exit_value.assign_value(agreed.astype(exit_value.dtype))
        return grad
