"""A small LLaMA-style decoder trained on 8 devices with dp2 x tp2 x pp2, and the same on one device.

MindSpore code (msx runs it unchanged): token embedding, RMSNorm, rotary position embedding, causal
`ops.flash_attention_score`, a SwiGLU MLP and an output projection tied to the embedding. The parallel run is
SEMI_AUTO_PARALLEL over 8 devices: 2 pipeline stages (`pipeline_stages=2`, one decoder layer each, 1F1B over 4
micro-batches through `nn.PipelineCell`), and inside each stage of 4 devices the batch over 2 (data parallel)
and the attention heads and MLP columns over 2 (tensor parallel, `MatMul().shard`); every layer recomputed in
the backward pass (`Cell.recompute`) and the optimizer at ZeRO-3 (`optimizer_level="level3"`: weights and Adam
state cut over the data-parallel devices). The same network, seed and batches then train on one device
(STAND_ALONE); the losses and parameters are compared.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 python examples/train_llama_parallel.py

(on a GPU host the 8 devices are its GPUs). Prints one JSON line: both runs' losses and the largest relative
parameter difference. Across processes, e.g. 2 msrun ranks of 4 host devices each (a pipeline stage per rank):

    XLA_FLAGS=--xla_force_host_platform_device_count=4 msrun --worker_num=2 --local_worker_num=2 \
        --master_port=8118 --join=True examples/train_llama_parallel.py --run parallel --out OUT_DIR

trains the parallel run only, each rank feeding the batch rows of its data-parallel rank, and writes
OUT_DIR/rank<r>.npz (losses and parameters); `--run one_device --out OUT_DIR` writes the one-device run's.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")   # before jax starts

import numpy as np

import msx as ms
from msx import nn, ops
from msx.communication import get_group_size, get_rank, init
from msx.parallel import Layout

VOCAB, HIDDEN, HEADS, FFN, LAYERS, SEQ = 128, 64, 4, 128, 2, 32
BATCH, MICRO, STEPS = 16, 4, 3
DP, TP, PP = 2, 2, 2
STAGE = Layout((DP, TP), ("dp", "tp"))   # one pipeline stage's devices (strategies are per stage)
COLUMN = (STAGE("dp", "None"), STAGE("None", "tp"))   # x @ w, w cut by columns: heads / MLP units over tp
ROW = (STAGE("dp", "tp"), STAGE("tp", "None"))        # w cut by rows: the partial sums all-reduced over tp


class RMSNorm(nn.Cell):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(np.ones(dim, np.float32)), name="weight")
        self.eps = eps

    def construct(self, x):
        return x * ops.rsqrt((x * x).mean(-1, keep_dims=True) + self.eps) * self.weight


def _weight(rng, shape, name):
    return ms.Parameter(ms.Tensor((rng.normal(size=shape) * 0.02).astype(np.float32)), name=name)


class Attention(nn.Cell):
    def __init__(self, rng, parallel: bool):
        super().__init__()
        self.wq, self.wk, self.wv = (_weight(rng, (HIDDEN, HIDDEN), n) for n in ("wq", "wk", "wv"))
        self.wo = _weight(rng, (HIDDEN, HIDDEN), "wo")
        self.column = [ops.MatMul() for _ in range(3)]
        self.row = ops.MatMul()
        if parallel:   # Megatron's split: q/k/v by heads (columns), the output projection by rows
            for mm in self.column:
                mm.shard(COLUMN)
            self.row.shard(ROW)

    def construct(self, x, cos, sin):
        b, s, _ = x.shape
        flat = x.reshape(b * s, HIDDEN)
        # (B, S, N, D): the heads stay where the column split put them (no transpose to reshard)
        q, k, v = (mm(flat, w).reshape(b, s, HEADS, HIDDEN // HEADS)
                   for mm, w in zip(self.column, (self.wq, self.wk, self.wv)))
        q, k = ops.rotary_position_embedding(q, cos, sin), ops.rotary_position_embedding(k, cos, sin)
        out = ops.flash_attention_score(q, k, v, HEADS, scalar_value=1 / math.sqrt(HIDDEN // HEADS),
                                        input_layout="BSND", sparse_mode=2)   # causal
        return self.row(out.reshape(b * s, HIDDEN), self.wo).reshape(b, s, HIDDEN)


class SwiGLU(nn.Cell):
    def __init__(self, rng, parallel: bool):
        super().__init__()
        self.w1, self.w3 = _weight(rng, (HIDDEN, FFN), "w1"), _weight(rng, (HIDDEN, FFN), "w3")
        self.w2 = _weight(rng, (FFN, HIDDEN), "w2")
        self.up, self.gate, self.down = ops.MatMul(), ops.MatMul(), ops.MatMul()
        if parallel:
            self.up.shard(COLUMN)
            self.gate.shard(COLUMN)
            self.down.shard(ROW)

    def construct(self, x):
        b, s, _ = x.shape
        flat = x.reshape(b * s, HIDDEN)
        h = ops.silu(self.gate(flat, self.w1)) * self.up(flat, self.w3)
        return self.down(h, self.w2).reshape(b, s, HIDDEN)


class DecoderLayer(nn.Cell):
    def __init__(self, rng, parallel: bool):
        super().__init__()
        self.attention_norm, self.ffn_norm = RMSNorm(HIDDEN), RMSNorm(HIDDEN)
        self.attention, self.feed_forward = Attention(rng, parallel), SwiGLU(rng, parallel)

    def construct(self, x, cos, sin):
        x = x + self.attention(self.attention_norm(x), cos, sin)
        return x + self.feed_forward(self.ffn_norm(x))


class Llama(nn.Cell):
    def __init__(self, parallel: bool):
        super().__init__()
        rng = np.random.default_rng(0)
        self.tok_embeddings = nn.Embedding(VOCAB, HIDDEN, embedding_table=ms.Tensor(
            (rng.normal(size=(VOCAB, HIDDEN)) * 0.02).astype(np.float32)))
        self.layers = nn.CellList([DecoderLayer(rng, parallel) for _ in range(LAYERS)])
        self.norm = RMSNorm(HIDDEN)
        self.lm_head = ops.MatMul(transpose_b=True)   # tied: the embedding table is the output projection
        self.loss = nn.CrossEntropyLoss()
        d = HIDDEN // HEADS
        freqs = 1.0 / (10000 ** (np.arange(0, d, 2, dtype=np.float32) / d))
        angles = np.outer(np.arange(SEQ, dtype=np.float32), freqs)
        angles = np.concatenate([angles, angles], axis=-1)[None, :, None]       # (1, S, 1, d), rotate_half
        self.cos, self.sin = ms.Tensor(np.cos(angles)), ms.Tensor(np.sin(angles))

    def construct(self, tokens, labels):
        x = self.tok_embeddings(tokens)
        for layer in self.layers:
            x = layer(x, self.cos, self.sin)
        logits = self.lm_head(self.norm(x).reshape(-1, HIDDEN), self.tok_embeddings.embedding_table)
        return self.loss(logits, labels.reshape(-1))


def build(parallel: bool) -> tuple[Llama, nn.Cell]:
    net = Llama(parallel)
    net.tok_embeddings.pipeline_stage = 0
    for i, layer in enumerate(net.layers):
        layer.pipeline_stage = i * PP // LAYERS
        layer.recompute()
    net.norm.pipeline_stage = PP - 1
    return net, nn.PipelineCell(net, MICRO)


def _rows() -> slice:
    """Under msrun, this rank's rows of the batch: those of its data-parallel rank (the ranks of one pipeline stage
    split the batch, every stage reads it); alone, the whole batch."""
    if "RANK_SIZE" not in os.environ:
        return slice(None)
    slices = max(get_group_size() // PP, 1)
    mine = get_rank() % slices
    return slice(mine * BATCH // slices, (mine + 1) * BATCH // slices)


def train(parallel: bool) -> tuple[list[float], list[np.ndarray]]:
    ms.reset_auto_parallel_context()
    if parallel:
        ms.set_auto_parallel_context(
            parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=DP * TP * PP, pipeline_stages=PP,
            pipeline_config={"pipeline_interleave": False, "pipeline_scheduler": "1f1b"},
            enable_parallel_optimizer=True,
            parallel_optimizer_config={"optimizer_level": "level3", "parallel_optimizer_threshold": 0})
    net, pipe = build(parallel)
    optimizer = nn.AdamWeightDecay(net.trainable_params(), learning_rate=1e-3, weight_decay=0.01)
    grad_fn = ms.value_and_grad(pipe, None, optimizer.parameters)
    reducer = nn.PipelineGradReducer(optimizer.parameters, scale_sense=MICRO)   # the mean over micro-batches

    @ms.jit
    def train_step(tokens, labels):
        loss, grads = grad_fn(tokens, labels)
        optimizer(reducer(grads))
        return loss / MICRO

    rows = _rows() if parallel else slice(None)
    rng = np.random.default_rng(1)
    losses = []
    for _ in range(STEPS):
        tokens = rng.integers(0, VOCAB, size=(BATCH, SEQ + 1)).astype(np.int32)[rows]
        losses.append(float(train_step(ms.Tensor(tokens[:, :-1]), ms.Tensor(tokens[:, 1:])).asnumpy()))
    return losses, [p.asnumpy() for p in net.trainable_params()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", choices=("both", "parallel", "one_device"), default="both")
    parser.add_argument("--out", help="a folder: write rank<r>.npz (losses, parameters) there instead of printing")
    args = parser.parse_args()
    if "RANK_SIZE" in os.environ:   # an msrun worker: join the other ranks
        init()
    import jax

    if args.run != "one_device" and jax.device_count() < DP * TP * PP:
        print(f"needs {DP * TP * PP} devices (XLA_FLAGS=--xla_force_host_platform_device_count=8), got "
              f"{jax.device_count()}", file=sys.stderr)
        return 2
    if args.run != "both":
        losses, params = train(args.run == "parallel")
        os.makedirs(args.out, exist_ok=True)
        rank = get_rank() if "RANK_SIZE" in os.environ else 0
        np.savez(os.path.join(args.out, f"rank{rank}.npz"), losses=np.array(losses),
                 **{f"p{i}": p for i, p in enumerate(params)})
        return 0
    parallel_losses, parallel_params = train(True)
    one_losses, one_params = train(False)
    rel = max(float(np.abs(a - b).max() / (np.abs(b).max() + 1e-12)) for a, b in zip(parallel_params, one_params))
    norm = max(float(np.linalg.norm(a - b) / (np.linalg.norm(b) + 1e-12)) for a, b in zip(parallel_params, one_params))
    print(json.dumps({"parallel": parallel_losses, "one_device": one_losses, "max_rel_param_diff": rel,
                      "max_norm_rel_param_diff": norm}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
