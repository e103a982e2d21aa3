"""The mechanisms the mindcv model zoo needed, each checked on its own (tests/test_model_zoo.py runs the zoo):
parameter naming and order as MindSpore 2.10 gives them, a Tensor assigned to a Parameter's attribute,
`RowTensor`, `mindspore.boost.GradientAccumulation`, `opt_init_args_register`.

The expected names and orders are MindSpore 2.10's own, printed by the same code in its venv.
"""
import numpy as np
import pytest

import msx
from msx import Parameter, RowTensor, Tensor, boost, nn, ops
from msx.errors import MsxError


class _Stage(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.blocks = nn.CellList()
        for _ in range(n):
            self.blocks.append(nn.Dense(2, 2))


class _AppendedNet(nn.Cell):  # mindcv's RegNet: an empty CellList attribute, filled by append
    def __init__(self):
        super().__init__()
        self.stages = nn.CellList()
        for _ in range(2):
            self.stages.append(_Stage(2))


class _ListNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.stages = nn.CellList([_Stage(2), _Stage(2)])


def test_appended_cells_are_named_as_mindspore_names_them():
    assert [p.name for p in _AppendedNet().get_parameters()] == [  # MindSpore 2.10's names, quirk included
        "0.blocks.0.weight", "0.blocks.0.bias", "0.blocks.1.weight", "0.blocks.1.bias",
        "0.blocks.1.blocks.0.weight", "0.blocks.1.blocks.0.bias", "0.blocks.1.blocks.1.weight",
        "0.blocks.1.blocks.1.bias"]
    assert [p.name for p in _ListNet().get_parameters()] == [
        "stages.0.blocks.0.weight", "stages.0.blocks.0.bias", "stages.0.blocks.1.weight", "stages.0.blocks.1.bias",
        "stages.1.blocks.0.weight", "stages.1.blocks.0.bias", "stages.1.blocks.1.weight", "stages.1.blocks.1.bias"]
    cells = nn.CellList()
    cells.append(nn.Dense(2, 2))
    cells.extend([nn.Dense(2, 2)])
    assert [p.name for p in cells.get_parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_batchnorm_lists_its_moving_statistics_first():
    names = [p.name for p in nn.BatchNorm2d(3).get_parameters()]
    assert names == ["moving_mean", "moving_variance", "gamma", "beta"]  # MindSpore 2.10's order


class _Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.step = Parameter(Tensor(0, msx.int32), name="step")

    def construct(self, x):
        self.step += 1
        return x * self.step


@pytest.mark.filterwarnings("error::UserWarning")  # under jit it is captured, not run eagerly after a warning
def test_tensor_assigned_to_a_parameter_writes_it():
    eager = _Counter()
    for _ in range(2):
        out = eager(Tensor(2, msx.int32))
    assert isinstance(eager.step, Parameter) and int(eager.step.asnumpy()) == 2 and int(out.asnumpy()) == 4
    assert list(eager.parameters_dict()) == ["step"]
    jitted = _Counter()
    run = msx.jit(jitted.construct)
    outs = [int(run(Tensor(2, msx.int32)).asnumpy()) for _ in range(2)]
    assert outs == [2, 4] and isinstance(jitted.step, Parameter) and int(jitted.step.asnumpy()) == 2
    with pytest.raises(TypeError, match="Parameter 'step' already exists"):
        eager.step = 3


def test_row_tensor():
    with pytest.warns(DeprecationWarning):
        rt = RowTensor(Tensor([0, 2, 0]), Tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), (3, 2))
    assert rt.dense_shape == (3, 2) and rt.indices.shape == (3,) and rt.values.shape == (3, 2)
    np.testing.assert_array_equal(rt.to_dense().asnumpy(), [[6, 8], [0, 0], [3, 4]])
    copy = RowTensor(row_tensor=rt)
    assert copy.indices is rt.indices and copy.dense_shape == rt.dense_shape
    with pytest.raises(ValueError, match="does not fit 1 indices"):
        RowTensor(Tensor([0]), Tensor([[1.0, 2.0], [3.0, 4.0]]), (3, 2))
    with pytest.raises(TypeError, match="`shape` must be a tuple"):
        RowTensor(Tensor([0]), Tensor([[1.0, 2.0]]), [3, 2])
    scale = ops.MultitypeFuncGraph("scale")  # mindcv's TrainStep dispatches its gradients so
    scale.register("Tensor", "Tensor")(lambda s, g: g * s)
    scale.register("Tensor", "RowTensor")(lambda s, g: RowTensor(g.indices, g.values * s, g.dense_shape))
    scaled = scale(Tensor(2.0), rt)
    np.testing.assert_array_equal(scaled.to_dense().asnumpy(), [[12, 16], [0, 0], [6, 8]])


def test_gradient_accumulation_updates_every_nth_step_with_the_mean():
    w0 = np.array([1.0, -2.0], np.float32)
    p = Parameter(Tensor(w0), name="w")
    opt = nn.SGD([p], learning_rate=0.5)
    acc = boost.GradientAccumulation(2, opt)
    g1, g2 = np.array([0.2, 0.4], np.float32), np.array([0.6, -0.4], np.float32)
    acc(Tensor(1.0), (Tensor(g1),))
    np.testing.assert_array_equal(p.asnumpy(), w0)  # the first step only accumulates
    acc(Tensor(1.0), (Tensor(g2),))
    np.testing.assert_allclose(p.asnumpy(), w0 - 0.5 * (g1 + g2) / 2, rtol=1e-6)
    np.testing.assert_array_equal(acc._grad_accumulation[0].asnumpy(), [0, 0])  # cleared for the next round
    assert int(acc._accumulation_step.asnumpy()) == 0


@pytest.mark.parametrize("name", ["AutoBoost", "AdaSum", "LessBN", "BoostTrainOneStepCell"])
def test_boost_accelerations_refuse_clearly(name):
    with pytest.raises(MsxError, match=f"mindspore.boost.{name} is not available in msx"):
        getattr(boost, name)()


def test_opt_init_args_register_records_the_arguments():
    from msx.nn.optim.optimizer import Optimizer, opt_init_args_register

    class MyOpt(Optimizer):
        @opt_init_args_register
        def __init__(self, params, learning_rate=0.1, beta=0.9):
            super().__init__(learning_rate, params)

    params = [Parameter(Tensor(np.ones(2, np.float32)), name="p")]
    opt = MyOpt(params, learning_rate=Tensor(0.25), beta=0.5)
    assert opt.init_params == {"params": params} and opt.init_learning_rate == 0.25
    assert opt.init_args == {"beta": 0.5} and opt.target == "CPU"


def test_a_plain_attribute_before_cell_init():
    class Early(nn.Cell):  # mindcv's SKNet sets `self.sk_kwargs` before calling super().__init__()
        def __init__(self):
            self.kind = "sk"
            super().__init__()
            self.fc = nn.Dense(2, 2)

    assert Early().kind == "sk"

    class TooEarly(nn.Cell):
        def __init__(self):
            self.w = Parameter(Tensor(1.0), name="w")
            super().__init__()

    with pytest.raises(AttributeError, match="before assigning the Parameter 'w'"):
        TooEarly()
