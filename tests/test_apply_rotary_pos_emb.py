"""`ops.ApplyRotaryPosEmb(cos_format)(query, key, cos, sin, position_ids)` against a numpy transcription of the
reference MindSpore's own kernel test checks it with (mindspore tests/st/ops/ascend/test_apply_rotary_pos_emb.py:
the rows of cos/sin, an interleaved layout turned into halves and back, `x * cos + rotate_half(x) * sin` in
float32). MindSpore 2.10's CPU build has no kernel for it (Ascend only), so there is no live golden."""
import jax
import numpy as np
import pytest

import msx
from msx import Tensor, ops
from msx.errors import OpError, OpTypeError

RNG = np.random.default_rng(7)
D, MAX_SEQ = 8, 16


def table(cos_format):
    """cos/sin tables as MindSpore's test builds them: halves (formats 0/2) or pairs (1/3) of the frequencies."""
    inv = 1.0 / (10000 ** (np.arange(0, D, 2, dtype=np.float32) / D))
    freqs = np.outer(np.arange(MAX_SEQ, dtype=np.float32), inv)
    emb = np.concatenate([freqs, freqs], -1) if cos_format in (0, 2) else np.repeat(freqs, 2, axis=-1)
    return np.cos(emb).astype(np.float32), np.sin(emb).astype(np.float32)


def reference(x, cos_rows, sin_rows, cos_format, dtype):
    """MindSpore's reference on one of query/key: x (batch, seq, heads*D or heads, D); rows (batch|1, seq|1, D)."""
    shape = x.shape
    x = x.astype(dtype).astype(np.float32).reshape(shape[0], shape[1], -1, D)
    c = cos_rows.astype(dtype).astype(np.float32)[:, :, None, :]
    s = sin_rows.astype(dtype).astype(np.float32)[:, :, None, :]
    inter = cos_format in (1, 3)

    def halves(t):   # interleaved pairs -> [evens, odds]
        return t.reshape(*t.shape[:-1], D // 2, 2).swapaxes(-1, -2).reshape(t.shape) if inter else t

    x, c, s = halves(x), halves(c), halves(s)
    rot = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], -1)
    out = x * c + rot * s
    if inter:   # back to pairs
        out = out.reshape(*out.shape[:-1], 2, D // 2).swapaxes(-1, -2).reshape(out.shape)
    return out.reshape(shape)


def case(cos_format, batch, seq, ndim, dtype=np.float16, heads=(2, 1)):
    hq, hk = heads
    shape = (lambda h: (batch, seq, h * D)) if ndim == 3 else (lambda h: (batch, seq, h, D))
    q = RNG.standard_normal(shape(hq)).astype(np.float32)
    k = RNG.standard_normal(shape(hk)).astype(np.float32)
    cos, sin = table(cos_format)
    pos = (RNG.integers(0, MAX_SEQ, batch) if seq == 1 else np.arange(seq) + 3).astype(np.int32)
    rows_c, rows_s = cos[pos], sin[pos]
    rows_c, rows_s = (rows_c[:, None], rows_s[:, None]) if seq == 1 else (rows_c[None], rows_s[None])
    if cos_format >= 2:   # one row per token, gathered (and tiled over the batch) by the caller
        cos_in = np.broadcast_to(rows_c, (batch, seq, D)).reshape(-1, D)
        sin_in = np.broadcast_to(rows_s, (batch, seq, D)).reshape(-1, D)
    else:
        cos_in, sin_in = cos, sin
    want = (reference(q, rows_c, rows_s, cos_format, dtype), reference(k, rows_c, rows_s, cos_format, dtype))
    args = (Tensor(q.astype(dtype)), Tensor(k.astype(dtype)), Tensor(cos_in), Tensor(sin_in), Tensor(pos))
    return args, want


@pytest.mark.parametrize("cos_format", [0, 1, 2, 3])
@pytest.mark.parametrize("batch,seq", [(2, 5), (3, 1)])
@pytest.mark.parametrize("ndim", [3, 4])
def test_equals_mindspores_reference(cos_format, batch, seq, ndim):
    args, (wq, wk) = case(cos_format, batch, seq, ndim)
    q, k = ops.ApplyRotaryPosEmb(cos_format)(*args)
    assert q.shape == args[0].shape and k.shape == args[1].shape and str(q.dtype) == "Float16"
    np.testing.assert_allclose(q.asnumpy().astype(np.float32), wq, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(k.asnumpy().astype(np.float32), wk, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("cos_format", [0, 3])
def test_float32_and_two_dim_tokens(cos_format):
    """msx also takes float32 (MindSpore's kernel: float16/bfloat16); a 2-D (tokens, H) query is (tokens, 1, H)."""
    args, (wq, wk) = case(cos_format, 4, 1, 3, dtype=np.float32)
    q2, k2 = (Tensor(a.asnumpy()[:, 0]) for a in args[:2])
    q, k = ops.ApplyRotaryPosEmb(cos_format)(q2, k2, *args[2:])
    np.testing.assert_allclose(q.asnumpy(), wq[:, 0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(k.asnumpy(), wk[:, 0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["ast", "trace"])
def test_jit_equals_eager(mode):
    args, _ = case(1, 2, 5, 4)
    op = ops.ApplyRotaryPosEmb(1)
    eager = op(*args)
    step = msx.jit(lambda *a: op(*a), capture_mode=mode)
    for _ in range(2):   # the capture call and the compiled call
        got = step(*args)
        for g, e in zip(got, eager):
            np.testing.assert_array_equal(g.asnumpy(), e.asnumpy())


@pytest.mark.parametrize("cos_format", [0, 1])
def test_gradients_equal_the_linear_maps_transpose(cos_format):
    """The op is linear in query: d/dq sum(w * q_embed) is the transpose of the map applied to w, computed here
    by numpy on the unit basis (float32 everywhere)."""
    args, _ = case(cos_format, 1, 3, 3, dtype=np.float32, heads=(1, 1))
    q, k, cos, sin, pos = args
    w = RNG.standard_normal(q.shape).astype(np.float32)
    op = ops.ApplyRotaryPosEmb(cos_format)
    gq, gcos = msx.grad(lambda a, c: (op(a, k, c, sin, pos)[0] * Tensor(w)).sum(), grad_position=(0, 1))(q, cos)
    cos_np, sin_np = table(cos_format)
    rows = (cos_np[pos.asnumpy()][None], sin_np[pos.asnumpy()][None])
    n = q.size
    basis = np.eye(n, dtype=np.float32).reshape((n,) + tuple(q.shape))
    columns = np.stack([reference(e, *rows, cos_format, np.float32).reshape(-1) for e in basis], 1)
    np.testing.assert_allclose(gq.asnumpy().reshape(-1), columns.T @ w.reshape(-1), rtol=1e-5, atol=1e-5)
    # cos enters as x * cos (a row per position): its gradient is sum over heads of w * x at the rows read
    x = q.asnumpy().reshape(1, 3, -1, D)
    if cos_format == 0:
        want_rows = (w.reshape(x.shape) * x).sum((0, 2))
        want = np.zeros_like(cos_np)
        np.add.at(want, pos.asnumpy(), want_rows)
        np.testing.assert_allclose(gcos.asnumpy(), want, rtol=1e-5, atol=1e-5)
    assert jax.numpy.isfinite(gcos._data).all()


def test_errors_name_the_op_and_the_value():
    args, _ = case(0, 2, 5, 3)
    op = ops.ApplyRotaryPosEmb(0)
    with pytest.raises(OpTypeError, match="ApplyRotaryPosEmb.*position_ids must be int32"):
        op(*args[:4], Tensor(np.arange(5, dtype=np.float32)))
    with pytest.raises(OpTypeError, match="query and key must be one of float16"):
        op(Tensor(np.zeros((2, 5, 8), np.int32)), *args[1:])
    with pytest.raises(OpError, match=r"position_ids: 5 of them"):
        op(*args[:4], Tensor(np.arange(4, dtype=np.int32)))
    with pytest.raises(OpError, match=r"position_ids must lie in \[0, 16\)"):
        op(*args[:4], Tensor(np.arange(5, dtype=np.int32) + 12))
    with pytest.raises(OpError, match="cos_format must be 0, 1, 2 or 3"):
        ops.ApplyRotaryPosEmb(4)(*args)
    with pytest.raises(OpError, match="one cos/sin row per token"):
        ops.ApplyRotaryPosEmb(2)(*args)
