"""`msx.compat`: a package written for MindSpore runs unchanged, every spelling of `import mindspore` giving
msx's modules; `python -m msx run` runs a script so; mindcv 0.3.0's networks build and run through the alias
when mindcv is installed (skipped, with the reason, when it is not; an expected failure naming the missing
MindSpore name while msx lacks one that mindcv's package imports)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import msx
from msx import compat

PACKAGE = {  # a small MindSpore-style package: each file imports mindspore in another spelling
    "mspkg/__init__.py": "from .net import Net, train_step\n",
    "mspkg/layers.py": """
        import mindspore
        import mindspore.nn as nn
        from mindspore import ops, Tensor, Parameter
        from mindspore.ops import operations as P
        from mindspore.ops import functional as F, composite as C
        from mindspore.common.initializer import Normal, initializer
        import mindspore.common.dtype as mstype
        import mindspore.numpy as mnp

        class Block(nn.Cell):
            def __init__(self, n_in, n_out):
                super().__init__()
                self.fc = nn.Dense(n_in, n_out, weight_init=Normal(0.02))
                self.scale = Parameter(initializer("ones", [n_out], mstype.float32), name="scale")
                self.relu = P.ReLU()
                self.sum = P.ReduceSum(keep_dims=True)

            def construct(self, x):
                h = self.relu(self.fc(x)) * self.scale
                return h + F.cast(mnp.mean(h, axis=-1, keepdims=True), mindspore.float32) * 0
        """,
    "mspkg/net.py": """
        from mindspore import nn, ops, value_and_grad
        import mindspore as ms
        from mspkg.layers import Block

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.body = nn.SequentialCell([Block(4, 8), Block(8, 3)])

            def construct(self, x):
                return self.body(x)

        def train_step(net, x, y):
            loss_fn = nn.MSELoss()
            opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
            grad_fn = value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss
        """,
}


@pytest.fixture(scope="module")
def package_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("mspkg_root")
    for rel, src in PACKAGE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(src))
    return root


@pytest.fixture
def alias(package_dir):
    compat.install()
    sys.path.insert(0, str(package_dir))
    yield
    sys.path.remove(str(package_dir))
    for name in [n for n in sys.modules if n == "mspkg" or n.startswith("mspkg.")]:
        del sys.modules[name]
    compat.uninstall()


def test_every_spelling_gives_msx(alias):
    import mindspore
    import mindspore.nn as nn
    from mindspore.ops import operations as P
    from mindspore.common.initializer import Normal
    import mindspore.common.dtype as mstype
    import mindspore.numpy as mnp

    assert mindspore is msx and nn is msx.nn and P is msx.ops.operations and mnp is msx.numpy
    assert Normal is msx.common.initializer.Normal and mstype.float32 == msx.float32
    import mindspore.ops.operations

    assert sys.modules["mindspore.ops.operations"] is msx.ops.operations


def test_package_trains_unchanged(alias):
    import mspkg

    msx.set_seed(1)
    net = mspkg.Net()
    x = msx.Tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    y = msx.Tensor(np.zeros((2, 3), np.float32))
    assert net(x).shape == (2, 3) and type(net).__mro__[1] is msx.nn.Cell
    losses = [float(mspkg.train_step(net, x, y).asnumpy()) for _ in range(3)]
    assert losses[-1] <= losses[0]  # SGD on an MSE loss does not go up with this step size


def test_missing_module_names_both_paths(alias):
    with pytest.raises(ModuleNotFoundError, match="msx has no 'msx.no_such_part'"):
        import mindspore.no_such_part  # noqa: F401


def test_uninstall_removes_the_alias(alias):
    import mindspore  # noqa: F401

    compat.uninstall()
    assert not compat.installed() and "mindspore" not in sys.modules
    compat.install()


def test_python_m_msx_run(package_dir, tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import sys
        import mindspore as ms
        from mindspore import Tensor
        import mspkg
        net = mspkg.Net()
        out = net(Tensor([[1.0, 2.0, 3.0, 4.0]]))
        print("ok", ms.__name__, tuple(out.shape), sys.argv[1:])
        """))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(package_dir), os.getcwd()]))
    res = subprocess.run([sys.executable, "-m", "msx", "run", str(script), "--epochs", "2"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "ok msx (1, 3) ['--epochs', '2']" in res.stdout


def test_run_a_module_with_the_alias(package_dir, tmp_path, monkeypatch):
    (tmp_path / "ms_main.py").write_text("import sys\nimport mindspore\nRESULT = (mindspore.__name__, sys.argv[1:])\n"
                                         "sys.modules['ms_main_result'] = RESULT\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    try:
        compat.run("ms_main", ["--x", "1"], module=True)
        assert sys.modules.pop("ms_main_result") == ("msx", ["--x", "1"])
    finally:
        compat.uninstall()


def test_run_says_what_is_missing(tmp_path):
    from msx.__main__ import main

    assert main(["run", str(tmp_path / "absent.py")]) == 2
    assert main(["run", "-m", "no_such_module_for_msx_run"]) == 2
    compat.uninstall()


MINDCV_NETS = ["resnet18", "mobilenet_v2_075", "densenet121"]


@pytest.mark.parametrize("net_name", MINDCV_NETS)
def test_mindcv_network_through_the_alias(net_name):
    import importlib.util

    if importlib.util.find_spec("mindcv") is None:
        pytest.skip("mindcv is not installed; `pip install mindcv==0.3.0 --no-deps` to run this test")
    compat.install()
    try:
        try:
            import mindcv  # noqa: F401
        except ImportError as exc:  # a MindSpore name msx lacks: a known gap, shown as one (not hidden as a skip)
            pytest.xfail(f"mindcv 0.3.0 imports a MindSpore name msx lacks: {exc}")
        from mindcv.models import create_model

        msx.set_seed(0)
        net = create_model(net_name, num_classes=10, pretrained=False)
        net.set_train(False)
        out = net(msx.Tensor(np.random.default_rng(0).standard_normal((1, 3, 64, 64)).astype(np.float32)))
        assert out.shape == (1, 10) and np.isfinite(out.asnumpy()).all()
    finally:
        compat.uninstall()


def test_mindsporeS_own_nn_module_paths_resolve():
    """Model-zoo code imports from MindSpore's file layout (`nn.loss.loss`, `nn.wrap.cell_wrapper`, `nn.layer.basic`):
    msx's nn keeps that layout, so those imports give msx's classes."""
    import importlib

    from msx import nn
    compat.install()
    try:
        for path, name in [("mindspore.nn.loss.loss", "LossBase"), ("mindspore.nn.wrap.cell_wrapper", "TrainOneStepCell"),
                           ("mindspore.nn.wrap.loss_scale", "DynamicLossScaleUpdateCell"),
                           ("mindspore.nn.wrap.grad_reducer", "DistributedGradReducer"),
                           ("mindspore.nn.layer.basic", "Dense"), ("mindspore.nn.layer.activation", "get_activation"),
                           ("mindspore.nn.layer.image", "PixelShuffle"), ("mindspore.nn.layer.embedding", "Embedding"),
                           ("mindspore.nn.layer.math", "Moments"), ("mindspore.nn.layer.container", "CellDict")]:
            assert getattr(importlib.import_module(path), name) is getattr(nn, name), path
    finally:
        compat.uninstall()
