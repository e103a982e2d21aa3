// The seed's add3: out = x + y + z, elementwise, float32.
#include <cstdint>

#include "msx/custom_op.h"

namespace ffi = xla::ffi;

static ffi::Error Add3(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> y, ffi::Buffer<ffi::F32> z,
                       ffi::ResultBuffer<ffi::F32> out) {
  const size_t n = x.element_count();
  if (y.element_count() != n || z.element_count() != n) {
    return ffi::Error::InvalidArgument("add3: x, y and z must have the same number of elements");
  }
  const float *a = x.typed_data(), *b = y.typed_data(), *c = z.typed_data();
  float* o = out->typed_data();
  for (size_t i = 0; i < n; ++i) o[i] = a[i] + b[i] + c[i];
  return ffi::Error::Success();
}

MSX_CUSTOM_OP(add3, Add3);
