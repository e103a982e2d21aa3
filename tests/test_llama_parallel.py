"""examples/train_llama_parallel.py: a small LLaMA-style decoder (embedding, RMSNorm, rotary, causal
flash_attention_score, SwiGLU, tied output) trained 3 AdamWeightDecay steps on 8 host devices with dp2 x tp2 x pp2
(1F1B over 4 micro-batches, every layer recomputed, ZeRO-3) must equal the same script's one-device STAND_ALONE
run: losses to float32 tolerance and every parameter to 1e-5 relative (the example prints both runs)."""
import os

from host_devices import ROOT, run_json


def test_llama_dp2_tp2_pp2_equals_one_device():
    out = run_json(path=os.path.join(ROOT, "examples", "train_llama_parallel.py"))
    assert len(out["parallel"]) == len(out["one_device"]) == 3
    for a, b in zip(out["parallel"], out["one_device"]):
        assert abs(a - b) <= 1e-5 * abs(b)
    assert out["one_device"][0] > 4.0                  # about ln(128): an untrained model on random tokens
    assert out["max_rel_param_diff"] <= 1e-5
