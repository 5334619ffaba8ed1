// Registers-mode variants for u8 images (see registers_kernel.cuh).
#include "registers_kernel.cuh"

namespace fs::gpu {
FS_REGISTERS_DEPTH(std::uint8_t)

const void* rgba8PairVariant(int rows, int kernels) {
    if (kernels > 1)
        return rows == 4 ? reinterpret_cast<const void*>(rgba8PairKernel<4, 2>)
                         : reinterpret_cast<const void*>(rgba8PairKernel<2, 2>);
    return rows == 4 ? reinterpret_cast<const void*>(rgba8PairKernel<4, 1>)
                     : reinterpret_cast<const void*>(rgba8PairKernel<2, 1>);
}

}  // namespace fs::gpu
