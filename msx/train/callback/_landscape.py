"""MindSpore's `SummaryLandscape` (`ms.SummaryLandscape`, `ms.train.SummaryLandscape`): the loss landscape of a
training run, from what `SummaryCollector(collect_specified_data={"collect_landscape": {...}})` saved.

During training the collector saves the backbone's weights at the steps (or epochs, `unit`) listed in
`intervals`, as `<summary_dir>/ckpt_dir/<Backbone>_<n>_<unit>.ckpt` (MindSpore's protobuf checkpoints), and at the
end `ckpt_dir/train_metadata.json` (the intervals as `epoch_group`, the checkpoint of each step, `step_per_epoch`,
`unit`, `num_samples`, `landscape_size`, `create_landscape`) - the files and names MindSpore 2.10 writes, so
either framework's landscape reads the other's run. `SummaryLandscape(summary_dir).gen_landscapes_with_multi_process(
callback_fn)` then draws, for each interval when `create_landscape["train"]`, the loss over the plane of the
interval's two PCA directions around its last checkpoint (with the trajectory on it), and when `["result"]` the
loss over two random directions around the last checkpoint of the last interval (`_landscape_grid` holds the
numbers). `callback_fn()` returns `(model, network, dataset, metrics)` as in MindSpore; the loss is the model's
training loss averaged over the first `num_samples // batch_size` batches of the dataset.

What is written, in `output` (default: the summary dir): for each landscape, MindSpore's tag `landscape_[1, 5]`
(`landscape_[5]` for the random one) spelled `landscape_1-5` (`landscape_5`), as TensorBoard tags hold no
brackets or spaces: TensorBoard records at step 0, `<stem>/loss` (the grid, a tensor) and `<stem>/image` (a colour
map with contours and the path, `_landscape_image`), and `<stem>.npz` (written atomically, loadable with
`allow_pickle=False`) with the fields of MindInsight's `LossLandscape` message and MindSpore's tag. MindSpore
writes that message (plugin `LANDSCAPE`) into a MindInsight summary file instead, which TensorBoard cannot read.
"""
from __future__ import annotations

import io
import json
import logging
import os
import shutil
import stat
import warnings
from collections.abc import Sequence
from typing import Any, Callable

import jax
import numpy as np

from ...atomic import write_atomic
from ...checkpoint import load_checkpoint
from ...nn.cell import Cell
from ...nn.metrics import Loss
from ...tensor import Tensor
from ..summary import SummaryRecord
from . import _landscape_grid as grid
from ._landscape_image import render

_log = logging.getLogger("msx.summary")
METADATA = "train_metadata.json"
METADATA_MAX_BYTES = 16 << 20
KEYS = ("landscape_size", "unit", "num_samples", "create_landscape", "intervals")
FILE_KEYS = ("epoch_group", "model_params_file_map", "step_per_epoch", "unit", "num_samples", "landscape_size",
             "create_landscape")
NPZ_FORMAT = "msx.landscape"
NPZ_VERSION = 1


# -- MindSpore's checks (the collector's and SummaryLandscape's differ a little, as in MindSpore) ---------------
def check_type(name: str, value: Any, types: Any) -> None:
    """MindSpore's `check_value_type`: a TypeError naming the argument (a bool is no int)."""
    types = tuple(types) if isinstance(types, (tuple, list)) else (types,)
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        raise TypeError(f"For `{name}` the type should be a valid type of {[t.__name__ for t in types]}, but got "
                        f"{type(value).__name__}.")


def check_landscape_size(who: str, size: Any) -> None:
    check_type("landscape_size", size, int)
    if size < 3 or size > 256:
        raise ValueError(f'For "{who}", "landscape_size" should be between 3 and 256, but got the: {size}')


def check_unit(who: str, unit: Any) -> None:
    check_type("unit", unit, str)
    if unit not in ("step", "epoch"):
        raise ValueError(f'For "{who}", "unit" should be step or epoch, but got the: {unit}')


def check_create_landscape(who: str, create: Any, both: bool) -> None:
    """`both`: SummaryLandscape needs both keys; the collector accepts either (and its landscape then refuses)."""
    check_type("create_landscape", create, dict)
    for key, value in create.items():
        if key not in ("train", "result"):
            raise ValueError(f'For "{who}", the key of "create_landscape" should be in ["train", "result"], but got '
                             f'the: {key}.')
        if both and len(create) < 2:
            raise ValueError(f'For "{who}", the key of "create_landscape" should be train and result, but only got '
                             f'the: {key}')
        check_type(key, value, bool)


def check_intervals(who: str, intervals: Any) -> None:
    check_type("intervals", intervals, list)
    for interval in intervals:
        check_type("each interval in intervals", interval, list)
        if len(interval) < 3:
            raise ValueError(f'For "{who}", the length of each list in "intervals" should not be less than three, '
                             f'but got the: {interval}.')
        for j in interval:
            if not isinstance(j, int):
                raise TypeError(f'For "{who}", the type of each value in "intervals" should be int, but got the: '
                                f'{type(j)}.')


def check_collect_landscape(who: str, config: dict, collector: bool) -> None:
    """The `collect_landscape` dict: the collector needs `intervals` and checks every key (defaults filled in);
    SummaryLandscape checks the keys given."""
    unknown = set(config) - set(KEYS)
    if unknown:
        raise ValueError(f'For "{who}", the keys {sorted(map(str, unknown))} of `collect_landscape` are unsupported, '
                         f'expect the follow keys: {list(KEYS)}')
    if collector:
        config = {"landscape_size": 40, "unit": "step", "num_samples": 2048,
                  "create_landscape": {"train": True, "result": True}, "intervals": None, **config}
    if "landscape_size" in config:
        check_landscape_size(who, config["landscape_size"])
    if "unit" in config:
        check_unit(who, config["unit"])
    if "num_samples" in config:
        check_type("num_samples", config["num_samples"], int)
    if "create_landscape" in config:
        check_create_landscape(who, config["create_landscape"], both=not collector)
    if "intervals" in config:
        check_intervals(who, config["intervals"])


def epoch_group(intervals: list) -> dict[str, list[int]]:
    return {str(i): list(interval) for i, interval in enumerate(intervals)}


def read_metadata(path: str) -> dict:
    """`train_metadata.json`, size-checked and parsed as plain JSON (the file is input, never trusted)."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f'For "SummaryLandscape", train_metadata.json file does not exist under the path '
                                f'{os.path.dirname(path)}, please use summary_collector to collect information to '
                                f'create the json file')
    size = os.path.getsize(path)
    if size > METADATA_MAX_BYTES:
        raise ValueError(f"SummaryLandscape: {path} is {size} bytes; a train_metadata.json is at most "
                         f"{METADATA_MAX_BYTES}")
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as exc:
            raise ValueError(f"SummaryLandscape: {path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"SummaryLandscape: {path} must hold a JSON object, got {type(data).__name__}")
    return data


def write_metadata(path: str, data: dict) -> None:
    """Atomically, read-only for its owner as MindSpore leaves it."""
    write_atomic(path, [json.dumps(data).encode()])
    os.chmod(path, stat.S_IRUSR)


def check_metadata(data: dict) -> None:
    """MindSpore's `_check_json_file_data`, plus the types a hand-edited file could get wrong."""
    who = "SummaryLandscape"
    for key in data:
        if key not in FILE_KEYS:
            raise ValueError(f'"train_metadata" json file should be {list(FILE_KEYS)}, but got the: {key}')
    missing = [k for k in FILE_KEYS if k not in data]
    if missing:
        raise ValueError(f'"train_metadata" json file lacks {missing}')
    check_type("epoch_group", data["epoch_group"], dict)
    check_type("model_params_file_map", data["model_params_file_map"], dict)
    files = data["model_params_file_map"]
    for epochs in data["epoch_group"].values():
        check_type("each list in epoch_group", epochs, list)
        if len(epochs) < 3:
            raise ValueError(f'For "{who}", the "epoch_group" in train_metadata.json, length of each list in '
                             f'"epoch_group" should not be less than 3, but got: {len(epochs)}. ')
        for epoch in epochs:
            if str(epoch) not in files:
                raise ValueError(f'For "{who}", the "model_params_file_map" in train_metadata.json does not exist '
                                 f'{epoch}th checkpoint in intervals.')
    check_type("step_per_epoch", data["step_per_epoch"], int)
    check_landscape_size(who, data["landscape_size"])
    check_unit(who, data["unit"])
    check_type("num_samples", data["num_samples"], int)
    check_create_landscape(who, data["create_landscape"], both=True)


def check_device_ids(device_ids: Any) -> None:
    check_type("device_ids", device_ids, list)
    for i in device_ids:
        if not isinstance(i, int) or isinstance(i, bool):
            raise TypeError(f'For "SummaryLandscape.gen_landscapes_with_multi_process", the parameter "device_ids" '
                            f'type should be int, but got the: {type(i)}.')
        if i < 0 or i > 7:
            raise ValueError(f'For "SummaryLandscape.gen_landscapes_with_multi_process", the parameter "device_ids" '
                             f'should be between 0 and 7, but got {i}.')


class SummaryLandscape:
    """Create loss landscapes (PCA directions of the training trajectory, random directions around its end) from
    what `SummaryCollector(collect_specified_data={"collect_landscape": ...})` saved in `summary_dir`."""

    def __init__(self, summary_dir: str) -> None:
        self._summary_dir = os.path.realpath(summary_dir)
        self._ckpt_dir = os.path.join(self._summary_dir, "ckpt_dir")
        os.makedirs(self._ckpt_dir, exist_ok=True)

    def clean_ckpt(self) -> None:
        """Remove `ckpt_dir` (the checkpoints and the metadata the landscapes are drawn from)."""
        shutil.rmtree(self._ckpt_dir, ignore_errors=True)

    def gen_landscapes_with_multi_process(self, callback_fn: Callable[[], Sequence],
                                          collect_landscape: dict | None = None, device_ids: list[int] | None = None,
                                          output: str | None = None) -> None:
        """Compute the landscapes and write them to `output` (default: the summary dir).

        `collect_landscape` overrides the collector's `landscape_size`, `num_samples`, `create_landscape`,
        `unit` and `intervals` (saved back into train_metadata.json, as MindSpore does). `device_ids` (MindSpore:
        one process per device, the grid's rows split between them): msx runs one process and sends the grid's
        chunks in turn to the jax devices of these indices; one id (or None) uses the default device, as MindSpore
        with one id does not change device either."""
        devices = self._devices(device_ids)
        meta_path = os.path.join(self._ckpt_dir, METADATA)
        if collect_landscape is not None:
            check_type("collect_landscape", collect_landscape, dict)
            check_collect_landscape("SummaryLandscape", collect_landscape, collector=False)
            if not os.path.exists(meta_path):
                raise FileNotFoundError(f'For "SummaryLandscape", train_metadata.json file path of {meta_path} not '
                                        f'exists.')
            data = read_metadata(meta_path)
            data.update({k: v for k, v in collect_landscape.items() if k in data})
            if "intervals" in collect_landscape:
                data["epoch_group"] = epoch_group(collect_landscape["intervals"])
            write_metadata(meta_path, data)
        data = read_metadata(meta_path)
        check_metadata(data)
        output_path = os.path.realpath(output) if output is not None else self._summary_dir
        landscapes = list(self._landscapes(data, callback_fn, devices))
        with SummaryRecord(output_path) as record:
            for _, fields in landscapes:
                stem = file_stem(fields)
                record.add_value("tensor", f"{stem}/loss", Tensor(fields["z"]))
                path = (fields["path_x"], fields["path_y"]) if fields["decomposition"] == "PCA" else None
                record.add_value("image", f"{stem}/image", Tensor(render(
                    fields["x"], fields["y"], fields["z"], path, tuple(fields["convergence_point"][:2]))))
                record.record(0)
                record.flush()
        for tag, fields in landscapes:
            out = io.BytesIO()
            np.savez(out, format=np.asarray(NPZ_FORMAT), version=np.asarray(NPZ_VERSION), tag=np.asarray(tag),
                     **{k: np.asarray(v) for k, v in fields.items()})
            write_atomic(os.path.join(output_path, file_stem(fields) + ".npz"), [out.getvalue()])

    # -- the landscapes -------------------------------------------------------------------------------------
    @staticmethod
    def _devices(device_ids: list[int] | None) -> list:
        if device_ids is None:
            return [jax.devices()[0]]
        check_device_ids(device_ids)
        if len(device_ids) <= 1:
            return [jax.devices()[0]]
        local = jax.local_devices()
        if max(device_ids) >= len(local):
            warnings.warn(f"SummaryLandscape: device_ids {device_ids} name devices this process does not have (it "
                          f"has {len(local)} jax device(s): {local}); the landscape is computed on {local[0]}",
                          stacklevel=3)
            return [local[0]]
        return [local[i] for i in device_ids]

    def _landscapes(self, data: dict, callback_fn: Callable, devices: list):
        groups = list(data["epoch_group"].values())
        files = data["model_params_file_map"]
        size, create = data["landscape_size"], data["create_landscape"]
        common = {"unit": data["unit"], "step_per_epoch": data["step_per_epoch"], "num_samples": data["num_samples"]}
        if create["train"]:
            for i, epochs in enumerate(groups):
                _log.info("SummaryLandscape: landscape %d/%d, checkpoints %s, decomposition PCA", i + 1,
                          len(groups) + bool(create["result"]), epochs)
                fields = self._by_pca([_load(files[str(e)]) for e in epochs], size, callback_fn, data, devices)
                yield f"landscape_{[epochs[0], epochs[-1]]}", {**fields, "intervals": list(epochs), **common}
        if create["result"]:
            final = groups[-1][-1]
            _log.info("SummaryLandscape: the result landscape at %s %s, decomposition Random", data["unit"], final)
            fields = self._by_random(_load(files[str(final)]), size, callback_fn, data, devices)
            yield f"landscape_{[final]}", {**fields, "intervals": [final], **common}

    def _by_pca(self, checkpoints: list[dict], size: int, callback_fn: Callable, data: dict, devices: list) -> dict:
        final = checkpoints[-1]
        names = list(final)
        moving = [grid.moves(n) for n in names]
        final_arrays = [final[n] for n in names]
        trajectory = [[c[n] if n in c else _missing(n) for n in names] for c in checkpoints]
        flat = np.stack([np.concatenate([t[i].ravel().astype(np.float64) for i in range(len(names)) if moving[i]])
                         for t in trajectory])
        v_flat, w_flat = grid.pca_directions(flat)
        v = grid.normalise(final_arrays, grid.split(v_flat, final_arrays, moving), moving)
        w = grid.normalise(final_arrays, grid.split(w_flat, final_arrays, moving), moving)
        coefs = grid.coefficients(trajectory, final_arrays, v, w, moving)
        x_axis, y_axis = grid.pca_axes(coefs, size)
        loss = self._loss_fn(callback_fn, names, final_arrays, v, w, data, devices)
        path_z = loss(coefs)
        z = self._grid(loss, x_axis, y_axis)
        return {"decomposition": "PCA", "x": x_axis, "y": y_axis, "z": z, "path_x": coefs[:, 0],
                "path_y": coefs[:, 1], "path_z": path_z, "convergence_point": np.array([0.0, 0.0, path_z[-1]])}

    def _by_random(self, final: dict, size: int, callback_fn: Callable, data: dict, devices: list) -> dict:
        names = list(final)
        moving = [grid.moves(n) for n in names]
        final_arrays = [final[n] for n in names]
        v, w = grid.random_directions(final_arrays, moving)
        x_axis, y_axis = grid.random_axes(size)
        z = self._grid(self._loss_fn(callback_fn, names, final_arrays, v, w, data, devices), x_axis, y_axis)
        mid = size // 2
        return {"decomposition": "Random", "x": x_axis, "y": y_axis, "z": z, "path_x": np.zeros(0),
                "path_y": np.zeros(0), "path_z": np.zeros(0),
                "convergence_point": np.array([x_axis[mid], y_axis[mid], z[mid][mid]])}

    @staticmethod
    def _grid(loss: grid.LossGrid, x_axis: np.ndarray, y_axis: np.ndarray) -> np.ndarray:
        """z[i, j]: the loss at (x_axis[j], y_axis[i]) (MindSpore's meshgrid rows)."""
        xs, ys = np.meshgrid(x_axis, y_axis)
        return loss(np.stack([xs.ravel(), ys.ravel()], 1)).reshape(len(y_axis), len(x_axis))

    @staticmethod
    def _loss_fn(callback_fn: Callable, names: list[str], final: list[np.ndarray], v: list, w: list, data: dict,
                 devices: list) -> grid.LossGrid:
        """A LossGrid over the model `callback_fn()` builds, its network's Parameters of the checkpoint's names."""
        model, network, dataset, metrics = _callback_result(callback_fn)
        by_name = {p.name: p for p in network.get_parameters()}
        absent = [n for n in names if n not in by_name]
        if absent:
            warnings.warn(f"SummaryLandscape: the checkpoint's {absent} are not Parameters of callback_fn's network; "
                          "they are not loaded (as MindSpore's load_param_into_net leaves them)", stacklevel=4)
        pick = [i for i, n in enumerate(names) if n in by_name]
        params = [by_name[names[i]] for i in pick]
        inner = model.predict_network
        if not {id(p) for p in params} & {id(p) for p in inner.get_parameters()}:
            raise ValueError("SummaryLandscape: callback_fn's network shares no Parameter with its model's network; "
                             "build the Model from that network")
        if getattr(model, "_optimizer", None) is not None:
            warnings.warn("SummaryLandscape: callback_fn's model has an optimizer; MindSpore would run its training "
                          "step (updating the weights between the batches of each point), msx computes the loss at "
                          "each point's weights without updating them", stacklevel=4)
        batch_size = dataset.get_batch_size()
        batches_wanted = data["num_samples"] // batch_size
        if batches_wanted < 1:
            raise ValueError(f"SummaryLandscape: num_samples {data['num_samples']} is less than the dataset's batch "
                             f"size {batch_size}: no batch to compute the loss on")
        batches = [tuple(np.asarray(t.asnumpy()) for t in row)
                   for row in dataset.take(batches_wanted).create_tuple_iterator(num_epochs=1)]
        loss_fn = getattr(model, "_loss_fn", None)
        inner.set_train(True)  # MindSpore computes the landscape in training mode

        def forward(*row):
            return inner(*row) if loss_fn is None else loss_fn(inner(*row[:-1]), row[-1])

        metric = metrics.get("Loss")
        if metric is None:
            raise ValueError(f"SummaryLandscape: callback_fn's metrics {sorted(metrics)} have no 'Loss' entry; "
                             "the landscape is the 'Loss' metric's value (e.g. {'Loss': msx.train.Loss()})")
        return grid.LossGrid(forward, params, [final[i] for i in pick], [v[i] for i in pick], [w[i] for i in pick],
                             batches, None if type(metric) is Loss else metric, devices)


def file_stem(fields: dict) -> str:
    """MindSpore's tag `landscape_[1, 5]` (`landscape_[5]`) spelled as TensorBoard keeps it: `landscape_1-5`."""
    epochs = fields["intervals"]
    return f"landscape_{epochs[0]}-{epochs[-1]}" if fields["decomposition"] == "PCA" else f"landscape_{epochs[0]}"


def _load(path: str) -> dict[str, np.ndarray]:
    if not isinstance(path, str) or not os.path.isfile(path):
        raise FileNotFoundError(f"SummaryLandscape: the checkpoint {path!r} named in train_metadata.json does not "
                                "exist")
    return {name: np.asarray(p.asnumpy()) for name, p in load_checkpoint(path).items() if hasattr(p, "asnumpy")}


def _missing(name: str):
    raise ValueError(f"SummaryLandscape: the checkpoints of one interval hold different entries ({name!r} is not in "
                     "all of them)")


def _callback_result(callback_fn: Callable) -> tuple:
    if not callable(callback_fn):
        raise TypeError(f"SummaryLandscape: callback_fn must be a function, got {type(callback_fn).__name__}")
    result = callback_fn()
    if not isinstance(result, (tuple, list)) or len(result) != 4:
        raise ValueError("SummaryLandscape: callback_fn() must return (model, network, dataset, metrics), got "
                         f"{type(result).__name__}")
    model, network, dataset, metrics = result
    if not hasattr(model, "predict_network"):  # msx.train.Model (a layer above the callbacks)
        raise TypeError(f"SummaryLandscape: callback_fn's model must be an msx Model, got {type(model).__name__}")
    if not isinstance(network, Cell):
        raise TypeError(f"SummaryLandscape: callback_fn's network must be an nn.Cell, got {type(network).__name__}")
    if not hasattr(dataset, "get_batch_size") or not hasattr(dataset, "take"):
        raise TypeError(f"SummaryLandscape: callback_fn's dataset must be an msx dataset, got "
                        f"{type(dataset).__name__}")
    if not isinstance(metrics, dict):
        raise TypeError(f"SummaryLandscape: callback_fn's metrics must be a dict, got {type(metrics).__name__}")
    return model, network, dataset, metrics
