"""How long building a network takes: msx against MindSpore 2.10 on the same MindSpore-style source.

ResNet-18, ResNet-50, EfficientNet-B0 and MobileNetV2 (ImageNet shapes, 1000 classes), written once below against
`nn` of whichever framework runs them, with MindSpore's default initializers. Each framework builds each
network `--repeat` times in its own fresh process (after `import` and `set_seed(0)`, not timed); the
first build of a process is what a user waits for, the best of the rest is the steady cost. MindSpore
runs in its venv (`$MSX_MINDSPORE_PYTHON`, else /work/main/.venv-ms/bin/python) and is skipped where
there is none; `--msx-root DIR` adds an older msx checkout (e.g. `git archive` of main) for a before/after.

    python bench/bench_build.py [--repeat 3] [--msx-root DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NETS = ("resnet18", "resnet50", "efficientnet_b0", "mobilenet_v2")


def momentum_train_step(fw, net):
    """The jitted training step a MindSpore script writes (`value_and_grad` of cross-entropy + Momentum under
    `jit`), for `fw` = mindspore or msx: bench_cold_start.py times it, bench_step_hlo.py reads its StableHLO."""
    loss_fn = fw.nn.CrossEntropyLoss()
    opt = fw.nn.Momentum(net.trainable_params(), 0.01, 0.9)

    def forward(a, b):   # a named function: MindSpore's jit cannot parse a lambda on a line with other code
        return loss_fn(net(a), b)

    grad_fn = fw.value_and_grad(forward, None, opt.parameters)

    @fw.jit
    def train_step(a, b):
        loss, grads = grad_fn(a, b)
        opt(grads)
        return loss

    return train_step


def networks(nn, ops):
    """The four networks as MindSpore code (conv + BN + ReLU/SiLU blocks, as mindcv writes them)."""

    def conv_bn(cin, cout, k, stride=1, group=1, act=True):
        layers = [nn.Conv2d(cin, cout, k, stride, pad_mode="pad", padding=k // 2, group=group),
                  nn.BatchNorm2d(cout)]
        return nn.SequentialCell(layers + ([nn.ReLU()] if act else []))

    class Basic(nn.Cell):
        expansion = 1

        def __init__(self, cin, width, stride):
            super().__init__()
            self.a = conv_bn(cin, width, 3, stride)
            self.b = conv_bn(width, width, 3, act=False)
            self.down = conv_bn(cin, width, 1, stride, act=False) if stride != 1 or cin != width else None

        def construct(self, x):
            y = self.b(self.a(x))
            return ops.relu(y + (x if self.down is None else self.down(x)))

    class Bottleneck(nn.Cell):
        expansion = 4

        def __init__(self, cin, width, stride):
            super().__init__()
            out = width * 4
            self.a = conv_bn(cin, width, 1)
            self.b = conv_bn(width, width, 3, stride)
            self.c = conv_bn(width, out, 1, act=False)
            self.down = conv_bn(cin, out, 1, stride, act=False) if stride != 1 or cin != out else None

        def construct(self, x):
            y = self.c(self.b(self.a(x)))
            return ops.relu(y + (x if self.down is None else self.down(x)))

    class ResNet(nn.Cell):
        def __init__(self, block, depths, classes=1000):
            super().__init__()
            self.stem = conv_bn(3, 64, 7, 2)
            self.pool = nn.MaxPool2d(3, 2, pad_mode="same")
            blocks, cin = [], 64
            for i, depth in enumerate(depths):
                for j in range(depth):
                    blocks.append(block(cin, 64 * 2 ** i, 2 if j == 0 and i > 0 else 1))
                    cin = 64 * 2 ** i * block.expansion
            self.body = nn.SequentialCell(blocks)
            self.head = nn.Dense(cin, classes)

        def construct(self, x):
            return self.head(ops.mean(self.body(self.pool(self.stem(x))), (2, 3)))

    class MBConv(nn.Cell):
        def __init__(self, cin, cout, k, stride, expand):
            super().__init__()
            mid = cin * expand
            self.expand = conv_bn(cin, mid, 1) if expand != 1 else None
            self.dw = conv_bn(mid, mid, k, stride, group=mid)
            squeeze = max(1, cin // 4)
            self.se_reduce = nn.Conv2d(mid, squeeze, 1, has_bias=True)
            self.se_expand = nn.Conv2d(squeeze, mid, 1, has_bias=True)
            self.project = conv_bn(mid, cout, 1, act=False)
            self.skip = stride == 1 and cin == cout

        def construct(self, x):
            y = self.dw(x if self.expand is None else self.expand(x))
            s = ops.sigmoid(self.se_expand(ops.relu(self.se_reduce(ops.mean(y, (2, 3), True)))))
            y = self.project(y * s)
            return x + y if self.skip else y

    class EfficientNetB0(nn.Cell):
        # (expand, channels, repeats, stride, kernel) of EfficientNet-B0
        CONFIG = ((1, 16, 1, 1, 3), (6, 24, 2, 2, 3), (6, 40, 2, 2, 5), (6, 80, 3, 2, 3), (6, 112, 3, 1, 5),
                  (6, 192, 4, 2, 5), (6, 320, 1, 1, 3))

        def __init__(self, classes=1000):
            super().__init__()
            self.stem = conv_bn(3, 32, 3, 2)
            blocks, cin = [], 32
            for expand, cout, repeats, stride, k in self.CONFIG:
                for j in range(repeats):
                    blocks.append(MBConv(cin, cout, k, stride if j == 0 else 1, expand))
                    cin = cout
            self.body = nn.SequentialCell(blocks)
            self.top = conv_bn(cin, 1280, 1)
            self.head = nn.Dense(1280, classes)

        def construct(self, x):
            return self.head(ops.mean(self.top(self.body(self.stem(x))), (2, 3)))

    class InvertedResidual(nn.Cell):
        def __init__(self, cin, cout, stride, expand):
            super().__init__()
            mid = cin * expand
            layers = ([conv_bn(cin, mid, 1)] if expand != 1 else []) + [conv_bn(mid, mid, 3, stride, group=mid),
                                                                        conv_bn(mid, cout, 1, act=False)]
            self.conv = nn.SequentialCell(layers)
            self.skip = stride == 1 and cin == cout

        def construct(self, x):
            return x + self.conv(x) if self.skip else self.conv(x)

    class MobileNetV2(nn.Cell):
        # (expand, channels, repeats, stride) of MobileNetV2 (width 1.0; ReLU where mindcv has ReLU6)
        CONFIG = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                  (6, 320, 1, 1))

        def __init__(self, classes=1000):
            super().__init__()
            blocks, cin = [conv_bn(3, 32, 3, 2)], 32
            for expand, cout, repeats, stride in self.CONFIG:
                for j in range(repeats):
                    blocks.append(InvertedResidual(cin, cout, stride if j == 0 else 1, expand))
                    cin = cout
            self.features = nn.SequentialCell(blocks + [conv_bn(cin, 1280, 1)])
            self.head = nn.Dense(1280, classes)

        def construct(self, x):
            return self.head(ops.mean(self.features(x), (2, 3)))

    return {"resnet18": lambda: ResNet(Basic, (2, 2, 2, 2)), "resnet50": lambda: ResNet(Bottleneck, (3, 4, 6, 3)),
            "efficientnet_b0": EfficientNetB0, "mobilenet_v2": MobileNetV2}


def child(framework: str, repeat: int) -> None:
    """Runs in the measuring process: import, then time each network's builds; prints JSON."""
    if framework == "mindspore":
        import mindspore as fw
        fw.set_context(mode=fw.PYNATIVE_MODE, device_target="CPU")
    else:
        import msx as fw
    nets = networks(fw.nn, fw.ops)
    out = {}
    for name in NETS:
        times = []
        for _ in range(repeat):
            fw.set_seed(0)
            start = time.perf_counter()
            net = nets[name]()
            times.append(time.perf_counter() - start)
            params = sum(int(p.size) for p in net.get_parameters())
        out[name] = {"first": times[0], "best": min(times), "params": params}
    print("RESULT " + json.dumps(out))


def measure(python: str, framework: str, repeat: int, root: str) -> dict:
    env = dict(os.environ, PYTHONPATH=root, JAX_PLATFORMS="cpu")
    proc = subprocess.run([python, os.path.abspath(__file__), "--child", framework, "--repeat", str(repeat)],
                          capture_output=True, text=True, env=env, cwd=root)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode or not lines:
        raise RuntimeError(f"{framework} bench failed:\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--msx-root", default=None, help="an older msx checkout to time beside this one")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.repeat)
    runs = {"msx": measure(sys.executable, "msx", args.repeat, ROOT)}
    if args.msx_root:
        runs["msx before"] = measure(sys.executable, "msx", args.repeat, os.path.abspath(args.msx_root))
    ms_python = os.environ.get("MSX_MINDSPORE_PYTHON", "/work/main/.venv-ms/bin/python")
    if os.path.exists(ms_python):
        runs["MindSpore 2.10"] = measure(ms_python, "mindspore", args.repeat, HERE)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} CPUs; build seconds, "
          f"first build in a fresh process / best of {args.repeat}")
    names = list(runs)
    print(f"{'network':<16} {'params':>10} " + " ".join(f"{n:>22}" for n in names)
          + ("  msx/MindSpore (first, best)" if "MindSpore 2.10" in runs else ""))
    for net in NETS:
        row = f"{net:<16} {runs['msx'][net]['params']:>10} "
        row += " ".join(f"{runs[n][net]['first']:>10.3f} / {runs[n][net]['best']:>9.3f}" for n in names)
        if "MindSpore 2.10" in runs:
            ms = runs["MindSpore 2.10"][net]
            row += (f"  {runs['msx'][net]['first'] / ms['first']:.2f}x, "
                    f"{runs['msx'][net]['best'] / ms['best']:.2f}x")
        print(row)


if __name__ == "__main__":
    main()
