// The row loops with AVX-512F (cpu/CMakeLists.txt adds -mavx512f to this file only).
#define FS_SIMD_NAMESPACE avx512
#define FS_SIMD_ISA_NAME "avx512"
#include "parallel_simd_impl.hpp"

namespace fs::cpu::detail::simd {
const RowOps& avx512RowOps() { return avx512::rowOps(); }
}  // namespace fs::cpu::detail::simd
