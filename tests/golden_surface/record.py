"""Record MindSpore 2.10's answers for the surface names of docs/toplevel_tensor_cell.md ("More MindSpore surface"):
MultiFieldEmbeddingLookup with fixed weights, saved-tensor hook logs and gradients, parameter forward hooks
under jit, Tensor state methods (`set_`, `get_bytes`, flags) and dtype names. Run with MindSpore's venv from
the repository root (writes `surface.json` and `surface.npz` beside this file):

    /work/main/.venv-ms/bin/python tests/golden_surface/record.py
"""
from __future__ import annotations

import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.default_rng(7)
TABLE = RNG.standard_normal((8, 3)).astype(np.float32)
INDICES = np.array([[0, 2, 5, 7], [1, 1, 3, 6], [4, 0, 2, 2]], np.int32)
VALUES = np.array([[1.0, 0.5, 0.0, 2.0], [1.0, -1.0, 3.0, 0.0], [0.0, 0.0, 1.5, 0.5]], np.float32)
FIELDS = np.array([[0, 0, 1, 2], [2, 2, 1, 1], [0, 1, 1, 0]], np.int32)
HOOK_FNS = ("mul", "add", "sin", "mulconst", "sum", "chain", "matmul")


def hooked_fn(ms, name):
    """The function of hook case `name`, written in framework `ms`'s terms."""
    ops, T = ms.ops, ms.Tensor
    c = T(np.array([5.0, 6.0], np.float32))
    return {"mul": lambda x, y: x * y, "add": lambda x, y: x + y, "sin": lambda x, y: ops.sin(x) + y,
            "mulconst": lambda x, y: x * c, "sum": lambda x, y: (x * y).sum(),
            "chain": lambda x, y: ops.sin(x * y), "matmul": lambda x, y: ops.matmul(x.reshape(2, 1),
                                                                                    y.reshape(1, 2)).sum()}[name]


def record_hooks(ms, out: dict, arrays: dict) -> None:
    """Saved-tensor hooks: which tensors each function packs, in which order they come back, the gradients."""
    x, y = ms.Tensor(np.array([1.0, 2.0], np.float32)), ms.Tensor(np.array([3.0, 4.0], np.float32))
    for name in HOOK_FNS:
        log = []

        def pack(t):
            log.append(["pack", t.asnumpy().tolist()])
            return t + 1

        def unpack(t):
            log.append(["unpack", t.asnumpy().tolist()])
            return t

        f = hooked_fn(ms, name)

        def fn(a, b):
            with ms.saved_tensors_hooks(pack, unpack):
                return f(a, b)

        gx, gy = ms.grad(fn, grad_position=(0, 1))(x, y)
        out[f"hooks_{name}"] = log
        arrays[f"hooks_{name}_gx"], arrays[f"hooks_{name}_gy"] = gx.asnumpy(), gy.asnumpy()


def record_embedding(ms, arrays: dict) -> None:
    for op in ("SUM", "MEAN", "MAX"):
        net = ms.nn.MultiFieldEmbeddingLookup(8, 3, 3, operator=op)
        net.embedding_table.set_data(ms.Tensor(TABLE))
        r = net(ms.Tensor(INDICES), ms.Tensor(VALUES), ms.Tensor(FIELDS))
        arrays[f"mfe_{op}"] = r.asnumpy()
    net = ms.nn.MultiFieldEmbeddingLookup(8, 3, 3, operator="SUM", max_norm=1.0)
    net.embedding_table.set_data(ms.Tensor(TABLE))
    arrays["mfe_SUM_max_norm"] = net(ms.Tensor(INDICES), ms.Tensor(VALUES), ms.Tensor(FIELDS)).asnumpy()
    arrays["mfe_indices"], arrays["mfe_values"], arrays["mfe_fields"], arrays["mfe_table"] = (
        INDICES, VALUES, FIELDS, TABLE)


def param_hook_net(ms, all_params: bool):
    nn, T = ms.nn, ms.Tensor

    class Simple(nn.Cell):
        def __init__(self):
            super().__init__()
            self.weight = ms.Parameter(T(np.float32(2.0)), name="weight")
            self.bias = ms.Parameter(T(np.float32(1.0)), name="bias")

        def construct(self, x):
            return x * self.weight + self.bias

    def times_ten(p):
        return p * 10

    net = Simple()
    net.register_parameter_forward_hook(times_ten if all_params else [{"params": [net.weight], "hook": times_ten}])
    return net


def record_param_hooks(ms, out: dict) -> None:
    """Parameter forward hooks under jit (MindSpore applies them in graph mode)."""
    x = ms.Tensor(np.float32(3.0))
    for all_params in (False, True):
        net = param_hook_net(ms, all_params)
        value, (gx, (gw, gb)) = ms.jit(ms.value_and_grad(net, 0, net.trainable_params()))(x)
        out[f"param_hook_{'all' if all_params else 'list'}"] = [float(value), float(gx), float(gw), float(gb)]


def record_tensor(ms, out: dict, arrays: dict) -> None:
    T = ms.Tensor
    src = T(np.arange(1, 7, dtype=np.float32))
    windows = {"whole": (), "offset": (1, (3,)), "strided": (0, (2, 2), (1, 2)), "2d": (1, (2, 2), (3, 1))}
    for name, args in windows.items():
        t = T(np.zeros(2, np.float32))
        t.set_(src, *args)
        arrays[f"set_{name}"] = t.asnumpy()
    out["get_bytes_int16"] = list(T(np.array([[1, 2], [3, 300]], np.int16)).get_bytes())
    out["get_bytes_float32"] = list(T(np.array([1.5, -2.0], np.float32)).get_bytes())
    t = T(np.ones(2, np.float32))
    out["flags"] = {"const_arg": t.const_arg, "init": t.init, "init_flag": t.init_flag, "is_init": t.is_init(),
                    "init_finished": t.init_finished, "is_pinned": t.is_pinned(), "is_shared": t.is_shared(),
                    "symbolic_shape": t.symbolic_shape, "virtual_flag": t.virtual_flag, "delta_seed": t.delta_seed,
                    "param_info": t.param_info, "parent_tensor_": t.parent_tensor_,
                    "index_of_parent_": t.index_of_parent_, "flush_from_cache": t.flush_from_cache(),
                    "data_sync": t.data_sync(), "requires_grad_": t.requires_grad_()}
    t.set_const_arg(True)
    out["const_arg_after_set"] = t.const_arg


def record_dtypes(ms, out: dict) -> None:
    d = ms.common.dtype
    names = ("coo_tensor", "csr_tensor", "env_type", "index_slices", "symbolic_key", "type_refkey", "undetermined")
    out["dtype_str"] = {n: str(getattr(d, n)) for n in names}
    kinds = ("AnythingType", "CSRTensorType", "Ellipsis_", "EnvType", "MsClassType", "RefType")
    out["dtype_kind_str"] = {n: str(getattr(d, n)()) for n in kinds}
    out["dtype_quant"] = {"hifloat8": str(d.hifloat8), "qint4x2": str(d.qint4x2),
                          "hifloat8_size": d.type_size_in_bytes(d.hifloat8),
                          "qint4x2_size": d.type_size_in_bytes(d.qint4x2)}


def record_no_init(ms, out: dict, arrays: dict) -> None:
    """Parameters made under no_init_parameters: unfilled until init_parameters_data, then the seeded values."""
    ms.set_seed(1)
    with ms.nn.no_init_parameters():
        net = ms.nn.Dense(2, 3, weight_init="normal", bias_init="zeros")
    out["no_init_has_init"] = [net.weight.has_init, net.bias.has_init]
    net.init_parameters_data()
    out["no_init_has_init_after"] = [net.weight.has_init, net.bias.has_init]
    arrays["no_init_weight"] = net.weight.asnumpy()
    ms.set_seed(1)
    arrays["eager_init_weight"] = ms.nn.Dense(2, 3, weight_init="normal", bias_init="zeros").weight.asnumpy()


def main() -> None:
    import mindspore as ms
    out: dict = {"mindspore": ms.__version__}
    arrays: dict = {}
    record_hooks(ms, out, arrays)
    record_embedding(ms, arrays)
    record_param_hooks(ms, out)
    record_tensor(ms, out, arrays)
    record_dtypes(ms, out)
    record_no_init(ms, out, arrays)
    with open(os.path.join(HERE, "surface.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    np.savez(os.path.join(HERE, "surface.npz"), **arrays)


if __name__ == "__main__":
    main()
