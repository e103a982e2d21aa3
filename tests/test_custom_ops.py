"""Custom ops: C++ kernels through CustomOpBuilder (XLA FFI) and Python ones through ops.Custom, against jax,
eager and under every capture mode, with gradients, the build cache, readable build errors, passes, the
simulated Ascend backend and export."""
import os
import pathlib
import re
import shutil

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import msx
from msx import Tensor, nn, ops
from msx.capture import CAPTURE_MODES
from msx.errors import (BackendUnavailableError, CustomOpBuildError, CustomOpError, GradError, OpError,
                        UnknownPrimitiveError)
from msx.ops import REGISTRY
from msx.ops.custom import CUSTOM_OPS, custom_op_records, missing_custom_op_message

CPP = pathlib.Path(__file__).parent / "cpp"
MODES = ["trace", "ast", "bytecode"]
RNG = np.random.default_rng(0)

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CXX", "g++")) is None, reason="no C++ compiler")


def _x(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def _mode(mode):
    if mode not in CAPTURE_MODES:
        pytest.skip(f"capture_mode={mode!r} is not in this msx yet")
    return mode


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


@pytest.fixture(scope="module")
def cpp_ops(tmp_path_factory):
    """The test ops, compiled once for this module (into a fresh build directory: a real compile)."""
    build_dir = tmp_path_factory.mktemp("custom_ops")
    builder = ops.CustomOpBuilder("cpu_add", [str(CPP / "add3.cc"), str(CPP / "more_ops.cc")], backend="CPU",
                                  cflags="-O0", build_dir=str(build_dir))  # -O0: half the compile time
    my_ops = builder.load()
    assert builder.compiled is True
    my_ops.add3.set_bprop(lambda x, y, z, out, dout: (dout, dout, dout))
    my_ops.scaled_softplus.set_bprop(
        lambda x, out, dout, scale: (my_ops.scaled_softplus_grad(x, dout, scale=scale),))
    my_ops.row_sum.set_infer(out_shape=lambda s: s[:-1])
    my_ops.split_sign.set_infer(out_shape=lambda s: [s, s], out_dtype=[msx.float32, msx.float32])
    return my_ops


def _softplus_ref(x, scale):
    return jax.nn.softplus(scale * x) / scale


# ---------------------------------------------------------------- the seed: add3, eager and compiled
def test_add3_eager_matches_jax_and_is_a_registry_primitive(cpp_ops):
    my_ops = cpp_ops
    x, y, z = _x(2, 3), _x(2, 3), _x(2, 3)
    out = my_ops.add3(Tensor(x), Tensor(y), Tensor(z))
    assert isinstance(out, Tensor) and out.shape == (2, 3) and out.dtype == msx.float32
    _close(out.asnumpy(), x + y + z)
    prim = REGISTRY["cpu_add.add3"]
    assert prim is my_ops.add3.primitive and prim.category == "custom"
    assert CUSTOM_OPS["cpu_add.add3"].library == my_ops.__file__ and my_ops.__all__[0] == "add3"


@pytest.mark.parametrize("mode", MODES)
def test_add3_and_its_gradient_under_each_capture_mode(cpp_ops, mode):
    my_ops = cpp_ops
    w = Tensor(_x(2, 3))

    def loss(x, y, z):
        return (my_ops.add3(x, y * w, z) ** 2).sum()

    def step(x, y, z):
        return msx.value_and_grad(loss, grad_position=(0, 1, 2))(x, y, z)

    jf = msx.jit(step, capture_mode=_mode(mode))
    for _ in range(2):
        x, y, z = _x(2, 3), _x(2, 3), _x(2, 3)
        ref_value, ref_grads = jax.value_and_grad(lambda a, b, c: ((a + b * w._data + c) ** 2).sum(),
                                                  argnums=(0, 1, 2))(x, y, z)
        for value, grads in (step(Tensor(x), Tensor(y), Tensor(z)), jf(Tensor(x), Tensor(y), Tensor(z))):
            _close(value.asnumpy(), ref_value, 1e-4)
            for g, r in zip(grads, ref_grads):
                _close(g.asnumpy(), r, 1e-4)
    assert jf.compiles == 1
    body = jf.capture(Tensor(x), Tensor(y), Tensor(z)).nodes[0].subgraphs["body"]
    assert "cpu_add.add3" in [n.op for n in body.nodes]
    assert "custom_call" in jf.lower(Tensor(x), Tensor(y), Tensor(z)).as_text()


@pytest.mark.parametrize("mode", MODES)
def test_scaled_softplus_attribute_and_cpp_backward_match_jax(cpp_ops, mode):
    my_ops = cpp_ops

    def f(x):
        return my_ops.scaled_softplus(x, scale=2.5) * 3.0

    grad_f = msx.grad(lambda x: f(x).sum())
    x = np.linspace(-4, 4, 12, dtype=np.float32).reshape(3, 4)
    ref = 3.0 * _softplus_ref(x, 2.5)
    ref_grad = jax.grad(lambda a: (3.0 * _softplus_ref(a, 2.5)).sum())(x)
    _close(f(Tensor(x)).asnumpy(), ref)
    _close(grad_f(Tensor(x)).asnumpy(), ref_grad)
    jf, jg = msx.jit(f, capture_mode=_mode(mode)), msx.jit(grad_f, capture_mode=mode)
    for _ in range(2):
        _close(jf(Tensor(x)).asnumpy(), ref)
        _close(jg(Tensor(x)).asnumpy(), ref_grad)
    node = next(n for n in jf.capture(Tensor(x)).nodes if n.op == "cpu_add.scaled_softplus")
    assert node.attrs == {"scale": 2.5}


def test_shape_rule_and_two_outputs(cpp_ops):
    my_ops = cpp_ops
    x = _x(2, 3, 4)
    total = my_ops.row_sum(Tensor(x))
    assert total.shape == (2, 3)
    _close(total.asnumpy(), x.sum(-1))
    pos, neg = my_ops.split_sign(Tensor(x))
    _close(pos.asnumpy(), np.maximum(x, 0))
    _close(neg.asnumpy(), np.minimum(x, 0))
    jf = msx.jit(lambda a: my_ops.split_sign(my_ops.row_sum(a)), capture_mode="trace")
    p, n = jf(Tensor(x))
    _close(p.asnumpy(), np.maximum(x.sum(-1), 0), 1e-4)
    _close(n.asnumpy(), np.minimum(x.sum(-1), 0), 1e-4)


# ---------------------------------------------------------------- errors that name the op
@pytest.mark.parametrize("mode", [None] + MODES)
def test_grad_through_an_op_without_bprop_raises_naming_it(cpp_ops, mode):
    my_ops = cpp_ops
    dout = Tensor(np.ones((2, 2), np.float32))
    grad_f = msx.grad(lambda x: my_ops.scaled_softplus_grad(x, dout, scale=1.0).sum())
    if mode is not None:
        grad_f = msx.jit(grad_f, capture_mode=_mode(mode))
    with pytest.raises(GradError, match=r"cpu_add\.scaled_softplus_grad has no backward.*set_bprop"):
        grad_f(Tensor(_x(2, 2)))


def test_kernel_errors_and_bad_declarations_name_the_op(cpp_ops):
    my_ops = cpp_ops
    x = Tensor(_x(2, 3))
    with pytest.raises(OpError, match=r"cpu_add\.add3: the C\+\+ kernel failed.*same number of elements"):
        my_ops.add3(x, x, Tensor(_x(3)))
    with pytest.raises(OpError, match=r"cpu_add\.add3.*Wrong buffer dtype.*int32\(2, 3\)"):
        my_ops.add3(x.astype(msx.int32), x, x)
    with pytest.raises(OpError, match="scale must be non-zero"):
        my_ops.scaled_softplus(x, scale=0.0)
    with pytest.raises(CustomOpError, match=r"cpu_add\.add3\.set_bprop: the op has already run"):
        my_ops.add3.set_bprop(None)
    with pytest.raises(AttributeError):
        my_ops.no_such_op  # noqa: B018


# ---------------------------------------------------------------- passes, backends, export
def test_a_pattern_pass_matches_a_custom_op_by_name(cpp_ops):
    my_ops = cpp_ops
    to_jnp = msx.passes.replace_pattern(lambda x, y, z: my_ops.add3(x, y, z), lambda x, y, z: x + y + z)
    x = _x(2, 3)
    jf = msx.jit(lambda a: my_ops.add3(a, a, a) * 2.0, capture_mode="trace")
    graph = jf.capture(Tensor(x))
    rewritten = to_jnp.run(graph)
    assert [n.op for n in graph.nodes].count("cpu_add.add3") == 1
    assert "cpu_add.add3" not in [n.op for n in rewritten.nodes]
    assert [n.op for n in rewritten.nodes].count("Add") == 2
    msx.passes.register_custom_pass(to_jnp)
    try:
        lowered = msx.jit(lambda a: my_ops.add3(a, a, a) * 2.0, capture_mode="trace").lower(Tensor(x))
    finally:
        msx.passes.unregister_custom_pass(to_jnp)
    assert "custom_call" not in lowered.as_text()
    _close(lowered.compile()(Tensor(x)).asnumpy(), 6 * x)


def test_simulated_ascend_runs_custom_ops_as_aicpu_fallbacks(cpp_ops):
    my_ops = cpp_ops
    from msx.backends import get_backend
    from msx.backends.ascend_sim import support_table

    assert support_table()["cpu_add.add3"] == "AICPU"
    x = _x(4, 8)
    jf = msx.jit(lambda a: my_ops.add3(a, a, a), capture_mode="trace", backend="ascend")
    _close(jf(Tensor(x)).asnumpy(), 3 * x)
    rows = [r for r in get_backend("ascend").last_report.rows if r.op == "cpu_add.add3"]
    assert len(rows) == 1 and rows[0].unit == "AICPU"


class _WithCustomOp(nn.Cell):
    def __init__(self, my_ops):
        super().__init__()
        self.my_ops = my_ops
        self.dense = nn.Dense(3, 3)

    def construct(self, x):
        return self.my_ops.add3(self.dense(x), x, x)


def test_export_records_custom_ops_and_loading_without_them_names_the_op(cpp_ops, tmp_path, monkeypatch):
    my_ops = cpp_ops
    net, x = _WithCustomOp(my_ops), Tensor(_x(2, 3))
    path = msx.export(net, x, file_name=str(tmp_path / "net"), capture_mode="trace")
    graph = msx.load(path)
    _close(nn.GraphCell(graph)(x).asnumpy(), net(x).asnumpy())
    records = custom_op_records(graph.primitives_used())
    assert list(records) == ["cpu_add.add3"]
    assert records["cpu_add.add3"]["library"] == my_ops.__file__ and records["cpu_add.add3"]["module"] == "cpu_add"
    monkeypatch.delitem(REGISTRY, "cpu_add.add3")
    with pytest.raises(UnknownPrimitiveError, match=r"cpu_add\.add3.*run msx\.ops\.CustomOpBuilder\('cpu_add'"):
        msx.load(path)  # the file's manifest records the library, so the error says how to load it
    message = missing_custom_op_message("cpu_add.add3", records["cpu_add.add3"])
    assert "CustomOpBuilder('cpu_add'" in message and my_ops.__file__ in message


# ---------------------------------------------------------------- the build cache and build errors
_CACHED_SOURCE = """
#include "msx/custom_op.h"
#include "offset.h"
namespace ffi = xla::ffi;
static ffi::Error AddOffset(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> out) {
  for (size_t i = 0; i < x.element_count(); ++i) out->typed_data()[i] = x.typed_data()[i] + OFFSET * FACTOR;
  return ffi::Error::Success();
}
MSX_CUSTOM_OP(add_offset, AddOffset);
"""


def test_second_load_compiles_nothing_and_a_changed_source_or_header_recompiles(tmp_path):
    src, header, build_dir = tmp_path / "offset.cc", tmp_path / "offset.h", tmp_path / "build"
    src.write_text("#define FACTOR 1.0f\n" + _CACHED_SOURCE)
    header.write_text("#define OFFSET 1.0f\n")

    def load():
        builder = ops.CustomOpBuilder("cached", str(src), cflags="-O0", build_dir=str(build_dir))
        return builder, builder.load()

    x = Tensor(np.zeros(3, np.float32))
    first, mod1 = load()
    assert first.compiled is True
    _close(mod1.add_offset(x).asnumpy(), np.full(3, 1.0))
    mtime = os.stat(mod1.__file__).st_mtime_ns
    again, mod2 = load()
    assert again.compiled is False and mod2.__file__ == mod1.__file__ and os.stat(mod1.__file__).st_mtime_ns == mtime
    _close(mod2.add_offset(x).asnumpy(), np.full(3, 1.0))
    with pytest.raises(CustomOpError, match="cached.add_offset was redefined"):
        mod1.add_offset(x)  # a newer load() replaced the primitive: the old function refuses to run
    header.write_text("#define OFFSET 2.0f\n")
    after_header, mod3 = load()
    assert after_header.compiled is True and mod3.__file__ != mod1.__file__
    _close(mod3.add_offset(x).asnumpy(), np.full(3, 2.0))
    src.write_text("#define FACTOR 10.0f\n" + _CACHED_SOURCE)
    after_source, mod4 = load()
    assert after_source.compiled is True
    _close(mod4.add_offset(x).asnumpy(), np.full(3, 20.0))
    assert msx.jit(lambda a: mod4.add_offset(a), capture_mode="trace")(x).asnumpy().tolist() == [20.0] * 3


def test_a_compile_error_shows_the_compiler_message_and_command(tmp_path):
    src = tmp_path / "broken.cc"
    src.write_text('// a kernel with a typo\nstatic int broken() { return 1 }\n')
    build_dir = tmp_path / "build"
    with pytest.raises(CustomOpBuildError) as info:
        ops.CustomOpBuilder("broken", str(src), cflags=["-DSOMETHING=1"], build_dir=str(build_dir)).load()
    message = str(info.value)
    assert "[custom_op] CustomOpBuilder('broken'): g++ failed with exit status 1" in message
    assert re.search(r"broken.cc:2:\d+: error: expected .;. before", message)
    assert "command: " in message and "-DSOMETHING=1" in message and str(src) in message
    assert info.value.command[0].endswith("g++") and "error" in info.value.compiler_output
    assert sorted(p.name for p in build_dir.iterdir()) == []  # no library, no record, no temporary files


def test_builder_arguments_are_checked(tmp_path):
    src = str(CPP / "add3.cc")
    for bad_name in ("my ops", "Custom", 3):
        with pytest.raises(CustomOpError, match="name must be a Python identifier"):
            ops.CustomOpBuilder(bad_name, src)
    with pytest.raises(CustomOpError, match="does not exist"):
        ops.CustomOpBuilder("missing", str(tmp_path / "nope.cc"), build_dir=str(tmp_path)).load()
    with pytest.raises(CustomOpError, match=r"unknown keyword argument\(s\) \['enable_atb'\]"):
        ops.CustomOpBuilder("x", src, enable_atb=True)
    with pytest.raises(CustomOpError, match="simulates Ascend on the CPU"):
        ops.CustomOpBuilder("x", src, backend="Ascend")
    with pytest.raises(CustomOpError, match="backend must be one of"):
        ops.CustomOpBuilder("x", src, backend="TPU")
    with pytest.raises(CustomOpError, match="cflags must be"):
        ops.CustomOpBuilder("x", src, cflags=3)
    builder = ops.CustomOpBuilder("flags", src, include_paths="inc", cflags="-DA=1 -O3", ldflags="-lm")
    assert builder.get_cflags()[-2:] == ["-DA=1", "-O3"] and f"-I{os.path.abspath('inc')}" in builder.get_cflags()
    assert builder.get_ldflags() == ["-shared", "-lm"] and builder.get_sources() == [src]
    assert builder.get_include_paths()[0] == jax.ffi.include_dir()


def test_a_library_without_msx_ops_is_refused(tmp_path):
    src = tmp_path / "plain.cc"
    src.write_text('extern "C" int not_an_op() { return 1; }\n')
    with pytest.raises(CustomOpError, match=r"declares no msx custom ops.*MSX_CUSTOM_OP"):
        ops.CustomOpBuilder("plain", str(src), build_dir=str(tmp_path / "build")).load()


def _has_gpu():
    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:
        return False


@pytest.mark.skipif(_has_gpu(), reason="this machine has a GPU")
def test_gpu_backend_on_a_cpu_only_machine_is_a_clear_error(tmp_path):
    builder = ops.CustomOpBuilder("gpu_add", str(CPP / "add3_cuda.cu"), backend="GPU", build_dir=str(tmp_path))
    with pytest.raises(BackendUnavailableError, match="jax sees no GPU on this machine"):
        builder.load()


@pytest.mark.skipif(not _has_gpu() or shutil.which("nvcc") is None, reason="needs a CUDA GPU visible to jax and nvcc")
def test_gpu_add3_matches_jax(tmp_path):
    my_ops = ops.CustomOpBuilder("gpu_add", str(CPP / "add3_cuda.cu"), backend="GPU", build_dir=str(tmp_path)).load()
    device = jax.devices("gpu")[0]
    x, y, z = (jax.device_put(_x(3, 5), device) for _ in range(3))
    out = my_ops.add3(Tensor(x), Tensor(y), Tensor(z))
    _close(out.asnumpy(), np.asarray(x) + np.asarray(y) + np.asarray(z))


# ---------------------------------------------------------------- ops.Custom
@pytest.mark.parametrize("mode", MODES)
def test_custom_pyfunc_with_bprop_eager_and_compiled(mode):
    cube = ops.Custom(lambda x: np.power(x, 3), out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc",
                      bprop=lambda x, out, dout: (3.0 * x * x * dout,))
    grad_f = msx.grad(lambda x: (cube(x) * 2.0).sum())
    x = _x(2, 3)
    _close(cube(Tensor(x)).asnumpy(), x ** 3)
    _close(grad_f(Tensor(x)).asnumpy(), 6 * x * x)
    jf, jg = msx.jit(lambda a: cube(a) + 1.0, capture_mode=_mode(mode)), msx.jit(grad_f, capture_mode=mode)
    for _ in range(2):
        x = _x(2, 3)
        _close(jf(Tensor(x)).asnumpy(), x ** 3 + 1.0)
        _close(jg(Tensor(x)).asnumpy(), 6 * x * x)
    assert REGISTRY[cube.name].category == "custom" and cube.name.startswith("Custom.")


@pytest.mark.parametrize("mode", MODES)
def test_custom_jax_function_is_differentiated_by_jax_and_fused(mode):
    f = ops.Custom(lambda x, y: jnp.sin(x) * y, func_type="jax")
    g = msx.grad(lambda x, y: f(x, y).sum(), grad_position=(0, 1))
    x, y = _x(3), _x(3)
    gx, gy = g(Tensor(x), Tensor(y))
    _close(gx.asnumpy(), np.cos(x) * y)
    _close(gy.asnumpy(), np.sin(x))
    jg = msx.jit(g, capture_mode=_mode(mode))
    gx, gy = jg(Tensor(x), Tensor(y))
    _close(gx.asnumpy(), np.cos(x) * y)
    _close(gy.asnumpy(), np.sin(x))
    text = msx.jit(lambda a, b: f(a, b), capture_mode=mode).lower(Tensor(x), Tensor(y)).as_text()
    assert "stablehlo.sine" in text and "custom_call" not in text and "callback" not in text


def test_custom_bprop_overrides_jax_and_pyfunc_without_bprop_refuses_gradients():
    ste = ops.Custom(jnp.round, func_type="jax", bprop=lambda x, out, dout: (dout,))  # straight-through rounding
    x = np.array([0.2, 1.7, -2.6], np.float32)
    _close(ste(Tensor(x)).asnumpy(), np.round(x))
    _close(msx.grad(lambda a: (ste(a) * 3.0).sum())(Tensor(x)).asnumpy(), np.full(3, 3.0))
    plain = ops.Custom(np.tanh, func_type="pyfunc")
    _close(plain(Tensor(x)).asnumpy(), np.tanh(x))
    with pytest.raises(GradError, match=r"Custom\.tanh has no backward.*bprop="):
        msx.grad(lambda a: plain(a).sum())(Tensor(x))


def test_custom_outputs_declarations_and_errors():
    x = _x(2, 3)
    stats = ops.Custom(lambda a: (a.mean(1), a.argmax(1)), out_shape=[(2,), (2,)],
                       out_dtype=[msx.float32, msx.int32], func_type="pyfunc")
    mean, arg = stats(Tensor(x))
    _close(mean.asnumpy(), x.mean(1))
    assert arg.dtype == msx.int32 and arg.asnumpy().tolist() == x.argmax(1).tolist()
    jm, ja = msx.jit(lambda a: stats(a), capture_mode="trace")(Tensor(x))
    _close(jm.asnumpy(), x.mean(1))
    assert ja.asnumpy().tolist() == x.argmax(1).tolist()
    wrong = ops.Custom(lambda a: a[0], func_type="pyfunc")  # declares "same as the input" but returns a row
    with pytest.raises(OpError, match=r"Custom\..*returned shape \(3,\) for output 0, declared \(2, 3\)"):
        wrong(Tensor(x))
    mismatch = ops.Custom(lambda a: a.sum(), out_shape=(2, 3), func_type="jax")
    with pytest.raises(OpError, match=r"returned shape \(\) for output 0, declared \(2, 3\)"):
        mismatch(Tensor(x))
    with pytest.raises(TypeError, match="func_type='hybrid'.*decorated by kernel"):
        ops.Custom(np.sin, func_type="hybrid")  # the Hybrid DSL: tests/test_hybrid.py
    with pytest.raises(CustomOpError, match="func_type='akg'.*or 'hybrid' \\(a Hybrid DSL"):
        ops.Custom(np.sin, func_type="akg")
    with pytest.raises(CustomOpError, match="out_shape must be a shape"):
        ops.Custom(np.sin, out_shape="big")
    with pytest.raises(CustomOpError, match="out_dtype: unsupported dtype"):
        ops.Custom(np.sin, out_dtype="float128")
    with pytest.raises(OpError, match=r"Custom\.sin.*out_shape must be a shape.*got 'x'"):
        ops.Custom(np.sin, out_shape=lambda s: "x")(Tensor(x))
    with pytest.raises(OpError, match=r"its out_shape rule failed on \[\(2, 3\)\]: IndexError"):
        ops.Custom(np.sin, out_shape=lambda s: s[5])(Tensor(x))


def test_the_same_custom_definition_reuses_its_primitive():
    def halve(a):
        return a / 2

    first, second = ops.Custom(halve, func_type="jax"), ops.Custom(halve, func_type="jax")
    other = ops.Custom(halve, func_type="pyfunc")
    assert first.primitive is second.primitive and other.name != first.name
    x = Tensor(_x(2))
    _close(first(x).asnumpy(), second(x).asnumpy())
    _close(other(x).asnumpy(), x.asnumpy() / 2)
