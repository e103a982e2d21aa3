import numpy as np, msx as ms, traceback
from msx import nn, Tensor, ops
net = nn.Dense(3, 2)
try: net(np.ones((2,3), np.float32))
except Exception: traceback.print_exc()
for a,b in [(ms.float64, ms.float32),(ms.float16, ms.float32)]:
    try: print(ops.matmul(Tensor(np.ones((2,3)),a), Tensor(np.ones((3,2)),b)).dtype)
    except Exception as e: print(type(e).__name__, e)
