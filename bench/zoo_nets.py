"""The bench's model zoo: ten networks written once as MindSpore code, run by msx and by MindSpore 2.10.

`networks(nn, ops)` maps a name to a constructor against whichever framework's `nn`/`ops` it is given:
ResNet-18/50, EfficientNet-B0, MobileNetV2/V3-small, DenseNet-121, GoogLeNet (conv + BN blocks as mindcv
writes them, ImageNet heads of 1000 classes), a small ViT, an LSTM classifier and a transformer encoder
(token inputs). `example_inputs(fw, name)` gives each one's batch of 2 (images 3x64x64, or 32 tokens of a
1000-word vocabulary) and labels; `momentum_train_step(fw, net)` is the jitted step a MindSpore script writes.
bench_build.py, bench_cold_start.py and bench_step_hlo.py share them, so every table measures the same code.
"""
from __future__ import annotations

import numpy as np

CNNS = ("resnet18", "resnet50", "efficientnet_b0", "mobilenet_v2", "mobilenet_v3_small", "densenet121",
        "googlenet", "vit_tiny")
SEQUENCE_NETS = ("lstm_classifier", "transformer_encoder")
NETS = CNNS + SEQUENCE_NETS
VOCAB, TOKENS = 1000, 32


def example_inputs(fw, name: str):
    """(x, y) for `name`: a batch of 2 images or token sequences and int32 labels, the same on both sides."""
    rng = np.random.default_rng(0)
    if name in SEQUENCE_NETS:
        x = fw.Tensor(rng.integers(0, VOCAB, (2, TOKENS)).astype(np.int32))
    else:
        x = fw.Tensor(rng.standard_normal((2, 3, 64, 64)).astype(np.float32))
    return x, fw.Tensor(np.array([1, 7], np.int32))


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


def networks(fw):
    """The ten networks as MindSpore code against `fw` (the `mindspore` or `msx` module): name -> constructor."""
    nn, ops, Parameter = fw.nn, fw.ops, fw.Parameter
    initializer, TruncatedNormal = fw.common.initializer.initializer, fw.common.initializer.TruncatedNormal

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


    class SqueezeExcite(nn.Cell):
        def __init__(self, ch, squeeze):
            super().__init__()
            self.reduce = nn.Conv2d(ch, squeeze, 1, has_bias=True)
            self.expand = nn.Conv2d(squeeze, ch, 1, has_bias=True)
            self.gate = nn.HSigmoid()

        def construct(self, x):
            return x * self.gate(self.expand(ops.relu(self.reduce(ops.mean(x, (2, 3), True)))))

    class MobileNetV3Block(nn.Cell):
        def __init__(self, cin, mid, cout, k, stride, se, hswish):
            super().__init__()
            act = nn.HSwish() if hswish else nn.ReLU()
            layers = [] if mid == cin else [conv_bn(cin, mid, 1, act=False), act]
            layers += [conv_bn(mid, mid, k, stride, group=mid, act=False), act]
            layers += [SqueezeExcite(mid, max(8, mid // 4))] if se else []
            layers += [conv_bn(mid, cout, 1, act=False)]
            self.block = nn.SequentialCell(layers)
            self.skip = stride == 1 and cin == cout

        def construct(self, x):
            return x + self.block(x) if self.skip else self.block(x)

    class MobileNetV3Small(nn.Cell):
        # (kernel, expanded, out, squeeze-excite, hard-swish, stride) of MobileNetV3-small (width 1.0)
        CONFIG = ((3, 16, 16, True, False, 2), (3, 72, 24, False, False, 2), (3, 88, 24, False, False, 1),
                  (5, 96, 40, True, True, 2), (5, 240, 40, True, True, 1), (5, 240, 40, True, True, 1),
                  (5, 120, 48, True, True, 1), (5, 144, 48, True, True, 1), (5, 288, 96, True, True, 2),
                  (5, 576, 96, True, True, 1), (5, 576, 96, True, True, 1))

        def __init__(self, classes=1000):
            super().__init__()
            blocks, cin = [conv_bn(3, 16, 3, 2, act=False), nn.HSwish()], 16
            for k, mid, cout, se, hswish, stride in self.CONFIG:
                blocks.append(MobileNetV3Block(cin, mid, cout, k, stride, se, hswish))
                cin = cout
            self.features = nn.SequentialCell(blocks + [conv_bn(cin, 576, 1, act=False), nn.HSwish()])
            self.head = nn.SequentialCell([nn.Dense(576, 1024), nn.HSwish(), nn.Dense(1024, classes)])

        def construct(self, x):
            return self.head(ops.mean(self.features(x), (2, 3)))

    class DenseLayer(nn.Cell):
        def __init__(self, cin, growth):
            super().__init__()
            self.norm1, self.conv1 = nn.BatchNorm2d(cin), nn.Conv2d(cin, 4 * growth, 1)
            self.norm2 = nn.BatchNorm2d(4 * growth)
            self.conv2 = nn.Conv2d(4 * growth, growth, 3, pad_mode="pad", padding=1)

        def construct(self, x):
            y = self.conv1(ops.relu(self.norm1(x)))
            return ops.concat((x, self.conv2(ops.relu(self.norm2(y)))), 1)

    class DenseNet121(nn.Cell):
        def __init__(self, classes=1000, growth=32, blocks=(6, 12, 24, 16)):
            super().__init__()
            layers, cin = [conv_bn(3, 64, 7, 2), nn.MaxPool2d(3, 2, pad_mode="same")], 64
            for i, depth in enumerate(blocks):
                for _ in range(depth):
                    layers.append(DenseLayer(cin, growth))
                    cin += growth
                if i != len(blocks) - 1:
                    layers += [nn.BatchNorm2d(cin), nn.ReLU(), nn.Conv2d(cin, cin // 2, 1), nn.AvgPool2d(2, 2)]
                    cin //= 2
            self.features = nn.SequentialCell(layers + [nn.BatchNorm2d(cin), nn.ReLU()])
            self.head = nn.Dense(cin, classes)

        def construct(self, x):
            return self.head(ops.mean(self.features(x), (2, 3)))

    class Inception(nn.Cell):
        def __init__(self, cin, c1, c3r, c3, c5r, c5, pool):
            super().__init__()
            self.b1 = conv_bn(cin, c1, 1)
            self.b2 = nn.SequentialCell([conv_bn(cin, c3r, 1), conv_bn(c3r, c3, 3)])
            self.b3 = nn.SequentialCell([conv_bn(cin, c5r, 1), conv_bn(c5r, c5, 3)])
            self.b4 = nn.SequentialCell([nn.MaxPool2d(3, 1, pad_mode="same"), conv_bn(cin, pool, 1)])

        def construct(self, x):
            return ops.concat((self.b1(x), self.b2(x), self.b3(x), self.b4(x)), 1)

    class GoogLeNet(nn.Cell):
        # (c1, c3 reduce, c3, c5 reduce, c5, pool projection) of each Inception block; "M" a max pool
        CONFIG = ((64, 96, 128, 16, 32, 32), (128, 128, 192, 32, 96, 64), "M", (192, 96, 208, 16, 48, 64),
                  (160, 112, 224, 24, 64, 64), (128, 128, 256, 24, 64, 64), (112, 144, 288, 32, 64, 64),
                  (256, 160, 320, 32, 128, 128), "M", (256, 160, 320, 32, 128, 128),
                  (384, 192, 384, 48, 128, 128))

        def __init__(self, classes=1000):
            super().__init__()
            layers = [conv_bn(3, 64, 7, 2), nn.MaxPool2d(3, 2, pad_mode="same"), conv_bn(64, 64, 1),
                      conv_bn(64, 192, 3), nn.MaxPool2d(3, 2, pad_mode="same")]
            cin = 192
            for spec in self.CONFIG:
                if spec == "M":
                    layers.append(nn.MaxPool2d(3, 2, pad_mode="same"))
                    continue
                layers.append(Inception(cin, *spec))
                cin = spec[0] + spec[2] + spec[4] + spec[5]
            self.features = nn.SequentialCell(layers)
            self.head = nn.Dense(cin, classes)

        def construct(self, x):
            return self.head(ops.mean(self.features(x), (2, 3)))

    class Attention(nn.Cell):
        def __init__(self, dim, heads):
            super().__init__()
            self.heads, self.scale = heads, (dim // heads) ** -0.5
            self.qkv, self.proj = nn.Dense(dim, 3 * dim), nn.Dense(dim, dim)

        def construct(self, x):
            b, n, d = x.shape
            qkv = ops.transpose(ops.reshape(self.qkv(x), (b, n, 3, self.heads, d // self.heads)), (2, 0, 3, 1, 4))
            q, k, v = qkv[0], qkv[1], qkv[2]
            attn = ops.softmax(ops.matmul(q, ops.transpose(k, (0, 1, 3, 2))) * self.scale, -1)
            return self.proj(ops.reshape(ops.transpose(ops.matmul(attn, v), (0, 2, 1, 3)), (b, n, d)))

    class ViTBlock(nn.Cell):
        def __init__(self, dim, heads):
            super().__init__()
            self.norm1, self.attn = nn.LayerNorm((dim,)), Attention(dim, heads)
            self.norm2 = nn.LayerNorm((dim,))
            self.mlp = nn.SequentialCell([nn.Dense(dim, 4 * dim), nn.GELU(), nn.Dense(4 * dim, dim)])

        def construct(self, x):
            x = x + self.attn(self.norm1(x))
            return x + self.mlp(self.norm2(x))

    class ViTTiny(nn.Cell):
        """ViT-Ti's width (192, 3 heads) at 4 blocks, 8x8 patches of a 64x64 image."""

        def __init__(self, classes=1000, dim=192, depth=4, heads=3, patch=8):
            super().__init__()
            self.patch = nn.Conv2d(3, dim, patch, patch, has_bias=True)
            self.pos = Parameter(initializer(TruncatedNormal(0.02), (1, (64 // patch) ** 2, dim)), name="pos")
            self.blocks = nn.SequentialCell([ViTBlock(dim, heads) for _ in range(depth)])
            self.norm, self.head = nn.LayerNorm((dim,)), nn.Dense(dim, classes)

        def construct(self, x):
            x = self.patch(x)
            x = ops.transpose(ops.reshape(x, (x.shape[0], x.shape[1], -1)), (0, 2, 1)) + self.pos
            return self.head(ops.mean(self.norm(self.blocks(x)), 1))

    class LSTMClassifier(nn.Cell):
        def __init__(self, classes=1000, embed=64, hidden=128):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, embed)
            self.lstm = nn.LSTM(embed, hidden, num_layers=2, batch_first=True, bidirectional=True)
            self.head = nn.Dense(2 * hidden, classes)

        def construct(self, x):
            out, _ = self.lstm(self.embed(x))
            return self.head(out[:, -1])

    class TransformerClassifier(nn.Cell):
        def __init__(self, classes=1000, dim=128, heads=4, depth=2):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, dim)
            layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, depth)
            self.head = nn.Dense(dim, classes)

        def construct(self, x):
            return self.head(ops.mean(self.encoder(self.embed(x)), 1))

    return {"resnet18": lambda: ResNet(Basic, (2, 2, 2, 2)), "resnet50": lambda: ResNet(Bottleneck, (3, 4, 6, 3)),
            "efficientnet_b0": EfficientNetB0, "mobilenet_v2": MobileNetV2, "mobilenet_v3_small": MobileNetV3Small,
            "densenet121": DenseNet121, "googlenet": GoogLeNet, "vit_tiny": ViTTiny,
            "lstm_classifier": LSTMClassifier, "transformer_encoder": TransformerClassifier}
