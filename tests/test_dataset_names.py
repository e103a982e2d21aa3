"""mindspore.dataset's validators and engine names in msx: the cases of tests/golden/dataset_names/names_cases.py
give MindSpore 2.10's results and errors (class and message, recorded in ms210.json by make_golden.py there);
WaitedDSCallback is driven by a real Model.train."""
import json
import os
import re
import sys
import warnings

import numpy as np
import pytest

import msx
import msx.dataset as ds
from msx import nn
from msx.errors import DatasetError, DatasetTypeError

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "dataset_names")
sys.path.insert(0, HERE)
import names_cases as cases  # noqa: E402

GOLDEN = json.load(open(os.path.join(HERE, "ms210.json")))


def _plain(message):
    """The message without class paths (MindSpore's classes live in other modules) and msx's stage prefix."""
    message = re.sub(r"<class '[^']*'>", "<class>", message)
    message = re.sub(r"<[\w.]+ object at 0x[0-9a-f]+>", "<object>", message)
    return re.sub(r"^\[dataset\] ", "", message).split("\n")[0]


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_case_matches_mindspore(name, tmp_path):
    want = GOLDEN[name]
    run = getattr(cases, f"case_{name}")
    if "error" not in want:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert json.loads(json.dumps(run(ds, str(tmp_path)))) == want["result"]
        return
    kind = {"TypeError": DatasetTypeError}.get(want["error"], DatasetError)
    with pytest.raises(kind) as info:
        run(ds, str(tmp_path))
    if want["error"] == "ValueError":
        assert not isinstance(info.value, TypeError)
    assert _plain(want["message"]) in _plain(str(info.value))


def test_every_check_name_is_a_working_validator():
    names = [n for n in dir(ds) if n.startswith("check_")]
    assert len(names) == 29
    for n in names:
        assert callable(getattr(ds, n))


def test_dtype_helpers_and_reexports():
    assert ds.mstype_to_int[msx.int32] == 5 and ds.int_to_mstype[15] is msx.float32
    assert ds.mstype_to_detype(msx.uint8) == "uint8"
    with pytest.raises(NotImplementedError):
        ds.mstype_to_detype(3)
    assert ds.Tensor is msx.Tensor and ds.SentencePieceModel is ds.text.SentencePieceModel
    assert ds.import_module("json") is json and ds.ToNumpy is ds.vision.ToNumpy


def test_iterators_list_and_transfer_dataset():
    d = ds.NumpySlicesDataset(np.arange(4), ["a"], shuffle=False)
    it = d.create_tuple_iterator(num_epochs=1)
    assert any(r() is it for r in ds.ITERATORS_LIST)
    t = d.device_que()
    assert isinstance(t, ds.TransferDataset)
    t.send(1)
    assert [int(r[0]) for r in t.iterator] == [0, 1, 2, 3]
    t.release()
    with pytest.raises(DatasetError, match="create_data_info_queue"):
        d.device_que(create_data_info_queue=True)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = msx.Parameter(msx.Tensor(np.ones(1, np.float32)), name="w")

    def construct(self, x, y):
        return ((self.w * x - y) ** 2).sum()


def test_waited_ds_callback_waits_for_the_training_loop():
    """MindSpore's docstring example: the pipeline's step k+1 starts only after training step k ended."""
    events = []

    class Waited(ds.WaitedDSCallback):
        def sync_epoch_begin(self, train_run_context, ds_run_context):
            events.append(f"ds_epoch_begin_{ds_run_context.cur_epoch_num}_{ds_run_context.cur_step_num}")

        def sync_step_begin(self, train_run_context, ds_run_context):
            events.append(f"ds_step_begin_{ds_run_context.cur_epoch_num}_{ds_run_context.cur_step_num}")

    class Train(msx.train.Callback):
        def step_end(self, run_context):
            p = run_context.original_args()
            events.append(f"ms_step_end_{p.cur_epoch_num}_{p.cur_step_num}")

    arr = np.array([1, 2, 3, 4], np.float32)
    data = ds.NumpySlicesDataset((arr, arr), column_names=["c1", "c2"], shuffle=False)
    waited = Waited(1)
    data = data.map(operations=(lambda x: x), callbacks=waited)
    net = _Net()
    msx.train.Model(net, optimizer=nn.SGD(net.trainable_params(), 0.01)).train(2, data, callbacks=[Train(), waited], progress_bar=False)
    steps = [e for e in events if "step" in e]
    # each ds step after the first follows the training step before it
    for i, e in enumerate(steps):
        if e.startswith("ds_step_begin_") and e != "ds_step_begin_1_2":
            n = int(e.rsplit("_", 1)[1])
            assert f"ms_step_end_{1 if n - 1 <= 4 else 2}_{n - 1}" in steps[:i], (e, steps)
    assert "ds_epoch_begin_2_4" in events


def test_waited_ds_callback_without_overrides_is_refused():
    with pytest.raises(DatasetError, match="without overriding any methods"):
        ds.NumpySlicesDataset([1, 2], ["a"]).map(lambda x: x, callbacks=ds.WaitedDSCallback())


def test_serialize_deserialize_round_trip_and_refusals(tmp_path):
    sys.path.insert(0, os.path.dirname(HERE[:-len("/dataset_names")]))  # tests/, for dataset_formats
    from dataset_formats import digits_as_mnist

    digits_as_mnist(str(tmp_path))
    d = ds.MnistDataset(str(tmp_path), shuffle=False, num_samples=8)
    d = d.map([ds.vision.Rescale(1 / 255, 0), ds.transforms.TypeCast(msx.float32)], "image")
    d = d.map(ds.transforms.TypeCast(msx.int32), "label").batch(4, True).repeat(2).take(3)
    desc = ds.serialize(d, str(tmp_path / "p.json"))
    assert desc["op_type"] == "Take" and desc["children"][0]["op_type"] == "Repeat"
    back = ds.deserialize(json_filepath=str(tmp_path / "p.json"))
    assert isinstance(back, ds.DeserializedDataset) and ds.compare(d, back)
    rows = [r for r in d.create_tuple_iterator(output_numpy=True)]
    again = [r for r in back.create_tuple_iterator(output_numpy=True)]
    assert len(rows) == 3 and all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
                                  for a, b in zip(rows, again))
    src = desc["children"][0]["children"][0]["children"][0]["children"][0]["children"][0]
    bad = [({"op_type": "Foo"}, "unknown op_type 'Foo'"),
           ({"op_type": "Take", "count": 1, "children": [{"op_type": "GeneratorDataset"}]}, "GeneratorDataset"),
           ({"op_type": "Map", "children": [src], "operations": [
               {"tensor_op_name": "PyFunc", "python_module": "os", "python_name": "system"}]}, "Python function"),
           ({"op_type": "Take", "count": 1, "evil": 2, "children": [src]}, "unknown keys \\['evil'\\]"),
           ({"op_type": "Map", "children": [src], "operations": [{"tensor_op_name": "__import__"}]},
            "unknown operation"),
           ({"op_type": "MnistDataset", "dataset_dir": str(tmp_path), "rm_rf": True}, "has no argument 'rm_rf'")]
    for desc_bad, message in bad:
        with pytest.raises(DatasetError, match=message):
            ds.deserialize(input_dict=desc_bad)
    deep = {"op_type": "Take", "count": 1, "children": [src]}
    for _ in range(300):
        deep = {"op_type": "Take", "count": 1, "children": [deep]}
    with pytest.raises(DatasetError, match="deeper than"):
        ds.deserialize(input_dict=deep)
    with pytest.raises(DatasetError, match="lambda"):
        ds.deserialize(input_dict=ds.serialize(ds.MnistDataset(str(tmp_path)).map(lambda x: x)))


def test_a_cache_argument_is_refused_not_ignored():
    """MindSpore's readers take cache=DatasetCache(...) (its cache server); msx refuses any cache it is given."""
    with pytest.raises(DatasetError, match=r"RandomDataset: cache= .*not supported"):
        ds.RandomDataset(total_rows=3, schema={"a": ("int32", [2])}, cache=object())
    assert ds.RandomDataset(total_rows=3, schema={"a": ("int32", [2])}, cache=None).get_dataset_size() == 3
