"""Golden files written by msx 0.1.0 (tests/golden/make_golden.py) must keep loading and computing the same
outputs: a change that breaks files users already have fails here."""
import os

import numpy as np
import pytest
import safetensors.numpy

import msx
from msx import nn

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
EXPECTED = safetensors.numpy.load_file(os.path.join(GOLDEN, "expected.safetensors"))


@pytest.mark.parametrize("name", ["mlp", "cnn", "control_flow"])
def test_golden_graph_files_load_and_reproduce_their_outputs(name):
    graph = msx.load(os.path.join(GOLDEN, f"{name}.msxir"))
    assert graph.manifest["format_version"] == 1 and graph.manifest["msx_version"] == "0.1.0"
    cell = nn.GraphCell(graph)
    cases = sorted({k.split("/")[1] for k in EXPECTED if k.startswith(name + "/")})
    assert cases
    for case in cases:
        prefix = f"{name}/{case}/"
        inputs = [EXPECTED[f"{prefix}input{i}"] for i in range(len(graph.inputs))]
        outs = cell(*[msx.Tensor(a) for a in inputs])
        outs = outs if isinstance(outs, tuple) else (outs,)
        assert len(outs) == len([k for k in EXPECTED if k.startswith(prefix + "output")])
        for i, out in enumerate(outs):
            np.testing.assert_allclose(out.asnumpy(), EXPECTED[f"{prefix}output{i}"], rtol=1e-6, atol=1e-6)


def test_golden_checkpoint_restores_a_network_and_its_optimizer():
    msx.set_seed(9)
    net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3)])
    opt = nn.Adam(net.trainable_params(), learning_rate=0.5)
    params = msx.load_checkpoint(os.path.join(GOLDEN, "mlp_adam.ckpt"), net=net)
    assert msx.load_param_into_net(opt, params, strict_load=True)[0] == []
    for p in list(net.get_parameters()) + list(opt.get_parameters()):
        np.testing.assert_array_equal(p.asnumpy(), EXPECTED[f"mlp_adam/{p.name}"])
    assert int(opt.global_step.asnumpy()[0]) == 1 and float(opt.learning_rate.asnumpy()) == pytest.approx(0.01)
