"""`nn.SSIM` / `nn.MSSSIM` and `nn.LBeta` against MindSpore 2.10 (SSIM's in GRAPH_MODE: its PyNative SSIM
fails in `ScalarCast` on a float32 max_val), eagerly and under jit. The inputs are written as formulas, the answers recorded from
MindSpore's venv."""
import numpy as np
import pytest

import msx as ms
from msx import Tensor, nn

A = np.linspace(0, 1, 2 * 3 * 24 * 24, dtype=np.float32).reshape(2, 3, 24, 24)
B = (A + 0.1 * np.sin(np.arange(A.size, dtype=np.float32)).reshape(A.shape)).astype(np.float32)
BIG_A = np.linspace(0, 1, 2 * 48 * 48, dtype=np.float32).reshape(1, 2, 48, 48)
BIG_B = np.clip(BIG_A + 0.05 * np.cos(np.arange(BIG_A.size, dtype=np.float32)).reshape(BIG_A.shape), 0, 1
                ).astype(np.float32)

CASES = {  # name: (layer, img1, img2, MindSpore 2.10's answer)
    "ssim": (lambda: nn.SSIM(), A, B, [0.18252088129520416, 0.1827424168586731]),
    "ssim_k": (lambda: nn.SSIM(max_val=2.0, filter_size=7, filter_sigma=1.0, k1=0.02, k2=0.05), A, B,
               [0.6784853935241699, 0.692025363445282]),
    "msssim": (lambda: nn.MSSSIM(power_factors=(0.3, 0.3, 0.4), filter_size=5), BIG_A, BIG_B, [0.7897840738296509]),
    "msssim_u8": (lambda: nn.MSSSIM(max_val=255, power_factors=(0.5, 0.5), filter_size=5),
                  (BIG_A * 255).astype(np.uint8), (BIG_B * 255).astype(np.uint8), [0.675835371017456]),
}


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_equals_mindspore(name, jit):
    make, a, b, want = CASES[name]
    layer = make()
    run = ms.jit(layer) if jit else layer
    np.testing.assert_allclose(run(Tensor(a), Tensor(b)).asnumpy(), want, rtol=2e-5, atol=1e-6)


def test_identical_images_score_one_and_bad_inputs_are_named():
    np.testing.assert_allclose(nn.SSIM()(Tensor(A), Tensor(A)).asnumpy(), [1.0, 1.0], rtol=1e-5)
    with pytest.raises(ValueError, match="4-D"):
        nn.SSIM()(Tensor(A[0]), Tensor(B[0]))
    with pytest.raises(ValueError, match="filter_size=11"):
        nn.SSIM()(Tensor(A[:, :, :8, :8]), Tensor(B[:, :, :8, :8]))
    with pytest.raises(ValueError, match="one shape and dtype"):
        nn.SSIM()(Tensor(A), Tensor(B[:1]))
    with pytest.raises(ValueError, match="dtype must be one of"):
        nn.SSIM()(Tensor(A.astype(np.float64)), Tensor(B.astype(np.float64)))
    with pytest.raises(ValueError, match="max_val must be > 0"):
        nn.SSIM(max_val=0)
    with pytest.raises(TypeError, match="filter_sigma must be float"):
        nn.MSSSIM(filter_sigma=1)


def test_lbeta_equals_mindspore():
    x = Tensor(np.array([0.5, 1.0, 2.0, 3.5, 10.0, 40.0, 1e-3], np.float32))
    y = Tensor(np.array([0.5, 2.0, 2.0, 0.25, 30.0, 50.0, 5.0], np.float32))
    want = [1.1447285413742065, -0.693149209022522, -1.7917617559432983, 1.0021826028823853, -22.572895050048828,
            -62.455322265625, 6.905671119689941]  # MindSpore 2.10
    np.testing.assert_allclose(nn.LBeta()(x, y).asnumpy(), want, rtol=1e-5)
    xb = Tensor(np.array([[1.0, 8.0], [3.0, 100.0]], np.float32))
    got = ms.jit(nn.LBeta())(xb, Tensor(np.array([2.0, 9.0], np.float32)))  # broadcasting, under jit
    np.testing.assert_allclose(got.asnumpy(), [[-0.6931480169296265, -11.542095184326172],
                                               [-2.48490571975708, -31.192142486572266]], rtol=1e-5)
