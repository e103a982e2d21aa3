// Test ops beyond the seed: an op with an attribute and a C++ backward, a shape-changing op, a two-output op.
#include <cmath>
#include <cstdint>

#include "msx/custom_op.h"

namespace ffi = xla::ffi;

static float Softplus(float t) { return std::fmax(t, 0.0f) + std::log1p(std::exp(-std::fabs(t))); }

// softplus(scale * x) / scale; `scale` is an FFI attribute (a Python float arrives as a double)
static ffi::Error ScaledSoftplus(ffi::Buffer<ffi::F32> x, double scale, ffi::ResultBuffer<ffi::F32> out) {
  if (scale == 0.0) return ffi::Error::InvalidArgument("scaled_softplus: scale must be non-zero");
  const float s = static_cast<float>(scale);
  for (size_t i = 0; i < x.element_count(); ++i) out->typed_data()[i] = Softplus(s * x.typed_data()[i]) / s;
  return ffi::Error::Success();
}

// its backward: dout * d/dx [softplus(s x) / s] = dout * sigmoid(s x)
static ffi::Error ScaledSoftplusGrad(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> dout, double scale,
                                     ffi::ResultBuffer<ffi::F32> dx) {
  const float s = static_cast<float>(scale);
  for (size_t i = 0; i < x.element_count(); ++i) {
    dx->typed_data()[i] = dout.typed_data()[i] / (1.0f + std::exp(-s * x.typed_data()[i]));
  }
  return ffi::Error::Success();
}

// sum over the last axis: (..., n) -> (...)
static ffi::Error RowSum(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> out) {
  auto dims = x.dimensions();
  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_sum: x must have at least one axis");
  const size_t n = dims.back();
  for (size_t r = 0; r < out->element_count(); ++r) {
    float total = 0.0f;
    for (size_t j = 0; j < n; ++j) total += x.typed_data()[r * n + j];
    out->typed_data()[r] = total;
  }
  return ffi::Error::Success();
}

// two outputs: max(x, 0) and min(x, 0)
static ffi::Error SplitSign(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> pos, ffi::ResultBuffer<ffi::F32> neg) {
  for (size_t i = 0; i < x.element_count(); ++i) {
    const float v = x.typed_data()[i];
    pos->typed_data()[i] = v > 0.0f ? v : 0.0f;
    neg->typed_data()[i] = v < 0.0f ? v : 0.0f;
  }
  return ffi::Error::Success();
}

MSX_CUSTOM_OP(scaled_softplus, ScaledSoftplus,
              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Attr<double>("scale").Ret<ffi::Buffer<ffi::F32>>());
MSX_CUSTOM_OP(scaled_softplus_grad, ScaledSoftplusGrad,
              ffi::Ffi::Bind()
                  .Arg<ffi::Buffer<ffi::F32>>()
                  .Arg<ffi::Buffer<ffi::F32>>()
                  .Attr<double>("scale")
                  .Ret<ffi::Buffer<ffi::F32>>());
MSX_CUSTOM_OP(row_sum, RowSum);
MSX_CUSTOM_OP(split_sign, SplitSign);
