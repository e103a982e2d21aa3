"""The ops layer's name for `msx.sizes` (sizes checked before XLA is asked for memory): op modules and the
backends import `check_size`, `too_large`, `oom_error`... from here; the checks themselves live one layer
down, in `msx/sizes.py`, so that eager dispatch and Tensor construction (below ops) run them too."""
from ..sizes import check_size, device_memory, nbytes, oom_error, too_large  # noqa: F401
