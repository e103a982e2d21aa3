"""Discrete Fourier transforms and window functions of MindSpore's `ops` (issue 22), over `jax.numpy.fft`.

The transforms are differentiable primitives taking MindSpore's arguments (`n`/`s`, `dim`, `norm`); integer
inputs compute in float32 (complex64 results), as MindSpore. Windows are constant-producing primitives with
MindSpore's `periodic` convention (a periodic window of length N is the symmetric one of length N + 1 without
its last point).
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .api import expose
from .array_ops import _np_dtype
from .attr_converters import to_dtype_or_none, to_ints
from .primitive import apply, primitive


def _float(x):
    return x if x.dtype.kind in "fc" else x.astype(np.float32)


def _opt_ints(v):
    return None if v is None else to_ints(v)


def _opt_int(v):
    return None if v is None else to_ints(v)[0]


def _norm(norm):
    if norm not in (None, "backward", "forward", "ortho"):
        raise ValueError(f"norm must be None, 'backward', 'forward' or 'ortho', got {norm!r}")
    return norm


# ---------------------------------------------------------------- transforms
def _one_dim(name: str, fn):
    def impl(x, *, n=None, dim=-1, norm=None):
        return fn(_float(x), n=n, axis=dim, norm=norm)

    impl.__doc__ = f"jnp.fft.{fn.__name__} along `dim`, of length `n` (cropped or zero-padded)."
    impl = primitive(name, attrs=("n", "dim", "norm"), category="other")(impl)

    def call(input, n=None, dim=-1, norm=None):
        return apply(impl, (input,), {"n": _opt_int(n), "dim": to_ints(dim)[0], "norm": _norm(norm)})

    call.__name__ = call.__qualname__ = fn.__name__
    call.__doc__ = f"MindSpore's `ops.{fn.__name__}(input, n=None, dim=-1, norm=None)`."
    return expose(ops=fn.__name__, prim=name)(call)


def _n_dim(name: str, fn, default_dim):
    def impl(x, *, s=None, dim=None, norm=None):
        return fn(_float(x), s=s, axes=dim, norm=norm)

    impl.__doc__ = f"jnp.fft.{fn.__name__} over `dim`, of sizes `s`."
    impl = primitive(name, attrs=("s", "dim", "norm"), category="other")(impl)

    def call(input, s=None, dim=default_dim, norm=None):
        return apply(impl, (input,), {"s": _opt_ints(s), "dim": _opt_ints(dim), "norm": _norm(norm)})

    call.__name__ = call.__qualname__ = fn.__name__
    call.__doc__ = f"MindSpore's `ops.{fn.__name__}(input, s=None, dim={default_dim}, norm=None)`."
    return expose(ops=fn.__name__, prim=name)(call)


fft, ifft = _one_dim("FFT", jnp.fft.fft), _one_dim("IFFT", jnp.fft.ifft)
rfft, irfft = _one_dim("RFFT", jnp.fft.rfft), _one_dim("IRFFT", jnp.fft.irfft)
hfft, ihfft = _one_dim("HFFT", jnp.fft.hfft), _one_dim("IHFFT", jnp.fft.ihfft)
fft2, ifft2 = _n_dim("FFT2", jnp.fft.fft2, (-2, -1)), _n_dim("IFFT2", jnp.fft.ifft2, (-2, -1))
rfft2, irfft2 = _n_dim("RFFT2", jnp.fft.rfft2, (-2, -1)), _n_dim("IRFFT2", jnp.fft.irfft2, (-2, -1))
fftn, ifftn = _n_dim("FFTN", jnp.fft.fftn, None), _n_dim("IFFTN", jnp.fft.ifftn, None)
rfftn, irfftn = _n_dim("RFFTN", jnp.fft.rfftn, None), _n_dim("IRFFTN", jnp.fft.irfftn, None)


def _hfftn(x, s=None, axes=None, norm=None):
    """The n-dim FFT of a Hermitian-symmetric signal: irfftn of the conjugate, with the inverse norm."""
    inverse = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    return jnp.fft.irfftn(jnp.conj(x), s=s, axes=axes, norm=inverse)


def _ihfftn(x, s=None, axes=None, norm=None):
    inverse = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    return jnp.conj(jnp.fft.rfftn(x, s=s, axes=axes, norm=inverse))


_hfftn.__name__, _ihfftn.__name__ = "hfftn", "ihfftn"
hfftn, ihfftn = _n_dim("HFFTN", _hfftn, None), _n_dim("IHFFTN", _ihfftn, None)


def _hfft2(x, s=None, axes=(-2, -1), norm=None):
    return _hfftn(x, s, axes, norm)


def _ihfft2(x, s=None, axes=(-2, -1), norm=None):
    return _ihfftn(x, s, axes, norm)


_hfft2.__name__, _ihfft2.__name__ = "hfft2", "ihfft2"
hfft2, ihfft2 = _n_dim("HFFT2", _hfft2, (-2, -1)), _n_dim("IHFFT2", _ihfft2, (-2, -1))


@primitive("FFTShift", attrs=("dim", "inverse"), category="shape")
def fftshift_(x, *, dim=None, inverse=False):
    """Move the zero frequency to the centre (back with `inverse`)."""
    return (jnp.fft.ifftshift if inverse else jnp.fft.fftshift)(x, axes=dim)


@expose(ops="fftshift", prim="FFTShift")
def fftshift(input, dim=None):
    return apply(fftshift_, (input,), {"dim": _opt_ints(dim), "inverse": False})


@expose(ops="ifftshift")
def ifftshift(input, dim=None):
    return apply(fftshift_, (input,), {"dim": _opt_ints(dim), "inverse": True})


@primitive("FFTFreq", attrs=("n", "d", "real", "dtype"), category="other", differentiable=False)
def fftfreq_(*, n, d=1.0, real=False, dtype=None):
    """The sample frequencies of an n-point (r)fft with sample spacing d (float32 by default)."""
    out = (np.fft.rfftfreq if real else np.fft.fftfreq)(n, d)
    return jnp.asarray(out.astype(_np_dtype(dtype, np.float32)))


@expose(ops="fftfreq", prim="FFTFreq")
def fftfreq(n, d=1.0, dtype=None):
    return apply(fftfreq_, (), {"n": to_ints(n)[0], "d": float(d), "real": False, "dtype": to_dtype_or_none(dtype)})


@expose(ops="rfftfreq")
def rfftfreq(n, d=1.0, dtype=None):
    return apply(fftfreq_, (), {"n": to_ints(n)[0], "d": float(d), "real": True, "dtype": to_dtype_or_none(dtype)})


# ---------------------------------------------------------------- windows
def _cosine_window(coeffs):
    def window(m: int) -> np.ndarray:
        k = np.arange(m) * (2 * np.pi / max(m - 1, 1))
        return sum(c * np.cos(i * k) * (-1) ** i for i, c in enumerate(coeffs))

    return window


def _bartlett(m: int) -> np.ndarray:
    return 1 - np.abs(2 * np.arange(m) / max(m - 1, 1) - 1)


_WINDOWS = {"bartlett": _bartlett, "blackman": _cosine_window((0.42, 0.5, 0.08)),
            "hann": _cosine_window((0.5, 0.5))}


@primitive("Window", attrs=("kind", "length", "periodic", "params", "dtype"), category="other",
           differentiable=False,
           internal=("the kernel of ops.bartlett_window, blackman_window, hamming_window, hann_window and "
                     "kaiser_window (fft_ops._window)"))
def window_(*, kind, length, periodic=True, params=(), dtype=None):
    """A window of `length` points computed in float64 and cast (float32 by default)."""
    m = length + 1 if periodic and length > 1 else length
    if kind == "hamming":
        alpha, beta = params
        w = alpha - beta * np.cos(np.arange(m) * (2 * np.pi / max(m - 1, 1)))
    elif kind == "kaiser":
        w = np.kaiser(m, params[0])
    else:
        w = _WINDOWS[kind](m)
    w = w[:length] if length > 1 else np.ones(length)
    default = np.float64 if kind in ("hann", "kaiser") else np.float32  # MindSpore 2.10's defaults
    return jnp.asarray(w.astype(_np_dtype(dtype, default)))


def _window(kind, window_length, periodic, params, dtype):
    length = to_ints(window_length)[0]
    if length < 0:
        raise ValueError(f"{kind}_window: window_length must be >= 0, got {length}")
    return apply(window_, (), {"kind": kind, "length": length, "periodic": bool(periodic),
                               "params": tuple(float(p) for p in params), "dtype": to_dtype_or_none(dtype)})


@expose(ops="bartlett_window")
def bartlett_window(window_length, periodic=True, *, dtype=None):
    return _window("bartlett", window_length, periodic, (), dtype)


@expose(ops="blackman_window")
def blackman_window(window_length, periodic=True, *, dtype=None):
    return _window("blackman", window_length, periodic, (), dtype)


@expose(ops="hann_window")
def hann_window(window_length, periodic=True, *, dtype=None):
    return _window("hann", window_length, periodic, (), dtype)


@expose(ops="hamming_window")
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    return _window("hamming", window_length, periodic, (alpha, beta), dtype)


@expose(ops="kaiser_window")
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    return _window("kaiser", window_length, periodic, (beta,), dtype)


# class forms: `ops.BartlettWindow(periodic=True, dtype=ms.float32)(window_length)` (a 1-element int Tensor)
@expose(cls="BartlettWindow", init=("periodic", "dtype"))
def _bartlett_cls(window_length, periodic=True, dtype=None):
    return _window("bartlett", window_length, periodic, (), dtype)


@expose(cls="BlackmanWindow", init=("periodic", "dtype"))
def _blackman_cls(window_length, periodic=True, dtype=None):
    return _window("blackman", window_length, periodic, (), dtype)


@expose(cls="HammingWindow", init=("periodic", "alpha", "beta", "dtype"))
def _hamming_cls(window_length, periodic=True, alpha=0.54, beta=0.46, dtype=None):
    return _window("hamming", window_length, periodic, (alpha, beta), dtype)
