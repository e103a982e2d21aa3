"""The small mindcv-style network of the MindSpore checkpoint goldens, for MindSpore and msx alike.

`define(nn)` with `mindspore.nn` (tests/golden/make_ms_ckpt.py, the live oracle) or `msx.nn`
(tests/test_ms_checkpoint.py): one definition, so both sides name their Parameters the same way.
"""


def define(nn):
    class SmallCNN(nn.Cell):
        """Conv2d + BatchNorm2d (moving stats) + ReLU + pooling + Dense."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 3, has_bias=False)
            self.bn = nn.BatchNorm2d(2)
            self.relu = nn.ReLU()
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.flatten = nn.Flatten()
            self.fc = nn.Dense(2, 3)

        def construct(self, x):
            return self.fc(self.flatten(self.pool(self.relu(self.bn(self.conv(x))))))

    return SmallCNN
