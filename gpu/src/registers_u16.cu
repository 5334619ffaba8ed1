// Registers-mode variants for u16 images (see registers_kernel.cuh).
#include "registers_kernel.cuh"

namespace fs::gpu {
FS_REGISTERS_DEPTH(std::uint16_t)
}  // namespace fs::gpu
