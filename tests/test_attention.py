"""Fused attention (msx/ops/flash_attention_ops.py, speed_fusion_ops.py, sdpa_ops.py, rotary_ops.py) against a
plain numpy softmax(scale * QK^T + bias)V.

MindSpore 2.10's CPU build has no kernel for FlashAttentionScore, RotaryPositionEmbedding or
SpeedFusionAttention ("kernel ... unregistered"), so the reference is written out here: per (batch, head),
scores = scale * q @ k.T + bias, masked to -inf where MindSpore's mask discards, softmax, @ v.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import msx
from msx import mint, ops
from msx.errors import OpError, OpTypeError

RNG = np.random.default_rng(0)
B, N1, N2, S1, S2, D = 2, 4, 2, 5, 7, 8
Q = RNG.standard_normal((B, N1, S1, D)).astype(np.float32)      # BNSD
K = RNG.standard_normal((B, N2, S2, D)).astype(np.float32)
V = RNG.standard_normal((B, N2, S2, D)).astype(np.float32)
MASK = RNG.random((B, 1, S1, S2)) < 0.3                          # True discards (MindSpore)
MASK[..., 0] = False                                              # no fully-masked row
SHIFT = RNG.standard_normal((1, N1, S1, S2)).astype(np.float32)
T = msx.Tensor
INF = 2147483647


def reference(q, k, v, scale, discard=None, bias=None):
    """BNSD numpy attention; GQA by repeating the key/value heads; `discard` True removes a score."""
    g = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    s = np.einsum("bnqd,bnkd->bnqk", q.astype(np.float64), k) * scale
    if bias is not None:
        s = s + bias
    if discard is not None:
        s = np.where(discard, -np.inf, s)
    w = np.exp(s - s.max(-1, keepdims=True))
    w = w / w.sum(-1, keepdims=True)
    return np.einsum("bnqk,bnkd->bnqd", w, v)


def band(s1, s2, offset, pre, nxt):
    """MindSpore's discard mask of a band: keep j with -pre <= j - i - offset <= nxt."""
    i, j = np.arange(s1)[:, None], np.arange(s2)[None, :]
    d = j - i - offset
    return ~((d >= -pre) & (d <= nxt))


def to_layout(x, layout):
    """BNSD numpy -> the layout's numpy array."""
    b, n, s, d = x.shape
    return {"BNSD": x, "BSND": x.transpose(0, 2, 1, 3), "BSH": x.transpose(0, 2, 1, 3).reshape(b, s, n * d),
            "SBH": x.transpose(2, 0, 1, 3).reshape(s, b, n * d)}[layout]


@pytest.mark.parametrize("layout", ["BNSD", "BSND", "BSH", "SBH"])
def test_layouts_with_gqa_equal_the_reference(layout):
    scale = 1 / np.sqrt(D)
    got = ops.flash_attention_score(T(to_layout(Q, layout)), T(to_layout(K, layout)), T(to_layout(V, layout)),
                                    N1, scalar_value=scale, input_layout=layout)
    np.testing.assert_allclose(got.asnumpy(), to_layout(reference(Q, K, V, scale), layout), rtol=1e-5, atol=1e-5)


CASES = {   # name: (kwargs, the discard mask the reference applies)
    "mask_mode0": (dict(attn_mask=MASK), MASK),
    "mask_uint8_mode1": (dict(attn_mask=MASK.astype(np.uint8), sparse_mode=1, pre_tokens=1), MASK),
    "band_mode0": (dict(attn_mask=MASK, pre_tokens=2, next_tokens=1), MASK | band(S1, S2, 0, 2, 1)),
    "causal_mode2": (dict(sparse_mode=2), band(S1, S2, 0, INF, 0)),
    "causal_mode3": (dict(sparse_mode=3), band(S1, S2, S2 - S1, INF, 0)),
    "band_mode4": (dict(sparse_mode=4, pre_tokens=3, next_tokens=0), band(S1, S2, S2 - S1, 3, 0)),
    "shift": (dict(real_shift=SHIFT), None),
    "no_mask_ignores_tokens_mode0": (dict(pre_tokens=0, next_tokens=0), None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_masks_and_sparse_modes(name):
    kwargs, discard = CASES[name]
    kw = {k: (T(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    got = ops.flash_attention_score(T(Q), T(K), T(V), N1, scalar_value=0.5, input_layout="BNSD", **kw)
    want = reference(Q, K, V, 0.5, discard, SHIFT if "real_shift" in kwargs else None)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)


def test_compressed_mask_of_modes_2_to_4_is_the_band_not_its_contents():
    compressed = T(np.triu(np.ones((2048, 2048), bool), 1))
    got = ops.flash_attention_score(T(Q), T(K), T(V), N1, attn_mask=compressed, input_layout="BNSD", sparse_mode=3)
    np.testing.assert_allclose(got.asnumpy(), reference(Q, K, V, 1.0, band(S1, S2, S2 - S1, INF, 0)),
                               rtol=1e-5, atol=1e-5)


def _packed_sequences() -> tuple[list, list, list]:
    """Two sequences' BNSD q, k, v (query lengths 3 and 5, key lengths 4 and 6), for the TND tests."""
    qs = [RNG.standard_normal((1, N1, n, D)).astype(np.float32) for n in (3, 5)]
    ks = [RNG.standard_normal((1, N2, n, D)).astype(np.float32) for n in (4, 6)]
    vs = [RNG.standard_normal((1, N2, n, D)).astype(np.float32) for n in (4, 6)]
    return qs, ks, vs


def tnd(xs: list) -> np.ndarray:
    """BNSD sequences packed into one TND tensor."""
    return np.concatenate([x[0].transpose(1, 0, 2) for x in xs])


def test_tnd_packed_sequences_equal_each_sequence_alone():
    qs, ks, vs = _packed_sequences()
    got = ops.flash_attention_score(T(tnd(qs)), T(tnd(ks)), T(tnd(vs)), N1, input_layout="TND", sparse_mode=3,
                                    actual_seq_qlen=(3, 8), actual_seq_kvlen=T(np.array([4, 10])))
    want = [reference(q, k, v, 1.0, band(q.shape[2], k.shape[2], k.shape[2] - q.shape[2], INF, 0))
            for q, k, v in zip(qs, ks, vs)]
    np.testing.assert_allclose(got.asnumpy(), tnd(want), rtol=1e-5, atol=1e-5)


def test_gradients_equal_the_references():
    scale = 0.4

    def loss(q, k, v):
        return (ops.flash_attention_score(q, k, v, N1, attn_mask=T(MASK), scalar_value=scale,
                                          input_layout="BNSD") ** 2).sum()

    def ref(q, k, v):   # the same formula in jax, differentiated by jax
        g = N1 // N2
        kk, vv = jnp.repeat(k, g, 1), jnp.repeat(v, g, 1)
        s = jnp.where(MASK, -jnp.inf, jnp.einsum("bnqd,bnkd->bnqk", q, kk) * scale)
        return (jnp.einsum("bnqk,bnkd->bnqd", jax.nn.softmax(s, -1), vv) ** 2).sum()

    got = msx.grad(loss, grad_position=(0, 1, 2))(T(Q), T(K), T(V))
    want = jax.grad(ref, argnums=(0, 1, 2))(Q, K, V)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), np.asarray(w), rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- every capture mode equals eager
class Block(msx.nn.Cell):
    """Rotary + causal flash attention + SDPA with a float mask: the three ops in one network."""

    def __init__(self):
        super().__init__()
        self.w = msx.Parameter(T(RNG.standard_normal((D, D)).astype(np.float32) * 0.3), name="w")
        ang = np.arange(S1)[:, None] * (1.0 / 100 ** (np.arange(D) / D))[None]
        self.cos = T(np.cos(ang)[None, None].astype(np.float32))
        self.sin = T(np.sin(ang)[None, None].astype(np.float32))

    def construct(self, x, bias):
        h = ops.matmul(x, self.w)
        h = ops.rotary_position_embedding(h, self.cos, self.sin, 0)
        a = ops.flash_attention_score(h, h, h, N1, input_layout="BNSD", sparse_mode=2, scalar_value=0.3)
        b = mint.nn.functional.scaled_dot_product_attention(a, h, h, attn_mask=bias)
        return (a * b).sum()


X = RNG.standard_normal((B, N1, S1, D)).astype(np.float32)
BIAS = RNG.standard_normal((S1, S1)).astype(np.float32)


@pytest.fixture(scope="module")
def eager_values():
    net = Block()
    fn = msx.value_and_grad(net, grad_position=0, weights=net.trainable_params())
    loss, (gx, (gw,)) = fn(T(X), T(BIAS))
    return net, loss.asnumpy(), gx.asnumpy(), gw.asnumpy()


@pytest.mark.parametrize("mode", ["ast", "bytecode", "trace"])
def test_jit_equals_eager_with_gradients(eager_values, mode):
    net, loss, gx, gw = eager_values
    fn = msx.value_and_grad(net, grad_position=0, weights=net.trainable_params())
    step = msx.jit(lambda x, b: fn(x, b), capture_mode=mode)
    for _ in range(2):   # the capture call and the compiled call
        l2, (gx2, (gw2,)) = step(T(X), T(BIAS))
        np.testing.assert_allclose(l2.asnumpy(), loss, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(gx2.asnumpy(), gx, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(gw2.asnumpy(), gw, rtol=1e-4, atol=1e-5)


def test_the_graph_holds_one_attention_node():
    step = msx.jit(lambda q: ops.flash_attention_score(q, q, q, N1, input_layout="BNSD"))
    text = str(step.capture(T(Q)))
    assert text.count("= FlashAttentionScore[") == 1, text


# ---------------------------------------------------------------- scaled_dot_product_attention (torch semantics)
SDPA = mint.nn.functional.scaled_dot_product_attention
QS = RNG.standard_normal((B, N1, S1, D)).astype(np.float32)
KS = RNG.standard_normal((B, N1, S2, D)).astype(np.float32)
VS = RNG.standard_normal((B, N1, S2, D)).astype(np.float32)


def test_sdpa_masks_causal_scale_and_gqa():
    keep = ~MASK
    np.testing.assert_allclose(SDPA(T(QS), T(KS), T(VS), attn_mask=T(keep)).asnumpy(),
                               reference(QS, KS, VS, 1 / np.sqrt(D), ~keep), rtol=1e-5, atol=1e-5)
    fmask = RNG.standard_normal((S1, S2)).astype(np.float32)
    np.testing.assert_allclose(SDPA(T(QS), T(KS), T(VS), attn_mask=T(fmask), scale=0.2).asnumpy(),
                               reference(QS, KS, VS, 0.2, bias=fmask), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(SDPA(T(QS), T(KS), T(VS), is_causal=True).asnumpy(),  # torch: top-left causal
                               reference(QS, KS, VS, 1 / np.sqrt(D), band(S1, S2, 0, INF, 0)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(SDPA(T(Q), T(K), T(V), enable_gqa=True).asnumpy(),
                               reference(Q, K, V, 1 / np.sqrt(D)), rtol=1e-5, atol=1e-5)
    q3 = QS[0]   # (H, L, E): no batch dimension
    np.testing.assert_allclose(SDPA(T(q3), T(KS[0]), T(VS[0])).asnumpy(),
                               reference(QS[:1], KS[:1], VS[:1], 1 / np.sqrt(D))[0], rtol=1e-5, atol=1e-5)


def test_sdpa_dropout_is_seeded_and_unbiased():
    msx.set_seed(3)
    a = SDPA(T(QS), T(KS), T(VS), dropout_p=0.5).asnumpy()
    msx.set_seed(3)
    b = SDPA(T(QS), T(KS), T(VS), dropout_p=0.5).asnumpy()
    np.testing.assert_array_equal(a, b)
    plain = reference(QS, KS, VS, 1 / np.sqrt(D))
    assert not np.allclose(a, plain, atol=1e-3)
    ones = np.ones((1, 1, 4, 64), np.float32)   # equal scores: each weight 1/64, kept ones scaled by 2
    vals = np.ones((1, 1, 64, 1), np.float32)
    out = SDPA(T(ones), T(np.ones((1, 1, 64, 64), np.float32)), T(vals), dropout_p=0.5).asnumpy()
    assert abs(out.mean() - 1.0) < 0.25


def test_refusals_are_clear():
    with pytest.raises(OpError, match="keep_prob must be a float in"):
        ops.flash_attention_score(T(Q), T(K), T(V), N1, keep_prob=0.0, input_layout="BNSD")
    with pytest.raises(OpError, match="prefix"):
        ops.flash_attention_score(T(Q), T(K), T(V), N1, input_layout="BNSD", sparse_mode=5)
    for mode in (6, 7, 8):
        with pytest.raises(OpError, match=f"sparse_mode={mode} .* MindSpore 2.10 as not implemented"):
            ops.flash_attention_score(T(Q), T(K), T(V), N1, input_layout="BNSD", sparse_mode=mode)
    with pytest.raises(OpError, match="padding_mask"):
        ops.flash_attention_score(T(Q), T(K), T(V), N1, padding_mask=T(MASK), input_layout="BNSD")
    with pytest.raises(OpError, match="input_layout"):
        ops.flash_attention_score(T(Q), T(K), T(V), N1, input_layout="NSD")
    with pytest.raises(OpError, match="head_num=3"):
        ops.flash_attention_score(T(Q), T(K), T(V), 3, input_layout="BNSD")
    with pytest.raises(OpError, match="TND"):
        ops.flash_attention_score(T(Q[0]), T(K[0]), T(V[0]), N1, input_layout="TND")
    with pytest.raises(OpError, match="enable_gqa"):
        SDPA(T(Q), T(K), T(V))
    with pytest.raises(OpError, match="is_causal"):
        SDPA(T(QS), T(KS), T(VS), attn_mask=T(~MASK), is_causal=True)
    with pytest.raises(OpError, match="mode must be 0"):
        ops.rotary_position_embedding(T(Q), T(Q), T(Q), 2)


# ---------------------------------------------------------------- rotary_position_embedding
@pytest.mark.parametrize("mode", [0, 1])
def test_rotary_equals_numpy(mode):
    x = RNG.standard_normal((B, N1, S1, D)).astype(np.float32)
    cos = RNG.uniform(-1, 1, (1, 1, S1, D)).astype(np.float32)
    sin = RNG.uniform(-1, 1, (1, 1, S1, D)).astype(np.float32)
    if mode == 0:
        rot = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], -1)
    else:
        rot = np.empty_like(x)
        rot[..., 0::2], rot[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    got = ops.rotary_position_embedding(T(x), T(cos), T(sin), mode)
    np.testing.assert_allclose(got.asnumpy(), x * cos + rot * sin, rtol=1e-6, atol=1e-6)
    g = msx.grad(lambda t: (ops.rotary_position_embedding(t, T(cos), T(sin), mode) ** 2).sum())(T(x))
    want = jax.grad(lambda t: ((t * cos + (jnp.concatenate([-t[..., D // 2:], t[..., :D // 2]], -1) if mode == 0
                                           else jnp.stack([-t[..., 1::2], t[..., 0::2]], -1).reshape(t.shape))
                                * sin) ** 2).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), np.asarray(want), rtol=1e-5, atol=1e-5)


def test_class_form_returns_mindspores_four_outputs():
    op = ops.FlashAttentionScore(N1, scale_value=0.5, input_layout="BNSD")
    top, total, _, out = op(T(Q), T(K), T(V), attn_mask=T(MASK))
    g = N1 // N2
    s = np.einsum("bnqd,bnkd->bnqk", Q.astype(np.float64), np.repeat(K, g, 1)) * 0.5
    s = np.where(MASK, -np.inf, s)
    want_top = s.max(-1, keepdims=True)
    assert top.shape == (B, N1, S1, 8) and str(top.dtype) == "Float32"
    np.testing.assert_allclose(top.asnumpy(), np.broadcast_to(want_top, (B, N1, S1, 8)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(total.asnumpy()[..., 0], np.exp(s - want_top).sum(-1), rtol=1e-5)
    np.testing.assert_allclose(out.asnumpy(), reference(Q, K, V, 0.5, MASK), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- dropout inside flash_attention_score
S2D = 16                                   # a drop_mask needs S2 a multiple of 8
KD = RNG.standard_normal((B, N2, S2D, D)).astype(np.float32)
VD = RNG.standard_normal((B, N2, S2D, D)).astype(np.float32)
KEEP_BITS = RNG.random((B, N1, S1, S2D)) < 0.7                   # True keeps
DROP = np.packbits(KEEP_BITS, axis=-1, bitorder="little")          # (B, N1, S1, S2 // 8) uint8


def dropout_reference(q, k, v, scale, kept, keep_prob, discard=None):
    """`reference` with the softmax probabilities multiplied by kept / keep_prob before @ v."""
    g = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    s = np.einsum("bnqd,bnkd->bnqk", q.astype(np.float64), k) * scale
    if discard is not None:
        s = np.where(discard, -np.inf, s)
    w = np.exp(s - s.max(-1, keepdims=True))
    w = w / w.sum(-1, keepdims=True) * kept / keep_prob
    return np.einsum("bnqk,bnkd->bnqd", w, v)


def test_drop_mask_bits_are_little_endian_and_one_keeps():
    # byte 0b00000101 = bits 0 and 2 set: only key columns 0 and 2 (and 8 + 0 from byte 1 = 1) are kept
    q = np.zeros((1, 1, 1, D), np.float32)            # equal scores: each probability 1/16
    v = np.zeros((1, 1, S2D, D), np.float32)
    v[0, 0, :, 0] = np.arange(S2D)                      # value row j carries j
    mask = T(np.array([[[[0b00000101, 0b00000001]]]], np.uint8))
    out = ops.flash_attention_score(T(q), T(v), T(v), 1, drop_mask=mask, keep_prob=0.5, input_layout="BNSD")
    np.testing.assert_allclose(out.asnumpy()[0, 0, 0, 0], (0 + 2 + 8) / 16 / 0.5, rtol=1e-6)


@pytest.mark.parametrize("layout", ["BNSD", "BSH"])
def test_drop_mask_equals_the_reference(layout):
    got = ops.flash_attention_score(T(to_layout(Q, layout)), T(to_layout(KD, layout)), T(to_layout(VD, layout)), N1,
                                    drop_mask=T(DROP), keep_prob=0.7, scalar_value=0.4, input_layout=layout)
    want = dropout_reference(Q, KD, VD, 0.4, KEEP_BITS, 0.7)
    np.testing.assert_allclose(got.asnumpy(), to_layout(want, layout), rtol=1e-5, atol=1e-5)


def test_drop_mask_gradients_equal_the_references():
    scale, disc = 0.4, RNG.random((B, 1, S1, S2D)) < 0.2
    disc[..., 0] = False

    def loss(q, k, v):
        out = ops.flash_attention_score(q, k, v, N1, attn_mask=T(disc), drop_mask=T(DROP), keep_prob=0.7,
                                        scalar_value=scale, input_layout="BNSD")
        return (out ** 2).sum()

    def ref(q, k, v):
        g = N1 // N2
        s = jnp.where(disc, -jnp.inf, jnp.einsum("bnqd,bnkd->bnqk", q, jnp.repeat(k, g, 1)) * scale)
        w = jax.nn.softmax(s, -1) * KEEP_BITS / 0.7
        return (jnp.einsum("bnqk,bnkd->bnqd", w, jnp.repeat(v, g, 1)) ** 2).sum()

    value, got = msx.value_and_grad(loss, grad_position=(0, 1, 2))(T(Q), T(KD), T(VD))
    want_value, want = jax.value_and_grad(ref, argnums=(0, 1, 2))(Q, KD, VD)
    np.testing.assert_allclose(value.asnumpy(), float(want_value), rtol=1e-5)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), np.asarray(w), rtol=1e-4, atol=1e-5)


def test_tnd_drop_mask_is_each_sequences_n1_s1_s2_block_in_turn():
    lens_q, lens_k = (3, 5), (4, 4)
    qs = [RNG.standard_normal((1, N1, n, D)).astype(np.float32) for n in lens_q]
    ks = [RNG.standard_normal((1, N2, n, D)).astype(np.float32) for n in lens_k]
    vs = [RNG.standard_normal((1, N2, n, D)).astype(np.float32) for n in lens_k]
    kept = [RNG.random((1, N1, a, b)) < 0.6 for a, b in zip(lens_q, lens_k)]
    bits = np.packbits(np.concatenate([m.reshape(-1) for m in kept]), bitorder="little")   # (qk_pointer*N1//8,)
    got = ops.flash_attention_score(T(tnd(qs)), T(tnd(ks)), T(tnd(vs)), N1, input_layout="TND", keep_prob=0.6,
                                    drop_mask=T(bits), actual_seq_qlen=(3, 8), actual_seq_kvlen=(4, 8))
    want = [dropout_reference(q, k, v, 1.0, m, 0.6) for q, k, v, m in zip(qs, ks, vs, kept)]
    np.testing.assert_allclose(got.asnumpy(), tnd(want), rtol=1e-5, atol=1e-5)


def drawn(seed, mode=None):
    """flash_attention_score with keep_prob 0.5 and no drop_mask, eagerly or under msx.jit(capture_mode=mode)."""
    def fn(q, k, v):
        return ops.flash_attention_score(q, k, v, N1, keep_prob=0.5, input_layout="BNSD")
    msx.set_seed(seed)
    run = fn if mode is None else msx.jit(fn, capture_mode=mode)
    return [run(T(Q), T(KD), T(VD)).asnumpy() for _ in range(2)]


@pytest.mark.parametrize("mode", [None, "ast", "bytecode", "trace"])
def test_drawn_dropout_is_seeded_and_reproducible(mode):
    a, b = drawn(4, mode)
    c, _ = drawn(4, mode)
    np.testing.assert_array_equal(a, c)                 # set_seed repeats the draw
    np.testing.assert_array_equal(a, drawn(4)[0])       # and a compiled call draws what the eager one does
    assert not np.allclose(a, b)                        # the state moves on between calls
    plain = reference(Q, KD, VD, 1.0)
    assert not np.allclose(a, plain, atol=1e-3)


def test_drawn_dropout_keeps_the_expected_share_and_flows_gradients():
    ones = np.ones((1, 1, 4, 64), np.float32)           # equal scores: each weight 1/64, kept ones scaled by 2
    k, v = np.ones((1, 1, 64, 64), np.float32), np.ones((1, 1, 64, 64), np.float32)
    msx.set_seed(1)
    out = ops.flash_attention_score(T(ones), T(k), T(v), 1, keep_prob=0.5, input_layout="BNSD").asnumpy()
    assert abs(out.mean() - 1.0) < 0.25
    msx.set_seed(1)
    _, g = msx.value_and_grad(lambda t: ops.flash_attention_score(t, T(KD), T(VD), N1, keep_prob=0.5,
                                                                  input_layout="BNSD").sum())(T(Q))
    assert g.shape == Q.shape and np.isfinite(g.asnumpy()).all() and np.abs(g.asnumpy()).sum() > 0


def test_class_form_applies_the_drop_mask_and_prefix():
    _, _, _, out = ops.FlashAttentionScore(N1, keep_prob=0.7, scale_value=0.4, input_layout="BNSD")(
        T(Q), T(KD), T(VD), drop_mask=T(DROP))
    np.testing.assert_allclose(out.asnumpy(), dropout_reference(Q, KD, VD, 0.4, KEEP_BITS, 0.7), rtol=1e-5, atol=1e-5)
    top, _, _, out = ops.FlashAttentionScore(N1, input_layout="BNSD", sparse_mode=5)(T(Q), T(K), T(V), prefix=(3, 7))
    disc = prefix_discard(S1, S2, (3, 7))
    np.testing.assert_allclose(out.asnumpy(), reference(Q, K, V, 1.0, disc), rtol=1e-5, atol=1e-5)
    s = np.where(disc, -np.inf, np.einsum("bnqd,bnkd->bnqk", Q, np.repeat(K, N1 // N2, 1)))
    np.testing.assert_allclose(top.asnumpy()[..., 0], s.max(-1), rtol=1e-5, atol=1e-5)


def test_dropout_refusals_name_the_shapes():
    with pytest.raises(OpError, match=r"drop_mask must be None when keep_prob is 1.0"):
        ops.flash_attention_score(T(Q), T(KD), T(VD), N1, drop_mask=T(DROP), input_layout="BNSD")
    with pytest.raises(OpError, match=r"flash_attention_score: drop_mask .* \(2, 4, 5, 2\).* got shape \(2, 4, 5, 1\)"):
        ops.flash_attention_score(T(Q), T(KD), T(VD), N1, drop_mask=T(DROP[..., :1]), keep_prob=0.5,
                                  input_layout="BNSD")
    with pytest.raises(OpError, match="uint8"):
        ops.flash_attention_score(T(Q), T(KD), T(VD), N1, drop_mask=T(DROP.astype(np.int32)), keep_prob=0.5,
                                  input_layout="BNSD")
    with pytest.raises(OpError, match="multiple of 8"):
        ops.flash_attention_score(T(Q), T(K), T(V), N1, drop_mask=T(DROP), keep_prob=0.5, input_layout="BNSD")


# ---------------------------------------------------------------- sparse_mode 5 (prefix)
def prefix_discard(s1, s2, prefix):
    """The dense (B, 1, S1, S2) discard mask of MindSpore's prefix mode, from its definition: causal from the
    bottom right, plus the first prefix[b] key columns for every query row."""
    out = np.empty((len(prefix), 1, s1, s2), bool)
    for b, n in enumerate(prefix):
        for i in range(s1):
            for j in range(s2):
                out[b, 0, i, j] = not (j < n or j - i <= s2 - s1)
    return out


@pytest.mark.parametrize("prefix", [(3, 7), (2, 5)])
def test_prefix_mode_equals_the_dense_mask(prefix):
    got = ops.flash_attention_score(T(Q), T(K), T(V), N1, input_layout="BNSD", sparse_mode=5, prefix=list(prefix),
                                    scalar_value=0.5)
    np.testing.assert_allclose(got.asnumpy(), reference(Q, K, V, 0.5, prefix_discard(S1, S2, prefix)),
                               rtol=1e-5, atol=1e-5)


def test_prefix_mode_with_s1_above_s2_and_an_attn_mask():
    q = RNG.standard_normal((B, N1, 6, D)).astype(np.float32)
    k, v = K[:, :, :4], V[:, :, :4]
    disc = RNG.random((B, N1, 6, 4)) < 0.3
    disc[..., 0] = False
    want = reference(q, k, v, 1.0, prefix_discard(6, 4, (2, 1)) | disc)   # prefix >= 1: no row fully masked
    got = ops.flash_attention_score(T(q), T(k), T(v), N1, attn_mask=T(disc), input_layout="BNSD", sparse_mode=5,
                                    prefix=T(np.array([2, 1], np.int64)), pre_tokens=0, next_tokens=0)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["ast", "trace"])
def test_prefix_mode_under_jit_equals_eager(mode):
    def fn(q, k, v):
        return ops.flash_attention_score(q, k, v, N1, input_layout="BNSD", sparse_mode=5, prefix=(3, 7))
    want = fn(T(Q), T(K), T(V)).asnumpy()
    step = msx.jit(fn, capture_mode=mode)
    for _ in range(2):
        np.testing.assert_allclose(step(T(Q), T(K), T(V)).asnumpy(), want, rtol=1e-6, atol=1e-6)


def test_prefix_refusals():
    with pytest.raises(OpError, match=r"prefix values must lie in \[2, 7\]"):
        ops.flash_attention_score(T(Q), T(K), T(V), N1, input_layout="BNSD", sparse_mode=5, prefix=(1, 7))
    with pytest.raises(OpError, match="one int per batch"):
        ops.flash_attention_score(T(Q), T(K), T(V), N1, input_layout="BNSD", sparse_mode=5, prefix=(3,))
    with pytest.raises(OpError, match=r"sparse_mode=5 attn_mask must be \(B, N1, S1, S2\)"):
        ops.flash_attention_score(T(Q), T(K), T(V), N1, attn_mask=T(MASK[0, 0]), input_layout="BNSD",
                                  sparse_mode=5, prefix=(3, 7))
    with pytest.warns(UserWarning, match="prefix takes effect only with sparse_mode=5"):
        ops.flash_attention_score(T(Q), T(K), T(V), N1, input_layout="BNSD", prefix=(3, 7))


# ---------------------------------------------------------------- speed_fusion_attention
SFA = ops.speed_fusion_attention


def test_speed_fusion_pse_types_and_outputs():
    pse = RNG.standard_normal((1, N1, S1, S2)).astype(np.float32)
    out = SFA(T(Q), T(K), T(V), N1, "BNSD", pse=T(pse), atten_mask=T(MASK), scale=0.5)   # pse_type=1
    assert len(out) == 7
    np.testing.assert_allclose(out[0].asnumpy(), reference(Q, K, V, 0.5, MASK, 0.5 * pse), rtol=1e-5, atol=1e-5)
    top, total, _, want = ops.FlashAttentionScore(N1, scale_value=0.5, input_layout="BNSD")(
        T(Q), T(K), T(V), real_shift=T(0.5 * pse), attn_mask=T(MASK))
    np.testing.assert_allclose(out[1].asnumpy(), top.asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(out[2].asnumpy(), total.asnumpy(), rtol=1e-5)
    assert [int(t.asnumpy()) for t in out[4:]] == [0, 0, B * N1 * S1 * S2]
    assert all(str(t.dtype) == "Int64" for t in out[4:])
    zero = SFA(T(Q), T(K), T(V), N1, "BNSD", pse=T(pse), scale=0.5, pse_type=0)[0]
    np.testing.assert_allclose(zero.asnumpy(), reference(Q, K, V, 0.5, None, pse), rtol=1e-5, atol=1e-5)


def test_speed_fusion_dropout_seed_and_refusals():
    msx.set_seed(2)
    a = SFA(T(Q), T(KD), T(VD), N1, "BNSD", keep_prob=0.5)
    msx.set_seed(2)
    b = SFA(T(Q), T(KD), T(VD), N1, "BNSD", keep_prob=0.5)
    np.testing.assert_array_equal(a[0].asnumpy(), b[0].asnumpy())
    assert (int(a[4].asnumpy()), int(a[5].asnumpy())) == (int(b[4].asnumpy()), int(b[5].asnumpy())) != (0, 0)
    with pytest.raises(OpError, match="speed_fusion_attention: sparse_mode=7"):
        SFA(T(Q), T(K), T(V), N1, "BNSD", sparse_mode=7)


@pytest.mark.parametrize("mode", ["ast", "trace"])
def test_speed_fusion_under_jit_equals_eager(mode):
    def fn(q, k, v):
        return SFA(q, k, v, N1, "BSH", scale=0.3, sparse_mode=3)[0]
    args = [T(to_layout(x, "BSH")) for x in (Q, K, V)]
    want = fn(*args).asnumpy()
    np.testing.assert_allclose(want, to_layout(reference(Q, K, V, 0.3, band(S1, S2, S2 - S1, INF, 0)), "BSH"),
                               rtol=1e-5, atol=1e-5)
    step = msx.jit(fn, capture_mode=mode)
    for _ in range(2):
        np.testing.assert_allclose(step(*args).asnumpy(), want, rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------- speed_fusion_attention's ALiBi (pse_type 2/3)
# The documented rule (MindSpore 2.10's docstring: slopes float32 (N1,) or (B, N1), "alibi matrix 0 line aligned
# with the upper left corner of QK^T", q/kv_start_idx shifting it; Ascend's kernel, ops-transformer pse.h:
# (column - row) + kvStartIdx - qStartIdx, Abs, Sqrt for type 3, times -slope, added after the scale), written
# out element by element.
SLOPES_N = np.array([0.5, 0.25, 0.125, 0.0625], np.float32)
SLOPES_BN = RNG.uniform(0.05, 1.0, (B, N1)).astype(np.float32)


def alibi_reference(slopes, s1, s2, q_start=0, kv_start=0, use_sqrt=False):
    """(B|1, N1, S1, S2) float64: bias[b, n, i, j] = -slope[b, n] * |(j + kv_start) - (i + q_start)| (** 0.5)."""
    sl = np.asarray(slopes, np.float64).reshape(-1, slopes.shape[-1])
    out = np.zeros(sl.shape + (s1, s2))
    for b in range(sl.shape[0]):
        for n in range(sl.shape[1]):
            for i in range(s1):
                for j in range(s2):
                    dist = abs((j + kv_start) - (i + q_start))
                    out[b, n, i, j] = -sl[b, n] * (dist ** 0.5 if use_sqrt else dist)
    return out


@pytest.mark.parametrize("pse_type", [2, 3])
@pytest.mark.parametrize("slopes", [SLOPES_N, SLOPES_BN], ids=["N", "BN"])
@pytest.mark.parametrize("starts", [(None, None), ([2], None), (None, [3]), ([-1], [4])])
def test_alibi_equals_the_reference_and_the_explicit_bias(pse_type, slopes, starts):
    q0, k0 = starts
    bias = alibi_reference(slopes, S1, S2, (q0 or [0])[0], (k0 or [0])[0], pse_type == 3)
    out = SFA(T(Q), T(K), T(V), N1, "BNSD", pse=T(slopes), scale=0.4, pse_type=pse_type, q_start_idx=q0,
              kv_start_idx=k0)
    np.testing.assert_allclose(out[0].asnumpy(), reference(Q, K, V, 0.4, None, bias), rtol=1e-5, atol=1e-5)
    explicit = SFA(T(Q), T(K), T(V), N1, "BNSD", pse=T(bias.astype(np.float32)), scale=0.4, pse_type=0)
    for got, want in zip(out[:3], explicit[:3]):     # attention_out, softmax_max, softmax_sum
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-5)


def test_alibi_with_gqa_layout_masks_and_dropout():
    """BSH with GQA and the bottom-right causal mode, and dropout: the generated bias is the explicit one."""
    bias = alibi_reference(SLOPES_BN, S1, S2, 1, 0).astype(np.float32)
    args = [T(to_layout(x, "BSH")) for x in (Q, K, V)]
    got = SFA(*args, N1, "BSH", pse=T(SLOPES_BN), scale=0.3, sparse_mode=3, pse_type=2, q_start_idx=[1])[0]
    want = reference(Q, K, V, 0.3, band(S1, S2, S2 - S1, INF, 0), bias)
    np.testing.assert_allclose(got.asnumpy(), to_layout(want, "BSH"), rtol=1e-5, atol=1e-5)
    msx.set_seed(5)
    drop = SFA(T(Q), T(KD), T(VD), N1, "BNSD", pse=T(SLOPES_N), keep_prob=0.6, pse_type=3)
    msx.set_seed(5)
    bias8 = alibi_reference(SLOPES_N, S1, KD.shape[2], use_sqrt=True).astype(np.float32)
    same = SFA(T(Q), T(KD), T(VD), N1, "BNSD", pse=T(bias8), keep_prob=0.6, pse_type=0)
    np.testing.assert_allclose(drop[0].asnumpy(), same[0].asnumpy(), rtol=1e-5, atol=1e-5)


def test_alibi_tnd_counts_positions_within_each_sequence():
    qs, ks, vs = _packed_sequences()
    got = SFA(T(tnd(qs)), T(tnd(ks)), T(tnd(vs)), N1, "TND", pse=T(SLOPES_BN), scale=0.5, sparse_mode=3,
              actual_seq_qlen=(3, 8), actual_seq_kvlen=(4, 10), pse_type=2, kv_start_idx=[1])[0]
    want = [reference(q, k, v, 0.5, band(q.shape[2], k.shape[2], k.shape[2] - q.shape[2], INF, 0),
                      alibi_reference(SLOPES_BN[b:b + 1], q.shape[2], k.shape[2], 0, 1))
            for b, (q, k, v) in enumerate(zip(qs, ks, vs))]
    np.testing.assert_allclose(got.asnumpy(), tnd(want), rtol=1e-5, atol=1e-5)


def test_alibi_gradients_equal_the_explicit_bias():
    bias = alibi_reference(SLOPES_N, S1, S2, 0, 2, True).astype(np.float32)

    def loss(q, k, v, pse, pse_type, kv0):
        return (SFA(q, k, v, N1, "BNSD", pse=pse, scale=0.4, pse_type=pse_type, kv_start_idx=kv0)[0] ** 2).sum()

    got = msx.grad(lambda q, k, v: loss(q, k, v, T(SLOPES_N), 3, [2]), grad_position=(0, 1, 2))(T(Q), T(K), T(V))
    want = msx.grad(lambda q, k, v: loss(q, k, v, T(bias), 0, None), grad_position=(0, 1, 2))(T(Q), T(K), T(V))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["ast", "trace"])
def test_alibi_under_jit_equals_eager(mode):
    def fn(q, k, v, slopes):
        return SFA(q, k, v, N1, "BNSD", pse=slopes, scale=0.3, pse_type=2, q_start_idx=[1], kv_start_idx=[2])[0]
    args = (T(Q), T(K), T(V), T(SLOPES_BN))
    want = fn(*args).asnumpy()
    np.testing.assert_allclose(want, reference(Q, K, V, 0.3, None, alibi_reference(SLOPES_BN, S1, S2, 1, 2)),
                               rtol=1e-5, atol=1e-5)
    step = msx.jit(fn, capture_mode=mode)
    for _ in range(2):
        np.testing.assert_allclose(step(*args).asnumpy(), want, rtol=1e-6, atol=1e-6)


def test_alibi_refusals_name_the_op_and_the_value():
    with pytest.raises(OpTypeError, match="speed_fusion_attention: with pse_type=2 pse .* must be float32"):
        SFA(T(Q), T(K), T(V), N1, "BNSD", pse=T(SLOPES_N.astype(np.float16)), pse_type=2)
    with pytest.raises(OpError, match=r"speed_fusion_attention: .*\(N1,\) = \(4,\) or \(B, N1\) = \(2, 4\), "
                                      r"got shape \(4, 1\)"):
        SFA(T(Q), T(K), T(V), N1, "BNSD", pse=T(SLOPES_N[:, None]), pse_type=3)
    msx.set_seed(3)
    with pytest.raises(OpError, match=r"got shape \(3, 4\)"):     # refused before the dropout key is drawn
        SFA(T(Q), T(K), T(V), N1, "BNSD", pse=T(np.ones((3, N1), np.float32)), pse_type=2, keep_prob=0.5)
    after = SFA(T(Q), T(KD), T(VD), N1, "BNSD", keep_prob=0.5)[0].asnumpy()
    msx.set_seed(3)
    np.testing.assert_array_equal(after, SFA(T(Q), T(KD), T(VD), N1, "BNSD", keep_prob=0.5)[0].asnumpy())
    for bad in (1, [1, 2], [1.5], "1"):
        with pytest.raises(OpTypeError, match="speed_fusion_attention: q_start_idx must be a tuple or list of one"):
            SFA(T(Q), T(K), T(V), N1, "BNSD", pse=T(SLOPES_N), pse_type=2, q_start_idx=bad)
    np.testing.assert_allclose(SFA(T(Q), T(K), T(V), N1, "BNSD", pse_type=3)[0].asnumpy(),   # no slopes: no bias
                               reference(Q, K, V, 1.0), rtol=1e-5, atol=1e-5)
    with pytest.warns(UserWarning, match="kv_start_idx=\\[1\\] is not honoured.*pse_type 2/3"):
        SFA(T(Q), T(K), T(V), N1, "BNSD", kv_start_idx=[1])
