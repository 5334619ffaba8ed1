// Shared-mode variants computing 2 row(s) per thread (see shared_kernel.cuh).
#include "shared_kernel.cuh"

namespace fs::gpu {
FS_SHARED_ROWS(2)
}  // namespace fs::gpu
