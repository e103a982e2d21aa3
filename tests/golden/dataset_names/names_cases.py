"""Cases for mindspore.dataset's validators and engine names, written once against MindSpore's API (`ds` is
mindspore.dataset or msx.dataset). make_golden.py records MindSpore 2.10's answers; tests/test_dataset_names.py
runs them on msx. An error is recorded by its builtin class and message."""
import os

import numpy as np


def _d(ds):
    return ds.NumpySlicesDataset({"a": np.arange(6)}, shuffle=False)


def case_shuffle_small(ds, tmp):
    _d(ds).shuffle(1)


def case_shuffle_type(ds, tmp):
    _d(ds).shuffle(2.0)


def case_repeat_zero(ds, tmp):
    _d(ds).repeat(0)


def case_repeat_bool(ds, tmp):
    _d(ds).repeat(True)


def case_take_zero(ds, tmp):
    _d(ds).take(0)


def case_skip_negative(ds, tmp):
    _d(ds).skip(-1)


def case_project_empty(ds, tmp):
    _d(ds).project([])


def case_project_repeat(ds, tmp):
    _d(ds).project(["a", "a"])


def case_rename_sizes(ds, tmp):
    _d(ds).rename(["a"], ["b", "c"])


def case_filter_not_callable(ds, tmp):
    _d(ds).filter(3)


def case_split_tuple(ds, tmp):
    _d(ds).split((3, 3))


def case_split_fractions(ds, tmp):
    _d(ds).split([0.5, 0.6])


def case_split_mixed(ds, tmp):
    _d(ds).split([1, 0.5])


def case_batch_zero(ds, tmp):
    _d(ds).batch(0)


def case_batch_float(ds, tmp):
    _d(ds).batch(2.5)


def case_batch_drop_type(ds, tmp):
    _d(ds).batch(2, drop_remainder=1)


def case_batch_input_columns_alone(ds, tmp):
    _d(ds).batch(2, input_columns=["a"])


def case_padded_batch_pad_info(ds, tmp):
    _d(ds).padded_batch(2, pad_info={"a": ([2], 0, 1)})


def case_bucket_empty(ds, tmp):
    _d(ds).bucket_batch_by_length(["a"], [], [1])


def case_bucket_not_increasing(ds, tmp):
    _d(ds).bucket_batch_by_length(["a"], [3, 2], [1, 1, 1])


def case_bucket_sizes(ds, tmp):
    _d(ds).bucket_batch_by_length(["a"], [2, 3], [1, 1])


def case_zip_list(ds, tmp):
    _d(ds).zip([_d(ds)])


def case_concat_type(ds, tmp):
    _d(ds).concat(3)


def case_sync_wait_name(ds, tmp):
    _d(ds).sync_wait(3)


def case_save_num_files(ds, tmp):
    _d(ds).save(os.path.join(tmp, "x.mindrecord"), num_files=0)


def case_tuple_iterator_epochs(ds, tmp):
    _d(ds).create_tuple_iterator(num_epochs=-2)


def case_dict_iterator_numpy(ds, tmp):
    _d(ds).create_dict_iterator(output_numpy=1)


def case_output_shapes_estimate(ds, tmp):
    _d(ds).output_shapes(estimate=1)


def case_device_que_name(ds, tmp):
    _d(ds).device_que(queue_name=3)


def case_map_columns(ds, tmp):
    _d(ds).map(lambda x: x, input_columns=[""])


def case_total_batch(ds, tmp):
    ds.check_total_batch(2 ** 40)


def case_validator_decorates(ds, tmp):
    class Holder:
        @ds.check_take
        def take(self, count=-1):
            return count
    return [Holder().take(3), Holder().take()]


def case_dtype_tables(ds, tmp):
    return [[k, str(v).split(".")[-1].replace("Bool", "bool").lower()] for k, v in sorted(ds.int_to_mstype.items())]


def case_constants(ds, tmp):
    return [ds.MAX_METADATA_LENGTH, ds.ITERATORS_LIST.__class__.__name__, ds.check_iterator_cleanup(),
            [m.name for m in ds.Implementation], sorted(m.name for m in ds.DE_C_INTER_SENTENCEPIECE_MODE)]


def case_select_sampler(ds, tmp):
    out = []
    for args in [(None, None, ds.Shuffle.FALSE, None, None), (None, None, ds.Shuffle.GLOBAL, None, None),
                 (4, None, ds.Shuffle.GLOBAL, None, None), (None, None, ds.Shuffle.GLOBAL, 2, 1),
                 (None, [1, 2], None, None, None), (None, 3, None, None, None)]:
        s = ds.select_sampler(*args)
        out.append([type(s).__name__, s.num_samples])
    return out


def case_select_sampler_conflict(ds, tmp):
    ds.select_sampler(3, ds.SequentialSampler(), None, None, None)


def case_select_sampler_bad_shuffle(ds, tmp):
    ds.select_sampler(None, None, True, None, None)


def case_line_reader(ds, tmp):
    path = os.path.join(tmp, "t.txt")
    with open(path, "w", newline="") as f:
        f.write("first\r\nsecond\nthird")
    r = ds.LineReader(path)
    out = [r.len(), r.readline(1), r[2], r.readline(3)]
    r.close()
    return out


def case_line_reader_past_end(ds, tmp):
    path = os.path.join(tmp, "t.txt")
    with open(path, "w") as f:
        f.write("a\nb\n")
    ds.LineReader(path).readline(3)


def case_block_release_pair(ds, tmp):
    seen = []
    p = ds.BlockReleasePair(2, callback=seen.append)
    out = [p.block_func(), p.block_func(), p.row_count]
    p.release_func(data="x")
    out += [p.row_count, seen]
    p.update_batched_size(3)
    return out + [p.row_count, p.default_rows]


def case_block_release_pair_zero(ds, tmp):
    ds.BlockReleasePair(0)


def case_func_wrapper_reraises(ds, tmp):
    def bad(x):
        raise KeyError("boom")
    try:
        ds.FuncWrapper(bad)(1)
    except KeyError:
        return "KeyError"


def case_padded_batch_class(ds, tmp):
    d = _d(ds).padded_batch(2, pad_info={})
    b = _d(ds).bucket_batch_by_length(["a"], [2], [1, 1])
    return [type(d).__name__, isinstance(b, ds.BucketBatchByLengthDataset)]
