// add3 on a CUDA GPU: out = x + y + z, float32, launched on the stream XLA gives the handler.
#include <cuda_runtime.h>

#include <cstdint>

#include "msx/custom_op.h"

namespace ffi = xla::ffi;

__global__ void Add3Kernel(const float* x, const float* y, const float* z, float* out, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = x[i] + y[i] + z[i];
}

static ffi::Error Add3(cudaStream_t stream, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> y,
                       ffi::Buffer<ffi::F32> z, ffi::ResultBuffer<ffi::F32> out) {
  const size_t n = x.element_count();
  if (y.element_count() != n || z.element_count() != n) {
    return ffi::Error::InvalidArgument("add3: x, y and z must have the same number of elements");
  }
  if (n == 0) return ffi::Error::Success();
  const int block = 256;
  const unsigned grid = static_cast<unsigned>((n + block - 1) / block);
  Add3Kernel<<<grid, block, 0, stream>>>(x.typed_data(), y.typed_data(), z.typed_data(), out->typed_data(), n);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return ffi::Error::Internal(cudaGetErrorString(err));
  return ffi::Error::Success();
}

MSX_CUSTOM_OP(add3, Add3,
              ffi::Ffi::Bind()
                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                  .Arg<ffi::Buffer<ffi::F32>>()
                  .Arg<ffi::Buffer<ffi::F32>>()
                  .Arg<ffi::Buffer<ffi::F32>>()
                  .Ret<ffi::Buffer<ffi::F32>>());
