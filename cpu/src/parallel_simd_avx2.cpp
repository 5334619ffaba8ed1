// The row loops with AVX2 and FMA (cpu/CMakeLists.txt adds -mavx2 -mfma to this file only).
#define FS_SIMD_NAMESPACE avx2
#define FS_SIMD_ISA_NAME "avx2+fma"
#include "parallel_simd_impl.hpp"

namespace fs::cpu::detail::simd {
const RowOps& avx2RowOps() { return avx2::rowOps(); }
}  // namespace fs::cpu::detail::simd
