"""MindSpore's host random streams for initializers, in vectorised numpy, bit for bit.

MindSpore 2.x fills an initializer's numpy array in C++ (`_random_uniform`, `_random_normal`,
`_truncated_normal` from `mindspore._c_expression`, over `include/common/random.h`): a Philox-4x32-10
generator keyed by one 64-bit seed, read as a flat stream of uint32, and three distributions
evaluated in double precision from float-rounded parameters, the result rounded to float32. The seed
of each fill is `np.random.randint(1, 2**63, dtype=int64)` from numpy's global RandomState, which
`set_seed` seeds. The C++ splits large fills across threads, each skipping ahead in the same stream
to its first element (an even offset), so the values do not depend on the thread count.

Everything here is integer arithmetic or IEEE double arithmetic in the order the C++ does it, so
the float32 results equal MindSpore's exactly (checked against MindSpore 2.10 on 2^20-element
fills: 0 differing elements); the only libm calls (log, sin, cos, sqrt, erfc) are made in double
and rounded to float32, where a last-bit difference between libms would change a float32 value in
about one element in 10^8.
"""
from __future__ import annotations

import concurrent.futures
import math
import os

import numpy as np

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_KEY_STEP0, _KEY_STEP1 = 0x9E3779B9, 0xBB67AE85
_LOW32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)
_CHUNK = 1 << 15  # Philox blocks per pass: six uint64 temporaries of 256 KiB each stay in cache


def numpy_seed() -> int:
    """The seed MindSpore draws for one random fill (`initializer._numpy_seed`): numpy's global stream."""
    return int(np.random.randint(low=1, high=(1 << 63), dtype=np.int64))


class _Philox:
    """MindSpore's `random::Philox(seed)` as blocks of four uint32: key (lo, hi) of the seed, counter
    (block, 0, lo, hi), ten rounds. Words are held in uint64 so the 32x32->64 products are exact, and
    worked in place in cache-sized chunks (this loop is most of an initializer's time). The block index
    stays < 2^32 for any array numpy can hold here, so counter word 1 is 0."""

    def __init__(self, seed: int) -> None:
        seed = int(seed) & 0xFFFFFFFFFFFFFFFF
        self.lo, self.hi = seed & 0xFFFFFFFF, seed >> 32
        self.w = [np.empty(_CHUNK, np.uint64) for _ in range(6)]
        self.out = np.empty((_CHUNK, 4), np.uint32)

    def words(self, first_block: int, blocks: int) -> np.ndarray:
        """The uint32 words of `blocks` (<= _CHUNK) blocks from `first_block`, flat; reused buffer."""
        w0, w1, w2, w3, u0, u1 = (w[:blocks] for w in self.w)
        w0[:] = np.arange(first_block, first_block + blocks, dtype=np.uint64)
        w1.fill(0)
        w2.fill(self.lo)
        w3.fill(self.hi)
        k0, k1 = self.lo, self.hi
        for _ in range(10):
            np.multiply(w0, _M0, out=u0)
            np.multiply(w2, _M1, out=u1)
            # new (w0, w1, w2, w3) = (hi(u1) ^ w1 ^ k0, lo(u1), hi(u0) ^ w3 ^ k1, lo(u0))
            np.right_shift(u1, _SHIFT32, out=w0)
            np.bitwise_xor(w0, w1, out=w0)
            np.bitwise_xor(w0, np.uint64(k0), out=w0)
            np.bitwise_and(u1, _LOW32, out=w1)
            np.right_shift(u0, _SHIFT32, out=w2)
            np.bitwise_xor(w2, w3, out=w2)
            np.bitwise_xor(w2, np.uint64(k1), out=w2)
            np.bitwise_and(u0, _LOW32, out=w3)
            k0, k1 = (k0 + _KEY_STEP0) & 0xFFFFFFFF, (k1 + _KEY_STEP1) & 0xFFFFFFFF
        rows = self.out[:blocks]
        rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3] = w0, w1, w2, w3
        return rows.reshape(-1)


def _fill(seed: int, n: int, fn, out: np.ndarray | None = None) -> np.ndarray:
    """float32[n] where element i comes from stream word i (every distribution here reads one word per
    element; Box-Muller reads pairs, and chunks start at multiples of 4), `fn(words) -> float64`.

    Chunks are independent (each is the stream from its own first word, as MindSpore's threads are), so a
    large fill is shared among threads (numpy releases the GIL in its loops); the values do not depend on
    how many."""
    if out is None:
        out = np.empty(n, np.float32)
    elif out.shape != (n,) or out.dtype != np.float32:
        raise ValueError(f"a random fill of {n} float32 values cannot be written into {out.dtype}{list(out.shape)}")
    firsts = range(0, (n + 3) // 4, _CHUNK)

    def run(part: range) -> None:
        gen = _Philox(seed)
        for first in part:
            start = first * 4
            count = min(_CHUNK * 4, n - start)
            words = gen.words(first, (count + 3) // 4)
            out[start:start + count] = fn(words[:count + (count & 1)])[:count]

    threads = min(_THREADS, len(firsts) // 2)
    if threads < 2:
        run(firsts)
    else:
        list(_pool().map(run, [firsts[i::threads] for i in range(threads)]))  # list(): re-raises errors
    return out


_THREADS = min(os.cpu_count() or 1, 8)
_POOL: dict[int, concurrent.futures.ThreadPoolExecutor] = {}  # by pid: a forked child makes its own


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    pid = os.getpid()
    if pid not in _POOL:
        _POOL.clear()  # a pool inherited through fork has no threads behind it
        _POOL[pid] = concurrent.futures.ThreadPoolExecutor(_THREADS, thread_name_prefix="msx-init")
    return _POOL[pid]


def philox_u32(seed: int, n: int) -> np.ndarray:
    """The first `n` uint32 of MindSpore's `random::Philox(seed)` (for tests and tools)."""
    gen = _Philox(seed)
    return np.concatenate([gen.words(b, min(_CHUNK, (n + 3) // 4 - b)).copy()
                           for b in range(0, (n + 3) // 4, _CHUNK)] or [np.empty(0, np.uint32)])[:n]


def _f(v: float) -> float:
    """A Python float parameter as the C++ sees it: rounded to float32, used in double."""
    return float(np.float32(v))


def uniform(seed: int, n: int, a: float, b: float, out: np.ndarray | None = None) -> np.ndarray:
    """`UniformDistribution<double>(a, b)` over the stream: (b - a) * (u / 2^32) + a."""
    a, b = _f(a), _f(b)
    width = b - a
    # u / 2^32 is exact in double and < 1, so MindSpore's clamp below 1 never fires
    return _fill(seed, n, lambda w: width * (w * (1.0 / 4294967296.0)) + a, out)


def _unit(words: np.ndarray) -> np.ndarray:
    """`NormalDistribution::to_float`: 23 mantissa bits as a float in [0, 1), floored at 1e-7f."""
    f = ((words & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)).view(np.float32) - np.float32(1.0)
    return np.maximum(f, np.float32(1.0e-7)).astype(np.float64)


def normal(seed: int, n: int, mean: float, sigma: float, out: np.ndarray | None = None) -> np.ndarray:
    """Box-Muller over word pairs (u1, u2): mean + r cos(t), then mean + r sin(t), r = sqrt(-2 ln u1) sigma,
    t = 2 pi u2 with MindSpore's pi = 3.1415926f."""
    mean, sigma = _f(mean), _f(sigma)
    two_pi = 2.0 * _f(3.1415926)

    def pairs(words: np.ndarray) -> np.ndarray:
        w = words.reshape(-1, 2)
        r = np.log(_unit(w[:, 0]))
        r *= -2.0
        np.sqrt(r, out=r)
        r *= sigma
        t = _unit(w[:, 1])
        t *= two_pi
        out = np.empty(w.shape, np.float64)
        np.multiply(r, np.cos(t), out=out[:, 0])
        np.multiply(r, np.sin(t), out=out[:, 1])
        out += mean
        return out.reshape(-1)

    return _fill(seed, n, pairs, out)


def _poly(coefs: tuple[float, ...], x: np.ndarray) -> np.ndarray:
    """Horner from the highest coefficient (sum = c[-1]; sum = sum * x + c[i]), as the C++ template unrolls it."""
    acc = x * coefs[-1]
    acc += coefs[-2]
    for c in coefs[-3::-1]:
        acc *= x
        acc += c
    return acc


# boost's erf_inv rational approximations, as MindSpore's TruncatedNormal copies them: (Y, P, Q, offset)
# per range; the Y constants are float literals in the C++, the coefficients doubles.
_ERF_INV_SMALL = (0.0891314744949340820313, (
    -0.000508781949658280665617, -0.00836874819741736770379, 0.0334806625409744615033, -0.0126926147662974029034,
    -0.0365637971411762664006, 0.0219878681111168899165, 0.00822687874676915743155, -0.00538772965071242932965), (
    1.0, -0.970005043303290640362, -1.56574558234175846809, 1.56221558398423026363, 0.662328840472002992063,
    -0.71228902341542847553, -0.0527396382340099713954, 0.0795283687341571680018, -0.00233393759374190016776,
    0.000886216390456424707504))
_ERF_INV_MID = (2.249481201171875, (
    -0.202433508355938759655, 0.105264680699391713268, 8.37050328343119927838, 17.6447298408374015486,
    -18.8510648058714251895, -44.6382324441786960818, 17.445385985570866523, 21.1294655448340526258,
    -3.67192254707729348546), (
    1.0, 6.24264124854247537712, 3.9713437953343869095, -28.6608180499800029974, -20.1432634680485188801,
    48.5609213108739935468, 10.8268667355460159008, -22.6436933413139721736, 1.72114765761200282724))
_ERF_INV_TAIL = (  # (upper bound of x = sqrt(-ln q), Y, P, Q, offset)
    (3.0, 0.807220458984375, (
        -0.131102781679951906451, -0.163794047193317060787, 0.117030156341995252019, 0.387079738972604337464,
        0.337785538912035898924, 0.142869534408157156766, 0.0290157910005329060432, 0.00214558995388805277169,
        -0.679465575181126350155e-6, 0.285225331782217055858e-7, -0.681149956853776992068e-9), (
        1.0, 3.46625407242567245975, 5.38168345707006855425, 4.77846592945843778382, 2.59301921623620271374,
        0.848854343457902036425, 0.152264338295331783612, 0.01105924229346489121), 1.125),
    (6.0, 0.93995571136474609375, (
        -0.0350353787183177984712, -0.00222426529213447927281, 0.0185573306514231072324, 0.00950804701325919603619,
        0.00187123492819559223345, 0.000157544617424960554631, 0.460469890584317994083e-5,
        -0.230404776911882601748e-9, 0.266339227425782031962e-11), (
        1.0, 1.3653349817554063097, 0.762059164553623404043, 0.220091105764131249824, 0.0341589143670947727934,
        0.00263861676657015992959, 0.764675292302794483503e-4), 3.0),
    (18.0, 0.98362827301025390625, (
        -0.0167431005076633737133, -0.00112951438745580278863, 0.00105628862152492910091,
        0.000209386317487588078668, 0.149624783758342370182e-4, 0.449696789927706453732e-6,
        0.462596163522878599135e-8, -0.281128735628831791805e-13, 0.99055709973310326855e-16), (
        1.0, 0.591429344886417493481, 0.138151865749083321638, 0.0160746087093676504695,
        0.000964011807005165528527, 0.275335474764726041141e-4, 0.282243172016108031869e-6), 6.0),
    (44.0, 0.99714565277099609375, (
        -0.0024978212791898131227, -0.779190719229053954292e-5, 0.254723037413027451751e-4,
        0.162397777342510920873e-5, 0.396341011304801168516e-7, 0.411632831190944208473e-9,
        0.145596286718675035587e-11, -0.116765012397184275695e-17), (
        1.0, 0.207123112214422517181, 0.0169410838120975906478, 0.000690538265622684595676,
        0.145007359818232637924e-4, 0.144437756628144157666e-6, 0.509761276599778486139e-9), 18.0),
    (math.inf, 0.99941349029541015625, (
        -0.000539042911019078575891, -0.28398759004727721098e-6, 0.899465114892291446442e-6,
        0.229345859265920864296e-7, 0.225561444863500149219e-9, 0.947846627503022684216e-12,
        0.135880130108924861008e-14, -0.348890393399948882918e-21), (
        1.0, 0.0845746234001899436914, 0.00282092984726264681981, 0.468292921940894236786e-4,
        0.399968812193862100054e-6, 0.161809290887904476097e-8, 0.231558608310259605225e-11), 44.0),
)
_ROOT2 = _f(1.4142135)
_F32_TINY = float(np.nextafter(np.float32(0), np.float32(2)))
_F32_BELOW_TWO = float(np.nextafter(np.float32(2), np.float32(0)))


def _erf_inv(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """boost's `erf_inv_imp(p, q)`, q = 1 - p, branch by branch."""
    out = np.empty_like(p)
    small = p <= 0.5
    y, pc, qc = _ERF_INV_SMALL
    ps = p[small]
    g = ps * (ps + 10.0)
    out[small] = g * _f(y) + g * (_poly(pc, ps) / _poly(qc, ps))
    mid = ~small & (q >= 0.25)
    y, pc, qc = _ERF_INV_MID
    qs = q[mid]
    xs = qs - 0.25
    out[mid] = np.sqrt(-2.0 * np.log(qs)) / (_f(y) + _poly(pc, xs) / _poly(qc, xs))
    tail = ~small & ~mid
    x = np.sqrt(-np.log(q[tail]))
    res = np.empty_like(x)
    lower = -math.inf
    for upper, y, pc, qc, offset in _ERF_INV_TAIL:
        sel = (x >= lower) & (x < upper)
        xx = x[sel]
        xs = xx - offset
        res[sel] = _f(y) * xx + (_poly(pc, xs) / _poly(qc, xs)) * xx
        lower = upper
    out[tail] = res
    return out


def truncated_normal(seed: int, n: int, a: float, b: float, mean: float, sigma: float,
                     out: np.ndarray | None = None) -> np.ndarray:
    """Inverse-CDF sampling of N(mean, sigma^2) on [a, b]: p = cdf(alpha) + u (cdf(beta) - cdf(alpha)),
    x = -erfc_inv(2p) sqrt(2), the result mean + x sigma (MindSpore's `random::TruncatedNormal`)."""
    a, b, mean, sigma = _f(a), _f(b), _f(mean), _f(sigma)
    if sigma <= 0:
        raise ValueError(f"TruncatedNormal: sigma must be > 0, got {sigma}")
    cdf_a = math.erfc(-(((a - mean) / sigma) / _ROOT2)) / 2.0
    cdf_b = math.erfc(-(((b - mean) / sigma) / _ROOT2)) / 2.0

    def draw(words: np.ndarray) -> np.ndarray:
        z = words * (1.0 / 4294967296.0)
        z *= cdf_b - cdf_a
        z += cdf_a
        z *= 2.0
        np.putmask(z, z <= 0.0, _F32_TINY)  # the C++ keeps z in (0, 2)
        np.putmask(z, z >= 2.0, _F32_BELOW_TWO)
        # MindSpore: z > 1 -> q = 2 - z, p = 1 - q, sign -1; else p = 1 - z, q = z, sign 1. Every one of
        # those subtractions is exact (Sterbenz), so p = |1 - z| and q = min(z, 2 - z) are the same doubles.
        p = np.abs(1.0 - z)
        q = np.minimum(z, 2.0 - z)
        x = _erf_inv(p, q)
        x *= np.where(z > 1.0, _ROOT2, -_ROOT2)  # -(sign * erf_inv) * sqrt(2)
        x *= sigma
        x += mean
        return x

    return _fill(seed, n, draw, out)
