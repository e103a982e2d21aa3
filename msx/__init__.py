"""msx: MindSpore-2.x-style deep learning on JAX. `import msx as ms` ports MindSpore code."""
import jax as _jax

_jax.config.update("jax_enable_x64", True)  # msx.float64/int64 are real dtypes; defaults stay float32/int64
from .communication.management import join_if_launched as _join_if_launched  # noqa: E402

_join_if_launched()  # an msrun worker joins jax's cluster before jax's first computation (jax requires it)

from .dtype import (Type, bfloat16, bool_, complex64, double, float16, float32, float64, float_, half,  # noqa: E402
                    int8, int16, int32, int64, int_, uint8, uint32)
from . import dtype  # noqa: E402
from .tensor import Parameter, Tensor, from_numpy  # noqa: E402
from .context import GRAPH_MODE, PYNATIVE_MODE, get_context, get_seed, set_context, set_seed  # noqa: E402
from . import errors, ops  # noqa: E402
from .autograd import grad, value_and_grad  # noqa: E402
from . import nn, mint  # noqa: E402
from .jit import jit  # noqa: E402
from .dynamic import Symbol, enable_dynamic  # noqa: E402
from . import backends, ir, passes  # noqa: E402
from .export import export, load  # noqa: E402
from .checkpoint import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: E402
from . import amp, dataset, train  # noqa: E402

from .parallel.context import (ParallelMode, get_auto_parallel_context, reset_auto_parallel_context,  # noqa: E402
                               set_auto_parallel_context)
from . import communication, parallel  # noqa: E402

__version__ = "0.1.0"
