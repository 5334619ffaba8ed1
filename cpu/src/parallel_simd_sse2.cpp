// The row loops with SSE2 only, which every x86-64 CPU has; also picks the set to use.
#include <atomic>

#define FS_SIMD_NAMESPACE sse2
#define FS_SIMD_ISA_NAME "sse2"
#include "parallel_simd_impl.hpp"

namespace fs::cpu::detail::simd {
namespace {
std::atomic<const RowOps*>& chosen() {
    static std::atomic<const RowOps*> ops{cpuHasAvx512()    ? &avx512RowOps()
                                          : cpuHasAvx2Fma() ? &avx2RowOps()
                                                            : &baselineRowOps()};
    return ops;
}
}  // namespace

const RowOps& baselineRowOps() { return sse2::rowOps(); }

bool cpuHasAvx512() { return __builtin_cpu_supports("avx512f"); }
bool cpuHasAvx2Fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

const RowOps& activeRowOps() { return *chosen().load(std::memory_order_acquire); }
void useRowOps(const RowOps& ops) { chosen().store(&ops, std::memory_order_release); }
}  // namespace fs::cpu::detail::simd
