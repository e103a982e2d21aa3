"""The nn Cells of issue 32's third round, written once for both frameworks (`root` is mindspore or msx):
`CASES[id] = (build(root) -> Cell, inputs, train)`; parameters are set from numpy by `fill` on both sides."""
import numpy as np

_R = np.random.default_rng(3232)
X4 = _R.standard_normal((2, 3, 4, 4)).astype(np.float32)
X2 = _R.standard_normal((4, 3)).astype(np.float32)
X3 = _R.standard_normal((2, 3, 5)).astype(np.float32)
SPD = (lambda a: (a @ a.T + 3 * np.eye(3)).astype(np.float32))(_R.standard_normal((3, 3)))
POS = _R.uniform(0.5, 3.0, (2, 3)).astype(np.float32)
POS2 = _R.uniform(0.5, 3.0, (2, 3)).astype(np.float32)
LOGITS = _R.standard_normal((2, 4)).astype(np.float32)
LABELS = np.array([[3, 0, -1, 1], [1, 2, 3, -1]], np.int32)
V4 = _R.standard_normal((2, 3, 4, 4)).astype(np.float32)


def fill(net) -> None:
    """Every parameter from numpy, keyed by its own name's last part (MindSpore's BatchNorm calls its moving
    statistics `mean`/`variance` where msx says `moving_mean`/`moving_variance`)."""
    for name, p in net.parameters_and_names():
        key = name.rsplit(".", 1)[-1].replace("moving_", "")
        seed = sum(map(ord, key)) + 7 * len(p.shape)
        rng = np.random.default_rng(seed)
        if key == "variance":
            value = rng.uniform(0.5, 1.5, p.shape)
        elif key == "gamma":
            value = rng.uniform(0.5, 1.5, p.shape)
        else:
            value = rng.standard_normal(p.shape) * 0.5
        p.set_data(type(p)(value.astype(np.float32)) if hasattr(type(p), "set_data") else value)


def _cube(root):
    def fn(x):
        return x * x * x + 2 * x
    return fn


CASES = {
    "sync_batchnorm_train": (lambda ms: ms.nn.SyncBatchNorm(3), [X4], True),
    "sync_batchnorm_eval": (lambda ms: ms.nn.SyncBatchNorm(3), [X4], False),
    "sync_batchnorm_2d_train": (lambda ms: ms.nn.SyncBatchNorm(3, momentum=0.8), [X2], True),
    "conv2d_bn_act_train": (lambda ms: ms.nn.Conv2dBnAct(3, 2, 3, has_bn=True, activation="relu"), [X4], True),
    "conv2d_bn_act_eval": (lambda ms: ms.nn.Conv2dBnAct(3, 2, 3, stride=2, pad_mode="valid", has_bias=True,
                                                         has_bn=True, activation="leakyrelu", alpha=0.1), [X4], False),
    "dense_bn_act_train": (lambda ms: ms.nn.DenseBnAct(3, 2, has_bn=True, activation="sigmoid"), [X2], True),
    "dense_bn_act_plain": (lambda ms: ms.nn.DenseBnAct(3, 2), [X2], False),
    "lrn": (lambda ms: ms.nn.LRN(depth_radius=1, bias=1.5, alpha=0.3, beta=0.75), [X4], False),
    "log_softmax_ext_none_2d": (lambda ms: ms.nn.LogSoftmaxExt(), [X2], False),
    "log_softmax_ext_none_3d": (lambda ms: ms.nn.LogSoftmaxExt(), [X3], False),
    "log_softmax_ext_dim": (lambda ms: ms.nn.LogSoftmaxExt(-1), [X3], False),
    "mat_det": (lambda ms: ms.nn.MatDet(), [SPD], False),
    "mat_inverse": (lambda ms: ms.nn.MatInverse(), [SPD], False),
    "lgamma": (lambda ms: ms.nn.LGamma(), [POS], False),
    "digamma": (lambda ms: ms.nn.DiGamma(), [POS], False),
    "igamma": (lambda ms: ms.nn.IGamma(), [POS, POS2], False),
    "multilabel_margin_loss": (lambda ms: ms.nn.MultilabelMarginLoss(), [LOGITS, LABELS], False),
    "multilabel_margin_loss_none": (lambda ms: ms.nn.MultilabelMarginLoss("none"), [LOGITS, LABELS], False),
    "jvp": (lambda ms: ms.nn.Jvp(_cube(ms)), [X4, V4], False),
    "vjp": (lambda ms: ms.nn.Vjp(_cube(ms)), [X4, V4], False),
}


# experimental.optim: three steps on two Parameters with fixed gradients (one group, then two groups)
W0 = _R.standard_normal((2, 3)).astype(np.float32)
B0 = _R.standard_normal((3,)).astype(np.float32)
GRADS = [(_R.standard_normal((2, 3)).astype(np.float32), _R.standard_normal((3,)).astype(np.float32))
         for _ in range(3)]
GRADS[2] = (-GRADS[1][0], GRADS[1][1])  # a sign flip (Rprop's shrinking branch)
OPTIMIZERS = {
    "nadam": ("NAdam", {"lr": 0.05}),
    "nadam_wd": ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "momentum_decay": 0.01}),
    "radam": ("RAdam", {"lr": 0.05}),
    "radam_short_window": ("RAdam", {"lr": 0.05, "betas": (0.9, 0.5)}),  # rho_t > 5 from the first steps
    "rprop": ("Rprop", {"lr": 0.05}),
    "rprop_clip": ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (0.01, 0.06)}),
    "asgd": ("ASGD", {"lr": 0.05}),
    "asgd_average": ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 1.0, "weight_decay": 0.05}),
}


def run_optimizer(root, case_id: str) -> list:
    """The two Parameters after each of three steps."""
    name, kwargs = OPTIMIZERS[case_id]
    w, b = root.Parameter(root.Tensor(W0), name="w"), root.Parameter(root.Tensor(B0), name="b")
    opt = getattr(root.experimental.optim, name)([w, b], **kwargs)
    seen = []
    for gw, gb in GRADS:
        opt((root.Tensor(gw), root.Tensor(gb)))
        seen.append([w.asnumpy().copy(), b.asnumpy().copy()])
    return seen


# max unpooling layers (their own draws, after everything above)
_U = np.random.default_rng(3234)
UNPOOL_X = _U.standard_normal((1, 2, 2, 2)).astype(np.float32)
UNPOOL_I = (np.array([[0, 3], [9, 15]], np.int64) * np.ones((1, 2, 1, 1), np.int64)).astype(np.int64)
UNPOOL_X1 = _U.standard_normal((2, 3)).astype(np.float32)
UNPOOL_I1 = np.array([[0, 3, 5], [1, 2, 4]], np.int64)
UNPOOL_I9 = (np.array([[0, 2], [6, 8]], np.int64) * np.ones((1, 2, 1, 1), np.int64)).astype(np.int64)
CASES.update({
    "max_unpool1d_layer": (lambda ms: ms.nn.MaxUnpool1d(2), [UNPOOL_X1, UNPOOL_I1], False),
    "max_unpool2d_layer": (lambda ms: ms.nn.MaxUnpool2d(2), [UNPOOL_X, UNPOOL_I], False),
    "max_unpool2d_layer_stride": (lambda ms: ms.nn.MaxUnpool2d(3, stride=2, padding=1), [UNPOOL_X, UNPOOL_I9], False),
})
