// Shared-mode variants computing 4 row(s) per thread (see shared_kernel.cuh).
#include "shared_kernel.cuh"

namespace fs::gpu {
FS_SHARED_ROWS(4)
}  // namespace fs::gpu
