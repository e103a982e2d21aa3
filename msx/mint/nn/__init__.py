"""`msx.mint.nn`: torch-style layer names (views of `msx.nn`).

The layer classes are looked up in `msx.nn` on first use, so importing `msx.mint`
never depends on (or cycles through) the layer modules.
"""
from . import functional  # noqa: F401

_FROM_NN = ("Dropout", "Flatten", "GELU", "Linear", "ReLU", "Sigmoid", "Tanh", "Softmax",
            "L1Loss", "MSELoss", "BCEWithLogitsLoss", "CrossEntropyLoss")


def __getattr__(name: str):
    if name in _FROM_NN:
        from ... import nn

        return getattr(nn, name)
    raise AttributeError(f"module 'msx.mint.nn' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_FROM_NN))
