// msx custom ops: declare XLA FFI handlers that `msx.ops.CustomOpBuilder(...).load()` finds and registers.
//
//   #include "msx/custom_op.h"
//   namespace ffi = xla::ffi;
//
//   static ffi::Error Add3(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> y, ffi::Buffer<ffi::F32> z,
//                          ffi::ResultBuffer<ffi::F32> out) { ...; return ffi::Error::Success(); }
//   MSX_CUSTOM_OP(add3, Add3);                                  // binding inferred from Add3's signature
//   MSX_CUSTOM_OP(scaled, Scaled, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>()
//                                     .Attr<float>("scale").Ret<ffi::Buffer<ffi::F32>>());
//
// Each MSX_CUSTOM_OP becomes one function of the loaded module (`my_ops.add3`). The handlers live in a
// table inside the library, read through the three C functions below, so no other symbol needs to be
// exported and two libraries loaded in one process never clash. Wrap a binding that contains a comma
// (`ffi::Buffer<ffi::F32, 2>`) in parentheses.
#ifndef MSX_CUSTOM_OP_H_
#define MSX_CUSTOM_OP_H_

#include <vector>

#include "xla/ffi/api/ffi.h"

namespace msx_custom_op {

struct Entry {
  const char* name;
  XLA_FFI_Handler* handler;
};

// One table per library: an inline function's static is shared by every translation unit of the library.
inline std::vector<Entry>& table() {
  static std::vector<Entry> entries;
  return entries;
}

inline bool add(const char* name, XLA_FFI_Handler* handler) {
  table().push_back(Entry{name, handler});
  return true;
}

}  // namespace msx_custom_op

#define MSX_CUSTOM_OP_EXPORT extern "C" __attribute__((visibility("default"), used)) inline

MSX_CUSTOM_OP_EXPORT int msx_custom_op_abi_version() { return 1; }
MSX_CUSTOM_OP_EXPORT int msx_custom_op_count() { return static_cast<int>(msx_custom_op::table().size()); }
MSX_CUSTOM_OP_EXPORT const char* msx_custom_op_name(int i) { return msx_custom_op::table()[i].name; }
MSX_CUSTOM_OP_EXPORT void* msx_custom_op_handler(int i) {
  return reinterpret_cast<void*>(msx_custom_op::table()[i].handler);
}

#define MSX_CUSTOM_OP(name, impl, ...)                                            \
  XLA_FFI_DEFINE_HANDLER(msx_custom_op_handler_##name, impl, ##__VA_ARGS__);     \
  [[maybe_unused]] static const bool msx_custom_op_registered_##name =           \
      ::msx_custom_op::add(#name, msx_custom_op_handler_##name)

#endif  // MSX_CUSTOM_OP_H_
