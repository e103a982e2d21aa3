"""MindSpore's `ops.speed_fusion_attention` (issue 35): FlashAttentionScore's attention with its keyword
interface, its `pse_type` and its seven outputs, built on the same primitives (`flash_attention_ops`).

`pse_type` 0 adds `pse` after the scale (FlashAttentionScore's `real_shift`), 1 (the default) before it:
scale * (pse + QK^T), the same call with `pse` multiplied by the scale. 2 and 3 take `pse` as per-head ALiBi
slopes and generate the bias inside the primitive (attention_core's `_alibi_bias`, the formula of Ascend's
kernel): scale * QK^T - slope * |(j + kv_start_idx) - (i + q_start_idx)|, the distance's square root for 3.
`gen_mask_parallel`/`sync` schedule Ascend's dropout-mask generator (MindSpore: "debug parameter, not
implemented yet"): type-checked, no effect on the answer. MindSpore's own `SpeedFusionAttention` kernel is
Ascend-only, so tests/test_attention.py checks this against numpy.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..errors import OpError, OpTypeError
from ..ignored_args import not_honoured
from ..tensor import Tensor
from .api import expose
from .attention_core import INT_MAX
from .flash_attention_ops import _fa_call, _flash_attention_score, _softmax_stats
from .primitive import apply

_OP = "speed_fusion_attention"


def _numels(inputs, attrs) -> int:
    """The element count of the dropout mask one call generates: B * N1 * S1 * S2, or N1 * qk_pointer (TND)."""
    q, k = inputs[0], inputs[1]
    seq_q, seq_kv, n1 = attrs["seq_qlen"], attrs["seq_kvlen"], attrs["head_num"]
    if seq_q is not None:
        lens = zip((0,) + seq_q[:-1], seq_q, (0,) + seq_kv[:-1], seq_kv)
        return n1 * sum((q1 - q0) * (k1 - k0) for q0, q1, k0, k1 in lens)
    layout = attrs["input_layout"]
    s_axis = {"BSH": 1, "BSND": 1, "SBH": 0, "BNSD": 2}[layout]
    b = q.shape[1] if layout == "SBH" else q.shape[0]
    return b * n1 * q.shape[s_axis] * k.shape[s_axis]


def _start_idx(value, name: str) -> int:
    """`q_start_idx`/`kv_start_idx`: MindSpore's "Int array with length 1" (None is 0)."""
    if value is None:
        return 0
    if not isinstance(value, (tuple, list)) or len(value) != 1 or isinstance(value[0], bool) or \
            not isinstance(value[0], (int, np.integer)):
        raise OpTypeError(f"{_OP}: {name} must be a tuple or list of one int (MindSpore: an int array of "
                          f"length 1), got {value!r}")
    return int(value[0])


@expose(ops=_OP)
def speed_fusion_attention(query, key, value, head_num, input_layout, *, pse=None, padding_mask=None,
                           atten_mask=None, scale=1.0, keep_prob=1.0, pre_tokens=INT_MAX, next_tokens=INT_MAX,
                           inner_precise=0, prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None, sparse_mode=0,
                           gen_mask_parallel=True, sync=False, pse_type=1, q_start_idx=None, kv_start_idx=None):
    """MindSpore 2.10's `ops.speed_fusion_attention` -> (attention_out, softmax_max, softmax_sum, softmax_out,
    seed, offset, numels).

    attention_out and the float32 (B, N1, S1, 8) softmax statistics are FlashAttentionScore's (every layout,
    masks, sparse modes 0-5, TND); `keep_prob < 1` drops softmax probabilities with a mask drawn from msx's
    seeded generator. seed and offset (int64 scalars) are the two words of the msx key that mask was drawn
    from (0 and 0 without dropout; MindSpore's are its Philox seed and counter, so the numbers differ);
    numels is the mask's element count (B * N1 * S1 * S2, or N1 * sum(S1_b * S2_b) for TND). softmax_out is
    MindSpore's reserved output (shape ()).

    `pse_type` 2/3: `pse` is float32 ALiBi slopes, (N1,) or (B, N1), and the bias added after the scale is
    -slope * |(j + kv_start_idx[0]) - (i + q_start_idx[0])| (2) or -slope * sqrt(|...|) (3), i the query row
    and j the key column (within each sequence for TND); `q_start_idx`/`kv_start_idx` are one-int lists
    (None: 0), read only then, as in MindSpore. Ascend's kernel also wants S1 == S2 here; msx computes the
    formula for any S1, S2. Refused: `padding_mask` (reserved), sparse modes 6-8 (not implemented in MindSpore
    2.10 either). MindSpore 2.10 documents sparse_mode 5 here as "not enabled"; msx runs it as
    flash_attention_score does."""
    if isinstance(pse_type, bool) or not isinstance(pse_type, int):
        raise OpTypeError(f"{_OP}: pse_type must be an int, got {type(pse_type).__name__}")
    if pse_type not in (0, 1, 2, 3):
        raise OpError(f"{_OP}: pse_type must be 0, 1, 2 or 3, got {pse_type}")
    starts = (_start_idx(q_start_idx, "q_start_idx"), _start_idx(kv_start_idx, "kv_start_idx"))
    alibi = pse_type in (2, 3) and pse is not None
    if not alibi:
        for name, v in (("q_start_idx", q_start_idx), ("kv_start_idx", kv_start_idx)):
            not_honoured(_OP, name, v, None, "it offsets only the ALiBi bias that pse_type 2/3 generates from pse "
                                             "slopes, as in MindSpore")
    for name, v in (("gen_mask_parallel", gen_mask_parallel), ("sync", sync)):
        if not isinstance(v, bool):
            raise OpTypeError(f"{_OP}: {name} must be a bool, got {type(v).__name__}")
    if pse is not None and not isinstance(pse, Tensor):
        raise OpTypeError(f"{_OP}: pse must be a Tensor, got {type(pse).__name__}")
    inputs, attrs = _fa_call(query, key, value, head_num, pse, None, padding_mask, atten_mask, prefix,
                             actual_seq_qlen, actual_seq_kvlen, keep_prob, scale, pre_tokens, next_tokens,
                             input_layout, sparse_mode, op=_OP, shift_scale=float(scale) if pse_type == 1 else 1.0,
                             alibi=(*starts, pse_type == 3) if alibi else None)
    out = apply(_flash_attention_score, inputs, attrs)
    top, total = apply(_softmax_stats, inputs, attrs)
    if "rng_key" in attrs["inputs"]:
        raw = inputs[3 + attrs["inputs"].index("rng_key")]
        seed, offset = raw[0].astype(mstype.int64), raw[1].astype(mstype.int64)
    else:
        seed, offset = Tensor(np.array(0, np.int64)), Tensor(np.array(0, np.int64))
    numels = Tensor(np.array(_numels(inputs, attrs), np.int64))
    return out, top, total, Tensor(np.zeros((), query._data.dtype)), seed, offset, numels
