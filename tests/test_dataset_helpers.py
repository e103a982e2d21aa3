"""`mindspore.dataset`'s top-level helpers and engine switches in msx: the normalisers answer as MindSpore 2.10's
source does (to_list, replace_none, flatten_single_lists, shuffle_to_shuffle_mode), the base classes answer
isinstance as MindSpore's class tree, and the switches keep what is set, warn or refuse what msx cannot do."""
import warnings

import pytest

import msx.dataset as ds
from msx.dataset import config
from msx.errors import DatasetError


def test_normalisers():
    assert ds.to_list(None) == [] and ds.to_list((1, 2)) == [1, 2] and ds.to_list("a") == ["a"]
    same = [3]
    assert ds.to_list(same) is same
    assert ds.replace_none(None, 5) == 5 and ds.replace_none(0, 5) == 0
    assert ds.flatten_single_lists([[1, [2]]]) == [1, [2]] and ds.flatten_single_lists([[[4]]]) == [4]
    assert ds.flatten_single_lists([[1], [[2, 3]]]) == [[1], [2, 3]]
    assert ds.shuffle_to_shuffle_mode(None) is ds.Shuffle.GLOBAL
    assert ds.shuffle_to_shuffle_mode(False) is ds.Shuffle.FALSE
    assert ds.shuffle_to_shuffle_mode(ds.Shuffle.FILES) is ds.Shuffle.FILES


def test_base_classes_follow_mindspore_tree():
    assert issubclass(ds.CocoDataset, ds.VisionBaseDataset) and issubclass(ds.CocoDataset, ds.MappableDataset)
    assert issubclass(ds.SQuADDataset, ds.TextBaseDataset) and not issubclass(ds.SQuADDataset, ds.VisionBaseDataset)
    assert issubclass(ds.LJSpeechDataset, ds.AudioBaseDataset)
    assert issubclass(ds.GeneratorDataset, ds.SourceDataset) and not issubclass(ds.GeneratorDataset,
                                                                                  ds.MappableDataset)
    d = ds.NumpySlicesDataset([1, 2, 3], shuffle=False).batch(2)
    assert isinstance(d, ds.UnionBaseDataset) and not isinstance(d, ds.SourceDataset)


def test_switches_keep_warn_or_refuse():
    assert ds.get_error_samples_mode() is ds.ErrorSamplesMode.RETURN
    with pytest.raises(DatasetError, match="not supported"):
        config.set_error_samples_mode(ds.ErrorSamplesMode.SKIP)
    with pytest.raises(DatasetError, match="'CPU' is"):
        ds.set_video_backend("Ascend")
    ds.set_video_backend("CPU")
    assert ds.get_video_backend() == "CPU"
    config.set_enable_watchdog(False)
    assert ds.get_enable_watchdog() is False
    config.set_enable_watchdog(True)
    config.set_multiprocessing_timeout_interval(30)
    assert ds.get_multiprocessing_timeout_interval() == 30
    config.set_multiprocessing_timeout_interval(300)
    with pytest.raises(DatasetError, match="start_method"):
        config.set_multiprocessing_start_method("forkserver")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        config.set_debug_mode(True)
    assert ds.get_debug_mode() is True and any("debug_mode_flag" in str(w.message) for w in caught)
    config.set_debug_mode(False)
    with pytest.raises(DatasetError, match="debug_hook_list"):
        config.set_debug_mode(True, [object()])
