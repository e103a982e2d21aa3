"""XLA:CPU compile options per program (msx/backends/xla_cpu_options.py): which programs get the IR emitters, that
the option reaches XLA from a jitted Cell, that the result is eager's, and that a user's XLA_FLAGS or a jaxlib
without the option is respected."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import msx
from msx import nn, ops
from msx import xla_options
from msx.backends import xla_cpu_options as opts


def _conv(x, w):
    return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME")


def _lowered(fn, *shapes):
    return jax.jit(fn).lower(*[jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes])


def test_a_convolutional_program_gets_the_ir_emitters():
    lowered = _lowered(lambda x, w: jnp.sum(_conv(x, w)), (1, 2, 6, 6), (3, 2, 3, 3))
    assert opts.census(lowered) == (1, 0)
    assert opts.compile_options(lowered, "cpu") == {xla_options.FUSION_EMITTERS: False}
    assert opts.compile_options(lowered, "gpu") == {}  # a CPU option only


def test_matrix_products_keep_the_defaults():
    lowered = _lowered(lambda x, w, v: jnp.sum(_conv(x, w)) + jnp.sum(v @ v @ v), (1, 2, 6, 6), (3, 2, 3, 3), (4, 4))
    assert opts.census(lowered) == (1, 2)  # the products outnumber the convolution: a transformer's step
    assert opts.compile_options(lowered, "cpu") == {}
    assert opts.compile_options(_lowered(lambda v: v * 2.0, (3,)), "cpu") == {}  # neither: the defaults


def test_the_users_xla_flags_win(monkeypatch):
    lowered = _lowered(lambda x, w: _conv(x, w), (1, 2, 6, 6), (3, 2, 3, 3))
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_use_fusion_emitters=true")
    assert opts.compile_options(lowered, "cpu") == {}


class _ConvLowered:
    """A stand-in for jax's Lowered of a one-convolution program; a test gives it its own `compile`."""

    def compiler_ir(self, dialect):
        return _lowered(lambda x, w: _conv(x, w), (1, 2, 6, 6), (3, 2, 3, 3)).compiler_ir(dialect)


def test_a_jaxlib_without_the_option_compiles_with_none(monkeypatch):
    seen = []

    class Lowered(_ConvLowered):  # jax's Lowered for a jaxlib that no longer knows the option
        def compile(self, compiler_options=None):
            seen.append(compiler_options)
            if compiler_options:
                raise RuntimeError("INVALID_ARGUMENT: No such compile option: 'xla_cpu_use_fusion_emitters'")
            return "compiled"

    monkeypatch.setattr(xla_options, "UNKNOWN", set())
    assert opts.compile_lowered(Lowered(), "cpu") == "compiled"
    assert seen == [{xla_options.FUSION_EMITTERS: False}, None]
    assert opts.compile_lowered(Lowered(), "cpu") == "compiled" and seen[-1] is None  # not tried again


def test_another_compile_error_is_not_swallowed():
    class Lowered(_ConvLowered):
        def compile(self, compiler_options=None):
            raise RuntimeError("RESOURCE_EXHAUSTED: out of memory")

    with pytest.raises(RuntimeError, match="RESOURCE_EXHAUSTED"):
        opts.compile_lowered(Lowered(), "cpu")


class _ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv, self.bn = nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4)

    def construct(self, x):
        return ops.relu(self.bn(self.conv(x))).sum()


def test_a_jitted_conv_step_compiles_with_the_ir_emitters_and_equals_eager(monkeypatch):
    passed = []
    compile_ = jax.stages.Lowered.compile

    def recording(self, compiler_options=None, **kw):
        passed.append(compiler_options)
        return compile_(self, compiler_options=compiler_options, **kw)

    msx.set_seed(0)
    net = _ConvNet()
    x = msx.Tensor(np.random.default_rng(0).standard_normal((2, 2, 6, 6)).astype(np.float32))
    grad = msx.value_and_grad(net, None, net.trainable_params())
    want_loss, want_grads = grad(x)
    monkeypatch.setattr(jax.stages.Lowered, "compile", recording)
    loss, grads = msx.jit(grad)(x)
    assert {xla_options.FUSION_EMITTERS: False} in passed
    np.testing.assert_allclose(loss.asnumpy(), want_loss.asnumpy(), rtol=1e-5)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-4, atol=1e-5)


def test_eagers_quick_first_compile_drops_an_option_the_jaxlib_refuses(monkeypatch):
    """Eager's first-sighting segments compile through the same `xla_options.compile_with`: a jaxlib without
    one of `QUICK`'s options compiles the segment without it (and never passes it again)."""
    from msx.eager import lazy
    refused = "xla_cpu_parallel_codegen_split_count"
    passed = []
    compile_ = jax.stages.Lowered.compile

    def old_jaxlib(self, compiler_options=None, **kw):
        passed.append(dict(compiler_options or {}))
        if compiler_options and refused in compiler_options:
            raise RuntimeError(f"INVALID_ARGUMENT: No such compile option: '{refused}'")
        return compile_(self, compiler_options=compiler_options, **kw)

    monkeypatch.setattr(xla_options, "UNKNOWN", set())
    monkeypatch.setattr(jax.stages.Lowered, "compile", old_jaxlib)
    if not lazy.QUICK_OPTIONS:
        pytest.skip("MSX_FIRST_COMPILE_QUICK=0: no quick first compiles")
    lazy.clear()
    x = msx.Tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4))
    out = (ops.tanh(x) * 3.0 + ops.sigmoid(x) - x.mean()).asnumpy()
    ref = np.tanh(x.asnumpy()) * 3.0 + 1 / (1 + np.exp(-x.asnumpy())) - x.asnumpy().mean()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    quick = [p for p in passed if p.get("xla_backend_optimization_level") == 0]
    assert quick and refused in quick[0] and all(refused not in p for p in quick[1:])
    assert xla_options.UNKNOWN == {refused}
