// Registers-mode variants for f32 images (see registers_kernel.cuh).
#include "registers_kernel.cuh"

namespace fs::gpu {
FS_REGISTERS_DEPTH(float)
}  // namespace fs::gpu
