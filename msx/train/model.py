"""`Model`: MindSpore's high-level training API — `train`, `fit`, `eval`, `predict` — over compiled steps.

    model = Model(net, nn.CrossEntropyLoss(), nn.Adam(net.trainable_params(), 1e-2), metrics={"accuracy"})
    model.train(5, train_ds, callbacks=[LossMonitor(10)])
    model.eval (test_ds)         # {"accuracy": 0.97}

Each step (network + loss + gradients + optimizer) is one graph compiled by
`msx.jit(capture_mode="trace")`; the dataset's background thread prepares the
next batch meanwhile. A dataset row is `(*network inputs, label)` when a
`loss_fn` is given, else all of it goes to the network, which returns the loss.
"""
from __future__ import annotations

import itertools

import warnings
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from .. import amp
from ..context import get_context
from ..nn.cell import Cell
from ..nn.optim import Optimizer
from .callback import Callback, CallbackParams, ProgressBar, RunContext
from .callback._callback import CallbackList, as_callback_list, loss_tensor
from .callback._progress import interactive
from .metrics import Loss, Metric, get_metrics
from .step import CompiledStep, EvalStep, TrainStep

if TYPE_CHECKING:
    from ..dataset import Dataset  # on first use: msx.dataset stands on grain (see the docstring)

def _warn_non_finite(per_step: list[float], epoch: int, first_step: int) -> bool:
    """Warn (once per `train`) when an epoch's losses hold NaN or inf: a jitted step cannot raise, so a loss
    gone non-finite (out-of-range labels, a too-large learning rate) would otherwise stop the weights changing
    in silence. Returns whether it warned. (`LossMonitor` raises at its printed steps, as MindSpore's does.)"""
    bad = [i for i, v in enumerate(per_step) if not np.isfinite(v)]
    if not bad:
        return False
    warnings.warn(f"Model.train: the loss is {per_step[bad[0]]} from step {first_step + bad[0] + 1} (epoch {epoch}; "
                  f"{len(bad)} of the epoch's {len(per_step)} steps): gradients are NaN or zero there and the "
                  f"weights stop changing. Check the labels (class indices in [0, num_classes), int32) and the "
                  f"learning rate; LossMonitor() stops training at the first one", RuntimeWarning, stacklevel=4)
    return True


def _is_dataset(obj: Any) -> bool:
    """Whether `obj` is an msx Dataset. msx.dataset is imported here, not at the top: it stands on grain
    (~1 s), and `import msx` (which imports train) loads it only on first use."""
    from ..dataset import Dataset  # on first use: msx.dataset stands on grain (see the docstring)
    return isinstance(obj, Dataset)


_KWARGS = ("loss_scale_manager", "keep_batchnorm_fp32", "keep_fp32")


class Model:
    """MindSpore's `Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
    eval_indexes=None, amp_level="O0", **kwargs)`.

    `metrics`: names ({"accuracy", "loss", "mae", "mse"}) or {name: Metric}.
    `amp_level` ("O0"-"O3") applies `msx.amp.auto_mixed_precision` to the
    network, computes the loss in float32, and at "O2" scales the loss
    dynamically (MindSpore's defaults). kwargs: `loss_scale_manager`
    (`FixedLossScaleManager` / `DynamicLossScaleManager`),
    `keep_batchnorm_fp32` (default True at "O2"), and msx's `keep_fp32`
    (Cell types or instances kept in float32).
    """

    def __init__(self, network: Cell, loss_fn: Callable | None = None, optimizer: Optimizer | None = None,
                 metrics: Any = None, eval_network: Cell | None = None, eval_indexes: Sequence[int] | None = None,
                 amp_level: str = "O0", **kwargs: Any) -> None:
        unknown = sorted(set(kwargs) - set(_KWARGS))
        if unknown:
            raise TypeError(f"Model: unknown keyword argument(s) {unknown}; supported: {list(_KWARGS)}")
        if not isinstance(network, Cell):
            raise TypeError(f"Model: network must be an nn.Cell, got {type(network).__name__}")
        if loss_fn is not None and not callable(loss_fn):
            raise TypeError(f"Model: loss_fn must be a Cell or a callable, got {type(loss_fn).__name__}")
        if optimizer is not None and not isinstance(optimizer, Optimizer):
            raise TypeError(f"Model: optimizer must be an nn.Optimizer, got {type(optimizer).__name__}")
        if eval_network is not None and not isinstance(eval_network, Cell):
            raise TypeError(f"Model: eval_network must be an nn.Cell, got {type(eval_network).__name__}")
        if eval_indexes is not None and (eval_network is None or len(eval_indexes) != 3
                                         or not all(isinstance(i, int) for i in eval_indexes)):
            raise ValueError("Model: eval_indexes are three ints (positions of loss, output and label in "
                             "eval_network's outputs) and need an eval_network")
        if amp_level not in amp.AMP_LEVELS:
            raise ValueError(f"Model: amp_level must be one of {list(amp.AMP_LEVELS)}, got {amp_level!r}")
        keep = list(kwargs.get("keep_fp32", ()))
        if amp_level == "O2" and not kwargs.get("keep_batchnorm_fp32", True):
            # O2 keeps the black list in float32 unless told not to: then it is O3 plus the keep list
            amp_level_used = "O3"
        else:
            amp_level_used = amp_level
        if amp_level_used != "O0":
            network = amp.auto_mixed_precision(network, amp_level_used, keep_fp32=keep)
        manager = kwargs.get("loss_scale_manager")
        if manager is None and amp_level == "O2":
            manager = amp.DynamicLossScaleManager()
        if manager is not None and not isinstance(manager, (amp.FixedLossScaleManager, amp.DynamicLossScaleManager)):
            raise TypeError(f"Model: loss_scale_manager must be a FixedLossScaleManager or DynamicLossScaleManager, "
                            f"got {type(manager).__name__}")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._metrics: dict[str, Metric] = get_metrics(metrics)
        self._eval_network_given = eval_network
        self._eval_indexes = list(eval_indexes) if eval_indexes is not None else None
        self._amp_level = amp_level
        self._output_fp32 = amp_level in ("O2", "O3")
        self._loss_scale_manager = manager
        self._train_step: CompiledStep | None = None
        self._eval_step: CompiledStep | None = None
        self._predict_step: CompiledStep | None = None

    # ------------------------------------------------------------ networks
    @property
    def train_network(self) -> Cell:
        """The Cell one training step runs (network, loss, optimizer)."""
        return self._get_train_step().cell

    @property
    def predict_network(self) -> Cell:
        return self._network

    @property
    def eval_network(self) -> Cell:
        return self._get_eval_step().cell

    def _get_train_step(self) -> CompiledStep:
        if self._train_step is None:
            if self._optimizer is None:
                raise ValueError("Model.train needs an optimizer: Model(network, loss_fn, optimizer)")
            manager = self._loss_scale_manager
            scaler = manager.loss_scaler() if manager is not None else None
            drop = manager.get_drop_overflow_update() if manager is not None else True
            cell = TrainStep(self._network, self._loss_fn, self._optimizer, scaler, drop, self._output_fp32)
            self._train_step = CompiledStep(cell, "training")
        return self._train_step

    def _get_eval_step(self) -> CompiledStep:
        if self._eval_step is None:
            cell = self._eval_network_given or EvalStep(self._network, self._loss_fn, self._output_fp32)
            self._eval_step = CompiledStep(cell, "evaluation")
        return self._eval_step

    # ------------------------------------------------------------ train
    def train(self, epoch: int, train_dataset: Dataset, callbacks: Callback | Sequence[Callback] | None = None,
              dataset_sink_mode: bool = False, sink_size: int = -1, initial_epoch: int = 0,
              progress_bar: bool | None = None) -> None:
        """Train for epochs `initial_epoch + 1` .. `epoch` over `train_dataset`.

        msx always prefetches batches in the background and calls the step
        callbacks every step, so `dataset_sink_mode` changes how many steps an
        epoch is, as in MindSpore, and nothing else: with `sink_size > 0` an
        epoch is `sink_size` steps on a GPU/TPU device target, the dataset read
        on across epochs (MindSpore's sink on Ascend/GPU); on the CPU target,
        where MindSpore 2.10 does not sink, an epoch is the whole dataset and
        the callbacks see `batch_num = sink_size`, as MindSpore's do there.
        `progress_bar` (msx): None shows a bar in terminals and notebooks,
        True always, False never.
        """
        self._run_training(epoch, train_dataset, callbacks, initial_epoch, None, 1, progress_bar,
                           _sinking(dataset_sink_mode, sink_size, "Model.train"))

    def fit(self, epoch: int, train_dataset: Dataset, valid_dataset: Dataset | None = None, valid_frequency: int = 1,
            callbacks: Callback | Sequence[Callback] | None = None, dataset_sink_mode: bool = False,
            valid_dataset_sink_mode: bool = False, sink_size: int = -1, initial_epoch: int = 0,
            progress_bar: bool | None = None) -> None:
        """`train`, validating on `valid_dataset` every `valid_frequency` epochs: the results (the metrics, plus
        "eval_loss" with a loss_fn) reach the callbacks as `cb_params.eval_results` at the epoch's end."""
        if valid_dataset is not None and not _is_dataset(valid_dataset):
            raise TypeError(f"Model.fit: valid_dataset must be an msx Dataset, got {type(valid_dataset).__name__}")
        if isinstance(valid_frequency, bool) or not isinstance(valid_frequency, int) or valid_frequency < 1:
            raise ValueError(f"Model.fit: valid_frequency must be a positive int, got {valid_frequency!r}")
        self._run_training(epoch, train_dataset, callbacks, initial_epoch, valid_dataset, valid_frequency, progress_bar,
                           _sinking(dataset_sink_mode, sink_size, "Model.fit"))

    def _check_dataset(self, where: str, dataset: Any) -> int:
        if not _is_dataset(dataset):
            raise TypeError(f"{where}: the dataset must be an msx Dataset (msx.dataset), got {type(dataset).__name__}")
        size = dataset.get_dataset_size()
        if size == 0:
            raise ValueError(f"{where}: the dataset is empty")
        columns = dataset.get_col_names()
        if self._loss_fn is not None and len(columns) < 2:
            raise ValueError(f"{where}: with a loss_fn, each dataset row is (*network inputs, label), so it needs at "
                             f"least 2 columns; the dataset has {columns}")
        return size

    def _callbacks(self, callbacks: Any, progress_bar: bool | None) -> CallbackList:
        items = as_callback_list(callbacks)
        if progress_bar is None:
            progress_bar = interactive()
        if progress_bar and not any(isinstance(cb, ProgressBar) for cb in items):
            items.append(ProgressBar())
        elif progress_bar is False:
            items = [cb for cb in items if not isinstance(cb, ProgressBar)]
        return CallbackList(items)

    def _run_training(self, epoch: int, dataset: Dataset, callbacks: Any, initial_epoch: int,
                      valid_dataset: Dataset | None, valid_frequency: int, progress_bar: bool | None,
                      sink_size: int | None = None) -> None:
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
            raise ValueError(f"Model.train: epoch must be a positive int, got {epoch!r}")
        if isinstance(initial_epoch, bool) or not isinstance(initial_epoch, int) or not 0 <= initial_epoch < epoch:
            raise ValueError(f"Model.train: initial_epoch must be an int in [0, epoch), got {initial_epoch!r}")
        dataset_size = self._check_dataset("Model.train", dataset)
        batch_num = dataset_size if sink_size is None else sink_size
        # an epoch of sink_size steps (a sinking device target), the dataset read on across epochs; else the whole
        # dataset each epoch (the CPU target, where MindSpore does not sink either)
        steps = sink_size if sink_size is not None and get_context("device_target") != "CPU" else None
        if valid_dataset is not None:
            self._check_dataset("Model.fit", valid_dataset)
        step = self._get_train_step()
        cbs = self._callbacks(callbacks, progress_bar)
        cb = CallbackParams(train_network=step.cell, network=self._network, loss_fn=self._loss_fn,
                            optimizer=self._optimizer, train_dataset=dataset, valid_dataset=valid_dataset,
                            epoch_num=epoch, batch_num=batch_num, cur_epoch_num=initial_epoch,
                            cur_step_num=initial_epoch * batch_num, net_outputs=None, batch_size=0,
                            train_loss=None, eval_results={}, eval_epoch=None, mode="train",
                            dataset_sink_mode=False)
        run_context = RunContext(cb)
        epochs_read = epoch - initial_epoch if steps is None else -(-(epoch - initial_epoch) * steps // dataset_size)
        iterator = dataset.create_tuple_iterator(num_epochs=epochs_read)
        rows = iter(()) if steps is None else (data for _ in range(epochs_read) for data in iterator)
        self._network.set_train(True)
        cbs("on_train_begin", run_context)
        warned = False
        try:
            for e in range(initial_epoch, epoch):
                cb.cur_epoch_num, cb.train_loss = e + 1, None
                cbs("on_train_epoch_begin", run_context)
                losses = []
                for data in (iterator if steps is None else itertools.islice(rows, steps)):
                    cb.cur_step_num += 1
                    cb.batch_size = data[0].shape[0] if data and data[0].ndim else 1
                    cb.train_dataset_element = data  # MindSpore's: SummaryCollector records image inputs
                    cbs("on_train_step_begin", run_context)
                    cb.net_outputs = step(*data)
                    loss = loss_tensor(cb.net_outputs)
                    if loss is not None:
                        losses.append(loss._data)  # read once, at the epoch's end: no per-step device sync
                    cbs("on_train_step_end", run_context)
                    if run_context.get_stop_requested():
                        iterator.stop()
                        break
                per_step = [float(np.asarray(a, np.float64).mean()) for a in losses]
                cb.train_loss = float(np.mean(per_step)) if per_step else None
                warned = warned or _warn_non_finite(per_step, e + 1, cb.cur_step_num - len(per_step))
                if valid_dataset is not None and (e + 1 - initial_epoch) % valid_frequency == 0:
                    cb.eval_results = self._validate(valid_dataset, cbs)
                    cb.eval_epoch = e + 1
                cbs("on_train_epoch_end", run_context)
                if run_context.get_stop_requested():
                    break
            cbs("on_train_end", run_context)
        finally:
            iterator.stop()
            _close_bars(cbs)

    def _validate(self, dataset: Dataset, cbs: CallbackList) -> dict[str, float]:
        results = self._evaluate(dataset, cbs, in_fit=True)
        self._network.set_train(True)
        return results

    # ------------------------------------------------------------ eval / predict
    def eval (self, valid_dataset: Dataset, callbacks: Callback | Sequence[Callback] | None = None,
             dataset_sink_mode: bool = False, progress_bar: bool | None = None) -> dict[str, float]:
        """The metrics over `valid_dataset`: `{name: value}`."""
        if not self._metrics:
            raise ValueError("Model.eval needs metrics: Model(..., metrics={'accuracy'})")
        self._check_dataset("Model.eval", valid_dataset)
        return self._evaluate(valid_dataset, self._callbacks(callbacks, progress_bar), in_fit=False)

    def _evaluate(self, dataset: Dataset, cbs: CallbackList, in_fit: bool) -> dict[str, float]:
        metrics = dict(self._metrics)
        track_loss = in_fit and self._loss_fn is not None and self._eval_network_given is None
        if track_loss:
            metrics["eval_loss"] = Loss()
        no_loss = self._loss_fn is None and self._eval_network_given is None
        if no_loss and any(isinstance(m, Loss) for m in metrics.values()):
            raise ValueError("Model.eval: the 'loss' metric needs a loss_fn (or an eval_network with eval_indexes)")
        for m in metrics.values():
            m.clear()
        step = self._get_eval_step()
        self._network.set_train(False)
        cb = CallbackParams(eval_network=step.cell, network=self._network, valid_dataset=dataset,
                            batch_num=dataset.get_dataset_size(), cur_step_num=0, net_outputs=None, batch_size=0,
                            mode="eval", in_fit=in_fit, epoch_num=1, cur_epoch_num=1)
        run_context = RunContext(cb)
        iterator = dataset.create_tuple_iterator(num_epochs=1)
        cbs("on_eval_begin", run_context)
        cbs("on_eval_epoch_begin", run_context)
        try:
            for data in iterator:
                cb.cur_step_num += 1
                cb.batch_size = data[0].shape[0] if data and data[0].ndim else 1
                cbs("on_eval_step_begin", run_context)
                outputs = step(*data)
                cb.net_outputs = outputs
                self._update_metrics(metrics, outputs)
                cbs("on_eval_step_end", run_context)
        except BaseException:
            if not in_fit:
                _close_bars(cbs)
            raise
        finally:
            iterator.stop()
        results = {name: m.eval () for name, m in metrics.items()}
        cb.metrics = results
        cbs("on_eval_epoch_end", run_context)
        cbs("on_eval_end", run_context)
        return results

    def _update_metrics(self, metrics: dict[str, Metric], outputs: Any) -> None:
        if self._eval_network_given is not None and self._eval_indexes is None:
            outs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
            for m in metrics.values():
                m.update(*outs)
            return
        if self._eval_indexes is not None:
            loss, pred, label = (outputs[i] for i in self._eval_indexes)
        else:
            loss, pred, label = outputs
        for m in metrics.values():
            if isinstance(m, Loss):
                m.update(loss)
            else:
                m.update(pred, label)

    def predict(self, *predict_data: Any) -> Any:
        """The network's output for `predict_data` (evaluation mode, compiled)."""
        if self._predict_step is None:
            self._predict_step = CompiledStep(self._network, "prediction")
        self._network.set_train(False)
        return self._predict_step(*predict_data)


def _close_bars(cbs: CallbackList) -> None:
    """A run that ends (also by an error) leaves no half-drawn progress bar behind."""
    for cb in cbs.callbacks:
        if isinstance(cb, ProgressBar):
            cb.close()


def _sinking(dataset_sink_mode: bool, sink_size: int, where: str) -> int | None:
    """The steps of an epoch that `dataset_sink_mode`/`sink_size` ask for (None: the whole dataset), checked as
    MindSpore checks them (-1 or positive; an int)."""
    if isinstance(sink_size, bool) or not isinstance(sink_size, int):
        raise TypeError(f"For '{where}', the argument 'sink_size' must be an int, but got {sink_size!r}")
    if sink_size < -1 or sink_size == 0:
        raise ValueError(f"For '{where}', The argument 'sink_size' must be -1 or positive, but got {sink_size}.")
    return sink_size if dataset_sink_mode and sink_size > 0 else None
