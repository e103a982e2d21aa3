"""`mindspore.parallel`'s public names in msx (msx/parallel/api.py, layout.py, auto_parallel.py).

The 8-device part runs in one subprocess (`XLA_FLAGS=--xla_force_host_platform_device_count=8`, as
tests/test_sharding.py does): a network sharded with `Layout`s, trained 3 steps through
`AutoParallel(train_step)`, must equal the same network's STAND_ALONE run on one device, and its StableHLO
must carry the layouts' mesh axes. `Layout.to_dict()` is checked against MindSpore 2.10's answers (recorded
from `/work/main/.venv-ms`, written below)."""
import textwrap
import warnings

import numpy as np
import pytest

import msx
from msx.errors import ContextError
from msx.parallel import Layout
from host_devices import run_json

SCRIPT = textwrap.dedent("""
    import json, sys, warnings
    import numpy as np
    import msx as ms
    from msx import nn, ops
    from msx.parallel import Layout
    from msx.parallel.auto_parallel import AutoParallel

    assert len(__import__("jax").devices()) == 8
    rng = np.random.default_rng(0)
    X = ms.Tensor(rng.normal(size=(16, 8)).astype(np.float32))
    Y = ms.Tensor(rng.normal(size=(16, 4)).astype(np.float32))
    out = {}

    class Net(nn.Cell):
        def __init__(self, sharded):
            super().__init__()
            ms.set_seed(0)
            self.w1 = ms.Parameter(ms.Tensor(rng.normal(size=(8, 8)).astype(np.float32) * 0.3), name="w1")
            self.w2 = ms.Parameter(ms.Tensor(rng.normal(size=(8, 4)).astype(np.float32) * 0.3), name="w2")
            self.mm1, self.mm2 = ops.MatMul(), ops.MatMul()
            if sharded:
                dm = Layout((2, 4), ("dp", "mp"))
                self.mm1.shard((dm("dp", "None"), dm("None", "mp")))
                cube = Layout((2, 2, 2), ("dp", "sp", "mp"))
                self.mm2.shard((cube(("dp", "sp"), "mp"), cube("mp", "None")))

        def construct(self, x):
            return self.mm2(ops.tanh(self.mm1(x, self.w1)), self.w2)

    def run(sharded, mode):
        r = np.random.default_rng(0)
        globals()["rng"] = r
        net = Net(sharded)
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        loss_fn = nn.MSELoss()
        grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

        def step(x, y):
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss

        jitted = ms.jit(step)
        runner = AutoParallel(jitted, parallel_mode=mode) if mode else jitted
        losses = [float(runner(X, Y).asnumpy()) for _ in range(3)]
        return losses, [p.asnumpy().tolist() for p in net.trainable_params()], jitted.lower(X, Y).as_text()

    out["plain"] = run(False, None)[:2]
    for mode in ("semi_auto", "sharding_propagation"):
        losses, params, hlo = run(True, mode)
        out[mode] = [losses, params, ms.get_auto_parallel_context("parallel_mode"),
                     ms.get_auto_parallel_context("search_mode"), hlo.count('{"s1", "s2"}'),
                     hlo.count('{"s0", "s1"}, {"s2"}')]

    # local norms: a Parameter cut in 8 blocks (one per device) and a replicated one, two steps
    import contextlib, glob, io, os, tempfile, jax
    ms.reset_auto_parallel_context()
    r = np.random.default_rng(1)
    W, XN, YN = (r.normal(size=s).astype(np.float32) for s in ((8, 4), (16, 8), (16, 4)))

    class Norms(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(W), name="nw")
            self.b = ms.Parameter(ms.Tensor(np.zeros(4, np.float32)), name="nb")
            self.mm = ops.MatMul()

        def construct(self, x):
            return self.mm(x, self.w) + self.b

    def norm_run(configure):
        net = Norms().shard(in_strategy=(None,), parameter_plan={"nw": (2, 4)})
        opt = nn.SGD(net.trainable_params(), 0.5)
        grad_fn = ms.value_and_grad(lambda x, y: nn.MSELoss()(net(x), y), None, opt.parameters)

        def step(x, y):
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss

        runner = AutoParallel(ms.jit(step), parallel_mode="semi_auto")
        configure(runner)
        for _ in range(2):
            runner(ms.Tensor(XN), ms.Tensor(YN))
        jax.effects_barrier()
        ms.reset_auto_parallel_context()

    folder = tempfile.mkdtemp()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        norm_run(lambda ap: (ap.dump_local_norm(folder), ap.enable_device_local_norm()))
    out["norm_warned"] = [str(w.message) for w in said if "dump_local_norm" in str(w.message)]
    out["norm_files"] = {r: sorted(os.path.basename(f) for f in glob.glob(f"{folder}/rank_{r}/*"))
                         for r in range(8)}
    out["norm_values"] = {r: {os.path.basename(f): float(np.load(f, allow_pickle=False))
                              for f in glob.glob(f"{folder}/rank_{r}/*.npy")} for r in range(8)}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        norm_run(lambda ap: ap.print_local_norm())
    out["norm_printed"] = printed.getvalue().splitlines()

    def reference(w, b):   # jax.grad of the same loss, one device, and SGD by hand
        loss = lambda w, b: ((XN @ w + b - YN) ** 2).mean()
        grads = [jax.grad(loss, (0, 1))(w, b)]
        w2, b2 = w - 0.5 * grads[0][0], b - 0.5 * grads[0][1]
        return grads + [jax.grad(loss, (0, 1))(w2, b2)]
    out["norm_grads"] = [[np.asarray(g).tolist() for g in pair] for pair in reference(W, np.zeros(4, np.float32))]

    # operator strategy files: saved from a sharded network, loaded into the same network without strategies
    strategy = os.path.join(tempfile.mkdtemp(), "ops.json")

    class Tuples(nn.Cell):   # tuple strategies (a Layout strategy is not saved, as in MindSpore)
        def __init__(self, sharded):
            super().__init__()
            r2 = np.random.default_rng(0)
            self.w1 = ms.Parameter(ms.Tensor(r2.normal(size=(8, 8)).astype(np.float32) * 0.3), name="t1")
            self.w2 = ms.Parameter(ms.Tensor(r2.normal(size=(8, 4)).astype(np.float32) * 0.3), name="t2")
            self.mm1, self.mm2 = ops.MatMul(), ops.MatMul()
            if sharded:
                self.mm1.shard(((2, 1), (1, 4)))
                self.mm2.shard(((8, 1), (1, 1)), out_strategy=((8, 1),))

        def construct(self, x):
            return self.mm2(ops.tanh(self.mm1(x, self.w1)), self.w2)

    def op_run(sharded, configure):
        net = Tuples(sharded)
        opt = nn.SGD(net.trainable_params(), 0.1)
        grad_fn = ms.value_and_grad(lambda x, y: nn.MSELoss()(net(x), y), None, opt.parameters)

        def step(x, y):
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss

        jitted = ms.jit(step)
        runner = AutoParallel(jitted, parallel_mode="sharding_propagation")
        configure(runner)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            loss = float(runner(X, Y).asnumpy())
        hlo = jitted.lower(X, Y).as_text()
        ms.reset_auto_parallel_context()
        return [loss, hlo.count("sdy.sharding_constraint"), [str(w.message) for w in seen]]

    out["op_saved"] = op_run(True, lambda ap: ap.save_operator_strategy_file(strategy))
    out["op_file"] = open(strategy).read()
    out["op_plain"] = op_run(False, lambda ap: None)
    out["op_loaded"] = op_run(False, lambda ap: ap.load_operator_strategy_file(strategy))
    with open(strategy, "w") as f:
        f.write(out["op_file"].replace("Tuples/mm2", "Tuples/gone"))
    out["op_unmatched"] = op_run(False, lambda ap: ap.load_operator_strategy_file(strategy))
    with open(strategy, "w") as f:
        f.write(out["op_file"].replace('"MatMul"', '"BatchMatMul"', 1))
    try:
        op_run(False, lambda ap: ap.load_operator_strategy_file(strategy))
    except Exception as exc:
        out["op_wrong"] = f"{type(exc).__name__}: {exc}"

    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
    try:
        ops.MatMul().shard((Layout((2, 2), ("a", "b"))("a", "b"), (1, 1)))(X[:, :4], X[:4])
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def eight():
    return run_json(SCRIPT)


@pytest.mark.parametrize("mode", ["semi_auto", "sharding_propagation"])
def test_layouts_through_autoparallel_equal_one_device(eight, mode):
    (losses, params), (got_losses, got_params, *_) = eight["plain"], eight[mode]
    np.testing.assert_allclose(got_losses, losses, rtol=1e-5)
    for g, w in zip(got_params, params):
        np.testing.assert_allclose(np.array(g), np.array(w), rtol=1e-5, atol=1e-6)


def test_autoparallel_sets_the_mode_and_the_layouts_reach_the_stablehlo(eight):
    assert eight["semi_auto"][2:4] == ["semi_auto_parallel", "recursive_programming"]
    assert eight["sharding_propagation"][2:4] == ["auto_parallel", "sharding_propagation"]
    n_mp, n_cube = eight["semi_auto"][4:]
    assert n_mp >= 1 and n_cube >= 1   # dm("None", "mp") -> {"s1","s2"}; cube(("dp","sp"), "mp") -> {s0,s1},{s2}


def test_a_layout_of_another_device_count_is_refused(eight):
    assert eight["error"].startswith("OpError") and "4 devices but device_num is 8" in eight["error"]


def _reference_norms(eight, step: int, rank: int) -> tuple[float, float, float]:
    """(nw, nb, device) norms on `rank` from jax.grad's gradients: `nw` is cut (2, 4) over the 8 devices, so
    rank r holds block (r // 4, r % 4) (MindSpore's rank order, the last axis fastest); `nb` is whole on each."""
    gw, gb = (np.array(g) for g in eight["norm_grads"][step])
    block = gw[(rank // 4) * 4:(rank // 4 + 1) * 4, rank % 4]
    nw, nb = np.linalg.norm(block), np.linalg.norm(gb)
    return nw, nb, np.sqrt(nw ** 2 + nb ** 2)


def test_dumped_local_norms_are_each_devices_gradient_slice(eight):
    for rank in range(8):
        got = eight["norm_values"][str(rank)]
        assert sorted(got) == eight["norm_files"][str(rank)]   # only .npy files, MindSpore's TensorDump names
        for step, (a, b, c) in enumerate([(0, 1, 2), (3, 4, 5)]):
            nw, nb, device = _reference_norms(eight, step, rank)
            np.testing.assert_allclose(got[f"local_norm__nw_float32_{a}.npy"], nw, rtol=1e-5)
            np.testing.assert_allclose(got[f"local_norm__nb_float32_{b}.npy"], nb, rtol=1e-5)
            np.testing.assert_allclose(got[f"device_local_norm_float32_{c}.npy"], device, rtol=1e-5)


def test_the_after_the_reduce_difference_is_said_once(eight):
    assert len(eight["norm_warned"]) == 1 and "before its AllReduce" in eight["norm_warned"][0]


def test_printed_local_norms_are_mindsporess_print_lines(eight):
    lines = eight["norm_printed"]
    assert len(lines) == 2 * 8 * 2   # two steps, eight ranks, two Parameters; no device norm (not enabled)
    by_rank: dict = {}
    for line in lines:   # each device's callback prints its own lines, in its order; the devices interleave
        head, name, value = line.rsplit(" ", 2)
        rank = int(head.split("]")[0].removeprefix("[rank "))
        assert head == f"[rank {rank}] dump local norm: ", line
        by_rank.setdefault((rank, name), []).append(float(value))
    for rank in range(8):
        for which, name in enumerate(("nw", "nb")):
            want = [_reference_norms(eight, step, rank)[which] for step in (0, 1)]
            np.testing.assert_allclose(by_rank[rank, name], want, rtol=1e-5)


def test_operator_strategy_file_round_trip(eight):
    import json
    assert json.loads(eight["op_file"]) == {
        "Tuples/mm1": {"op": "MatMul", "in_strategy": [[2, 1], [1, 4]], "out_strategy": None},
        "Tuples/mm2": {"op": "MatMul", "in_strategy": [[8, 1], [1, 1]], "out_strategy": [[8, 1]]}}
    saved, plain, loaded = eight["op_saved"], eight["op_plain"], eight["op_loaded"]
    assert plain[1] == 0 and loaded[1] == saved[1] > 0     # the loaded strategies lay the step out as saved
    np.testing.assert_allclose([plain[0], loaded[0]], saved[0], rtol=1e-5)
    assert saved[2] == loaded[2] == []
    unmatched = eight["op_unmatched"]
    assert 0 < unmatched[1] < saved[1]                      # mm1 still loaded; mm2 is named "gone" in the file
    assert len(unmatched[2]) == 1 and "match no operator of the network, skipped: ['Tuples/gone']" in unmatched[2][0]
    assert eight["op_wrong"].startswith("ContextError") and "'Tuples/mm1' is a BatchMatMul in the file" in \
        eight["op_wrong"]


def _strategy_file(tmp_path, text: str | bytes) -> str:
    path = tmp_path / "ops.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(path)


@pytest.mark.parametrize("text, message", [
    (b"\xff\xfe garbage", "is not valid JSON"),
    ('{"a": {"op": "MatMul", "in_strategy": [[2, 1]]', "is not valid JSON"),
    ("[" * 100000 + "]" * 100000, "is not valid JSON"),
    ('{"a": {"op": "MatMul", "in_strategy": [[NaN]]}}', "is not valid JSON"),
    ("[1, 2]", "must hold a JSON object keyed by operator name, got a list"),
    ('{"a": 3}', "operator 'a': must be an object"),
    ('{"a": {"op": "MatMul", "strategy": []}}', "operator 'a': unknown key(s) ['strategy']"),
    ('{"a": {"in_strategy": [[1]]}}', "operator 'a': 'op' must be the primitive's name"),
    ('{"a": {"op": "MatMul", "in_strategy": [[2, true]]}}', "operator 'a': in_strategy[0] must be null or a list"),
    ('{"a": {"op": "MatMul", "in_strategy": [[0, 1]]}}', "operator 'a': in_strategy[0] must be null or a list"),
    ('{"a": {"op": "MatMul", "out_strategy": [[2.5]]}}', "operator 'a': out_strategy[0] must be null or a list"),
    ('{"a": {"op": "MatMul", "in_strategy": "(2, 1)"}}', "operator 'a': in_strategy must be null or a list"),
    ('{"a": {"op": "MatMul", "in_strategy": [' + "[1]," * 300 + "[1]]}}", "at most 256 strategies"),
])
def test_a_garbage_operator_strategy_file_is_a_clean_error(tmp_path, text, message):
    from msx.parallel import op_strategy
    path = _strategy_file(tmp_path, text)
    with pytest.raises(ContextError) as info:
        op_strategy.read(path)
    assert path in str(info.value) and message in str(info.value)


def test_random_bytes_never_escape_as_anything_but_a_context_error(tmp_path):
    from msx.parallel import op_strategy
    rng = np.random.default_rng(0)
    for n in range(40):
        blob = rng.integers(0, 256, size=int(rng.integers(0, 200)), dtype=np.uint8).tobytes()
        if n % 2:   # or a valid prefix cut short / with its bytes flipped
            good = b'{"Net/mm": {"op": "MatMul", "in_strategy": [[2, 1], [1, 4]], "out_strategy": null}}'
            blob = good[:int(rng.integers(0, len(good)))] + blob[:3]
        path = _strategy_file(tmp_path, blob)
        try:
            op_strategy.read(path)
        except ContextError:
            pass


def test_operator_strategy_paths_are_checked_as_mindspore_checks_them(tmp_path):
    from msx.parallel.auto_parallel import AutoParallel
    ap = AutoParallel(msx.nn.Dense(2, 2), "sharding_propagation")
    with pytest.raises(TypeError, match="file_path"):
        ap.save_operator_strategy_file(3)
    with pytest.raises(KeyError, match="absolute path"):
        ap.load_operator_strategy_file("s.json")
    with pytest.raises(KeyError, match="File type must be .json"):
        ap.save_operator_strategy_file(str(tmp_path / "s.ckpt"))
    ap.save_operator_strategy_file(str(tmp_path / "s.json"))
    assert ap._operator_files == {"SAVE": str(tmp_path / "s.json")}
    with pytest.warns(UserWarning, match="work only with parallel_mode='sharding_propagation'"):
        AutoParallel(msx.nn.Dense(2, 2), "semi_auto").load_operator_strategy_file(str(tmp_path / "s.json"))
    with pytest.raises(KeyError, match="Type must be 'SAVE' or 'LOAD'"):
        msx.parallel.set_op_strategy_config("KEEP", str(tmp_path / "s.json"))
    with pytest.raises(KeyError, match="absolute path"):
        msx.parallel.set_op_strategy_config()
    with pytest.raises(ContextError, match="does not exist"):
        msx.parallel.op_strategy.read(str(tmp_path / "missing.json"))


def test_one_device_saves_the_attribute_ops_and_warns_for_an_inline_one(tmp_path):
    import json
    from msx import nn, ops
    from msx.parallel.auto_parallel import AutoParallel

    class Inline(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = msx.Parameter(msx.Tensor(np.ones((8, 4), np.float32)), name="w")
            self.matmul = ops.MatMul().shard(((1, 1), (1, 1)))

        def construct(self, x):
            return ops.ReLU().shard(((1, 1),))(self.matmul(x, self.w))

    net, path = Inline(), str(tmp_path / "ops.json")
    runner = AutoParallel(msx.jit(lambda x: net(x).sum()), "sharding_propagation")
    runner.save_operator_strategy_file(path)
    try:
        with pytest.warns(UserWarning, match="a ReLU with a strategy in Inline is not an attribute of the Cell"):
            assert float(runner(msx.Tensor(np.ones((2, 8), np.float32))).asnumpy()) == 2 * 4 * 8
    finally:
        msx.reset_auto_parallel_context()
    assert json.loads(open(path).read()) == {
        "Inline/matmul": {"op": "MatMul", "in_strategy": [[1, 1], [1, 1]], "out_strategy": None}}
    assert not msx.parallel.op_strategy.STATE["active"]   # the reset cleared the files


def test_local_norm_methods_set_mindspores_keys():
    from msx.parallel.auto_parallel import AutoParallel
    ap = AutoParallel(msx.nn.Dense(2, 2))
    ap.print_local_norm()
    ap.enable_device_local_norm()
    assert ap._config["dump_local_norm"] is True and ap._config["dump_device_local_norm"] is True
    ap.dump_local_norm("/tmp/norms")
    assert ap._config["dump_local_norm_path"] == "/tmp/norms"
    with pytest.raises(TypeError, match="file_path"):
        ap.dump_local_norm(None)
    with pytest.raises(ContextError, match="dump_local_norm_path must be a str"):
        msx.set_auto_parallel_context(dump_local_norm_path=3)
    ap.transformer_opt(None)   # off: what msx runs
    with pytest.raises(ContextError, match="parallel_speed_up.json switches"):
        ap.transformer_opt("./parallel_speed_up.json")


# ---------------------------------------------------------------- on this process's device
MINDSPORE_TO_DICT = {   # MindSpore 2.10: Layout((2, 2, 2), ("dp", "sp", "mp"))(...).to_dict()["tensor_map"]
    ("dp", "mp"): (2, 0),
    (("dp", "sp"), "None"): ((2, 1), -1),
}


def test_layout_matches_mindspore():
    layout = Layout((2, 2, 2), ("dp", "sp", "mp"))
    for tmap, want in MINDSPORE_TO_DICT.items():
        d = layout(*tmap).to_dict()
        assert d["tensor_map"] == want and d["device_matrix"] == (2, 2, 2)
        assert d["alias_name"] == ("dp", "sp", "mp") and d["rank_list"] == list(range(8))
    assert layout(("dp", "sp"), "None").cuts() == (4, 1)
    with pytest.raises(ValueError, match="set more than one"):
        layout("dp", "dp")
    with pytest.raises(ValueError, match="not found"):
        layout("xx")
    with pytest.raises(ValueError, match="can not set 'None'"):
        Layout((2, 2), ("dp", "None"))
    with pytest.raises(ValueError, match="rank_list"):
        Layout((2,), ("dp",), rank_list=[3, 5])


def test_every_mindspore_parallel_name_exists():
    names = ["Layout", "build_searched_strategy", "convert_checkpoint_by_rank", "convert_checkpoints",
             "get_algo_parameters", "load_distributed_checkpoint", "load_segmented_checkpoints",
             "merge_pipeline_strategys", "merge_sliced_parameter", "nn", "parameter_broadcast",
             "rank_list_for_convert", "rank_list_for_transform", "reset_algo_parameters", "restore_group_info_list",
             "set_algo_parameters", "set_op_strategy_config", "shard", "sync_pipeline_shared_parameters",
             "transform_checkpoint_by_rank", "transform_checkpoints", "unified_safetensors", "auto_parallel"]
    assert [n for n in names if not hasattr(msx.parallel, n)] == []
    assert msx.parallel.shard is msx.shard
    for name in ("GradAccumulation", "MicroBatchInterleaved", "Pipeline", "PipelineCell", "PipelineGradReducer"):
        assert hasattr(msx.parallel.nn, name)


def test_what_is_not_there_yet_is_refused_by_name():
    with pytest.raises(ContextError, match="parameter_broadcast is not available in msx yet .issue 35"):
        msx.parallel.parameter_broadcast(None)
    ap = msx.parallel.auto_parallel.AutoParallel(msx.nn.Dense(2, 2))
    with pytest.raises(ContextError, match="optimizer_level must be one of"):
        ap.hsdp(optimizer_level="level4")
    with pytest.raises(ContextError, match="interleaved"):
        ap.pipeline(stages=2, interleave=True)
    ap.load_param_strategy_file("s.ckpt")       # honoured: read when the step compiles (test_dist_checkpoint)
    ap.disable_strategy_file_only_for_trainable_params()
    assert ap._config["strategy_ckpt_load_file"] == "s.ckpt"
    with pytest.raises(TypeError, match="file_path"):
        ap.load_param_strategy_file(3)
    ap.dataset_strategy("full_batch")            # honoured: every rank feeds the whole batch
    ap.dataset_strategy(((2, 1), (2, 1)))       # honoured in one process: each input cut as its strategy says
    with pytest.raises(ContextError, match="dataset_strategy must be 'full_batch' or 'data_parallel'"):
        ap.dataset_strategy("bogus")
    with pytest.raises(ValueError, match="parallel_mode"):
        msx.parallel.auto_parallel.AutoParallel(msx.nn.Dense(2, 2), "hybrid")
    ap.pipeline(stages=1, scheduler="gpipe")
    ap.dataset_strategy("data_parallel")
    assert ap.get_pipeline_stages() == 1


def test_algo_parameters_are_checked_kept_and_warn_when_they_change_nothing():
    try:
        assert msx.parallel.get_algo_parameters("fully_use_devices") is False
        with pytest.warns(UserWarning, match="XLA's sharding propagation"):
            msx.parallel.set_algo_parameters(fully_use_devices=True)
        assert msx.parallel.get_algo_parameters("fully_use_devices") is True
        with pytest.raises(TypeError, match="must be a float"):
            msx.parallel.set_algo_parameters(algo_approxi_epsilon=1)
        with pytest.raises(ValueError, match="unknown key"):
            msx.parallel.set_algo_parameters(fully_use=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            msx.parallel.set_algo_parameters(enable_algo_approxi=False)   # the default: nothing to warn about
    finally:
        msx.parallel.reset_algo_parameters()
    assert msx.parallel.get_algo_parameters("fully_use_devices") is False


def test_merge_sliced_parameter_joins_axis_0():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    parts = [msx.Parameter(msx.Tensor(a[i:i + 1]), name="w") for i in range(2)]
    merged = msx.parallel.merge_sliced_parameter(parts)
    assert merged.name == "w"
    np.testing.assert_array_equal(merged.asnumpy(), a)
    with pytest.raises(ContextError, match="strategy"):
        msx.parallel.merge_sliced_parameter(parts, {"w": None})
    with pytest.raises(ValueError, match="one Parameter"):
        msx.parallel.merge_sliced_parameter([parts[0], msx.Parameter(msx.Tensor(a[:1]), name="v")])
    assert msx.parallel.sync_pipeline_shared_parameters(msx.nn.Dense(2, 2)) is None
