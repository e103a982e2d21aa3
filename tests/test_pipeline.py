"""Pipeline parallelism over several stages (msx/parallel/pipeline.py, nn.PipelineCell with pipeline_stages > 1).

The 8-device part runs in one subprocess (`XLA_FLAGS=--xla_force_host_platform_device_count=8`, as
tests/test_parallel_api.py does): a small network with an embedding, tensor-parallel MatMuls, recomputed blocks
and an output tied to the embedding, cut into 2 stages of 4 devices (dp2 x tp2 inside each), trained through
`nn.PipelineCell` with 4 micro-batches under 1F1B and GPipe; its losses and parameters must equal the same
network's STAND_ALONE one-device run on the whole batch (the reference: msx without any pipeline, itself checked
against numpy and MindSpore elsewhere). The scheduled run itself is checked against `jax.value_and_grad` of the
micro-batch sum on hand-written networks of 2 and 4 stages; the schedules and the cut against their definitions.
"""
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import msx as ms
from msx import nn
from msx.errors import ContextError
from msx.parallel import pipeline
from host_devices import run_json

SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    import msx as ms
    from msx import nn, ops
    from msx.parallel.auto_parallel import AutoParallel

    assert len(__import__("jax").devices()) == 8
    D, V = 8, 10

    class Block(nn.Cell):
        def __init__(self, seed, shard):
            super().__init__()
            w = np.random.default_rng(seed).normal(size=(D, D)).astype(np.float32) * 0.3
            self.w = ms.Parameter(ms.Tensor(w), name="w")
            self.mm = ops.MatMul()
            if shard:
                self.mm.shard(((2, 1), (1, 2)))     # dp2 x tp2 inside a stage of 4 devices

        def construct(self, x):
            return ops.tanh(self.mm(x.reshape(-1, D), self.w)).reshape(x.shape) + x

    class Net(nn.Cell):
        def __init__(self, shard):
            super().__init__()
            self.emb = nn.Embedding(V, D)
            self.blocks = nn.CellList([Block(i, shard) for i in range(4)])

        def construct(self, ids, y):
            x = self.emb(ids)
            for b in self.blocks:
                x = b(x)
            logits = ops.matmul(x, self.emb.embedding_table.T)    # tied to the embedding (stage 0's Parameter)
            return ((logits - y) ** 2).sum()

    rng = np.random.default_rng(0)
    IDS = ms.Tensor(rng.integers(0, V, size=(16, 4)).astype(np.int32))
    Y = ms.Tensor(rng.normal(size=(16, 4, V)).astype(np.float32))

    def run(stages, scheduler=None, mode="ast", steps=2, auto=False, bf16=False):
        ms.reset_auto_parallel_context()
        if stages > 1 and not auto:
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=8,
                                         pipeline_stages=stages, pipeline_config={"pipeline_scheduler": scheduler})
        ms.set_seed(1)
        net = Net(stages > 1)
        for i, b in enumerate(net.blocks):
            b.pipeline_stage = i // 2
            b.recompute()
        if bf16:
            net.to_float(ms.bfloat16)        # bfloat16 compute, float32 Parameters (the master weights)
        pc = nn.PipelineCell(net, 4, stage_config={"emb": 0})
        opt = nn.Adam(net.trainable_params(), 0.01)
        grad_fn = ms.value_and_grad(pc, None, opt.parameters)

        def step(x, y):
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss

        if mode != "eager":
            step = ms.jit(step, capture_mode=mode)
        runner = step
        if auto:
            runner = AutoParallel(step, parallel_mode="semi_auto")
            runner.pipeline(stages=stages, scheduler=scheduler)
        losses = [float(runner(IDS, Y).asnumpy()) for _ in range(steps)]
        hlo = step.lower(IDS, Y).as_text() if mode != "eager" else ""
        kept = sorted({str(p.dtype) for p in net.trainable_params()} | {str(p.dtype) for p in opt.moment1})
        state = [*net.trainable_params(), *opt.moment1, *opt.moment2]
        measured = stages > 1 and mode == "ast" and not bf16    # one compile more, for the 1F1B run only
        args = step.lower(IDS, Y).compile().handle.compiled.memory_analysis().argument_size_in_bytes \
            if measured else None
        return [losses, [p.asnumpy().tolist() for p in net.trainable_params()], hlo.count("collective_permute"), kept,
                hlo.count("bf16"), args, sum(p._data.nbytes for p in state),
                [str(getattr(p._data.sharding, "spec", "")) for p in state]]

    out = {"plain": run(1), "1f1b": run(2, "1f1b"),
           "eager": run(2, "1f1b", "eager", steps=1), "auto": run(2, "gpipe", "bytecode", auto=True),
           "bf16_plain": run(1, bf16=True), "bf16": run(2, "1f1b", bf16=True)}
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(pipeline_stages=2)
    try:
        nn.PipelineCell(Net(False), 4)(IDS, Y)
    except Exception as exc:
        out["stand_alone"] = f"{type(exc).__name__}: {exc}"
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=8)
    try:
        nn.PipelineCell(Net(False), 4)(IDS, Y)
    except Exception as exc:
        out["no_stage"] = f"{type(exc).__name__}: {exc}"
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def eight():
    return run_json(SCRIPT)


@pytest.mark.parametrize("run", ["1f1b", "auto", "eager"])   # auto: GPipe, bytecode capture
def test_two_stages_train_like_one_device(eight, run):
    (losses, params, *_), (got_losses, got_params, permutes, *_) = eight["plain"], eight[run]
    steps = len(got_losses)
    np.testing.assert_allclose(got_losses, losses[:steps], rtol=1e-5)
    if steps == len(losses):
        for g, w in zip(got_params, params):
            np.testing.assert_allclose(np.array(g), np.array(w), rtol=1e-5, atol=1e-6)
    if run != "eager":
        assert permutes >= 1      # the stages hand activations and gradients on by collective_permute


def test_each_stage_keeps_its_parameters_and_state_cut_over_pipe(eight):
    # every Parameter and Adam moment (axis 0 of 10 or 8) stays cut over `pipe` between steps, and the compiled
    # step's per-device arguments are half of them (2 stages) plus the device's rows of the batch (1/4: a stage's
    # data-parallel devices) and Adam's step counters: each stage holds only its own half, not every weight
    args, state, specs = eight["1f1b"][5:8]
    assert all("pipe" in spec for spec in specs), specs
    batch = (16 * 4 * 4 + 16 * 4 * 10 * 4) / 4
    assert state / 2 + batch <= args <= state / 2 + batch + 256, (args, state)


def test_bf16_compute_with_float32_master_weights(eight):
    (losses, params, *_), (got_losses, got_params, permutes, kept, bf16, *_) = eight["bf16_plain"], eight["bf16"]
    assert kept == ["Float32"] and bf16 > 0 and permutes >= 1     # the weights and Adam's state stay float32
    np.testing.assert_allclose(got_losses, losses, rtol=2e-2)    # bfloat16 rounding, summed in another order
    assert abs(got_losses[0] - eight["plain"][0][0]) <= 2e-2 * abs(eight["plain"][0][0])
    for g, w in zip(got_params, params):
        np.testing.assert_allclose(np.array(g), np.array(w), atol=2e-3)   # Adam's steps are 1e-2: 5 % of one


def test_pipeline_needs_global_view_and_staged_cells(eight):
    assert eight["stand_alone"].startswith("ContextError") and "semi_auto_parallel" in eight["stand_alone"]
    assert eight["no_stage"].startswith("ContextError") and "pipeline_stage > 0" in eight["no_stage"]


# ---------------------------------------------------------------- the scheduled run, against jax.grad
DIRECT = textwrap.dedent("""
    import json
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh
    from msx.parallel import pipeline

    def scoped(k, f, *a):
        with jax.named_scope(f"{pipeline.SCOPE}{k}"):
            return f(*a)

    def net(stages):
        def f(mb, ps):
            x, ids, y = mb
            h = x + ps[0][ids]                                   # an int input and a gather
            first = h
            for k in range(stages):
                body = lambda h, w=ps[k + 1]: jnp.tanh(h @ w)
                if k == 1:
                    body = jax.checkpoint(body)                   # recompute: only its input is kept
                h = scoped(k, body, h)
            return [scoped(stages - 1, lambda: ((h - y) ** 2).sum() + (first * h).mean())]   # `first` skips stages
        return f

    rng = np.random.default_rng(0)
    out = {}
    for stages, scheduler in ((2, "1f1b"), (4, "1f1b"), (4, "gpipe")):
        M, D = 4, 8
        mesh = Mesh(np.array(jax.devices()).reshape(stages, 8 // stages), ("pipe", "dp"))
        x = jnp.asarray(rng.normal(size=(M, 8, D)), jnp.float32)
        ids = jnp.asarray(rng.integers(0, 5, size=(M, 8)), jnp.int32)
        y = jnp.asarray(rng.normal(size=(M, 8, D)), jnp.float32)
        ws = [jnp.asarray(rng.normal(size=(5 if i == 0 else D, D)) * 0.4, jnp.float32) for i in range(stages + 1)]
        f = net(stages)
        cut = pipeline.cut(jax.make_jaxpr(f)([x[0], ids[0], y[0]], ws), stages)
        fn = pipeline.pipelined(cut, mesh, scheduler)
        ref = lambda x, ws: sum(f([x[m], ids[m], y[m]], ws)[0] for m in range(M))
        loss, (gx, gw) = jax.value_and_grad(lambda x, ws: fn([x, ids, y], ws)[0], argnums=(0, 1))(x, ws)
        want, (wx, ww) = jax.value_and_grad(ref, argnums=(0, 1))(x, ws)
        compiled = jax.jit(jax.grad(lambda ws: fn([x, ids, y], ws)[0])).lower(ws).compile()
        only_w, step = compiled(ws), compiled.as_text()
        table = pipeline.schedule(scheduler, stages, M)
        sends = sum(any(table.kind[t, s] == kind and 0 <= s + d < stages for s in range(stages))
                    for t in range(table.kind.shape[0]) for kind, d in ((1, 1), (2, -1)))
        sends += 2 * (stages - 1)   # the cut Parameters (axis 0 of 8) to their stage and their gradients back
        out[f"{stages}-{scheduler}"] = dict(
            loss=[float(loss), float(want)], forward=float(fn([x, ids, y], ws)[0]),
            gx=float(jnp.abs(gx - wx).max()), gw=[float(jnp.abs(a - b).max()) for a, b in zip(gw, ww)],
            only_w=[float(jnp.abs(a - b).max()) for a, b in zip(only_w, ww)], scale=float(jnp.abs(wx).max()),
            permutes=step.count("collective-permute("), sends=int(sends), loops=step.count(" while("))
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def direct():
    return run_json(DIRECT)


@pytest.mark.parametrize("case", ["2-1f1b", "4-1f1b", "4-gpipe"])
def test_schedule_run_equals_jax_grad_of_the_micro_batch_sum(direct, case):
    got = direct[case]
    loss, want = got["loss"]
    assert loss == pytest.approx(want, rel=1e-5) and got["forward"] == pytest.approx(want, rel=1e-5)
    assert got["gx"] <= 1e-5 * max(1.0, got["scale"])            # the micro-batch inputs' gradient
    assert max(got["gw"]) <= 1e-4 and max(got["only_w"]) <= 1e-4   # the Parameters' (also when x is not differentiated)
    # unrolled: no loop; one collective_permute per slot and direction that sends, none in the others, and N - 1
    # each way for the Parameters each stage holds a piece of
    assert got["loops"] == 0 and got["permutes"] == got["sends"]


# ---------------------------------------------------------------- the schedules, against their definitions
@pytest.mark.parametrize("name", ["1f1b", "gpipe"])
@pytest.mark.parametrize("stages,micro", [(2, 4), (4, 4), (4, 8), (3, 5)])
def test_schedule_runs_every_micro_batch_once_in_dependency_order(name, stages, micro):
    table = pipeline.schedule(name, stages, micro)
    when = {}
    for t in range(table.kind.shape[0]):
        for s in range(stages):
            if table.kind[t, s]:
                key = ("F" if table.kind[t, s] == 1 else "B", s, int(table.micro[t, s]))
                assert key not in when
                when[key] = t
    assert len(when) == 2 * stages * micro
    for s in range(stages):
        for m in range(micro):
            if s:
                assert when[("F", s, m)] > when[("F", s - 1, m)]
            assert when[("B", s, m)] > when[("F", s, m)]
            if s < stages - 1:
                assert when[("B", s, m)] > when[("B", s + 1, m)]
    # both have the synchronous pipeline's bubble (F and B of one cost): (stages - 1) / (micro + stages - 1)
    assert pipeline.bubble_fraction(stages, micro, name) == pytest.approx((stages - 1) / (micro + stages - 1))
    # 1F1B keeps at most `stages` micro-batches' stage inputs (stage s: stages - s), GPipe all of them
    assert table.slots == (min(stages, micro) if name == "1f1b" else micro)


def test_schedule_refuses_unknown_names():
    with pytest.raises(ContextError, match="pipeline_scheduler='seqpipe'"):
        pipeline.schedule("seqpipe", 2, 4)


# ---------------------------------------------------------------- the cut, on hand-written jaxprs
def _scoped(k, f, *a):
    with jax.named_scope(f"{pipeline.SCOPE}{k}"):
        return f(*a)


def test_cut_passes_values_through_and_recomputes_free_ones():
    def net(mb, ps):
        x, = mb
        w0, w1, w2 = ps
        table = jnp.cos(w0[0]) * 2.0                    # free: only Parameters -> recomputed where used
        h0 = _scoped(0, lambda: jnp.tanh(x @ w0))
        h1 = _scoped(1, lambda: jnp.tanh(h0 @ w1) + table)
        return [_scoped(2, lambda: ((h1 @ w2) + h0).sum() + table.sum())]   # h0 skips stage 1

    x = jnp.ones((2, 3))
    ws = [jnp.full((3, 3), 0.1 * (i + 1)) for i in range(3)]
    st = pipeline.cut(jax.make_jaxpr(net)([x], ws), 3)
    assert [len(b) for b in st.bounds] == [0, 1, 2]   # stage 2 gets h1 and h0 (passed on by stage 1)
    carry = st.run(0, [jnp.zeros(a.shape, a.dtype) for a in st.carry], [x], ws)
    carry = st.run(1, carry, [x], ws)
    got = st.run(2, carry, [x], ws)[0]
    np.testing.assert_allclose(got, net([x], ws)[0], rtol=1e-6)
    assert sum(e.primitive.name == "cos" for k in range(3) for e in st.eqns[k]) == 2   # stages 1 and 2


def test_cut_refuses_a_stage_reading_a_later_one():
    def net(mb, ps):
        h = _scoped(1, lambda: mb[0] * 2.0)
        return [_scoped(0, lambda: h.sum())]

    with pytest.raises(ContextError, match="pipeline_stage 0 reads a value computed in stage 1"):
        pipeline.cut(jax.make_jaxpr(net)([jnp.ones(3)], []), 2)
    with pytest.raises(ContextError, match="pipeline_stage=1 but pipeline_stages=1"):
        pipeline.cut(jax.make_jaxpr(net)([jnp.ones(3)], []), 1)


# ---------------------------------------------------------------- MindSpore's names and checks
def test_cell_pipeline_stage_is_mindspores_property():
    cell = nn.Dense(2, 2)
    with pytest.raises(AttributeError):
        cell.pipeline_stage
    cell.pipeline_stage = 1
    assert cell.pipeline_stage == 1
    with pytest.raises(TypeError, match="must be int type"):
        cell.pipeline_stage = 1.5
    with pytest.raises(ValueError, match="can not be less than 0, but got -2"):
        cell.pipeline_stage = -2


def test_pipeline_context_keys():
    try:
        ms.set_auto_parallel_context(pipeline_stages=2, pipeline_config={"pipeline_scheduler": "gpipe"})
        assert ms.get_auto_parallel_context("pipeline_stages") == 2
        assert ms.get_auto_parallel_context("pipeline_scheduler") == "gpipe"
        assert ms.get_auto_parallel_context("pipeline_interleave") is False
        for bad, match in (({"pipeline_scheduler": "zero_bubble_v"}, "not supported"),
                           ({"pipeline_scheduler": "x"}, "must be one of"),
                           ({"pipeline_interleave": True}, "interleaved"), ({"foo": 1}, "unknown keys")):
            with pytest.raises(ContextError, match=match):
                ms.set_auto_parallel_context(pipeline_config=bad)
        with pytest.raises(ContextError, match="int >= 1"):
            ms.set_auto_parallel_context(pipeline_stages=0)
        with pytest.raises(ContextError, match="interleaved"):
            ms.parallel.auto_parallel.AutoParallel(nn.Dense(2, 2)).pipeline(stages=2, interleave=True)
    finally:
        ms.reset_auto_parallel_context()
