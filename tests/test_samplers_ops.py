"""The random ops of the `samplers` round (msx/ops/candidate_sampler_ops.py, random_param_ops.py) and
nn.SampledSoftmaxLoss (msx/nn/loss/sampled_softmax.py).

Random numbers cannot equal MindSpore's (another generator), so these check shapes, dtypes, supports, the
distributions (sample statistics against numpy/scipy), that `set_seed` replays a draw eagerly and under
msx.jit, that threads never share a draw, and every deterministic part against MindSpore 2.10: the expected
counts MindSpore's samplers gave for their own candidates (tests/golden_samplers/record.py) and the sampled
softmax loss with fixed sampled_values. ComputeAccidentalHits and Poisson have no MindSpore CPU kernel: their
documented rules are checked with numpy."""
from __future__ import annotations

import os
import threading
import warnings

import numpy as np
import pytest
import scipy.stats

import msx
from msx import Tensor, nn, ops
from msx.errors import OpError, OpTypeError
from msx.ops import candidate_sampler_ops as C
from msx.ops import functional as F

GOLDEN = np.load(os.path.join(os.path.dirname(__file__), "golden_samplers", "samplers.npz"), allow_pickle=False)
TRUE = np.array([[1, 7], [0, 4], [3, 3]], np.int64)


def _np(outs):
    return [o.asnumpy() for o in outs]


# ---------------------------------------------------------------- candidate samplers
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_uniform_sampler_shapes_dtypes_and_support(dtype):
    msx.set_seed(0)
    s, tc, sc = ops.UniformCandidateSampler(2, 5, True, 9)(Tensor(TRUE.astype(dtype)))
    assert (s.shape, tc.shape, sc.shape) == ((5,), (3, 2), (5,))
    assert (s.dtype, tc.dtype, sc.dtype) == (msx.int32 if dtype == np.int32 else msx.int64, msx.float32, msx.float32)
    s = s.asnumpy()
    assert len(set(s.tolist())) == 5 and s.min() >= 0 and s.max() < 9


def test_log_uniform_sampler_shapes_dtypes_and_int64_only():
    msx.set_seed(0)
    s, tc, sc = ops.log_uniform_candidate_sampler(Tensor(TRUE), 2, 4, True, 6)
    assert (s.shape, s.dtype, tc.shape, tc.dtype, sc.dtype) == ((4,), msx.int64, (3, 2), msx.float32, msx.float32)
    assert len(set(s.asnumpy().tolist())) == 4
    with pytest.raises(OpTypeError, match="LogUniformCandidateSampler: true_classes must be int64"):
        ops.LogUniformCandidateSampler(2, 4, True, 6)(Tensor(TRUE.astype(np.int32)))


def test_expected_counts_rule_reproduces_mindspores_counts():
    """MindSpore's own candidates and counts (tests/golden_samplers): msx's rule gives the same counts."""
    for key, (rmax, n, unique) in {"log_uniform_unique": (9, 5, True), "log_uniform_replace": (12, 6, False)}.items():
        sampled, true_count, sampled_count = (GOLDEN[f"sampler_{key}_{i}"] for i in range(3))
        p = np.asarray(C._log_uniform_p(sampled, rmax))
        tries = n
        if unique:  # solve MindSpore's number of draws from one count, then every count must follow from it
            tries = int(round(np.log1p(-sampled_count[0]) / np.log1p(-p[0])))
        got = np.asarray(C._expected(p, n, tries))
        np.testing.assert_allclose(got, sampled_count, rtol=2e-6)
        got_true = np.asarray(C._expected(np.asarray(C._log_uniform_p(TRUE, rmax)), n, tries))
        np.testing.assert_allclose(got_true, true_count, rtol=2e-6)
        assert GOLDEN[f"sampler_{key}_0"].dtype == np.int64 and true_count.dtype == np.float32
    for key in ("uniform_unique", "uniform_replace"):
        assert GOLDEN[f"sampler_{key}_0"].dtype == np.int64
        np.testing.assert_allclose(GOLDEN[f"sampler_{key}_2"], np.float32(6 / 9))  # no rejection: n * p


def test_unique_counts_follow_the_number_of_draws():
    msx.set_seed(4)
    for _ in range(5):
        s, tc, sc = _np(ops.uniform_candidate_sampler(Tensor(TRUE), 2, 7, True, 8))
        p = 1 / 8
        candidates = [7 * p] + [-np.expm1(t * np.log1p(-p)) for t in range(8, 400)]
        assert np.min(np.abs(np.asarray(candidates) - sc[0])) < 1e-6
        assert (tc == sc[0]).all() and (sc == sc[0]).all()


def test_uniform_draws_are_uniform_and_log_uniform_draws_follow_their_law():
    msx.set_seed(1)
    s = ops.uniform_candidate_sampler(Tensor(TRUE), 2, 4000, False, 5)[0].asnumpy()
    assert scipy.stats.chisquare(np.bincount(s, minlength=5)).pvalue > 1e-3
    s = ops.log_uniform_candidate_sampler(Tensor(TRUE), 2, 4000, False, 6)[0].asnumpy()
    k = np.arange(6)
    p = np.log((k + 2) / (k + 1)) / np.log(7)
    assert scipy.stats.chisquare(np.bincount(s, minlength=6), 4000 * p).pvalue > 1e-3


def test_remove_accidental_hits_avoids_the_true_classes_unless_the_range_is_too_small():
    msx.set_seed(2)
    labels = Tensor(np.array([[0], [2], [5]], np.int64))
    for _ in range(10):
        s = ops.uniform_candidate_sampler(labels, 1, 5, True, 8, remove_accidental_hits=True)[0].asnumpy()
        assert not set(s.tolist()) & {0, 2, 5}
    # 6 sampled + 3 distinct labels > 8 classes: MindSpore's kernel samples without the rule
    s = ops.uniform_candidate_sampler(labels, 1, 6, True, 8, remove_accidental_hits=True)[0].asnumpy()
    assert len(set(s.tolist())) == 6 and set(s.tolist()) & {0, 2, 5}
    hits = 0
    for _ in range(10):
        s = ops.uniform_candidate_sampler(labels, 1, 5, True, 8)[0].asnumpy()
        hits += bool(set(s.tolist()) & {0, 2, 5})
    assert hits > 0


def test_set_seed_replays_eagerly_and_under_jit():
    f = msx.jit(lambda t: ops.uniform_candidate_sampler(t, 2, 5, True, 50, 0, True))
    runs = []
    for fn in (lambda t: ops.uniform_candidate_sampler(t, 2, 5, True, 50, 0, True), f, f):
        msx.set_seed(11)
        runs.append([_np(fn(Tensor(TRUE))) for _ in range(2)])
    for a, b in zip(runs[1], runs[2]):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    assert not np.array_equal(runs[0][0][0], runs[0][1][0])  # successive calls draw afresh
    assert not set(runs[1][0][0].tolist()) & set(TRUE.reshape(-1).tolist())


def test_threads_never_share_a_draw():
    msx.set_seed(5)
    got, lock = [], threading.Lock()

    def work():
        for _ in range(3):
            s = ops.uniform_candidate_sampler(Tensor(TRUE), 2, 64, False, 1 << 30)[0].asnumpy()
            with lock:
                got.append(tuple(s.tolist()))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 12 and len(set(got)) == 12


def test_sampler_arguments_are_checked_by_name():
    with pytest.raises(OpError, match="UniformCandidateSampler: with unique=True, num_sampled"):
        ops.uniform_candidate_sampler(Tensor(TRUE), 2, 10, True, 9)
    with pytest.raises(OpError, match=r"true_classes must have shape \(batch_size, num_true=1\)"):
        ops.UniformCandidateSampler(1, 3, False, 9)(Tensor(TRUE))
    with pytest.raises(OpTypeError, match="true_classes must be int32 or int64"):
        ops.uniform_candidate_sampler(Tensor(TRUE.astype(np.float32)), 2, 3, False, 9)
    with pytest.raises(OpError, match="range_max must be greater than 0"):
        ops.uniform_candidate_sampler(Tensor(TRUE), 2, 3, False, 0)
    with pytest.warns(UserWarning, match="seed=3 is not honoured"):
        ops.LogUniformCandidateSampler(2, 3, True, 9, seed=3)(Tensor(TRUE))


def _hits_numpy(true, sampled):
    pos = {int(c): j for j, c in enumerate(sampled)}
    hits = [(i, pos[int(c)]) for i, row in enumerate(true) for c in row if int(c) in pos]
    return np.array([h[0] for h in hits], np.int32), np.array([h[1] for h in hits], np.int64)


def test_compute_accidental_hits_documented_example_and_numpy_rule():
    idx, ids, w = ops.ComputeAccidentalHits(2)(Tensor(np.array([[1, 2], [0, 4], [3, 3]])),
                                               Tensor(np.arange(5, dtype=np.int64)))
    np.testing.assert_array_equal(idx.asnumpy(), [0, 0, 1, 1, 2, 2])
    np.testing.assert_array_equal(ids.asnumpy(), [1, 2, 0, 4, 3, 3])
    assert (idx.dtype, ids.dtype, w.dtype) == (msx.int32, msx.int64, msx.float32)
    np.testing.assert_array_equal(w.asnumpy(), np.full(6, -np.finfo(np.float32).max, np.float32))
    rng = np.random.default_rng(0)
    true, sampled = rng.integers(0, 6, (5, 3)), rng.integers(0, 6, (4,))  # a repeated candidate: its last place
    idx, ids, _ = ops.ComputeAccidentalHits(3)(Tensor(true), Tensor(sampled))
    want = _hits_numpy(true, sampled)
    np.testing.assert_array_equal(idx.asnumpy(), want[0])
    np.testing.assert_array_equal(ids.asnumpy(), want[1])


def test_compute_accidental_hits_is_eager_only_and_checks_inputs():
    f = msx.jit(lambda a, b: ops.ComputeAccidentalHits(2)(a, b))
    with pytest.raises(OpError, match="ComputeAccidentalHits: the result's shape depends on the input values"):
        f(Tensor(TRUE), Tensor(np.arange(5, dtype=np.int64)))
    with pytest.raises(OpError, match="one dtype"):
        ops.ComputeAccidentalHits(2)(Tensor(TRUE), Tensor(np.arange(5, dtype=np.int32)))


# ---------------------------------------------------------------- parameterised random ops
def test_parameterized_truncated_normal_per_batch_moments_and_bounds():
    msx.set_seed(0)
    mean, std = np.array([0.0, 10.0]), np.array([1.0, 2.0])
    lo, hi = np.array([-0.5, 9.0]), np.array([1.5, 20.0])
    op = ops.ParameterizedTruncatedNormal()
    out = op(Tensor(np.array([2, 3000]), msx.int64), *(Tensor(v) for v in (mean, std, lo, hi)))
    assert out.shape == (2, 3000) and out.dtype == msx.float64
    x = out.asnumpy()
    for b in range(2):
        assert lo[b] <= x[b].min() and x[b].max() <= hi[b]
        dist = scipy.stats.truncnorm((lo[b] - mean[b]) / std[b], (hi[b] - mean[b]) / std[b], mean[b], std[b])
        assert abs(x[b].mean() - dist.mean()) < 4 * dist.std() / np.sqrt(3000)
        assert scipy.stats.kstest(x[b], dist.cdf).pvalue > 1e-3


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_parameterized_truncated_normal_scalar_params_and_dtype(dtype):
    msx.set_seed(3)
    p = [Tensor(np.array(v, dtype)) for v in (0.0, 1.0, 0.0, 3.0)]
    out = ops.ParameterizedTruncatedNormal()(Tensor(np.array([2, 2, 50]), msx.int32), *p)
    assert out.shape == (2, 2, 50) and out.asnumpy().dtype == dtype
    assert out.asnumpy().min() >= 0 and out.asnumpy().max() <= 3


def test_parameterized_truncated_normal_errors_and_jit():
    op = ops.ParameterizedTruncatedNormal()
    p = [Tensor(np.array([v], np.float32)) for v in (0.0, 1.0, -1.0, 1.0)]
    shape = Tensor(np.array([1, 4]), msx.int32)
    with pytest.raises(OpError, match="stdevs must be greater than 0"):
        op(shape, p[0], Tensor(np.array([0.0], np.float32)), p[2], p[3])
    with pytest.raises(OpError, match="min must be less than max"):
        op(shape, p[0], p[1], p[3], p[2])
    with pytest.raises(OpError, match="at least 2 elements"):
        op(Tensor(np.array([4]), msx.int32), *p)
    with pytest.raises(OpError, match=r"shape \(\) or \(batch_size=1,\)"):
        op(shape, Tensor(np.zeros(3, np.float32)), *p[1:])
    with pytest.raises(OpError, match="ParameterizedTruncatedNormal: the result's shape depends"):
        msx.jit(lambda s, *q: op(s, *q))(shape, *p)
    f = msx.jit(lambda *q: op(Tensor(np.array([1, 4]), msx.int32), *q))
    msx.set_seed(9)
    a = f(*p).asnumpy()
    msx.set_seed(9)
    np.testing.assert_array_equal(f(*p).asnumpy(), a)
    assert a.shape == (1, 4) and (np.abs(a) <= 1).all()


def test_poisson_class_broadcasts_and_matches_the_mean():
    msx.set_seed(0)
    out = ops.Poisson(seed=0)((2000, 1), Tensor(np.array([5.0, 10.0], np.float32)))
    assert out.shape == (2000, 2) and out.dtype == msx.int32
    np.testing.assert_allclose(out.asnumpy().mean(0), [5.0, 10.0], rtol=0.05)
    with pytest.raises(OpTypeError, match="Poisson: mean must be a float32 Tensor"):
        ops.Poisson()((2,), Tensor(np.array([1.0])))
    with pytest.raises(OpTypeError, match="Poisson: shape must be a tuple"):
        ops.Poisson()([2], Tensor(np.array([1.0], np.float32)))


@pytest.mark.parametrize("dtype,bits", [(msx.int32, 32), (msx.int64, 64)])
def test_non_deterministic_ints_span_the_whole_range(dtype, bits):
    msx.set_seed(0)
    out = ops.NonDeterministicInts(dtype)(Tensor(np.array([40, 50]), msx.int64))
    assert out.shape == (40, 50) and out.dtype == dtype
    x = out.asnumpy().astype(np.float64) / 2.0 ** (bits - 1)  # uniform on [-1, 1)
    assert scipy.stats.kstest(x.reshape(-1), scipy.stats.uniform(-1, 2).cdf).pvalue > 1e-3
    with pytest.raises(OpError, match="at least 2 elements"):
        ops.NonDeterministicInts()(Tensor(np.array([5]), msx.int64))
    with pytest.raises(OpTypeError, match="dtype must be int32 or int64"):
        ops.NonDeterministicInts(msx.float32)(Tensor(np.array([2, 2]), msx.int64))


def test_rrelu_slopes_gradient_and_errors():
    msx.set_seed(0)
    x = np.linspace(-3, 3, 600).astype(np.float32).reshape(20, 30)
    x[x == 0] = 1.0
    out = ops.rrelu(Tensor(x), 0.1, 0.4).asnumpy()
    np.testing.assert_array_equal(out[x > 0], x[x > 0])
    slope = out[x < 0] / x[x < 0]
    assert slope.min() >= 0.1 and slope.max() <= 0.4 and abs(slope.mean() - 0.25) < 0.02
    msx.set_seed(1)
    g = msx.grad(lambda t: ops.rrelu(t).sum())(Tensor(x)).asnumpy()
    msx.set_seed(1)
    out = ops.rrelu(Tensor(x)).asnumpy()
    np.testing.assert_allclose(g, out / x, rtol=1e-6)
    assert ops.rrelu(Tensor(x.astype(np.float16))).dtype == msx.float16
    with pytest.raises(OpError, match="rrelu: upper must be greater than or equal to lower"):
        ops.rrelu(Tensor(x), 0.5, 0.1)
    with pytest.raises(OpTypeError, match="rrelu: input must be float16 or float32"):
        ops.rrelu(Tensor(np.array([1, -1])))


def test_gumbel_softmax_distribution_hard_one_hot_and_straight_through_gradient():
    logits = np.log(np.array([[0.1, 0.2, 0.7]], np.float32))
    msx.set_seed(0)
    many = Tensor(np.repeat(logits, 3000, axis=0))
    soft = ops.gumbel_softmax(many).asnumpy()
    np.testing.assert_allclose(soft.sum(-1), 1.0, rtol=1e-5)
    freq = np.bincount(soft.argmax(-1), minlength=3) / 3000
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.03)
    hard = ops.gumbel_softmax(many, 0.5, True).asnumpy()
    assert set(np.unique(hard).tolist()) == {0.0, 1.0} and (hard.sum(-1) == 1).all()
    w = Tensor(np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32))
    x = Tensor(np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32))
    grads = []
    for hard_ in (True, False):
        msx.set_seed(7)
        grads.append(msx.grad(lambda t: (ops.gumbel_softmax(t, 1.0, hard_) * w).sum())(x).asnumpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)
    with pytest.raises(OpTypeError, match="gumbel_softmax: tau must be a float"):
        ops.gumbel_softmax(x, 1)
    with pytest.raises(OpError, match=r"dim must be in \[-1, 2\)"):
        ops.gumbel_softmax(x, 1.0, True, -2)


def test_uniform_ext_bounds_dtype_generator_and_jit():
    msx.set_seed(0)
    t = Tensor(np.zeros((50, 40), np.float16))
    out = F.uniform_ext(t, -2.0, 3.0)
    assert out.shape == (50, 40) and out.dtype == msx.float16
    x = out.asnumpy().astype(np.float64)
    assert x.min() >= -2 and x.max() <= 3 and abs(x.mean() - 0.5) < 0.1
    g = msx.Generator().manual_seed(3)
    first = F.uniform_ext(t, 0, 1, g).asnumpy()
    g.manual_seed(3)
    np.testing.assert_array_equal(F.uniform_ext(t, 0, 1, g).asnumpy(), first)   # the generator's own stream
    with pytest.raises(OpTypeError, match="must not be larger than b"):
        F.uniform_ext(t, 2, 1)
    f = msx.jit(lambda a: F.uniform_ext(a, 0.0, 1.0))
    msx.set_seed(3)
    a = f(t).asnumpy()
    msx.set_seed(3)
    np.testing.assert_array_equal(f(t).asnumpy(), a)


# ---------------------------------------------------------------- nn.SampledSoftmaxLoss
def _ssl_numpy(w, b, labels, x, sampled, true_count, sampled_count):
    """MindSpore's documented computation, in numpy (float64)."""
    labels = labels.reshape(len(x), -1)
    nt = labels.shape[1]
    true_logits = np.einsum("nd,ntd->nt", x, w[labels]) + b[labels] - np.log(true_count)
    sampled_logits = x @ w[sampled].T + b[sampled] - np.log(sampled_count)
    logits = np.concatenate([true_logits, sampled_logits], 1)
    target = np.concatenate([np.full(true_logits.shape, 1 / nt), np.zeros(sampled_logits.shape)], 1)
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    return -(target * np.log(p + 1e-20)).sum(1)


@pytest.mark.parametrize("key", ["one_true", "two_true"])
def test_sampled_softmax_loss_with_fixed_candidates_matches_mindspore_and_numpy(key):
    from golden_samplers.record import SSL, SSL_B, SSL_SAMPLED_COUNT, SSL_TRUE_COUNT, SSL_W, SSL_X

    num_sampled, num_classes, num_true, labels, sampled = SSL[key]
    n = labels.shape[0]
    tc, sc = np.full((n, num_true), SSL_TRUE_COUNT, np.float32), SSL_SAMPLED_COUNT[:num_sampled]
    loss = nn.SampledSoftmaxLoss(num_sampled, num_classes, num_true,
                                 sampled_values=(Tensor(sampled), Tensor(tc), Tensor(sc)))
    args = (Tensor(SSL_W[:num_classes]), Tensor(SSL_B[:num_classes]), Tensor(labels), Tensor(SSL_X))
    got = loss(*args).asnumpy()
    np.testing.assert_allclose(got, GOLDEN[f"ssl_{key}"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, _ssl_numpy(SSL_W[:num_classes].astype(np.float64), SSL_B[:num_classes], labels,
                                               SSL_X.astype(np.float64), sampled, tc, sc), rtol=1e-5)
    np.testing.assert_allclose(msx.jit(loss)(*args).asnumpy(), got, rtol=1e-6)


@pytest.mark.parametrize("remove", [True, False])
def test_sampled_softmax_loss_samples_with_the_uniform_sampler(remove):
    rng = np.random.default_rng(3)
    w, b = rng.standard_normal((10, 4)).astype(np.float32), rng.standard_normal(10).astype(np.float32)
    x, labels = rng.standard_normal((3, 4)).astype(np.float32), np.array([1, 4, 6], np.int64)
    loss = nn.SampledSoftmaxLoss(5, 10, remove_accidental_hits=remove)
    hit = False
    for seed in range(6):
        msx.set_seed(seed)
        got = loss(Tensor(w), Tensor(b), Tensor(labels), Tensor(x)).asnumpy()
        msx.set_seed(seed)  # the same single draw, through the sampler the loss uses
        sampled, tc, sc = _np(loss.sample(Tensor(labels.astype(np.int32).reshape(-1, 1))))
        hit |= bool(set(sampled.tolist()) & {1, 4, 6})
        assert len(set(sampled.tolist())) == 5
        np.testing.assert_allclose(got, _ssl_numpy(w.astype(np.float64), b, labels, x.astype(np.float64), sampled,
                                                   tc, sc), rtol=1e-5, atol=1e-6)
    assert hit is not remove


def test_sampled_softmax_loss_reduction_gradient_and_arguments():
    rng = np.random.default_rng(4)
    args = (Tensor(rng.standard_normal((8, 4)).astype(np.float32)), Tensor(np.zeros(8, np.float32)),
            Tensor(np.array([[1], [2]], np.int32)), Tensor(rng.standard_normal((2, 4)).astype(np.float32)))
    with pytest.warns(UserWarning, match="per-example loss"):
        loss = nn.SampledSoftmaxLoss(3, 8, reduction="mean")
    assert loss(*args).shape == (2,)  # as MindSpore 2.10: construct never reduces
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = nn.SampledSoftmaxLoss(3, 8)
    g = msx.grad(lambda w: loss(w, *args[1:]).sum())(args[0]).asnumpy()
    assert g.shape == (8, 4) and np.isfinite(g).all() and np.abs(g).sum() > 0
    with pytest.raises(ValueError, match="num_sampled \\(9\\) must be smaller than or equal to num_classes"):
        nn.SampledSoftmaxLoss(9, 8)
    with pytest.raises(ValueError, match="sampled_values must hold 3"):
        nn.SampledSoftmaxLoss(3, 8, sampled_values=(1, 2))
    with pytest.raises(OpTypeError, match="labels must be int32 or int64"):
        loss(args[0], args[1], Tensor(np.array([[1.0], [2.0]], np.float32)), args[3])


_X = np.array([[-1.0, 2.0, -0.5], [0.3, -2.0, 1.0]], np.float32)
_JIT_RANDOM = {
    "UniformCandidateSampler": lambda t: ops.UniformCandidateSampler(2, 3, True, 20, 0, True)(Tensor(TRUE)),
    "LogUniformCandidateSampler": lambda t: ops.LogUniformCandidateSampler(2, 3, False, 20)(Tensor(TRUE)),
    "ParameterizedTruncatedNormal": lambda t: ops.ParameterizedTruncatedNormal()(
        Tensor(np.array([2, 3]), msx.int32), t[0, 0], t[0, 1] * 0 + 1, t[0, 0] - 1, t[0, 0] + 1),
    "Poisson": lambda t: ops.Poisson()((4, 2, 3), ops.abs(t) + 1),
    "NonDeterministicInts": lambda t: ops.NonDeterministicInts()(Tensor(np.array([2, 2]), msx.int64)),
    "rrelu": ops.rrelu,
    "gumbel_softmax": lambda t: ops.gumbel_softmax(t, 0.5),
    "uniform_ext": lambda t: F.uniform_ext(t, -1.0, 1.0),
    "SampledSoftmaxLoss": lambda t: nn.SampledSoftmaxLoss(3, 12)(
        ops.tile(t, (6, 1)), ops.tile(t[0, :], (4,)), Tensor(np.array([[1], [4]], np.int32)), t),
}


@pytest.mark.parametrize("name", sorted(_JIT_RANDOM))
def test_random_ops_compile_and_set_seed_replays_them(name):
    """Under msx.jit (no eager fallback: a warning fails the test) one seed gives the same draws twice, the
    same as eagerly, and the next call draws afresh."""
    fn = _JIT_RANDOM[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jitted = msx.jit(fn)
        runs = []
        for f in (fn, jitted, jitted):
            msx.set_seed(21)
            runs.append([np.concatenate([np.ravel(o.asnumpy()).astype(np.float64) for o in
                                         (r if isinstance(r, tuple) else (r,))]) for r in (f(Tensor(_X)), f(Tensor(_X)))])
    for a, b in zip(runs[0], runs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    for a, b in zip(runs[1], runs[2]):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(runs[1][0], runs[1][1])
