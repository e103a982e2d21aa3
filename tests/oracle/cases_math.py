"""Oracle cases of issue 22's math / special / linalg / fft / window / scalar ops (issue 22).

Plain Python and numpy, imported by tests/oracle/cases.py (one appended line) in both environments.
"""
from __future__ import annotations

from .cases import Case, Dt, In, add, check_unique, views

# primitives tests/test_ops_math_numpy.py checks against numpy/scipy (values) and finite differences (gradients), because
# MindSpore 2.10's CPU build cannot run them, or the golden runner records no gradient (complex outputs)
VALUES_CHECKED_HERE = {"Cholesky", "CholeskyInverse", "CholeskySolve", "LerpScalar", "LuSolve", "LuUnpack",
                       "MatrixExp", "Orgqr", "Ormqr", "Quantile"}
GRADS_CHECKED_HERE = {"Adjoint", "ConjugateTranspose", "Complex", "Polar", "Cholesky", "CholeskyInverse",
                      "CholeskySolve", "LogDet", "LogMatrixDeterminant", "Lstsq", "LuSolve", "MatrixExp",
                      "MatrixTriangularSolve", "Pinv", "Qr", "Svd", "LerpScalar", "FFTShift", "FFT", "IFFT", "RFFT",
                      "IHFFT", "FFT2", "IFFT2", "RFFT2", "IHFFT2", "FFTN", "IFFTN", "RFFTN", "IHFFTN", "IRFFT", "HFFT",
                      "IRFFT2", "IRFFTN", "HFFT2", "HFFTN", "Quantile", "AMinMax", "Median"}

X = In()
POS = In(lo=0.5, hi=3.0)
ROW = In(shape=(3,))
SQ = In(shape=(3, 3))
WELL = In(shape=(3, 3), lo=1.0, hi=2.0)  # entries in [1, 2): add the identity below for a well-conditioned matrix
I32 = In("int32", (2, 3), -5, 6)

# ---------------------------------------------------------------- special functions and arithmetic
for _n in ("j0", "j1", "y0", "y1", "k0", "k1", "k0e", "k1e"):
    _x = X if _n[0] == "j" else In(lo=0.2, hi=4.0)
    views(f"bessel_{_n}", (_x,), cls=f"Bessel{_n.upper().replace('E', 'e')}", rtol=1e-4, atol=1e-5)
views("bessel_j0", (In(lo=-30.0, hi=30.0),), tag="wide", rtol=1e-4, atol=1e-5, grad=False)
views("bessel_y1", (In(lo=0.001, hi=40.0),), tag="wide", rtol=1e-4, atol=1e-5, grad=False)
views("igamma", (POS, POS), cls="Igamma", grad=False)
views("igammac", (POS, POS), cls="Igammac", grad=False)
views("zeta", (In(lo=1.5, hi=4.0), POS), cls="Zeta", grad=False)
add(Case("ops.polygamma", "ops.polygamma", (In("int64", (), 1, 2), POS)))
add(Case("ops.polygamma[2]", "ops.polygamma", (In("int64", (), 2, 3), POS), rtol=1e-4))
add(Case("ops.Polygamma", "ops.Polygamma", (In("int64", (), 1, 2), POS), init=((), {}), grad=False))
add(Case("ops.mvlgamma", "ops.mvlgamma", (In(lo=2.0, hi=4.0), 2)))
add(Case("ops.Mvlgamma", "ops.Mvlgamma", (In(lo=2.0, hi=4.0),), init=((), {"p": 3}), grad=False))
add(Case("ops.Betainc", "ops.Betainc", (POS, POS, In(lo=0.1, hi=0.9)), init=((), {}), grad=False, rtol=1e-4))
views("ldexp", (X, In("int32", (3,), -2, 4)), tensor=False)
views("nan_to_num", (X,), {"nan": 1.0}, tensor=False, mint=False)
add(Case("ops.NanToNum", "ops.NanToNum", (X,), init=((), {"nan": 0.5})))
views("isclose", (X, X), grad=False, tensor=False, mint=False)
add(Case("ops.IsClose", "ops.IsClose", (X, In()), init=((), {"rtol": 0.5, "atol": 0.5}), grad=False))
views("approximate_equal", (X, In()), {"tolerance": 1.0}, grad=False)
add(Case("ops.ApproximateEqual", "ops.ApproximateEqual", (X, In()), init=((), {"tolerance": 0.7}), grad=False))
views("population_count", (In("int16", (2, 3), -300, 300),), cls="PopulationCount", grad=False)
add(Case("ops.eps", "ops.eps", (X,), grad=False))
add(Case("ops.Eps[f16]", "ops.Eps", (In("float16", (2,)),), init=((), {}), grad=False))
add(Case("ops.LerpScalar", "ops.LerpScalar", (X, In(), 0.3), init=((), {})))
add(Case("ops.Complex", "ops.Complex", (X, In()), init=((), {}), grad=False))
views("polar", (POS, X), cls="Polar", grad=False, mint=False)
add(Case("ops.logcumsumexp", "ops.logcumsumexp", (In(shape=(2, 4)), 1)))
add(Case("ops.CumulativeLogsumexp", "ops.CumulativeLogsumexp", (In(shape=(3, 2)), In("int64", (), 0, 1)), init=((), {})))
add(Case("ops.CumulativeLogsumexp[rev]", "ops.CumulativeLogsumexp", (In(shape=(2, 4)), In("int64", (), 1, 2)),
         init=((), {"exclusive": True, "reverse": True}), grad=False))

# MindSpore's alias names
for _name, _args in (("tensor_add", (X, ROW)), ("tensor_sub", (X, ROW)), ("tensor_mul", (X, ROW)),
                     ("tensor_muls", (X, 2.0)), ("tensor_div", (X, In(shape=(3,), lo=0.5))), ("tensor_exp", (X,)),
                     ("tensor_expm1", (X,)), ("tensor_pow", (POS, ROW)), ("pows", (POS, 2.0)),
                     ("inv", (POS,))):
    views(_name, _args, tensor=False, mint=False)
for _name in ("tensor_floordiv", "floordiv", "floor_div", "tensor_mod", "floormod", "truncate_div", "truncate_mod"):
    views(_name, (In(shape=(2, 3), lo=-4, hi=4), In(shape=(3,), lo=0.5, hi=2)), grad=False, tensor=False, mint=False)
for _name in ("tensor_ge", "tensor_gt", "tensor_le", "tensor_lt"):
    views(_name, (In("int32", (2, 3), 0, 3), In("int32", (3,), 0, 3)), grad=False, tensor=False, mint=False)
add(Case("ops.Cummax", "ops.Cummax", (In(shape=(2, 5)),), init=((), {"axis": 1}), grad=False))
add(Case("ops.Cummin", "ops.Cummin", (In(shape=(4, 3)),), init=((), {"axis": 0}), grad=False))
add(Case("ops.Argmin", "ops.Argmin", (In(shape=(2, 3, 4)),), init=((), {"axis": 1}), grad=False))
add(Case("ops.Argmin[out]", "ops.Argmin", (In(shape=(2, 3)),), init=((), {"output_type": Dt("int64")}),
         grad=False))
add(Case("ops.Logit", "ops.Logit", (In(lo=0.05, hi=0.95),), init=((), {})))
add(Case("ops.Logit[eps]", "ops.Logit", (In(lo=0.0, hi=1.0),), init=((), {"eps": 0.1})))
add(Case("ops.Cross", "ops.Cross", (In(shape=(2, 3)), In(shape=(2, 3))), init=((), {})))
add(Case("ops.Gelu", "ops.Gelu", (X,), init=((), {})))

# ---------------------------------------------------------------- linear algebra
views("matrix_determinant", (SQ,), cls="MatrixDeterminant", tensor=False, rtol=1e-4, atol=1e-5)
views("log_matrix_determinant", (WELL,), cls="LogMatrixDeterminant", grad=False, rtol=1e-4, atol=1e-5)
views("slogdet", (In(shape=(2, 3, 3)),), grad=False, rtol=1e-4, atol=1e-5)
views("logdet", (In(shape=(3, 3), lo=-1, hi=1),), grad=False, rtol=1e-4, atol=1e-5)
views("matrix_exp", (In(shape=(3, 3), lo=-0.5, hi=0.5),), cls="MatrixExp", rtol=1e-4, atol=1e-5)
add(Case("ops.matrix_power", "ops.matrix_power", (SQ, 3), rtol=1e-4, atol=1e-5))
add(Case("ops.matrix_power[-1]", "ops.matrix_power", (WELL, -1), grad=False, rtol=1e-3, atol=1e-4))
add(Case("ops.MatrixPower", "ops.MatrixPower", (In(shape=(2, 3, 3)),), init=((), {"n": 2}), rtol=1e-4, atol=1e-5))
add(Case("ops.matrix_solve", "ops.matrix_solve", (WELL, In(shape=(3, 2))), rtol=1e-3, atol=1e-4))
add(Case("ops.MatrixSolve[adj]", "ops.MatrixSolve", (WELL, In(shape=(3, 2))), init=((), {"adjoint": True}),
         grad=False, rtol=1e-3, atol=1e-4))
add(Case("ops.MatrixInverse", "ops.MatrixInverse", (WELL,), init=((), {}), rtol=1e-3, atol=1e-4))
add(Case("ops.MatrixInverse[adj]", "ops.MatrixInverse", (WELL,), init=((), {"adjoint": True}), grad=False,
         rtol=1e-3, atol=1e-4))
add(Case("ops.MatrixTriangularSolve", "ops.MatrixTriangularSolve", (WELL, In(shape=(3, 2))), init=((), {}),
         grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.MatrixTriangularSolve[upper-adj]", "ops.MatrixTriangularSolve", (WELL, In(shape=(3, 2))),
         init=((), {"lower": False, "adjoint": True}), grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.pinv", "ops.pinv", (In(shape=(3, 2)),), grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.qr", "ops.qr", (In(shape=(4, 3)),), grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.qr[complete]", "ops.qr", (In(shape=(4, 3)), "complete"), grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.Qr", "ops.Qr", (In(shape=(3, 4)),), init=((), {"full_matrices": True}), grad=False, rtol=1e-4,
         atol=1e-5))
add(Case("ops.svd[s]", "ops.svd", (In(shape=(4, 3)),), {"compute_uv": False}, grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.Svd[s]", "ops.Svd", (In(shape=(3, 4)),), init=((), {"compute_uv": False}), grad=False, rtol=1e-4,
         atol=1e-5))
add(Case("ops.eigvals", "ops.eigvals", (In(shape=(3, 3), lo=0.0, hi=1.0),), grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.lstsq", "ops.lstsq", (In(shape=(4, 2)), In(shape=(4, 3))), grad=False, rtol=1e-3, atol=1e-4))
add(Case("ops.Lstsq", "ops.Lstsq", (In(shape=(4, 3)), In(shape=(4, 2))), init=((), {}), grad=False, rtol=1e-3,
         atol=1e-4))
add(Case("ops.MatrixSolveLs", "ops.MatrixSolveLs", (In("float64", (4, 3)), In("float64", (4, 2)),
                                                    In("float64", (), 0.5, 0.5)), init=((), {}), grad=False,
         rtol=1e-4, atol=1e-5))
add(Case("ops.NuclearNorm", "ops.NuclearNorm", (In(shape=(3, 4)),), init=((), {}), grad=False, rtol=1e-4,
         atol=1e-5))
add(Case("ops.NuclearNorm[dim]", "ops.NuclearNorm", (In(shape=(2, 3, 3)),), init=((), {"dim": (1, 2),
                                                                                     "keepdim": True}),
         grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.geqrf", "ops.geqrf", (In(shape=(4, 3)),), grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.Geqrf", "ops.Geqrf", (In(shape=(3, 3)),), init=((), {}), grad=False, rtol=1e-4, atol=1e-5))

# ---------------------------------------------------------------- products and structure
views("dot", (In(shape=(2, 3)), In(shape=(3, 4))), tensor=False, mint=False)
add(Case("ops.dot[3d]", "ops.dot", (In(shape=(2, 2, 3)), In(shape=(2, 3, 4)))))
add(Case("ops.tensor_dot", "ops.tensor_dot", (In(shape=(2, 3, 4)), In(shape=(4, 3, 2)), ((1, 2), (1, 0)))))
add(Case("ops.tensor_dot[int]", "ops.tensor_dot", (In(shape=(2, 3)), In(shape=(3, 4)), 1)))
add(Case("ops.batch_dot", "ops.batch_dot", (In(shape=(2, 2, 3)), In(shape=(2, 3, 2)), (-1, -2))))
add(Case("ops.batch_dot[default]", "ops.batch_dot", (In(shape=(2, 3, 4)), In(shape=(2, 4, 5)))))
add(Case("ops.batch_dot[2d]", "ops.batch_dot", (In(shape=(2, 3)), In(shape=(2, 3)))))
add(Case("ops.vecdot", "ops.vecdot", (X, ROW)))
add(Case("ops.vecdot[axis]", "ops.vecdot", (X, X), {"axis": 0}))
views("mv", (In(shape=(2, 3)), ROW), tensor=False, mint=False)
views("addmv", (In(shape=(2,)), In(shape=(2, 3)), ROW), {"beta": 0.5, "alpha": 2.0}, tensor=False, mint=False)
views("addr", (In(shape=(3, 2)), ROW, In(shape=(2,))), {"beta": 2.0, "alpha": 0.5}, tensor=False)
views("addbmm", (In(shape=(3, 4)), In(shape=(2, 3, 2)), In(shape=(2, 2, 4))), {"beta": 0.5}, tensor=False,
      mint=False)
views("baddbmm", (In(shape=(2, 3, 4)), In(shape=(2, 3, 2)), In(shape=(2, 2, 4))), {"alpha": 2.0}, tensor=False,
      mint=False)
add(Case("ops.matrix_band_part", "ops.matrix_band_part", (In(shape=(2, 3, 4)), 1, 0)))
add(Case("ops.matrix_band_part[all]", "ops.matrix_band_part", (In(shape=(4, 4)), -1, 1)))
add(Case("ops.MatrixBandPart", "ops.MatrixBandPart", (In(shape=(3, 3)), 0, -1), init=((), {}), grad=False))
views("adjoint", (In("complex64", (2, 3)),), grad=False, tensor=False)
add(Case("ops.ConjugateTranspose", "ops.ConjugateTranspose", (In("complex64", (2, 3, 2)), (1, 2, 0)), init=((), {}),
         grad=False))
add(Case("ops.block_diag", "ops.block_diag", (In(shape=(2, 2)), In(shape=(1, 3)), In(shape=(2, 1)))))
add(Case("ops.cartesian_prod", "ops.cartesian_prod", (In(shape=(2,)), In(shape=(3,)))))
add(Case("ops.combinations", "ops.combinations", (In(shape=(4,)),)))
add(Case("ops.combinations[3-rep]", "ops.combinations", (In(shape=(3,)), 2, True)))
add(Case("ops.vander", "ops.vander", (In(shape=(3,)),)))
add(Case("ops.vander[N]", "ops.vander", (In(shape=(3,)), 4)))
add(Case("ops.tril_indices", "ops.tril_indices", (3, 4), grad=False))
add(Case("ops.triu_indices[off]", "ops.triu_indices", (4, 3, 1), grad=False))
add(Case("ops.TrilIndices", "ops.TrilIndices", (), init=((3, 3, -1), {}), grad=False))
add(Case("ops.TriuIndices", "ops.TriuIndices", (), init=((3, 4), {"dtype": Dt("int64")}), grad=False))

# diagonals (MatrixDiag*V3 conventions)
add(Case("ops.matrix_diag", "ops.matrix_diag", (In(shape=(2, 3)),)))
add(Case("ops.matrix_diag[k1]", "ops.matrix_diag", (In(shape=(3,)), 1)))
# (the tags pick seeds whose drawn k pairs are valid bands)
add(Case("ops.matrix_diag[band0]", "ops.matrix_diag", (In(shape=(2, 3)), In("int32", (2,), -1, 2), 3, 4, 0.5),
         grad=False))
add(Case("ops.matrix_diag_part", "ops.matrix_diag_part", (In(shape=(3, 4)), In("int32", (), 0, 1),
                                                          In(shape=(), lo=0, hi=0))))
add(Case("ops.matrix_diag_part[band7]", "ops.matrix_diag_part", (In(shape=(2, 3, 4)), In("int32", (2,), -2, 3),
                                                                In(shape=(), lo=9, hi=9)), grad=False))
add(Case("ops.matrix_diag_part[left0]", "ops.matrix_diag_part", (In(shape=(4, 3)), In("int32", (2,), -2, 2),
                                                                In(shape=(), lo=0, hi=0), "LEFT_LEFT"), grad=False))
add(Case("ops.matrix_set_diag", "ops.matrix_set_diag", (In(shape=(3, 3)), In(shape=(3,)))))
add(Case("ops.matrix_set_diag[band0]", "ops.matrix_set_diag", (In(shape=(3, 4)), In(shape=(2, 3)),
                                                               In("int32", (2,), -1, 2)), grad=False))
add(Case("ops.MatrixDiagV3", "ops.MatrixDiagV3", (In(shape=(3,)), In("int32", (), -1, 0), In("int32", (), -1, 0),
                                                  In("int32", (), -1, 0), In(shape=(), lo=0, hi=0)),
         init=((), {}), grad=False))
add(Case("ops.MatrixDiagPartV3", "ops.MatrixDiagPartV3", (In(shape=(3, 3)), In("int32", (), 1, 2),
                                                          In(shape=(), lo=0, hi=0)), init=((), {"align": "LEFT_RIGHT"}),
         grad=False))
add(Case("ops.MatrixSetDiagV3", "ops.MatrixSetDiagV3", (In(shape=(3, 3)), In(shape=(2,)), In("int32", (), 1, 2)),
         init=((), {}), grad=False))

# ---------------------------------------------------------------- fft and windows
SIG = In(shape=(2, 6))
for _name in ("fft", "ifft", "rfft", "ihfft"):
    add(Case(f"ops.{_name}", f"ops.{_name}", (SIG,), grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.fft[n-ortho]", "ops.fft", (SIG, 4, 0, "ortho"), grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.irfft", "ops.irfft", (In("complex64", (2, 4)),), grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.hfft", "ops.hfft", (In("complex64", (2, 4)),), {"n": 6}, grad=False, rtol=1e-4, atol=1e-5))
for _name in ("fft2", "ifft2", "rfft2", "fftn", "ifftn", "rfftn", "ihfft2", "ihfftn"):
    add(Case(f"ops.{_name}", f"ops.{_name}", (In(shape=(2, 3, 4)),), grad=False, rtol=1e-4, atol=1e-5))
for _name in ("irfft2", "irfftn", "hfft2", "hfftn"):
    add(Case(f"ops.{_name}", f"ops.{_name}", (In("complex64", (2, 3, 3)),), grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.fftn[s-dim]", "ops.fftn", (In(shape=(2, 3, 4)), (2, 5), (0, 2), "forward"), grad=False, rtol=1e-4,
         atol=1e-5))
add(Case("ops.fft[int]", "ops.fft", (In("int32", (5,), -3, 4),), grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.fftshift", "ops.fftshift", (In(shape=(3, 4)),), grad=False))
add(Case("ops.ifftshift[dim]", "ops.ifftshift", (In(shape=(3, 5)), 1), grad=False))
add(Case("ops.fftfreq", "ops.fftfreq", (5, 0.5), grad=False))
add(Case("ops.rfftfreq", "ops.rfftfreq", (6,), grad=False))
# MindSpore 2.10: bartlett/blackman take the length as a 0-d Tensor, hann/hamming/kaiser as an int
for _name in ("bartlett_window", "blackman_window", "hann_window", "hamming_window", "kaiser_window"):
    _n6, _n5 = (In("int64", (), 6, 7), In("int64", (), 5, 6)) if _name[0] == "b" else (6, 5)
    add(Case(f"ops.{_name}", f"ops.{_name}", (_n6,), grad=False, rtol=1e-5, atol=1e-6))
    add(Case(f"ops.{_name}[sym]", f"ops.{_name}", (_n5, False), grad=False, rtol=1e-5, atol=1e-6))
add(Case("ops.hamming_window[ab]", "ops.hamming_window", (4, True, 0.5, 0.5), {"dtype": Dt("float64")}, grad=False))
add(Case("ops.kaiser_window[beta]", "ops.kaiser_window", (7, True, 5.0), grad=False, rtol=1e-5, atol=1e-6))
add(Case("ops.BartlettWindow", "ops.BartlettWindow", (In("int32", (), 5, 6),), init=((), {}), grad=False))
add(Case("ops.BlackmanWindow", "ops.BlackmanWindow", (In("int64", (), 6, 7),), init=((False,), {}), grad=False,
         atol=1e-6))
add(Case("ops.HammingWindow", "ops.HammingWindow", (In("int32", (1,), 4, 5),), init=((), {"alpha": 0.6, "beta": 0.4}),
         grad=False))

# ---------------------------------------------------------------- statistics, norms, distances, ranges
R3 = In(shape=(3, 4))
views("std", (R3, 1), tensor=False, mint=False)
add(Case("ops.std[ddof-keep]", "ops.std", (R3, 0, 1, True)))
views("var", (R3,), tensor=False, mint=False)
add(Case("ops.var[axis-ddof]", "ops.var", (R3, (0, 1), 1)))
add(Case("ops.std_mean", "ops.std_mean", (R3, 1)))
add(Case("ops.var_mean", "ops.var_mean", (R3, 0, 1, True)))
add(Case("ops.ReduceStd", "ops.ReduceStd", (R3,), init=((), {"axis": 1}), grad=False))
add(Case("ops.ReduceStd[all-biased]", "ops.ReduceStd", (R3,), init=((), {"unbiased": False, "keep_dims": True}),
         grad=False))
add(Case("ops.median", "ops.median", (In(shape=(3, 5)), 1), grad=False))
add(Case("ops.median[even-keep]", "ops.median", (R3, 1, True), grad=False))
add(Case("ops.nanmedian", "ops.nanmedian", (R3, 0), grad=False))
add(Case("ops.Median", "ops.Median", (In(shape=(3, 5)),), init=((), {"axis": 1}), grad=False))
add(Case("ops.Median[global]", "ops.Median", (In(shape=(3, 5)),), init=((), {"global_median": True}), grad=False))
R64 = In("float64", (3, 4))  # MindSpore 2.10's CPU Quantile kernel takes float64 only
add(Case("ops.quantile", "ops.quantile", (R64, 0.3, 1), grad=False))
add(Case("ops.quantile[all]", "ops.quantile", (R64, 0.75), grad=False))
add(Case("ops.quantile[q-tensor]", "ops.quantile", (R64, In("float64", (2,), 0, 1), 0, True), grad=False))
add(Case("ops.nanquantile", "ops.nanquantile", (R64, 0.5, 1), grad=False))
add(Case("ops.Quantile", "ops.Quantile", (R64, In("float64", (2,), 0, 1)), init=((), {"dim": 1}), grad=False))
add(Case("ops.aminmax", "ops.aminmax", (R3,), {"axis": 1}, grad=False))
add(Case("ops.aminmax[keep]", "ops.aminmax", (R3,), {"axis": 0, "keepdims": True}, grad=False))
add(Case("ops.histc", "ops.histc", (R3, 5), grad=False))
add(Case("ops.histc[range]", "ops.histc", (R3, 4, -1.0, 1.0), grad=False))
add(Case("ops.Histogram", "ops.Histogram", (R3,), init=((), {"bins": 3, "min": -2.0, "max": 2.0}), grad=False))
add(Case("ops.cov", "ops.cov", (R3,), rtol=1e-4, atol=1e-5))
add(Case("ops.cov[corr0]", "ops.cov", (R3,), {"correction": 0}, rtol=1e-4, atol=1e-5))
add(Case("ops.vector_norm", "ops.vector_norm", (R3,)))
add(Case("ops.vector_norm[p3-axis]", "ops.vector_norm", (R3, 3, 1, True)))
add(Case("ops.vector_norm[inf]", "ops.vector_norm", (R3, float("inf"), 0), grad=False))
add(Case("ops.matrix_norm", "ops.matrix_norm", (In(shape=(2, 3, 3)),)))
add(Case("ops.matrix_norm[nuc]", "ops.matrix_norm", (In(shape=(3, 3)), "nuc"), grad=False, rtol=1e-4, atol=1e-5))
add(Case("ops.matrix_norm[1]", "ops.matrix_norm", (In(shape=(3, 3)), 1), grad=False))
add(Case("ops.LpNorm", "ops.LpNorm", (R3,), init=((), {"axis": 1, "p": 3}), rtol=1e-4))
add(Case("ops.EuclideanNorm", "ops.EuclideanNorm", (R3, In("int32", (1,), 1, 2)), init=((), {}), grad=False))
views("renorm", (R3, 2, 0, 1.0), tensor=False, rtol=1e-4, atol=1e-5)
add(Case("ops.Renorm", "ops.Renorm", (R3,), init=((), {"p": 1, "dim": 1, "maxnorm": 1.5}), grad=False, rtol=1e-4))
add(Case("ops.L2Normalize", "ops.L2Normalize", (R3,), init=((), {"axis": 1})))
add(Case("ops.L2Loss", "ops.L2Loss", (R3,), init=((), {})))
add(Case("ops.SquareSumAll", "ops.SquareSumAll", (R3, In(shape=(3, 4))), init=((), {})))
views("cdist", (In(shape=(3, 2)), In(shape=(4, 2))), tensor=False, mint=False, rtol=1e-4, atol=1e-5)
add(Case("ops.cdist[p1-batch]", "ops.cdist", (In(shape=(2, 3, 2)), In(shape=(2, 4, 2)), 1.0), rtol=1e-4, atol=1e-5))
add(Case("ops.Cdist", "ops.Cdist", (In(shape=(3, 2)), In(shape=(2, 2))), init=((), {"p": 3.0}), grad=False,
         rtol=1e-4))
add(Case("ops.pdist", "ops.pdist", (In(shape=(4, 3)),), rtol=1e-4, atol=1e-5))
add(Case("ops.Pdist", "ops.Pdist", (In(shape=(4, 3)),), init=((), {"p": 1.0}), grad=False, rtol=1e-4))
add(Case("ops.dist", "ops.dist", (R3, In(shape=(3, 4)))))
add(Case("ops.dist[p1]", "ops.dist", (R3, In(shape=(4,)), 1)))
add(Case("ops.diff", "ops.diff", (R3,)))
add(Case("ops.diff[n2-axis0]", "ops.diff", (R3, 2, 0)))
add(Case("ops.diff[pre-app]", "ops.diff", (R3, 1, 1, In(shape=(3, 1)), In(shape=(3, 2)))))
add(Case("ops.trapz", "ops.trapz", (R3,)))
add(Case("ops.trapz[x]", "ops.trapz", (R3, In(shape=(4,))), {"dim": 1}))
add(Case("ops.trapz[dx]", "ops.trapz", (R3,), {"dx": 0.5, "dim": 0}))
add(Case("ops.logspace", "ops.logspace", (0.0, 2.0, 5), grad=False, rtol=1e-5))
add(Case("ops.logspace[base2]", "ops.logspace", (-1.0, 3.0, 4, 2), grad=False))
add(Case("ops.LogSpace", "ops.LogSpace", (In(shape=(), lo=0, hi=1), In(shape=(), lo=1, hi=2)),
         init=((), {"steps": 4, "base": 2}), grad=False, rtol=1e-5))
add(Case("ops.LinSpace", "ops.LinSpace", (In(shape=(), lo=0, hi=1), In(shape=(), lo=1, hi=2), 5), init=((), {}),
         grad=False))

# ---------------------------------------------------------------- scalar and sequence helpers (plain Python values)
SCALAR_CASES = []


def scalar(name: str, args: tuple, tag: str = "") -> None:
    case = Case(f"ops.{name}{f'[{tag}]' if tag else ''}", f"ops.{name}", args, grad=False)
    SCALAR_CASES.append(case.id)
    add(case)


for _name, _args in (("scalar_add", (2, 3)), ("scalar_sub", (2, 5)), ("scalar_mul", (2, 2.5)), ("scalar_div", (7, 2)),
                     ("scalar_floordiv", (7, 2)), ("scalar_mod", (7, 3)), ("scalar_pow", (2, 3)),
                     ("scalar_eq", (2, 2)), ("scalar_lt", (2, 3)), ("scalar_le", (3, 3)), ("scalar_gt", (2, 3)),
                     ("scalar_ge", (3, 2)), ("scalar_max", (2, 3.0)), ("scalar_min", (2, 3)), ("scalar_log", (2.0,)),
                     ("scalar_uadd", (3,)), ("scalar_usub", (3,)), ("tuple_len", ((1, 2, 3),)),
                     ("list_len", ([1, 2],)), ("tuple_getitem", ((1, 2, 3), 1)), ("list_getitem", ([1, 2, 3], 2)),
                     ("make_tuple", (1, 2)), ("make_range", (0, 5, 2)), ("tuple_setitem", ((1, 2, 3), 1, 9)),
                     ("tuple_div", ((4, 6), (2, 3))), ("tuple_equal", ((1, 2), (1, 2))),
                     ("tuple_reversed", ((1, 2, 3),)), ("shape_mul", ((2, 3, 4),)), ("bool_not", (True,)),
                     ("scalar_to_tensor", (3,)), ("tuple_to_array", ((1, 2, 3),)), ("make_list", (1, 2)),
                     ("list_setitem", ([1, 2, 3], 0, 5)), ("list_equal", ([1], [2]))):
    scalar(_name, _args)
scalar("scalar_add", (2, 3.5), "float")
scalar("scalar_floordiv", (-7, 2), "neg")
scalar("scalar_mod", (-7, 3), "neg")
scalar("scalar_cast", (3.7, Dt("int64")))
scalar("scalar_cast", (3, Dt("float64")), "float")
scalar("scalar_to_tensor", (2.5, Dt("float16")), "f16")
scalar("tuple_to_array", ((1.0, 2.5),), "float")
add(Case("ops.tensor_range", "ops.tensor_range", (0, 7, 3), grad=False))
add(Case("ops.ScalarToTensor", "ops.ScalarToTensor", (4,), init=((), {}), grad=False))
add(Case("ops.TupleToArray", "ops.TupleToArray", ((1, 2),), init=((), {}), grad=False))
SCALAR_CASES += ["ops.ScalarToTensor", "ops.TupleToArray"]
check_unique()
